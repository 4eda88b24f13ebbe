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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scopa_sim.api.display import (
    Estimate,
    box,
    esc,
    est_cells,
    make_rules,
    one_line_errors,
    table,
    whole,
)
from scopa_sim.errors import PolicyError
from scopa_sim.files import json_number

if TYPE_CHECKING:
    import polars as pl

    from scopa_sim.records.review import Review as LibraryReview
    from scopa_sim.sim.tournament import PairingResult, Standing


def _frame(rows: list[dict[str, Any]], columns: list[str]) -> pl.DataFrame:
    import polars as pl

    return pl.DataFrame(rows, schema=columns, orient="row")


# --------------------------------------------------------------------------- tournament
@dataclass(frozen=True)
class Pairing:
    """Policy ``a`` against ``b`` over ``deal_pairs`` deals, each played twice with the
    sides swapped: ``margin`` is a's points minus b's per hand, ``score`` a's share of
    the points of a match (wins and half the draws), ``elo`` its Elo difference."""

    a: str
    b: str
    deal_pairs: int
    margin: Estimate
    wins: int
    draws: int
    losses: int
    score: float
    elo: float
    elo_ci: tuple[float, float]
    sprt_llr: float | None
    sprt_verdict: str | None

    @classmethod
    def of(cls, x: PairingResult) -> Pairing:
        m = x.margin
        return cls(
            x.a, x.b, x.deal_pairs, Estimate(m.mean, m.low, m.high, m.n), x.wins, x.draws,
            x.losses, x.score, x.elo, (x.elo_low, x.elo_high), x.sprt_llr, x.sprt_verdict,
        )  # fmt: skip


@dataclass(frozen=True, repr=False)
class Tournament:
    """Every pairing of the policies on the same deals, and the Elo ladder (least-squares
    fit, mean 0) best first (the ``tournament`` command)."""

    preset: str
    seed: int
    deals: int
    pairings: tuple[Pairing, ...]
    ladder: tuple[tuple[str, float], ...]
    #: Every policy's standing, best first: not significantly worse than any other first,
    #: then by its worst pairing (:func:`scopa_sim.sim.tournament.standings`).
    standings: tuple[Standing, ...] = ()

    @property
    def best(self) -> str:
        """The policy with the best worst pairing among those no other beats."""
        return self.standings[0].policy

    def to_dict(self) -> dict[str, Any]:
        """The figures of ``scopa-sim tournament --json``."""
        return {
            "preset": self.preset,
            "seed": self.seed,
            "deals": self.deals,
            "pairings": [
                {
                    "a": x.a,
                    "b": x.b,
                    "deal_pairs": x.deal_pairs,
                    "margin": x.margin.estimate,
                    "margin_ci": [json_number(x.margin.ci_low), json_number(x.margin.ci_high)],
                    "wins": x.wins,
                    "draws": x.draws,
                    "losses": x.losses,
                    "score": x.score,
                    "elo": x.elo,
                    "elo_ci": [json_number(v) for v in x.elo_ci],
                    "sprt_llr": x.sprt_llr,
                    "sprt_verdict": x.sprt_verdict,
                }
                for x in self.pairings
            ],
            "ladder": [{"policy": p, "elo": e} for p, e in self.ladder],
            "standings": [x.to_dict() for x in self.standings],
        }

    def to_polars(self) -> pl.DataFrame:
        rows = [
            {
                "a": x.a,
                "b": x.b,
                "deal_pairs": x.deal_pairs,
                "margin": x.margin.estimate,
                "ci_low": x.margin.ci_low,
                "ci_high": x.margin.ci_high,
                "wins": x.wins,
                "draws": x.draws,
                "losses": x.losses,
                "score": x.score,
                "elo": x.elo,
            }
            for x in self.pairings
        ]
        cols = ["a", "b", "deal_pairs", "margin", "ci_low", "ci_high", "wins", "draws"]
        return _frame(rows, [*cols, "losses", "score", "elo"])

    def __repr__(self) -> str:
        parts = [f"{x.a} vs {x.b}: {x.margin} points per hand" for x in self.pairings]
        board = ", ".join(f"{p} {e:+.0f}" for p, e in self.ladder)
        return f"Tournament({'; '.join(parts)}; Elo {board})"

    def _repr_html_(self) -> str:
        rows = [
            [esc(x.a), esc(x.b), *est_cells(x.margin, "+.3f"), f"{x.wins}/{x.draws}/{x.losses}",
             f"{x.elo:+.0f} [{x.elo_ci[0]:+.0f}, {x.elo_ci[1]:+.0f}]"]
            for x in self.pairings
        ]  # fmt: skip
        head = ["a", "b", "a - b per hand", "95% CI", "deal pairs", "W/D/L", "Elo (95% CI)"]
        board = table(["policy", "Elo"], [[esc(p), f"{e:+.1f}"] for p, e in self.ladder])
        title = f"scopa-sim tournament: {self.preset}, seed {self.seed}, {self.deals} deal pairs"
        return box(title, table(head, rows), "<br>", board)


@one_line_errors
def tournament(
    *policies: str,
    preset: str = "scopa",
    rules: Mapping[str, Any] | None = None,
    deals: int = 200,
    seed: int = 0,
    sprt: tuple[float, float] | None = None,
    alpha: float = 0.05,
    beta: float = 0.05,
    workers: int = 1,
) -> Tournament:
    """Policies head to head on paired, seat-swapped deals, with CIs and an Elo ladder
    (``scopa-sim tournament``); ``sprt=(elo0, elo1)`` stops early on a sequential test."""
    from scopa_sim.bots.registry import PolicySpec
    from scopa_sim.sim.tournament import Sprt, ladder, run_tournament, standings

    r = make_rules(preset, rules)
    if not all(isinstance(p, str) for p in policies):
        raise PolicyError(f"a policy is a text such as 'expert', not {policies!r}")
    specs = [PolicySpec.parse(p) for p in policies]
    test = Sprt(float(sprt[0]), float(sprt[1]), alpha, beta) if sprt is not None else None
    seed = whole("--seed", seed, 0)
    workers = whole("--workers", workers, 1)
    results = run_tournament(r, specs, deals, seed, test, None, workers)
    names = [str(p) for p in specs]
    board = ladder(names, results)
    return Tournament(
        preset, seed, deals, tuple(Pairing.of(x) for x in results), tuple(board),
        tuple(standings(names, results)),
    )  # fmt: skip


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
    "Pairing",
    "Tournament",
    "review",
    "tournament",
]
