"""Engine speed: self-play hands/s, legal-play generation/s, compile and start-up times,
against the plain-Python reference (tests/reference.py) measured in the same run.

    python benchmarks/bench_engine.py [--hands N] [--json FILE]

Prints a table; ``--json`` also writes it. Targets (issue 2): >= 1,000,000 random
2-player hands/s on one core, >= 200x the plain-Python baseline, cached CLI start-up
under 2 s; (issue 13) >= 20,000 ``expert`` 2-player hands/s on one core (best of three
runs here; ``bench_ladder.py`` takes medians of alternating runs); (issue 15) random
self-play of ``escoba`` at >= 60% of ``scopa``'s hands/s in the same run (the median of
alternating runs' ratios, thread CPU time; ``scopa-15`` too, and greedy and expert).
Numbers are measured, never asserted.
"""

from __future__ import annotations

import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click
import numba
import numpy as np
from numba import njit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import reference as ref  # noqa: E402

from scopa_sim import _engine as K  # noqa: E402
from scopa_sim.game.rules import Rules  # noqa: E402
from scopa_sim.sim import pool as P  # noqa: E402


@njit
def _legal_bench(rules, seed, hands, repeat):
    """Walk random hands; at each decision generate the legal plays ``repeat`` times."""
    state = np.zeros(K.N_STATE, dtype=np.int64)
    deck = np.empty(40, dtype=np.int64)
    bc = np.empty(K.MAX_PLAYS, dtype=np.int64)
    bt = np.empty(K.MAX_PLAYS, dtype=np.int64)
    sc = np.empty(K.SCRATCH, dtype=np.int64)
    calls = 0
    total = 0
    rng = np.zeros(K.RNG_WORDS, dtype=np.uint64)
    for h in range(hands):
        K.reseed(rng, K.derive_seed(seed, 0, h, 0))
        K.shuffle_deal(rules, rng, deck)
        K.start_hand(state, rules, deck, h % rules[K.R_PLAYERS])
        while not state[K.S_DONE]:
            n = 0
            for _ in range(repeat):
                n = K.legal_plays(state, rules, bc, bt, sc)
                total += n
                calls += 1
            i = K.rand_below(rng, n)
            K.apply_play(state, rules, bc[i], bt[i])
    return calls, total


def _time(fn, *args, **kwargs):
    t = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - t, out


def selfplay_rate(rules: Rules, policy: int, hands: int, seed: int = 1) -> float:
    r = rules.to_array()
    pol = np.full(4, policy, dtype=np.int64)
    out = np.zeros((1000, 4), dtype=np.int64)
    K.selfplay_hands(r, pol, seed, 1000, out)  # warm-up (compile / cache load)
    best = 0.0
    for _ in range(3):
        out = np.zeros((hands, 4), dtype=np.int64)
        dt, _ = _time(K.selfplay_hands, r, pol, seed, hands, out)
        best = max(best, hands / dt)
    return best


def paired_rates(
    a: Rules, b: Rules, policy: int, hands: int, pairs: int = 9
) -> tuple[float, float, float]:
    """Median hands/s (thread CPU time) of self-play under ``a`` and ``b``, run
    alternately (``pairs`` times each, order swapped every pair), and the median of the
    pairs' ratios b / a."""
    pol = np.full(4, policy, dtype=np.int64)
    out = np.zeros((hands, 4), dtype=np.int64)
    ra, rb = a.to_array(), b.to_array()
    for r in (ra, rb):
        K.selfplay_hands(r, pol, 1, 100, out)  # warm-up (compile / cache load)
    rates: dict[str, list[float]] = {"a": [], "b": []}
    for i in range(pairs):
        order = (("a", ra), ("b", rb)) if i % 2 == 0 else (("b", rb), ("a", ra))
        for label, r in order:
            t0 = time.thread_time()
            K.selfplay_hands(r, pol, i, hands, out)
            rates[label].append(hands / (time.thread_time() - t0))
    ratios = [y / x for x, y in zip(rates["a"], rates["b"], strict=True)]
    return statistics.median(rates["a"]), statistics.median(rates["b"]), statistics.median(ratios)


def legal_rate(rules: Rules, hands: int) -> float:
    r = rules.to_array()
    _legal_bench(r, 1, 10, 2)
    dt, (calls, _) = _time(_legal_bench, r, 1, hands, 20)
    return calls / dt


