"""The learned policy's shipped weights: one model vector per preset in the package's
``weights`` directory, named by its manifest (``weights/manifest.json``), checked and
loaded once per process.

The manifest (``{"format": 1, "presets": {name: entry}}``) gives for each preset the
file holding its model vector (a float64 ``.npy``), the SHA-256 of the file's bytes,
the model's digest (:func:`scopa_sim.bots.learned.model_digest`), its hidden width, the
feature counts and layout version it was made for, the digest of the rules it was
trained under (:meth:`Rules.digest`), and how it was made (the training command lines,
seed, decisions and CPU seconds).

A rule set plays the weights of its *base preset* (:func:`base_preset`): the preset it
is (:meth:`Rules.preset_name`), or, for a preset with options changed, the preset of
the same structure (:data:`STRUCTURE`: players, teams, deck, hand size, table cards,
capture mode) that differs from it in the fewest options, ties broken by the order of
:data:`~scopa_sim.game.rules.PRESETS`. Rules of a structure no preset has have no
weights, and asking for them is a :class:`~scopa_sim.errors.PolicyError`; so is a base
preset without weights, naming the command that trains them. A missing or corrupt file is a
:class:`~scopa_sim.errors.FileError` naming it and the digest it should have.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from scopa_sim import _engine as K
from scopa_sim._engine import learned as KL
from scopa_sim._engine import learned_cirulla as KLC
from scopa_sim.errors import FileError, PolicyError
from scopa_sim.game.rules import OPTION_NAMES, PRESETS, Rules

__all__ = [
    "FORMAT",
    "LEARNED_POLICY",
    "STRUCTURE",
    "WEIGHTS_DIR",
    "WeightsEntry",
    "base_preset",
    "load_weights",
    "manifest",
    "plays_learned",
    "seat_model",
    "train_command",
    "weights_entry",
    "weights_preset",
]

#: The directory of the shipped weights (package data).
WEIGHTS_DIR = Path(__file__).resolve().with_name("weights")
#: The manifest's file name in a weights directory.
MANIFEST = "manifest.json"
#: The manifest's format version.
FORMAT = 1


@dataclass(frozen=True)
class WeightsEntry:
    """One preset's entry in the weights manifest (see the module's docstring)."""

    preset: str
    file: str
    sha256: str
    digest: str
    hidden: int
    n_sparse: int
    n_dense: int
    version: int
    rules: str
    command: str
    seed: int
    decisions: int
    cpu_seconds: float

    def path(self, directory: Path) -> Path:
        """The weights file in ``directory``."""
        return directory / self.file


def train_command(preset: str) -> str:
    """The command that trains the learned policy's weights for ``preset``."""
    return f"scopa-sim train --preset {preset}"


_FIELDS: dict[str, type | tuple[type, ...]] = {
    "file": str,
    "sha256": str,
    "digest": str,
    "hidden": int,
    "n_sparse": int,
    "n_dense": int,
    "version": int,
    "rules": str,
    "command": str,
    "seed": int,
    "decisions": int,
    "cpu_seconds": (int, float),
}


def _entry(path: Path, preset: str, doc: Any) -> WeightsEntry:
    """A manifest entry, strictly typed; a FileError naming the manifest otherwise."""
    if not isinstance(doc, dict):
        raise FileError(f"{path}: the entry of preset {preset!r} is not an object")
    for key, kind in _FIELDS.items():
        value = doc.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise FileError(f"{path}: the entry of preset {preset!r} has no valid {key!r}")
    if "/" in doc["file"] or "\\" in doc["file"] or doc["file"].startswith("."):
        raise FileError(f"{path}: the entry of preset {preset!r} names a file outside it")
    return WeightsEntry(preset, **{k: doc[k] for k in _FIELDS})


@functools.lru_cache(maxsize=8)
def manifest(directory: Path = WEIGHTS_DIR) -> dict[str, WeightsEntry]:
    """The entries of the weights manifest in ``directory``, by preset (read once).

    Raises:
        FileError: the manifest is missing, not JSON, of another format, or malformed.
    """
    path = directory / MANIFEST
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        problem = f"the learned weights' manifest cannot be read ({e.strerror})"
        raise FileError(f"{path}: {problem}") from None
    except ValueError:
        raise FileError(f"{path}: the learned weights' manifest is not JSON") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise FileError(f"{path}: not a learned weights manifest of format {FORMAT}")
    presets = doc.get("presets")
    if not isinstance(presets, dict):
        raise FileError(f"{path}: the learned weights' manifest has no 'presets' object")
    return {name: _entry(path, name, e) for name, e in presets.items()}


#: The options that make a rule set's structure: a rule set plays the weights of a
#: preset of the same structure only (:func:`base_preset`).
STRUCTURE = ("players", "teams", "deck", "hand_size", "table_cards", "capture_mode")


