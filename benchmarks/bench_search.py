"""Search speed and strength: solver positions/s, ISMCTS iterations/s, bot-vs-bot margins.

    python benchmarks/bench_search.py [--deals N] [--pimc-deals N] [--seed S] [--json FILE]
                                      [--quick] [--skip-strength]

Prints a table; ``--json`` also writes it. Strength is measured on paired, seat-swapped
deals of 2-player Scopa: each deal (deck seed ``derive_seed(seed, 8, deal, 0)``, dealer
alternating) is played twice with the bots' seats exchanged, and the pair's mean margin
(first bot's points minus the other's) is one sample; the table gives the mean point
margin per hand with a 95% interval. Targets (issue 4): ISMCTS >= 200,000 iterations/s
at the first decision, 1,000 iterations per move in under 10 ms, ISMCTS(1000) vs greedy
>= +0.6 points per hand, clearly positive vs random, and ISMCTS against PIMC at equal
time per move: the ISMCTS iteration count is calibrated on 40 decisions spread over
hands until its measured time per move matches PIMC's. Both the default ISMCTS (full
random rollouts) and the tuned one (``TUNED``: rollouts cut after 4 plays and valued by
the heuristic estimate, c = 1) are measured. Numbers are measured, never asserted.
Compile time is excluded (warm-up calls first).
"""

from __future__ import annotations

import json
import math
import platform
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

import click
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scopa_sim import _engine as K  # noqa: E402
from scopa_sim._engine import ismcts as KI  # noqa: E402
from scopa_sim._engine import solver as KSO  # noqa: E402
from scopa_sim.bots.base import Bot, PlayStats  # noqa: E402
from scopa_sim.bots.registry import make_bot  # noqa: E402
from scopa_sim.bots.search import ISMCTSBot, PIMCBot, play_deal  # noqa: E402
from scopa_sim.game.infoset import InfoSet  # noqa: E402
from scopa_sim.game.play import Play  # noqa: E402
from scopa_sim.game.rules import Rules  # noqa: E402
from scopa_sim.game.state import HandState  # noqa: E402


def positions(rules: Rules, left: int, count: int, seed: int) -> list[HandState]:
    """Positions with ``left`` cards left to play, from random play."""
    rnd = random.Random(seed * 1000 + left)
    out = []
    for _ in range(count):
        s = HandState.deal(rules, dealer=rnd.randrange(rules.players), seed=rnd.randrange(2**32))
        while s.plays_left > left:
            s.push(rnd.choice(list(s.legal_plays)))
        out.append(s)
    return out


def bench_solver(rules: Rules, lefts: list[int], budget_s: float, seed: int) -> list[dict]:
    """Exact solves (every root play valued) per second by cards left."""
    size = 1 << 20
    tk, tv, tm = (np.zeros(size, np.int64), np.zeros(size), np.zeros(size, np.int64))
    info = np.zeros(KSO.N_INFO, dtype=np.int64)
    info[KSO.V_TT_MASK] = size - 1
    bc = np.empty(K.MAX_PLAYS, np.int64)
    bt = np.empty(K.MAX_PLAYS, np.int64)
    bv = np.empty(K.MAX_PLAYS)
    r = rules.to_array()
    rows = []
    KSO.solve_root(
        positions(rules, 2, 1, seed)[0]._vec, r, KSO.FULL_DEPTH, tk, tv, tm, info, bc, bt, bv
    )
    for left in lefts:
        done = nodes = 0
        elapsed = 0.0
        for p in positions(rules, left, 200, seed):
            info[KSO.V_SALT] = done + 1
            info[KSO.V_NODES] = 0
            t = time.perf_counter()
            KSO.solve_root(p._vec, r, KSO.FULL_DEPTH, tk, tv, tm, info, bc, bt, bv)
            elapsed += time.perf_counter() - t
            done += 1
            nodes += int(info[KSO.V_NODES])
            if elapsed > budget_s:
                break
        rows.append(
            {"cards_left": left, "positions": done, "positions_per_s": done / elapsed,
             "nodes_per_position": nodes / done, "nodes_per_s": nodes / elapsed}
        )  # fmt: skip
    return rows