def baseline_rates(rules: Rules, seconds: float = 3.0) -> tuple[float, float]:
    """Plain-Python hands/s (random play) and legal-play generations/s."""
    d = rules.as_dict()
    rng = random.Random(1)
    choose = ref.random_chooser(rng)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        deck = ref.shuffled_deck(d, rng)
        ref.play_hand(d, deck, n % rules.players, choose)
        n += 1
    hands_rate = n / (time.perf_counter() - t0)
    deck = ref.shuffled_deck(d, rng)
    table, deals = ref.deal_layout(d, deck, 0)
    hand = deals[0][1]
    calls, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds / 3:
        ref.legal_plays(hand, table, d)
        calls += 1
    return hands_rate, calls / (time.perf_counter() - t0)


def startup_times() -> tuple[float, float]:
    """(cold compile, cached start-up) of `scopa-sim play --matches 1`, in seconds."""
    exe = shutil.which("scopa-sim") or str(Path(sys.executable).parent / "scopa-sim")
    cmd = [exe, "play", "--matches", "1", "--seed", "1"]
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        kw = {"capture_output": True, "check": True, "env": env}
        kw["preexec_fn"] = P.dies_with_parent()  # a kill -9 of this one stops it too
        cold, _ = _time(subprocess.run, cmd, **kw)
        warm = min(_time(subprocess.run, cmd, **kw)[0] for _ in range(3))
    return cold, warm


@click.command()
@click.option("--hands", default=1_000_000, show_default=True, help="Hands per timed run.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="Write results here.")
@click.option("--skip-startup", is_flag=True, help="Skip the subprocess compile/start-up timing.")
def main(hands: int, json_path: str | None, skip_startup: bool) -> None:
    """Print the engine benchmark table (one core)."""
    rows: list[tuple[str, float, str]] = []
    scopa = Rules.make("scopa")
    base_hands, base_legal = baseline_rates(scopa)
    rnd = selfplay_rate(scopa, K.POLICY_RANDOM, hands)
    rows.append(("random self-play, 2p scopa", rnd, "hands/s"))
    rows.append(("  plain-Python baseline (self-play)", base_hands, "hands/s"))
    rows.append(("  speed-up over plain Python (self-play)", rnd / base_hands, "x"))
    rows.append(
        ("greedy self-play, 2p scopa", selfplay_rate(scopa, K.POLICY_GREEDY, hands // 4), "hands/s")
    )
    rows.append(
        (
            "expert self-play, 2p scopa",
            selfplay_rate(scopa, K.POLICY_EXPERT, max(100, hands // 40)),
            "hands/s",
        )
    )
    rows.append(
        (
            "random self-play, scopone",
            selfplay_rate(Rules.make("scopone"), 0, hands // 4),
            "hands/s",
        )
    )
    for name in ("escoba", "scopa-15"):
        for policy, label, n in (
            (K.POLICY_RANDOM, "random", hands // 4),
            (K.POLICY_GREEDY, "greedy", hands // 10),
            (K.POLICY_EXPERT, "expert", max(100, hands // 200)),
        ):
            base, rate, ratio = paired_rates(scopa, Rules.make(name), policy, max(100, n))
            rows.append((f"{label} self-play, {name} (alternating with scopa)", rate, "hands/s"))
            rows.append((f"  {label} self-play, scopa in the same runs", base, "hands/s"))
            rows.append((f"  {name} / scopa, {label} self-play", ratio, "x"))
    lg = legal_rate(scopa, max(1000, hands // 200))
    rows.append(("legal-play generation, 2p scopa", lg, "calls/s"))
    rows.append(("  plain-Python baseline (legal plays)", base_legal, "calls/s"))
    rows.append(("  speed-up over plain Python (legal plays)", lg / base_legal, "x"))
    if not skip_startup:
        cold, warm = startup_times()
        rows.append(("CLI `play --matches 1`, cold (compile)", cold, "s"))
        rows.append(("CLI `play --matches 1`, cached start-up", warm, "s"))
    width = max(len(name) for name, _, _ in rows)
    print(f"{'measure':<{width}}  {'value':>14}  unit")
    for name, value, unit in rows:
        shown = f"{value:,.2f}" if unit in ("s", "x") else f"{value:,.0f}"
        print(f"{name:<{width}}  {shown:>14}  {unit}")
    if json_path:
        doc = {
            "machine": {
                "python": platform.python_version(),
                "numba": numba.__version__,
                "cpu": platform.processor() or platform.machine(),
                "cores": os.cpu_count(),
            },
            "hands": hands,
            "results": [{"measure": n.strip(), "value": v, "unit": u} for n, v, u in rows],
        }
        Path(json_path).write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    with P.interrupt_on_sigterm():  # kill PID stops it as Ctrl-C does
        main()
