"""Game review: every decision of recorded hands graded in points lost, luck and skill
separated.

For each play of a hand (``scopa-record/1``, checked first by the same checker as
``replay``) the shared evaluator (:mod:`scopa_sim.bots.evaluate`) values every legal play
from the deciding seat's information set on common worlds; the **loss** of the play
made is the best play's mean minus its mean, a paired difference with a 95% interval
over the worlds.  A decision with one legal play is *forced* and not graded.  A loss
whose interval excludes 0 gets a **label** by :data:`THRESHOLDS` (calibrated on the
measured losses of greedy's and the evaluator's own play:
``python -m scopa_sim.experiments.review``, ``benchmarks/results/review.json``).

**Luck.** Each deal is a chance event.  Its luck for a side is the evaluator's
expected hand margin of that side once the cards are dealt (every hand known, only the
stock's order unknown: :data:`~scopa_sim.bots.evaluate.DEALT`) minus the same before the
deal (no hand known: :data:`~scopa_sim.bots.evaluate.PUBLIC`); every hand counts, since the
cards the opponents were dealt are luck too (seen from the side's own hand alone they
would turn up later as its skill), and the expectation of the first over the deals is
the second, so a deal's luck averages 0.  Before the first deal the
expected margin is the **prior** of the side's position (dealer's side or not),
measured by the evaluator over random deals (:meth:`Evaluator.prior`); being given
that position is luck too, counted from an even game (0).  A side's luck in a hand is
its prior plus the luck of every deal, and its **skill** (the luck-adjusted result) is
the hand's actual margin minus its luck, so ``result = luck + skill`` exactly; skill
is what the plays (both sides') changed in the expected margin between the deals.

Summaries (per seat and per side): unforced decisions, the mean loss per unforced
decision with a 95% interval over decisions, label counts, the **accuracy**
``100 * (1 - sum of losses / sum of random losses)`` -- a random loss being the
expected loss of a uniformly random legal play in the same position, so 100% is
always the evaluator's choice and 0% is no better than chance -- and a **rating band**
from the mean loss (:data:`BANDS`).
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scopa_sim.bots.base import normal_estimate
from scopa_sim.bots.belief import belief, get_model
from scopa_sim.bots.evaluate import DEALT, PUBLIC, Evaluator, final_margins
from scopa_sim.bots.registry import PolicySpec
from scopa_sim.errors import FileError, RecordError, ReviewError
from scopa_sim.game.state import HandState
from scopa_sim.records.record import check_lines, decode_hand, read_record_lines
from scopa_sim.sim import pool as P
from scopa_sim.stats.estimate import Estimate
from scopa_sim.stats.inference import MIN_SAMPLES
from scopa_sim.wording import plural

#: Labels from the mildest, with the smallest loss (points) that earns each, derived from
#: the losses measured by ``benchmarks/bench_review.py`` (``benchmarks/results/review.json``,
#: 2-player scopa, default evaluator): *inaccuracy* from the 99th percentile of the
#: evaluator's own losses (0.26: evaluation noise alone reaches it in 1 decision in 100),
#: *mistake* from the 75th and *blunder* from the 90th percentile of greedy's losses
#: that are distinguishable from 0 (0.81 and 1.58: greedy's worst quarter and tenth),
#: each rounded up to 0.05.
THRESHOLDS: dict[str, float] = {"inaccuracy": 0.3, "mistake": 0.85, "blunder": 1.6}
LABELS: tuple[str, ...] = tuple(THRESHOLDS)

#: Rating bands by mean loss per unforced decision (points): the first band whose bound
#: the mean loss does not exceed.  The bounds lie halfway (geometric mean, rounded)
#: between the mean losses measured for the evaluator's own play (0.014), the strong
#: search bot ``ismcts:horizon=4,c=1`` (0.025), greedy (0.131) and random (0.217)
#: (``benchmarks/results/review.json``).
BANDS: tuple[tuple[float, str], ...] = (
    (0.02, "expert"),
    (0.06, "strong"),
    (0.17, "club"),
    (math.inf, "beginner"),
)


#: The plot's points after plays (not deals) use 1 / CURVE_SHARE of the worlds.
CURVE_SHARE = 4


def label_for(mean: float, low: float) -> str | None:
    """The label of a loss: None unless its interval excludes 0 (``low > 0``), then the
    most severe label whose threshold ``mean`` reaches.  An interval that was not
    estimated (``low`` NaN: too few worlds, :data:`~scopa_sim.stats.inference.MIN_SAMPLES`)
    labels nothing."""
    if not (math.isfinite(low) and low > 0):
        return None
    out = None
    for name, threshold in THRESHOLDS.items():
        if mean >= threshold:
            out = name
    return out


def band_for(mean_loss: float) -> str:
    """The rating band of a mean loss per unforced decision."""
    if not math.isfinite(mean_loss):
        return "-"
    return next(name for bound, name in BANDS if mean_loss <= bound)


# --------------------------------------------------------------------------- results
@dataclass(frozen=True)
class Decision:
    """One play of a hand, graded.  ``play`` is its 0-based number in the hand (as in
    ``advise --position FILE:LINE:PLAY``); values are the deciding side's expected hand
    margins; ``top`` lists the best plays with their values."""

    file: str
    line: int
    match: int
    hand: int
    play: int
    seat: int
    side: int
    forced: bool
    exact: bool
    legal: int
    chosen: str
    best: str
    chosen_value: float
    best_value: float
    #: The value lost against the best play (``best_value - chosen_value``) with its 95%
    #: interval over the evaluator's worlds (NaN bounds: not estimated, or exact).
    loss: Estimate
    random_loss: float
    label: str | None
    hand_cards: str
    table: str
    piles: tuple[str, ...]
    scope: tuple[int, ...]
    top: tuple[tuple[str, float], ...]
    #: With ``review --belief``: per other seat whose hand the belief weighs, its most
    #: likely hands with their probabilities (:mod:`scopa_sim.bots.belief`).
    belief: tuple[tuple[int, tuple[tuple[str, float], ...]], ...] = ()

    @property
    def interval(self) -> str:
        """What the loss's interval is: ``95%`` (over the worlds), ``exact`` (a solve, no
        width) or ``not estimated`` (too few worlds: no bounds, and no label)."""
        if self.exact:
            return "exact"
        return "95%" if self.loss.estimated else "not estimated"

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready, as ``scopa-sim review --json`` gives a decision."""
        extra: dict[str, Any] = {}
        if self.belief:
            extra["belief"] = {
                str(seat): [{"hand": h, "p": p} for h, p in top] for seat, top in self.belief
            }
        return {
            "file": self.file,
            "line": self.line,
            "match": self.match,
            "hand": self.hand,
            "play": self.play,
            "seat": self.seat,
            "side": self.side,
            "forced": self.forced,
            "exact": self.exact,
            "legal_plays": self.legal,
            "chosen": self.chosen,
            "best": self.best,
            "chosen_value": self.chosen_value,
            "best_value": self.best_value,
            "loss": self.loss.estimate,
            "loss_ci": [_num(self.loss.low), _num(self.loss.high)],
            "interval": self.interval,
            "random_loss": self.random_loss,
            "label": self.label,
            "position": {
                "hand": self.hand_cards,
                "table": self.table,
                "piles": list(self.piles),
                "scope": list(self.scope),
            },
            "top": [{"play": p, "value": v} for p, v in self.top],
            **extra,
        }


