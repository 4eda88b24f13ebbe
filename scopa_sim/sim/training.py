"""Training the learned policy: samples from rollouts and the search, the fit, its
strength against other policies, and the pipeline that does all three for a preset in
resumable pieces.

The steps (each reproducible from its seed):

* **Rollout samples** (:func:`scopa_sim.bots.learned.rollout_samples`): hands of self-play;
  at a share of the decisions every legal play is made and the hand finished in worlds
  consistent with the seat's information (common random numbers across the plays); the
  target is the hand's final margin for the deciding seat.
* **Search samples** (:func:`search_samples`): at a share of the decisions the search
  analyses the position; the targets are each play's mean margin and its visit share.
* **Fit** (:func:`fit`): stochastic gradient descent from a model that plays as
  ``expert`` (:func:`scopa_sim.bots.learned.new_model`).
* **Strength** (:func:`versus`): the mean margin per deal against an opponent on paired
  deals, with its 95% interval.

:func:`train` runs them for one preset in a directory of pieces (:class:`TrainConfig`
says which): each data chunk, the model and each evaluation is a file written
atomically and skipped when it is present and valid, so an interrupted training run
again with the same arguments resumes and ends with the same weights.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from scopa_sim.bots import learned as BL
from scopa_sim.bots.base import Bot
from scopa_sim.bots.registry import PolicySpec
from scopa_sim.bots.search import deal_seed, play_deal
from scopa_sim.errors import FileError, InputError
from scopa_sim.files import shown_path
from scopa_sim.game.rules import PRESETS, Rules
from scopa_sim.game.state import HandState
from scopa_sim.stats.estimate import Estimate
from scopa_sim.stats.inference import normal_ci

__all__ = [
    "LABEL_COLUMNS",
    "SEARCH",
    "TrainConfig",
    "fit",
    "label_errors",
    "learning_curve",
    "load_model",
    "load_samples",
    "plays_made",
    "save_samples",
    "search_samples",
    "ship",
    "speed",
    "train",
    "versus",
    "weights_dir",
]

#: The search whose values and visits the search samples hold.
SEARCH = "ismcts:iterations=1000,horizon=4,c=1"

#: The version of the pipeline's pieces (``config.json``'s ``format``).
FORMAT = 1


# --------------------------------------------------------------------------- files
def save_samples(path: str | Path, s: BL.Samples, **extra: np.ndarray) -> None:
    """Write samples (and extra arrays, such as ``shares`` or a piece's ``meta``) to an
    ``.npz`` at ``path`` (a path or an open binary file)."""
    arrays: dict[str, Any] = {"idx": s.idx, "k": s.k, "dense": s.dense, "y": s.y}
    arrays["starts"] = s.starts
    arrays.update(extra)
    np.savez(path, **arrays)


def load_samples(paths: list[str], target: str = "y") -> BL.Samples:
    """The samples of the ``.npz`` files ``paths`` joined, their targets the array
    ``target`` (``y``, or ``shares`` of search samples).

    Raises:
        FileError: a file missing, unreadable or not a samples file.
    """
    parts = []
    for p in paths:
        with _open_npz(p) as z:
            try:
                parts.append(BL.Samples(z["idx"], z["k"], z["dense"], z[target], z["starts"]))
            except KeyError as e:
                raise FileError(f"{shown_path(p)}: not a samples file (no array {e})") from None
    return BL.Samples.join(parts)


def _np_load(path: str | Path, what: str) -> Any:
    """``np.load`` of ``path`` without pickles.

    Raises:
        FileError: missing, unreadable or not a numpy file (the message names ``what``
            the file should be).
    """
    try:
        return np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise FileError(f"no such file: {shown_path(path)}") from None
    except (OSError, ValueError, EOFError, zipfile.BadZipFile):
        raise FileError(f"{shown_path(path)}: not {what}") from None


def _open_npz(path: str | Path) -> Any:
    """An ``.npz`` file of arrays (:func:`_np_load`).

    Raises:
        FileError: missing, unreadable or not such an archive.
    """
    z = _np_load(path, "a numpy archive of arrays (.npz)")
    if not isinstance(z, np.lib.npyio.NpzFile):
        raise FileError(f"{shown_path(path)}: not an .npz archive")
    return z


def load_model(path: str | Path) -> np.ndarray:
    """A model's weight vector from a ``.npy`` file (:func:`_np_load`).

    Raises:
        FileError: missing, unreadable or not a float vector.
    """
    w = _np_load(path, "a model's weights (a .npy float vector)")
    if not isinstance(w, np.ndarray) or w.ndim != 1 or w.dtype.kind != "f":
        raise FileError(f"{shown_path(path)}: not a model's weights (a float vector)")
    return w


def _umask() -> int:
    """The process's file-mode creation mask."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextmanager
def _atomic(path: Path) -> Iterator[Any]:
    """An open binary file that replaces ``path`` when the block ends without an error
    (written to a temporary file in the same directory, then renamed): a reader sees the
    old file or the whole new one, never a part."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # as open() would make it, not mkstemp's 0o600
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _write_json(path: Path, doc: dict[str, Any]) -> None:
    """``doc`` as indented JSON at ``path``, atomically."""
    with _atomic(path) as f:
        f.write((json.dumps(doc, indent=2) + "\n").encode())


def _read_json(path: Path) -> dict[str, Any] | None:
    """The JSON object at ``path``, or None when it is missing or not such an object."""
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


# --------------------------------------------------------------------------- steps
def plays_made(samples: BL.Samples) -> np.ndarray:
    """Per decision, the plays made with it (its plays-made feature)."""
    first = samples.idx[samples.starts[:-1]].astype(np.int64)
    block = (first >= BL.F_PLAYS) & (first < BL.F_PLAYS + 40)
    return np.where(block, first - BL.F_PLAYS, 0).sum(axis=1)


def search_samples(
    rules: Rules, spec: str, hands: int, rate: float, seed: int
) -> tuple[BL.Samples, np.ndarray]:
    """Samples of ``hands`` hands of ``expert`` self-play (dealt from seeds derived from
    ``seed``): at a share ``rate`` of the decisions with a choice, the search ``spec``
    analyses the position; returns the samples with each play's mean margin as ``y``
    and the plays' shares of the visits (an unvisited play: the lowest mean of its
    decision)."""
    search = PolicySpec.parse(spec).bot()
    expert = PolicySpec.parse("expert").bot()
    g = np.random.default_rng(seed)
    parts: list[BL.Samples] = []
    shares: list[np.ndarray] = []
    for h in range(hands):
        state = HandState.deal(rules, dealer=h % rules.players, seed=deal_seed(seed, h))
        while not state.is_over:
            if len(state.legal_plays) > 1 and g.random() < rate:
                stats = search.analyse(state, int(g.integers(2**62)))
                idx, k, dense = BL.play_features(state, [s.play for s in stats])
                visits = np.array([s.n for s in stats], dtype=np.float64)
                means = np.array([s.mean if s.n else np.nan for s in stats])
                means[np.isnan(means)] = np.nanmin(means) if np.isfinite(means).any() else 0.0
                starts = np.array([0, len(stats)], dtype=np.int64)
                parts.append(BL.Samples(idx, k, dense, means, starts))
                shares.append(visits / max(visits.sum(), 1.0))
            state.push(expert.choose(state, int(g.integers(2**62))))
    if not parts:
        return BL.Samples.empty(0), np.empty(0)
    return BL.Samples.join(parts), np.concatenate(shares)


def fit(
    samples: BL.Samples,
    hidden: int,
    epochs: int,
    lr: float,
    l2: float,
    seed: int,
    loss: int = BL.LOSS_CENTRED,
    tau: float = 1.0,
    cirulla: bool | None = None,
    evidence: bool = False,
) -> tuple[np.ndarray, list[float]]:
    """A model of hidden width ``hidden`` trained on ``samples`` for ``epochs`` passes
    (decisions in an order drawn from ``seed``, the step halved after each pass); returns
    the model and each pass's mean loss. ``cirulla``: a model of Cirulla's layout, for
    samples of Cirulla's features (default: told by the samples' dense width);
    ``evidence``: a Scopa model that reads the next seat's evidence too
    (:func:`scopa_sim.bots.learned.new_model`), else the samples' evidence features are
    not read (the shipped layout).

    Raises:
        ValueError: ``evidence`` with Cirulla's samples."""
    if cirulla is None:
        cirulla = samples.dense.shape[1] == BL.N_DENSE_CIRULLA
    model = BL.new_model(hidden, seed, cirulla, evidence)
    g = np.random.default_rng(seed)
    curve = []
    for e in range(epochs):
        order = g.permutation(samples.decisions)
        curve.append(BL.sgd_pass(model, samples, order, lr * 0.5**e, l2, loss, tau))
    return model, curve


