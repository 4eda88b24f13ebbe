"""The expert's leaf value of a Cirulla position (RULES.md §10), for ``leaf=expert`` of the
Cirulla searches (:mod:`.solver_cirulla` at a depth limit, :mod:`.ismcts_cirulla` at a
horizon): :func:`.values.expert_leaf` with Cirulla's scoring.

The piles are valued as the Cirulla expert values them when it plays
(:func:`.policy_cirulla.expert_eval_cirulla`: the items of §5 by their leads, the
settebello, the grande's 5 and the piccola's run up to ``piccola_max`` by the chance that
their missing cards still come, the matta counted in the piles as the card it is), and
what is already scored is added: the scope so far and the points declared
(``S_DECLARED``). :func:`leaf_samples_cirulla` gives the match leaf's calibration its
self-play data under Cirulla's rules.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .layout import (
    I_TOTAL,
    MAX_PLAYS,
    N_ITEMS_CIRULLA,
    N_STATE,
    R_DECK,
    R_PICCOLA_MAX,
    R_PLAYERS,
    R_SIDES,
    R_TOTAL_PLAYS,
    S_DECLARED,
    S_DONE,
    S_PILES,
    S_PLAYS,
    S_SCOPE,
    SCRATCH,
)
from .policy import EXPERT_SCRATCH, expert_flags
from .policy_cirulla import EXPERT_DECLARES, expert_eval_cirulla
from .step import (
    apply_play_cirulla,
    choose_cirulla,
    legal_plays_cirulla,
    score_state_cirulla,
    start_hand_cirulla,
)
from .streams import RNG_WORDS, derive_seed, reseed, shuffle_deal_cirulla
from .values import INF, estimate

__all__ = ["expert_leaf_cirulla", "leaf_samples_cirulla"]


@njit(cache=True)
def expert_leaf_cirulla(state, rules, side):
    """Heuristic margin of ``side`` in the Cirulla position ``state``: the expert's
    evaluation of its pile against each other side's (the rest of the piles as the
    others'), plus its scope and declared points less that side's; with three or four
    sides the worst of those margins (against the best other side), as
    :func:`.values.expert_margin`."""
    ns = rules[R_SIDES]
    xflags = expert_flags(rules)
    most = rules[R_PICCOLA_MAX]
    pm = state[S_PILES + side]
    worst = INF
    for t in range(ns):
        if t == side:
            continue
        others = np.int64(0)
        for q in range(ns):
            if q != side and q != t:
                others |= state[S_PILES + q]
        v = expert_eval_cirulla(pm, state[S_PILES + t], others, rules[R_DECK], xflags, most)
        v += state[S_SCOPE + side] - state[S_SCOPE + t]
        v += state[S_DECLARED + side] - state[S_DECLARED + t]
        if v < worst:
            worst = v
    return worst


@njit(cache=True)
def leaf_samples_cirulla(rules, policy, hands, seed, out_d, out_m):
    """:func:`.values.leaf_samples` under Cirulla's rules, for the match leaf's
    calibration (``match_leaf=calibrated``): ``hands`` hands (deck from
    ``derive_seed(seed, 17, h, 0)``, void deals dealt again, dealer ``h % players``)
    played by the Cirulla step ``policy`` at every seat (the expert declaring by
    :data:`.policy_cirulla.EXPERT_DECLARES`); ``out_d[h, p]`` is the margin side 0 - side
    1 that the Cirulla leaf starts from before play ``p`` (:func:`.values.estimate`'s
    points, scope so far included, plus the declared points) and ``out_m[h]`` the hand's
    final Cirulla margin (points, two sides)."""
    total = rules[R_TOTAL_PLAYS]
    rng = np.zeros(RNG_WORDS, dtype=np.uint64)
    cur = np.empty(N_STATE, dtype=np.int64)
    deck, voids = np.empty(40, dtype=np.int64), np.empty(8, dtype=np.int64)
    # the plays (cards, takes, metas), the policy's values and its own two buffers
    buf = np.empty((6, MAX_PLAYS), dtype=np.int64)
    bc, bt, bm, vals, bt2, bm2 = buf[0], buf[1], buf[2], buf[3], buf[4], buf[5]
    xs = np.empty(EXPERT_SCRATCH)
    sc = np.empty(SCRATCH, dtype=np.int64)
    score = np.zeros((4, N_ITEMS_CIRULLA), dtype=np.int64)
    work = np.zeros(16)
    for h in range(hands):
        reseed(rng, derive_seed(seed, 17, h, 0))
        voided = shuffle_deal_cirulla(rules, rng, deck, voids)
        start_hand_cirulla(cur, rules, deck, h % rules[R_PLAYERS], voided)
        while not cur[S_DONE]:
            p = cur[S_PLAYS]  # the plays made in the hand
            if p < total:
                estimate(cur, rules, 0, True, work)
                d0 = work[12] + cur[S_DECLARED]
                out_d[h, p] = d0 - (work[13] + cur[S_DECLARED + 1])
            n = legal_plays_cirulla(cur, rules, bc, bt, bm, sc)
            i = choose_cirulla(cur, rules, policy, rng, bc, bt, bm, n, EXPERT_DECLARES, vals,
                               xs, bt2, bm2, sc)  # fmt: skip
            apply_play_cirulla(cur, rules, bc[i], bt[i], bm[i])
        score_state_cirulla(cur, rules, score)
        out_m[h] = score[0, I_TOTAL] - score[1, I_TOTAL]
