"""scopa-sim: a fast, exact Monte Carlo strategy analyzer for Scopa and its family."""

from scopa_sim._version import __version__
from scopa_sim.errors import CardError, IllegalPlayError, RecordError, RulesError, ScopaError
from scopa_sim.game.cards import Card, CardSet, card_name, parse_card, parse_cards
from scopa_sim.game.play import Play
from scopa_sim.game.rules import PRESETS, Rules

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
