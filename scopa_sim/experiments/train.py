"""Training the learned policy: samples from self-play rollouts or from the search,
fitting the model, and its strength and speed against ``expert`` and the search.

Usage::

    python -m scopa_sim.experiments.train rollouts --hands N [--rate R] [--worlds W]
        [--cont expert|learned] [--init MODEL.npy] [--exact] [--evidence-worlds]
        --out DATA.npz
    python -m scopa_sim.experiments.train search --hands N [--rate R]
        [--spec ismcts:iterations=1000,horizon=4,c=1] --out DATA.npz
    python -m scopa_sim.experiments.train fit DATA.npz [DATA.npz ...] [--target y|shares]
        [--hidden H] [--epochs E] [--lr LR] [--l2 L2] [--loss centred|softmax] [--tau T]
        [--max-plays N] [--evidence] --out MODEL.npy
    python -m scopa_sim.experiments.train versus MODEL.npy [--opponent expert|SPEC]
        [--pairs N] [--exact] [--bots] [--worlds K]
    python -m scopa_sim.experiments.train compare MODEL.npy [MODEL.npy ...]
        [--opponent expert|expert+exact|...] [--pairs N] [--exact]
    python -m scopa_sim.experiments.train evidence [--hands N]
    python -m scopa_sim.experiments.train speed MODEL.npy [--hands N] [--repeats R]
        [--worlds K]
    python -m scopa_sim.experiments.train curve TRAIN_DIR [--sizes 1,2,4,8] [--pairs N]
        --json CURVE.json
    python -m scopa_sim.experiments.train plot CURVE.json [CURVE.json ...] --png FIG.png
    python -m scopa_sim.experiments.train table TRAIN_DIR/train.json [...]

The whole pipeline for a preset (data in resumable pieces, the fit, the evaluation,
shipping the weights) is ``scopa-sim train`` (:func:`scopa_sim.sim.training.train`); the
commands here are its steps one by one, for research, on the same functions.

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
  ``--evidence-worlds``: each world drawn weighed by the other seats' evidence
  (:data:`scopa_sim.bots.learned.EVIDENCE_RHO` per marked card), not uniformly.
* **Search targets** (``search``): hands of ``expert`` self-play; at a share ``--rate`` of
  the decisions the search analyses the position: the targets are each play's mean
  margin (``y``) and its share of the visits (``shares``: expert iteration).
* **Fitting** (``fit``): stochastic gradient descent of the centred squared error of the
  values (only the differences between a decision's plays count) or of the softmax
  cross-entropy against the visit shares.
* **Strength** (``versus``): paired seat-swapped deals against ``expert`` through the
  harness kernel (:func:`scopa_sim.bots.learned.play_hands`; three or four sides: the
  model at each seat in turn against the opponent's baseline,
  :func:`scopa_sim.sim.training.versus_samples`), or against a search bot
  through :func:`scopa_sim.bots.search.play_deal`; the mean margin per deal pair with
  its 95% interval; ``compare``: several models on the same deals of the harness, each
  one's margin and its paired difference from the first's.
* **Evidence** (``evidence``): how often the next seat holds a value its evidence marks,
  against the uniform prior (:func:`evidence_check`).
* **Speed** (``speed``): self-play hands per second (CPU time of the thread) of the
  learned model and of ``expert`` in the same harness, alternated ``--repeats`` times.
* **Learning curve** (``curve``, ``plot``): models fitted to the first 1, 2, 4, ... data
  pieces of a ``scopa-sim train`` directory, each measured as the training measures its
  model; the figure draws their strength against the training's CPU time.
"""

from __future__ import annotations

import json
import math
import time

import click
import numpy as np

from scopa_sim.bots import learned as BL
from scopa_sim.bots.registry import PolicySpec
from scopa_sim.errors import ScopaError
from scopa_sim.game.infoset import InfoSet
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import HandState
from scopa_sim.sim.training import (
    SEARCH,
    fit,
    learning_curve,
    load_model,
    load_samples,
    plays_made,
    save_samples,
    search_samples,
    speed,
    versus,
    versus_samples,
)
from scopa_sim.stats.estimate import Estimate
from scopa_sim.stats.inference import normal_ci, normal_ci_from_stats

__all__ = [
    "SEARCH",
    "fit",
    "load_model",
    "load_samples",
    "main",
    "plays_made",
    "run",
    "save_samples",
    "search_samples",
    "speed",
    "versus",
]


