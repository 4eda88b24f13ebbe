"""Search in a notebook: :func:`advise` (rank the plays of a position), :func:`tournament`
(policies head to head) and :func:`review` (grade recorded games).

Thin wrappers over the library functions the ``advise``, ``tournament`` and ``review``
commands call (:func:`scopa_sim.bots.advise.advise`,
:func:`scopa_sim.sim.tournament.run_tournament`, :func:`scopa_sim.records.review.run_review`),
with their names and defaults; the HTML of the results draws the cards as the review
page does.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scopa_sim.api.display import (
    box,
    one_line_errors,
    whole,
)

if TYPE_CHECKING:
    import polars as pl

    from scopa_sim.records.review import Review as LibraryReview


def _frame(rows: list[dict[str, Any]], columns: list[str]) -> pl.DataFrame:
    import polars as pl

    return pl.DataFrame(rows, schema=columns, orient="row")


# --------------------------------------------------------------------------- review
@dataclass(frozen=True, repr=False)
class GameReview:
    """The review of recorded hands (the ``review`` command): every decision's loss
    against the evaluator's best play, labels, luck and skill per seat and side. Its
    HTML is the review page's summary and hands; :meth:`to_html` the whole page."""

    result: LibraryReview = field(compare=False)

    def to_dict(self) -> dict[str, Any]:
        """What ``scopa-sim review --json`` prints."""
        from scopa_sim.records.review import to_json

        d: dict[str, Any] = to_json(self.result)
        return d

    def to_polars(self) -> pl.DataFrame:
        """One row per decision of the seats under review."""
        rows = []
        for d in self.result.decisions():
            x = d.as_dict()
            rows.append({k: v for k, v in x.items() if not isinstance(v, list | tuple | dict)})
        import polars as pl

        return pl.DataFrame(rows)

    def to_text(self) -> str:
        """What ``scopa-sim review`` prints."""
        from scopa_sim.records.review import to_text

        text: str = to_text(self.result)
        return text

    def to_html(self) -> str:
        """The self-contained page of ``review --html``."""
        from scopa_sim.records.review_html import to_html

        page: str = to_html(self.result)
        return page

    def save_html(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`to_html` to ``path`` (atomically)."""
        from scopa_sim.files import write_text

        write_text(os.fspath(path), self.to_html())

    def __repr__(self) -> str:
        from scopa_sim.records.review import summary_lines

        r = self.result
        lines = "; ".join(line.strip() for line in summary_lines(r))
        return f"GameReview({len(r.hands)} hand(s), evaluator {r.evaluator}: {lines})"

    def _repr_html_(self) -> str:
        from scopa_sim.records.review_html import hand_section, summary_table

        r = self.result
        parts = [
            summary_table([*r.seat_summaries(), *r.side_summaries()]),
            *[hand_section(h, r.seats) for h in r.hands],
        ]
        return box(f"scopa-sim review: evaluator {r.evaluator}, seed {r.seed}", *parts)


@one_line_errors
def review(
    *targets: str | os.PathLike[str],
    policy: str = "eval",
    seed: int = 0,
    seats: Iterable[int] | None = None,
    workers: int | None = None,
    allow_unfinished: bool = False,
) -> GameReview:
    """Grade every decision of recorded hands (``scopa-sim review``): ``targets`` are
    record files, each optionally followed by line numbers (``"3"``, ``"2-5"``) picking
    its hands; ``policy`` is the evaluator (``"eval:worlds=16"``)."""
    from scopa_sim.errors import ReviewError
    from scopa_sim.records.review import run_review

    if not targets:
        raise ReviewError("give a record file to review")
    args = [os.fspath(t) if isinstance(t, os.PathLike) else t for t in targets]
    if not all(isinstance(a, str) for a in args):
        raise ReviewError(f"review takes record files and line numbers, not {targets!r}")
    chosen = [whole("--seat", s, 0) for s in seats] if seats is not None else None
    n = whole("--workers", workers, 1) if workers is not None else os.cpu_count() or 1
    result = run_review(
        [str(a) for a in args],
        policy,
        whole("--seed", seed, 0),
        seats=chosen or None,
        workers=n,
        allow_unfinished=allow_unfinished,
    )
    return GameReview(result)


__all__ = [
    "GameReview",
    "review",
]
