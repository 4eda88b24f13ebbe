"""Cirulla's self-play speed against Scopa's, in the same run (issue 42, item 5).

    python benchmarks/bench_cirulla.py [--pairs N] [--scale X] [--json PATH]

Each case times the jitted self-play loop (``scopa_sim.sim.selfplay.selfplay_points``,
the loop of ``simulate`` without its rows) of one preset and policy at every seat in a
fresh ``python -c`` child: a small warm-up call (numba loads its cache, or compiles),
then the measured call, timed in CPU seconds of the child (``time.process_time``).
Pair ``i`` runs ``scopa`` then ``cirulla`` when ``i`` is even, the other way when odd
(ABBA order cancels drift), both with seed ``i``. The table gives each preset's median
hands per CPU second and the pairs' ratio scopa/cirulla (how many times slower Cirulla
is): their geometric mean with its 95% t interval (over the logarithms of the pairs'
ratios; none from one pair), against the issue's bounds (random 1.5, expert 2): ``met``
when the whole interval lies at or below the bound, ``not met`` when it lies above, else
``inconclusive``. The ratio depends on the processor (``benchmarks/results/README.md``
has the same code measured on two), so the JSON names it
(:func:`scopa_sim.experiments.common.machine`) beside every measure and the load
average. Bad input is a one-line error with exit status 2.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
from pathlib import Path

from scopa_sim.api import interrupts as P
from scopa_sim.experiments.common import machine
from scopa_sim.stats.inference import mean_ci

ROOT = Path(__file__).resolve().parent.parent
#: policy -> (hands of the measured call, the issue's bound on scopa/cirulla)
CASES = {"random": (1_000_000, 1.5), "expert": (10_000, 2.0)}
CHILD = """
import sys, time
from scopa_sim import Rules
from scopa_sim.sim.selfplay import selfplay_points
preset, policy, hands, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rules = Rules.make(preset)
selfplay_points(rules, [policy] * rules.players, 20, seed + 1)
t = time.process_time()
selfplay_points(rules, [policy] * rules.players, hands, seed)
print(time.process_time() - t)
"""


def measure(preset: str, policy: str, hands: int, seed: int) -> float:
    """Hands per CPU second of the measured call in a fresh child."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", CHILD, preset, policy, str(hands), str(seed)],
        capture_output=True, text=True, check=True, env=env, preexec_fn=P.dies_with_parent(),
    )  # fmt: skip
    return hands / float(out.stdout.split()[-1])


def ratio_verdict(ratios: list[float], bound: float) -> dict:
    """The pairs' ``ratios``' geometric mean, its 95% t interval (``None`` from one pair)
    and the verdict against ``bound``: ``met`` (the interval at or below it), ``not met``
    (above it) or ``inconclusive`` (across it, or no interval)."""
    est = mean_ci([math.log(r) for r in ratios])
    if not math.isfinite(est.low):
        return {"ratio": math.exp(est.estimate), "ci95": None, "verdict": "inconclusive"}
    low, high = math.exp(est.low), math.exp(est.high)
    verdict = "met" if high <= bound else "not met" if low > bound else "inconclusive"
    return {"ratio": math.exp(est.estimate), "ci95": [low, high], "verdict": verdict}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=10)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--case", action="append", choices=sorted(CASES))
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    if a.pairs < 1 or not a.scale > 0:
        print("error: --pairs must be >= 1 and --scale > 0", file=sys.stderr)
        return 2
    doc: dict = {"pairs": a.pairs, "scale": a.scale, "machine": machine(),
                 "load": os.getloadavg(), "cases": {}}  # fmt: skip
    print(f"{doc['machine']['cpu']}, {doc['machine']['cores']} cores, load {doc['load'][0]:.1f}")
    print(
        f"{'policy':8} {'scopa h/s':>12} {'cirulla h/s':>12}"
        f" {'scopa/cirulla [95% CI]':>26}  bound  verdict"
    )
    try:  # SIGTERM as Ctrl-C: the child dies with this process
        with P.interrupt_on_sigterm():
            _measure(a, doc)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    if a.json:
        a.json.write_text(json.dumps(doc, indent=2) + "\n")
    return 0


def _measure(a: argparse.Namespace, doc: dict) -> None:
    """Every case's pairs, printed as a table row each and kept in ``doc``."""
    for policy in a.case or list(CASES):
        hands, bound = CASES[policy]
        n = max(1, int(hands * a.scale))
        rates: dict[str, list[float]] = {"scopa": [], "cirulla": []}
        for i in range(a.pairs):
            order = ("scopa", "cirulla") if i % 2 == 0 else ("cirulla", "scopa")
            for preset in order:
                rates[preset].append(measure(preset, policy, n, i))
        ratios = [s / c for s, c in zip(rates["scopa"], rates["cirulla"], strict=True)]
        v = ratio_verdict(ratios, bound)
        doc["cases"][policy] = {"hands": n, "rates": rates, "ratios": ratios, "bound": bound,
                                "median_ratio": statistics.median(ratios), **v}  # fmt: skip
        low, high = v["ci95"] or (math.nan, math.nan)
        print(
            f"{policy:8} {statistics.median(rates['scopa']):12,.0f}"
            f" {statistics.median(rates['cirulla']):12,.0f}"
            f" {v['ratio']:10.2f} [{low:.2f}, {high:.2f}]  {bound:5}  {v['verdict']}"
        )
    doc["load_after"] = os.getloadavg()


if __name__ == "__main__":
    sys.exit(main())
