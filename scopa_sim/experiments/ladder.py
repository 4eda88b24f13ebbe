"""The strength-speed ladder: every policy and search setting against its cost, the
``expert`` policy in the fused loop, and expert rollouts / leaves at equal time per move.

Usage::

    python -m scopa_sim.experiments.ladder [--deals N] [--rr-deals N] [--equal-deals N]
        [--fused-deals N] [--preset-deals N] [--speed-hands N] [--repeats N] [--workers N]
        [--seed S] [--json FILE] [--png FILE] [--quick]
    python -m scopa_sim.experiments.ladder --replot FILE.json --png FILE.png
    python -m scopa_sim.experiments.ladder --only POLICY [--only POLICY ...] [--deals N]

Five parts, all in 2-player ``scopa`` unless said otherwise; numbers are measured, never
asserted, and compile time is excluded (warm-up calls first). Times are CPU times of the
working thread (``time.thread_time``), what a move or a hand costs on one core however
busy the shared machine is; the wall times are recorded next to them in the JSON.

1. **Fused-loop speed.** Self-play hands/s on one core of ``random``, ``greedy`` and
   ``expert`` on every seat (:func:`scopa_sim.sim.selfplay.selfplay_points`), the three
   measured in turn ``--repeats`` times (alternating, so drifts of the shared machine hit
   all alike); medians and the ratios of the medians.
2. **Expert against greedy in the fused loop**, every preset. With two sides, each deal
   (hand ``h`` of :func:`~scopa_sim.sim.selfplay.selfplay_points` with the run seed: the
   same deck and dealer in both calls) is played with ``expert`` on side 0 and ``greedy`` on
   side 1 and again with the sides exchanged; the sample is the mean of expert's two
   margins. With three or four sides, the deal is played by ``greedy`` everywhere (the
   baseline) and once with ``expert`` at each seat in turn; a seat's margin is its side's
   points minus the best other side's, and the sample is the mean over seats of (that margin
   with expert at the seat) minus (the same seat's margin in the baseline).
3. **The ladder.** Each setting plays ``--deals`` paired, seat-swapped deals against
   ``greedy`` (deal ``d``: deck seed :func:`scopa_sim.bots.search.deal_seed`, dealer ``d % 2``,
   played by :func:`scopa_sim.bots.search.play_deal` twice with the seats exchanged, as in
   the search experiment); its strength is the mean margin per hand with a 95% interval
   over the deal pairs, its cost the time per move measured in those games (for the
   jitted policies also the fused loop's time per move, from part 1), and its one-core
   hands/s (search: 1 / (plays per hand x time per move), i.e. self-play with the
   setting on every seat, engine time excluded).
4. **Elo ladder.** A round robin of a representative subset on the first ``--rr-deals``
   of the same deals (the pairings with ``greedy`` are those deals of part 3), each
   pairing summarised as :func:`scopa_sim.sim.tournament.play_pairing` does (score from
   the hands' wins and draws, Elo of the score) and the ratings fitted by
   :func:`scopa_sim.sim.tournament.ladder` (least squares, mean 0).
5. **Equal time per move.** ``expert`` as ISMCTS's rollout and as PIMC's leaf: the
   expert bot's budget (ISMCTS iterations, PIMC worlds) is calibrated until its time
   per move matches the reference's on the same 100 positions, the two timed back to
   back per position (:func:`scopa_sim.experiments.common.paired_ms_per_move` on the
   CPU clock, medians of three passes); then ``--equal-deals`` paired deals head to
   head. The equal-time budgets depend on the machine's timings; everything else is
   deterministic per seed.

Parts 3-5 run their deals in chunks of :data:`CHUNK` deal pairs, each chunk with fresh
bots, on ``--workers`` processes; search budgets are iteration or world counts, so the
results (not the times) are the same for any worker count. The JSON records the UTC
times and the machine's load averages (other jobs may share it) at each part.
``--replot`` draws the PNG again from an earlier JSON, without playing. ``--only`` plays
part 3 alone for the given search settings (e.g. the belief-weighted searches, added
after the committed run), on the same deals for the same seed.
"""

from __future__ import annotations

import json
import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import numpy as np

from scopa_sim.bots.base import Bot
from scopa_sim.experiments.common import (
    CHUNK,
    Task,
    bot_of,
    by_key,
    chunks,
    command_line,
    decision_states,
    equal_budget,
    fmt_ci,
    git_commit,
    load,
    machine,
    play_chunk,
    run_tasks,
    summary,
    warm_bots,
)
from scopa_sim.game.rules import KERNEL_PRESETS, Rules
from scopa_sim.game.state import HandState
from scopa_sim.sim import pool as P
from scopa_sim.sim.selfplay import selfplay_points
from scopa_sim.sim.tournament import PairingResult, ladder
from scopa_sim.stats.inference import normal_ci

#: ISMCTS budgets of the ladder (iterations); ``--quick`` divides them by 10.
BUDGETS = (100, 250, 1000, 4000)
#: Budgets of greedy rollouts and of expert rollouts cut at the horizon.
SHORT_BUDGETS = (100, 250, 1000)
#: Budgets of full expert rollouts (about 26 ms of CPU per move at 1,000 iterations).
EXPERT_BUDGETS = (100, 250)
#: The reference of the equal-time ISMCTS comparisons (iterations of random rollouts).
EQUAL_ITERATIONS = 1000