def bench_ismcts(rules: Rules, seed: int) -> dict:
    """Iterations/s at the first decision of a 2-player hand; ms per 1,000-iteration move."""
    state = HandState.deal(rules, seed=seed)
    root = InfoSet(state).vector
    r = rules.to_array()
    n = 200_000
    tree = np.empty((n + 1, KI.T_COLS), np.int64)
    rng = K.new_rng(1)
    log = np.empty(0, np.int64)
    KI.ismcts_run(root, r, tree, KI.ismcts_init(root, tree), 100, 0.7, 0, KSO.FULL_DEPTH, rng, log)
    out = {}
    for policy, name in ((K.POLICY_RANDOM, "random"), (K.POLICY_GREEDY, "greedy")):
        count = KI.ismcts_init(root, tree)
        t = time.perf_counter()
        KI.ismcts_run(root, r, tree, count, n, 0.7, policy, KSO.FULL_DEPTH, rng, log)
        out[f"iterations_per_s_{name}_rollout"] = n / (time.perf_counter() - t)
    bot = ISMCTSBot(iterations=1000)
    states = [HandState.deal(rules, seed=seed + i) for i in range(50)]
    bot.choose(states[0], 0)
    t = time.perf_counter()
    for i, s in enumerate(states):
        bot.choose(s, i)
    out["ms_per_move_1000_iterations"] = (time.perf_counter() - t) * 1000 / len(states)
    return out


def decision_states(rules: Rules, count: int, seed: int) -> list[HandState]:
    """Decisions spread over whole hands, for timing bots per move. The hands are played
    by ``greedy``, whose positions are closer to those of the search bots' games than
    random play's (random play leaves bigger tables)."""
    rnd = random.Random(seed)
    greedy = make_bot("greedy")
    out: list[HandState] = []
    while len(out) < count:
        s = HandState.deal(rules, seed=rnd.randrange(2**32))
        while not s.is_over:
            if rnd.random() < 0.3:
                out.append(s.clone())
            s.push(greedy.choose(s, rnd.randrange(2**32)))
    return out[:count]


def ms_per_move(bot: Bot, states: list[HandState]) -> float:
    """Mean time per move over ``states`` (after an untimed pass over a few of them, so
    that every kernel the bot uses is loaded)."""
    for i, s in enumerate(states[:10]):
        bot.choose(s, i)
    t = time.perf_counter()
    for i, s in enumerate(states):
        bot.choose(s, i)
    return (time.perf_counter() - t) * 1000 / len(states)


#: The ISMCTS parameters tuned against PIMC at equal time (besides the iteration count).
TUNED = {"horizon": "4", "c": "1"}


def tuned(iterations: int) -> Bot:
    return make_bot("ismcts", {"iterations": str(iterations), **TUNED})


def paired_ms_per_move(a: Bot, b: Bot, states: list[HandState]) -> tuple[float, float]:
    """Mean times per move of ``a`` and ``b`` over ``states``, each state timed for ``a``
    then right away for ``b``, so that drifts of the machine's speed (other load, a
    shared virtual CPU) hit both alike (after an untimed pass over a few states)."""
    for i, s in enumerate(states[:10]):
        a.choose(s, i)
        b.choose(s, i)
    ta = tb = 0.0
    for i, s in enumerate(states):
        t0 = time.perf_counter()
        a.choose(s, i)
        t1 = time.perf_counter()
        b.choose(s, i)
        ta += t1 - t0
        tb += time.perf_counter() - t1
    return ta * 1000 / len(states), tb * 1000 / len(states)


