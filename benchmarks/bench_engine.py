"""Engine speed: self-play hands/s of the fused loop against the same hands played move by
move through ``HandState`` (the Python face) in the same run, other presets against
``scopa`` in alternating runs, and the command's start-up.

    python benchmarks/bench_engine.py [--hands N] [--json FILE] [--skip-startup]

Prints a table; ``--json`` also writes it. Times are the thread's CPU time, best of three
runs (ratios: medians of alternating runs). Numbers are measured, never asserted.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click

from scopa_sim import Rules
from scopa_sim.experiments.common import machine
from scopa_sim.game.state import HandState
from scopa_sim.sim import pool as P
from scopa_sim.sim.selfplay import selfplay_points


def fused_rate(rules: Rules, policy: str, hands: int, seed: int = 1) -> float:
    """Best of three runs of the fused loop, hands/s, after a warm-up run."""
    selfplay_points(rules, [policy] * rules.players, 100, seed)  # compile / cache load
    best = 0.0
    for _ in range(3):
        t = time.thread_time()
        selfplay_points(rules, [policy] * rules.players, hands, seed)
        best = max(best, hands / (time.thread_time() - t))
    return best


def face_rate(rules: Rules, seconds: float = 2.0) -> float:
    """Random hands/s played move by move through ``HandState`` (deal, legal plays, push)."""
    rnd, n, t = random.Random(1), 0, time.thread_time()
    while time.thread_time() - t < seconds:
        s = HandState.deal(rules, dealer=n % rules.players, seed=n)
        while not s.is_over:
            s.push(rnd.choice(list(s.legal_plays)))
        n += 1
    return n / (time.thread_time() - t)


def alternating_ratio(base: Rules, other: Rules, policy: str, hands: int, pairs: int = 7) -> float:
    """Median over alternating runs of other's hands/s over base's."""
    for r in (base, other):
        selfplay_points(r, [policy] * r.players, 100, 1)
    ratios = []
    for i in range(pairs):
        rate = {}
        for k in (0, 1) if i % 2 == 0 else (1, 0):
            r = (base, other)[k]
            t = time.thread_time()
            selfplay_points(r, [policy] * r.players, hands, i)
            rate[k] = hands / (time.thread_time() - t)
        ratios.append(rate[1] / rate[0])
    return statistics.median(ratios)


def startup_times() -> tuple[float, float]:
    """(cold compile, cached start-up) of ``scopa-sim play --matches 1``, in seconds."""
    exe = shutil.which("scopa-sim") or str(Path(sys.executable).parent / "scopa-sim")
    cmd = [exe, "play", "--matches", "1", "--seed", "1"]
    times = []
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for _ in range(4):
            t = time.perf_counter()
            subprocess.run(cmd, capture_output=True, check=True, env=env,
                           preexec_fn=P.dies_with_parent())  # fmt: skip
            times.append(time.perf_counter() - t)
    return times[0], min(times[1:])


@click.command()
@click.option("--hands", default=1_000_000, show_default=True, help="Hands per timed run.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="Write results here.")
@click.option("--skip-startup", is_flag=True, help="Skip the subprocess compile/start-up timing.")
def main(hands: int, json_path: str | None, skip_startup: bool) -> None:
    """Print the engine benchmark table (one core)."""
    scopa = Rules.make("scopa")
    rnd, face = fused_rate(scopa, "random", hands), face_rate(scopa)
    rows = [("random self-play, 2p scopa", rnd, "hands/s"),
            ("  baseline: the same through HandState", face, "hands/s"),
            ("  fused loop / HandState", rnd / face, "x"),
            ("greedy self-play, 2p scopa", fused_rate(scopa, "greedy", hands // 4), "hands/s"),
            ("expert self-play, 2p scopa", fused_rate(scopa, "expert", max(100, hands // 40)),
             "hands/s"),
            ("learned self-play, 2p scopa", fused_rate(scopa, "learned", max(100, hands // 400)),
             "hands/s")]  # fmt: skip
    for name in ("scopone", "escoba", "scopa-15"):
        for policy, n in (("random", hands // 4), ("expert", max(100, hands // 200))):
            ratio = alternating_ratio(scopa, Rules.make(name), policy, max(100, n))
            rows.append((f"{name} / scopa, {policy} self-play", ratio, "x"))
    if not skip_startup:
        cold, warm = startup_times()
        rows += [("CLI `play --matches 1`, cold (compile)", cold, "s"),
                 ("CLI `play --matches 1`, cached start-up", warm, "s")]  # fmt: skip
    width = max(len(name) for name, _, _ in rows)
    print(f"{'measure':<{width}}  {'value':>14}  unit")
    for name, value, unit in rows:
        shown = f"{value:,.2f}" if unit in ("s", "x") else f"{value:,.0f}"
        print(f"{name:<{width}}  {shown:>14}  {unit}")
    if json_path:
        results = [{"measure": n.strip(), "value": v, "unit": u} for n, v, u in rows]
        doc = {"machine": machine(), "hands": hands, "results": results}
        Path(json_path).write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    with P.interrupt_on_sigterm():  # kill PID stops it as Ctrl-C does
        main()