# --------------------------------------------------------------------------- command line
_SEED = click.option("--seed", type=int, default=41, show_default=True)
_PRESET = click.option("--preset", default="scopa", show_default=True)
_WORLDS = click.option(
    "--worlds",
    type=click.IntRange(0, BL.MAX_WORLDS),
    default=0,
    show_default=True,
    help="play the model as learned:worlds=K (the exact endgame, and the determinized "
    "exact search of K worlds in the round before the last; 0: off)",
)


def _say(text: str) -> None:
    click.echo(text)


@click.group()
def main() -> None:
    """Train and measure the learned policy."""


@main.command()
@_PRESET
@_SEED
@click.option("--hands", type=click.IntRange(min=1), required=True)
@click.option("--rate", type=float, default=0.5, show_default=True)
@click.option("--worlds", type=int, default=0, show_default=True)
@click.option("--cont", type=click.Choice(["expert", "learned"]), default="expert")
@click.option("--init", "init", type=click.Path(exists=True), default=None)
@click.option("--exact", is_flag=True, help="every seat plays the exact endgame")
@click.option(
    "--evidence-worlds/--uniform-worlds",
    default=False,
    help="draw each world weighed by EVIDENCE_RHO per card of the other hands that their "
    "evidence marks (Scopa, --worlds > 0; default: the uniform worlds)",
)
@click.option("--out", required=True)
def rollouts(preset: str, seed: int, hands: int, rate: float, worlds: int, cont: str,
             init: str | None, exact: bool, evidence_worlds: bool, out: str) -> None:  # fmt: skip
    """Rollout samples (see the module's docstring)."""
    rules = Rules.make(preset)
    rho = BL.EVIDENCE_RHO if evidence_worlds else 1.0  # rollout_samples refuses it off Scopa
    model = None if init is None else load_model(init)
    plus = BL.EXACT if exact else 0
    play = [(BL.LEARNED if init else BL.kind_of("expert")) + plus] * rules.players
    finish = [BL.kind_of(cont) + plus] * rules.players
    t = time.thread_time()
    s = BL.rollout_samples(rules, play, finish, model, seed, 0, hands, rate, worlds, rho)
    save_samples(out, s)
    _say(f"{s.decisions} decisions, {s.y.shape[0]} plays, {time.thread_time() - t:.1f} s CPU")


@main.command()
@_PRESET
@_SEED
@click.option("--hands", type=click.IntRange(min=1), required=True)
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
@click.option(
    "--evidence/--no-evidence",
    default=False,
    show_default=True,
    help="a model that reads the next seat's evidence features too (Scopa; played right "
    "by the harness and the bots only), else they are dropped (the shipped layout)",
)
@click.option("--out", required=True)
def fit_command(seed: int, data: tuple[str, ...], target: str, hidden: int, epochs: int,
                lr: float, l2: float, loss: str, tau: float, max_plays: int | None,
                evidence: bool, out: str) -> None:  # fmt: skip
    """Fit a model to samples."""
    s = load_samples(list(data), target)
    if max_plays is not None:
        s = s.take(np.flatnonzero(plays_made(s) <= max_plays))
    t = time.thread_time()
    code = BL.LOSS_SOFTMAX if loss == "softmax" else BL.LOSS_CENTRED
    try:
        model, curve = fit(s, hidden, epochs, lr, l2, seed, code, tau, evidence=evidence)
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    np.save(out, model)
    _say(f"{s.decisions} decisions, loss by pass {[round(x, 5) for x in curve]}, "
         f"{time.thread_time() - t:.1f} s CPU, digest {BL.model_digest(model)[:16]}")  # fmt: skip


@main.command("versus")
@_PRESET
@_SEED
@click.argument("model_path")
@click.option("--opponent", default="expert", show_default=True)
@click.option("--pairs", type=click.IntRange(min=1), default=20000, show_default=True)
@click.option("--exact", is_flag=True, help="the exact endgame where the seat knows all")
@click.option("--bots", is_flag=True, help="play through the bots (play_deal), not the harness")
@_WORLDS
def versus_command(
    preset: str,
    seed: int,
    model_path: str,
    opponent: str,
    pairs: int,
    exact: bool,
    bots: bool,
    worlds: int,
) -> None:
    """The model's margin against an opponent on paired deals."""
    rules, model = Rules.make(preset), load_model(model_path)
    e = versus(rules, model, opponent, pairs, seed, exact, bots, worlds)
    _say(f"margin {e.text()} n={e.n} deal pairs")


