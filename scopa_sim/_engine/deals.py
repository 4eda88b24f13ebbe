"""The deals of a run dealt again: the opening table and each seat's cards at each deal.

A run stores outcomes only, but every deck is fixed by ``(seed, match, hand)``: the
deal stream ``derive_seed(seed, match, hand, STREAM_DEAL)`` shuffles it (again while
the kings rule asks for a redeal), exactly as the fused loop, the step kernels and
``play`` do. :func:`deal_masks` repeats that shuffle for any rows of a run and writes
who got which cards, as 40-bit masks, without storing anything: a deal costs about
one Fisher-Yates shuffle. Swapped deals (the duplicates, ``deal="swapped"``) permute
the accepted deck with ``perm`` as :func:`.rows.step_rows` does; the rounds follow
:func:`.step.deal_round` (from the seat after the dealer, ``hand_size`` cards each, a
short last round of ``left // players``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .layout import (
    R_DECK,
    R_HAND_SIZE,
    R_PLAYERS,
    R_TABLE_CARDS,
    STREAM_DEAL,
)
from .streams import _shuffle_deal, seed_finish, seed_prefix

__all__ = ["deal_masks"]


@njit(cache=True, nogil=True)
def deal_masks(rules, seed, matches, hands, dealers, perm, swap, out):
    """For each row ``i`` (hand ``hands[i]`` of match ``matches[i]``, dealt by seat
    ``dealers[i]``): ``out[i, 0]`` = the opening table's mask and ``out[i, 1 + r *
    players + seat]`` = the cards ``seat`` was dealt at deal ``r`` (``r`` = 0 .. ``rounds
    - 1``, where ``rounds = (out.shape[1] - 1) // players``; 0 for a round the hand has
    not). With ``swap`` the accepted deck is dealt in the order ``deck[perm[j]]`` (its
    duplicate). Same shuffle, redeals and dealing order as the fused loop."""
    players = rules[R_PLAYERS]
    size = rules[R_DECK]
    hand_size = rules[R_HAND_SIZE]
    table_cards = rules[R_TABLE_CARDS]
    rounds = (out.shape[1] - 1) // players
    deck = np.empty(40, dtype=np.int64)
    dealt = np.empty(40, dtype=np.int64)
    one = np.int64(1)
    for i in range(matches.shape[0]):
        z = seed_finish(seed_prefix(seed, matches[i], hands[i]), STREAM_DEAL)
        _shuffle_deal(rules, z, deck)  # the shuffle and the kings redeal, as the game deals
        for j in range(size):
            dealt[j] = deck[perm[j]] if swap else deck[j]
        t = np.int64(0)
        for j in range(table_cards):
            t |= one << dealt[j]
        out[i, 0] = t
        pos = table_cards
        seat = dealers[i] + 1
        if seat >= players:
            seat = 0
        for r in range(rounds):
            left = size - pos
            k = hand_size if left >= players * hand_size else left // players
            for p in range(players):
                m = np.int64(0)
                for _ in range(k):
                    m |= one << dealt[pos]
                    pos += 1
                s = seat + p
                if s >= players:
                    s -= players
                out[i, 1 + r * players + s] = m
