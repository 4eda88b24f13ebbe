"""scopa-sim: a fast, exact Monte Carlo strategy analyzer for Scopa and its family."""

from .cards import Card, CardSet, card_name, parse_card, parse_cards
from .errors import CardError, IllegalPlayError, RecordError, RulesError, ScopaError
from .play import Play
from .rules import PRESETS, Rules

__version__ = "0.3.0"

__all__ = [
    "PRESETS",
    "Card",
    "CardError",
    "CardSet",
    "IllegalPlayError",
    "Play",
    "RecordError",
    "Rules",
    "RulesError",
    "ScopaError",
    "__version__",
    "card_name",
    "parse_card",
    "parse_cards",
]