# --------------------------------------------------------------------------- settings
def ladder_settings(quick: bool) -> list[tuple[str, str]]:
    """(family, policy text) of every setting of the ladder."""
    scale = 10 if quick else 1
    out = [("jitted", "random"), ("jitted", "greedy"), ("jitted", "expert")]
    out += [("pimc", "pimc"), ("pimc", "pimc:leaf=expert")]
    out += [("pimc belief", "pimc:belief=expert"), ("pimc belief", "pimc:belief=fit")]
    fams = (
        ("ismcts", "", BUDGETS),
        ("ismcts horizon=4,c=1", ",horizon=4,c=1", BUDGETS),
        ("ismcts rollout=greedy", ",rollout=greedy", SHORT_BUDGETS),
        ("ismcts rollout=expert", ",rollout=expert", EXPERT_BUDGETS),
        ("ismcts horizon=4,c=1,rollout=expert", ",horizon=4,c=1,rollout=expert", SHORT_BUDGETS),
        ("ismcts horizon=4,c=1,belief=fit", ",horizon=4,c=1,belief=fit", SHORT_BUDGETS),
        ("ismcts horizon=4,c=1,belief=expert", ",horizon=4,c=1,belief=expert", (1000,)),
        ("ismcts belief=fit,reply=tree", ",horizon=4,c=1,belief=fit,reply=tree", (250, 1000)),
    )
    for fam, extra, budgets in fams:
        out += [(fam, f"ismcts:iterations={n // scale}{extra}") for n in budgets]
    return out


def round_robin_settings(quick: bool) -> list[str]:
    """The representative subset of the Elo round robin: the jitted policies, both PIMCs,
    plain ISMCTS at 1,000 iterations and the tuned one at 250 and 1,000."""
    scale = 10 if quick else 1
    return [
        "random",
        "greedy",
        "expert",
        "pimc",
        "pimc:leaf=expert",
        f"ismcts:iterations={1000 // scale}",
        f"ismcts:iterations={250 // scale},horizon=4,c=1",
        f"ismcts:iterations={1000 // scale},horizon=4,c=1",
    ]


# --------------------------------------------------------------------------- part 1, 2
def selfplay_speed(rules: Rules, hands: dict[str, int], repeats: int, seed: int) -> dict:
    """Self-play hands/s of random, greedy and expert (every seat), measured in turn
    ``repeats`` times; medians, all runs, and the ratios of the medians."""
    codes = ("random", "greedy", "expert")
    for name in codes:  # warm-up: load the compiled kernels
        selfplay_points(rules, [name] * rules.players, 200, seed)
    runs: dict[str, list[float]] = {name: [] for name in codes}
    wall: dict[str, list[float]] = {name: [] for name in codes}
    for _ in range(repeats):
        for name in codes:
            t, c = time.perf_counter(), time.thread_time()
            selfplay_points(rules, [name] * rules.players, hands[name], seed)
            runs[name].append(hands[name] / (time.thread_time() - c))
            wall[name].append(hands[name] / (time.perf_counter() - t))
    med = {name: statistics.median(v) for name, v in runs.items()}
    return {
        "hands_per_run": hands,
        "repeats": repeats,
        "clock": "CPU time of the calling thread (the loop is single-threaded)",
        "runs_hands_per_s": runs,
        "median_hands_per_s": med,
        "runs_hands_per_s_wall": wall,
        "median_hands_per_s_wall": {name: statistics.median(v) for name, v in wall.items()},
        "expert_over_greedy": med["expert"] / med["greedy"],
        "expert_over_random": med["expert"] / med["random"],
        "greedy_over_random": med["greedy"] / med["random"],
    }


def _side_margin(points: np.ndarray, side: int, sides: int) -> np.ndarray:
    """Each row's points of ``side`` minus the best other side's."""
    others = [s for s in range(sides) if s != side]
    return points[:, side] - points[:, others].max(axis=1)


def fused_vs_greedy(rules: Rules, deals: int, seed: int) -> dict:
    """Expert against greedy on ``deals`` deals of the fused loop (module docstring, part
    2): the mean margin per hand with its 95% interval over deals."""
    n, sides = rules.players, rules.sides
    greedy, expert = "greedy", "expert"

    def run(policies: list[str]) -> np.ndarray:
        return selfplay_points(rules, policies, deals, seed)

    run([greedy] * n)[:1]  # warm-up (compile / cache load) on the same rules
    t = time.thread_time()
    if sides == 2:
        a = run([expert if rules.side_of(s) == 0 else greedy for s in range(n)])
        b = run([greedy if rules.side_of(s) == 0 else expert for s in range(n)])
        x = ((a[:, 0] - a[:, 1]) + (b[:, 1] - b[:, 0])) / 2
        hands = 2 * deals
        method = "paired, sides exchanged"
    else:
        base = run([greedy] * n)
        diffs = []
        for seat in range(n):
            out = run([expert if s == seat else greedy for s in range(n)])
            side = rules.side_of(seat)
            diffs.append(_side_margin(out, side, sides) - _side_margin(base, side, sides))
        x = np.mean(diffs, axis=0)
        hands = (n + 1) * deals
        method = "each seat in turn against the all-greedy baseline"
    seconds = time.thread_time() - t
    est = normal_ci(x.astype(np.float64))
    return {"deals": deals, "hands": hands, "method": method, "mean_margin": est.estimate,
            "ci_low": est.low, "ci_high": est.high, "cpu_seconds": seconds,
            "hands_per_s": hands / seconds}  # fmt: skip


