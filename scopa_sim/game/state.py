"""The Python API over the engine kernels: a hand in progress, its legal plays, scores.

``HandState`` wraps the kernels' int64 state vector.  It is cheap to clone,
supports ``push``/``pop`` like python-chess, and exposes legal plays as a lazy
view, so search code and tests read naturally.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from scopa_sim import _engine as K
from scopa_sim.errors import IllegalPlayError, RecordError, RulesError
from scopa_sim.game.cards import Card, CardSet, card_name
from scopa_sim.game.play import MATTA, Play
from scopa_sim.game.rules import CIRULLA_REFUSED, Rules

#: Score items in record order (``total`` last), as the kernels hold them (``I_*``).
SCORE_ITEMS: tuple[str, ...] = (
    "scope",
    "cards",
    "denari",
    "settebello",
    "primiera",
    "re_bello",
    "napola",
    "four_sevens",
    "total",
)


#: Cirulla's score items (RULES.md §10), after :data:`SCORE_ITEMS` in a Cirulla score
#: array (``K.I_GRANDE`` ..), before ``total`` in a record's order.
CIRULLA_ITEMS = ("grande", "piccola", "declarations")


def score_items(rules: Rules) -> tuple[str, ...]:
    """The score items a hand under ``rules`` has, in record order: every item of
    :data:`SCORE_ITEMS` but ``four_sevens`` without ``four_sevens_point`` (so records of
    rule sets without it stay as they were), and in Cirulla :data:`CIRULLA_ITEMS` before
    ``total``."""
    items = (
        SCORE_ITEMS
        if rules.four_sevens_point
        else tuple(i for i in SCORE_ITEMS if i != "four_sevens")
    )
    if rules.capture_mode == "cirulla":
        return (*items[:-1], *CIRULLA_ITEMS, "total")
    return items


def score_points(rows: Any) -> list[int]:
    """Each side's points of a hand (its ``total`` item) from its score rows
    ``rows[side]`` in :data:`SCORE_ITEMS` order (a :meth:`HandState.score_array`, or the
    tuples of a hand's log or record), as ints."""
    return [int(row[K.I_TOTAL]) for row in rows]


def score_dicts(rules: Rules, rows: Any) -> list[dict[str, int]]:
    """Score rows (``[side][item]`` in :data:`SCORE_ITEMS` order) as the objects of a
    record's ``score``: the items of :func:`score_items` by name."""
    names = score_items(rules)
    if rules.capture_mode == "cirulla":  # the score array's columns: SCORE_ITEMS, then these
        index = {name: i for i, name in enumerate((*SCORE_ITEMS, *CIRULLA_ITEMS))}
        return [{name: int(row[index[name]]) for name in names} for row in rows]
    return [
        {name: int(v) for name, v in zip(SCORE_ITEMS, row, strict=True) if name in names}
        for row in rows
    ]


@dataclass(frozen=True)
class PlayResult:
    """What a play did: whether it captured, scored a scopa, was an ace sweep or the last."""

    play: Play
    seat: int
    capture: bool
    scopa: bool
    ace_sweep: bool
    last: bool


class _Buffers:
    """Work arrays for legal-play generation, shared by a state and its clones."""

    __slots__ = ("card", "meta", "scratch", "take")

    def __init__(self) -> None:
        self.card = np.empty(K.MAX_PLAYS, dtype=np.int64)
        self.take = np.empty(K.MAX_PLAYS, dtype=np.int64)
        self.scratch = np.empty(K.SCRATCH, dtype=np.int64)
        self.meta: np.ndarray | None = None  # Cirulla's plays only, allocated on first use


class LegalPlays:
    """Lazy view of the legal plays of a state: iterate, ``len``, ``in``, ``bool``."""

    __slots__ = ("_plays", "_state")

    def __init__(self, state: HandState) -> None:
        self._state = state
        self._plays: list[Play] | None = None

    def _get(self) -> list[Play]:
        if self._plays is None:
            self._plays = self._state._generate()
        return self._plays

    def __iter__(self) -> Iterator[Play]:
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())

    def __bool__(self) -> bool:
        return bool(self._get())

    def __contains__(self, play: object) -> bool:
        return play in self._get()

    def __getitem__(self, i: int) -> Play:
        return self._get()[i]

    def __repr__(self) -> str:
        return f"<LegalPlays ({', '.join(str(p) for p in self._get())})>"


