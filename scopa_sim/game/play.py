"""A play: the card played and the set of table cards it takes (and, in Cirulla, the value
named for the matta and the points declared with the play)."""

from __future__ import annotations

from dataclasses import dataclass

from scopa_sim.errors import CardError
from scopa_sim.game.cards import Card, CardSet, card_name, parse_card, parse_cards

#: Cirulla's matta, the 7H (RULES.md §10): the one card that names a value.
MATTA = 16
#: The points a declaration can score (RULES.md §10): a hand of 9 or less, three of a rank.
DECLARATIONS = (3, 10)
#: The bits of a play's kernel word (:attr:`Play.meta`): the named value in bits 0-3, the
#: declaration's points from bit 4 on (as ``_engine.step.META_VALUE`` and
#: ``META_DECLARATION``).
_VALUE_BITS = 15
_DECLARATION_SHIFT = 4


@dataclass(frozen=True, order=True)
class Play:
    """An immutable play; ``take`` is a card mask (0 for a lay). In Cirulla (RULES.md §10)
    ``value`` is the value 1..10 named for the matta (7H) with ``matta=play`` and
    ``declaration`` the points declared with the play (3 or 10); both are 0 otherwise, so
    every other game's plays, their order and their text are as they were.

    Text form: ``"7D"`` lays the 7 of denari, ``"7D x 5H 2S"`` takes 5H and 2S;
    ``"7H=5 x 2C 3D"`` names 5 for the matta, ``"2S +3"`` declares 3 with the play.
    """

    card: Card
    take: int = 0
    value: int = 0
    declaration: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.card < 40:
            raise CardError(f"not a card index: {self.card!r}")
        if self.take >> self.card & 1:
            raise CardError(f"play {card_name(self.card)} cannot take itself")
        CardSet(self.take)  # validates the mask
        if type(self.value) is not int or not 0 <= self.value <= 10:
            raise CardError(f"bad named value {self.value!r}; allowed: 1..10 (0: none)")
        if self.value and self.card != MATTA:
            raise CardError(
                f"play {card_name(self.card)} cannot name a value; allowed: only the matta "
                f"{card_name(MATTA)} names one"
            )
        if type(self.declaration) is not int or self.declaration not in (0, *DECLARATIONS):
            raise CardError(f"bad declaration {self.declaration!r}; allowed: 3, 10 (0: none)")

    @classmethod
    def parse(cls, text: str) -> Play:
        """Parse ``"7D"`` or ``"7D x 5H 2S"`` (``x`` may also be ``:``), with Cirulla's
        ``=V`` after the matta (``"7H=5 x 2C 3D"``) and a trailing ``+3`` or ``+10``
        (``"2S +3"``)."""
        s = text.strip()
        declaration = 0
        head, sep, points = s.rpartition(" +")
        if sep:
            if not points.strip().isdigit():
                raise CardError(f"malformed play {text!r}: a declaration is +3 or +10")
            s, declaration = head.strip(), int(points)
        for sep in (" x ", ":", " X "):
            if sep in s:
                left, right = s.split(sep, 1)
                take = CardSet(parse_cards(right))
                if not take:
                    raise CardError(f"malformed play {text!r}: nothing after {sep.strip()!r}")
                card, value = cls._card_and_value(left, text)
                return cls(card, take.mask, value, declaration)
        card, value = cls._card_and_value(s, text)
        return cls(card, 0, value, declaration)

    @staticmethod
    def _card_and_value(text: str, whole: str) -> tuple[Card, int]:
        """``"7H=5"`` as (the 7H, 5); ``"7H"`` as (the 7H, 0)."""
        card, sep, value = text.partition("=")
        if not sep:
            return parse_card(card), 0
        if not value.strip().isdigit() or int(value) == 0:
            raise CardError(f"malformed play {whole!r}: a named value is =1 .. =10")
        return parse_card(card), int(value)

    @classmethod
    def of(cls, card: Card | str, take: CardSet | list[str] | str | int = 0) -> Play:
        """Build from cards in any accepted form."""
        c = parse_card(card) if isinstance(card, str) else card
        if isinstance(take, CardSet):
            mask = take.mask
        elif isinstance(take, int):
            mask = take
        else:
            mask = CardSet(parse_cards(take)).mask
        return cls(c, mask)

    @classmethod
    def from_meta(cls, card: Card, take: int, meta: int) -> Play:
        """The play of the Cirulla step kernels' ``(card, take, meta)`` (see :attr:`meta`)."""
        return cls(card, take, meta & _VALUE_BITS, meta >> _DECLARATION_SHIFT)

    @property
    def meta(self) -> int:
        """The Cirulla kernels' word of the play: the named value in bits 0-3 and the
        declaration's points from bit 4 on (0 for every other game's play)."""
        return self.value | self.declaration << _DECLARATION_SHIFT

    @property
    def taken(self) -> CardSet:
        """The table cards taken."""
        return CardSet(self.take)

    @property
    def is_capture(self) -> bool:
        return self.take != 0

    def __str__(self) -> str:
        card = card_name(self.card) + (f"={self.value}" if self.value else "")
        text = f"{card} x {self.taken}" if self.take else card
        return f"{text} +{self.declaration}" if self.declaration else text

    def __repr__(self) -> str:
        return f"Play.parse({str(self)!r})"