# --------------------------------------------------------------------------- part 3-5


def init_worker() -> None:
    """Load every compiled kernel a bot of the ladder uses before the first timed move."""
    warm_bots(("expert", "pimc", "pimc:leaf=expert", "ismcts:iterations=20,rollout=expert",
               "ismcts:iterations=20,horizon=4,c=1,rollout=greedy"))  # fmt: skip


def frontier(points: Sequence[tuple[str, float, float]]) -> list[str]:
    """Names of the points (name, cost, strength) that no cheaper point matches or beats:
    the strength-cost frontier (on the point estimates)."""
    best, out = -math.inf, []
    for name, _, strength in sorted(points, key=lambda p: (p[1], -p[2])):
        if strength > best:
            out.append(name)
            best = strength
    return out


# --------------------------------------------------------------------------- output
#: Marker and label offset (points) of each family on the plot.
FAMILY_STYLE = {
    "jitted": ("s", (7, -4)),
    "pimc": ("D", (-10, 0)),
    "ismcts": ("o", (5, -13)),
    "ismcts horizon=4,c=1": ("o", (-6, 9)),
    "ismcts rollout=greedy": ("^", (7, -6)),
    "ismcts rollout=expert": ("v", (7, -4)),
    "ismcts horizon=4,c=1,rollout=expert": ("v", (-4, 10)),
    "pimc belief": ("D", (-10, 0)),
    "ismcts horizon=4,c=1,belief=fit": ("P", (6, 6)),
    "ismcts horizon=4,c=1,belief=expert": ("P", (6, -12)),
    "ismcts belief=fit,reply=tree": ("*", (6, 6)),
}
#: The close-up panels of the search settings: a title and its families (at most
#: ``plots.MAX_SERIES`` - 1 each, the frontier being the last series of a panel).
SEARCH_PANELS = (
    ("ISMCTS: budgets and rollouts (labels: iterations)",
     ("ismcts", "ismcts horizon=4,c=1", "ismcts rollout=greedy", "ismcts rollout=expert",
      "ismcts horizon=4,c=1,rollout=expert")),
    ("PIMC and belief-weighted searches (labels: iterations)",
     ("pimc", "pimc belief", "ismcts horizon=4,c=1,belief=fit",
      "ismcts horizon=4,c=1,belief=expert", "ismcts belief=fit,reply=tree")),
)  # fmt: skip
#: The frontier's band: the palette's yellow, which a thin line would lose but a broad
#: band shows.
FRONTIER_COLOUR = "#F0E442"


def short_label(text: str) -> str:
    """The point label of a setting: jitted and PIMC names, ISMCTS budgets."""
    if text.startswith("ismcts:"):
        n = int(text.split("iterations=")[1].split(",")[0])
        return f"{n // 1000}k" if n >= 1000 and n % 1000 == 0 else str(n)
    return text.replace("pimc:", "pimc ")


def _frontier(ax, rows: list[dict]) -> None:
    """The frontier of ``rows`` on ``ax``: a broad band through its settings."""
    front = sorted((r for r in rows if r["on_frontier"]), key=lambda r: r["cost_ms_per_move"])
    ax.plot([r["cost_ms_per_move"] for r in front], [r["mean_margin"] for r in front],
            color=FRONTIER_COLOUR, lw=10, alpha=0.8, zorder=1, solid_capstyle="round",
            label="frontier: no cheaper setting as strong")  # fmt: skip


def _points(ax, pts: list[dict], color: str, marker: str, label: str, line: bool) -> None:
    """Settings with their CI bars on ``ax``, as one series (joined when ``line``)."""
    pts = sorted(pts, key=lambda r: r["cost_ms_per_move"])
    err = [[r["mean_margin"] - r["ci_low"] for r in pts],
           [r["ci_high"] - r["mean_margin"] for r in pts]]  # fmt: skip
    ax.errorbar([r["cost_ms_per_move"] for r in pts], [r["mean_margin"] for r in pts],
                yerr=err, fmt=marker, color=color, ms=7, capsize=3, lw=1.3, zorder=3,
                linestyle="-" if line else "none", label=label)  # fmt: skip


def _label(ax, r: dict, color: str, fam: str) -> None:
    """Setting ``r``'s short name beside its point (bold when on the frontier)."""
    dx, dy = FAMILY_STYLE[fam][1]
    if fam.startswith("pimc"):
        dy = 8 if "expert" in r["policy"] else -14
    ax.annotate(short_label(r["policy"]), (r["cost_ms_per_move"], r["mean_margin"]),
                xytext=(dx, dy), textcoords="offset points", fontsize=9, color=color,
                ha="right" if dx < 0 else "left", zorder=4,
                fontweight="bold" if r["on_frontier"] else "normal")  # fmt: skip


