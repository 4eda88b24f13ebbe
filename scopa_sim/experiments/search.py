"""Search strength at equal time: ISMCTS and PIMC against the jitted policies and each
other, on paired, seat-swapped deals.

Usage::

    python -m scopa_sim.experiments.search [--deals N] [--pimc-deals N] [--seed S]
        [--json FILE] [--quick]

Prints a table; ``--json`` also writes it. Strength is measured on paired, seat-swapped
deals of 2-player Scopa: each deal (deck seed :func:`scopa_sim.bots.search.deal_seed`,
dealer alternating) is played twice with the bots' seats exchanged, and the pair's mean
margin (first bot's points minus the other's) is one sample; the table gives the mean
point margin per hand with a 95% interval. Targets (issue 4): ISMCTS(1000) vs greedy
>= +0.6 points per hand, clearly positive vs random, and ISMCTS against PIMC at equal
time per move: the ISMCTS iteration count is calibrated on decisions spread over hands
(:func:`scopa_sim.experiments.common.decision_states`) until its measured wall time per
move matches PIMC's. Both the default ISMCTS (full random rollouts) and the tuned one
(:data:`TUNED`: rollouts cut after 4 plays and valued by the heuristic estimate, c = 1)
are measured. The speeds of the solver and of ISMCTS are timed by
``benchmarks/bench_search.py``. Numbers are measured, never asserted.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from pathlib import Path

import click
import numpy as np

from scopa_sim.bots.base import Bot
from scopa_sim.bots.registry import make_bot
from scopa_sim.bots.search import ISMCTSBot, PIMCBot, deal_seed, play_deal
from scopa_sim.experiments.common import (
    Timed,
    command_line,
    decision_states,
    git_commit,
    machine,
    paired_ms_per_move,
)
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import HandState

#: The ISMCTS parameters tuned against PIMC at equal time (besides the iteration count).
TUNED = {"horizon": "4", "c": "1"}


def tuned(iterations: int) -> Bot:
    """The tuned ISMCTS at ``iterations``."""
    return make_bot("ismcts", {"iterations": str(iterations), **TUNED})


def equal_time_iterations(
    make: Callable[[int], Bot], target: Bot, states: list[HandState]
) -> tuple[int, float, float]:
    """Iterations at which ``make(iterations)`` takes as long per move as ``target``, with
    both wall times per move (:func:`~scopa_sim.experiments.common.paired_ms_per_move`):
    extrapolated from 1,000 iterations, then corrected three times on the measured ratio
    (fixed costs per move)."""
    equal = 1000
    for _ in range(4):
        ms, target_ms = paired_ms_per_move(make(equal), target, states, time.perf_counter)
        equal = max(1, round(equal * target_ms / ms))
    ms, target_ms = paired_ms_per_move(make(equal), target, states, time.perf_counter)
    return equal, ms, target_ms


def match(rules: Rules, a: Bot, b: Bot, deals: int, seed: int) -> dict:
    """Mean margin per hand of ``a`` over ``b`` on paired, seat-swapped deals, 95% CI, and
    each bot's mean wall time per move in these games."""
    ta, tb = Timed(a), Timed(b)
    pairs = []
    t = time.perf_counter()
    for d in range(deals):
        ds = deal_seed(seed, d)
        m = 0.0
        for seat in (0, 1):
            bots: list[Bot] = [tb, tb]
            bots[seat] = ta
            pts = play_deal(rules, bots, ds, dealer=d % 2)
            m += pts[seat] - pts[1 - seat]
        pairs.append(m / 2)
    x = np.array(pairs)
    half = 1.96 * x.std(ddof=1) / math.sqrt(len(x)) if len(x) > 1 else math.inf
    return {"a": ta.name, "b": tb.name, "deals": deals, "hands": 2 * deals,
            "mean_margin": float(x.mean()), "ci_low": float(x.mean() - half),
            "ci_high": float(x.mean() + half), "seconds": time.perf_counter() - t,
            "a_ms_per_move": ta.wall_ms_per_move, "b_ms_per_move": tb.wall_ms_per_move}  # fmt: skip


@click.command()
@click.option("--deals", default=200, show_default=True, help="paired deals per match")
@click.option("--seed", default=2024, show_default=True)
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None)
@click.option(
    "--pimc-deals",
    default=None,
    type=int,
    help="paired deals of ISMCTS vs PIMC at equal time [default: --deals]",
)
@click.option("--quick", is_flag=True, help="short run (smoke test)")
def main(deals: int, seed: int, json_path: str | None, pimc_deals: int | None, quick: bool) -> None:
    """Measure the search bots' strength at equal time (see the module docstring)."""
    rules = Rules.make("scopa")
    deals = min(deals, 10) if quick else deals
    pimc_deals = deals if pimc_deals is None or quick else pimc_deals
    if min(deals, pimc_deals) < 2:
        raise click.UsageError("--deals and --pimc-deals must be at least 2")
    result: dict = {
        "command": command_line("search"),
        "commit": git_commit(),
        "machine": machine(),
        "matches": [],
    }
    states = decision_states(rules, 10 if quick else 100, seed)
    pimc = PIMCBot()
    # ISMCTS iterations taking PIMC's time per move, default and tuned
    equal, equal_ms, pimc_ms = equal_time_iterations(
        lambda n: ISMCTSBot(iterations=n), pimc, states
    )
    equal_t, equal_t_ms, pimc_t_ms = equal_time_iterations(tuned, pimc, states)
    result["pimc_ms_per_move"] = pimc_ms
    result["ismcts_iterations_at_pimc_time"] = equal
    result["ismcts_ms_per_move_at_pimc_time"] = equal_ms
    result["tuned_ismcts_iterations_at_pimc_time"] = equal_t
    result["tuned_ismcts_ms_per_move_at_pimc_time"] = equal_t_ms
    result["pimc_ms_per_move_tuned_calibration"] = pimc_t_ms
    ismcts1000 = ISMCTSBot(iterations=1000)
    pairs = [
        (ismcts1000, make_bot("greedy")),
        (ismcts1000, make_bot("random")),
        (tuned(1000), make_bot("greedy")),
        (ISMCTSBot(iterations=equal), pimc),
        (tuned(equal_t), pimc),
        (pimc, make_bot("greedy")),
    ]
    print(f"\nstrength: paired seat-swapped deals ({deals} deals = {2 * deals} hands each, "
          f"{pimc_deals} against PIMC); equal time: ISMCTS {equal} iterations "
          f"{equal_ms:.3f} ms/move against PIMC {pimc_ms:.3f}, tuned ISMCTS {equal_t} "
          f"iterations {equal_t_ms:.3f} ms/move against PIMC {pimc_t_ms:.3f}; "
          "ms/move below are measured in the games")  # fmt: skip
    print(f"{'bot':<58} {'vs':<38} {'margin/hand':>11} {'95% CI':>18} "
          f"{'ms/move':>15} {'s':>6}")  # fmt: skip
    for a, b in pairs:
        m = match(rules, a, b, pimc_deals if b is pimc else deals, seed)
        result["matches"].append(m)
        print(f"{m['a']:<58} {m['b']:<38} {m['mean_margin']:>+11.3f} "
              f"[{m['ci_low']:+.3f}, {m['ci_high']:+.3f}] "
              f"{m['a_ms_per_move']:>7.3f}/{m['b_ms_per_move']:<7.3f} "
              f"{m['seconds']:>6.1f}")  # fmt: skip
    if json_path:
        Path(json_path).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
