"""Search speed: the bots' time per move on the same positions, against the ISMCTS
reference in the same run, and the exact solver's positions/s by cards left.

    python benchmarks/bench_search.py [--positions N] [--seed S] [--json FILE] [--quick]

Positions are decisions spread over 2-player ``scopa`` hands played by ``greedy``. Each
setting is timed on the same positions right after the reference
(``ismcts:iterations=1000``), position by position, on the thread's CPU clock, after an
untimed pass; the ratio is the setting's time over the reference's. ISMCTS's iterations
per second are 200,000 iterations from the first decision of a hand. The search bots'
strength is measured by ``python -m scopa_sim.experiments.search``. Numbers are
measured, never asserted.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from scopa_sim import Rules
from scopa_sim.bots.registry import PolicySpec
from scopa_sim.experiments.common import decision_states, machine, paired_ms_per_move
from scopa_sim.game.state import HandState

REFERENCE = "ismcts:iterations=1000"
SETTINGS = ("ismcts:iterations=1000,horizon=4,c=1", "ismcts:iterations=1000,rollout=greedy",
            "pimc", "best", "eval")  # fmt: skip


def iterations_per_s(rules: Rules, rollout: str, seed: int, n: int) -> float:
    """ISMCTS iterations per second at the first decision of a hand."""
    state = HandState.deal(rules, seed=seed)
    PolicySpec.parse(f"ismcts:iterations=100,rollout={rollout}").bot().choose(state, 0)
    bot = PolicySpec.parse(f"ismcts:iterations={n},rollout={rollout}").bot()
    t = time.thread_time()
    bot.choose(state, 1)
    return n / (time.thread_time() - t)


def solver_rate(rules: Rules, left: int, seed: int, seconds: float) -> float:
    """Exact solves (every play valued, the true world) per second at ``left`` plays left."""
    bot = PolicySpec.parse("solver").bot()
    states = [s for s in decision_states(rules, 400, seed) if s.plays_left == left][:50]
    bot.analyse(states[0], 0)
    done, t = 0, time.thread_time()
    for s in states:
        bot.analyse(s, done)
        done += 1
        if time.thread_time() - t > seconds:
            break
    return done / (time.thread_time() - t)


@click.command()
@click.option("--positions", default=100, show_default=True, type=click.IntRange(10))
@click.option("--seed", default=2024, show_default=True)
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="Write results here.")
@click.option("--quick", is_flag=True, help="Short run (smoke test).")
def main(positions: int, seed: int, json_path: str | None, quick: bool) -> None:
    """Print the search speed table (one core)."""
    rules = Rules.make("scopa")
    states = decision_states(rules, 10 if quick else positions, seed)
    ref = PolicySpec.parse(REFERENCE).bot()
    rows = []
    for text in SETTINGS:
        ms, ref_ms = paired_ms_per_move(PolicySpec.parse(text).bot(), ref, states)
        rows.append((f"{text}, ms per move", ms, "ms"))
        rows.append((f"  / {REFERENCE} in the same run", ms / ref_ms, "x"))
    n = 20_000 if quick else 200_000
    for rollout in ("random", "greedy"):
        rate = iterations_per_s(rules, rollout, seed, n)
        rows.append((f"ISMCTS iterations/s, {rollout} rollouts", rate, "1/s"))
    for left in (2, 6) if quick else (2, 4, 6, 8, 10):
        rate = solver_rate(rules, left, seed, 0.3 if quick else 2.0)
        rows.append((f"solver positions/s, {left} plays left", rate, "1/s"))
    width = max(len(name) for name, _, _ in rows)
    for name, value, unit in rows:
        print(f"{name:<{width}}  {value:>14,.3f}  {unit}")
    if json_path:
        results = [{"measure": n.strip(), "value": v, "unit": u} for n, v, u in rows]
        doc = {"machine": machine(), "positions": len(states), "results": results}
        Path(json_path).write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
