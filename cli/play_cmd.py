"""``play`` (matches with game records) and ``replay`` (check a record file)."""

from __future__ import annotations

import contextlib
import sys
from typing import TextIO

import click

from scopa_sim.api import play as play_matches
from scopa_sim.api import replay as replay_file
from scopa_sim.api import replay_hands
from scopa_sim.api.games import play_policies, record_file
from scopa_sim.errors import FileError, RecordError, ScopaError
from scopa_sim.wording import plural

from .options import (
    COUNT_MAX,
    BadInput,
    PathArg,
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
    the_rules = make_rules(preset, rules)  # bad rules or policies: no record file made
    try:
        play_policies(policies or None, the_rules)
    except ScopaError as e:
        raise BadInput(str(e)) from None
    with contextlib.ExitStack() as stack:
        out = None
        if record_path:
            try:  # a path that cannot be opened is a usage error; a full disk later is not
                out = stack.enter_context(record_file(record_path))
            except FileError as e:
                raise BadInput(str(e)) from None
        try:
            result = play_matches(
                policies or None,
                preset=preset,
                rules=the_rules,
                matches=matches,
                seed=seed,
                record=out,
            )
        except FileError:  # a record file that cannot be written: status 1, by the group
            raise
        except ScopaError as e:
            raise BadInput(str(e)) from None
    shown = record_path if record_path and record_path != "-" else None
    summary_out = sys.stderr if record_path == "-" else sys.stdout
    click.echo(result.to_text(shown), file=summary_out, nl=False)


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
    source = sys.stdin if path == "-" else path
    if show is not None:
        _show(source, show)
        return
    try:
        summary = replay_file(source, allow_unfinished=allow_unfinished)
    except RecordError:  # not a record file at all: status 1, by the group
        raise
    except ScopaError as e:
        raise BadInput(str(e)) from None
    if summary.errors:
        for line, reason in summary.errors:
            click.echo(f"line {line}: {reason}" if line else reason)
        click.echo(
            f"{plural(len(summary.errors), 'violation')} in {plural(summary.lines, 'line')}",
            err=True,
        )
        sys.exit(1)
    if not quiet:
        wins = ", ".join(f"side {s}: {w}" for s, w in sorted(summary.wins.items()))
        click.echo(
            f"valid: {plural(summary.lines, 'hand')} in "
            f"{plural(summary.matches, 'match', 'matches')} "
            f"({summary.finished_matches} finished), {plural(summary.plays, 'play')}, "
            f"{summary.scope} scope"
        )
        if wins:
            click.echo(f"wins: {wins}")


def _show(source: str | TextIO, which: str) -> None:
    """``replay PATH --show [LINE]``: the hand on LINE, or every hand, play by play."""
    line_no = None
    if which != "all":
        if not (which.strip().isdecimal() and int(which) >= 1):
            raise BadInput(f"--show {which!r}: expected a line number from 1")
        line_no = int(which)
    try:
        for count, (n, view) in enumerate(replay_hands(source, line_no)):
            if count and line_no is None:
                click.echo()
            click.echo(f"line {n}:")
            click.echo("\n".join(view))
    except RecordError:  # a hand that is not a valid record: status 1, by the group
        raise
    except ScopaError as e:
        raise BadInput(str(e)) from None
