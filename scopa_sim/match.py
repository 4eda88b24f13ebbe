"""Matches: hands dealt in turn until a side reaches the target (RULES.md §6).

Randomness is derived from (run seed, match, hand): the deck of hand ``h`` of
match ``m`` is shuffled from its own stream (so variants and policies sharing a
seed see the same decks), and the plays draw from a second stream.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from . import _kernels as K
from .cards import DENARI_MASK, Card
from .policy import PolicySpec
from .rules import Rules

#: Stream numbers of :func:`_kernels.derive_seed`.
STREAM_DEAL = 0
STREAM_PLAY = 1
STREAM_DEALER = 2
MAX_HANDS_PER_MATCH = 10_000


@dataclass(frozen=True)
class HandLog:
    """Everything that happened in one hand, enough to write its game record."""

    match: int
    hand: int
    dealer: int
    deck: tuple[Card, ...]  # accepted deck order, in the canonical dealing layout
    plays: tuple[tuple[int, Card, int], ...]  # (seat, card, take mask)
    score: tuple[tuple[int, ...], ...]  # [side][item] in SCORE_ITEMS order
    piles: tuple[int, ...]  # captured masks per side, remainder included
    totals_before: tuple[int, ...]
    totals_after: tuple[int, ...]
    winner: int | None


def first_dealer(seed: int, match: int, players: int) -> int:
    """The first dealer of a match, drawn from the match's own stream."""
    rng = np.array([K.derive_seed(seed, match, 0, STREAM_DEALER)], dtype=np.uint64)
    return int(K.rand_below(rng, players))


def match_winner(rules: Rules, totals: Sequence[int], piles: Sequence[int]) -> int | None:
    """The side that wins after a hand with these totals and final piles, or None."""
    if rules.napola and rules.napola_all_denari_wins:
        for side, pile in enumerate(piles):
            if pile & DENARI_MASK == DENARI_MASK:
                return side
    top = max(totals)
    if top < rules.target:
        return None
    leaders = [s for s, t in enumerate(totals) if t == top]
    return leaders[0] if len(leaders) == 1 else None


def play_match(
    rules: Rules,
    policies: Sequence[PolicySpec],
    seed: int,
    match: int,
    dealer: int | None = None,
) -> Iterator[HandLog]:
    """Play match ``match`` of a run to its end, yielding each hand as it is scored."""
    r = rules.to_array()
    n, sides = rules.players, rules.sides
    codes = np.array([p.code for p in policies] + [0] * (4 - len(policies)), dtype=np.int64)
    dealer = first_dealer(seed, match, n) if dealer is None else dealer
    state = np.zeros(K.N_STATE, dtype=np.int64)
    deck = np.empty(40, dtype=np.int64)
    buf_card = np.empty(K.MAX_PLAYS, dtype=np.int64)
    buf_take = np.empty(K.MAX_PLAYS, dtype=np.int64)
    scratch = np.empty(K.SCRATCH, dtype=np.int64)
    log_card = np.empty(40, dtype=np.int64)
    log_take = np.empty(40, dtype=np.int64)
    score = np.zeros((4, K.N_ITEMS), dtype=np.int64)
    rng = np.zeros(1, dtype=np.uint64)
    totals = [0] * sides
    for hand in range(MAX_HANDS_PER_MATCH):
        rng[0] = K.derive_seed(seed, match, hand, STREAM_DEAL)
        K.shuffle_deal(r, rng, deck)
        K.start_hand(state, r, deck, dealer)
        rng[0] = K.derive_seed(seed, match, hand, STREAM_PLAY)
        made = K.play_out(state, r, codes, rng, buf_card, buf_take, scratch, log_card, log_take)
        K.score_state(state, r, score)
        first = (dealer + 1) % n
        plays = tuple(
            ((first + i) % n, int(log_card[i]), int(log_take[i])) for i in range(int(made))
        )
        before = tuple(totals)
        totals = [t + int(score[s, K.I_TOTAL]) for s, t in enumerate(totals)]
        piles = tuple(int(state[K.S_PILES + s]) for s in range(sides))
        winner = match_winner(rules, totals, piles)
        yield HandLog(
            match=match,
            hand=hand,
            dealer=dealer,
            deck=tuple(int(c) for c in deck[: rules.deck]),
            plays=plays,
            score=tuple(tuple(int(x) for x in score[s]) for s in range(sides)),
            piles=piles,
            totals_before=before,
            totals_after=tuple(totals),
            winner=winner,
        )
        if winner is not None:
            return
        dealer = (dealer + 1) % n
    raise RuntimeError(f"match {match} did not end within {MAX_HANDS_PER_MATCH} hands")
