"""The expert's leaf value of a Cirulla position (RULES.md §10), for ``leaf=expert`` of the
Cirulla searches (:mod:`.solver_cirulla` at a depth limit, :mod:`.ismcts_cirulla` at a
horizon): :func:`.values.expert_leaf` with Cirulla's scoring.

The piles are valued as the Cirulla expert values them when it plays
(:func:`.policy_cirulla.expert_eval_cirulla`: the items of §5 by their leads, the
settebello, the grande's 5 and the piccola's run up to ``piccola_max`` by the chance that
their missing cards still come, the matta counted in the piles as the card it is), and
what is already scored is added: the scope so far and the points declared
(``S_DECLARED``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .layout import R_DECK, R_PICCOLA_MAX, R_SIDES, S_DECLARED, S_PILES, S_SCOPE
from .policy import expert_flags
from .policy_cirulla import expert_eval_cirulla
from .values import INF

__all__ = ["expert_leaf_cirulla"]


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
