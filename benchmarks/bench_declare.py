"""When should the Cirulla expert declare? Its declaration rules played against each
other on duplicate deals (issue 42, item 3).

    python benchmarks/bench_declare.py [--hands N] [--seed S] [--preset NAME]
                                       [--rule OPTION=VALUE ...] [--json PATH]

Every deal is played twice by the ``expert`` policy at both seats: once with the rule
under test at seat 0 and the baseline (``always``: declare every qualifying hand) at
seat 1, once with the seats' rules swapped, the same deal and play streams both times
(deal ``h`` from ``derive_seed(seed, h, 0, STREAM_DEAL)``, dealer ``h % 2``). The rule's
gain on a deal is half the difference of seat 0's margins (its points less the other's)
in the two games; the table gives each rule's mean gain in points a hand against
``always`` with its 95% interval (normal, over deals), and the share of hands a side
declared. The rules (``policy_cirulla.DECLARE_*``): ``always``, ``never`` and ``tris``
(only three of a kind, 10 points). The loop is jitted here, uncached (a cached kernel
outside the engine package could keep stale machine code).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

from scopa_sim import Rules
from scopa_sim import _engine as K
from scopa_sim._engine import policy_cirulla as KC

RULES = {"always": KC.DECLARE_ALWAYS, "never": KC.DECLARE_NEVER, "tris": KC.DECLARE_TRIS}


@njit
def duel(r, seed, count, rule_a, rule_b, out, declared):  # pragma: no cover - jitted
    """``out[h, g]``: seat 0's margin in game ``g`` of deal ``h`` (game 0: ``rule_a`` at
    seat 0, ``rule_b`` at seat 1; game 1 swapped); ``declared[h, g]``: the points seat 0's
    side declared."""
    deck = np.empty(40, dtype=np.int64)
    voids = np.empty(16, dtype=np.int64)
    state = np.zeros(K.N_STATE, dtype=np.int64)
    rng = np.zeros(K.RNG_WORDS, dtype=np.uint64)
    bc = np.empty(K.MAX_PLAYS, dtype=np.int64)
    btk = np.empty(K.MAX_PLAYS, dtype=np.int64)
    bmt = np.empty(K.MAX_PLAYS, dtype=np.int64)
    sc = np.empty(K.SCRATCH, dtype=np.int64)
    vals = np.empty(K.MAX_PLAYS, dtype=np.int64)
    xs = np.empty(K.EXPERT_SCRATCH)
    bt = np.empty(K.MAX_PLAYS, dtype=np.int64)
    bm = np.empty(K.MAX_PLAYS, dtype=np.int64)
    score = np.zeros((4, K.N_ITEMS_CIRULLA), dtype=np.int64)
    for h in range(count):
        for g in range(2):
            K.reseed(rng, K.derive_seed(seed, h, 0, K.STREAM_DEAL))
            nv = K.shuffle_deal_cirulla(r, rng, deck, voids)
            K.start_hand_cirulla(state, r, deck, h % 2, nv)
            K.reseed(rng, K.derive_seed(seed, h, 0, K.STREAM_PLAY))
            while not state[K.S_DONE]:
                n = K.legal_plays_cirulla(state, r, bc, btk, bmt, sc)
                seat = state[K.S_TURN]
                rule = rule_a if (seat == 0) == (g == 0) else rule_b
                i = K.choose_cirulla(state, r, K.POLICY_EXPERT, rng, bc, btk, bmt, n, rule, vals,
                                     xs, bt, bm, sc)  # fmt: skip
                K.apply_play_cirulla(state, r, bc[i], btk[i], bmt[i])
            K.score_state_cirulla(state, r, score)
            out[h, g] = score[0, K.I_TOTAL] - score[1, K.I_TOTAL]
            declared[h, g] = state[K.S_DECLARED]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--preset", default="cirulla")
    ap.add_argument("--rule", action="append", default=[], metavar="OPTION=VALUE")
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    try:
        rules = Rules.make(a.preset, dict(x.split("=", 1) for x in a.rule))
    except Exception as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if rules.capture_mode != "cirulla" or rules.players != 2:
        print("error: a two-player Cirulla rule set is needed", file=sys.stderr)
        return 2
    r = rules._packed
    results = {}
    print(f"{a.preset} {' '.join(a.rule)}: {a.hands:,} duplicate deals, seed {a.seed}")
    print(f"{'rule':8} {'gain vs always (points/hand)':>30} {'declared (pts/hand)':>20}")
    for name in ("never", "tris"):
        out = np.zeros((a.hands, 2), dtype=np.int64)
        dec = np.zeros((a.hands, 2), dtype=np.int64)
        t = time.process_time()
        duel(r, np.uint64(a.seed), a.hands, RULES[name], KC.DECLARE_ALWAYS, out, dec)
        gain = (out[:, 0] - out[:, 1]) / 2.0
        mean = float(gain.mean())
        half = 1.96 * float(gain.std(ddof=1)) / math.sqrt(a.hands)
        results[name] = {
            "gain": mean,
            "ci95": [mean - half, mean + half],
            "declared_points_rule": float(dec[:, 0].mean()),
            "declared_points_always": float(dec[:, 1].mean()),
            "cpu_seconds": time.process_time() - t,
        }
        print(
            f"{name:8} {mean:+12.3f} [{mean - half:+.3f}, {mean + half:+.3f}]"
            f" {dec[:, 0].mean():9.3f} vs {dec[:, 1].mean():.3f}"
        )
    if a.json:
        doc = {"preset": a.preset, "rules": a.rule, "hands": a.hands, "seed": a.seed}
        doc |= {"baseline": "always", "results": results}
        a.json.write_text(json.dumps(doc, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
