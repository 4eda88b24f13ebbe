"""``play`` (matches with game records) and ``replay`` (check a record file)."""

from __future__ import annotations

import contextlib
import errno
import json
import sys
import time
from typing import TextIO

import click

from scopa_sim.errors import FileError
from scopa_sim.files import output
from scopa_sim.records.record import (
    check_lines,
    deals_from_deck,
    iter_lines,
    opening_of,
    show_hand,
    write_records,
)
from scopa_sim.sim.match import play_match
from scopa_sim.sim.pool import interruptible

from .options import (
    COUNT_MAX,
    BadInput,
    PathArg,
    make_policies,
    make_rules,
    policy_option,
    rules_options,
    seed_option,
)


@click.command()
@rules_options
@click.option(
    "--matches",
    type=click.IntRange(min=1, max=COUNT_MAX),
    default=1,
    show_default=True,
    help="Matches to play.",
)
@seed_option
@policy_option
@click.option(
    "--record",
    "record_path",
    type=PathArg(dir_okay=False, writable=True, allow_dash=True),
    help="Write every hand as a scopa-record/1 JSON line to this file ('-' = stdout).",
)
def play(
    preset: str,
    rules: tuple[str, ...],
    matches: int,
    seed: int,
    policies: tuple[str, ...],
    record_path: str | None,
) -> None:
    """Play complete matches and optionally write their game records."""
    if record_path == "":
        raise BadInput("--record '': give a file name, or '-' for standard output")
    r = make_rules(preset, rules)
    specs = make_policies(policies, r.players)
    summary_out = sys.stderr if record_path == "-" else sys.stdout
    start = time.perf_counter()
    totals = [0] * r.sides
    wins = [0] * r.sides
    hands = 0
    openings = 0  # hands whose first table the dealer's side took (opening_fifteen)
    with contextlib.ExitStack() as stack:
        out: TextIO | None = None
        if record_path:
            try:  # a path that cannot be opened is a usage error; a full disk later is not
                out = stack.enter_context(output(record_path))
            except FileError as e:
                raise BadInput(str(e)) from None
        for m in range(matches):
            # on a worker thread, so that Ctrl-C and SIGTERM stop a long search at once
            logs = interruptible(lambda m=m: list(play_match(r, specs, seed, m)))
            if out is not None:
                write_records(out, r, logs)
            hands += len(logs)
            for log in logs:
                for s in range(r.sides):
                    totals[s] += log.score[s][-1]
                if r.opening_fifteen:
                    openings += bool(
                        opening_of(r, log.dealer, *deals_from_deck(r, log.deck, log.dealer))
                    )
            winner = logs[-1].winner
            assert winner is not None
            wins[winner] += 1
    elapsed = time.perf_counter() - start
    seats = ", ".join(f"seat {i}: {p}" for i, p in enumerate(specs))
    echo = click.echo
    echo(
        f"{matches} match(es), {hands} hands, rules {preset} ({r.digest()}), seed {seed}",
        file=summary_out,
    )
    echo(f"policies: {seats}", file=summary_out)
    for s in range(r.sides):
        echo(
            f"side {s}: {wins[s]} win(s), {totals[s] / hands:.3f} points per hand",
            file=summary_out,
        )
    if r.opening_fifteen:
        echo(f"opening takes: {openings} of {hands} hands", file=summary_out)
    if record_path and record_path != "-":
        echo(f"records: {record_path}", file=summary_out)
    echo(f"time: {elapsed:.2f} s", file=summary_out)


