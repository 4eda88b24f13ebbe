"""A run: its definition and the finished run on disk.

:class:`SimConfig` is everything that defines a run's data (rules, policies, mode, count,
seed, shard size, deal, generator), and its run id; :class:`Run` is a finished run on
disk (the one type for it: the analyses, the notebook API and the command line read runs
through it), which :func:`open_run` checks (manifest, configuration, shard entries, every
shard file) without reading its rows; :meth:`Run.scan` reads the rows lazily with the
pinned schema. A run being written is :class:`scopa_sim.sim.shards.RunWriter`.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import html
import json
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from scopa_sim.bots.learned_weights import plays_learned, seat_model, weights_entry
from scopa_sim.bots.registry import PolicySpec, seat_policies
from scopa_sim.data import dataset as D
from scopa_sim.errors import InputError, PolicyError, ScopaError, SimulationError
from scopa_sim.game.rules import PRESETS, Rules

if TYPE_CHECKING:
    import polars as pl

DEFAULT_SHARD_HANDS = 250_000
#: Matches a shard by default, fewer for long matches (:func:`default_shard_size`).
DEFAULT_SHARD_MATCHES = 25_000
#: The most units a run may have: match numbers fill the Int64 ``match`` column (and the
#: 64-bit stream derivation, :func:`_engine.streams.derive_seed`).
MAX_UNITS = 2**63 - 1
#: The most rows a shard may be planned to hold (a shard is computed in memory: about
#: 240 bytes a row; and Parquet page headers count values in 32 bits).
MAX_SHARD_ROWS = 10_000_000
#: Version of the data generator, part of every run's identity: bumped whenever the same
#: configuration and seed give different data (deal shuffle, play streams, bots' draws),
#: so that ``--resume`` and the study never mix the data of two generators. 2: two
#: shuffle draws per hash, the ISMCTS of the locals loop. 3: two draws per hash in the
#: play streams of the random and greedy policies and in determinizations (ISMCTS's own
#: loop still takes one draw per hash).
GENERATOR = 3
#: How the hands of a run are dealt (:attr:`SimConfig.deal`).
DEALS = ("plain", "swapped")
#: The one-line refusal of a Cirulla run that the engine does not make yet (the policies
#: that play Cirulla are checked when the run is simulated:
#: :func:`scopa_sim.sim.match.check_cirulla_policies`).
CIRULLA_RUNS = "capture_mode=cirulla is simulated on plain deals only, so far"


@dataclass(frozen=True)
class SimConfig:
    """Everything that defines a run's data (not how it is computed).

    Its fields are its identity (the manifest's ``config``, the run id): the policies as
    their canonical texts. What computing its shards needs is derived once and kept with
    it: the parsed policies (:attr:`specs`, parsed on first use, or handed over by
    :meth:`make`, which parsed them) and the rules vector of the kernels
    (:meth:`Rules.to_array`, packed once per rule set). Within a process a configuration
    is passed as it is; only across process and Dask boundaries does it travel as its
    JSON form (:meth:`to_json`, :meth:`from_json`).
    """

    preset: str
    rules: Rules
    policies: tuple[str, ...]  # one per seat
    mode: str  # "hands" or "matches"
    count: int
    seed: int
    shard_size: int
    generator: int = GENERATOR
    #: "plain", or "swapped": every hand dealt from its deck with the seats' cards exchanged
    #: (:mod:`scopa_sim.sim.duplicate`; ``--hands`` only), the duplicate of the plain run's hand.
    deal: str = "plain"
    #: The SHA-256 of the learned policy's weights file the run plays (its manifest's,
    #: :mod:`scopa_sim.bots.learned_weights`) when a seat plays ``learned``, else "":
    #: filled from the installed weights unless given (a run read back keeps its own).
    learned_weights: str = ""

    def __post_init__(self) -> None:
        if self.mode not in ("hands", "matches"):
            raise SimulationError(f"mode must be 'hands' or 'matches', got {self.mode!r}")
        if self.deal not in DEALS:
            raise SimulationError(f"deal must be one of {', '.join(DEALS)}, got {self.deal!r}")
        if self.deal != "plain" and self.mode != "hands":
            raise SimulationError("swapped deals are for runs of hands only, not of matches")
        if not 1 <= self.count <= MAX_UNITS:
            raise SimulationError(
                f"the number of {self.mode} must be 1..{MAX_UNITS:,} (2**63 - 1, the range "
                "of the Int64 match column)"
            )
        if not 0 <= self.seed <= MAX_UNITS:
            raise SimulationError(f"the seed must be 0..{MAX_UNITS:,}")
        most = max_shard_size(self.mode, self.rules)
        if not 1 <= self.shard_size <= most:
            raise SimulationError(
                f"the shard size must be 1..{most:,} {self.mode} with these rules (a shard "
                f"is planned to hold at most {MAX_SHARD_ROWS:,} rows)"
            )
        if len(self.policies) != self.rules.players:
            raise SimulationError("one policy per seat is needed")
        if self.cirulla and self.deal != "plain":
            raise SimulationError(CIRULLA_RUNS)
        if not plays_learned(self.policies):
            if self.learned_weights:
                raise SimulationError("learned weights are named, but no seat plays learned")
        elif not self.learned_weights:  # a PolicyError for rules without learned weights
            object.__setattr__(self, "learned_weights", weights_entry(self.rules).sha256)

    @classmethod
    def make(
        cls,
        preset: str,
        rules: Rules,
        policies: Sequence[PolicySpec | str],
        mode: str,
        count: int,
        seed: int,
        shard_size: int | None = None,
        deal: str = "plain",
    ) -> SimConfig:
        """A configuration from policies as given on the command line (one for every seat,
        or one each: :func:`seat_policies`); parsed policies are kept, not parsed again."""
        specs = tuple(seat_policies(policies, rules.players))
        if shard_size is None:
            shard_size = default_shard_size(mode, rules)
        config = cls(
            preset, rules, tuple(str(p) for p in specs), mode, count, seed, shard_size, deal=deal
        )
        config.__dict__["specs"] = specs  # the cache of the property below: parsed already
        return config

    @functools.cached_property
    def specs(self) -> tuple[PolicySpec, ...]:
        """The seats' policies, parsed once (each distinct text once), on first use: a run
        read back only to be analysed is never parsed."""
        return tuple(seat_policies(self.policies, self.rules.players))

    @property
    def cirulla(self) -> bool:
        """Whether the run plays Cirulla (RULES.md §10): its shards have Cirulla's item
        columns (:func:`dataset.column_types`)."""
        return self.rules.cirulla

    @property
    def is_kernel(self) -> bool:
        """Whether every seat plays a policy of the jitted loops (else bots play the run)."""
        return all(p.is_kernel for p in self.specs)

    @functools.cached_property
    def kernel_codes(self) -> np.ndarray:
        """The seats' kernel policy codes as the jitted loops take them (four slots);
        a SimulationError for a run of search policies, which those loops cannot play."""
        if not self.is_kernel:
            raise SimulationError("a run of search policies has no kernel codes")
        codes = [p.code for p in self.specs] + [0] * (4 - self.rules.players)
        return np.array(codes, dtype=np.int64)

    @functools.cached_property
    def kernel_model(self) -> np.ndarray:
        """The model vector the jitted loops take beside :attr:`kernel_codes`: the learned
        policy's weights for these rules when a seat plays it (loaded once per process),
        else the empty vector.

        Raises:
            PolicyError: the installed weights are not those the run played (its
                :attr:`learned_weights`), or the rules have none.
            FileError: the weights file is missing or corrupt.
        """
        if self.learned_weights and weights_entry(self.rules).sha256 != self.learned_weights:
            raise PolicyError(
                f"the run played the learned weights of SHA-256 {self.learned_weights[:16]}..., "
                f"not the installed ones ({weights_entry(self.rules).sha256[:16]}...): it "
                "cannot be computed further with them"
            )
        return seat_model(self.rules, self.policies)

    @property
    def shards(self) -> int:
        return -(-self.count // self.shard_size)

    def units(self, shard: int) -> tuple[int, int]:
        """First unit and number of units of a shard."""
        lo = shard * self.shard_size
        return lo, min(self.shard_size, self.count - lo)

    def data_key(self) -> dict[str, Any]:
        """The parts of the configuration that define the data (``deal`` only when it is
        not plain, and ``learned_weights``, the SHA-256 of the learned policy's weights
        file, only when a seat plays it, so that the other runs keep the identity they
        had before these existed)."""
        key: dict[str, Any] = {
            "preset": self.preset,
            "rules": self.rules.as_dict(),
            "policies": list(self.policies),
            "mode": self.mode,
            "count": self.count,
            "seed": self.seed,
            "generator": self.generator,
        }
        if self.deal != "plain":
            key["deal"] = self.deal
        if self.learned_weights:
            key["learned_weights"] = self.learned_weights
        return key

    @property
    def run_id(self) -> str:
        blob = json.dumps(self.data_key(), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:12]

    def to_json(self) -> dict[str, Any]:
        return {**self.data_key(), "shard_size": self.shard_size, "run_id": self.run_id}

    @classmethod
    def from_json(cls, doc: Any) -> SimConfig:
        """The configuration of a manifest's ``config`` object, strictly typed: a field
        missing or of another type is a DatasetError (the manifest was damaged or edited)."""
        if not isinstance(doc, dict):
            raise D.DatasetError("manifest config is malformed (not an object)")
        types = {"preset": str, "rules": dict, "policies": list, "mode": str, "count": int}
        types |= {"seed": int, "shard_size": int, "generator": int}
        for key, kind in types.items():
            if key == "generator" and key not in doc:
                continue  # absent before version 2
            if key not in doc:
                raise D.DatasetError(f"manifest config is malformed (no {key!r})")
            value = doc[key]
            if not isinstance(value, kind) or isinstance(value, bool):
                raise D.DatasetError(
                    f"manifest config is malformed ({key!r} is not {_TYPE_NAMES[kind]})"
                )
        if not all(isinstance(p, str) for p in doc["policies"]):
            raise D.DatasetError("manifest config is malformed ('policies' are not strings)")
        if not isinstance(doc.get("learned_weights", ""), str):
            raise D.DatasetError("manifest config is malformed ('learned_weights' is not text)")
        try:
            return cls(
                preset=doc["preset"],
                rules=Rules.from_dict(doc["rules"]),
                policies=tuple(doc["policies"]),
                mode=doc["mode"],
                count=doc["count"],
                seed=doc["seed"],
                shard_size=doc["shard_size"],
                generator=doc.get("generator", 1),
                deal=doc.get("deal", "plain"),
                learned_weights=doc.get("learned_weights", ""),
            )
        except ScopaError as e:
            raise D.DatasetError(f"manifest config is malformed ({e})") from None

    def shard_spec(self, directory: Path, index: int, entry: dict[str, Any] | None) -> D.ShardSpec:
        """What shard ``index`` must be (:func:`dataset.check_shard`), with the rows and
        size its manifest ``entry`` records (None: a shard not yet in the manifest, whose
        rows are known only in hands mode)."""
        first, units = self.units(index)
        rows = entry["rows"] if entry is not None else (units if self.mode == "hands" else None)
        return D.ShardSpec(
            path=D.shard_path(directory, index),
            run_id=self.run_id,
            preset=self.preset,
            rules_hash=self.rules.digest(),
            seed=self.seed,
            players=self.rules.players,
            sides=self.rules.sides,
            policies=self.policies,
            first=first,
            units=units,
            rows=rows,
            size=entry.get("bytes") if entry is not None else None,
            crc32=entry.get("crc32") if entry is not None else None,
            cirulla=self.cirulla,
        )


def mode_and_count(hands: int | None, matches: int | None) -> tuple[str, int]:
    """What a run counts and how many, from ``--hands N`` or ``--matches N``: exactly one
    of them, a whole number 1..:data:`MAX_UNITS`; a one-line SimulationError otherwise (the
    command line's and the Python API's message alike)."""
    if (hands is None) == (matches is None):
        raise InputError("give exactly one of a number of hands or a number of matches")
    mode = "hands" if hands is not None else "matches"
    count = hands if hands is not None else matches
    if type(count) is not int:
        raise InputError(f"the number of {mode} must be a whole number, not {count!r}")
    if not 1 <= count <= MAX_UNITS:
        raise InputError(f"the number of {mode} must be 1..{MAX_UNITS:,} (2**63 - 1)")
    return mode, count


def hands_bound(rules: Rules) -> int:
    """Hands a match takes at most unless the leaders tie: ``sides * target``, since each
    hand scores at least one point (the settebello)."""
    return rules.sides * rules.target


def max_shard_size(mode: str, rules: Rules) -> int:
    """The most units a shard may hold: :data:`MAX_SHARD_ROWS` rows at the bound of
    :func:`hands_bound` hands a match."""
    return MAX_SHARD_ROWS if mode == "hands" else max(1, MAX_SHARD_ROWS // hands_bound(rules))


def default_shard_size(mode: str, rules: Rules) -> int:
    """Units a shard by default: 250,000 hands, or 25,000 matches when they are short (up
    to 44 hands' bound: the presets' target of 11) and fewer for longer ones, so that a
    shard holds about as many rows whatever the target."""
    if mode == "hands":
        return DEFAULT_SHARD_HANDS
    return max(1, min(DEFAULT_SHARD_MATCHES, DEFAULT_SHARD_MATCHES * 44 // hands_bound(rules)))


_TYPE_NAMES = {str: "a string", dict: "an object", list: "a list", int: "an integer"}


def manifest_config(directory: Path, doc: dict[str, Any]) -> SimConfig:
    """The configuration of a run's manifest; a DatasetError naming the file if it is
    malformed."""
    try:
        return SimConfig.from_json(doc.get("config"))
    except D.DatasetError as e:
        raise D.DatasetError(f"{directory / D.MANIFEST}: {e}") from None


def check_manifest(directory: Path, config: SimConfig, doc: dict[str, Any]) -> None:
    """A DatasetError unless the manifest's run id is its configuration's and its schema
    is this version's pinned schema (an edited or damaged manifest, or another format)."""
    if doc.get("run_id") != config.run_id:
        raise D.DatasetError(
            f"{directory / D.MANIFEST}: the run id {doc.get('run_id')!r} does not match the "
            f"configuration ({config.run_id}); the manifest was edited or damaged"
        )
    if doc.get("schema") != dict(D.column_types(config.cirulla)):
        raise D.DatasetError(f"{directory}: its schema differs from this version's pinned schema")


def manifest_shards(directory: Path, config: SimConfig, doc: dict[str, Any]) -> dict[int, Any]:
    """The shard entries of a run's manifest by index, each checked to be well-formed and
    to agree with the configuration (its file name, units and rows); DatasetError if not."""
    where = directory / D.MANIFEST
    entries = doc.get("shards")
    if not isinstance(entries, list):
        raise D.DatasetError(f"{where}: malformed manifest ('shards' is not a list)")
    out: dict[int, Any] = {}
    for k, e in enumerate(entries):
        bad = f"{where}: malformed manifest (shard entry {k}"
        if not isinstance(e, dict):
            raise D.DatasetError(f"{bad} is not an object)")
        optional = [k for k in ("bytes", "crc32") if k in e]
        for key in ("index", "units", "rows", *optional):
            if type(e.get(key)) is not int:
                raise D.DatasetError(f"{bad}: {key!r} is not an integer)")
        i = e["index"]
        if not 0 <= i < config.shards:
            raise D.DatasetError(f"{bad}: index {i} is not a shard of this run)")
        if i in out:
            raise D.DatasetError(f"{bad}: shard {i} is listed twice)")
        if e.get("file") != f"{D.SHARD_DIR}/{D.shard_path(directory, i).name}":
            raise D.DatasetError(f"{bad}: file {e.get('file')!r} is not shard {i}'s)")
        units = config.units(i)[1]
        if e["units"] != units:
            raise D.DatasetError(f"{bad}: {e['units']} units, shard {i} has {units})")
        if e["rows"] < units or (config.mode == "hands" and e["rows"] != units):
            raise D.DatasetError(f"{bad}: {e['rows']} rows for {units} {config.mode})")
        out[i] = e
    return out


@dataclass(frozen=True, repr=False)
class Run:
    """A finished run on disk, checked: its directory, manifest, configuration, size
    (``rows``, one a hand) and the shard files its manifest lists (each checked to belong
    to it by :func:`dataset.check_shard`). Made by :func:`open_run`; nothing of its rows is
    read until :meth:`scan` is collected. ``name`` is the label given to it (by
    :meth:`labelled`, or ``scopa_sim.simulate(label=...)``), None for the default
    (:attr:`label`)."""

    directory: Path
    manifest: dict[str, Any] = field(compare=False)
    config: SimConfig
    rows: int
    files: tuple[Path, ...] = field(compare=False)
    #: What must live as long as the run (the temporary directory of a run made without
    #: an output directory), or None.
    keep: object = field(default=None, compare=False)
    name: str | None = field(default=None, compare=False)

    def scan(self) -> pl.LazyFrame:
        """The run's rows (one a hand), lazily, with the pinned schema (``docs/record.md``):
        exactly the listed shards."""
        import polars as pl

        return pl.scan_parquet(list(self.files), schema=D.schema(self.config.cirulla))

    def by_role(self) -> pl.LazyFrame:
        """The run's hands as a tidy frame by role (the dealer's side, the first player's
        side, each seat), without the always-null columns: :func:`.roles.by_role`."""
        from scopa_sim.data.roles import by_role

        return by_role(self.scan(), self.config)

    @property
    def label(self) -> str:
        """A short name for tables and comparisons: the label given (:attr:`name`), else
        for a run in a temporary directory (``simulate`` without ``out``) its preset,
        policies and rule overrides (``scopa expert remainder_to=dealer``), else the
        directory's name."""
        if self.name is not None:
            return self.name
        if self.keep is not None:
            c = self.config
            return " ".join([c.preset, ",".join(dict.fromkeys(c.policies)), *self.rule_overrides()])
        return self.directory.name or str(self.directory)

    def labelled(self, label: str) -> Run:
        """This run under another :attr:`label` (the same run: its data is not copied).

        Raises:
            InputError: ``label`` is not a non-empty text of at most 200 characters.
        """
        return dataclasses.replace(self, name=check_label(label))

    @property
    def run_id(self) -> str:
        return self.config.run_id

    def rule_overrides(self) -> list[str]:
        """``key=value`` options that differ from the preset (the rule overrides that make
        its rules again from the preset)."""
        c = self.config
        base = Rules.make(c.preset) if c.preset in PRESETS else Rules()
        # every option, the §9 ones and the readings included (the identity form and the
        # complete form leave out their defaults)
        mine, theirs = dataclasses.asdict(c.rules), dataclasses.asdict(base)
        return [f"{k}={_text(v)}" for k, v in mine.items() if theirs[k] != v]

    def command(self) -> str:
        """The ``scopa-sim simulate`` command that reproduces this run's data."""
        c, q = self.config, shlex.quote  # a path with spaces stays one argument
        parts = ["scopa-sim simulate", f"--preset {q(c.preset)}"]
        parts += [f"--rule {q(o)}" for o in self.rule_overrides()]
        pols = c.policies if len(set(c.policies)) > 1 else c.policies[:1]
        parts += [f"--policy {q(p)}" for p in pols]
        parts += [f"--{c.mode} {c.count}", f"--seed {c.seed}", f"--out {q(str(self.directory))}"]
        if c.deal != "plain":
            parts.insert(-1, f"--deal {c.deal}")
        return " ".join(parts)

    def __repr__(self) -> str:
        c = self.config
        pols = ",".join(dict.fromkeys(c.policies))
        rows = f", {self.rows:,} hands" if c.mode == "matches" else ""
        return (
            f"Run({str(self.directory)!r}: {c.preset}, policy {pols}, {c.count:,} {c.mode}"
            f"{rows}, seed {c.seed}, run id {self.run_id})"
        )

    def _repr_html_(self) -> str:
        c = self.config
        rows = [
            ("directory", self.directory),
            ("preset", c.preset),
            ("rule options", " ".join(self.rule_overrides()) or "as the preset"),
            ("policies", ", ".join(c.policies)),
            (c.mode, f"{c.count:,}"),
            *([("hands", f"{self.rows:,}")] if c.mode == "matches" else []),
            ("seed", c.seed),
            ("run id", self.run_id),
        ]
        body = "".join(
            f"<tr><th>{html.escape(k)}</th><td>{html.escape(str(v))}</td></tr>" for k, v in rows
        )
        return f"<div class='scopa-sim'><b>scopa-sim run</b><table>{body}</table></div>"


def check_label(label: object) -> str:
    """``label`` if it can name a run (:attr:`Run.label`).

    Raises:
        InputError: ``label`` is not a non-empty text of at most 200 characters.
    """
    if not isinstance(label, str) or not label.strip() or len(label) > 200:
        raise InputError(
            f"a run's label must be a non-empty text of at most 200 characters, not {label!r:.60}"
        )
    return label


def _text(v: Any) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


def open_run(directory: str | Path) -> Run:
    """Check a finished run directory without reading its rows: the manifest (format,
    configuration, run id, schema, shard entries), completeness, and every listed shard
    (:func:`dataset.check_shard`). Files the manifest does not list are ignored.

    Raises a one-line DatasetError naming the file for any mismatch (a missing,
    unreadable, incomplete, foreign or damaged run)."""
    d = Path(directory)
    doc = D.read_manifest(d)
    where = d / D.MANIFEST
    config = manifest_config(d, doc)
    check_manifest(d, config, doc)
    if not (d / D.SHARD_DIR).is_dir():
        raise D.DatasetError(f"{d}: no {D.SHARD_DIR} directory")
    entries = manifest_shards(d, config, doc)
    if doc.get("complete") is not True or len(entries) != config.shards:
        raise D.DatasetError(f"{d}: the run is not complete (resume its simulation to finish it)")
    rows = 0
    for i in range(config.shards):
        rows += D.check_shard(config.shard_spec(d, i, entries[i]))
    if doc.get("rows") != rows:
        raise D.DatasetError(f"{where}: records {doc.get('rows')!r} rows, its shards hold {rows}")
    files = tuple(D.shard_path(d, i) for i in range(config.shards))
    return Run(d, doc, config, rows, files)


def scan(directory: str | Path) -> pl.LazyFrame:
    """The rows of the finished run in ``directory``, lazily, with the pinned schema
    (``open_run(directory).scan()``): a stray, foreign or replaced file is an error naming
    it, never data mixed in."""
    return open_run(directory).scan()
