"""Progress of the long commands on standard error, never on standard output.

Every command that can run for more than a few seconds takes ``--progress/--no-progress``
(:func:`progress_option`; the environment variable ``SCOPA_SIM_PROGRESS=1`` or ``0`` sets
the default). By default progress is shown only when standard error is a terminal, so a
pipe, a log file or a notebook's captured output gets none. On a terminal it is a rich
bar, cleared when the command ends; forced into anything else (``--progress`` with
standard error redirected) it is plain lines, at most one every :data:`INTERVAL` seconds
plus the first and the last, so that a log stays short. Standard output, ``--json``
included, is never touched.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

#: Seconds between two plain progress lines (the bar on a terminal redraws by itself).
INTERVAL = 5.0

#: The environment variable that sets the default of ``--progress/--no-progress``.
ENVVAR = "SCOPA_SIM_PROGRESS"


def progress_option(f: F) -> F:
    """``--progress/--no-progress``: show the progress on standard error or not (default:
    when standard error is a terminal; ``SCOPA_SIM_PROGRESS=1/0`` sets the default)."""
    return click.option(
        "--progress/--no-progress",
        "progress",
        default=None,
        envvar=ENVVAR,
        help="Show progress on standard error, or not [default: only when standard error "
        f"is a terminal; {ENVVAR}=1 or 0 sets it].",
    )(f)


def wanted(flag: bool | None, quiet: bool = False) -> bool:
    """Whether to show progress: ``--progress``/``--no-progress`` (or the environment) when
    given, else whether standard error is a terminal; ``-q/--quiet`` turns it off."""
    if quiet:
        return False
    if flag is not None:
        return flag
    return sys.stderr.isatty()


def _count(n: float, unit: str) -> str:
    return f"{n:,.0f}{' ' + unit if unit else ''}"


class Progress:
    """The progress of one command: ``label``, a ``total`` of ``unit`` (None: no known
    total, only what is being done: ``text``, then :meth:`status`), drawn on standard
    error when ``show``, else nothing. Use as a context manager; :meth:`advance` counts work done,
    :meth:`status` says what is being done, :meth:`restart` starts another total (a
    new run of a study, say)."""

    def __init__(
        self,
        show: bool,
        label: str,
        total: int | None = None,
        unit: str = "",
        *,
        rate: str = "",
        text: str = "",
    ) -> None:
        self.show = show
        self.label = label
        self.total = total
        self.unit = unit
        self.rate_unit = rate
        self.done = 0
        self.rated = 0
        self.text = text
        self.t0 = time.perf_counter()
        self.last_line = -INTERVAL
        self.bar: Any = None
        self.task: Any = None
        self.terminal = show and sys.stderr.isatty()

    # -- the context ----------------------------------------------------------------
    def __enter__(self) -> Progress:
        self.t0 = time.perf_counter()
        if self.terminal:
            self.bar = _rich_bar(self.rate_unit != "")
            self.task = self.bar.add_task(self._description(), total=self.total, rate="")
            self.bar.start()
        elif self.show:
            self._line(force=True)
        return self

    def __exit__(self, kind: object, error: object, tb: object) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None
        elif self.show and kind is None:
            self._line(force=True, final=True)

    # -- updates --------------------------------------------------------------------
    def advance(self, n: int = 1, rated: int | None = None) -> None:
        """``n`` more units done (``rated``: the count the rate is of, e.g. hands of
        matches; default ``n``)."""
        self.done += n
        self.rated += n if rated is None else rated
        if self.bar is not None:
            elapsed = max(time.perf_counter() - self.t0, 1e-9)
            rate = f"{self.rated / elapsed:,.0f} {self.rate_unit}/s" if self.rate_unit else ""
            self.bar.update(self.task, advance=n, rate=rate)
        elif self.show:
            self._line()

    def status(self, text: str) -> None:
        """Say what is being done now (shown beside the label)."""
        if text == self.text:
            return
        self.text = text
        if self.bar is not None:
            self.bar.update(self.task, description=self._description())
        elif self.show:
            self._line(force=True)

    def restart(self, total: int | None, unit: str, text: str = "") -> None:
        """Count again from 0 towards ``total`` ``unit``, doing ``text``."""
        self.total, self.unit, self.done, self.rated, self.text = total, unit, 0, 0, text
        self.t0 = time.perf_counter()
        if self.bar is not None:
            self.bar.reset(self.task, total=total, description=self._description(), rate="")
        elif self.show:
            self._line(force=True)

    # -- drawing --------------------------------------------------------------------
    def _description(self) -> str:
        return f"{self.label}: {self.text}" if self.text else self.label

    def _line(self, force: bool = False, final: bool = False) -> None:
        now = time.perf_counter()
        if not force and now - self.last_line < INTERVAL:
            return
        self.last_line = now
        elapsed = now - self.t0
        parts = [self.label if final else self._description()]
        if self.total:
            share = self.done / self.total
            parts.append(f"{_count(self.done, '')}/{_count(self.total, self.unit)} ({share:.0%})")
        elif self.done:
            parts.append(_count(self.done, self.unit))
        if final:
            parts.append(f"done in {elapsed:.1f} s")
        else:
            parts.append(f"{elapsed:.0f} s")
            if self.total and 0 < self.done < self.total:
                parts.append(f"about {elapsed * (self.total - self.done) / self.done:.0f} s left")
        sys.stderr.write(f"{parts[0]}: {', '.join(parts[1:])}\n")
        sys.stderr.flush()


def _rich_bar(rate: bool) -> Any:
    """A rich progress bar on standard error, cleared when it stops (rich is imported
    only when a bar is drawn)."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns: list[Any] = [
        SpinnerColumn(),
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
    ]
    if rate:
        columns.append(TextColumn("{task.fields[rate]}"))
    columns += [TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn()]
    return Progress(*columns, transient=True, console=Console(stderr=True))