@main.command("compare")
@_PRESET
@_SEED
@click.argument("model_paths", nargs=-1, required=True)
@click.option("--opponent", default="expert", show_default=True)
@click.option("--pairs", type=click.IntRange(min=1), default=20000, show_default=True)
@click.option("--exact", is_flag=True, help="the exact endgame where the seat knows all")
def compare_command(
    preset: str, seed: int, model_paths: tuple[str, ...], opponent: str, pairs: int, exact: bool
) -> None:
    """Several models against a harness opponent on the same deals: each one's margin
    (as ``versus``) and its paired difference from the first's, deal by deal."""
    rules = Rules.make(preset)
    try:
        kind = BL.kind_of(opponent)
    except ValueError as bad:
        raise click.UsageError(str(bad)) from None
    if kind % BL.EXACT == BL.LEARNED:
        raise click.UsageError("compare plays the models against expert, greedy or random")
    runs = []
    for path in model_paths:
        x = versus_samples(rules, load_model(path), opponent, pairs, seed, exact)
        runs.append(x)
        e = normal_ci(x)
        _say(f"{path}: margin {e.text()} n={e.n} deal pairs")
    for path, x in zip(model_paths[1:], runs[1:], strict=True):
        e = normal_ci(x - runs[0])
        _say(f"{path} - {model_paths[0]}: {e.text()} paired")


def _ratio_ci(num: np.ndarray, den: np.ndarray) -> Estimate:
    """``sum(num) / sum(den)`` over clusters (hands) with its normal interval (the ratio
    estimator's linearised variance across the clusters)."""
    est = float(num.sum() / den.sum())
    z = num - est * den
    h = num.shape[0]
    se = math.sqrt(float((z**2).sum()) * h / max(h - 1, 1)) / float(den.sum())
    return normal_ci_from_stats(est, se, h)


def evidence_check(rules: Rules, hands: int, seed: int) -> dict[str, Estimate]:
    """How much the evidence (:attr:`scopa_sim.game.state.PublicView.evidence`) says in ``expert``
    self-play of ``hands`` hands (deals and plays drawn from ``seed``): over the pairs
    (decision, value ``v`` set in the next seat's evidence while it holds cards), the share
    where it holds a card of value ``v`` (``held``), the uniform prior of that given what
    the deciding seat has seen (``prior``: the next hand a uniform draw from the unseen
    cards) and ``held - prior``; ``with evidence``: the share of the decisions where the
    next seat holds cards and has evidence, ``values``: the values its evidence marks
    there; each with its interval over the hands."""
    bot = PolicySpec.parse("expert").bot()
    g = np.random.default_rng(seed)
    rows = np.zeros((hands, 5))  # per hand: pairs, held, prior, decisions, with evidence
    for h in range(hands):
        s = HandState.deal(rules, dealer=h % rules.players, seed=int(g.integers(2**40)))
        while not s.is_over:
            nxt = (s.turn + 1) % rules.players
            e, held = s.evidence[nxt], {c % 10 + 1 for c in s.hands[nxt]}
            rows[h, 3] += 1
            if e and held:
                rows[h, 4] += 1
                unseen = list(InfoSet(s).unseen)
                u, k = len(unseen), len(s.hands[nxt])
                for v in range(1, 11):
                    if e >> (v - 1) & 1:
                        m = sum(1 for c in unseen if c % 10 + 1 == v)
                        rows[h, :3] += (1, v in held, 1 - math.comb(u - m, k) / math.comb(u, k))
            s.push(bot.choose(s, int(g.integers(2**62))))
    n = rows[:, 0]
    return {
        "held": _ratio_ci(rows[:, 1], n),
        "prior": _ratio_ci(rows[:, 2], n),
        "held - prior": _ratio_ci(rows[:, 1] - rows[:, 2], n),
        "with evidence": _ratio_ci(rows[:, 4], rows[:, 3]),
        "values": _ratio_ci(n, rows[:, 4]),
    }


@main.command("evidence")
@_PRESET
@_SEED
@click.option("--hands", type=click.IntRange(min=1), default=20000, show_default=True)
def evidence_command(preset: str, seed: int, hands: int) -> None:
    """How much the next seat's evidence says about its hand (:func:`evidence_check`)."""
    rules = Rules.make(preset)
    if rules.cirulla:
        raise click.UsageError("the evidence is kept under Scopa's rules only")
    for name, e in evidence_check(rules, hands, seed).items():
        _say(f"{name}: {e.text('.4f')} n={e.n} hands")


