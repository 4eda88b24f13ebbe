"""Games: :func:`play` (complete matches, with their game records) and :func:`replay`
(check a record file against its rules; :func:`replay_hands` shows its hands play by
play), the functions the ``play`` and ``replay`` commands and a notebook call alike.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from scopa_sim.api.display import box, table
from scopa_sim.api.inputs import (
    named_rules,
    one_line_errors,
    policy_texts,
    search_budget,
    whole,
)
from scopa_sim.errors import FileError, InputError, RecordError, ScopaError
from scopa_sim.wording import plural

if TYPE_CHECKING:
    from scopa_sim.bots.registry import PolicySpec
    from scopa_sim.game.rules import Rules
    from scopa_sim.records.record import ReplaySummary

#: The largest count of matches: an index that fits the int64 seed streams.
MAX_MATCHES = 2**63 - 1


@dataclass(frozen=True, repr=False)
class Matches:
    """Matches played (the ``play`` command): per side its wins and points; with
    ``opening_fifteen`` (or Cirulla's ``opening_count``), the hands whose first table the
    opening side took."""

    preset: str
    rules: Rules
    seed: int
    policies: tuple[str, ...]
    matches: int
    hands: int
    wins: tuple[int, ...]
    points: tuple[int, ...]
    openings: int | None
    seconds: float

    @property
    def points_per_hand(self) -> tuple[float, ...]:
        """Each side's points per hand."""
        return tuple(p / self.hands for p in self.points)

    def to_text(self, record: str | None = None) -> str:
        """What ``scopa-sim play`` prints (``record``: the record file's name, shown)."""
        r = self.rules
        seats = ", ".join(f"seat {i}: {p}" for i, p in enumerate(self.policies))
        lines = [
            f"{plural(self.matches, 'match', 'matches')}, {plural(self.hands, 'hand')}, "
            f"rules {self.preset} "
            f"({r.digest()}), seed {self.seed}",
            f"policies: {seats}",
        ]
        lines += [
            f"side {s}: {plural(self.wins[s], 'win')}, "
            f"{self.points[s] / self.hands:.3f} points per hand"
            for s in range(r.sides)
        ]
        if self.openings is not None:
            lines.append(f"opening takes: {self.openings} of {plural(self.hands, 'hand')}")
        if record is not None:
            lines.append(f"records: {record}")
        lines.append(f"time: {self.seconds:.2f} s")
        return "\n".join(lines) + "\n"

    def __repr__(self) -> str:
        """``Matches(scopa, greedy vs greedy, 1 match, 5 hands, seed 3: side 0 0 wins ...)``."""
        sides = "; ".join(
            f"side {s} {self.wins[s]} wins, {self.points_per_hand[s]:.3f} points per hand"
            for s in range(len(self.wins))
        )
        return (f"Matches({self.preset}, {' vs '.join(self.policies)}, {self.matches:,} "
                f"match(es), {self.hands:,} hands, seed {self.seed}: {sides})")  # fmt: skip

    def _repr_html_(self) -> str:
        """A table a side: its wins and its points."""
        rows = [[str(s), f"{self.wins[s]:,}", f"{self.points[s]:,}",
                 f"{self.points_per_hand[s]:.3f}"] for s in range(len(self.wins))]  # fmt: skip
        title = (f"scopa-sim matches: {self.preset}, {' vs '.join(self.policies)}, "
                 f"{self.matches:,} match(es), {self.hands:,} hands, seed {self.seed}")  # fmt: skip
        return box(title, table(["side", "wins", "points", "points per hand"], rows))


def play(
    policy: str | Sequence[str] | None = None,
    *,
    preset: str | None = None,
    rules: Rules | None = None,
    overrides: Mapping[str, Any] | None = None,
    matches: int = 1,
    seed: int = 0,
    record: str | os.PathLike[str] | TextIO | None = None,
) -> Matches:
    """Play complete matches, and write their game records (the ``play`` command).

    Args:
        policy: one policy text for every seat, or one per seat (default ``random``).
        preset, rules, overrides: the rules (a preset's, a :class:`Rules`, options
            changed on top; default the ``scopa`` preset).
        matches: the number of matches.
        seed: the seed of the deals and of the policies' decisions (match ``m`` of seed
            ``s`` is the same whatever the number of matches).
        record: where to write every hand as a ``scopa-record/1`` line: a file path
            (``"-"``: standard output) or a text stream; None writes no record.

    Returns:
        The :class:`Matches`.

    Raises:
        PolicyError: an unknown policy, or as many as neither one nor the seats.
        RulesError: unknown rules, or a policy that does not play them (Cirulla).
        FileError: a record file that cannot be written.
        InputError: a count or seed that is not a whole number in range.
    """
    try:
        return _play(policy, preset, rules, overrides, matches, seed, record)
    except ScopaError as e:  # one line: no traceback of the library's insides
        raise e.with_traceback(None) from None


def play_policies(policy: str | Sequence[str] | None, rules: Rules) -> list[PolicySpec]:
    """The seats' policies of :func:`play` under ``rules``, checked before anything is
    played or written: one policy text for every seat or one per seat (default
    ``random``), a search's budget in range, and under Cirulla (RULES.md §10) the policies
    that play it (:data:`scopa_sim.sim.match.CIRULLA_POLICIES`).

    Raises:
        PolicyError: an unknown policy, or as many as neither one nor the seats.
        RulesError: a policy that does not play Cirulla.
    """
    from scopa_sim.bots.registry import seat_policies
    from scopa_sim.sim.match import check_cirulla_policies

    specs = seat_policies(policy_texts(policy) if policy is not None else (), rules.players)
    for spec in specs:
        search_budget(spec)
    if rules.capture_mode == "cirulla":
        check_cirulla_policies(specs)
    return specs


def _play(
    policy: str | Sequence[str] | None,
    preset: str | None,
    rules: Rules | None,
    overrides: Mapping[str, Any] | None,
    matches: int,
    seed: int,
    record: str | os.PathLike[str] | TextIO | None,
) -> Matches:
    """:func:`play`, whose errors are the project's; a broken pipe (the reader of records
    written to standard output went away) is left to the caller, which ends quietly."""
    from scopa_sim.game.state import score_points
    from scopa_sim.records.record import deals_from_deck, opening_of, takes_opening, write_records
    from scopa_sim.sim import match as M
    from scopa_sim.sim.pool import interruptible

    name, r = named_rules(preset, rules, overrides)
    specs = play_policies(policy, r)
    matches = whole("matches", matches, 1)
    if matches > MAX_MATCHES:
        raise InputError(f"matches must be at most {MAX_MATCHES}, not {matches}")
    seed = whole("seed", seed, 0)
    if isinstance(record, str | os.PathLike) and os.fspath(record) == "":
        raise FileError("record '': give a file name, '-' for standard output, or a stream")
    if isinstance(record, str | os.PathLike) and "\x00" in os.fspath(record):
        raise FileError("a path cannot contain a NUL character")
    start = time.perf_counter()
    points, wins = [0] * r.sides, [0] * r.sides
    hands = openings = 0
    with contextlib.ExitStack() as stack:
        out: TextIO | None = None
        if isinstance(record, str | os.PathLike):
            out = stack.enter_context(record_file(record))
        elif record is not None:
            out = record
        for m in range(matches):
            # on a worker thread, so that Ctrl-C and SIGTERM stop a long search at once
            logs = interruptible(lambda m=m: list(M.play_match(r, specs, seed, m)))
            if out is not None:
                _write(write_records, out, r, logs)
            hands += len(logs)
            for log in logs:
                for s, p in enumerate(score_points(log.score)):
                    points[s] += p
                if takes_opening(r):
                    deals = deals_from_deck(r, log.deck, log.dealer)
                    openings += bool(opening_of(r, log.dealer, *deals))
            winner = logs[-1].winner
            assert winner is not None
            wins[winner] += 1
    return Matches(
        name, r, seed, tuple(str(p) for p in specs), matches, hands, tuple(wins),
        tuple(points), openings if takes_opening(r) else None, time.perf_counter() - start,
    )  # fmt: skip


def record_file(path: str | os.PathLike[str]) -> AbstractContextManager[TextIO]:
    """A context giving the text stream to write game records to, for :func:`play`'s
    ``record``: ``path`` opened for writing (``"-"``: standard output, left open).

    Raises:
        FileError: a path that cannot be opened, or written or closed later, naming it.
    """
    from scopa_sim.files import output

    return output(os.fspath(path))


def _write(write: Any, out: TextIO, *args: Any) -> None:
    """``write(out, *args)``; an error of the stream (a full disk) is a FileError naming
    it, a broken pipe is left to the caller."""
    try:
        write(out, *args)
    except BrokenPipeError:
        raise
    except OSError as e:
        name = str(getattr(out, "name", "the record stream"))
        name = "standard output" if name == "<stdout>" else name
        raise FileError(f"cannot write {name}: {e.strerror or e}") from None


@contextlib.contextmanager
def _reading(source: str | os.PathLike[str] | TextIO) -> Iterator[tuple[TextIO, str]]:
    """A record source as an open text stream and its name; a missing or unreadable file
    is a FileError, a file that is not UTF-8 text a RecordError (also while it is read in
    the ``with`` block)."""
    from scopa_sim.records.record import open_record

    if isinstance(source, str | os.PathLike):
        with open_record(source, regular_only=False) as opened:  # a pipe it is given is read
            yield opened
        return
    name = str(getattr(source, "name", "the stream"))
    try:
        yield source, name
    except UnicodeDecodeError:
        raise RecordError(
            f"{name}: not a text (UTF-8) file, so not a scopa-record/1 file"
        ) from None
    except OSError as e:
        raise FileError(f"cannot read {name}: {e.strerror or type(e).__name__}") from None


@one_line_errors
def replay(
    source: str | os.PathLike[str] | TextIO, *, allow_unfinished: bool = False
) -> ReplaySummary:
    """Check every hand of a game record file against its rules (the ``replay`` command).

    Args:
        source: a record file's path, or a text stream of its lines.
        allow_unfinished: accept a file whose last match has no winner yet.

    Returns:
        The :class:`~scopa_sim.records.record.ReplaySummary`: its ``errors`` list each
        violation as ``(line, reason)`` (line 0: the file as a whole); none if valid.

    Raises:
        FileError: a file that is missing or cannot be read.
        RecordError: a file that is not UTF-8 text, or a line too long to be a record.
    """
    from scopa_sim.records.record import check_lines, iter_lines

    with _reading(source) as (stream, _):
        return check_lines(iter_lines(stream), allow_unfinished)


def replay_hands(
    source: str | os.PathLike[str] | TextIO, line: int | None = None
) -> Iterator[tuple[int, list[str]]]:
    """The hands of a game record file play by play (``replay --show``), as they are
    read: ``(line number, the lines of`` :func:`~scopa_sim.records.record.show_hand`
    ``)`` for the hand on ``line`` (1-based), or for every hand. Each hand is checked on
    its own (its rules, deals, plays, score and totals).

    Raises:
        FileError: a file that is missing or cannot be read.
        RecordError: a file that is not UTF-8 text, holds no records or no such line, or
            a hand that is not a valid record (``line N: reason``), raised when reached.
        InputError: a line number that is not a whole number from 1.
    """
    import json

    from scopa_sim.records.record import iter_lines, show_hand

    if line is not None:
        whole("line", line, 1)
    count = 0
    with _reading(source) as (stream, name):
        for count, text in enumerate(iter_lines(stream), start=1):
            if line is not None and count != line:
                continue
            try:
                view = show_hand(json.loads(text))
            except (ValueError, RecursionError) as e:  # JSON errors, RecordError, ...
                reason = (
                    f"malformed JSON: {e.msg}" if isinstance(e, json.JSONDecodeError) else str(e)
                )
                if isinstance(e, RecursionError):
                    reason = "malformed JSON: nested too deeply"
                raise RecordError(f"line {count}: {reason}") from None
            yield count, view
            if line is not None:
                return
    shown = "standard input" if name in ("<stdin>", "the stream") else name
    if count == 0:
        raise RecordError(f"{shown} holds no records")
    if line is not None:
        raise RecordError(f"{shown} has lines 1..{count}, not {line}")


#: The largest record file :func:`record_lines` reads by default (bytes).
MAX_RECORD_BYTES = 8 << 20


@one_line_errors
def record_lines(path: str | os.PathLike[str], *, max_bytes: int = MAX_RECORD_BYTES) -> list[str]:
    """The lines of a game record file (``~`` expanded), read as ``replay`` reads them but
    from a regular file only, of at most ``max_bytes`` bytes: a named pipe or a device is
    refused at once, never waited on. The lines are not checked (:func:`replay` does).

    Raises:
        FileError: no such file, not a regular file, larger than ``max_bytes``, a path
            that cannot name a file, or a file that cannot be read.
        RecordError: a file that is not UTF-8 text, or a line too long for a record.
        InputError: ``max_bytes`` not a whole number from 1.
    """
    from scopa_sim.records.record import read_record_lines

    limit = whole("max_bytes", max_bytes, 1)
    if not isinstance(path, str | os.PathLike):
        raise FileError(f"a record file is a path, not {type(path).__name__}")
    if not isinstance(os.fspath(path), str):
        raise FileError("a record file is a path given as text")
    return read_record_lines(path, limit=limit)


__all__ = [
    "MAX_MATCHES",
    "MAX_RECORD_BYTES",
    "Matches",
    "play",
    "record_file",
    "record_lines",
    "replay",
    "replay_hands",
]
