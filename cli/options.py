"""Option decorators and helpers shared by the commands."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import click

from scopa_sim.api.choices import POLICIES, PRESETS
from scopa_sim.api.inputs import parse_overrides, resolve_rules
from scopa_sim.errors import InputError, PolicyError, RulesError, ScopaError

if TYPE_CHECKING:
    from scopa_sim import Rules

F = TypeVar("F", bound=Callable[..., Any])

#: The most processes or threads a command starts (``--workers``, ``warm --jobs``): more
#: than the cores only share them (no result depends on the number), and ``--workers
#: 1000`` started a thousand processes of a few hundred MB each, or failed in a traceback.
MAX_WORKERS = 64
WORKERS = click.IntRange(min=1, max=MAX_WORKERS)
#: The largest count of hands, matches or deals: an index that fits the int64 seed streams
#: (``play --matches 10**30`` ran without end, as no count of that size can finish).
COUNT_MAX = 2**63 - 1


class BadInput(click.ClickException):
    """Bad command-line input (unknown preset, bad option, ...): one line, exit status 2."""

    exit_code = 2


class PathArg(click.Path):
    """A ``click.Path`` that refuses a path holding a NUL character in one line: no file
    can be named so, and ``open`` or ``os.stat`` raise ``ValueError`` for it, not the
    ``OSError`` every command reports."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and "\x00" in value:
            self.fail("a path cannot contain a NUL character", param, ctx)
        return super().convert(value, param, ctx)


def rules_options(f: F) -> F:
    """``--preset NAME`` and repeated ``--rule key=value``."""
    f = click.option(
        "--rule",
        "rules",
        multiple=True,
        metavar="KEY=VALUE",
        help="Override one rule option (repeatable), e.g. --rule target=21.",
    )(f)
    f = click.option(
        "--preset",
        default="scopa",
        show_default=True,
        metavar="NAME",
        help=f"Rules preset: {', '.join(PRESETS)}.",
    )(f)
    return f


def seed_option(f: F) -> F:
    """``--seed S``: a run is defined by its configuration and seed."""
    return click.option(
        "--seed",
        type=click.IntRange(0, 2**63 - 1),
        default=0,
        show_default=True,
        help="Run seed: the same configuration and seed give the same results.",
    )(f)


def workers_option(f: F) -> F:
    """``--workers K``: how many cores simulations use."""
    return click.option(
        "--workers",
        type=WORKERS,
        default=None,
        help="Cores to use: threads for random/greedy seats, processes for search "
        "policies (default: all cores).",
    )(f)


def policy_names() -> str:
    """Every policy of the registry, jitted then search, as help text ("random, ...")."""
    return ", ".join(POLICIES)


def policy_option(f: F) -> F:
    """Repeated ``--policy``: one for all seats, or one per seat."""
    return click.option(
        "--policy",
        "policies",
        multiple=True,
        metavar="NAME[:K=V,...]",
        help=f"Policy: {policy_names()} (search policies take parameters, e.g. "
        "ismcts:iterations=1000; default random). Once for all seats, or once per seat "
        "in seat order.",
    )(f)


def make_rules(preset: str, rules: tuple[str, ...]) -> Rules:
    """Rules from the command line; bad input is a usage error (exit 2)."""
    try:
        return resolve_rules(preset, overrides=rules)
    except ScopaError as e:
        raise BadInput(str(e)) from None


def make_overrides(texts: tuple[str, ...]) -> dict[str, Any]:
    """Rule overrides from the command line's ``--rule key=value`` texts (option name ->
    typed value, checked against the rules by the call they are given to); a malformed
    text is a usage error (exit 2)."""
    try:
        return parse_overrides(texts)
    except ScopaError as e:
        raise BadInput(str(e)) from None


@contextmanager
def usage_errors() -> Iterator[None]:
    """Input a library call refuses before any work (:class:`~scopa_sim.errors.InputError`,
    and bad rules or policies) is a usage error (exit 2); other errors stay as they are."""
    try:
        yield
    except (InputError, RulesError, PolicyError) as e:
        raise BadInput(str(e)) from None
