"""Advice on positions and games: :func:`advise` (rank the plays of a position) and
:func:`review` (grade the decisions of recorded games), the functions the ``advise`` and
``review`` commands, the board and a notebook call alike.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scopa_sim.api.display import box, esc, fmt, table
from scopa_sim.api.inputs import (
    cards,
    one_line_errors,
    pair,
    resolve_rules,
    search_budget,
    whole,
    wholes,
)
from scopa_sim.errors import InputError, PolicyError, PositionError, ScopaError
from scopa_sim.wording import plural

if TYPE_CHECKING:
    import polars as pl

    from scopa_sim.bots.advise import Advice as Ranking
    from scopa_sim.bots.base import Bot
    from scopa_sim.bots.belief import Belief
    from scopa_sim.bots.registry import PolicySpec
    from scopa_sim.game.cards import CardSet
    from scopa_sim.game.rules import Rules
    from scopa_sim.game.state import HandState
    from scopa_sim.records.review import HandTask
    from scopa_sim.records.review import Review as LibraryReview
    from scopa_sim.stats import Estimate


def _frame(rows: list[dict[str, Any]], columns: list[str]) -> pl.DataFrame:
    import polars as pl

    return pl.DataFrame(rows, schema=columns, orient="row")


# --------------------------------------------------------------------------- advise
@dataclass(frozen=True, repr=False)
class PlayValue:
    """One legal play as the policy valued it: ``margin``, the mean (of the hand's point
    margin for the side to play, or of the match objective's value: see
    :attr:`Advice.values`) with its 95% interval over ``margin.n`` samples (an
    :class:`~scopa_sim.stats.Estimate`), whether the policy chose it, and with
    ``objective=match`` its chance to win the match."""

    play: str
    margin: Estimate
    chosen: bool
    p_win: float | None = None

    @property
    def mean(self) -> float:
        """The play's mean value (``margin.estimate``)."""
        return self.margin.estimate

    @property
    def n(self) -> int:
        """The samples behind the mean (``margin.n``)."""
        return self.margin.n

    def __repr__(self) -> str:
        """``PlayValue(3S x AD 2S +2.255 [+1.9, +2.6], n=8, chosen)``."""
        win = f", P(win) {self.p_win:.3f}" if self.p_win is not None else ""
        return (f"PlayValue({self.play} {self.margin.text('+.3f')}, n={self.n:,}{win}"
                f"{', chosen' if self.chosen else ''})")  # fmt: skip

    def _repr_html_(self) -> str:
        """The play as a one-row table."""
        row = [esc(self.play), fmt(self.mean, "+.3f"), _bounds(self.margin), f"{self.n:,}",
               "best" if self.chosen else ""]  # fmt: skip
        return box("scopa-sim play value", table(["play", "mean", "95% CI", "n", ""], [row]))


def _bounds(e: Estimate) -> str:
    return f"[{fmt(e.low, '+.2f')}, {fmt(e.high, '+.2f')}]"