def equal_time_iterations(
    make: Callable[[int], Bot], target: Bot, states: list[HandState]
) -> tuple[int, float, float]:
    """Iterations at which ``make(iterations)`` takes as long per move as ``target``, with
    both times per move (:func:`paired_ms_per_move`): extrapolated from 1,000
    iterations, then corrected three times on the measured ratio (fixed costs per
    move)."""
    equal = 1000
    for _ in range(4):
        ms, target_ms = paired_ms_per_move(make(equal), target, states)
        equal = max(1, round(equal * target_ms / ms))
    ms, target_ms = paired_ms_per_move(make(equal), target, states)
    return equal, ms, target_ms


class Timed(Bot):
    """A bot that adds up the time its moves take (``ms_per_move``)."""

    def __init__(self, bot: Bot) -> None:
        self.bot, self.name = bot, bot.name
        self.seconds, self.moves = 0.0, 0

    def analyse(self, state: HandState, seed: int) -> list[PlayStats]:
        return self.bot.analyse(state, seed)

    def choose(self, state: HandState, seed: int) -> Play:
        t = time.perf_counter()
        play = self.bot.choose(state, seed)
        self.seconds += time.perf_counter() - t
        self.moves += 1
        return play

    @property
    def ms_per_move(self) -> float:
        return 1000 * self.seconds / max(1, self.moves)


def match(rules: Rules, a: Bot, b: Bot, deals: int, seed: int) -> dict:
    """Mean margin per hand of ``a`` over ``b`` on paired, seat-swapped deals, 95% CI, and
    each bot's mean time per move in these games."""
    a, b = Timed(a), Timed(b)
    pairs = []
    t = time.perf_counter()
    for d in range(deals):
        deck_seed = int(K.derive_seed(seed, 8, d, 0)) & (2**63 - 1)
        m = 0.0
        for seat in (0, 1):
            bots = [b, b]
            bots[seat] = a
            pts = play_deal(rules, bots, deck_seed, dealer=d % 2)
            m += pts[seat] - pts[1 - seat]
        pairs.append(m / 2)
    x = np.array(pairs)
    half = 1.96 * x.std(ddof=1) / math.sqrt(len(x)) if len(x) > 1 else math.inf
    return {"a": a.name, "b": b.name, "deals": deals, "hands": 2 * deals,
            "mean_margin": float(x.mean()), "ci_low": float(x.mean() - half),
            "ci_high": float(x.mean() + half), "seconds": time.perf_counter() - t,
            "a_ms_per_move": a.ms_per_move, "b_ms_per_move": b.ms_per_move}  # fmt: skip


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
@click.option("--skip-strength", is_flag=True)
def main(
    deals: int,
    seed: int,
    json_path: str | None,
    pimc_deals: int | None,
    quick: bool,
    skip_strength: bool,
) -> None:
    rules = Rules.make("scopa")
    budget = 0.3 if quick else 2.0
    deals = min(deals, 10) if quick else deals
    pimc_deals = deals if pimc_deals is None or quick else pimc_deals
    solver = bench_solver(rules, [2, 4, 6, 8, 10, 12, 14], budget, seed)
    print("solver (2-player scopa, exact, every root play valued)")
    print(f"{'cards left':>10} {'positions/s':>12} {'nodes/position':>15} {'nodes/s':>12}")
    for row in solver:
        print(f"{row['cards_left']:>10} {row['positions_per_s']:>12,.0f} "
              f"{row['nodes_per_position']:>15,.0f} {row['nodes_per_s']:>12,.0f}")  # fmt: skip
    ismcts = bench_ismcts(rules, seed)
    print("\nISMCTS at the first decision of a 2-player hand")
    for k, v in ismcts.items():
        print(f"  {k:<36} {v:>12,.1f}")
    result: dict = {"machine": platform.processor() or platform.machine(), "solver": solver,
                    "ismcts": ismcts, "matches": []}  # fmt: skip
    if not skip_strength:
        states = decision_states(rules, 100, seed)
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
