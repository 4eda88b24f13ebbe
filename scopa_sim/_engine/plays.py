"""A position's plays for the jitted loops: counting, listing, the r-th one, and their
values for greedy and the expert, each written once.

The engine's order of plays (the order of :func:`.step.legal_plays`, which every
loop's random draws and tie-breaking follow): the cards of the hand from the lowest
bit up; for each card its captures in :func:`.capture.add_captures` order, then its
lay when it has no capture and a lay is allowed, or always with free lays
(``capture_compulsory=false``); under ``capture_rule=hand`` with compulsory captures,
no lay once any card captures.

A loop first counts the hand (:func:`count_hand`: each card and its number of
captures), then lists the plays (:func:`list_plays`), takes the ``r``-th one
(:func:`nth_play`, for a uniform draw without building the others), or walks them
card by card with :func:`card_plays` and :func:`take_at` (ISMCTS's hot loops: the
rollouts' scoring and the tree's expansion of an untried play, where listing first is
slower).  To score them it
reads the seat's view once per decision (:func:`seat_view`) and values each play with
:func:`play_value`; :func:`state_values` does both for a state vector (the step
kernels, the belief).  Every function here is inlined into its loop: the kernels that
inline those taking arrays compile with :data:`.pipeline.STEPS`, so the arrays cost no
reference counting.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import ctz, popcount
from .capture import count_captures, list_captures, pick_capture, value_sum
from .layout import (
    ACES,
    R_CAPTURE_FIFTEEN,
    R_DECK,
    R_DECK_MASK,
    R_HAND_SIZE,
    R_LAST_PLAY_SCOPA,
    R_PLAYERS,
    R_SIDES,
    R_TEAMS,
    R_TOTAL_PLAYS,
    S_DEALER,
    S_DECK_SIZE,
    S_HANDS,
    S_LAST_CAPTURER,
    S_PILES,
    S_PLAYS,
    S_STOCK,
    S_TABLE,
    S_TURN,
)
from .pipeline import STEPS
from .policy import (
    expert_flags,
    expert_play_value,
    expert_play_value15,
    expert_view,
    greedy_score,
    to_fixed,
)

__all__ = [
    "card_plays",
    "context_value",
    "count_hand",
    "list_plays",
    "nth_play",
    "play_value",
    "plays_of",
    "seat_view",
    "state_context",
    "state_values",
    "take_at",
]


@njit(cache=True, inline="always")
def plays_of(k, lay_ok, optional):
    """How many plays a card with ``k`` captures has: its captures, then its lay when it
    has none and a lay is allowed, or always when laying is free (``optional``)."""
    if k == 0 and not lay_ok:
        return 0
    return k + 1 if optional else max(k, 1)


@njit(cache=True, inline="always")
def card_plays(i, hc, kk, lay_ok, optional, big, table, sweep_aces, fewest, fifteen, bt, sc):
    """The ``i``-th card of a counted hand (:func:`count_hand`) and its plays: ``(card,
    k, p)``, its ``k`` captures and ``p`` plays (:func:`plays_of`), its captures listed
    into ``bt`` on a ``big`` table, ready for :func:`take_at`.  The one step every walk
    of a position's plays in the engine's order takes per hand card."""
    x = hc[i]
    k = kk[i]
    p = plays_of(k, lay_ok, optional)
    if big and k and p:
        list_captures(x, table, sweep_aces, fewest, fifteen, bt, sc)
    return x, k, p


@njit(cache=True, inline="always")
def take_at(card, j, k, big, table, packed, packed_hi, sweep_aces, fewest, fifteen, bt):
    """The cards taken by ``card``'s ``j``-th play when it has ``k`` captures: its
    ``j``-th capture for ``j < k`` (on a ``big`` table, from ``bt``, where
    :func:`.capture.list_captures` listed them), else its lay (0)."""
    if j >= k:
        return np.int64(0)
    if big:
        return bt[j]
    return pick_capture(card, j, table, packed, packed_hi, sweep_aces, fewest, fifteen)


@njit(cache=True, inline="always")
def count_hand(hand, table, packed, packed_hi, ace_rule, fewest, capture_hand, optional,
               fifteen, big_table, hc, kk, bt, sc):  # fmt: skip
    """Count the plays of ``hand`` at ``table``: its cards to ``hc`` and their numbers of
    captures to ``kk`` (from the packed counts, or listed to ``bt`` on a table of more
    than ``big_table`` cards); return ``(sweep_aces, big, nh, n, lay_ok)``: the aces an
    ace sweep takes, whether the table is big, the number of cards and of plays, and
    whether a lay is allowed."""
    sweep_aces = ACES if ace_rule and table != 0 and (table & ACES) == 0 else 0
    big = popcount(table) > big_table
    nh = 0
    caps = 0
    lays = 0
    m = hand
    while m:
        card = ctz(m)
        m &= m - 1
        if big:
            k = list_captures(card, table, sweep_aces, fewest, fifteen, bt, sc)
        else:
            k = count_captures(card, table, packed, packed_hi, sweep_aces, fewest, fifteen)
        hc[nh] = card
        kk[nh] = k
        nh += 1
        caps += k
        lays += k == 0
    lay_ok = optional or not (capture_hand and caps > 0)
    n = caps + (nh if optional else (lays if lay_ok else 0))
    return sweep_aces, big, nh, n, lay_ok


@njit(cache=True, inline="always")
def list_plays(hc, kk, nh, lay_ok, optional, big, table, packed, packed_hi, sweep_aces,
               fewest, fifteen, bt, sc, out_card, out_take):  # fmt: skip
    """Every play of a counted hand (:func:`count_hand`) in the engine's order, to
    ``out_card``/``out_take``; return their number."""
    n = 0
    for i in range(nh):
        x, k, p = card_plays(i, hc, kk, lay_ok, optional, big, table, sweep_aces, fewest,
                             fifteen, bt, sc)  # fmt: skip
        for j in range(p):
            out_card[n] = x
            out_take[n] = take_at(x, j, k, big, table, packed, packed_hi, sweep_aces, fewest,
                                  fifteen, bt)  # fmt: skip
            n += 1
    return n


@njit(cache=True, inline="always")
def nth_play(r, hc, kk, nh, lay_ok, optional, big, table, packed, packed_hi, sweep_aces,
             fewest, fifteen, bt, sc):  # fmt: skip
    """The ``r``-th play of a counted hand in the engine's order, built alone (the
    others are only counted): ``(card, take)``; ``(-1, 0)`` when there are ``r`` or
    fewer plays."""
    for i in range(nh):
        k = kk[i]
        p = plays_of(k, lay_ok, optional)
        if r < p:
            card = hc[i]
            if big and r < k:
                list_captures(card, table, sweep_aces, fewest, fifteen, bt, sc)
            return card, take_at(card, r, k, big, table, packed, packed_hi, sweep_aces,
                                 fewest, fifteen, bt)  # fmt: skip
        r -= p
    return -1, np.int64(0)


@njit(cache=True, inline="always")
def seat_view(vec, hands_at, piles_at, turn, hand, table, players, teams, ns, deck_mask,
              stock_left, hand_size, last_capturer, dealer, expert, fifteen):  # fmt: skip
    """What the seat to play reads of the position once per decision, for
    :func:`play_value`: ``(pm, po, others, unseen, kn, lc_rel, d_rel)``, the expert's
    view (:func:`.policy.expert_view`) when ``expert``, else only greedy's unseen
    cards under the fifteen rule (the deck less the hand, the table and the piles; its
    sweep risk), zeros otherwise.  ``vec`` holds the hands at ``hands_at + seat`` and
    the piles at ``piles_at + side``."""
    if expert:
        return expert_view(
            vec, hands_at, piles_at, turn, players, teams, ns, table, deck_mask, stock_left,
            hand_size, last_capturer, dealer,
        )  # fmt: skip
    unseen = np.int64(0)
    if fifteen:
        seen = hand | table
        for s in range(ns):
            seen |= vec[np.uint64(piles_at + s)]
        unseen = deck_mask & ~seen
    return np.int64(0), np.int64(0), np.int64(0), unseen, 0, 0, 0


@njit(cache=True, inline="always")
def play_value(card, take, hand, table, table_sum, not_last, lps, expert, fifteen, view,
               plays, total, size, xflags, two, xs):  # fmt: skip
    """A play's value for greedy (:func:`.policy.greedy_score`, half points) or, with
    ``expert``, the expert (:func:`.policy.expert_play_value`, fixed point,
    ``EXPERT_FIX`` a point), from the seat's ``view`` (:func:`seat_view`); ``two``: a
    two-player game, ``xs`` the expert's scratch."""
    pm, po, others, unseen, kn, lc_rel, d_rel = view
    if expert and fifteen:
        return to_fixed(expert_play_value15(
            card, take, hand, table, pm, po, others, unseen, kn, plays, total, lc_rel, d_rel,
            size, xflags, two, xs,
        ))  # fmt: skip
    if expert:
        return to_fixed(expert_play_value(
            card, take, hand, table, pm, po, others, unseen, kn, plays, total, lc_rel, d_rel,
            size, xflags, two, xs,
        ))  # fmt: skip
    return greedy_score(table, table_sum, not_last, lps, card, take, fifteen, unseen)


