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
    box,
    esc,
    est_cells,
    fmt,
    make_rules,
    one_line_errors,
    table,
    whole,
)
from scopa_sim.errors import CardError, PolicyError, PositionError
from scopa_sim.files import json_number
from scopa_sim.stats.estimate import Estimate

if TYPE_CHECKING:
    import polars as pl

    from scopa_sim.game.cards import CardSet
    from scopa_sim.game.state import HandState
    from scopa_sim.records.review import Review as LibraryReview
    from scopa_sim.sim.tournament import PairingResult, Standing


def _frame(rows: list[dict[str, Any]], columns: list[str]) -> pl.DataFrame:
    import polars as pl

    return pl.DataFrame(rows, schema=columns, orient="row")


# --------------------------------------------------------------------------- advise
@dataclass(frozen=True)
class PlayValue:
    """One legal play as the policy valued it: the mean (of the hand's point margin for
    the side to play, or of the match objective's value) with its 95% interval over
    ``n`` samples, whether the policy chose it, and with ``objective=match`` its chance
    to win the match."""

    play: str
    mean: float
    ci_low: float
    ci_high: float
    n: int
    chosen: bool
    p_win: float | None = None


@dataclass(frozen=True, repr=False)
class Advice:
    """Every legal play of a position ranked by a search policy (the ``advise``
    command), best first. ``values`` says what the means are: ``hand_margin``,
    ``horizon_estimate`` (a depth-limited search's heuristic) or ``match_win_points``."""

    policy: str
    seed: int
    seat: int
    hand: str
    table: str
    values: str
    plays: tuple[PlayValue, ...]
    state: HandState = field(compare=False)
    doc: dict[str, Any] = field(compare=False, default_factory=dict)

    @property
    def chosen(self) -> str:
        """The play the policy chose."""
        return next(p.play for p in self.plays if p.chosen)

    @property
    def belief(self) -> dict[str, Any] | None:
        """With ``advise(..., belief=MODEL)``: per other seat its most likely hands,
        each unseen card's probability of being in it and how it seems to play
        (:func:`scopa_sim.bots.belief.belief_json`); else None."""
        import copy

        got = self.doc.get("belief")
        return copy.deepcopy(got) if got is not None else None

    def to_dict(self) -> dict[str, Any]:
        """What ``scopa-sim advise --json`` prints
        (:func:`scopa_sim.bots.advise.advice_json`)."""
        import copy

        return copy.deepcopy(self.doc)

    def to_polars(self) -> pl.DataFrame:
        return _frame([vars(p) for p in self.plays], list(PlayValue.__dataclass_fields__))

    def __repr__(self) -> str:
        best = next(p for p in self.plays if p.chosen)
        return (
            f"Advice(seat {self.seat}, hand [{self.hand}], table [{self.table}]: best "
            f"{best.play} {best.mean:+.3f} [{best.ci_low:+.3f}, {best.ci_high:+.3f}] of "
            f"{len(self.plays)} plays; policy {self.policy}, seed {self.seed})"
        )

    def _repr_html_(self) -> str:
        from scopa_sim.records.review_html import cards_html, play_html

        head = ["play", "mean", "95% CI", "n", ""]
        rows = [
            [
                play_html(p.play),
                fmt(p.mean, "+.3f"),
                f"[{fmt(p.ci_low, '+.2f')}, {fmt(p.ci_high, '+.2f')}]",
                f"{p.n:,}",
                "best" if p.chosen else "",
            ]
            for p in self.plays
        ]
        where = table(
            ["seat to play", "hand", "table"],
            [[str(self.seat), cards_html(self.hand), cards_html(self.table)]],
        )
        title = f"scopa-sim advice: policy {self.policy}, seed {self.seed}; values {self.values}"
        return box(title, where, "<br>", table(head, rows))


def _cards(text: str | CardSet | None, option: str) -> CardSet:
    from scopa_sim.game.cards import CardSet

    if text is None or text == "":
        return CardSet()
    if isinstance(text, CardSet):
        return text
    if not isinstance(text, str):
        raise CardError(f"{option}: cards are a text such as '7D 3S', not {text!r}")
    try:
        return CardSet.parse(text)
    except CardError as e:
        raise CardError(f"{option}: {e}") from None