@dataclass(frozen=True, repr=False)
class Advice:
    """Every legal play of a position ranked by a search policy (the ``advise``
    command), best first. ``values`` says what the means are: ``hand_margin``,
    ``horizon_estimate`` (a depth-limited search's heuristic) or ``match_win_points``.
    ``ranking`` is the search's own result (each play's interval kind, and for a
    perfect-information policy the layout it saw), ``shown_belief`` the belief asked
    for with ``belief=``."""

    policy: str
    seed: int
    seat: int
    hand: str
    table: str
    values: str
    plays: tuple[PlayValue, ...]
    state: HandState = field(compare=False)
    doc: dict[str, Any] = field(compare=False, default_factory=dict)
    ranking: Ranking | None = field(compare=False, default=None)
    shown_belief: Belief | None = field(compare=False, default=None)

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

    def to_text(self) -> str:
        """What ``scopa-sim advise`` prints: the position, each play's value with its
        interval (or its kind), what the values are, and the belief if one was asked."""
        from scopa_sim.bots.advise import describe, interval_kind
        from scopa_sim.bots.belief import describe_belief
        from scopa_sim.records.record import opening_line
        from scopa_sim.stats.inference import MIN_SAMPLES

        state, result, shown = self.state, self.ranking, self.shown_belief
        assert result is not None
        lines = [describe(state, result.seat)]
        if state.rules.opening_fifteen and state.opening:
            lines.append(opening_line(state.rules, state.dealer, state.opening))
        match = self.values == "match_win_points"
        if match:
            score = "-".join(map(str, state.match_totals))
            what = f"match-win chance at {score} in points (P(win) beside it)"
        elif self.values == "horizon_estimate":
            what = "estimated point margin (heuristic value at the rollout horizon)"
        else:
            what = "expected point margin of the hand"
        lines.append(f"policy {self.policy}, seed {self.seed}; {what} for your side:")
        width = max(len(str(p.play)) for p in result.plays)
        extra = f"  {'P(win)':>7}" if match else ""
        lines.append(f"  {'play':<{width}}  {'margin':>7}  {'95% CI':>17}  {'n':>7}{extra}")
        p_win = {p.play: p.p_win for p in self.plays}
        for p in result.plays:
            mark = "  <- best" if p.chosen else ""
            m = p.margin
            ci = f"[{m.low:+.2f}, {m.high:+.2f}]" if p.estimated and not p.exact else ""
            pw = f"  {p_win[str(p.play)]:7.3f}" if match else ""
            ci = ci or interval_kind(p)
            lines.append(f"  {p.play!s:<{width}}  {p.mean:+7.3f}  {ci:>17}  {p.n:>7}{pw}{mark}")
        if result.layout is not None:
            name = self.policy.split(":")[0]
            cut = not all(p.exact for p in result.plays)
            lines.append(result.layout.sentence(name, cut=cut))
        elif any(not p.estimated for p in result.plays):
            lines.append(
                f"intervals not estimated: from fewer than {MIN_SAMPLES} samples (worlds or "
                "visits) no interval is given"
            )
        if shown is not None:
            model = shown.model.name if shown.model else "uniform"
            seen = shown.observations.plays
            lines.append(f"belief ({model}, {shown.method}, from {seen} plays seen):")
            lines += [f"  {line}" for line in describe_belief(shown)]
        return "\n".join(lines) + "\n"

    def __repr__(self) -> str:
        best = next(p for p in self.plays if p.chosen)
        return (
            f"Advice(seat {self.seat}, hand [{self.hand}], table [{self.table}]: best "
            f"{best.play} {best.margin.text('+.3f')} of "
            f"{len(self.plays)} plays; policy {self.policy}, seed {self.seed})"
        )

    def _repr_html_(self) -> str:
        from scopa_sim.records.review_html import cards_html, play_html

        head = ["play", "mean", "95% CI", "n", ""]
        rows = [
            [
                play_html(p.play),
                fmt(p.mean, "+.3f"),
                _bounds(p.margin),
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


def advisor(policy: str) -> PolicySpec:
    """The search policy a position's plays are ranked by, checked (the board checks a
    request with it before queueing the work).

    Raises:
        PolicyError: not a policy text, an unknown policy or parameter, or a policy that
            gives no values to rank plays by (the jitted ones).
    """
    from scopa_sim.bots.advise import check_advisor
    from scopa_sim.bots.registry import PolicySpec

    if not isinstance(policy, str):
        raise PolicyError(f"a policy is a text such as 'ismcts', not {policy!r}")
    spec = PolicySpec.parse(policy)
    check_advisor(spec)
    return search_budget(spec)


#: The arguments :func:`advise` takes for a position from the cards seat 0 knows.
CARD_ARGUMENTS = ("hand", "table", "mine", "theirs", "seen", "scope", "opponent_cards",
                  "totals", "preset", "rules", "overrides")  # fmt: skip


def _position(
    where: str | HandState | None, recorded: bool, given: dict[str, Any]
) -> tuple[HandState, bool]:
    """The state :func:`advise` ranks the plays of, and whether its hidden cards are the
    true ones (a game record's)."""
    from scopa_sim.game.state import HandState
    from scopa_sim.records.record import position_from_record

    if where is not None:
        extra = next((k for k in CARD_ARGUMENTS if given[k] is not None), None)
        if extra is not None:
            raise PositionError(
                f"the position brings its own rules and cards: drop {extra.replace('_', ' ')}"
            )
        if isinstance(where, HandState):
            return where, bool(recorded)
        if not isinstance(where, str):
            raise PositionError(
                "a position is a HandState or a text FILE.jsonl:LINE:PLAY, not "
                f"{type(where).__name__}"
            )
        if recorded:
            raise PositionError("recorded applies to a position given as a HandState")
        return position_from_record(where), True
    if recorded:
        raise PositionError("recorded applies to a position given as a HandState")
    if not given["hand"]:
        raise PositionError(
            "give the hand to play (and the table), or a position FILE.jsonl:LINE:PLAY of a "
            "game record"
        )
    return position(**given), False


def position(
    hand: str | CardSet | None,
    table: str | CardSet | None = None,
    *,
    preset: str | None = None,
    rules: Rules | None = None,
    overrides: Mapping[str, Any] | None = None,
    mine: str | CardSet | None = None,
    theirs: str | CardSet | None = None,
    seen: str | CardSet | None = None,
    scope: tuple[int, int] | None = None,
    opponent_cards: int | None = None,
    totals: tuple[int, int] | None = None,
) -> HandState:
    """The position of seat 0 (to play) in a 2-sided game from the cards it knows, as
    :func:`advise` reads them (the board's set-up too): the arguments are
    :func:`advise`'s.

    Raises:
        PositionError: a position that cannot occur under the rules.
        CardError: a malformed card, or a card given twice.
        RulesError: unknown rules.
        InputError: a count of opponent cards that is not a whole number from 0.
    """
    from scopa_sim.bots.advise import position_from_cards

    if opponent_cards is not None:
        whole("opponent cards", opponent_cards, 0)
    r = resolve_rules(preset, rules, overrides)
    return position_from_cards(
        r,
        cards(hand, "hand"),
        cards(table, "table"),
        mine=cards(mine, "mine"),
        theirs=cards(theirs, "theirs"),
        seen=cards(seen, "seen"),
        scope=pair((0, 0) if scope is None else scope, "scope", "1,0"),
        opponent_cards=opponent_cards,
        totals=pair((0, 0) if totals is None else totals, "totals", "7,9"),
    )


def check_cirulla_advice(spec: PolicySpec) -> None:
    """Cirulla's positions (RULES.md §10) are ranked by every search policy (the evaluator,
    ``eval``: rollouts by a kernel policy; PIMC, ISMCTS and the solver, with every
    parameter, the belief models and ``best`` included) but not by the other policies
    (the board checks a request with it before queueing the work).

    Args:
        spec: the search policy asked to rank a Cirulla position's plays (one that
            :func:`advisor` accepts).

    Raises:
        RulesError: a policy that does not play Cirulla, in one line.
    """
    from scopa_sim.sim.match import check_cirulla_policies

    if spec.name != "eval":
        check_cirulla_policies([spec])


_LAST_BOT = threading.local()  # per thread: (policy text, its bot) of the last advise


def _bot(spec: PolicySpec) -> Bot:
    """The bot of ``spec``: the one the calling thread's last :func:`advise` made when it
    had the same policy (a bot's analysis depends only on the state and the seed, and
    keeping it saves allocating its tables again), else a new one."""
    key = str(spec)
    last = getattr(_LAST_BOT, "value", None)
    if last is not None and last[0] == key:
        bot: Bot = last[1]
        return bot
    _LAST_BOT.value = None  # the old bot's memory freed before the new one's is taken
    bot = spec.bot()
    _LAST_BOT.value = (key, bot)
    return bot


@one_line_errors
def advise(
    hand: str | CardSet | None = None,
    table: str | CardSet | None = None,
    *,
    preset: str | None = None,
    rules: Rules | None = None,
    overrides: Mapping[str, Any] | None = None,
    mine: str | CardSet | None = None,
    theirs: str | CardSet | None = None,
    seen: str | CardSet | None = None,
    scope: tuple[int, int] | None = None,
    opponent_cards: int | None = None,
    totals: tuple[int, int] | None = None,
    position: str | HandState | None = None,
    recorded: bool = False,
    policy: str = "ismcts:iterations=20000",
    belief: str | None = None,
    seed: int = 0,
) -> Advice:
    """Rank every legal play of a position by expected point margin, with 95% CIs (the
    ``advise`` command, and the board's analysis).

    Args:
        hand, table: the cards of seat 0 (to play) and of the table, as text
            (``"7D 3S"``) or :class:`~scopa_sim.game.cards.CardSet`.
        preset, rules, overrides: the rules (a preset's, a :class:`Rules`, options
            changed on top; default the ``scopa`` preset).
        mine, theirs, seen: the piles of seat 0's side and of the other side, other
            cards out of play.
        scope: the scope of the two sides so far (default ``(0, 0)``).
        opponent_cards: the cards in each other hand (default: inferred).
        totals: the two sides' match points before this hand (default ``(0, 0)``).
        position: instead of the cards, a game record's position
            (``"FILE.jsonl:LINE:PLAY"``), or a :class:`HandState`.
        recorded: with a :class:`HandState` position, whether its hidden cards are the
            true ones (a game record's), which a perfect-information policy then sees.
        policy: the search policy that ranks the plays.
        belief: ``"expert"`` or ``"fit"``: also what the other seats may hold under that
            play model (:attr:`Advice.belief`).
        seed: the seed of the search.

    Returns:
        The :class:`Advice`, best play first.

    Raises:
        PolicyError: a policy or belief model that cannot be used.
        PositionError: a position that cannot occur, or cards given with ``position``.
        CardError: a malformed card, or a card given twice.
        RulesError: unknown rules; in Cirulla, a policy that does not play it.
        InputError: a seed or count of opponent cards that is not a whole number from 0.
    """
    from scopa_sim.bots.advise import advice_json
    from scopa_sim.bots.advise import advise as rank
    from scopa_sim.bots.belief import SHOWN_BELIEFS, belief_json
    from scopa_sim.bots.belief import belief as library_belief
    from scopa_sim.sim.pool import interruptible

    spec = advisor(policy)
    if belief is not None and belief not in SHOWN_BELIEFS:
        raise PolicyError(f"belief model {belief!r}: expected one of {', '.join(SHOWN_BELIEFS)}")
    seed = whole("seed", seed, 0)
    given = {
        "hand": hand, "table": table, "mine": mine, "theirs": theirs, "seen": seen,
        "scope": scope, "opponent_cards": opponent_cards, "totals": totals,
        "preset": preset, "rules": rules, "overrides": overrides,
    }  # fmt: skip
    state, true_layout = _position(position, recorded, given)
    if state.rules.capture_mode == "cirulla":
        check_cirulla_advice(spec)
    bot = _bot(spec)
    # on a worker thread, so that Ctrl-C (and SIGTERM on the command line) stops a long
    # search at once (:func:`scopa_sim.sim.pool.interruptible`)
    try:
        result = interruptible(rank, state, bot, seed, recorded=true_layout)
    except BaseException:
        _LAST_BOT.value = None  # an interrupted search may still use it: never again
        raise
    params = dict(spec.params)
    match = params.get("objective") == "match"
    values = "match_win_points" if match else "hand_margin"
    if not match and params.get("horizon") is not None:
        values = "horizon_estimate"
    win = getattr(bot, "win_probability", None)
    plays = tuple(
        PlayValue(
            str(p.play),
            p.margin,
            bool(p.chosen),
            float(win(state, p.mean)) if match and win else None,
        )
        for p in result.plays
    )
    hand_text, table_text = str(state.hand(result.seat)), str(state.table)
    doc = advice_json(result, spec, bot, seed)
    shown = library_belief(state, belief, seed=seed) if belief is not None else None
    if shown is not None:
        doc["belief"] = belief_json(shown)
    return Advice(
        str(spec), seed, result.seat, hand_text, table_text, values, plays, state, doc,
        result, shown,
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

    def to_text(self, details: bool = False) -> str:
        """What ``scopa-sim review`` prints: the summary per seat and side, then per hand
        its result (luck and skill) and its labelled decisions; with ``details`` (as
        ``review --details``) every decision of every hand and each deal's luck."""
        from scopa_sim.records.review import to_text

        text: str = to_text(self.result, details)
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

    def margin_plot(self, hand: int = 0, width: int = 900, height: int = 240) -> str:
        """The review page's expected-margin curve of hand ``hand`` (0-based, in review
        order) as inline SVG of ``width`` x ``height`` pixels.

        Raises:
            InputError: no such hand, or sizes that are not whole numbers from 1.
        """
        from scopa_sim.records.review_html import margin_plot

        hands = self.result.hands
        i = whole("hand", hand, 0)
        if i >= len(hands):
            raise InputError(f"the review has hands 0..{len(hands) - 1}, not {i}")
        svg: str = margin_plot(hands[i], whole("width", width, 1), whole("height", height, 1))
        return svg

    def __repr__(self) -> str:
        """One line: each seat's mean loss, accuracy and its labelled decisions."""
        r = self.result
        seats = []
        for s in r.seat_summaries():
            marks = ", ".join(plural(n, name) for name, n in s.counts.items() if n)
            seats.append(f"{s.who} mean loss {fmt(s.mean_loss.estimate, '.3f')}, accuracy "
                         f"{s.accuracy:.1f}%" + (f", {marks}" if marks else ""))  # fmt: skip
        return (f"GameReview({plural(len(r.hands), 'hand')}, evaluator {r.evaluator}: "
                f"{'; '.join(seats[:4])})")  # fmt: skip

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
    belief: str | None = None,
    progress: Callable[[int], None] | None = None,
    on_hands: Callable[[int], None] | None = None,
    text: str | None = None,
    name: str = "record",
    first_line: int = 1,
) -> GameReview:
    """Grade every decision of recorded hands (the ``review`` command): each decision's
    loss against the evaluator's best play (95% CI over common worlds), labels, luck per
    deal and a summary per seat and side.

    Args:
        targets: record files, each optionally followed by line numbers (``"3"``,
            ``"2-5"``) picking its hands (default: all), checked as ``replay`` checks them.
        policy: the evaluator (``"eval:worlds=16"``).
        seed: the seed of the evaluator's worlds.
        seats: grade only these seats' decisions (default: every seat).
        workers: hands reviewed at once, in threads (default: all cores; the results do
            not depend on it).
        allow_unfinished: accept a file whose last match has no winner yet.
        belief: a play model (``"expert"``, ``"fit"``): also each decision's belief about
            the other hands.
        progress: called with 1 after each hand reviewed.
        on_hands: called once with the number of hands to review, before the first.
        text: instead of files, record lines held in memory (one hand per line), each
            checked on its own (the match around it is not asked for).
        name, first_line: what the review calls ``text`` and the line number of its
            first line (a hand taken out of a file keeps its place).

    Returns:
        The :class:`GameReview`.

    Raises:
        ReviewError: no record file, an invalid one, a missing line or seat, an unknown
            evaluator.
        RecordError: a record that does not follow from its rules.
        PolicyError: an unknown belief model.
        InputError: a seat, seed or number of workers that is not a whole number in range.
    """
    from scopa_sim.errors import ReviewError
    from scopa_sim.records.review import check_seats, parse_evaluator, review_tasks, run_review

    if text is not None:
        if targets:
            raise ReviewError("give record files or a record text, not both")
        if not isinstance(policy, str):
            raise ReviewError(f"an evaluator is a policy text such as 'eval', not {policy!r}")
        ev = parse_evaluator(reviewer(policy))
        if belief is not None:
            from scopa_sim.bots.belief import get_model

            get_model(belief)
        chosen = wholes("seats", seats, 0) if seats is not None else None
        n = whole("workers", workers, 1) if workers is not None else os.cpu_count() or 1
        tasks = _text_tasks(text, name, first_line)  # each hand alone: any match unfinished
        if chosen:
            check_seats(tasks, chosen)
        if on_hands:
            on_hands(len(tasks))
        result = review_tasks(
            tasks, ev, whole("seed", seed, 0), workers=n, seats=chosen or None,
            progress=progress, belief_model=belief,
        )  # fmt: skip
        return GameReview(result)
    if not targets:
        raise ReviewError("give a record file to review")
    args = [os.fspath(t) if isinstance(t, os.PathLike) else t for t in targets]
    if not all(isinstance(a, str) for a in args):
        raise ReviewError(f"review takes record files and line numbers, not {targets!r}")
    reviewer(policy)
    chosen = wholes("seats", seats, 0) if seats is not None else None
    n = whole("workers", workers, 1) if workers is not None else os.cpu_count() or 1
    result = run_review(
        [str(a) for a in args],
        policy,
        whole("seed", seed, 0),
        seats=chosen or None,
        workers=n,
        allow_unfinished=allow_unfinished,
        progress=progress,
        on_tasks=on_hands,
        belief_model=belief,
    )
    return GameReview(result)


def reviewer(policy: str) -> str:
    """The evaluator a review grades decisions by, checked (the board checks a request
    with it before queueing the work); returns its text.

    Raises:
        ReviewError: not a text, or not an ``eval`` policy (the search bots give no
            paired values per world).
        PolicyError: an unknown parameter or a value out of range.
    """
    from scopa_sim.bots.registry import PolicySpec
    from scopa_sim.errors import ReviewError
    from scopa_sim.records.review import parse_evaluator

    if not isinstance(policy, str):
        raise ReviewError(f"an evaluator is a policy text such as 'eval', not {policy!r}")
    search_budget(PolicySpec.parse(policy))
    parse_evaluator(policy)
    return policy


def review_labels() -> dict[str, float]:
    """The labels a review gives a decision, mildest first, each with the loss (points)
    from which it is given when the loss's interval excludes 0."""
    from scopa_sim.records.review import THRESHOLDS

    return dict(THRESHOLDS)


#: The longest record text :func:`review` takes (characters).
MAX_RECORD_TEXT = 8 << 20


def _text_tasks(text: object, name: object, first_line: object) -> list[HandTask]:
    """The hands of a record text (one per line, blank lines skipped), each checked on
    its own as the board checks a hand taken out of its file; a ReviewError naming the
    first line that is not a valid hand."""
    import json

    from scopa_sim.errors import ReviewError
    from scopa_sim.records.record import check_record
    from scopa_sim.records.review import HandTask as Task

    if not isinstance(text, str):
        raise ReviewError(f"a record text is a str of record lines, not {type(text).__name__}")
    if not isinstance(name, str):
        raise ReviewError(f"a record text's name is a str, not {type(name).__name__}")
    if len(text) > MAX_RECORD_TEXT:
        raise ReviewError(f"{name}: a record text is at most {MAX_RECORD_TEXT:,} characters")
    start = whole("first line", first_line, 1)
    tasks = []
    for i, line in enumerate(text.split("\n")):
        if not line.strip():
            continue
        where = f"{name} line {start + i}"
        try:
            check_record(json.loads(line))
        except RecursionError:
            raise ReviewError(
                f"{where}: not a valid scopa-record/1 hand: nested too deeply"
            ) from None
        except json.JSONDecodeError as e:
            raise ReviewError(
                f"{where}: not a valid scopa-record/1 hand: malformed JSON ({e.msg})"
            ) from None
        except (ScopaError, ValueError, OverflowError) as e:
            raise ReviewError(f"{where}: not a valid scopa-record/1 hand: {e}") from None
        tasks.append(Task(name, start + i, line))
    if not tasks:
        raise ReviewError(f"{name}: the record text holds no hand")
    return tasks


__all__ = [
    "CARD_ARGUMENTS",
    "MAX_RECORD_TEXT",
    "Advice",
    "GameReview",
    "PlayValue",
    "advise",
    "advisor",
    "check_cirulla_advice",
    "position",
    "review",
    "review_labels",
    "reviewer",
]
