"""Game review: speed, the loss distributions behind the labels, and checks that the losses
mean something.

Usage::

    python -m scopa_sim.experiments.review [--matches N] [--speed-hands N] [--seed S]
                                      [--workers W] [--json FILE] [--quick]

Plays 2-player ``scopa`` matches (``play_match``, seed ``--seed``) of four pairings and
reviews every hand with the default evaluator (review seed 0, never used to play):

* ``greedy`` against ``greedy`` and the evaluator (``eval``) against itself: the loss
  distributions the label thresholds are derived from (their quantiles, histograms, and
  the thresholds they give -- see ``derive_thresholds``), and the evaluator's own mean
  loss (near 0: it is pure evaluation noise, as the review's worlds differ from those
  the evaluator played with);
* a strong search bot (``STRONG``), ``expert`` and ``greedy`` each against ``random``: each
  policy's mean loss per unforced decision with a 95% interval over decisions (random's
  should be far above the strong bot's, greedy's in between);
* open endgames (the last round of a hand): the review's loss against the exact
  solver's difference, and the loss of the solver's own play (0);
* luck and skill: seat 0's mean result, luck and skill per hand in each pairing (luck
  should average 0, skill the result);
* speed: the time to review one hand (both seats, default settings, one thread, kernels
  compiled and the prior computed first), the prior's one-time cost, and the whole CLI
  on one hand (start-up and the prior included), with the load average before and
  after (``--speed-only`` measures only these: ``benchmarks/results/review-speed.json``).

Prints a table; ``--json`` writes everything (``benchmarks/results/review.json``).
"""

from __future__ import annotations

import itertools
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import cast

import click
import numpy as np

from scopa_sim.bots import evaluate as E
from scopa_sim.bots.registry import PolicySpec
from scopa_sim.bots.search import SolverBot
from scopa_sim.experiments.common import machine
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import HandState
from scopa_sim.records.record import write_records
from scopa_sim.records.review import (
    BANDS,
    THRESHOLDS,
    Decision,
    HandReview,
    HandTask,
    load_tasks,
    review_hand,
    review_tasks,
    summarize,
)
from scopa_sim.sim import pool as P
from scopa_sim.sim.match import play_match

STRONG = "ismcts:horizon=4,c=1"
PAIRINGS = {
    "greedy-greedy": ("greedy", "greedy"),
    "eval-eval": ("eval", "eval"),
    "strong-random": (STRONG, "random"),
    "greedy-random": ("greedy", "random"),
    "expert-random": ("expert", "random"),
}
QUANTILES = (0.5, 0.75, 0.9, 0.95, 0.99)


def record_games(path: Path, rules: Rules, policies: tuple[str, str], matches: int, seed: int):
    specs = [PolicySpec.parse(p) for p in policies]
    with path.open("w", encoding="utf-8") as f:
        for m in range(matches):
            write_records(f, rules, play_match(rules, specs, seed, m))


def losses(ds: list[Decision]) -> np.ndarray:
    return np.array([d.loss.estimate for d in ds if not d.forced], dtype=np.float64)


def quantiles(x: np.ndarray) -> dict[str, float]:
    return {f"q{round(q * 100)}": float(np.quantile(x, q)) for q in QUANTILES} if x.size else {}


def histogram(x: np.ndarray) -> dict[str, list[float]]:
    edges = [0.0, 1e-9, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.6, 0.8, 1.0, 1.5, 2.0, 3.0, math.inf]
    counts, _ = np.histogram(x, bins=edges)
    return {"edges": edges[:-1], "counts": [int(c) for c in counts]}


def _round_up(x: float, step: float = 0.05) -> float:
    return round(math.ceil(x / step - 1e-9) * step, 2)


