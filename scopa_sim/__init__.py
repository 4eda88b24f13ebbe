"""scopa-sim: a fast, exact Monte Carlo strategy analyzer for Scopa and its family.

``import scopa_sim`` is cheap: it loads cards, plays, rules and the errors, and neither
numba nor polars. The notebook API (:mod:`scopa_sim.api`: ``simulate``, ``open_run``,
``analyze``, ``compare``, ``advantage``, ``play``, ``replay``, ``advise``, ``tournament``,
``review``, the deal
analyses ``card_values`` and its kin, and their results) is imported on first use of one
of its names (PEP 562), and numba with the kernels only when a function first needs them
(a simulation, a search, a hand's state, :meth:`Rules.to_array`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from scopa_sim._version import __version__
from scopa_sim.errors import (
    AnalysisError,
    CardError,
    DatasetError,
    FileError,
    IllegalPlayError,
    InputError,
    PolicyError,
    RecordError,
    RulesError,
    ScopaError,
    SimulationError,
)
from scopa_sim.game.cards import Card, CardSet, card_name, parse_card, parse_cards
from scopa_sim.game.play import Play
from scopa_sim.game.rules import PRESETS, Rules

if TYPE_CHECKING:
    from scopa_sim.api import (
        Advantage,
        Advice,
        Analysis,
        CardValues,
        ClassTable,
        Comparison,
        EquityTableFile,
        Estimate,
        GameReview,
        LuckShare,
        Matches,
        ReportFiles,
        Run,
        Tournament,
        Variant,
        Warming,
        advantage,
        advise,
        analyze,
        card_values,
        compare,
        compare_presets,
        document,
        equity,
        hands_with_deals,
        luck_share,
        match_wins,
        open_run,
        opening_hands,
        opening_tables,
        play,
        presets,
        record_lines,
        replay,
        replay_hands,
        report,
        review,
        simulate,
        study,
        tournament,
        variant,
        warm,
        warm_tasks,
    )


def __getattr__(name: str) -> Any:
    """A name of the notebook API, imported from :mod:`scopa_sim.api` on first use."""
    if name in API:
        value = getattr(importlib.import_module("scopa_sim.api"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'scopa_sim' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *API])


__all__ = [
    "PRESETS",
    "Advantage",
    "Advice",
    "Analysis",
    "AnalysisError",
    "Card",
    "CardError",
    "CardSet",
    "CardValues",
    "ClassTable",
    "Comparison",
    "DatasetError",
    "EquityTableFile",
    "Estimate",
    "FileError",
    "GameReview",
    "IllegalPlayError",
    "InputError",
    "LuckShare",
    "Matches",
    "Play",
    "PolicyError",
    "RecordError",
    "ReportFiles",
    "Rules",
    "RulesError",
    "Run",
    "ScopaError",
    "SimulationError",
    "Tournament",
    "Variant",
    "Warming",
    "__version__",
    "advantage",
    "advise",
    "analyze",
    "card_name",
    "card_values",
    "compare",
    "compare_presets",
    "document",
    "equity",
    "hands_with_deals",
    "luck_share",
    "match_wins",
    "open_run",
    "opening_hands",
    "opening_tables",
    "parse_card",
    "parse_cards",
    "play",
    "presets",
    "record_lines",
    "replay",
    "replay_hands",
    "report",
    "review",
    "simulate",
    "study",
    "tournament",
    "variant",
    "warm",
    "warm_tasks",
]

#: The names of the notebook API, from :mod:`scopa_sim.api`, imported on first use.
API = tuple(name for name in __all__ if name not in globals())
