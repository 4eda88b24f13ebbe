"""Cards as small ints and sets of cards as bits of a 64-bit mask.

A card is ``suit * 10 + rank`` with suits D, H, C, S = 0..3 (denari first) and
ranks A, 2, 3, 4, 5, 6, 7, J, Q, K = 0..9, so its capture value is ``rank + 1``
and bit ``card`` of a mask says whether the card is in a set.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from scopa_sim.errors import CardError

Card = int

SUITS = "DHCS"
RANKS = "A234567JQK"
SUIT_SYMBOLS = {"♦": "D", "♥": "H", "♣": "C", "♠": "S"}
SUIT_NAMES = ("denari", "coppe", "bastoni", "spade")

#: Capture value of each rank index.
CAPTURE_VALUES = tuple(range(1, 11))
#: Primiera value of each rank index (A, 2, 3, 4, 5, 6, 7, J, Q, K).
PRIMIERA_VALUES = (16, 12, 13, 14, 15, 18, 21, 10, 10, 10)

FULL_DECK_MASK = (1 << 40) - 1
TWOS_MASK = sum(1 << (s * 10 + 1) for s in range(4))
DECK36_MASK = FULL_DECK_MASK & ~TWOS_MASK
DENARI_MASK = (1 << 10) - 1

SETTEBELLO: Card = 6
RE_BELLO: Card = 9


def rank_mask(rank: int) -> int:
    """The four cards of rank index ``rank`` (0..9, A..K) as a mask; raises
    :class:`~scopa_sim.errors.CardError` for another index."""
    if not 0 <= rank < 10:
        raise CardError(f"rank index must be 0..9, got {rank}")
    return sum(1 << (s * 10 + rank) for s in range(4))


def suit_of(card: Card) -> int:
    """Suit index 0..3 (D, H, C, S) of a card."""
    return card // 10


def rank_of(card: Card) -> int:
    """Rank index 0..9 (A..K) of a card."""
    return card % 10


def value_of(card: Card) -> int:
    """Capture value 1..10 of a card."""
    return card % 10 + 1


def card_name(card: Card) -> str:
    """Text form of a card, e.g. ``7D``."""
    if not 0 <= card < 40:
        raise CardError(f"not a card index: {card!r} (expected 0..39)")
    return RANKS[card % 10] + SUITS[card // 10]


def parse_card(text: str) -> Card:
    """Parse ``7D``, ``7d`` or ``7♦`` into a card; anything else is a :class:`CardError`."""
    if not isinstance(text, str):
        raise CardError(f"a card must be text like '7D', got {text!r}")
    s = text.strip()
    if len(s) != 2:
        raise CardError(
            f"malformed card {text!r}: expected a rank (A 2-7 J Q K) then a suit (D H C S)"
        )
    rank_ch, suit_ch = s[0].upper(), SUIT_SYMBOLS.get(s[1], s[1].upper())
    if rank_ch not in RANKS:
        raise CardError(f"malformed card {text!r}: unknown rank {s[0]!r} (ranks: A 2-7 J Q K)")
    if suit_ch not in SUITS:
        raise CardError(f"malformed card {text!r}: unknown suit {s[1]!r} (suits: D H C S)")
    return SUITS.index(suit_ch) * 10 + RANKS.index(rank_ch)


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse a space/comma separated list (or an iterable) of cards, rejecting duplicates."""
    items = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    cards = [parse_card(t) for t in items]
    seen: set[Card] = set()
    for c in cards:
        if c in seen:
            raise CardError(f"card {card_name(c)} given twice")
        seen.add(c)
    return cards


def mask_of(cards: Iterable[Card]) -> int:
    """Bit mask of an iterable of card indices."""
    m = 0
    for c in cards:
        if not isinstance(c, int) or not 0 <= c < 40:
            raise CardError(f"not a card index: {c!r} (expected 0..39)")
        m |= 1 << c
    return m


def cards_of_mask(mask: int) -> list[Card]:
    """Card indices of a mask, in increasing order."""
    out = []
    m = int(mask)
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out


class CardSet:
    """An immutable set of cards over a 64-bit mask, behaving like a Python set.

    >>> CardSet.parse("7D 5H") | CardSet.parse("AS")
    CardSet.parse('7D 5H AS')
    """

    __slots__ = ("mask",)

    def __init__(self, cards: Iterable[Card] | int = 0) -> None:
        m = int(cards) if isinstance(cards, int) else mask_of(cards)
        if m < 0 or m & ~FULL_DECK_MASK:
            raise CardError(f"mask {m:#x} has bits outside the 40-card deck")
        self.mask: int = m

    @classmethod
    def parse(cls, text: str | Iterable[str]) -> CardSet:
        """Parse cards like ``"7D 5H AS"``; duplicates are an error."""
        return cls(parse_cards(text))

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards())

    def cards(self) -> list[Card]:
        """Cards in increasing index order (denari first, then A..K)."""
        return cards_of_mask(self.mask)

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __bool__(self) -> bool:
        return self.mask != 0

    def __contains__(self, card: object) -> bool:
        if isinstance(card, str):
            card = parse_card(card)
        return isinstance(card, int) and 0 <= card < 40 and bool(self.mask >> card & 1)

    def __or__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask | other.mask)

    def __and__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & other.mask)

    def __sub__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & ~other.mask)

    def __xor__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask ^ other.mask)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CardSet) and other.mask == self.mask

    def __hash__(self) -> int:
        return hash(self.mask)

    def __str__(self) -> str:
        return " ".join(card_name(c) for c in self)

    def __repr__(self) -> str:
        return f"CardSet.parse({str(self)!r})"

    def value_sum(self) -> int:
        """Sum of the capture values of the cards."""
        return sum(value_of(c) for c in self)