def derive_thresholds(own: list[Decision], greedy: list[Decision]) -> dict[str, float]:
    """The label thresholds the measured losses give (points, rounded up to 0.05):

    * inaccuracy: the 99th percentile of the evaluator's own losses -- what evaluation
      noise alone reaches in at most 1 decision in 100;
    * mistake: the 75th percentile of greedy's distinguishable losses (interval
      excluding 0) -- the worst quarter of the one-ply heuristic's errors;
    * blunder: the 90th percentile of the same -- greedy's worst tenth.
    """
    own_l = losses(own)
    g = np.array([d.loss.estimate for d in greedy if not d.forced and d.loss.low > 0])
    t1 = _round_up(float(np.quantile(own_l, 0.99))) if own_l.size else math.nan
    t2 = _round_up(float(np.quantile(g, 0.75))) if g.size else math.nan
    t3 = _round_up(float(np.quantile(g, 0.9))) if g.size else math.nan
    t2 = max(t2, t1 + 0.05)
    t3 = max(t3, t2 + 0.05)
    return {"inaccuracy": t1, "mistake": round(t2, 2), "blunder": round(t3, 2)}


def derive_bands(means: dict[str, float]) -> list[tuple[float, str]]:
    """Band bounds halfway (geometric mean) between the measured policies' mean losses."""
    order = [("eval", "expert"), ("strong", "strong"), ("greedy", "club"), ("random", "beginner")]
    out = []
    for (a, name), (b, _) in itertools.pairwise(order):
        out.append((round(math.sqrt(max(means[a], 1e-4) * means[b]), 3), name))
    out.append((math.inf, order[-1][1]))
    return out


def endgame_check(rules: Rules, count: int, seed: int, ev: E.Evaluator) -> dict[str, object]:
    """Open endgames (last round, from random play): review loss vs the solver's."""
    rnd = random.Random(seed)
    solver = SolverBot()
    worst = 0.0
    checked = 0
    solver_loss = 0.0
    for _ in range(count):
        s = HandState.deal(rules, dealer=rnd.randrange(2), seed=rnd.randrange(2**32))
        while s.plays_left > 2 * rules.hand_size - rnd.randrange(3):
            s.push(rnd.choice(list(s.legal_plays)))
        e = ev.evaluate(s, 0)
        exact = {p.play: p.mean for p in solver.analyse(s, 0)}
        best = max(exact.values())
        for i, p in enumerate(e.plays):
            worst = max(worst, abs(e.loss(i).estimate - (best - exact[p])))
            checked += 1
        solver_loss += e.loss(e.index(solver.choose(s, 0))).estimate
    return {
        "positions": count,
        "plays_checked": checked,
        "max_abs_difference": worst,
        "solver_play_loss_sum": solver_loss,
    }


def speed(rules: Rules, tasks: list[HandTask], hands: int, ev: E.Evaluator) -> dict[str, object]:
    review_hand(tasks[0], ev, 1)  # compile, and the priors of this dealer
    E._prior.cache_clear()
    t = time.perf_counter()
    ev.prior(rules, 0)
    prior_s = time.perf_counter() - t
    ev.prior(rules, 1)
    times, cpu = [], []
    for task in tasks[:hands]:
        t, c = time.perf_counter(), time.process_time()
        review_hand(task, ev, 0)
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return {
        "hands": len(times),
        "median_s": statistics.median(times),
        "mean_s": statistics.fmean(times),
        "max_s": max(times),
        "cpu_median_s": statistics.median(cpu),
        "cpu_max_s": max(cpu),
        "prior_once_s": prior_s,
    }


def cli_time(path: Path, policy: str) -> tuple[float, float]:
    """Wall and CPU time (user + system) of ``scopa-sim review FILE 1`` in a new process."""
    exe = Path(sys.executable).with_name("scopa-sim")
    cmd = [str(exe), "review", str(path), "1", "-q", "--policy", policy]
    tied = P.dies_with_parent()  # a kill -9 of this one stops it too
    subprocess.run(cmd, check=True, capture_output=True, preexec_fn=tied)  # warm the caches
    before = os.times()
    t = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, preexec_fn=tied)
    wall = time.perf_counter() - t
    after = os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return wall, cpu


def _mean_ci(x: list[float]) -> list[float]:
    a = np.array(x, dtype=np.float64)
    half = 1.959963984540054 * float(a.std(ddof=1)) / math.sqrt(a.size) if a.size > 1 else 0.0
    return [float(a.mean()), float(a.mean()) - half, float(a.mean()) + half]