def _dealer_of_round(sizes: list[int], turn: int, dealer: int | None, stock: int) -> int:
    """Check that hand sizes can arise in a round of play and return the round's dealer.

    From the seat to play onwards, seats that have not played yet this round hold
    ``k`` cards and those that have hold ``k - 1``; the dealer plays last.
    """
    n = len(sizes)
    order = [sizes[(turn + i) % n] for i in range(n)]
    k = order[0]
    if not any(sizes):
        if stock:
            raise ValueError("every hand is empty but cards are left to deal")
        return (turn - 1) % n if dealer is None else dealer
    if k == 0:
        raise ValueError("the seat to play holds no card")
    waiting = 1
    while waiting < n and order[waiting] == k:
        waiting += 1
    if any(x != k - 1 for x in order[waiting:]):
        raise ValueError(
            f"hand sizes {sizes} cannot occur with seat {turn} to play: seats still to play "
            "this round hold one card more than those that have played"
        )
    if stock % n:
        raise ValueError(f"a stock of {stock} cards cannot be shared among {n} players")
    inferred = (turn + waiting - 1) % n
    if dealer is None:
        return inferred
    if stock and dealer != inferred:
        # The dealer's seat decides who leads the next rounds; in the last round only
        # remainder_to=dealer reads it, so any seat is accepted there.
        raise ValueError(
            f"with these hand sizes and cards left to deal, the dealer (last to play "
            f"in a round) is seat {inferred}, not {dealer}"
        )
    return dealer


def check_match_totals(rules: Rules, totals: Sequence[int] | None) -> tuple[int, ...]:
    """Validated match totals before a hand: one count of points >= 0 per side, of a match
    still on (no side alone at or past the target)."""
    if totals is None:
        return (0,) * rules.sides
    out = tuple(totals)
    if len(out) != rules.sides or not all(
        isinstance(t, (int, np.integer)) and not isinstance(t, bool) and t >= 0 for t in out
    ):
        raise ValueError(
            f"match totals must be {rules.sides} whole numbers >= 0 (one per side), got {totals}"
        )
    top = max(out)
    if top >= rules.target and out.count(top) == 1:
        raise ValueError(
            f"match totals {list(out)}: side {out.index(top)} has already won the match to "
            f"{rules.target}, so no hand is played from them (a tie at the top plays on)"
        )
    return tuple(int(t) for t in out)


class PublicView:
    """What every seat sees of a kernel state vector: the table, the piles, the scope,
    whose turn it is. Shared by :class:`HandState` and
    :class:`~scopa_sim.game.infoset.InfoSet`, which both keep one (``_vec``)."""

    __slots__ = ()
    rules: Rules
    _vec: np.ndarray

    @property
    def turn(self) -> int:
        """The seat to play."""
        return int(self._vec[K.S_TURN])

    @property
    def dealer(self) -> int:
        return int(self._vec[K.S_DEALER])

    @property
    def table(self) -> CardSet:
        return CardSet(int(self._vec[K.S_TABLE]))

    @property
    def piles(self) -> list[CardSet]:
        """Captured cards per side."""
        return [CardSet(int(self._vec[K.S_PILES + s])) for s in range(self.rules.sides)]

    @property
    def pile_masks(self) -> tuple[int, ...]:
        """Captured cards per side as card masks (:attr:`piles` as ints, as a hand's log
        and record hold them)."""
        vec = self._vec
        return tuple(int(vec[K.S_PILES + s]) for s in range(self.rules.sides))

    @property
    def scope(self) -> list[int]:
        """Scope per side."""
        return [int(self._vec[K.S_SCOPE + s]) for s in range(self.rules.sides)]

    @property
    def plays_made(self) -> int:
        return int(self._vec[K.S_PLAYS])

    @property
    def is_over(self) -> bool:
        """True once the last card is played and the table remainder assigned (a
        property, as :attr:`turn` and :attr:`legal_plays` are: ``while not s.is_over:``)."""
        return bool(self._vec[K.S_DONE])

    @property
    def last_capturer(self) -> int | None:
        """The side that captured last (it takes the remainder), or None."""
        side = int(self._vec[K.S_LAST_CAPTURER])
        return None if side < 0 else side

    @property
    def evidence(self) -> list[int]:
        """Each seat's public evidence about its hand, a 10-bit mask per seat: bit ``v - 1``
        set when the seat laid a card, since its last deal, on a non-empty table where a
        card of value ``v`` would have captured (:func:`scopa_sim._engine.step.lay_evidence`;
        read by the learned models of the evidence layout). All 0 under Cirulla's rules and
        in a state built from a position rather than played from its deal."""
        return [int(self._vec[K.S_EVIDENCE + s]) for s in range(self.rules.players)]


