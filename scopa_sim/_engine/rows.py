"""Kernels of whole ``--hands`` runs outside the fused loop: each hand's dataset row
through the step kernels, dealt as is or swapped (the duplicate deals of
:mod:`scopa_sim.duplicate`), and the deal features of the control variates
(:mod:`scopa_sim.variance`).

They live in the engine package, not beside their Python wrappers, because they call
the step kernels and read the layouts: numba keys a cached kernel on its own file only,
so a kernel outside the package would keep stale machine code (an old state layout,
say) after an engine change; the package-wide stamp (:mod:`scopa_sim._engine`) drops
these with the rest.  ``tests/test_engine.py`` checks that no cached kernel outside the
package uses it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .layout import (
    C_DEALER,
    C_FIRST,
    C_HAND,
    C_ITEMS,
    C_MATCH,
    C_PLAYS,
    C_REDEALS,
    C_STATS,
    C_TOTALS,
    C_WINNER,
    I_TOTAL,
    MAX_PLAYS,
    N_ITEMS,
    N_STATE,
    R_DECK,
    R_PLAYERS,
    R_SIDES,
    S_PILES,
    SCRATCH,
    STREAM_DEAL,
    STREAM_PLAY,
)
from .scoring import side_stats
from .step import play_out, score_state, start_hand
from .streams import RNG_WORDS, derive_seed, reseed, shuffle_deal

__all__ = ["deal_feature_counts", "step_rows"]


@njit(cache=True, nogil=True)
def step_rows(rules, policies, seed, first, count, perm, swap, out):
    """Hands ``first .. first + count - 1`` of a ``--hands`` run with kernel policies
    ``policies``, played through the step kernels, as ``fused_rows`` rows in ``out[:,
    i]`` (``C_MATCH`` = offset from ``first``); with ``swap`` each hand is dealt in the
    deck order ``deck[perm[j]]`` instead (its duplicate), the same streams otherwise."""
    players = rules[R_PLAYERS]
    ns = rules[R_SIDES]
    size = rules[R_DECK]
    deck = np.empty(40, dtype=np.int64)
    dealt = np.empty(40, dtype=np.int64)
    state = np.zeros(N_STATE, dtype=np.int64)
    rng = np.zeros(RNG_WORDS, dtype=np.uint64)
    buf_card = np.empty(MAX_PLAYS, dtype=np.int64)
    buf_take = np.empty(MAX_PLAYS, dtype=np.int64)
    scratch = np.empty(SCRATCH, dtype=np.int64)
    log_card = np.empty(40, dtype=np.int64)
    log_take = np.empty(40, dtype=np.int64)
    score = np.zeros((4, N_ITEMS), dtype=np.int64)
    for i in range(count):
        u = first + i
        reseed(rng, derive_seed(seed, u, 0, STREAM_DEAL))
        redeals = shuffle_deal(rules, rng, deck)
        for j in range(size):
            dealt[j] = deck[perm[j]] if swap else deck[j]
        dealer = u % players
        start_hand(state, rules, dealt, dealer)
        reseed(rng, derive_seed(seed, u, 0, STREAM_PLAY))
        made = play_out(
            state, rules, policies, rng, buf_card, buf_take, scratch, log_card, log_take
        )
        score_state(state, rules, score)
        out[C_MATCH, i] = i
        out[C_HAND, i] = 0
        out[C_DEALER, i] = dealer
        out[C_FIRST, i] = (dealer + 1) % players
        out[C_REDEALS, i] = redeals
        out[C_PLAYS, i] = made
        for s in range(ns):
            p = state[S_PILES + s]
            for k in range(N_ITEMS):
                out[C_ITEMS + s * N_ITEMS + k, i] = score[s, k]
            stats = side_stats(p)
            for k in range(4):
                out[C_STATS + 4 * s + k, i] = stats[k]
            out[C_TOTALS + s, i] = score[s, I_TOTAL]
        out[C_WINNER, i] = -1


@njit(cache=True, nogil=True)
def deal_feature_counts(rules, seed, first, count, role, masks, out):
    """For hands ``first .. first + count - 1`` of a ``--hands`` run: ``out[i, f]`` = the
    sum of ``role[j]`` over the deck positions ``j`` whose card is in ``masks[f]`` (+1 for
    a card dealt to the dealer's side, -1 to the first player's, 0 elsewhere)."""
    deck = np.empty(40, dtype=np.int64)
    rng = np.zeros(RNG_WORDS, dtype=np.uint64)
    size = rules[R_DECK]
    for i in range(count):
        reseed(rng, derive_seed(seed, first + i, 0, STREAM_DEAL))
        shuffle_deal(rules, rng, deck)
        for f in range(masks.shape[0]):
            out[i, f] = 0
        for j in range(size):
            if role[j] != 0:
                c = deck[j]
                for f in range(masks.shape[0]):
                    if (masks[f] >> c) & 1:
                        out[i, f] += role[j]