def luck_skill(hands: Sequence[HandReview]) -> dict[str, list[float]]:
    """Seat 0's mean result, luck and skill per hand (mean, 95% CI over hands)."""
    return {
        "result": _mean_ci([h.result[0] for h in hands]),
        "luck": _mean_ci([h.luck[0] for h in hands]),
        "skill": _mean_ci([h.skill[0] for h in hands]),
    }


def summary_row(name: str, ds: list[Decision]) -> dict[str, object]:
    s = summarize(name, ds)
    return {
        "policy": name,
        "decisions": s.decisions,
        "mean_loss": s.mean_loss.estimate,
        "ci": [s.mean_loss.low, s.mean_loss.high],
        "accuracy": s.accuracy,
        "labels": s.counts,
        "band": s.band,
    }


def print_speed(doc: dict) -> None:
    sp = doc["speed"]
    print(
        f"one hand reviewed (both seats, one thread): median {sp['median_s']:.3f} s, "
        f"max {sp['max_s']:.3f} s over {sp['hands']} hands (CPU: median "
        f"{sp['cpu_median_s']:.3f} s, max {sp['cpu_max_s']:.3f} s); prior once "
        f"{sp['prior_once_s']:.3f} s; CLI on one hand {sp['cli_one_hand_s']:.2f} s wall, "
        f"{sp['cli_one_hand_cpu_s']:.2f} s CPU"
    )