def _finish(ax, title: str) -> None:
    """A panel's log cost axis, grid, title and legend below it."""
    ax.set_xscale("log")
    ax.grid(True, which="both", alpha=0.25)
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("CPU ms per move, one core (log)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), fontsize=9, frameon=False)


def figure(rows: list[dict], title: str) -> Any:
    """The strength-cost figure (a matplotlib ``Figure``): log cost on x, margin against
    greedy with its 95% interval on y, the frontier highlighted. On the left every
    setting (the jitted policies by name, the search settings as one series), then one
    close-up panel per group of search families (:data:`SEARCH_PANELS`, those with
    settings, on one scale, with the search settings' part of the frontier), each family
    in its own colour and labelled with its ISMCTS iterations (bold: on the frontier); at
    most ``plots.MAX_SERIES`` series per panel."""
    from matplotlib.figure import Figure

    from scopa_sim.analysis.plots import PALETTE, wrap

    panels = [(t, [f for f in fams if any(r["family"] == f for r in rows)])
              for t, fams in SEARCH_PANELS]  # fmt: skip
    panels = [(t, fams) for t, fams in panels if fams]
    fig = Figure(figsize=(6.0 + 5.5 * len(panels), 7.5), layout="constrained")
    axes = fig.subplots(1, 1 + len(panels), squeeze=False,
                        gridspec_kw={"width_ratios": [1.0] + [1.3] * len(panels)})[0]  # fmt: skip
    left = axes[0]
    _frontier(left, rows)
    jitted = [r for r in rows if r["family"] == "jitted"]
    search = [r for r in rows if r["family"] != "jitted"]
    if jitted:
        _points(left, jitted, "0.35", "s", "jitted (fused-loop cost)", line=False)
        for r in jitted:
            _label(left, r, "0.35", "jitted")
    if search:
        _points(left, search, PALETTE[0], "o", "search settings (close-ups on the right)",
                line=False)  # fmt: skip
    left.axhline(0, color="black", lw=0.8, zorder=0)
    left.set_ylabel("margin against greedy, points per hand (95% CI)")
    _finish(left, "every setting")
    for ax in axes[2:]:  # the close-ups on one scale, to compare them
        ax.sharex(axes[1])
        ax.sharey(axes[1])
    for ax, (name, fams) in zip(axes[1:], panels, strict=True):
        shown = [r for r in rows if r["family"] in fams]
        _frontier(ax, search)
        ax.margins(x=0.1)
        for k, fam in enumerate(fams):
            pts = [r for r in shown if r["family"] == fam]
            _points(ax, pts, PALETTE[k], FAMILY_STYLE[fam][0], fam,
                    line=fam.startswith("ismcts"))  # fmt: skip
            for r in pts:
                _label(ax, r, PALETTE[k], fam)
        _finish(ax, name)
    fig.suptitle(wrap(title, int(fig.get_figwidth() * 10)), fontsize=12)
    return fig


def plot(rows: list[dict], path: str, title: str) -> None:
    """:func:`figure` written to ``path`` as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    figure(rows, title).savefig(path, dpi=110, format="png")


def plot_title(deals: int, seed: int) -> str:
    return (
        f"Strength against cost, 2-player scopa ({deals} paired deals against greedy each, "
        f"seed {seed})"
    )


@click.command()
@click.option("--deals", default=1000, show_default=True, help="paired deals per ladder match")
@click.option("--rr-deals", default=400, show_default=True, help="paired deals per RR pairing")
@click.option("--equal-deals", default=3000, show_default=True, help="paired deals, equal time")
@click.option("--fused-deals", default=200_000, show_default=True, help="fused loop, 2p scopa")
@click.option("--preset-deals", default=100_000, show_default=True, help="fused loop, presets")
@click.option("--speed-hands", default=200_000, show_default=True, help="expert hands per run")
@click.option("--repeats", default=5, show_default=True, help="runs of each speed measurement")
@click.option("--workers", default=2, show_default=True, help="processes for parts 3-5")
@click.option("--seed", default=2026, show_default=True)
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None)
@click.option("--png", "png_path", type=click.Path(dir_okay=False), default=None)
@click.option("--quick", is_flag=True, help="tiny run (smoke test): a few deals, budgets / 10")
@click.option(
    "--only",
    multiple=True,
    metavar="POLICY",
    help="play only part 3 for this search setting of the ladder (repeatable) and skip "
    "the other parts: settings added to a committed ladder, on its deals",
)
@click.option(
    "--replot",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="only draw --png from this earlier --json output",
)
def main(
    deals: int,
    rr_deals: int,
    equal_deals: int,
    fused_deals: int,
    preset_deals: int,
    speed_hands: int,
    repeats: int,
    workers: int,
    seed: int,
    json_path: str | None,
    png_path: str | None,
    quick: bool,
    only: tuple[str, ...],
    replot: str | None,
) -> None:
    """Print the strength-speed ladder (see the module docstring)."""
    for out in (json_path, png_path):  # fail now, not after an hour of games
        if out:
            try:
                Path(out).parent.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise click.ClickException(f"cannot write {out}: {e.strerror}") from None
    if replot:
        replot_png(replot, png_path)
        return
    size = Sizes.of(deals, rr_deals, equal_deals, fused_deals, preset_deals, speed_hands,
                    repeats, workers, seed, quick, bool(only))  # fmt: skip
    rules = Rules.make("scopa")
    plays_per_hand = HandState.deal(rules, seed=1).plays_left
    if only:
        if png_path:
            raise click.UsageError("--only writes no plot: drop --png")
        run_only(only, size.deals, seed, workers, quick, json_path, plays_per_hand)
        return
    doc: dict = {
        "command": command_line("ladder"),
        "commit": git_commit(),
        "machine": machine(),
        "seed": seed, "workers": workers, "load": {"start": load()},
    }  # fmt: skip
    med = part_speed(rules, size, doc)
    part_presets(size, doc)
    states, calib = part_calibration(rules, size, doc)
    settings, rr = ladder_settings(quick), round_robin_settings(quick)
    done = part_pool(settings, rr, calib, size, doc)
    rows = ladder_rows(settings, done, med, plays_per_hand)
    rr_rows, ratings = round_robin(rr, done, size.rr_deals, rows)
    equal = equal_time(calib, done)
    print_ladder(rows, size)
    print_round_robin(ratings, rr_rows, size.rr_deals)
    print_equal_time(equal, size.equal_deals, len(states))
    doc.update({"plays_per_hand": plays_per_hand, "deals": size.deals,
                "rr_deals": size.rr_deals, "equal_deals": size.equal_deals, "chunk": CHUNK,
                "ladder": rows,
                "round_robin": {"policies": rr, "ratings": ratings, "pairings": rr_rows},
                "equal_time": equal})  # fmt: skip
    doc["load"]["end"] = load()
    try:
        if json_path:
            Path(json_path).write_text(json.dumps(doc, indent=2) + "\n")
        if png_path:
            plot(rows, png_path, plot_title(size.deals, seed))
    except OSError as e:
        raise click.ClickException(f"cannot write the output: {e}") from None


def replot_png(replot: str, png_path: str | None) -> None:
    """``--replot``: the PNG drawn again from an earlier ``--json`` output."""
    if not png_path:
        raise click.UsageError("--replot needs --png")
    try:
        old = json.loads(Path(replot).read_text())
        plot(old["ladder"], png_path, plot_title(old["deals"], old["seed"]))
    except (ValueError, KeyError, TypeError) as e:
        raise click.ClickException(f"{replot}: not a ladder --json output ({e})") from None


@dataclass(frozen=True)
class Sizes:
    """How much each part plays (the options, cut down by ``--quick``), checked."""

    deals: int
    rr_deals: int
    equal_deals: int
    fused_deals: int
    preset_deals: int
    speed_hands: int
    repeats: int
    workers: int
    seed: int
    quick: bool

    @classmethod
    def of(
        cls,
        deals: int,
        rr_deals: int,
        equal_deals: int,
        fused_deals: int,
        preset_deals: int,
        speed_hands: int,
        repeats: int,
        workers: int,
        seed: int,
        quick: bool,
        only: bool,
    ) -> Sizes:
        """The sizes given, ``--quick``'s tiny ones where it is set; a usage error for
        sizes that cannot give an interval (``only``: part 3 alone, no round robin)."""
        if quick:
            deals, rr_deals, equal_deals = min(deals, 3), min(rr_deals, 2), min(equal_deals, 3)
            fused_deals, preset_deals = min(fused_deals, 2000), min(preset_deals, 500)
            speed_hands, repeats = min(speed_hands, 2000), min(repeats, 1)
        for name, v in (("--deals", deals), ("--rr-deals", rr_deals),
                        ("--equal-deals", equal_deals), ("--fused-deals", fused_deals),
                        ("--preset-deals", preset_deals)):  # fmt: skip
            if v < 2:
                raise click.UsageError(f"{name} must be at least 2 (a CI needs two deal pairs)")
        if speed_hands < 1 or repeats < 1 or workers < 1:
            raise click.UsageError("--speed-hands, --repeats and --workers must be at least 1")
        if rr_deals > deals and not only:
            raise click.UsageError(
                "--rr-deals must not exceed --deals (the round robin reuses them)"
            )
        return cls(deals, rr_deals, equal_deals, fused_deals, preset_deals, speed_hands,
                   repeats, workers, seed, quick)  # fmt: skip


def part_speed(rules: Rules, size: Sizes, doc: dict) -> dict[str, float]:
    """Part 1: the fused loop's self-play speed, printed and put in ``doc``; returns the
    median hands/s of each policy."""
    speed_hands, repeats = size.speed_hands, size.repeats
    speed = selfplay_speed(
        rules, {"random": 5 * speed_hands, "greedy": 5 * speed_hands, "expert": speed_hands},
        repeats, size.seed,
    )  # fmt: skip
    doc["selfplay_speed"] = speed
    doc["load"]["after_speed"] = load()
    med: dict[str, float] = speed["median_hands_per_s"]
    print(f"self-play on one core, 2-player scopa, fused loop (medians of {repeats} alternating "
          f"runs; expert {speed_hands:,} hands a run, the others {5 * speed_hands:,})")  # fmt: skip
    for name in ("random", "greedy", "expert"):
        runs = ", ".join(f"{v:,.0f}" for v in speed["runs_hands_per_s"][name])
        print(f"  {name:<7} {med[name]:>11,.0f} hands/s of CPU   ({runs})")
    print(
        f"  expert / greedy {speed['expert_over_greedy']:.3f}, expert / random "
        f"{speed['expert_over_random']:.3f}, greedy / random {speed['greedy_over_random']:.3f}"
    )
    return med


def part_presets(size: Sizes, doc: dict) -> None:
    """Part 2: expert against greedy in the fused loop, every preset; printed and put in
    ``doc``."""
    presets = []
    print(f"\nexpert against greedy, fused loop ({size.fused_deals:,} deals for scopa, "
          f"{size.preset_deals:,} for the other presets), points per hand, 95% CI")  # fmt: skip
    for preset in KERNEL_PRESETS:
        res = fused_vs_greedy(Rules.make(preset), size.fused_deals if preset == "scopa" else
                              size.preset_deals, size.seed)  # fmt: skip
        res["preset"] = preset
        presets.append(res)
        print(f"  {preset:<20} {fmt_ci(res):>28}  {res['deals']:>8,} deals "
              f"({res['method']})  {res['hands_per_s']:>9,.0f} hands/s")  # fmt: skip
    doc["expert_vs_greedy_fused"] = presets
    doc["load"]["after_presets"] = load()


def part_calibration(rules: Rules, size: Sizes, doc: dict) -> tuple[list[HandState], dict]:
    """Part 5a, serial, before the pool starts: the expert budgets at equal time per move
    (put in ``doc``); returns the positions timed and the calibrations by key."""
    quick = size.quick
    states = decision_states(rules, 10 if quick else 100, size.seed)
    n_ref = EQUAL_ITERATIONS // (10 if quick else 1)
    calib = {}
    calib_repeats = 1 if quick else 3

    def h4(n: int, rollout: str = "random") -> str:
        return f"ismcts:iterations={n},horizon=4,c=1" + (
            f",rollout={rollout}" if rollout != "random" else ""
        )

    def plain(n: int, rollout: str = "random") -> str:
        return f"ismcts:iterations={n}" + (f",rollout={rollout}" if rollout != "random" else "")

    cases: tuple[tuple[str, str, Callable[[int], str], int], ...] = (
        ("ismcts_h4_rollout", h4(n_ref), lambda n: h4(n, "expert"), n_ref),
        ("ismcts_plain_rollout", plain(n_ref), lambda n: plain(n, "expert"), n_ref // 10),
        ("pimc_leaf", "pimc", lambda w: f"pimc:worlds={w},leaf=expert", 12),
    )
    for key, ref_text, make, start in cases:

        def of(b: int, make: Callable[[int], str] = make) -> Bot:
            return bot_of(make(b))

        budget, ms, ref_ms, steps = equal_budget(of, bot_of(ref_text), states, start,
                                                 calib_repeats)  # fmt: skip
        calib[key] = {"reference": ref_text, "expert": make(budget), "budget": budget,
                      "expert_ms_per_move": ms, "reference_ms_per_move": ref_ms,
                      "positions": len(states), "steps": steps}  # fmt: skip
    doc["equal_time_calibration"] = calib
    doc["load"]["after_calibration"] = load()
    return states, calib


def part_pool(
    settings: list[tuple[str, str]], rr: list[str], calib: dict, size: Sizes, doc: dict
) -> dict[str, list[dict]]:
    """Parts 3-5: every match, on the pool, largest tasks first; each task's result by
    key (the pool's time and the load put in ``doc``)."""
    tasks: list[Task] = []
    for _, text in settings:
        if text != "greedy":
            tasks += chunks(f"ladder|{text}", text, "greedy", size.deals)
    for i, a in enumerate(rr):
        for b in rr[i + 1 :]:
            if "greedy" not in (a, b):
                tasks += chunks(f"rr|{a}|{b}", a, b, size.rr_deals)
    for key, c in calib.items():
        tasks += chunks(f"equal|{key}", c["expert"], c["reference"], size.equal_deals)
    # largest first (estimated cost: the search bots' iteration / world counts)
    t0 = time.perf_counter()
    done = by_key(run_tasks(play_chunk, sorted(tasks, key=lambda t: -_cost_guess(t)),
                            size.seed, size.workers, init_worker))  # fmt: skip
    doc["pool_seconds"] = time.perf_counter() - t0
    doc["load"]["after_pool"] = load()
    return done


def ladder_rows(
    settings: list[tuple[str, str]],
    done: dict[str, list[dict]],
    med: dict[str, float],
    plays_per_hand: int,
) -> list[dict]:
    """Part 3's rows: each setting against greedy, its cost (the fused loop's for the
    jitted policies) and one-core hands/s, and whether it is on the frontier."""
    fused_ms = {name: 1000 / (med[name] * plays_per_hand) for name in med}
    rows = []
    for fam, text in settings:
        if text == "greedy":
            m: dict[str, Any] = {
                 "a": "greedy", "b": "greedy", "deals": 0, "hands": 0, "mean_margin": 0.0,
                 "ci_low": 0.0, "ci_high": 0.0, "elo": 0.0, "elo_low": 0.0, "elo_high": 0.0,
                 "a_ms_per_move": None, "a_wall_ms_per_move": None}  # fmt: skip
        else:
            m = summary(text, "greedy", done[f"ladder|{text}"])
        game_ms = m["a_ms_per_move"]
        cost = fused_ms[text] if fam == "jitted" else game_ms
        hands_s = med[text] if fam == "jitted" else 1000 / (game_ms * plays_per_hand)
        row: dict[str, Any] = {"family": fam, "policy": text, "bot": bot_of(text).name,
               "deals": m["deals"], "mean_margin": m["mean_margin"], "ci_low": m["ci_low"],
               "ci_high": m["ci_high"], "elo_vs_greedy": m["elo"],
               "elo_vs_greedy_low": m["elo_low"], "elo_vs_greedy_high": m["elo_high"],
               "ms_per_move_in_games": game_ms,
               "wall_ms_per_move_in_games": m.get("a_wall_ms_per_move"),
               "cost_ms_per_move": cost,
               "cost_source": "fused loop" if fam == "jitted" else "in the games",
               "hands_per_s_one_core": hands_s,
               "hands_per_s_source": "fused-loop self-play" if fam == "jitted"
               else "1 / (plays per hand x ms per move)"}  # fmt: skip
        rows.append(row)
    on = set(frontier([(r["policy"], r["cost_ms_per_move"], r["mean_margin"]) for r in rows]))
    for r in rows:
        r["on_frontier"] = r["policy"] in on
    return rows


def round_robin(
    rr: list[str], done: dict[str, list[dict]], rr_deals: int, rows: list[dict]
) -> tuple[list[dict], list[tuple[str, float]]]:
    """Part 4: every pairing of the round robin (those with greedy from part 3's deals)
    and the fitted ratings, each also put in its ``rows`` entry."""
    results: list[PairingResult] = []
    rr_rows = []
    for i, a in enumerate(rr):
        for b in rr[i + 1 :]:
            if b == "greedy":
                s = summary(a, b, done[f"ladder|{a}"], rr_deals)
            elif a == "greedy":
                s = summary(b, a, done[f"ladder|{b}"], rr_deals)
            else:
                s = summary(a, b, done[f"rr|{a}|{b}"])
            results.append(s.pop("_pairing"))
            rr_rows.append(s)
    ratings = ladder(rr, results)
    elo = dict(ratings)
    for r in rows:
        r["elo_round_robin"] = elo.get(r["policy"])
    return rr_rows, ratings


def equal_time(calib: dict, done: dict[str, list[dict]]) -> dict[str, dict]:
    """Part 5: each calibrated expert setting against its reference."""
    equal = {}
    for key, c in calib.items():
        s = summary(c["expert"], c["reference"], done[f"equal|{key}"])
        s.pop("_pairing")
        equal[key] = {**s, "calibration": c}
    return equal


def print_ladder(rows: list[dict], size: Sizes) -> None:
    """Part 3's table, cheapest first, ``*`` on the frontier."""
    print(f"\nthe ladder: {size.deals} paired deals ({2 * size.deals} hands) against greedy "
          f"each, seed {size.seed}; ms/move measured in the games ({size.workers} worker "
          f"processes); jitted policies' cost from the fused loop")  # fmt: skip
    print(
        f"{'setting':<50} {'margin vs greedy [95% CI]':>28} {'Elo vs greedy':>14} "
        f"{'RR Elo':>7} {'ms/move (games)':>15} {'cost ms/move':>12} {'hands/s':>10}  front"
    )
    for r in sorted(rows, key=lambda r: r["cost_ms_per_move"]):
        game = "" if r["ms_per_move_in_games"] is None else f"{r['ms_per_move_in_games']:.4f}"
        rre = "" if r["elo_round_robin"] is None else f"{r['elo_round_robin']:+.0f}"
        print(f"{r['policy']:<50} {fmt_ci(r):>28} {r['elo_vs_greedy']:>+14.0f} {rre:>7} "
              f"{game:>15} {r['cost_ms_per_move']:>12.5f} {r['hands_per_s_one_core']:>10,.0f}"
              f"  {'*' if r['on_frontier'] else ''}")  # fmt: skip


def print_round_robin(ratings: list[tuple[str, float]], rr_rows: list[dict], rr_deals: int) -> None:
    """Part 4's ratings and pairings."""
    print(f"\nElo ladder (round robin, {rr_deals} paired deals per pairing, least squares, "
          "mean 0)")  # fmt: skip
    for name, rating in ratings:
        print(f"  {name:<48} {rating:+7.0f}")
    print(f"\n{'pairing':<88} {'margin/hand [95% CI]':>28} {'Elo [95% CI]':>20}")
    for m in rr_rows:
        print(f"{m['a'] + ' vs ' + m['b']:<88} {fmt_ci(m):>28} "
              f"{m['elo']:+6.0f} [{m['elo_low']:+.0f}, {m['elo_high']:+.0f}]")  # fmt: skip


def print_equal_time(equal: dict[str, dict], equal_deals: int, positions: int) -> None:
    """Part 5's matches with their calibrations."""
    print(f"\nequal time per move ({equal_deals} paired deals each; calibrated on "
          f"{positions} positions timed back to back)")  # fmt: skip
    for m in equal.values():
        c = m["calibration"]
        print(f"  {m['a']} vs {m['b']}: {fmt_ci(m)}; calibration {c['expert_ms_per_move']:.3f} vs "
              f"{c['reference_ms_per_move']:.3f} ms/move, in the games "
              f"{m['a_ms_per_move']:.3f} vs {m['b_ms_per_move']:.3f}")  # fmt: skip


def run_only(
    only: Sequence[str],
    deals: int,
    seed: int,
    workers: int,
    quick: bool,
    json_path: str | None,
    plays_per_hand: int,
) -> None:
    """Part 3 alone for the search settings ``only`` (``--only``): each against greedy on
    the ladder's deals, rows as in the full run (no frontier, Elo round robin or plot)
    plus each deal's margins (seat 0, seat 1), so that settings can be compared deal by
    deal; and each setting minus the first, paired by deal, with its 95% CI."""
    known = {text: fam for fam, text in ladder_settings(quick)}
    for text in only:
        if known.get(text, "jitted") == "jitted":
            search = ", ".join(t for t, f in known.items() if f != "jitted")
            raise click.UsageError(f"--only {text!r}: not a search setting of the ladder "
                                   f"({search})")  # fmt: skip
    doc: dict = {"command": command_line("ladder"),
                 "commit": git_commit(), "seed": seed, "workers": workers, "only": list(only),
                 "load": {"start": load()}}  # fmt: skip
    tasks = [t for text in only for t in chunks(f"ladder|{text}", text, "greedy", deals)]
    t0 = time.perf_counter()
    done = by_key(run_tasks(play_chunk, sorted(tasks, key=lambda t: -_cost_guess(t)), seed,
                            workers, init_worker))  # fmt: skip
    doc["pool_seconds"] = time.perf_counter() - t0
    rows = []
    print(f"ladder settings against greedy, {deals} paired deals each, seed {seed}")
    for text in only:
        m = summary(text, "greedy", done[f"ladder|{text}"])
        ms = m["a_ms_per_move"]
        rows.append({"family": known[text], "policy": text, "bot": bot_of(text).name,
                     "deals": m["deals"], "mean_margin": m["mean_margin"],
                     "ci_low": m["ci_low"], "ci_high": m["ci_high"],
                     "elo_vs_greedy": m["elo"], "elo_vs_greedy_low": m["elo_low"],
                     "elo_vs_greedy_high": m["elo_high"], "ms_per_move_in_games": ms,
                     "wall_ms_per_move_in_games": m["a_wall_ms_per_move"],
                     "cost_ms_per_move": ms, "cost_source": "in the games",
                     "hands_per_s_one_core": 1000 / (ms * plays_per_hand),
                     "margins_seat0": [x for p in done[f"ladder|{text}"] for x in p["m0"]],
                     "margins_seat1": [x for p in done[f"ladder|{text}"] for x in p["m1"]],
                     })  # fmt: skip
        print(f"  {text:<50} {fmt_ci(m):>28} Elo {m['elo']:+4.0f}  {ms:.3f} ms/move")
    first = rows[0]
    ref = (np.array(first["margins_seat0"]) + np.array(first["margins_seat1"])) / 2
    for r in rows[1:]:
        x = (np.array(r["margins_seat0"]) + np.array(r["margins_seat1"])) / 2 - ref
        e = normal_ci(x.astype(np.float64))
        r["minus_first"] = {"reference": first["policy"], "mean": e.estimate, "ci_low": e.low,
                            "ci_high": e.high}  # fmt: skip
        print(f"  {r['policy']} minus {first['policy']}, paired by deal: {e.estimate:+.3f} "
              f"[{e.low:+.3f}, {e.high:+.3f}]")  # fmt: skip
    doc.update({"plays_per_hand": plays_per_hand, "deals": deals, "chunk": CHUNK,
                "ladder": rows})  # fmt: skip
    doc["load"]["end"] = load()
    if json_path:
        try:
            Path(json_path).write_text(json.dumps(doc, indent=2) + "\n")
        except OSError as e:
            raise click.ClickException(f"cannot write the output: {e}") from None


def _cost_guess(t: Task) -> float:
    """A rough cost of a task, for scheduling only (largest first balances the workers)."""

    def one(text: str) -> float:
        if text.startswith("ismcts:"):
            n = int(text.split("iterations=")[1].split(",")[0])
            per = 26.0 if "rollout=expert" in text and "horizon" not in text else 8.3
            per = per if "rollout=expert" in text else 1.9
            return n * per / 1000
        return 0.8 if text.startswith("pimc") else 0.01

    return (one(t.a) + one(t.b)) * (t.stop - t.start)


if __name__ == "__main__":
    with P.interrupt_on_sigterm():  # kill PID stops the pool as Ctrl-C does
        main()