#: The columns of a table of label errors (:func:`label_errors`): the decision's number,
#: two labels of ``worlds`` worlds, one of ``big`` worlds, the model's value, the expert's.
LABEL_COLUMNS = ("decision", "label", "label_again", "label_big", "model", "expert")


def label_errors(x: np.ndarray, worlds: int, big: int) -> dict[str, Any]:
    """The labels' noise and each predictor's error against the labels' expectation,
    from rows ``x`` of one play each (columns :data:`LABEL_COLUMNS`; a decision's rows
    share its number).

    The measure: the mean squared difference per play of values centred per decision
    (twice :func:`fit`'s centred loss, which halves it) between a predictor and a
    ``worlds``-world label; the labels' noise is half the same between the two
    ``worlds``-world labels (of other worlds), and with the noise taken off, what is left
    is the predictor's error against the labels' expectation.  The ``big``-world labels
    give the same error directly (less their own noise, ``worlds / big`` times the
    others').  Returns each figure (``noise``; ``zero_error``, ``expert_error``,
    ``model_error``, ``big_error`` and ``*_error_big``) with its 95% interval (``*_ci``)
    from 2,000 bootstrap draws of the decisions (a fixed stream), the model's error less
    the expert's, paired on the same plays (``model_less_expert_big``), and the numbers of
    ``decisions`` and ``plays``."""
    g = x[:, 0].astype(np.int64)
    cnt = np.bincount(g)
    cen = x[:, 1:] - (np.stack([np.bincount(g, x[:, c]) for c in range(1, 6)], 1) / cnt[:, None])[g]
    a, b, w, net, ex = cen.T
    # per decision: its plays, the noise's sum, each predictor's squared differences
    sums = {"n": cnt.astype(float), "noise": np.bincount(g, (a - b) ** 2 / 2)}
    for name, p in (("zero", np.zeros_like(a)), ("expert", ex), ("model", net), ("big", w)):
        sums[name] = np.bincount(g, (p - a) ** 2)
        sums[name + "_w"] = np.bincount(g, (p - w) ** 2)
    weights = np.random.default_rng(0).multinomial(len(cnt), np.full(len(cnt), 1 / len(cnt)), 2000)

    def stat(f: Callable[[dict[str, Any]], Any]) -> tuple[float, list[float]]:
        point = f({k: v.sum() for k, v in sums.items()})
        draws = f({k: weights @ v for k, v in sums.items()})
        return float(point), [float(q) for q in np.percentile(draws, [2.5, 97.5])]

    def error(key: str, noise: float) -> Callable[[dict[str, Any]], Any]:
        return lambda t: (t[key] - t["noise"] * noise) / t["n"]

    res: dict[str, Any] = {"decisions": len(cnt), "plays": len(g)}
    res["noise"], res["noise_ci"] = stat(lambda t: t["noise"] / t["n"])
    for name in ("zero", "expert", "model", "big"):
        res[f"{name}_error"], res[f"{name}_error_ci"] = stat(error(name, 1.0))
        if name != "big":
            res[f"{name}_error_big"], res[f"{name}_error_big_ci"] = stat(
                error(name + "_w", worlds / big)
            )
    res["model_less_expert_big"], res["model_less_expert_big_ci"] = stat(
        lambda t: (t["model_w"] - t["expert_w"]) / t["n"]
    )
    return res


