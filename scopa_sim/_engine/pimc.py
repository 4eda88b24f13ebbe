"""Perfect-information Monte Carlo: every legal play valued by the solver in sampled
worlds (:func:`pimc_values`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .determinize import draw_world
from .layout import (
    MAX_PLAYS,
    N_STATE,
    R_TOTAL_PLAYS,
    S_PLAYS,
    S_TURN,
)
from .solver import FULL_DEPTH, N_INFO, V_LEAF, V_SALT, V_TT_MASK, solve_world, workspace
from .streams import RNG_WORDS, derive_seed, reseed
from .values import LEAF_ESTIMATE


@njit(cache=True, nogil=True)
def pimc_values(
    state, rules, worlds, depth, exact_below, seed, tt_key, tt_val, tt_meta, out_card,
    out_take, out_val, leaf=LEAF_ESTIMATE, eq=None, parts=None, cum=None,
):  # fmt: skip
    """Perfect-information Monte Carlo: ``out_val[w, i]`` is the value of legal play ``i``
    (see :func:`solve_root`) in world ``w``, a determinization of ``state`` for the seat
    to play drawn from the stream ``derive_seed(seed, 3, w, 0)`` (:func:`draw_world`:
    uniform, or from the belief particles ``parts``/``cum`` when given).  Each world is
    solved exactly when at most ``exact_below`` cards are left to play, else to
    ``depth`` plies with the heuristic leaf value ``leaf`` (``LEAF_*``); with ``eq`` (an
    empty array: none) the values are the match objective's (:func:`solve_root`).
    Returns the number of plays."""
    e = np.empty(0) if eq is None else eq
    if parts is None:
        bparts = np.empty((0, 4), dtype=np.int64)
        bcum = np.empty(0)
    else:
        bparts = parts
        bcum = cum
    seat = state[S_TURN]
    world = np.empty(N_STATE, dtype=np.int64)
    rng = np.zeros(RNG_WORDS, dtype=np.uint64)
    info = np.zeros(N_INFO, dtype=np.int64)
    info[V_TT_MASK] = tt_key.shape[0] - 1
    info[V_LEAF] = leaf
    ws = workspace(state, rules)
    bc = ws[1]
    bt = ws[2]
    vals = np.empty(MAX_PLAYS, dtype=np.float64)
    left = rules[R_TOTAL_PLAYS] - state[S_PLAYS]
    d = FULL_DEPTH if left <= exact_below else depth
    n = 0
    for w in range(worlds):
        reseed(rng, derive_seed(seed, 3, w, 0))
        draw_world(state, rules, seat, rng, world, bparts, bcum)
        info[V_SALT] = np.int64(derive_seed(seed, 4, w, 0) >> np.uint64(1))
        n = solve_world(world, rules, d, tt_key, tt_val, tt_meta, info, ws, vals, e)
        for i in range(n):
            out_val[w, i] = vals[i]
            out_card[i] = bc[0, i]
            out_take[i] = bt[0, i]
    return n
