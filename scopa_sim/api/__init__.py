"""The notebook API: one function per job of the command line, with its names and
defaults, each returning a typed, frozen result with ``to_polars()`` or ``to_dict()`` and
an HTML view for Jupyter. ``import scopa_sim`` gives them all (``scopa_sim.simulate``...).

Thin wrappers over the library functions the commands call, so the API and the command
line give the same numbers for the same input; bad input raises the project's
:class:`~scopa_sim.errors.ScopaError` subclasses with the command line's one-line
messages. Nothing here imports numba or polars until a function needs them.
"""

from scopa_sim.api.analysis import (
    Advantage,
    Analysis,
    Comparison,
    GroupFigures,
    advantage,
    analyze,
    compare,
)
from scopa_sim.api.deals import card_values, luck_share, match_wins, opening_hands, opening_tables
from scopa_sim.api.runs import Run, open_run, simulate
from scopa_sim.api.search import (
    Advice,
    GameReview,
    Pairing,
    PlayValue,
    Tournament,
    advise,
    review,
    tournament,
)
from scopa_sim.stats.estimate import Estimate

__all__ = [
    "Advantage",
    "Advice",
    "Analysis",
    "Comparison",
    "Estimate",
    "GameReview",
    "GroupFigures",
    "Pairing",
    "PlayValue",
    "Run",
    "Tournament",
    "advantage",
    "advise",
    "analyze",
    "card_values",
    "compare",
    "luck_share",
    "match_wins",
    "open_run",
    "opening_hands",
    "opening_tables",
    "review",
    "simulate",
    "tournament",
]
