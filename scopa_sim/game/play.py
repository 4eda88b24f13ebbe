"""A play: the card played and the set of table cards it takes."""

from __future__ import annotations

from dataclasses import dataclass

from scopa_sim.errors import CardError
from scopa_sim.game.cards import Card, CardSet, card_name, parse_card, parse_cards


@dataclass(frozen=True, order=True)
class Play:
    """An immutable play; ``take`` is a card mask (0 for a lay).

    Text form: ``"7D"`` lays the 7 of denari, ``"7D x 5H 2S"`` takes 5H and 2S.
    """

    card: Card
    take: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.card < 40:
            raise CardError(f"not a card index: {self.card!r}")
        if self.take >> self.card & 1:
            raise CardError(f"play {card_name(self.card)} cannot take itself")
        CardSet(self.take)  # validates the mask

    @classmethod
    def parse(cls, text: str) -> Play:
        """Parse ``"7D"`` or ``"7D x 5H 2S"`` (``x`` may also be ``:``)."""
        s = text.strip()
        for sep in (" x ", ":", " X "):
            if sep in s:
                left, right = s.split(sep, 1)
                take = CardSet(parse_cards(right))
                if not take:
                    raise CardError(f"malformed play {text!r}: nothing after {sep.strip()!r}")
                return cls(parse_card(left), take.mask)
        return cls(parse_card(s))

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

    @property
    def taken(self) -> CardSet:
        """The table cards taken."""
        return CardSet(self.take)

    @property
    def is_capture(self) -> bool:
        return self.take != 0

    def __str__(self) -> str:
        if not self.take:
            return card_name(self.card)
        return f"{card_name(self.card)} x {self.taken}"

    def __repr__(self) -> str:
        return f"Play.parse({str(self)!r})"
