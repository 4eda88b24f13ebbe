"""What one seat knows about a hand in progress, and worlds consistent with it.

In Scopa every played card is public: the table and every side's pile are seen by all,
so a seat's information is its own hand plus public facts (the piles, scope counts, the
size of each other hand and of the stock, whose turn it is, the dealer, the number of
plays made, the last capturer, and the match totals before the hand).  The cards it
cannot see -- the other hands and the stock -- are exactly the cards in play minus its
hand, the table and the piles, and any split of them into hands of the right sizes and
a stock is possible.

:class:`InfoSet` keeps only that knowledge: it is built from the true state but stores
the *canonical world* of the information set (unseen cards dealt in card order), so
nothing downstream can read the true hidden cards.  :meth:`InfoSet.sample` deals the
unseen cards uniformly at random (the jitted :func:`scopa_sim._engine.determinize.determinize`).

The information state is a summary, not the full history of plays: who laid a card
that was captured later is not in it.  Under uniform sampling the summary decides the
set of possible worlds, which is all the searches here use.
"""

from __future__ import annotations

import numpy as np

from scopa_sim import _engine as K
from scopa_sim._engine import determinize as KD
from scopa_sim.game.cards import CardSet
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import HandState, PublicView


def _seed_of(rng: np.random.Generator | int) -> int:
    if isinstance(rng, np.random.Generator):
        return int(rng.integers(0, 2**63 - 1))
    return int(rng)


class InfoSet(PublicView):
    """The information set of ``seat`` (default: the seat to play) at ``state``."""

    __slots__ = ("_r", "_vec", "match_totals", "rules", "seat")

    def __init__(self, state: HandState, seat: int | None = None) -> None:
        seat = state.turn if seat is None else seat
        if not 0 <= seat < state.players:
            raise ValueError(f"seat must be 0..{state.players - 1}, got {seat}")
        self.rules: Rules = state.rules
        self.seat = seat
        #: each side's match points before this hand (public)
        self.match_totals: tuple[int, ...] = state.match_totals
        self._r = state._r
        self._vec = np.empty(K.N_STATE, dtype=np.int64)
        KD.canonical_world(state._vec, self._r, seat, self._vec)

    # -- knowledge --------------------------------------------------------------------
    @property
    def vector(self) -> np.ndarray:
        """A state vector of one world of this information set (the canonical one); its
        hidden cards say nothing about the true ones. Do not modify."""
        return self._vec

    @property
    def hand(self) -> CardSet:
        return CardSet(int(self._vec[K.S_HANDS + self.seat]))

    @property
    def hand_sizes(self) -> list[int]:
        """Cards held by each seat."""
        return [int(self._vec[K.S_HANDS + s]).bit_count() for s in range(self.rules.players)]

    @property
    def stock_size(self) -> int:
        return int(self._vec[K.S_DECK_SIZE] - self._vec[K.S_STOCK])

    @property
    def in_play(self) -> CardSet:
        """Every card of this hand (the whole deck, unless built from a partial position)."""
        size = int(self._vec[K.S_DECK_SIZE])
        return CardSet([int(c) for c in self._vec[K.S_DECK : K.S_DECK + size]])

    @property
    def unseen(self) -> CardSet:
        """The cards this seat cannot see: the other hands and the stock."""
        seen = self.hand | self.table
        for p in self.piles:
            seen |= p
        return self.in_play - seen

    def information_state_string(self) -> str:
        """Canonical text of what the seat knows; equal strings mean equal knowledge."""
        out = self.rules.deck - len(self.in_play)
        piles = " | ".join(str(p) or "-" for p in self.piles)
        last = self.last_capturer
        return (
            f"seat={self.seat} turn={self.turn} dealer={self.dealer} plays={self.plays_made} "
            f"hand=[{self.hand}] table=[{self.table}] piles=[{piles}] "
            f"scope={self.scope} last_capturer={'-' if last is None else last} "
            f"hand_sizes={self.hand_sizes} stock={self.stock_size}"
            + (
                f" out_of_play=[{CardSet(int(self._r[K.R_DECK_MASK])) - self.in_play}]"
                if out
                else ""
            )
            + (" over" if self.is_over else "")
            + (f" match={'-'.join(map(str, self.match_totals))}" if any(self.match_totals) else "")
        )

    # -- worlds -----------------------------------------------------------------------
    def sample(self, rng: np.random.Generator | int) -> HandState:
        """A world drawn uniformly from this information set (a full :class:`HandState`):
        the unseen cards dealt at random to the other hands, by their sizes, and to the
        stock.  ``rng`` is a numpy Generator or an integer seed."""
        g = K.new_rng(K.derive_seed(_seed_of(rng), 9, self.seat, 0))
        vec = np.empty(K.N_STATE, dtype=np.int64)
        KD.determinize(self._vec, self._r, self.seat, g, vec)
        return HandState(self.rules, vec, match_totals=self.match_totals)

    def __repr__(self) -> str:
        return f"<InfoSet {self.information_state_string()}>"