@dataclass(frozen=True)
class Deal:
    """A chance event: deal ``index`` (0 = the first, with the table), dealt after
    ``after_plays`` plays; each side's expected margin before and after, and the luck."""

    index: int
    after_plays: int
    before: tuple[float, ...]
    after: tuple[float, ...]

    @property
    def luck(self) -> tuple[float, ...]:
        """Each side's luck of the deal: its expected margin after the deal minus before."""
        return tuple(a - b for a, b in zip(self.after, self.before, strict=True))


@dataclass(frozen=True)
class HandReview:
    """The review of one hand: every play (all seats), the deals, and the expected
    margin of each side after each event (``curve``: (plays made, margins per side))."""

    file: str
    line: int
    match: int
    hand: int
    dealer: int
    players: int
    sides: int
    rules_digest: str
    prior: tuple[float, ...]
    decisions: tuple[Decision, ...]
    deals: tuple[Deal, ...]
    result: tuple[float, ...]
    curve: tuple[tuple[int, tuple[float, ...]], ...]

    @property
    def luck(self) -> tuple[float, ...]:
        """Each side's luck: its prior (from an even game) plus every deal's luck."""
        return tuple(self.prior[s] + sum(d.luck[s] for d in self.deals) for s in range(self.sides))

    @property
    def skill(self) -> tuple[float, ...]:
        """Each side's luck-adjusted result: actual margin minus luck."""
        return tuple(r - lk for r, lk in zip(self.result, self.luck, strict=True))