@main.command("speed")
@_PRESET
@_SEED
@click.argument("model_path")
@click.option("--hands", type=click.IntRange(min=1), default=3000, show_default=True)
@click.option("--repeats", type=int, default=5, show_default=True)
@_WORLDS
def speed_command(
    preset: str, seed: int, model_path: str, hands: int, repeats: int, worlds: int
) -> None:
    """Self-play speed of the model against expert's, in the same harness."""
    _say(str(speed(Rules.make(preset), load_model(model_path), hands, repeats, seed, worlds)))


@main.command("curve")
@click.argument("train_dir")
@click.option(
    "--sizes",
    default="1,2,4,8",
    show_default=True,
    help="numbers of data pieces, comma-separated (the first pieces of the run)",
)
@click.option("--pairs", type=click.IntRange(min=1), default=10000, show_default=True)
@click.option("--opponent", default="expert+exact", show_default=True)
@click.option("--json", "json_path", required=True, help="where to write the points")
def curve_command(train_dir: str, sizes: str, pairs: int, opponent: str, json_path: str) -> None:
    """A learning curve from a training directory (``scopa-sim train``'s): models fitted
    to growing numbers of its data pieces, each measured against the opponent."""
    ns = [int(x) for x in sizes.split(",")]
    with open(f"{train_dir}/train.json") as f:
        doc = json.load(f)
    points = learning_curve(train_dir, ns, pairs, opponent)
    for p in points:
        _say(f"{p['pieces']} pieces, {p['decisions']} decisions, {p['cpu_seconds']:.1f} s CPU: "
             f"{p['estimate']:+.4f} [{p['low']:+.4f}, {p['high']:+.4f}] n={p['n']}")  # fmt: skip
    out = {"preset": doc["preset"], "train_dir": train_dir, "opponent": opponent,
           "points": points}  # fmt: skip
    with open(json_path, "w") as f:
        json.dump(out, f, indent=2)


@main.command("table")
@click.argument("train_json", nargs=-1, required=True)
def table_command(train_json: tuple[str, ...]) -> None:
    """A markdown table of trainings (their ``train.json``): per preset the model's digest,
    the data, the training's CPU time and the margins with their 95% CIs."""
    _say("| preset | model (digest) | data: hands, decisions | CPU min (data + fit) "
         "| vs expert | vs expert+exact | n (deals) |")  # fmt: skip
    _say("|---|---|---|---|---|---|---|")
    for path in train_json:
        with open(path) as f:
            d = json.load(f)
        r = d["results"]
        cell = {
            k: f"{v['estimate']:+.4f} [{v['low']:+.4f}, {v['high']:+.4f}]" for k, v in r.items()
        }
        _say(f"| {d['preset']} | H{d['hidden']} `{d['digest'][:16]}` | {d['config']['hands']:,}, "
             f"{d['decisions']:,} | {d['cpu_seconds']['train'] / 60:.1f} | {cell['expert']} "
             f"| {cell['expert+exact']} | {r['expert']['n']:,} |")  # fmt: skip


@main.command("plot")
@click.argument("curves", nargs=-1, required=True)
@click.option("--png", "png_path", required=True)
def plot_command(curves: tuple[str, ...], png_path: str) -> None:
    """Draw learning curves (``curve``'s JSON files, one series each, at most 8): the
    margin against the opponent with its 95% interval, against training CPU minutes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    if len(curves) > 8:
        raise click.BadParameter("at most 8 curves")
    fig, ax = plt.subplots(figsize=(7.5, 4.8), dpi=120)
    opponents = set()
    for path in curves:
        with open(path) as f:
            doc = json.load(f)
        pts = doc["points"]
        x = np.array([p["cpu_seconds"] for p in pts]) / 60.0
        y = np.array([p["estimate"] for p in pts])
        err = np.array([[p["estimate"] - p["low"] for p in pts],
                        [p["high"] - p["estimate"] for p in pts]])  # fmt: skip
        ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=doc["preset"])
        opponents.add(doc["opponent"])
    ax.axhline(0.0, color="grey", lw=0.8, ls="--")
    ax.set_xscale("log")
    ticks = [0.25, 0.5, 1, 2, 5, 10, 20, 50, 100]
    ax.xaxis.set_major_locator(matplotlib.ticker.FixedLocator(ticks))
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel("training CPU time, minutes on one core (data + fit; log scale)")
    ax.set_ylabel("margin of learned (with the exact endgame),\npoints per deal")
    ax.set_title(f"Learned policy against {' / '.join(sorted(opponents))}: strength against "
                 "training cost (95% CI)", fontsize=10)  # fmt: skip
    ax.legend(title="preset", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(png_path)
    _say(f"wrote {png_path}")


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