def base_preset(rules: Rules) -> str | None:
    """The preset ``rules`` derive from: the preset they are, else the preset of the same
    :data:`STRUCTURE` that differs from them in the fewest options (ties: the first in
    :data:`~scopa_sim.game.rules.PRESETS`), else None (no preset has their structure).
    This is the one place that decides which preset's weights a rule set plays."""
    exact = rules.preset_name()
    if exact is not None:
        return exact
    best: tuple[int, str] | None = None
    for name in PRESETS:
        preset = Rules.make(name)
        if any(getattr(preset, k) != getattr(rules, k) for k in STRUCTURE):
            continue
        differ = sum(getattr(preset, k) != getattr(rules, k) for k in OPTION_NAMES)
        if best is None or differ < best[0]:
            best = (differ, name)
    return None if best is None else best[1]


def weights_preset(rules: Rules) -> str:
    """The preset whose weights ``rules`` play (:func:`base_preset`): every learned seat's
    weights are looked up here. Cirulla's rules (RULES.md §10) play the weights of a
    Cirulla preset, which have Cirulla's own features (:mod:`scopa_sim._engine.learned_cirulla`).

    Raises:
        PolicyError: no preset has the structure of ``rules``.
    """
    name = base_preset(rules)
    if name is None:
        shape = ", ".join(f"{k}={getattr(rules, k)}" for k in STRUCTURE)
        raise PolicyError(
            f"the learned policy plays the presets and the rules derived from one: no "
            f"preset has the structure of these rules ({shape}), so there are no "
            "learned weights for them"
        )
    return name


def weights_entry(rules: Rules, directory: Path = WEIGHTS_DIR) -> WeightsEntry:
    """The manifest entry of the weights ``rules`` play (nothing loaded).

    Raises:
        PolicyError: no preset has the structure of ``rules``, or their base preset has
            no weights.
        FileError: the manifest cannot be read.
    """
    preset = weights_preset(rules)
    entry = manifest(directory).get(preset)
    if entry is None:
        raise PolicyError(
            f"no learned weights for preset {preset!r}: train them with `{train_command(preset)}`"
        )
    return entry


def load_weights(rules: Rules, directory: Path = WEIGHTS_DIR) -> np.ndarray:
    """The model vector ``rules`` play (:func:`weights_entry`: their base preset's),
    loaded and checked once per process and preset: the same array every call (the
    kernels only read it).

    Raises:
        PolicyError: no preset has the structure of ``rules``, their base preset has no
            weights, or the weights were trained under other rules than the preset's.
        FileError: the manifest cannot be read, or the weights file is missing, corrupt
            (another SHA-256) or not a model vector of the manifest's layout.
    """
    entry = weights_entry(rules, directory)
    own = Rules.make(entry.preset).digest()
    if entry.rules != own:
        raise PolicyError(
            f"the learned weights of preset {entry.preset!r} were trained under other rules "
            f"(digest {entry.rules}, the preset's is {own}): train them again "
            f"with `{train_command(entry.preset)}`"
        )
    return _load(entry, directory)


@functools.lru_cache(maxsize=16)
def _load(entry: WeightsEntry, directory: Path) -> np.ndarray:
    """The checked model vector of ``entry`` (cached per process)."""
    path = entry.path(directory)
    expected = f"expected sha256 {entry.sha256}"
    try:
        blob = path.read_bytes()
    except OSError as e:
        raise FileError(f"{path}: learned weights missing ({e.strerror}); {expected}") from None
    got = hashlib.sha256(blob).hexdigest()
    if got != entry.sha256:
        raise FileError(f"{path}: learned weights corrupt (sha256 {got[:16]}...); {expected}")
    try:
        m = np.load(io.BytesIO(blob), allow_pickle=False)
    except ValueError:
        raise FileError(f"{path}: not a .npy array; {expected}") from None
    if Rules.make(entry.preset).cirulla:
        size = KLC.model_size_cirulla(entry.hidden)
        layout = (KLC.VERSION, KLC.N_SPARSE, KLC.N_DENSE)
    else:
        size = KL.model_size(entry.hidden)
        layout = (KL.VERSION, KL.N_SPARSE_BASE, KL.N_DENSE)
    if (
        m.dtype != np.float64
        or m.ndim != 1
        or m.shape[0] != size
        or (entry.version, entry.n_sparse, entry.n_dense) != layout
        or tuple(int(x) for x in m[: KL.M_HIDDEN]) != layout
        or int(m[KL.M_HIDDEN]) != entry.hidden
    ):
        raise FileError(
            f"{path}: not a learned model vector of layout version {layout[0]} and hidden "
            f"width {entry.hidden}; {expected}"
        )
    return np.ascontiguousarray(m)


#: The name of the learned policy (its kernel policy in the registry).
LEARNED_POLICY = "learned"


def plays_learned(policies: Sequence[str]) -> bool:
    """Whether a seat of ``policies`` (names, or policy texts such as
    ``learned:worlds=16``) plays ``learned``."""
    return any(p.partition(":")[0].strip().lower() == LEARNED_POLICY for p in policies)


def seat_model(rules: Rules, policies: Sequence[str]) -> np.ndarray:
    """The model vector the kernels take beside the seats' kernel policies ``policies``
    (their names or texts): the weights ``rules`` play (:func:`load_weights`) when a seat plays
    ``learned``, else the empty vector that stands for no model.

    Raises:
        PolicyError, FileError: as :func:`load_weights`, when a seat plays ``learned``.
    """
    if plays_learned(policies):
        return load_weights(rules)
    return K.NO_MODEL