@dataclass(frozen=True)
class Summary:
    """Graded decisions of one seat or side, over every reviewed hand."""

    who: str
    decisions: int
    forced: int
    #: The mean loss of the unforced decisions with its 95% normal interval over them.
    mean_loss: Estimate
    total_loss: float
    accuracy: float
    band: str
    counts: dict[str, int]
    luck: float | None = None
    skill: float | None = None
    result: float | None = None
    hands: int = 0

    @property
    def ci_estimated(self) -> bool:
        """Whether the mean loss has an interval (from enough unforced decisions)."""
        return self.mean_loss.estimated

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready, as ``scopa-sim review --json`` gives a seat's or a side's summary."""
        out: dict[str, Any] = {
            "decisions": self.decisions,
            "forced": self.forced,
            "mean_loss": _num(self.mean_loss.estimate),
            "mean_loss_ci": [_num(self.mean_loss.low), _num(self.mean_loss.high)],
            "mean_loss_interval": "95%" if self.ci_estimated else "not estimated",
            "total_loss": self.total_loss,
            "accuracy": _num(self.accuracy),
            "band": self.band,
            **self.counts,
        }
        if self.luck is not None:
            out.update(hands=self.hands, result=self.result, luck=self.luck, skill=self.skill)
        return out


def _num(x: float) -> float | None:
    return x if math.isfinite(x) else None


def summarize(who: str, decisions: Sequence[Decision]) -> Summary:
    """Mean loss (95% normal interval over decisions, not estimated -- NaN -- from fewer
    than :data:`~scopa_sim.stats.inference.MIN_SAMPLES`), label counts, accuracy and band of
    the unforced decisions among ``decisions``."""
    graded = [d for d in decisions if not d.forced]
    n = len(graded)
    losses = np.array([d.loss.estimate for d in graded], dtype=np.float64)
    counts = {name: sum(1 for d in graded if d.label == name) for name in LABELS}
    mean = float(losses.mean()) if n else math.nan
    loss = normal_estimate(mean, float(losses.std(ddof=1)) if n > 1 else math.nan, n)
    reference = sum(d.random_loss for d in graded)
    total = float(losses.sum())
    accuracy = 100.0 * (1.0 - total / reference) if reference > 0 else (100.0 if n else math.nan)
    return Summary(who, n, len(decisions) - n, loss, total, accuracy, band_for(mean), counts)


@dataclass(frozen=True)
class Review:
    """A whole review: the hands, the seats graded, and the evaluator and seed used."""

    evaluator: str
    seed: int
    hands: tuple[HandReview, ...]
    seats: frozenset[int] | None = None
    files: tuple[str, ...] = field(default=())

    def decisions(self) -> list[Decision]:
        """The decisions of the seats under review (all seats by default), forced ones
        included."""
        return [
            d for h in self.hands for d in h.decisions if self.seats is None or d.seat in self.seats
        ]

    def seat_summaries(self) -> list[Summary]:
        """A :class:`Summary` for each seat under review."""
        ds = self.decisions()
        seats = sorted({d.seat for d in ds})
        return [summarize(f"seat {s}", [d for d in ds if d.seat == s]) for s in seats]

    def side_summaries(self) -> list[Summary]:
        """A :class:`Summary` for each side, with its luck, skill and result over its hands."""
        ds = self.decisions()
        out = []
        for side in sorted({d.side for d in ds}):
            base = summarize(f"side {side}", [d for d in ds if d.side == side])
            hands = [h for h in self.hands if side < h.sides]
            out.append(
                dataclasses.replace(
                    base,
                    luck=float(sum(h.luck[side] for h in hands)),
                    skill=float(sum(h.skill[side] for h in hands)),
                    result=float(sum(h.result[side] for h in hands)),
                    hands=len(hands),
                )
            )
        return out


# --------------------------------------------------------------------------- input
@dataclass(frozen=True)
class HandTask:
    """One hand to review: its file, line number (1-based) and record text."""

    file: str
    line: int
    text: str


_LINE_SPEC = re.compile(r"^(\d+)(?:-(\d+))?$")


def parse_targets(args: Sequence[str]) -> list[tuple[str, list[range] | None]]:
    """``FILE [LINE|A-B ...] [FILE ...]`` into (file, its line ranges or None for all).
    An argument that looks like a line number or range belongs to the file before it.
    Ranges stay ranges until the file's length is known (:func:`load_tasks`): ``1-10**30``
    is a line that does not exist, not a list too long to build.

    Raises:
        ReviewError: no record file, or a bad line range.
    """
    out: list[tuple[str, list[range] | None]] = []
    for a in args:
        m = _LINE_SPEC.match(a)
        if m and out:
            lo = int(m.group(1))
            hi = int(m.group(2) or lo)
            if lo < 1 or hi < lo:
                raise ReviewError(f"line range {a!r}: expected N or A-B with 1 <= A <= B")
            path, lines = out[-1]
            out[-1] = (path, [*(lines or []), range(lo, hi + 1)])
        else:
            out.append((a, None))
    if not out:
        raise ReviewError("give at least one record file")
    return out


def load_tasks(
    targets: Sequence[tuple[str, Sequence[range] | None]], allow_unfinished: bool = False
) -> list[HandTask]:
    """Check each file as ``replay`` does and return the hands asked for, in order;
    an invalid file or a line it does not have is a :class:`ReviewError`.

    A hand asked for twice -- the same line twice (``games.jsonl 2 1-3``), the same file
    twice, or a copy of the same record line in another file -- is a ReviewError naming
    both places: each hand's result, luck and skill would count twice in the summaries
    (a +4 hand reported as +8), and no reading of such a request needs that.

    Raises:
        ReviewError: a missing, unreadable, non-text or invalid file, a line it does not
            have, a hand asked for twice.
    """
    tasks: list[HandTask] = []
    seen: dict[str, HandTask] = {}  # the record, canonical, -> where it was first asked for
    for path, lines in targets:
        try:
            texts = read_record_lines(path)  # as replay reads it, from a regular file
        except (FileError, RecordError) as e:
            raise ReviewError(str(e)) from None
        summary = check_lines(texts, allow_unfinished)
        if summary.errors:
            line, reason = summary.errors[0]
            where = f"line {line}: " if line else ""
            more = len(summary.errors) - 1
            extra = f" (and {plural(more, 'more violation')}; see scopa-sim replay)" if more else ""
            raise ReviewError(f"{path}: not a valid scopa-record/1 file: {where}{reason}{extra}")
        wanted = lines if lines is not None else [range(1, len(texts) + 1)]
        for span in wanted:
            if span[-1] > len(texts):
                missing = max(span[0], len(texts) + 1)
                raise ReviewError(f"{path} has lines 1..{len(texts)}, not {missing}")
        for n in (n for span in wanted for n in span):
            task = HandTask(path, n, texts[n - 1])
            key = _canonical(task.text)
            first = seen.setdefault(key, task)
            if first is not task:
                raise ReviewError(
                    f"{first.file} line {first.line} and {path} line {n} are the same hand "
                    f"({_which(task.text)}): a hand is reviewed once, so give it once "
                    "(its result, luck and skill would count twice)"
                )
            tasks.append(task)
    return tasks


def _canonical(text: str) -> str:
    """A record line with its formatting dropped (keys sorted, no spaces), so that a
    copy of a hand is recognised however it was written out."""
    return json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"))


def _which(text: str) -> str:
    """``match M hand H`` of a (valid) record line."""
    obj = json.loads(text)
    return f"match {obj['match']} hand {obj['hand']}"


def check_seats(tasks: Sequence[HandTask], seats: Iterable[int]) -> None:
    """Every seat asked for must exist in every hand reviewed.

    Raises:
        ReviewError: a seat that a reviewed hand does not have.
    """
    for t in tasks:
        players = int(json.loads(t.text)["rules"]["players"])
        for s in seats:
            if not 0 <= s < players:
                raise ReviewError(
                    f"seat {s}: {t.file} line {t.line} has {players} players "
                    f"(seats 0..{players - 1})"
                )


def parse_evaluator(text: str) -> Evaluator:
    """An evaluator from its policy text (``eval:worlds=256,rollout=greedy,exact=1``);
    other policies give no paired values per world, so they are refused.

    Raises:
        ReviewError: a policy other than ``eval``.
        PolicyError: bad parameters of ``eval``.
    """
    spec = PolicySpec.parse(text)
    if spec.name != "eval":
        raise ReviewError(
            f"unknown evaluator {text!r}: review evaluates with eval[:worlds=N,rollout="
            f"greedy|expert|random|learned,exact=0|1] (the search bots give no paired values "
            "per world)"
        )
    bot = spec.bot()
    evaluator: Evaluator = bot.evaluator  # type: ignore[attr-defined]
    return evaluator


# --------------------------------------------------------------------------- reviewing
def _means(x: np.ndarray) -> tuple[float, ...]:
    return tuple(float(v) for v in x.mean(axis=0))


def _belief_top(state: HandState, model: str | None) -> tuple:
    """The most likely hands of each other seat under the belief ``model`` of the seat to
    play (nothing without a model, or where the belief has no evidence)."""
    if model is None:
        return ()
    b = belief(state, model)
    return tuple(
        (seat, tuple((str(h), p) for h, p in b.holdings(seat, BELIEF_TOP))) for seat in b.seats
    )


#: Hands shown per seat with ``--belief``.
BELIEF_TOP = 3


def review_hand(
    task: HandTask, evaluator: Evaluator, seed: int, belief_model: str | None = None
) -> HandReview:
    """Review every play of one (valid) hand record (with ``belief_model``, each
    decision also gets the deciding seat's belief about the other hands)."""
    ev = Evaluator(evaluator.worlds, evaluator.rollout, evaluator.exact)  # own tables
    obj = json.loads(task.text)
    state, plays = decode_hand(obj)
    rules, dealer = state.rules, state.dealer
    sides = rules.sides
    prior = tuple(float(x) for x in ev.prior(rules, dealer))
    after0 = _means(ev.position_values(state, DEALT, seed))
    deal_list = [Deal(0, 0, prior, after0)]
    curve: list[tuple[int, tuple[float, ...]]] = [(0, prior), (0, after0)]
    decisions = []
    for k, play in enumerate(plays):
        seat = state.turn
        e = ev.evaluate(state, seed)
        i = e.index(state.listed_play(play))  # a matta's other legal value: its listed play
        loss = e.loss(i)
        forced = len(e.plays) == 1
        order = sorted(range(len(e.plays)), key=lambda j: (-e.means[j], j))
        decisions.append(
            Decision(
                file=task.file,
                line=task.line,
                match=int(obj["match"]),
                hand=int(obj["hand"]),
                play=k,
                seat=seat,
                side=e.side,
                forced=forced,
                exact=e.exact,
                legal=len(e.plays),
                chosen=str(play),
                best=str(e.plays[e.best]),
                chosen_value=float(e.means[i]),
                best_value=float(e.means[e.best]),
                loss=loss,
                random_loss=e.random_loss,
                label=None if forced else label_for(loss.estimate, loss.low),
                hand_cards=str(state.hand(seat)),
                table=str(state.table),
                piles=tuple(str(x) for x in state.piles),
                scope=tuple(state.scope),
                top=tuple((str(e.plays[j]), float(e.means[j])) for j in order[:5]),
                belief=_belief_top(state, belief_model),
            )
        )
        stock = len(state.stock)
        state.push(play)
        if not state.is_over and len(state.stock) < stock:  # the next round was dealt
            before = _means(ev.position_values(state, PUBLIC, seed))
            after = _means(ev.position_values(state, DEALT, seed))
            deal_list.append(Deal(len(deal_list), k + 1, before, after))
            curve += [(k + 1, before), (k + 1, after)]
        else:  # a point of the plot only: a quarter of the worlds
            v = ev.position_values(state, DEALT, seed, max(1, ev.worlds // CURVE_SHARE))
            curve.append((k + 1, _means(v)))
    result = tuple(float(x) for x in final_margins(state))
    return HandReview(
        file=task.file,
        line=task.line,
        match=int(obj["match"]),
        hand=int(obj["hand"]),
        dealer=dealer,
        players=rules.players,
        sides=sides,
        rules_digest=rules.digest(),
        prior=prior,
        decisions=tuple(decisions),
        deals=tuple(deal_list),
        result=result,
        curve=tuple(curve),
    )


def review_tasks(
    tasks: Sequence[HandTask],
    evaluator: Evaluator,
    seed: int,
    *,
    workers: int = 1,
    seats: Iterable[int] | None = None,
    progress: Callable[[int], None] | None = None,
    belief_model: str | None = None,
) -> Review:
    """Review hands, in ``workers`` threads (every hand queued at once, the reviews taken
    in order); each hand depends only on its record, the evaluator and the seed, so the
    results are the same for any number of workers.  ``progress(1)`` after each hand.

    Threads, not processes: nearly all of a review's time is the evaluator's kernel, which
    runs without the GIL, so threads scale without starting processes that must load the
    kernels and compute the prior again.  Each thread reviews with its own copy of the
    evaluator, whose transposition table that kernel writes without the GIL: one table
    shared by two threads could mix their entries.  An error or an interrupt cancels the
    hands not started (:func:`scopa_sim.sim.pool.ordered`); the threads finish theirs.

    Raises:
        ReviewError: ``workers`` below 1.
    """
    if workers < 1:
        raise ReviewError(f"workers must be at least 1, not {workers}")
    out: list[HandReview] = []
    if workers == 1 or len(tasks) < 2:
        for t in tasks:
            out.append(review_hand(t, evaluator, seed, belief_model))
            if progress:
                progress(1)
    else:
        from concurrent.futures import ThreadPoolExecutor

        own = threading.local()

        def review_one(task: HandTask) -> HandReview:
            if not hasattr(own, "evaluator"):
                own.evaluator = dataclasses.replace(evaluator)  # a table of its own
            return review_hand(task, own.evaluator, seed, belief_model)

        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="review") as pool:
            for h in P.ordered(pool, review_one, ((t,) for t in tasks), len(tasks)):
                out.append(h)
                if progress:
                    progress(1)
    files = tuple(dict.fromkeys(t.file for t in tasks))
    chosen = frozenset(seats) if seats is not None else None
    return Review(str(evaluator), seed, tuple(out), chosen, files)


# --------------------------------------------------------------------------- output
def to_json(review: Review) -> dict[str, Any]:
    """The review as a JSON-ready dict: ``decisions`` (the reviewed seats' plays, forced
    ones flagged), ``summary`` (``seats`` and ``sides``), and ``hands`` (luck, skill and
    the expected-margin curve per hand)."""
    return {
        "evaluator": review.evaluator,
        "seed": review.seed,
        "values": "hand_margin",
        "thresholds": THRESHOLDS,
        "interval_min_worlds": MIN_SAMPLES,
        "decisions": [d.as_dict() for d in review.decisions()],
        "summary": {
            "hands": len(review.hands),
            "seats": {s.who.split()[1]: s.as_dict() for s in review.seat_summaries()},
            "sides": {s.who.split()[1]: s.as_dict() for s in review.side_summaries()},
        },
        "hands": [
            {
                "file": h.file,
                "line": h.line,
                "match": h.match,
                "hand": h.hand,
                "dealer": h.dealer,
                "prior": list(h.prior),
                "deals": [
                    {
                        "deal": d.index,
                        "after_plays": d.after_plays,
                        "before": list(d.before),
                        "after": list(d.after),
                        "luck": list(d.luck),
                    }
                    for d in h.deals
                ],
                "result": list(h.result),
                "luck": list(h.luck),
                "skill": list(h.skill),
                "curve": [{"plays": x, "margins": list(y)} for x, y in h.curve],
            }
            for h in review.hands
        ],
    }


def _signed(xs: Sequence[float]) -> str:
    return ", ".join(f"side {s} {x:+.2f}" for s, x in enumerate(xs))


#: The labels' plurals, for counts.
_LABELS_PLURAL = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}


def summary_lines(review: Review) -> list[str]:
    """The summary block of the text report: a line per seat and side (with the side's
    result, luck and skill)."""
    out = []
    for s in [*review.seat_summaries(), *review.side_summaries()]:
        if s.decisions and s.ci_estimated:
            m = s.mean_loss
            loss = f"mean loss {m.estimate:.3f} [{m.low:.3f}, {m.high:.3f}]"
        elif s.decisions:
            loss = f"mean loss {s.mean_loss.estimate:.3f} [interval not estimated]"
        else:
            loss = "mean loss -"
        counts = ", ".join(plural(n, name, _LABELS_PLURAL[name]) for name, n in s.counts.items())
        line = (
            f"  {s.who}: {plural(s.decisions, 'unforced decision')} ({s.forced} forced), {loss} "
            f"points per decision, accuracy {s.accuracy:.1f}%, {counts}; band {s.band}"
        )
        if s.luck is not None:
            line += (
                f"\n    {plural(s.hands, 'hand')}: result {s.result:+.2f} = luck {s.luck:+.2f} "
                f"+ skill {s.skill:+.2f}"
            )
        out.append(line)
    return out


def _result_line(h: HandReview) -> str:
    return "; ".join(
        f"side {s} {h.result[s]:+.0f} = luck {h.luck[s]:+.2f} + skill {h.skill[s]:+.2f}"
        for s in range(h.sides)
    )


def _decision_cells(d: Decision) -> tuple[str, str]:
    """A decision's interval cell and label cell in the report."""
    if d.forced:
        return "", "(forced)"
    if d.best == d.chosen:
        return "", ""
    if d.exact:
        return "exact", d.label or ""
    if d.interval == "not estimated":
        return "not estimated", ""
    return f"[{d.loss.low:+.2f}, {d.loss.high:+.2f}]", d.label or ""


def to_text(review: Review, details: bool = False) -> str:
    """A readable report: what was reviewed, the summary per seat and side, then per hand
    its result split into luck and skill and the decisions given a label (``details``:
    every decision of every hand, with the luck of each deal)."""
    lines = [
        f"review: {plural(len(review.hands), 'hand')}, evaluator {review.evaluator}, "
        f"seed {review.seed}",
        "values: expected hand point margins of the deciding side; loss = best - chosen, "
        f"95% CI over the common worlds (exact: solved; not estimated from fewer than "
        f"{MIN_SAMPLES} worlds)",
        "labels (an estimated CI excluding 0): "
        + ", ".join(f"{k} >= {v:g}" for k, v in THRESHOLDS.items())
        + " points",
        "",
        "summary",
        *summary_lines(review),
    ]
    seats = review.seats
    for h in review.hands:
        shown = [d for d in h.decisions if seats is None or d.seat in seats]
        lines.append("")
        where = f"{h.file} line {h.line}: match {h.match} hand {h.hand}"
        if not details:
            flagged = [d for d in shown if d.label and not d.forced]
            lines.append(f"{where}: {_result_line(h)}")
            for d in flagged:
                ci, label = _decision_cells(d)
                lines.append(
                    f"  play {d.play}, seat {d.seat}: {d.chosen}, best {d.best}, loss "
                    f"{d.loss.estimate:.3f} {ci} {label}"
                )
            continue
        lines.append(f"{where}, dealer seat {h.dealer}, {h.players} players")
        lines.append(f"  prior (expected margin of the position): {_signed(h.prior)}")
        deals = {d.after_plays: d for d in h.deals}
        width = max([len(d.chosen) for d in h.decisions] + [len(d.best) for d in h.decisions] + [6])
        lines.append(
            f"  {'#':>3} {'seat':>4}  {'chosen':<{width}}  {'best':<{width}}  {'loss':>6}  "
            f"{'95% CI':<17} label"
        )
        for d in h.decisions:
            if d.play in deals:
                dl = deals[d.play]
                lines.append(f"  -- deal {dl.index}: luck {_signed(dl.luck)}")
            if seats is not None and d.seat not in seats:
                continue
            ci, label = _decision_cells(d)
            best = "=" if d.best == d.chosen else d.best
            lines.append(
                f"  {d.play:>3} {d.seat:>4}  {d.chosen:<{width}}  {best:<{width}}  "
                f"{d.loss.estimate:6.3f}  {ci:<17} {label}".rstrip()
            )
            for seat, top in d.belief:
                held = ", ".join(f"[{h}] {p:.0%}" for h, p in top)
                lines.append(f"{'':>10}belief: seat {seat} holds {held}")
        lines.append(f"  result: {_result_line(h)}")
    if not details and review.hands:
        lines.append("")
        lines.append("every decision, with each deal's luck: --details (details=True in Python)")
    return "\n".join(lines) + "\n"


def run_review(
    args: Sequence[str],
    evaluator: str | Evaluator = "eval",
    seed: int = 0,
    *,
    seats: Sequence[int] | None = None,
    workers: int = 1,
    allow_unfinished: bool = False,
    progress: Callable[[int], None] | None = None,
    on_tasks: Callable[[int], None] | None = None,
    belief_model: str | None = None,
) -> Review:
    """Everything ``scopa-sim review`` does before printing: parse, check, review
    (``belief_model``: also each decision's belief, see :func:`review_hand`).

    Args:
        args: the record files and their lines, as ``scopa-sim review`` takes them
            (:func:`parse_targets`).
        evaluator: the evaluator or its policy text (:func:`parse_evaluator`).
        seed: the seed of the evaluator's worlds.
        seats: the seats whose decisions are reviewed (default all).
        workers: the threads to review in.
        allow_unfinished: accept files whose last match is unfinished.
        progress: called with 1 after each hand.
        on_tasks: called with the number of hands once they are known.
        belief_model: also give each decision's belief under this model.

    Returns:
        The :class:`Review`.

    Raises:
        ReviewError: a bad file, line, seat or evaluator.
        PolicyError: a bad belief model or evaluator parameter.
    """
    ev = parse_evaluator(evaluator) if isinstance(evaluator, str) else evaluator
    if belief_model is not None:
        get_model(belief_model)  # an unknown name fails before any work
    tasks = load_tasks(parse_targets(args), allow_unfinished)
    if seats:
        check_seats(tasks, seats)
    if on_tasks:
        on_tasks(len(tasks))
    return review_tasks(
        tasks,
        ev,
        seed,
        workers=workers,
        seats=seats or None,
        progress=progress,
        belief_model=belief_model,
    )


__all__ = [
    "BANDS",
    "LABELS",
    "THRESHOLDS",
    "Deal",
    "Decision",
    "HandReview",
    "HandTask",
    "Review",
    "Summary",
    "band_for",
    "label_for",
    "load_tasks",
    "parse_evaluator",
    "parse_targets",
    "review_hand",
    "review_tasks",
    "run_review",
    "summarize",
    "to_json",
    "to_text",
]
