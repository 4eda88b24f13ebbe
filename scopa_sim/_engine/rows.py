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

from collections.abc import Sequence

import numpy as np
from numba import njit

from .fused_cirulla import C_CIRULLA, N_ROW_COLS_CIRULLA
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
    I_GRANDE,
    I_TOTAL,
    MAX_PLAYS,
    N_ITEMS,
    N_ITEMS_CIRULLA,
    N_ROW_COLS,
    N_STATE,
    R_DECK,
    R_PLAYERS,
    R_SIDES,
    S_PILES,
    SCRATCH,
    STREAM_DEAL,
    STREAM_PLAY,
)
from .learned import play_out_model
from .scoring import side_stats
from .step import play_out, score_state, start_hand
from .streams import RNG_WORDS, derive_seed, reseed, shuffle_deal

__all__ = [
    "deal_feature_counts",
    "hand_row",
    "offset_row_matches",
    "row_dealers",
    "row_side_denari",
    "row_side_points",
    "step_rows",
]


@njit(cache=True, nogil=True)
def step_rows(rules, policies, model, seed, first, count, perm, swap, out):
    """Hands ``first .. first + count - 1`` of a ``--hands`` run with kernel policies
    ``policies`` (``model``: the learned policy's model vector, the empty vector where no
    seat plays it), played through the step kernels, as ``fused_rows`` rows in ``out[:,
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
        if model.shape[0]:
            made = play_out_model(state, rules, policies, model, rng, buf_card, buf_take,
                                  scratch, log_card, log_take)  # fmt: skip
        else:
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


# -- the row columns, for Python callers (sim, bots) ------------------------------------
def row_dealers(cols: np.ndarray) -> np.ndarray:
    """The dealer seat of each row of ``cols`` (rows as :func:`step_rows` and the fused
    loop write them, ``cols[column, row]``): a view of the ``C_DEALER`` column."""
    return cols[C_DEALER]


def row_side_points(cols: np.ndarray, side: int) -> np.ndarray:
    """Side ``side``'s points of the hand (its ``total`` score item) in each row of
    ``cols``: a view of that column (int32)."""
    return cols[C_ITEMS + side * N_ITEMS + I_TOTAL]


def row_side_denari(cols: np.ndarray, side: int) -> np.ndarray:
    """The denari in side ``side``'s final pile in each row of ``cols`` (the second of
    its ``C_STATS`` columns, :func:`scopa_sim._engine.scoring.side_stats`): a view."""
    return cols[C_STATS + 4 * side + 1]


def offset_row_matches(cols: np.ndarray, offset: int) -> None:
    """Add ``offset`` to the match number (``C_MATCH``) of every row of ``cols``, in
    place (rows computed from a later first unit, renumbered from an earlier one)."""
    cols[C_MATCH] += offset


def hand_row(
    *,
    match: int,
    hand: int,
    dealer: int,
    players: int,
    redeals: int,
    plays: int,
    score: Sequence[Sequence[int]],
    piles: Sequence[int],
    totals: Sequence[int],
    winner: int | None,
) -> np.ndarray:
    """One hand's row as the fused loop writes it (int32, ``N_ROW_COLS`` columns), from a
    hand played in Python: ``score[side]`` its score items (``I_*`` order; a Cirulla
    score's ``N_ITEMS_CIRULLA`` items give the Cirulla loop's row, ``N_ROW_COLS_CIRULLA``
    columns, with the grande, piccola and declarations at ``C_CIRULLA``), ``piles[side]``
    each side's final pile mask, ``totals[side]`` the match totals after it, ``winner``
    the side that won the match with it (None: none); the first player is the seat after
    the dealer among ``players``. ``score``, ``piles`` and ``totals`` hold one entry a
    side."""
    cirulla = any(len(items) == N_ITEMS_CIRULLA for items in score)
    row = np.zeros(N_ROW_COLS_CIRULLA if cirulla else N_ROW_COLS, dtype=np.int32)
    row[[C_MATCH, C_HAND, C_DEALER, C_FIRST, C_REDEALS, C_PLAYS]] = (
        match,
        hand,
        dealer,
        (dealer + 1) % players,
        redeals,
        plays,
    )
    for s, (items, pile, total) in enumerate(zip(score, piles, totals, strict=True)):
        row[C_ITEMS + s * N_ITEMS : C_ITEMS + (s + 1) * N_ITEMS] = items[:N_ITEMS]
        if cirulla:
            row[C_CIRULLA + 3 * s : C_CIRULLA + 3 * s + 3] = items[I_GRANDE : I_GRANDE + 3]
        row[C_STATS + 4 * s : C_STATS + 4 * s + 4] = side_stats(pile)
        row[C_TOTALS + s] = total
    row[C_WINNER] = -1 if winner is None else winner
    return row