@click.command()
@click.option("--matches", default=20, show_default=True, help="Matches per pairing.")
@click.option("--speed-hands", default=20, show_default=True, help="Hands timed.")
@click.option("--endgames", default=100, show_default=True, help="Open endgames checked.")
@click.option("--seed", default=2026, show_default=True, help="Seed of the games played.")
@click.option("--workers", default=1, show_default=True, help="Review threads.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="Write JSON here.")
@click.option(
    "--worlds", default=E.DEFAULT_WORLDS, show_default=True, help="The evaluator's worlds."
)
@click.option(
    "--rollout", default=E.DEFAULT_ROLLOUT, show_default=True, help="The evaluator's rollout."
)
@click.option("--quick", is_flag=True, help="Tiny sizes (smoke test).")
@click.option("--speed-only", is_flag=True, help="Only the speed measures.")
def main(
    matches: int,
    speed_hands: int,
    endgames: int,
    seed: int,
    workers: int,
    json_path: str | None,
    worlds: int,
    rollout: str,
    quick: bool,
    speed_only: bool,
) -> None:
    if quick:
        matches, speed_hands, endgames, worlds = 1, 1, 5, 32
    rules = Rules.make("scopa")
    ev = E.Evaluator(worlds=worlds, rollout=rollout)
    doc: dict[str, object] = {
        "evaluator": str(ev),
        "seed": seed,
        "review_seed": 0,
        "matches_per_pairing": matches,
        "machine": machine(),
    }
    t0 = time.perf_counter()
    if speed_only:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "greedy-random.jsonl"
            record_games(path, rules, PAIRINGS["greedy-random"], max(2, speed_hands // 3), seed)
            doc["load_before"] = os.getloadavg()
            doc["speed"] = speed(rules, load_tasks([(str(path), None)]), speed_hands, ev)
            doc["speed"]["cli_one_hand_s"], doc["speed"]["cli_one_hand_cpu_s"] = cli_time(  # type: ignore[index]
                path, str(ev)
            )
            doc["load_after"] = os.getloadavg()
        print_speed(doc)
        if json_path:
            Path(json_path).write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
        return
    by_pairing: dict[str, list[Decision]] = {}
    hands: dict[str, int] = {}
    split: dict[str, dict[str, list[float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for name, pols in PAIRINGS.items():
            path = Path(tmp) / f"{name}.jsonl"
            t = time.perf_counter()
            pair = (str(ev) if pols[0] == "eval" else pols[0],
                    str(ev) if pols[1] == "eval" else pols[1])  # fmt: skip
            record_games(path, rules, pair, matches, seed)
            files[name] = path
            tasks = load_tasks([(str(path), None)])
            review = review_tasks(tasks, ev, 0, workers=workers)
            by_pairing[name] = review.decisions()
            hands[name] = len(tasks)
            split[name] = luck_skill(review.hands)
            print(f"{name}: {len(tasks)} hands in {time.perf_counter() - t:.1f} s", file=sys.stderr)
        speed_tasks = load_tasks([(str(files["greedy-random"]), None)])
        doc["load_before"] = os.getloadavg()
        doc["speed"] = speed(rules, speed_tasks, speed_hands, ev)
        doc["speed"]["cli_one_hand_s"], doc["speed"]["cli_one_hand_cpu_s"] = cli_time(  # type: ignore[index]
            files["greedy-random"], str(ev)
        )
        doc["load_after"] = os.getloadavg()
    seat = {
        name: [[d for d in ds if d.seat == s] for s in (0, 1)] for name, ds in by_pairing.items()
    }
    policies = {
        "strong": seat["strong-random"][0],
        "random": seat["strong-random"][1],
        "greedy": seat["greedy-random"][0],
        "expert": seat["expert-random"][0],
        "greedy (self-play)": by_pairing["greedy-greedy"],
        "eval (self-play)": by_pairing["eval-eval"],
    }
    rows = [summary_row(k, v) for k, v in policies.items()]
    own, greedy = by_pairing["eval-eval"], by_pairing["greedy-greedy"]
    doc["hands"] = hands
    doc["luck_skill_seat0"] = split
    doc["policies"] = rows
    doc["strong_policy"] = STRONG
    doc["calibration"] = {
        "eval_own": {"n": int(losses(own).size), **quantiles(losses(own))},
        "greedy": {"n": int(losses(greedy).size), **quantiles(losses(greedy))},
        "greedy_distinguishable": quantiles(
            np.array([d.loss.estimate for d in greedy if not d.forced and d.loss.low > 0])
        ),
        "eval_own_labelled_share": float(
            np.mean([d.label is not None for d in own if not d.forced])
        ),
        "histogram_eval_own": histogram(losses(own)),
        "histogram_greedy": histogram(losses(greedy)),
        "derived_thresholds": derive_thresholds(own, greedy),
        "thresholds_in_use": THRESHOLDS,
    }
    means = {
        "eval": summarize("", own).mean_loss.estimate,
        "strong": summarize("", policies["strong"]).mean_loss.estimate,
        "greedy": summarize("", policies["greedy"]).mean_loss.estimate,
        "random": summarize("", policies["random"]).mean_loss.estimate,
    }
    doc["derived_bands"] = [[b if math.isfinite(b) else None, n] for b, n in derive_bands(means)]
    doc["bands_in_use"] = [[b if math.isfinite(b) else None, n] for b, n in BANDS]
    doc["endgames"] = endgame_check(rules, endgames, seed, ev)
    doc["seconds"] = time.perf_counter() - t0

    print(f"evaluator {ev}; {matches} matches per pairing, seed {seed}, review seed 0")
    print(f"{'policy':<20} {'decisions':>9} {'mean loss':>10} {'95% CI':>18} {'accuracy':>9}")
    for r in rows:
        lo, hi = cast("list[float]", r["ci"])
        print(
            f"{r['policy']:<20} {r['decisions']:>9} {r['mean_loss']:>10.4f} "
            f"{f'[{lo:.4f}, {hi:.4f}]':>18} {r['accuracy']:>8.1f}%"
        )
    cal = doc["calibration"]
    print(f"derived thresholds: {cal['derived_thresholds']}; in use: {THRESHOLDS}")  # type: ignore[index]
    print(f"derived bands: {doc['derived_bands']}")
    print_speed(doc)
    print(f"open endgames: {doc['endgames']}")
    for name, sp in split.items():
        print(
            f"{name}, seat 0 per hand: "
            + ", ".join(f"{k} {v[0]:+.3f} [{v[1]:+.3f}, {v[2]:+.3f}]" for k, v in sp.items())
        )
    if json_path:
        Path(json_path).write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    with P.interrupt_on_sigterm():  # kill PID stops it as Ctrl-C does
        main()
