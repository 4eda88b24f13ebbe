"""Variance reduction of the dealer margin under strong play: duplicates and control variates.

Usage::

    python -m scopa_sim.experiments.variance [--hands N] [--search-hands N] [--seed S]
                                        [--workers W] [--json FILE]

For each preset and policy, plays N hands of a ``--hands`` run and their duplicates (the
same decks with the seats' cards exchanged, ``--deal swapped``) and reports the two
efficiency factors the study uses (:mod:`scopa_sim.analysis.variance`): duplicates, ``Var(m) /
(2 Var(pair mean))`` against independent hands of the same cost, and control variates
from the deal's features, ``Var(m) / Var(residual)``, each with a 95% percentile
bootstrap interval (over pairs, resp. hands; 200 replicates). Numbers are measured, never
asserted.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import click
import numpy as np

from scopa_sim.analysis import variance as V
from scopa_sim.analysis.study.parts_a_to_c import hand_frame
from scopa_sim.analysis.study.plan import SEARCH_POLICY
from scopa_sim.bots.registry import seat_policies
from scopa_sim.data.run import SimConfig
from scopa_sim.experiments.common import machine
from scopa_sim.game.rules import Rules
from scopa_sim.sim import pool as P
from scopa_sim.sim.executors import local_executor
from scopa_sim.sim.simulate import simulate

REPLICATES = 200


def _margins(preset: str, policy: str, hands: int, seed: int, workers: int, deal: str) -> Path:
    rules = Rules.make(preset)
    shard = 250 if ":" in policy else None
    cfg = SimConfig.make(
        preset, rules, seat_policies([policy], rules.players), "hands", hands, seed, shard,
        deal=deal,
    )  # fmt: skip
    d = Path(tempfile.mkdtemp(prefix="bench-variance-")) / "run"
    simulate(d, cfg, local_executor(workers))
    return d


def _margin_of(d: Path) -> np.ndarray:
    return hand_frame(d)["margin"].to_numpy()


def _boot(
    values: np.ndarray, fn: Callable[[np.ndarray], float], rng: np.random.Generator
) -> tuple[float, float]:
    n = values.shape[0]
    reps = [fn(values[rng.integers(0, n, n)]) for _ in range(REPLICATES)]
    lo, hi = np.quantile(reps, [0.025, 0.975])
    return float(lo), float(hi)


@click.command()
@click.option("--hands", default=200_000, show_default=True, help="Hands per kernel policy.")
@click.option("--search-hands", default=1_000, show_default=True, help="Hands under search.")
@click.option("--seed", default=0, show_default=True)
@click.option("--workers", default=2, show_default=True)
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path))
def main(hands: int, search_hands: int, seed: int, workers: int, json_path: Path | None) -> None:
    rng = np.random.default_rng(seed)
    rows = []
    cases = [
        ("scopa", "random", hands),
        ("scopa", "expert", hands),
        ("scopone", "expert", hands),
        ("scopa", SEARCH_POLICY, search_hands),
    ]
    print(f"{'preset':<10} {'policy':<38} {'hands':>8} {'duplicates':>22} {'control var.':>22}")
    for preset, policy, n in cases:
        t0 = time.perf_counter()
        a = _margin_of(_margins(preset, policy, n, seed, workers, "plain"))
        b = _margin_of(_margins(preset, policy, n, seed, workers, "swapped"))
        feats = V.deal_features(Rules.make(preset), seed, 0, n)
        dup = V.duplicates(a, b)
        cv = V.control_variates(a, feats)
        pairs = np.column_stack([a, b])
        dup_ci = _boot(pairs, lambda x: V.duplicates(x[:, 0], x[:, 1]).factor, rng)
        both = np.column_stack([a, feats])
        cv_ci = _boot(both, lambda x: V.control_variates(x[:, 0], x[:, 1:]).factor, rng)
        secs = time.perf_counter() - t0
        rows.append({
            "preset": preset, "policy": policy, "hands": n, "seconds": round(secs, 1),
            "margin_plain": float(a.mean()), "duplicates_factor": dup.factor,
            "duplicates_ci": dup_ci, "control_variates_factor": cv.factor,
            "control_variates_ci": cv_ci,
            "correlation": float(np.corrcoef(a, b)[0, 1]),
        })  # fmt: skip
        print(
            f"{preset:<10} {policy:<38} {n:>8,} {dup.factor:6.2f} [{dup_ci[0]:.2f}, "
            f"{dup_ci[1]:.2f}]   {cv.factor:6.2f} [{cv_ci[0]:.2f}, {cv_ci[1]:.2f}]"
        )
    doc = {
        "benchmark": "variance reduction of the dealer margin",
        "machine": machine(),
        "seed": seed,
        "replicates": REPLICATES,
        "rows": rows,
    }
    if json_path:
        json_path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    with P.interrupt_on_sigterm():  # kill PID stops it as Ctrl-C does
        main()
