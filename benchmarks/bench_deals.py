"""What a deal is worth, how fast: the deal function and card values against the simulation.

    python benchmarks/bench_deals.py [--hands N] [--seed S] [--workers W] [--json FILE]

Three measures (issue 27's speed targets):

* the jitted deal function (through :func:`scopa_sim.sim.deals.redeal`) dealing
  ``min(N, 5,000,000)`` hands of ``scopa`` again in a tight loop on one core, best of 3
  (the target: at least 5 million hands a second);
* ``simulate`` of N hands of ``scopa`` under ``expert`` on W workers (wall time, start-up
  included), the simulation alone;
* the card values of that run, first deal and any deal (reading the run's rows, dealing
  every hand again, two OLS fits with HC1 errors: :mod:`scopa_sim.analysis.deal_analyses`), in
  this process, measured in the same run as the simulation, so that their ratio stands
  whatever else loads the machine (the target: simulation and card values of 10 million
  hands within 10 minutes on 2 cores).

BLAS runs in one thread, as in the ``scopa-sim`` command (``cli/__init__.py``): on a
loaded machine OpenBLAS's threads spin against the simulation's. The load average is
recorded before and after. Numbers are measured, never asserted.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import json
import shutil
import tempfile
import time
from pathlib import Path

import click
import numpy as np

from scopa_sim.analysis import deal_analyses as DV
from scopa_sim.bots.registry import seat_policies
from scopa_sim.data.run import SimConfig, open_run
from scopa_sim.experiments.common import machine
from scopa_sim.game.rules import Rules
from scopa_sim.sim import deals as DL
from scopa_sim.sim import pool as P
from scopa_sim.sim.executors import local_executor
from scopa_sim.sim.simulate import simulate

TIGHT_MAX = 5_000_000


def deal_rate(hands: int) -> float:
    """Hands a second of dealing a run's hands again (:func:`scopa_sim.sim.deals.redeal`)
    on one core (best of 3, after a warm-up)."""
    rules = Rules.make("scopa")
    cfg = SimConfig.make("scopa", rules, seat_policies(["random"], 2), "hands", hands, 1)
    m = np.arange(hands, dtype=np.int64)
    h = np.zeros(hands, dtype=np.int64)
    d = m % 2
    DL.redeal(cfg, m[:10], h[:10], d[:10])
    best = np.inf
    for _ in range(3):
        t0 = time.perf_counter()
        DL.redeal(cfg, m, h, d)
        best = min(best, time.perf_counter() - t0)
    return hands / best


@click.command()
@click.option("--hands", type=int, default=10_000_000, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--workers", type=int, default=2, show_default=True)
@click.option("--json", "json_path", type=click.Path(dir_okay=False))
def main(hands: int, seed: int, workers: int, json_path: str | None) -> None:
    load0 = os.getloadavg()
    rate = deal_rate(min(hands, TIGHT_MAX))
    print(f"deal function: {rate / 1e6:.2f} M hands/s on one core", flush=True)
    rules = Rules.make("scopa")
    cfg = SimConfig.make("scopa", rules, seat_policies(["expert"], 2), "hands", hands, seed)
    tmp = Path(tempfile.mkdtemp(prefix="bench-deals-"))
    try:
        t0 = time.perf_counter()
        simulate(tmp / "run", cfg, local_executor(workers))
        sim_s = time.perf_counter() - t0
        print(f"simulate: {hands:,} hands in {sim_s:.1f} s ({hands / sim_s:,.0f} hands/s)",
              flush=True)  # fmt: skip
        t1 = time.perf_counter()
        run = open_run(tmp / "run")
        ds = DV.deal_sides(run)
        t2 = time.perf_counter()
        first = DV.card_values(ds, "first")
        t3 = time.perf_counter()
        DV.card_values(ds, "any")
        t4 = time.perf_counter()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    analysis_s = t4 - t1
    sb = first.value("7D").value
    hw = max((v.value.high - v.value.low) / 2 for v in first.values)
    load1 = os.getloadavg()
    print(f"card values: {analysis_s:.1f} s (reading and dealing {t2 - t1:.1f} s, first deal "
          f"{t3 - t2:.1f} s, any deal {t4 - t3:.1f} s); ratio to the simulation "
          f"{analysis_s / sim_s:.3f}; total {sim_s + analysis_s:.1f} s; 7D first deal "
          f"{sb.estimate:+.3f} [{sb.low:+.3f}, {sb.high:+.3f}], largest half-width "
          f"{hw:.4f}; load {load0[0]:.2f} -> {load1[0]:.2f}")  # fmt: skip
    results = [
        {"measure": "deal function, hands/s on one core", "value": rate},
        {"measure": "simulate scopa expert, hands/s (wall)", "value": hands / sim_s},
        {"measure": "simulate, seconds", "value": sim_s},
        {"measure": "card values (first and any deal), seconds", "value": analysis_s},
        {"measure": "card values, reading and dealing again, seconds", "value": t2 - t1},
        {"measure": "card values / simulation, time ratio", "value": analysis_s / sim_s},
        {"measure": "simulation and card values, seconds", "value": sim_s + analysis_s},
        {"measure": "largest CI half-width, first deal", "value": hw},
    ]
    doc = {
        "script": "benchmarks/bench_deals.py",
        "hands": hands,
        "seed": seed,
        "workers": workers,
        "machine": machine(),
        "load_average": {"before": load0, "after": load1},
        "settebello_first_deal": {"estimate": sb.estimate, "low": sb.low, "high": sb.high},
        "results": results,
    }
    if json_path:
        Path(json_path).write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    with P.interrupt_on_sigterm():  # kill PID stops it (and its pool) as Ctrl-C does
        main()
