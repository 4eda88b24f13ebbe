"""The deals of a run dealt again: the opening table and each seat's cards at each deal.

A run stores outcomes only, but every deck is fixed by ``(seed, match, hand)``: the
deal stream ``derive_seed(seed, match, hand, STREAM_DEAL)`` shuffles it (again while
the kings rule asks for a redeal), exactly as the fused loop, the step kernels and
``play`` do. :func:`deal_masks` repeats that shuffle for any rows of a run and writes
who got which cards, as 40-bit masks, without storing anything: a deal costs about
one Fisher-Yates shuffle. Swapped deals (the duplicates, ``deal="swapped"``) permute
the accepted deck with ``perm`` as :func:`.rows.step_rows` does. The rounds are dealt
by :func:`deal_round_cards` (from the seat after the dealer, ``hand_size`` cards each, a
short last round of ``left // players``), the one routine every loop deals with;
:func:`deal_order` lays its order out for Python code.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import ctz
from .layout import (
    R_DECK,
    R_HAND_SIZE,
    R_PLAYERS,
    R_TABLE_CARDS,
    STREAM_DEAL,
)
from .streams import _shuffle_deal, seed_finish, seed_prefix

__all__ = ["deal_masks", "deal_order", "deal_round_cards"]


@njit(cache=True, inline="always")
def deal_round_cards(deck, off, pos, end, hand_size, players, first, hands, base):
    """One round of a hand's deal, the dealing order of every loop: ``k`` cards to each
    seat in turn from seat ``first`` (the seat after the dealer) on, from the deck order
    ``deck[off + pos : off + end]`` (``end``: the number of cards in the deck), where ``k
    = hand_size``, or ``(end - pos) // players`` when fewer than ``players * hand_size``
    cards are left. Seat ``s``'s cards go as a mask to ``hands[base + s]``.

    Returns ``(pos, k)``, ``pos`` moved past the cards dealt; ``k = 0`` when too few cards
    are left to give every seat one (nothing is then written)."""
    k = hand_size
    if end - pos < players * k:
        k = (end - pos) // players
    if k <= 0:
        return pos, 0
    seat = first
    for _ in range(players):
        m = np.int64(0)
        for _i in range(k):
            m |= np.int64(1) << deck[off + pos]
            pos += 1
        hands[base + seat] = m
        seat += 1
        if seat == players:
            seat = 0
    return pos, k


@njit(cache=True)
def deal_order(rules, out):
    """Where each card of an accepted deck order goes (``out``: int64, at least the deck's
    size): ``out[j] = -1`` when the card at position ``j`` opens the table, ``r * players
    + p`` when round ``r`` deals it to the ``p``-th seat after the dealer (``p = 0`` the
    first player, ``players - 1`` the dealer), ``-2`` when no round deals it; positions
    past the deck are left alone. Dealt by :func:`deal_round_cards`, as every loop deals.
    Returns the number of rounds."""
    players = rules[R_PLAYERS]
    size = rules[R_DECK]
    table_cards = rules[R_TABLE_CARDS]
    positions = np.arange(40, dtype=np.int64)  # a deck whose cards are their positions
    hands = np.zeros(4, dtype=np.int64)
    for j in range(size):
        out[j] = -1 if j < table_cards else -2
    pos = table_cards
    rounds = 0
    while True:
        pos, k = deal_round_cards(positions, 0, pos, size, rules[R_HAND_SIZE], players, 0,
                                  hands, 0)  # fmt: skip
        if k == 0:
            return rounds
        for p in range(players):
            m = hands[p]
            while m:
                out[ctz(m)] = rounds * players + p
                m &= m - 1
        rounds += 1


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
    got = np.zeros(4, dtype=np.int64)  # a round's cards, by seat
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
            pos, k = deal_round_cards(dealt, 0, pos, size, hand_size, players, seat, got, 0)
            for s in range(players):
                out[i, 1 + r * players + s] = got[s] if k else 0
