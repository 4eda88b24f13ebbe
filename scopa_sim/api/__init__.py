"""The use-case layer: one function per job of the command line (the command line calls
them, and so can a notebook), each checking its input once and returning a typed, frozen
result (``text()`` as the command prints it, ``to_dict()`` as its ``--json``,
``to_polars()``, an HTML view for Jupyter). ``import scopa_sim`` gives them all
(``scopa_sim.simulate``...).

Bad input raises the project's :class:`~scopa_sim.errors.ScopaError` subclasses, in
one line that names no command-line option (:class:`~scopa_sim.errors.InputError` for
arguments refused before any work). Nothing here imports numba or polars until a
function needs them.
"""

from typing import TYPE_CHECKING, Any

from scopa_sim.api.advice import Advice, GameReview, PlayValue, advise, review
from scopa_sim.api.analysis import (
    Advantage,
    Analysis,
    Comparison,
    GroupFigures,
    advantage,
    analyze,
    compare,
    compare_presets,
)
from scopa_sim.api.deal_analyses import (
    card_values,
    luck_share,
    match_wins,
    opening_hands,
    opening_tables,
)
from scopa_sim.api.games import Matches, play, record_lines, replay, replay_hands
from scopa_sim.api.reporting import EquityTableFile, equity, report, study
from scopa_sim.api.runs import hands_with_deals, open_run, simulate
from scopa_sim.api.tournaments import Pairing, Tournament, tournament
from scopa_sim.api.variants import Variant, document, presets, variant
from scopa_sim.api.warming import Warming, warm, warm_tasks

if TYPE_CHECKING:
    from scopa_sim.analysis.deal_analyses import CardValues, ClassTable, LuckShare
    from scopa_sim.analysis.run_report import ReportFiles
    from scopa_sim.data.run import Run
    from scopa_sim.stats.estimate import Estimate

#: Types defined below this layer (the interval, the run, the deal analyses' results),
#: imported on first use (PEP 562): their modules load numpy, polars or the kernels'
#: constants (and with them numba), and each is documented where it is defined.
LAZY_TYPES = {
    "Estimate": "scopa_sim.stats.estimate",
    "Run": "scopa_sim.data.run",
    "CardValues": "scopa_sim.analysis.deal_analyses",
    "ClassTable": "scopa_sim.analysis.deal_analyses",
    "LuckShare": "scopa_sim.analysis.deal_analyses",
    "ReportFiles": "scopa_sim.analysis.run_report",
}


def __getattr__(name: str) -> Any:
    """A result type of :data:`LAZY_TYPES`, imported on first use."""
    if name in LAZY_TYPES:
        import importlib

        return getattr(importlib.import_module(LAZY_TYPES[name]), name)
    raise AttributeError(f"module 'scopa_sim.api' has no attribute {name!r}")


__all__ = [
    "Advantage",
    "Advice",
    "Analysis",
    "CardValues",
    "ClassTable",
    "Comparison",
    "EquityTableFile",
    "Estimate",
    "GameReview",
    "GroupFigures",
    "LuckShare",
    "Matches",
    "Pairing",
    "PlayValue",
    "ReportFiles",
    "Run",
    "Tournament",
    "Variant",
    "Warming",
    "advantage",
    "advise",
    "analyze",
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
