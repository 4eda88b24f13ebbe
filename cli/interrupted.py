"""How a command stopped by Ctrl-C or SIGTERM ends: one line, status 130 or 143."""

from __future__ import annotations

import sys
from typing import NoReturn

import click

from scopa_sim.api.interrupts import Terminated, ignore_interrupts


def exit_interrupted(e: KeyboardInterrupt, what: str) -> NoReturn:
    """End a command stopped by ``e`` (Ctrl-C, or SIGTERM as
    :class:`~scopa_sim.api.interrupts.Terminated`): one line on standard error,
    ``interrupted: WHAT`` or ``terminated (SIGTERM): WHAT``, and status 130 or 143.
    Further interrupts are ignored from here on, so that a second Ctrl-C cannot break
    the clean-up and exit with a traceback.

    Raises SystemExit (always)."""
    ignore_interrupts()
    terminated = isinstance(e, Terminated)
    click.echo(f"{'terminated (SIGTERM)' if terminated else 'interrupted'}: {what}", err=True)
    sys.exit(143 if terminated else 130)