@njit(cache=True, inline="always")
def state_context(state, rules, expert):
    """What :func:`context_value` needs of the seat to play in ``state`` to value its
    plays, read once per decision: its hand, the table and its value sum, whether the
    play is not the hand's last, ``last_play_scopa``, the fifteen rule, the seat's view
    (:func:`seat_view`), the plays made and to make, the deck size, the expert's option
    bits and whether two play."""
    turn = state[S_TURN]
    hand = state[S_HANDS + turn]
    table = state[S_TABLE]
    players = rules[R_PLAYERS]
    fifteen = rules[R_CAPTURE_FIFTEEN] != 0
    view = seat_view(
        state, S_HANDS, S_PILES, turn, hand, table, players, rules[R_TEAMS] != 0,
        rules[R_SIDES], rules[R_DECK_MASK], state[S_DECK_SIZE] - state[S_STOCK],
        rules[R_HAND_SIZE], state[S_LAST_CAPTURER], state[S_DEALER], expert, fifteen,
    )  # fmt: skip
    plays = state[S_PLAYS]
    total = rules[R_TOTAL_PLAYS]
    return (
        hand, table, value_sum(table), plays + 1 < total, rules[R_LAST_PLAY_SCOPA] != 0,
        fifteen, view, plays, total, rules[R_DECK], expert_flags(rules), players == 2,
    )  # fmt: skip


@njit(cache=True, inline="always")
def context_value(ctx, expert, card, take, xs):
    """:func:`play_value` of the play ``(card, take)`` from a :func:`state_context`."""
    hand, table, table_sum, not_last, lps, fifteen, view, plays, total, size, xflags, two = ctx
    return play_value(card, take, hand, table, table_sum, not_last, lps, expert, fifteen, view,
                      plays, total, size, xflags, two, xs)  # fmt: skip


@njit(cache=True, pipeline_class=STEPS)
def state_values(state, rules, expert, cards, takes, n, xs, out):
    """The values (:func:`play_value`) of the ``n`` plays ``cards``/``takes`` for the seat
    to play in ``state``, the view read once; to ``out``."""
    ctx = state_context(state, rules, expert)
    for i in range(n):
        out[i] = context_value(ctx, expert, cards[i], takes[i], xs)
