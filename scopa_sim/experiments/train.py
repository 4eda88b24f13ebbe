"""Training the learned policy: samples from self-play rollouts or from the search,
fitting the model, and its strength and speed against ``expert`` and the search.

Usage::

    python -m scopa_sim.experiments.train rollouts --hands N [--rate R] [--worlds W]
        [--cont expert|learned] [--init MODEL.npy] [--exact] --out DATA.npz
    python -m scopa_sim.experiments.train search --hands N [--rate R]
        [--spec ismcts:iterations=1000,horizon=4,c=1] --out DATA.npz
    python -m scopa_sim.experiments.train fit DATA.npz [DATA.npz ...] [--target y|shares]
        [--hidden H] [--epochs E] [--lr LR] [--l2 L2] [--loss centred|softmax] [--tau T]
        [--max-plays N] --out MODEL.npy
    python -m scopa_sim.experiments.train versus MODEL.npy [--opponent expert|SPEC]
        [--pairs N] [--exact]
    python -m scopa_sim.experiments.train speed MODEL.npy [--hands N] [--repeats R]

Everything is in 2-player ``scopa`` unless ``--preset`` says otherwise, and reproducible
from ``--seed``: the samples' hands, the search's seeds, the model's first layer and the
order of its training passes derive from it, so the same command gives the same weights
(their digest, :func:`scopa_sim.bots.learned.model_digest`, is printed).

* **Rollout targets** (``rollouts``): hands of ``expert`` self-play (``--init``: of the
  model's); at a share ``--rate`` of the decisions every legal play is made and the hand
  finished by ``--cont`` (common random numbers across the plays), in the true deal or
  averaged over ``--worlds`` worlds consistent with the seat's information: the target
  is the hand's final margin for the deciding seat (a Monte Carlo estimate of the play's
  value under the continuation policy: one step of approximate policy iteration).
* **Search targets** (``search``): hands of ``expert`` self-play; at a share ``--rate`` of
  the decisions the search analyses the position: the targets are each play's mean
  margin (``y``) and its share of the visits (``shares``: expert iteration).
* **Fitting** (``fit``): stochastic gradient descent of the centred squared error of the
  values (only the differences between a decision's plays count) or of the softmax
  cross-entropy against the visit shares.
* **Strength** (``versus``): paired seat-swapped deals against ``expert`` through the
  harness kernel (:func:`scopa_sim.bots.learned.play_hands`), or against a search bot
  through :func:`scopa_sim.bots.search.play_deal`; the mean margin per deal pair with
  its 95% interval.
* **Speed** (``speed``): self-play hands per second (CPU time of the thread) of the
  learned model and of ``expert`` in the same harness, alternated ``--repeats`` times.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import click
import numpy as np

from scopa_sim.bots import learned as BL
from scopa_sim.bots.base import Bot
from scopa_sim.bots.registry import PolicySpec
from scopa_sim.bots.search import deal_seed, play_deal
from scopa_sim.errors import FileError, ScopaError
from scopa_sim.files import shown_path
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import HandState
from scopa_sim.stats.estimate import Estimate
from scopa_sim.stats.inference import normal_ci

#: The search whose values and visits the ``search`` samples hold.
SEARCH = "ismcts:iterations=1000,horizon=4,c=1"


def save_samples(path: str | Path, s: BL.Samples, **extra: np.ndarray) -> None:
    """Write samples (and extra per-row arrays, such as ``shares``) to an ``.npz``."""
    arrays: dict[str, Any] = {
        "idx": s.idx,
        "k": s.k,
        "dense": s.dense,
        "y": s.y,
        "starts": s.starts,
    }
    arrays.update(extra)
    np.savez(path, **arrays)


def load_samples(paths: list[str], target: str = "y") -> BL.Samples:
    """The samples of the ``.npz`` files ``paths`` joined, their targets the array
    ``target`` (``y``, or ``shares`` of search samples)."""
    parts = []
    for p in paths:
        with _open_npz(p) as z:
            try:
                parts.append(BL.Samples(z["idx"], z["k"], z["dense"], z[target], z["starts"]))
            except KeyError as e:
                raise FileError(f"{shown_path(p)}: not a samples file (no array {e})") from None
    return BL.Samples.join(parts)


def _np_load(path: str, what: str) -> Any:
    """``np.load`` of ``path`` without pickles; a one-line FileError naming ``what`` the
    file should be when it is missing, unreadable or not a numpy file.

    Raises:
        FileError: as above.
    """
    try:
        return np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise FileError(f"no such file: {shown_path(path)}") from None
    except (OSError, ValueError, EOFError):
        raise FileError(f"{shown_path(path)}: not {what}") from None


def _open_npz(path: str) -> Any:
    """An ``.npz`` file of arrays (:func:`_np_load`).

    Raises:
        FileError: missing, unreadable or not such an archive.
    """
    z = _np_load(path, "a numpy archive of arrays (.npz)")
    if not isinstance(z, np.lib.npyio.NpzFile):
        raise FileError(f"{shown_path(path)}: not an .npz archive")
    return z


def load_model(path: str) -> np.ndarray:
    """A model's weight vector from a ``.npy`` file (:func:`_np_load`).

    Raises:
        FileError: missing, unreadable or not a float vector.
    """
    w = _np_load(path, "a model's weights (a .npy float vector)")
    if not isinstance(w, np.ndarray) or w.ndim != 1 or w.dtype.kind != "f":
        raise FileError(f"{shown_path(path)}: not a model's weights (a float vector)")
    return w


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
) -> tuple[np.ndarray, list[float]]:
    """A model of hidden width ``hidden`` trained on ``samples`` for ``epochs`` passes
    (decisions in an order drawn from ``seed``, the step halved after each pass); returns
    the model and each pass's mean loss."""
    model = BL.new_model(hidden, seed)
    g = np.random.default_rng(seed)
    curve = []
    for e in range(epochs):
        order = g.permutation(samples.decisions)
        curve.append(BL.sgd_pass(model, samples, order, lr * 0.5**e, l2, loss, tau))
    return model, curve