class HandState(PublicView):
    """One hand (a deal of the whole deck) in progress.

    Build with :meth:`deal` (from a seed or a deck order) or :meth:`from_deals`
    (explicit cards, as in a game record) or :meth:`from_position` (an arbitrary
    mid-hand position, for analysis).

    ``match_totals`` are each side's match points before this hand (public, like the
    dealer; default 0 each: the first hand of a match). Nothing in the hand depends on
    them; a bot playing for the match (``objective=match``) reads them.

    What the state holds is read through properties (:attr:`turn`, :attr:`table`,
    :attr:`legal_plays`, :attr:`is_over`, :attr:`plays_left`, ...): ``while not
    s.is_over:`` plays a hand out. Methods take an argument (:meth:`hand`,
    :meth:`is_legal`), change the state (:meth:`push`, :meth:`pop`) or make something new
    from it (:meth:`clone`, :meth:`score`, :meth:`score_array`). A property called by
    mistake (``s.is_over()``) raises ``TypeError`` rather than being always true.

    Cirulla (RULES.md §10) is played on its own step kernels: plays carry the matta's
    named value and the declaration (:class:`Play`), :attr:`declared`, :attr:`shown`,
    :attr:`opening_scope` and :attr:`voids` say what they did, and the score has the
    grande, the piccola and the declarations. Its state has no ``_r`` (the vector of
    every other kernel), so bots, searches and information sets refuse it in one line.
    """

    def __init__(
        self,
        rules: Rules,
        vec: np.ndarray,
        buffers: _Buffers | None = None,
        match_totals: Sequence[int] | None = None,
    ) -> None:
        self.rules = rules
        self._cirulla = rules.capture_mode == "cirulla"
        if self._cirulla:  # the Cirulla step kernels' vector; ``_r`` stays refused
            self._kr = rules._packed
        else:
            self._r = rules.to_array()
        self._vec = vec
        self._buf = buffers or _Buffers()
        self._stack: list[tuple[np.ndarray, Play]] = []
        self.match_totals = check_match_totals(rules, match_totals)

    if not TYPE_CHECKING:  # hidden from the type checker, which would otherwise take
        # every attribute of a state as valid

        def __getattr__(self, name: str) -> Any:
            """Only reached for an attribute the state lacks: a Cirulla state has no ``_r``,
            the vector every kernel but the Cirulla step kernels reads (bots, searches,
            information sets), so they refuse it in one line rather than play another game
            (RULES.md §10: only the step kernels play Cirulla so far)."""
            if name == "_r" and self.__dict__.get("_cirulla"):
                raise RulesError(CIRULLA_REFUSED)
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # -- construction -------------------------------------------------------------
    @classmethod
    def deal(
        cls,
        rules: Rules,
        *,
        dealer: int = 0,
        seed: int | None = None,
        deck: Sequence[Card] | None = None,
        match_totals: Sequence[int] | None = None,
    ) -> HandState:
        """A new hand dealt from ``deck`` (a full deck order) or shuffled from ``seed``
        (redealing while the kings rule asks for it), with the match's totals before it."""
        if not 0 <= dealer < rules.players:
            raise ValueError(f"dealer must be a seat 0..{rules.players - 1}, got {dealer}")
        if rules.capture_mode == "cirulla":
            return cls._deal_cirulla(rules, dealer, seed, deck, match_totals)
        r = rules.to_array()
        if deck is None:
            order = np.empty(40, dtype=np.int64)
            rng = K.new_rng(K.derive_seed(0 if seed is None else seed, 0, 0, 0))
            K.shuffle_deal(r, rng, order)
        else:
            order = np.zeros(40, dtype=np.int64)
            cards = list(deck)
            if len(cards) != rules.deck or CardSet(cards) != rules.deck_cards:
                raise ValueError(f"deck order must hold each of the {rules.deck} cards once")
            order[: len(cards)] = cards
        vec = np.zeros(K.N_STATE, dtype=np.int64)
        K.start_hand(vec, r, order, dealer)
        return cls(rules, vec, match_totals=match_totals)

    @classmethod
    def _deal_cirulla(
        cls,
        rules: Rules,
        dealer: int,
        seed: int | None,
        deck: Sequence[Card] | None,
        match_totals: Sequence[int] | None,
    ) -> HandState:
        """:meth:`deal` under Cirulla's rules (RULES.md §10): shuffled from ``seed`` again
        while the first table is void (two aces, three kings), the void deals counted
        (:attr:`voids`); then the opening count."""
        r = rules._packed
        order = np.zeros(40, dtype=np.int64)
        voids = 0
        if deck is None:
            rng = K.new_rng(K.derive_seed(0 if seed is None else seed, 0, 0, 0))
            voids = int(K.shuffle_deal_cirulla(r, rng, order, np.zeros(0, dtype=np.int64)))
        else:
            cards = list(deck)
            if len(cards) != rules.deck or CardSet(cards) != rules.deck_cards:
                raise ValueError(f"deck order must hold each of the {rules.deck} cards once")
            order[: len(cards)] = cards
        vec = np.zeros(K.N_STATE, dtype=np.int64)
        K.start_hand_cirulla(vec, r, order, dealer, voids)
        return cls(rules, vec, match_totals=match_totals)

    @classmethod
    def from_deals(
        cls,
        rules: Rules,
        dealer: int,
        table: Sequence[Card],
        deals: Sequence[Sequence[Sequence[Card]]],
        match_totals: Sequence[int] | None = None,
    ) -> HandState:
        """A hand from explicit deals (``deals[d][seat]``), in the record format's terms.

        The cards must be a partition of the deck and each deal must give every
        seat the number of cards the rules say; raises :class:`RecordError`.
        """
        n = rules.players
        if not 0 <= dealer < n:
            raise RecordError(f"dealer {dealer} is not a seat of a {n}-player game")
        if len(table) != rules.table_cards:
            raise RecordError(
                f"the table holds {len(table)} cards, the rules deal {rules.table_cards}"
            )
        order: list[Card] = list(table)
        left = rules.deck - rules.table_cards
        sizes = rules.deal_sizes
        for d, deal in enumerate(deals):
            if left == 0:
                raise RecordError(f"deal {d} comes after the whole deck was dealt")
            if len(deal) != n:
                raise RecordError(f"deal {d} has {len(deal)} hands for {n} players")
            k = sizes[d] if d < len(sizes) else 0
            for j in range(n):
                seat = (dealer + 1 + j) % n
                if len(deal[seat]) != k:
                    raise RecordError(
                        f"deal {d} gives seat {seat} {len(deal[seat])} cards, the rules say {k}"
                    )
                order.extend(deal[seat])
            left -= n * k
        if left:
            raise RecordError(f"the deals leave {left} cards of the deck undealt")
        deck_mask = rules.deck_mask
        seen = 0
        for c in order:
            if not (deck_mask >> c) & 1:
                raise RecordError(f"card {card_name(c)} is not in a {rules.deck}-card deck")
            if seen >> c & 1:
                raise RecordError(f"card {card_name(c)} is dealt twice")
            seen |= 1 << c
        if rules.kings_redeal and sum(1 for c in table if c % 10 == 9) >= 3:
            raise RecordError("the table holds three or more kings: the rules ask for a redeal")
        cirulla_aces = rules.capture_mode == "cirulla" and rules.aces_redeal
        if cirulla_aces and sum(1 for c in table if c % 10 == 0) >= 2:
            raise RecordError("the table holds two or more aces: the rules ask for a redeal")
        return cls.deal(rules, dealer=dealer, deck=order, match_totals=match_totals)

    @classmethod
    def from_position(
        cls,
        rules: Rules,
        *,
        hands: Sequence[CardSet],
        table: CardSet,
        piles: Sequence[CardSet] | None = None,
        scope: Sequence[int] | None = None,
        turn: int = 0,
        dealer: int | None = None,
        stock: Sequence[Card] = (),
        last_capturer: int | None = None,
        strict: bool = True,
        match_totals: Sequence[int] | None = None,
    ) -> HandState:
        """A position (for analysis): hands per seat, table, piles per side, the stock
        still to deal in dealing order. Cards must not repeat.

        With ``strict`` (the default) the hand sizes must be ones a round of play
        produces (seats still to play hold one card more than those that have
        played); ``strict=False`` accepts any sizes, to probe the legal plays of a
        hand and table, but such a state may reach a seat with no card to play.
        All hands empty and no stock is a finished hand (empty table required).
        """
        n = rules.players
        if len(hands) != n:
            raise ValueError(f"need {n} hands, got {len(hands)}")
        piles = list(piles) if piles is not None else [CardSet() for _ in range(rules.sides)]
        scope = list(scope) if scope is not None else [0] * rules.sides
        if len(piles) != rules.sides or len(scope) != rules.sides:
            raise ValueError(f"need {rules.sides} piles and scope counts")
        if not 0 <= turn < n:
            raise ValueError(f"turn must be a seat 0..{n - 1}, got {turn}")
        if dealer is not None and not 0 <= dealer < n:
            raise ValueError(f"dealer must be a seat 0..{n - 1}, got {dealer}")
        if last_capturer is not None and not 0 <= last_capturer < rules.sides:
            raise ValueError(f"last_capturer must be a side 0..{rules.sides - 1} or None")
        if any(x < 0 for x in scope):
            raise ValueError(f"scope counts cannot be negative: {scope}")
        if strict:
            dealer = _dealer_of_round([len(h) for h in hands], turn, dealer, len(stock))
        elif dealer is None:
            dealer = (turn - 1) % n
        finished = not any(hands) and not stock
        if finished and table:
            raise ValueError("a finished hand (no cards left to play) has an empty table")
        seen = 0
        for cs in [*hands, table, *piles, CardSet(list(stock))]:
            if seen & cs.mask:
                raise ValueError(f"cards given twice: {CardSet(seen & cs.mask)}")
            seen |= cs.mask
        foreign = seen & ~rules.deck_mask
        if foreign:
            raise ValueError(f"cards not in a {rules.deck}-card deck: {CardSet(foreign)}")
        vec = np.zeros(K.N_STATE, dtype=np.int64)
        for s, h in enumerate(hands):
            vec[K.S_HANDS + s] = h.mask
        vec[K.S_TABLE] = table.mask
        fifteen = rules.capture_mode in ("fifteen", "cirulla")  # sums up to 14 read
        vec[K.S_REACH] = K.table_reach(table.mask, fifteen)
        for s, p in enumerate(piles):
            vec[K.S_PILES + s] = p.mask
            vec[K.S_SCOPE + s] = scope[s]
        vec[K.S_LAST_CAPTURER] = -1 if last_capturer is None else last_capturer
        vec[K.S_TURN] = turn
        vec[K.S_DEALER] = dealer
        # Known cards first, so the stock sits at the end of the deck order.
        known = CardSet(seen) - CardSet(list(stock))
        order = [*known, *stock]
        vec[K.S_DECK : K.S_DECK + len(order)] = order
        vec[K.S_DECK_SIZE] = len(order)
        vec[K.S_STOCK] = len(known)
        # Only the number of plays left matters to the rules (the last play), so the
        # count of plays made is set from the cards still to be played.
        left = sum(len(h) for h in hands) + len(stock)
        vec[K.S_PLAYS] = rules.total_plays - left
        vec[K.S_DONE] = int(finished)
        return cls(rules, vec, match_totals=match_totals)

    # -- views ----------------------------------------------------------------------
    @property
    def players(self) -> int:
        return self.rules.players

    def hand(self, seat: int) -> CardSet:
        """The cards in a seat's hand."""
        return CardSet(int(self._vec[K.S_HANDS + seat]))

    @property
    def hands(self) -> list[CardSet]:
        return [self.hand(s) for s in range(self.players)]

    @property
    def opening(self) -> CardSet:
        """The cards the dealer's side took at the deal by ``opening_fifteen`` (RULES.md
        §9: a first table adding up to fifteen, or splitting into two fifteens); empty
        otherwise. Their scope are in the dealer side's :attr:`scope`."""
        return CardSet(int(self._vec[K.S_OPENING]))

    @property
    def declared(self) -> list[int]:
        """Cirulla (RULES.md §10): the points each side has declared in this hand (all 0
        in every other game)."""
        return [int(x) for x in self._vec[K.S_DECLARED : K.S_DECLARED + self.rules.sides]]

    @property
    def shown(self) -> list[int]:
        """Cirulla: the seats that declared in the current deal, whose hands are shown
        until the next deal."""
        bits = int(self._vec[K.S_SHOWN])
        return [s for s in range(self.players) if bits >> s & 1]

    @property
    def opening_scope(self) -> int:
        """Cirulla: the scope the opening count scored (0, 1 or 2, in :attr:`scope`)."""
        return int(self._vec[K.S_OPENING_SCOPE])

    @property
    def voids(self) -> int:
        """Cirulla: the void deals before this hand's accepted one (a :meth:`deal` from a
        seed counts them)."""
        return int(self._vec[K.S_VOIDS])

    @property
    def stock(self) -> list[Card]:
        """Cards still to be dealt, in dealing order."""
        lo, hi = int(self._vec[K.S_STOCK]), int(self._vec[K.S_DECK_SIZE])
        return [int(c) for c in self._vec[K.S_DECK + lo : K.S_DECK + hi]]

    def with_sorted_stock(self) -> HandState:
        """A copy whose stock holds the same cards in card order (every hand known, only
        the stock's order not: what the deals have decided so far); history not
        included."""
        vec = self._vec.copy()
        lo, hi = K.S_DECK + int(vec[K.S_STOCK]), K.S_DECK + int(vec[K.S_DECK_SIZE])
        vec[lo:hi] = np.sort(vec[lo:hi])
        return HandState(self.rules, vec, match_totals=self.match_totals)

    @property
    def plays_left(self) -> int:
        return self.rules.total_plays - self.plays_made

    @property
    def history(self) -> list[Play]:
        """Plays pushed on this object, oldest first."""
        return [p for _, p in self._stack]

    @property
    def legal_plays(self) -> LegalPlays:
        """All distinct legal plays of the seat to play (empty when the hand is over)."""
        return LegalPlays(self)

    def _generate(self) -> list[Play]:
        if self.is_over:
            return []
        b = self._buf
        if self._cirulla:
            if b.meta is None:
                b.meta = np.empty(K.MAX_PLAYS, dtype=np.int64)
            n = K.legal_plays_cirulla(self._vec, self._kr, b.card, b.take, b.meta, b.scratch)
            return [
                Play.from_meta(int(b.card[i]), int(b.take[i]), int(b.meta[i])) for i in range(n)
            ]
        n = K.legal_plays(self._vec, self._r, b.card, b.take, b.scratch)
        return [Play(int(c), int(t)) for c, t in zip(b.card[:n], b.take[:n], strict=True)]

    def is_legal(self, play: Play) -> bool:
        """Whether ``play`` is legal here: one of :attr:`legal_plays`, or in Cirulla with
        ``matta=play`` the matta naming any value that makes the play legal (RULES.md §10;
        :attr:`legal_plays` lists each effect once, with the smallest such value)."""
        return not self.is_over and self._accepts(play, self._generate())

    def _accepts(self, p: Play, legal: list[Play]) -> bool:
        """``p`` is in ``legal``, or is the matta named another value with the take and the
        effect (whether an emptied table scores) of a listed play (:meth:`is_legal`)."""
        return p in legal or self._listed(p, legal) is not None

    def listed_play(self, play: Play) -> Play:
        """The play of :attr:`legal_plays` that ``play`` is: itself, or in Cirulla with
        ``matta=play`` the listed play of the same take, declaration and effect when
        ``play`` names the matta another value that makes it legal (RULES.md §10).

        Raises:
            IllegalPlayError: ``play`` is not legal here.
        """
        legal = [] if self.is_over else self._generate()
        if play in legal:
            return play
        listed = self._listed(play, legal)
        if listed is None:
            raise IllegalPlayError(self.explain_illegal(play, legal))
        return listed

    def _listed(self, p: Play, legal: list[Play]) -> Play | None:
        """The listed play a Cirulla matta play naming another value stands for, or None."""
        if not (self._cirulla and p.card == MATTA and p.value and self.rules.matta == "play"):
            return None
        same = [
            q for q in legal if (q.card, q.take, q.declaration) == (p.card, p.take, p.declaration)
        ]
        if not same or not p.take:  # a lay names any value: its effect is the same
            return same[0] if same else None
        table = self._vec[K.S_TABLE]
        if p.take not in self._takes(p.value):
            return None
        sweep, scopa = bool(self._kr[K.R_ACE_SWEEP]), bool(self._kr[K.R_ACE_SWEEP_SCOPA])
        effect = K.cirulla_scores(p.take, p.value, table, sweep, scopa)
        return next(
            (q for q in same if K.cirulla_scores(q.take, q.value, table, sweep, scopa) == effect),
            None,
        )

    def _takes(self, value: int) -> list[int]:
        """Cirulla: the takes (card masks) of a card of capture value ``value`` on the
        table (RULES.md §10: match, sums, fifteens, the ace sweep)."""
        b, r, vec = self._buf, self._kr, self._vec
        n = K.add_captures_cirulla(
            value, vec[K.S_TABLE], vec[K.S_REACH], bool(r[K.R_ACE_SWEEP]),
            bool(r[K.R_MATCH_PRIORITY]), bool(r[K.R_SUM_FEWEST]), b.take, 0, b.scratch,
        )  # fmt: skip
        return [int(t) for t in b.take[:n]]

    # -- transitions ----------------------------------------------------------------
    def push(self, play: Play | str) -> PlayResult:
        """Make a play (a :class:`Play` or its text); raises :class:`IllegalPlayError`."""
        p = Play.parse(play) if isinstance(play, str) else play
        if self.is_over:
            raise IllegalPlayError(f"play {p}: the hand is over")
        legal = self._generate()
        if not self._accepts(p, legal):
            raise IllegalPlayError(self.explain_illegal(p, legal))
        return self._push_unchecked(p)

    def _push_unchecked(self, p: Play) -> PlayResult:
        seat = self.turn
        self._stack.append((self._vec.copy(), p))
        if self._cirulla:
            flags = int(K.apply_play_cirulla(self._vec, self._kr, p.card, p.take, p.meta))
        else:
            flags = int(K.apply_play(self._vec, self._r, p.card, p.take))
        return PlayResult(
            play=p,
            seat=seat,
            capture=bool(flags & K.F_CAPTURE),
            scopa=bool(flags & K.F_SCOPA),
            ace_sweep=bool(flags & K.F_ACE_SWEEP),
            last=bool(flags & K.F_LAST),
        )

    def pop(self) -> Play:
        """Undo the last pushed play and return it."""
        if not self._stack:
            raise IndexError("pop from a state with no pushed plays")
        vec, p = self._stack.pop()
        self._vec = vec
        return p

    def clone(self) -> HandState:
        """An independent copy (history not included)."""
        return HandState(self.rules, self._vec.copy(), match_totals=self.match_totals)

    def explain_illegal(self, p: Play, legal: list[Play] | None = None) -> str:
        """A one-line reason why ``p`` is not legal here."""
        legal = self._generate() if legal is None else legal
        seat = self.turn
        if not (self.hand(seat).mask >> p.card & 1):
            return f"play {p}: {card_name(p.card)} is not in the hand of seat {seat}"
        if p.take & ~self.table.mask:
            return f"play {p}: {CardSet(p.take & ~self.table.mask)} not on the table"
        reason = self._explain_cirulla(p, legal) if self._cirulla else None
        if reason:
            return f"play {p}: {reason}"
        options = [q for q in legal if q.card == p.card]
        if options:
            shown = ", ".join(str(q) for q in options)
            return f"play {p} is not allowed; with {card_name(p.card)} the rules allow: {shown}"
        captures = ", ".join(str(q) for q in legal)
        return f"play {p} is not allowed: a capture is compulsory ({captures})"

    def _explain_cirulla(self, p: Play, legal: list[Play]) -> str | None:
        """Why a Cirulla play's named value or declaration is wrong (RULES.md §10), or
        None when they are not the reason."""
        rules, seat = self.rules, self.turn
        hand = self.hand(seat)
        matta = card_name(MATTA)
        if p.card == MATTA and rules.matta == "play" and not p.value:
            return f"the matta {matta} names a value under matta=play ({matta}=1 .. {matta}=10)"
        if p.value and rules.matta != "play":
            return f"a value is named only under matta=play, the rules have matta={rules.matta}"
        points = max((q.declaration for q in legal), default=0)
        if p.declaration:
            if rules.declare == "off":
                return "a declaration under declare=off (no declarations)"
            if len(hand) < rules.hand_size:
                return (
                    f"seat {seat} declares after it has played in this deal (a declaration "
                    "comes with the first card of a deal)"
                )
            if not points:
                return (
                    f"seat {seat}'s hand {hand} does not qualify for a declaration (it needs "
                    "values adding up to 9 or less, or three of a rank)"
                )
            if p.declaration != points:
                return f"seat {seat}'s hand {hand} declares {points}, not {p.declaration}"
        elif points and rules.declare == "auto":
            return (
                f"seat {seat}'s hand {hand} qualifies for {points} points and declare=auto "
                f"declares it (+{points})"
            )
        return None

    # -- scoring ----------------------------------------------------------------------
    def score_array(self) -> np.ndarray:
        """Score items per side as an int array ``[side, item]`` (items: SCORE_ITEMS, and
        in Cirulla :data:`CIRULLA_ITEMS` after them)."""
        if self._cirulla:
            out = np.zeros((4, K.N_ITEMS_CIRULLA), dtype=np.int64)
            K.score_state_cirulla(self._vec, self._kr, out)
            return out[: self.rules.sides]
        out = np.zeros((4, K.N_ITEMS), dtype=np.int64)
        K.score_state(self._vec, self._r, out)
        return out[: self.rules.sides]

    @property
    def points(self) -> list[int]:
        """Each side's points of the hand as it stands (the ``total`` score item; final
        once :attr:`is_over`)."""
        return score_points(self.score_array())

    def score(self) -> list[dict[str, int]]:
        """Score items per side as dicts, as in a game record."""
        return score_dicts(self.rules, self.score_array())

    def __repr__(self) -> str:
        hands = " | ".join(str(h) or "-" for h in self.hands)
        return (
            f"<HandState turn={self.turn} table=[{self.table}] hands=[{hands}] "
            f"plays={self.plays_made}{' over' if self.is_over else ''}>"
        )