def _pair(value: object, option: str, example: str) -> tuple[int, int]:
    """Two counts (scope so far, match totals) given as a pair of whole numbers."""
    if isinstance(value, tuple | list) and len(value) == 2:
        a, b = value
        if type(a) is int and type(b) is int and a >= 0 and b >= 0:
            return a, b
    raise PositionError(f"{option} {value!r}: expected two counts like {example}")


@one_line_errors
def advise(
    hand: str | CardSet | None = None,
    table: str | CardSet = "",
    *,
    preset: str = "scopa",
    rules: Mapping[str, Any] | None = None,
    mine: str | CardSet = "",
    theirs: str | CardSet = "",
    seen: str | CardSet = "",
    scope: tuple[int, int] = (0, 0),
    opponent_cards: int | None = None,
    totals: tuple[int, int] = (0, 0),
    position: str | None = None,
    policy: str = "ismcts:iterations=20000",
    belief: str | None = None,
    seed: int = 0,
) -> Advice:
    """Rank every legal play of a position by expected point margin, with 95% CIs (the
    ``advise`` command): the position from the cards seat 0 knows (``hand``, ``table``,
    the piles ``mine`` and ``theirs``, other cards ``seen``, ``scope`` so far, match
    ``totals``), or ``position="FILE.jsonl:LINE:PLAY"`` of a game record.  ``belief``
    (``"expert"`` or ``"fit"``, the command's ``--belief``) adds what the other seats may
    hold under that play model (:attr:`Advice.belief`)."""
    from scopa_sim.bots.advise import advice_json, check_advisor, position_from_cards
    from scopa_sim.bots.advise import advise as library_advise
    from scopa_sim.bots.belief import belief as library_belief
    from scopa_sim.bots.belief import belief_json
    from scopa_sim.bots.registry import PolicySpec
    from scopa_sim.records.record import position_from_record

    if not isinstance(policy, str):
        raise PolicyError(f"--policy is a policy text such as 'ismcts', not {policy!r}")
    from scopa_sim.bots.belief import SHOWN_BELIEFS

    if belief is not None and belief not in SHOWN_BELIEFS:
        raise PolicyError(f"--belief {belief!r}: expected one of {', '.join(SHOWN_BELIEFS)}")
    spec = PolicySpec.parse(policy)
    check_advisor(spec)
    seed = whole("--seed", seed, 0)
    if position is not None:
        if hand is not None:
            raise PositionError(
                "--position takes the rules and the cards from the record: drop --hand"
            )
        state = position_from_record(position)
    else:
        if not hand:
            raise PositionError("give --hand (and --table), or --position FILE.jsonl:LINE:PLAY")
        if opponent_cards is not None:
            whole("--opponent-cards", opponent_cards, 0)
        state = position_from_cards(
            make_rules(preset, rules),
            _cards(hand, "--hand"),
            _cards(table, "--table"),
            mine=_cards(mine, "--mine"),
            theirs=_cards(theirs, "--theirs"),
            seen=_cards(seen, "--seen"),
            scope=_pair(scope, "--scope", "1,0"),
            opponent_cards=opponent_cards,
            totals=_pair(totals, "--totals", "7,9"),
        )
    bot = spec.bot()
    result = library_advise(state, bot, seed, recorded=position is not None)
    params = dict(spec.params)
    match = params.get("objective") == "match"
    values = "match_win_points" if match else "hand_margin"
    if not match and params.get("horizon") is not None:
        values = "horizon_estimate"
    win = getattr(bot, "win_probability", None)
    plays = tuple(
        PlayValue(
            str(p.play),
            float(p.mean),
            float(p.ci_low),
            float(p.ci_high),
            int(p.n),
            bool(p.chosen),
            float(win(state, p.mean)) if match and win else None,
        )
        for p in result.plays
    )
    hand_text, table_text = str(state.hand(result.seat)), str(state.table)
    doc = advice_json(result, spec, bot, seed)
    if belief is not None:
        doc["belief"] = belief_json(library_belief(state, belief, seed=seed))
    return Advice(str(spec), seed, result.seat, hand_text, table_text, values, plays, state, doc)


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
            x.a, x.b, x.deal_pairs, m, x.wins, x.draws,
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
                    "margin_ci": [json_number(x.margin.low), json_number(x.margin.high)],
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
                "ci_low": x.margin.low,
                "ci_high": x.margin.high,
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
    "Advice",
    "GameReview",
    "Pairing",
    "PlayValue",
    "Tournament",
    "advise",
    "review",
    "tournament",
]