def _side_margin(points: np.ndarray, side: int) -> np.ndarray:
    """Per hand, ``side``'s points less the best other side's."""
    others = np.delete(points, side, axis=1)
    return points[:, side] - others.max(axis=1)


def versus_samples(
    rules: Rules,
    model: np.ndarray,
    opponent: str,
    pairs: int,
    seed: int,
    exact: bool = False,
    worlds: int = 0,
) -> np.ndarray:
    """Per deal, the learned model's (with ``exact``: and the exact endgame's; with
    ``worlds`` > 0: and the determinized search, :func:`scopa_sim.bots.learned.worlds_kind`) margin
    against ``opponent`` (a harness kind, :func:`scopa_sim.bots.learned.kind_of`) in the
    harness run ``seed``, deals ``0 .. pairs - 1``. Two sides: the deal played with the
    model's side first and again with the sides exchanged, the mean of its two margins.
    Three or four sides: the deal played by ``opponent`` everywhere (the baseline) and
    once with the model at each seat in turn; the mean over the seats of (the seat's side's
    margin, its points less the best other side's, with the model there) less (the same in
    the baseline)."""
    me = BL.worlds_kind(worlds) if worlds else BL.LEARNED + (BL.EXACT if exact else 0)
    other = BL.kind_of(opponent)
    n = rules.players
    if rules.sides == 2:
        first = BL.play_hands(rules, [me, other] * (n // 2), model, seed, 0, pairs)
        second = BL.play_hands(rules, [other, me] * (n // 2), model, seed, 0, pairs)
        return BL.paired_margin(first, second)
    base = BL.play_hands(rules, [other] * n, model, seed, 0, pairs)
    total = np.zeros(pairs)
    for seat in range(n):
        pts = BL.play_hands(rules, [me if s == seat else other for s in range(n)], model,
                            seed, 0, pairs)  # fmt: skip
        side = rules.side_of(seat)
        total += _side_margin(pts, side) - _side_margin(base, side)
    return total / n


def versus(
    rules: Rules,
    model: np.ndarray,
    opponent: str,
    pairs: int,
    seed: int,
    exact: bool = False,
    bots: bool = False,
    worlds: int = 0,
) -> Estimate:
    """The learned model's (with ``exact``: and the exact endgame's) mean margin per deal
    against ``opponent`` over ``pairs`` deals, with its 95% interval: a harness kind
    through :func:`versus_samples` (deals of its run ``seed``), a search (or, with
    ``bots``, any policy) through :func:`scopa_sim.bots.search.play_deal` with the bots
    (paired seat-swapped deals :func:`deal_seed`, two sides)."""
    harness = opponent.partition("+")[0] in ("learned", "random", "greedy", "expert")
    if harness and not bots:
        return normal_ci(versus_samples(rules, model, opponent, pairs, seed, exact, worlds))
    if rules.sides != 2:
        raise ValueError("versus a search measures two sides")
    me: Bot = BL.LearnedBot(model, exact=exact, worlds=worlds)
    them = PolicySpec.parse(opponent).bot()
    x = np.empty(pairs)
    for d in range(pairs):
        ds = deal_seed(seed, d)
        a = play_deal(rules, [me, them] * (rules.players // 2), ds, dealer=d % rules.players)
        b = play_deal(rules, [them, me] * (rules.players // 2), ds, dealer=d % rules.players)
        x[d] = ((a[0] - a[1]) + (b[1] - b[0])) / 2.0
    return normal_ci(x)


def speed(
    rules: Rules, model: np.ndarray, hands: int, repeats: int, seed: int, worlds: int = 0
) -> dict[str, Any]:
    """Self-play hands per second (CPU time of the thread) of the model (with ``worlds``
    > 0: as ``learned:worlds=``, :func:`scopa_sim.bots.learned.worlds_kind`) and of
    ``expert`` on every seat in the harness, measured alternately ``repeats`` times after
    a warm-up: the medians and the ratio of the medians."""
    kinds = {
        "learned": [BL.worlds_kind(worlds) if worlds else BL.LEARNED] * rules.players,
        "expert": [BL.kind_of("expert")] * rules.players,
    }
    for k in kinds.values():
        BL.play_hands(rules, k, model, seed, 0, 10)
    rates: dict[str, list[float]] = {k: [] for k in kinds}
    for _ in range(repeats):
        for name, k in kinds.items():
            t = time.thread_time()
            BL.play_hands(rules, k, model, seed, 0, hands)
            rates[name].append(hands / (time.thread_time() - t))
    med = {k: float(np.median(v)) for k, v in rates.items()}
    return {
        "learned_hands_per_s": med["learned"],
        "expert_hands_per_s": med["expert"],
        "ratio": med["learned"] / med["expert"],
        "repeats": repeats,
        "hands": hands,
    }


# --------------------------------------------------------------------------- the pipeline
#: The opponents every trained model is measured against (the model plays with the
#: exact endgame, as the ``learned`` policy does).
OPPONENTS = ("expert", "expert+exact")


@dataclass(frozen=True)
class TrainConfig:
    """What a training run computes (its pieces depend on all of it).

    Attributes:
        preset: a preset (:data:`scopa_sim.game.rules.PRESETS`, Cirulla's included).
        seed: the harness run of the rollout hands, the search's seeds, the model's first
            layer and the order of the training passes derive from it.
        hands: rollout hands (``expert`` with the exact endgame on every seat).
        chunk: rollout hands per data piece.
        worlds: worlds per rollout (0: the true deal).
        rate: the share of the decisions sampled.
        search_hands: hands whose decisions the search labels (0: none); their values
            join the rollouts' as targets.
        search_chunk: search hands per data piece.
        hidden: the model's hidden width (0: linear).
        epochs: training passes.
        lr: the first pass's step (halved after each pass).
        l2: the weight decay.
        pairs: evaluation deals per opponent.
        eval_seed: the harness run of the evaluation's deals.
    """

    preset: str
    seed: int = 0
    hands: int = 20_000
    chunk: int = 2_000
    worlds: int = 8
    rate: float = 0.5
    search_hands: int = 0
    search_chunk: int = 500
    hidden: int = 64
    epochs: int = 6
    lr: float = 0.01
    l2: float = 1e-5
    pairs: int = 10_000
    eval_seed: int = 777

    def check(self) -> Rules:
        """The preset's rules, after checking every field.

        Raises:
            InputError: an unknown preset, search hands under Cirulla's rules (the
                search's labels are taken on Scopa's positions only), a size or rate
                out of range, or the evaluation's deals those of the training.
        """
        if self.preset not in PRESETS:
            raise InputError(f"unknown preset {self.preset!r} (choose from {', '.join(PRESETS)})")
        if self.search_hands and Rules.make(self.preset).cirulla:
            raise InputError(
                f"preset {self.preset!r}: the search's labels ({SEARCH.partition(':')[0]} "
                "values and visits) are taken on Scopa's positions only, not on Cirulla's; "
                "train it on rollouts only (search-hands 0)"
            )
        ranges = {
            "hands": (1, 10**8), "chunk": (1, 10**7), "worlds": (0, 64),
            "search_hands": (0, 10**7), "search_chunk": (1, 10**6), "hidden": (0, 1024),
            "epochs": (1, 1000), "pairs": (2, 10**7), "seed": (0, 2**63 - 1),
            "eval_seed": (0, 2**63 - 1),
        }  # fmt: skip
        for name, (lo, hi) in ranges.items():
            v = getattr(self, name)
            if not lo <= v <= hi:
                raise InputError(f"{name.replace('_', '-')} must be in {lo}..{hi}, got {v}")
        if not 0.0 < self.rate <= 1.0:
            raise InputError(f"rate must be in (0, 1], got {self.rate}")
        if not 0.0 < self.lr <= 10.0 or not 0.0 <= self.l2 <= 1.0:
            raise InputError(f"lr must be in (0, 10] and l2 in [0, 1], got {self.lr}, {self.l2}")
        if self.eval_seed == self.seed:
            raise InputError("eval-seed must differ from seed (the evaluation's deals are fresh)")
        return Rules.make(self.preset)

    def command(self, out: str | Path) -> str:
        """The ``scopa-sim train`` command that computes this configuration into ``out``."""
        parts = [f"scopa-sim train --preset {self.preset} --out {out}"]
        for f in fields(self):
            if f.name != "preset":
                parts.append(f"--{f.name.replace('_', '-')} {getattr(self, f.name)}")
        return " ".join(parts)

    def data_pieces(self) -> list[tuple[str, int, int]]:
        """The data pieces: ``(kind, first hand, hands)``, rollouts then search."""
        out = [
            ("rollouts", a, min(self.chunk, self.hands - a))
            for a in range(0, self.hands, self.chunk)
        ]
        out += [
            ("search", a, min(self.search_chunk, self.search_hands - a))
            for a in range(0, self.search_hands, self.search_chunk)
        ]
        return out


#: The fields the data pieces depend on: a directory holding pieces of other values is
#: refused; another fit or evaluation, or more (or fewer) hands, reuse them (a piece
#: names its first hand and its count, and is made again where they differ).
DATA_FIELDS = ("preset", "seed", "chunk", "worlds", "rate", "search_chunk")


def _piece_seed(seed: int, first: int) -> int:
    """The search seed of the search piece starting at hand ``first``."""
    return int(np.random.SeedSequence([seed, 41, first]).generate_state(1, np.uint64)[0] >> 1)


def _data_piece(path: Path, cfg: TrainConfig, rules: Rules, kind: str, first: int,
                count: int) -> tuple[int, int, float]:  # fmt: skip
    """Compute (unless present and valid) the data piece ``kind`` of hands ``first ..
    first + count - 1`` at ``path``; returns its decisions, plays and CPU seconds."""
    meta = np.array([FORMAT, first, count], dtype=np.int64)
    try:
        with np.load(path, allow_pickle=False) as z:
            if np.array_equal(z["meta"], meta):
                return int(z["starts"].shape[0] - 1), int(z["y"].shape[0]), float(z["cpu"][0])
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile):
        pass  # missing or damaged: computed again
    t = time.thread_time()
    if kind == "rollouts":
        ex = [BL.kind_of("expert+exact")] * rules.players
        s = BL.rollout_samples(rules, ex, ex, None, cfg.seed, first, count, cfg.rate, cfg.worlds)
    else:
        s, _ = search_samples(rules, SEARCH, count, cfg.rate, _piece_seed(cfg.seed, first))
    cpu = time.thread_time() - t
    with _atomic(path) as f:
        save_samples(f, s, meta=meta, cpu=np.array([cpu]))
    return s.decisions, int(s.y.shape[0]), cpu


def _prepare(out: Path, cfg: TrainConfig, rules: Rules) -> None:
    """Make the directory ``out`` and its ``config.json``, or check the one there: the
    same data (:data:`DATA_FIELDS`) with another fit or evaluation keeps the data pieces
    and removes the model and its evaluations, to be made again.

    Raises:
        InputError: ``out`` cannot be written, holds another configuration's pieces, or
            is a directory of other files.
    """
    now = asdict(cfg)
    doc = {"format": FORMAT, "config": now, "rules": rules.as_dict(),
           "layout_version": BL.layout_of(rules)[0]}  # fmt: skip
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / "data").mkdir(exist_ok=True)
        probe = out / ".write-probe"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        raise InputError(f"cannot write the training directory {shown_path(out)}: "
                         f"{e.strerror or e}") from None  # fmt: skip
    path = out / "config.json"
    if path.exists():
        old = _read_json(path) or {}
        if old == doc:
            return
        was = old.get("config", {})
        diff = [k for k in DATA_FIELDS if was.get(k) != now[k]]
        if diff or any(old.get(k) != doc[k] for k in ("format", "rules", "layout_version")):
            raise InputError(
                f"{shown_path(out)} holds the pieces of another training (its "
                f"{', '.join(diff or ['format'])} differ): give another --out, or the same "
                "data arguments to resume it"
            )
        for name in ("train.json", "fit.json", "model.npy", *(p.name for p in out.glob("eval-*"))):
            (out / name).unlink(missing_ok=True)  # another fit or evaluation of the same data
        _write_json(path, doc)
        return
    others = [p.name for p in out.iterdir() if p.name != "data"] + [
        p.name for p in (out / "data").iterdir()
    ]
    if others:
        raise InputError(f"{shown_path(out)} is not empty and holds no training's config.json")
    _write_json(path, doc)


def _fit_piece(out: Path, cfg: TrainConfig, rules: Rules,
               paths: list[Path]) -> tuple[np.ndarray, dict[str, Any]]:  # fmt: skip
    """The model fitted to the data pieces ``paths`` (``model.npy`` with ``fit.json``,
    reused when both are there and agree)."""
    mpath, jpath = out / "model.npy", out / "fit.json"
    doc = _read_json(jpath)
    if doc is not None and mpath.exists():
        try:
            model = load_model(mpath)
        except FileError:
            model = None
        if model is not None and BL.model_digest(model) == doc.get("digest"):
            return model, doc
    samples = load_samples([str(p) for p in paths])
    t = time.thread_time()
    model, curve = fit(samples, cfg.hidden, cfg.epochs, cfg.lr, cfg.l2, cfg.seed,
                       cirulla=rules.cirulla)  # fmt: skip
    cpu = time.thread_time() - t
    with _atomic(mpath) as f:
        np.save(f, model)
    doc = {"digest": BL.model_digest(model), "decisions": samples.decisions,
           "plays": int(samples.y.shape[0]), "loss": curve, "cpu_seconds": cpu}  # fmt: skip
    _write_json(jpath, doc)
    return model, doc


def _eval_piece(out: Path, cfg: TrainConfig, rules: Rules, model: np.ndarray,
                opponent: str) -> dict[str, Any]:  # fmt: skip
    """The model's (with the exact endgame) margin against ``opponent`` on ``cfg.pairs``
    deals (``eval-OPPONENT.json``, reused when it names this model)."""
    path = out / f"eval-{opponent}.json"
    digest = BL.model_digest(model)
    doc = _read_json(path)
    if doc is not None and doc.get("digest") == digest and doc.get("n") == cfg.pairs:
        return doc
    t = time.thread_time()
    e = versus(rules, model, opponent, cfg.pairs, cfg.eval_seed, exact=True)
    doc = {"opponent": opponent, "digest": digest, "estimate": e.estimate, "low": e.low,
           "high": e.high, "n": e.n, "eval_seed": cfg.eval_seed,
           "cpu_seconds": time.thread_time() - t}  # fmt: skip
    _write_json(path, doc)
    return doc


def train(
    cfg: TrainConfig,
    out: str | Path,
    *,
    say: Callable[[str], None] | None = None,
    command: str | None = None,
) -> dict[str, Any]:
    """Train and measure the learned policy of ``cfg.preset`` in the directory ``out``:
    the data pieces (rollouts, then search labels), the fit, the evaluation against each
    of :data:`OPPONENTS`, and ``out/train.json`` (the command, the configuration, the
    samples, the CPU seconds of every piece, the model's digest, the results). A piece
    already in ``out`` and valid is not computed again, so running an interrupted
    training again with the same arguments resumes it; the weights are the same. Another
    fit or evaluation, or more hands (:data:`DATA_FIELDS` unchanged), reuses the data
    pieces there.

    Args:
        cfg: what to compute.
        out: the training directory.
        say: called with a line of progress after each piece.
        command: the command recorded (default :meth:`TrainConfig.command`).

    Returns:
        The ``train.json`` document.

    Raises:
        InputError: a bad configuration (:meth:`TrainConfig.check`), or ``out`` unwritable
            or holding another training's data pieces.
    """
    rules = cfg.check()
    out = Path(out)
    _prepare(out, cfg, rules)
    tell = say or (lambda _text: None)
    pieces = cfg.data_pieces()
    paths, decisions, plays, cpu = [], 0, 0, {"rollouts": 0.0, "search": 0.0}
    for i, (kind, first, count) in enumerate(pieces):
        path = out / "data" / f"{kind}-{first:09d}.npz"
        d, p, c = _data_piece(path, cfg, rules, kind, first, count)
        paths.append(path)
        decisions, plays = decisions + d, plays + p
        cpu[kind] += c
        tell(f"{cfg.preset}: data {i + 1}/{len(pieces)} ({kind}, hands {first}..{first + count - 1}"
             f"): {d} decisions, {c:.1f} s CPU")  # fmt: skip
    model, fitted = _fit_piece(out, cfg, rules, paths)
    tell(f"{cfg.preset}: fit {fitted['decisions']} decisions, digest {fitted['digest'][:16]}, "
         f"{fitted['cpu_seconds']:.1f} s CPU")  # fmt: skip
    results = {}
    for opponent in OPPONENTS:
        r = _eval_piece(out, cfg, rules, model, opponent)
        results[opponent] = r
        tell(
            f"{cfg.preset}: learned vs {opponent} {r['estimate']:+.4f} "
            f"[{r['low']:+.4f}, {r['high']:+.4f}] n={r['n']} ({r['cpu_seconds']:.1f} s CPU)"
        )
    train_cpu = cpu["rollouts"] + cpu["search"] + fitted["cpu_seconds"]
    doc = {
        "format": FORMAT,
        "preset": cfg.preset,
        "command": command or cfg.command(out),
        "config": asdict(cfg),
        "rules": rules.as_dict(),
        "digest": fitted["digest"],
        "sha256": hashlib.sha256((out / "model.npy").read_bytes()).hexdigest(),
        "hidden": cfg.hidden,
        "decisions": decisions,
        "plays": plays,
        "cpu_seconds": {
            "rollouts": cpu["rollouts"],
            "search": cpu["search"],
            "fit": fitted["cpu_seconds"],
            "train": train_cpu,
            "eval": sum(r["cpu_seconds"] for r in results.values()),
        },
        "results": {
            k: {x: r[x] for x in ("estimate", "low", "high", "n", "eval_seed")}
            for k, r in results.items()
        },
    }
    _write_json(out / "train.json", doc)
    return doc


def weights_dir() -> Path:
    """The package's directory of shipped weights (``scopa_sim/bots/weights``)."""
    return Path(BL.__file__).parent / "weights"


def ship(out: str | Path, dest: Path | None = None) -> dict[str, Any]:
    """Copy the trained model of the training directory ``out`` into the package's
    weights (``dest``, default :func:`weights_dir`): ``<preset>.npy`` and its entry in
    ``manifest.json`` (the other presets' entries kept): the file's SHA-256, the model's
    digest, its sizes and layout version, the rules' digest (:meth:`Rules.digest`) and
    options, the command, seed, decisions and training CPU seconds; returns the entry.

    Raises:
        FileError: ``out`` holds no finished training (``train.json`` and its model).
    """
    out, dest = Path(out), dest or weights_dir()
    doc = _read_json(out / "train.json")
    if doc is None or "digest" not in doc:
        raise FileError(f"{shown_path(out)}: no finished training (train.json) to ship")
    model = load_model(out / "model.npy")
    if BL.model_digest(model) != doc["digest"]:
        raise FileError(f"{shown_path(out / 'model.npy')}: not the model train.json names")
    preset = doc["preset"]
    version, n_sparse, n_dense = BL.layout_of(Rules.make(preset))
    dest.mkdir(parents=True, exist_ok=True)
    with _atomic(dest / f"{preset}.npy") as f:
        np.save(f, model)
    entry = {
        "file": f"{preset}.npy",
        "sha256": hashlib.sha256((dest / f"{preset}.npy").read_bytes()).hexdigest(),
        "digest": doc["digest"],
        "hidden": int(doc["hidden"]),
        "n_sparse": n_sparse,
        "n_dense": n_dense,
        "version": version,
        "rules": Rules.make(preset).digest(),
        "rules_options": doc["rules"],
        "command": doc["command"],
        "seed": doc["config"]["seed"],
        "decisions": doc["decisions"],
        "cpu_seconds": round(doc["cpu_seconds"]["train"], 1),
    }
    manifest = _read_json(dest / "manifest.json") or {"format": 1, "presets": {}}
    manifest.setdefault("presets", {})[preset] = entry
    manifest["presets"] = dict(sorted(manifest["presets"].items()))
    _write_json(dest / "manifest.json", manifest)
    return entry


def learning_curve(
    out: str | Path, sizes: list[int], pairs: int, opponent: str = "expert+exact"
) -> list[dict[str, Any]]:
    """Strength against training cost from the training directory ``out``: for each
    count in ``sizes``, a model fitted (as the training did) to its first so many data
    pieces, measured against ``opponent`` (the model with the exact endgame) on ``pairs``
    deals of the evaluation's run; each point: pieces, decisions, the CPU seconds of
    those pieces and of the fit, the estimate with its interval (all the pieces: the
    training's own model and measurement, when it measured against ``opponent``).

    Raises:
        FileError: ``out`` holds no finished training.
    """
    out = Path(out)
    doc = _read_json(out / "train.json")
    if doc is None:
        raise FileError(f"{shown_path(out)}: no finished training (train.json)")
    cfg = TrainConfig(**doc["config"])
    rules = Rules.make(cfg.preset)
    paths = [out / "data" / f"{k}-{a:09d}.npz" for k, a, _ in cfg.data_pieces()]
    points = []
    for n in sizes:
        use = paths[:n]
        done = _read_json(out / f"eval-{opponent}.json")
        if len(use) == len(paths) and done is not None and done.get("digest") == doc["digest"]:
            points.append({"pieces": len(use), "decisions": doc["decisions"],
                           "cpu_seconds": doc["cpu_seconds"]["train"],
                           **{k: done[k] for k in ("estimate", "low", "high", "n")}})  # fmt: skip
            continue  # the training's own model and measurement
        samples = load_samples([str(p) for p in use])
        data_cpu = 0.0
        for p in use:
            with _open_npz(p) as z:
                data_cpu += float(z["cpu"][0])
        t = time.thread_time()
        model, _ = fit(samples, cfg.hidden, cfg.epochs, cfg.lr, cfg.l2, cfg.seed,
                       cirulla=rules.cirulla)  # fmt: skip
        fit_cpu = time.thread_time() - t
        e = versus(rules, model, opponent, pairs, cfg.eval_seed, exact=True)
        points.append({"pieces": len(use), "decisions": samples.decisions,
                       "cpu_seconds": data_cpu + fit_cpu, "estimate": e.estimate,
                       "low": e.low, "high": e.high, "n": e.n})  # fmt: skip
    return points