@click.command()
@click.argument("path", type=PathArg(dir_okay=False, allow_dash=True))
@click.option(
    "--allow-unfinished", is_flag=True, help="Accept a file whose last match has no winner yet."
)
@click.option("-q", "--quiet", is_flag=True, help="Print only the violations.")
@click.option(
    "--show",
    is_flag=False,
    flag_value="all",
    default=None,
    metavar="[LINE]",
    help="Print the hand on LINE (1-based; every hand without LINE) play by play: seat, "
    "hand before the play, card, capture, scopa, table after, then the score. "
    "Give it after PATH.",
)
def replay(path: str, allow_unfinished: bool, quiet: bool, show: str | None) -> None:
    """Check every hand of a game record file (PATH, '-' = stdin) against its rules.

    Prints a summary, or 'line N: reason' for each violation and exits with status 1.
    With --show, prints hands for a person to follow instead (each shown hand is
    checked on its own: its rules, deals, plays, score and totals).
    """
    if path == "-" and sys.stdin is None:
        raise BadInput("standard input is closed: no records to read from '-'")
    if show is not None:
        _show(path, show)
        return
    try:
        if path == "-":
            summary = check_lines(iter_lines(sys.stdin), allow_unfinished)
        else:
            with open(path, encoding="utf-8-sig") as f:
                summary = check_lines(iter_lines(f), allow_unfinished)
    except FileNotFoundError:
        raise BadInput(f"no such file: {path}") from None
    except UnicodeDecodeError:
        click.echo(f"{path}: not a text (UTF-8) file, so not a scopa-record/1 file", err=True)
        sys.exit(1)
    except OSError as e:
        raise BadInput(f"cannot read {path}: {e.strerror}") from None
    if summary.errors:
        for line, reason in summary.errors:
            click.echo(f"line {line}: {reason}" if line else reason)
        click.echo(f"{len(summary.errors)} violation(s) in {summary.lines} line(s)", err=True)
        sys.exit(1)
    if not quiet:
        wins = ", ".join(f"side {s}: {w}" for s, w in sorted(summary.wins.items()))
        click.echo(
            f"valid: {summary.lines} hand(s) in {summary.matches} match(es) "
            f"({summary.finished_matches} finished), {summary.plays} plays, {summary.scope} scope"
        )
        if wins:
            click.echo(f"wins: {wins}")


def _show(path: str, which: str) -> None:
    """``replay PATH --show [LINE]``: the hand on LINE, or every hand, play by play."""
    line_no = None
    if which != "all":
        if not (which.strip().isdecimal() and int(which) >= 1):
            raise BadInput(f"--show {which!r}: expected a line number from 1")
        line_no = int(which)
    count = 0
    try:
        with contextlib.ExitStack() as stack:
            stream = (
                sys.stdin if path == "-" else stack.enter_context(open(path, encoding="utf-8-sig"))
            )
            for count, text in enumerate(iter_lines(stream), start=1):
                if line_no is not None and count != line_no:
                    continue
                view = _hand_view(text, count)
                if count > 1 and line_no is None:
                    click.echo()
                click.echo(f"line {count}:")
                click.echo("\n".join(view))
                if line_no is not None:
                    return
    except FileNotFoundError:
        raise BadInput(f"no such file: {path}") from None
    except UnicodeDecodeError:
        raise BadInput(f"{path}: not a text (UTF-8) file, so not a scopa-record/1 file") from None
    except OSError as e:
        if e.errno == errno.EPIPE:  # the reader of our output went away: click handles it
            raise
        raise BadInput(f"cannot read {path}: {e.strerror}") from None
    if count == 0:
        raise BadInput(f"{'standard input' if path == '-' else path} holds no records")
    if line_no is not None:
        raise BadInput(f"--show {line_no}: {path} has lines 1..{count}")


def _hand_view(text: str, line: int) -> list[str]:
    """The lines of ``show_hand`` for one record line; a bad record is an error (exit 1)."""
    try:
        return show_hand(json.loads(text))
    except (ValueError, RecursionError) as e:  # JSON errors, RecordError, CardError, ...
        reason = f"malformed JSON: {e.msg}" if isinstance(e, json.JSONDecodeError) else str(e)
        if isinstance(e, RecursionError):
            reason = "malformed JSON: nested too deeply"
        raise click.ClickException(f"line {line}: {reason}") from None
