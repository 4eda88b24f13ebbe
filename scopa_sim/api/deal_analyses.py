"""What a deal is worth, in a notebook: card values, opening-hand and opening-table
tables, the luck share and match wins of a run (:mod:`scopa_sim.analysis.deal_analyses` has the
methods; ``docs/guide/deals.md`` the guide). Each function takes a :class:`~.runs.Run`
or a run directory and returns the library's frozen result (``to_polars()`` for the
tables); a run's deals themselves are ``run.hands(deal=True)``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, TypeAlias

from scopa_sim.api.inputs import one_line_errors
from scopa_sim.api.runs import as_run

if TYPE_CHECKING:
    from scopa_sim.analysis.deal_analyses import CardValues, ClassTable, LuckShare
    from scopa_sim.data.run import Run
    from scopa_sim.stats.estimate import Estimate

RunLike: TypeAlias = "Run | str | os.PathLike[str]"


def _sides(run: RunLike, max_hands: int | None = None):  # type: ignore[no-untyped-def]
    from scopa_sim.analysis.deal_analyses import deal_sides
    from scopa_sim.errors import AnalysisError

    if max_hands is not None and (isinstance(max_hands, bool) or not isinstance(max_hands, int)
                                  or max_hands < 1):  # fmt: skip
        raise AnalysisError(f"max_hands must be a whole number of at least 1, got {max_hands!r}")
    return deal_sides(as_run(run), max_hands)


@one_line_errors
def card_values(run: RunLike, deal: str = "first", max_hands: int | None = None) -> CardValues:
    """Each card's value to the side dealt it in the ``first`` deal (its opening hand) or
    in ``any`` deal, *against the average card of the deck* (the values sum to zero):
    margin points per hand, with HC1-robust 95% CIs (an OLS of the dealer margin on the
    card indicators, the contrasts computed explicitly), from the run's first
    ``max_hands`` hands (default all). ``.value("7D")``, ``.swap("7D", "AD")`` (holding one
    card instead of another), ``.grid()`` (4 x 10), ``.to_polars()``. A card never dealt to
    one side is an error naming the hands needed."""
    from scopa_sim.analysis.deal_analyses import card_values as library_card_values

    return library_card_values(_sides(run, max_hands), deal)


@one_line_errors
def opening_hands(run: RunLike, max_hands: int | None = None) -> ClassTable:
    """The first player's and the dealer's mean margin by opening-hand class (ranks,
    denari, settebello), best first, with t 95% CIs and too-few cells marked (2 players)."""
    from scopa_sim.analysis.deal_analyses import opening_hands as library_opening_hands

    return library_opening_hands(_sides(run, max_hands))


@one_line_errors
def opening_tables(run: RunLike, max_hands: int | None = None) -> ClassTable:
    """The dealer's mean margin by opening-table class (its ranks, settebello), best first
    (2 players)."""
    from scopa_sim.analysis.deal_analyses import opening_tables as library_opening_tables

    return library_opening_tables(_sides(run, max_hands))


@one_line_errors
def luck_share(run: RunLike, max_hands: int | None = None) -> LuckShare:
    """The cross-validated share of the variance of the dealer margin that the deal alone
    explains (:data:`scopa_sim.analysis.deal_analyses.LUCK_METHOD`), from at most ``max_hands``
    hands (default the library's :data:`~scopa_sim.analysis.deal_analyses.LUCK_HANDS`)."""
    from scopa_sim.analysis.deal_analyses import LUCK_HANDS
    from scopa_sim.analysis.deal_analyses import luck_share as library_luck_share

    cap = LUCK_HANDS if max_hands is None else max_hands
    return library_luck_share(_sides(run, cap), cap)


@one_line_errors
def match_wins(run: RunLike, seat: int = 0) -> Estimate:
    """How often the side of ``seat`` won a match of a ``--matches`` run, with its Wilson
    95% CI: with the stronger policy at ``seat``, how much skill decides a match."""
    from scopa_sim.analysis.deal_analyses import match_wins as library_match_wins

    return library_match_wins(as_run(run), seat)


__all__ = ["card_values", "luck_share", "match_wins", "opening_hands", "opening_tables"]