def versus(
    rules: Rules, model: np.ndarray, opponent: str, pairs: int, seed: int, exact: bool = False
) -> Estimate:
    """The learned model's (with ``exact``: and the exact endgame's) mean margin per deal
    pair against ``opponent`` over ``pairs`` paired seat-swapped deals (two sides), with
    its 95% interval: a harness kind (:func:`scopa_sim.bots.learned.kind_of`: a kernel
    policy, ``+exact`` allowed) through the harness (deals of its run ``seed``), a search
    through :func:`scopa_sim.bots.search.play_deal` (deals :func:`deal_seed`)."""
    if rules.sides != 2:
        raise ValueError("versus measures two sides")
    me_kind = BL.LEARNED + (BL.EXACT if exact else 0)
    if opponent.partition("+")[0] in ("learned", "random", "greedy", "expert"):
        other = BL.kind_of(opponent)
        half = rules.players // 2
        first = BL.play_hands(rules, [me_kind, other] * half, model, seed, 0, pairs)
        second = BL.play_hands(rules, [other, me_kind] * half, model, seed, 0, pairs)
        return normal_ci(BL.paired_margin(first, second))
    me: Bot = BL.LearnedBot(model, exact=exact)
    them = PolicySpec.parse(opponent).bot()
    x = np.empty(pairs)
    for d in range(pairs):
        ds = deal_seed(seed, d)
        a = play_deal(rules, [me, them] * (rules.players // 2), ds, dealer=d % rules.players)
        b = play_deal(rules, [them, me] * (rules.players // 2), ds, dealer=d % rules.players)
        x[d] = ((a[0] - a[1]) + (b[1] - b[0])) / 2.0
    return normal_ci(x)


def speed(rules: Rules, model: np.ndarray, hands: int, repeats: int, seed: int) -> dict[str, Any]:
    """Self-play hands per second (CPU time of the thread) of the model and of ``expert``
    on every seat in the harness, measured alternately ``repeats`` times after a
    warm-up: the medians and the ratio of the medians."""
    kinds = {
        "learned": [BL.LEARNED] * rules.players,
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


# --------------------------------------------------------------------------- command line
_SEED = click.option("--seed", type=int, default=41, show_default=True)
_PRESET = click.option("--preset", default="scopa", show_default=True)


def _say(text: str) -> None:
    click.echo(text)


@click.group()
def main() -> None:
    """Train and measure the learned policy."""


@main.command()
@_PRESET
@_SEED
@click.option("--hands", type=int, required=True)
@click.option("--rate", type=float, default=0.5, show_default=True)
@click.option("--worlds", type=int, default=0, show_default=True)
@click.option("--cont", type=click.Choice(["expert", "learned"]), default="expert")
@click.option("--init", "init", type=click.Path(exists=True), default=None)
@click.option("--exact", is_flag=True, help="every seat plays the exact endgame")
@click.option("--out", required=True)
def rollouts(preset: str, seed: int, hands: int, rate: float, worlds: int, cont: str,
             init: str | None, exact: bool, out: str) -> None:  # fmt: skip
    """Rollout samples (see the module's docstring)."""
    rules = Rules.make(preset)
    model = None if init is None else load_model(init)
    plus = BL.EXACT if exact else 0
    play = [(BL.LEARNED if init else BL.kind_of("expert")) + plus] * rules.players
    finish = [BL.kind_of(cont) + plus] * rules.players
    t = time.thread_time()
    s = BL.rollout_samples(rules, play, finish, model, seed, 0, hands, rate, worlds)
    save_samples(out, s)
    _say(f"{s.decisions} decisions, {s.y.shape[0]} plays, {time.thread_time() - t:.1f} s CPU")


@main.command()
@_PRESET
@_SEED
@click.option("--hands", type=int, required=True)
@click.option("--rate", type=float, default=0.5, show_default=True)
@click.option("--spec", default=SEARCH, show_default=True)
@click.option("--out", required=True)
def search(preset: str, seed: int, hands: int, rate: float, spec: str, out: str) -> None:
    """Search samples (see the module's docstring)."""
    t = time.thread_time()
    s, shares = search_samples(Rules.make(preset), spec, hands, rate, seed)
    save_samples(out, s, shares=shares)
    _say(f"{s.decisions} decisions, {s.y.shape[0]} plays, {time.thread_time() - t:.1f} s CPU")


@main.command("fit")
@_SEED
@click.argument("data", nargs=-1, required=True)
@click.option("--target", type=click.Choice(["y", "shares"]), default="y", show_default=True)
@click.option("--hidden", type=int, default=0, show_default=True)
@click.option("--epochs", type=int, default=4, show_default=True)
@click.option("--lr", type=float, default=0.002, show_default=True)
@click.option("--l2", type=float, default=1e-4, show_default=True)
@click.option("--loss", type=click.Choice(["centred", "softmax"]), default="centred")
@click.option("--tau", type=float, default=0.1, show_default=True)
@click.option(
    "--max-plays",
    type=int,
    default=None,
    help="only the decisions whose play is at most the hand's N-th (e.g. 30 in scopa: "
    "the rounds before the last, which the exact endgame plays)",
)
@click.option("--out", required=True)
def fit_command(seed: int, data: tuple[str, ...], target: str, hidden: int, epochs: int,
                lr: float, l2: float, loss: str, tau: float, max_plays: int | None,
                out: str) -> None:  # fmt: skip
    """Fit a model to samples."""
    s = load_samples(list(data), target)
    if max_plays is not None:
        s = s.take(np.flatnonzero(plays_made(s) <= max_plays))
    t = time.thread_time()
    code = BL.LOSS_SOFTMAX if loss == "softmax" else BL.LOSS_CENTRED
    model, curve = fit(s, hidden, epochs, lr, l2, seed, code, tau)
    np.save(out, model)
    _say(f"{s.decisions} decisions, loss by pass {[round(x, 5) for x in curve]}, "
         f"{time.thread_time() - t:.1f} s CPU, digest {BL.model_digest(model)[:16]}")  # fmt: skip


@main.command("versus")
@_PRESET
@_SEED
@click.argument("model_path")
@click.option("--opponent", default="expert", show_default=True)
@click.option("--pairs", type=int, default=20000, show_default=True)
@click.option("--exact", is_flag=True, help="the exact endgame where the seat knows all")
def versus_command(
    preset: str, seed: int, model_path: str, opponent: str, pairs: int, exact: bool
) -> None:
    """The model's margin against an opponent on paired deals."""
    e = versus(Rules.make(preset), load_model(model_path), opponent, pairs, seed, exact)
    _say(f"margin {e.estimate:+.4f} [{e.low:+.4f}, {e.high:+.4f}] n={e.n} deal pairs")


@main.command("speed")
@_PRESET
@_SEED
@click.argument("model_path")
@click.option("--hands", type=int, default=3000, show_default=True)
@click.option("--repeats", type=int, default=5, show_default=True)
def speed_command(preset: str, seed: int, model_path: str, hands: int, repeats: int) -> None:
    """Self-play speed of the model against expert's, in the same harness."""
    _say(str(speed(Rules.make(preset), load_model(model_path), hands, repeats, seed)))


def run() -> None:
    """The command line: the project's errors as one line and status 2."""
    try:
        main(standalone_mode=False)
    except click.exceptions.Abort:
        raise SystemExit(130) from None
    except click.ClickException as e:
        e.show()
        raise SystemExit(e.exit_code) from None
    except ScopaError as e:
        click.echo(f"Error: {e}", err=True)
        raise SystemExit(2) from None


if __name__ == "__main__":
    run()
