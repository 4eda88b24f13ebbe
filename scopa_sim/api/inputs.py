"""The input checks of the use-case layer: each raises the project's one-line errors in
words that name no command-line option, before the function it guards does any work.

* :func:`resolve_rules` (and :func:`named_rules`, which adds the name a result shows):
  the rules a call names, from a preset, a :class:`~scopa_sim.game.rules.Rules` or
  options changed on top of the preset's;
* :func:`whole` (counts and seeds), :func:`run_path` (run directories),
  :func:`policy_texts`, :func:`search_budget` (a search's budget, before it allocates),
  :func:`cards` and :func:`pair`;
* :func:`one_line_errors`, the decorator that keeps a use-case function's errors the
  project's one-line errors.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from scopa_sim.errors import (
    CardError,
    FileError,
    InputError,
    PolicyError,
    PositionError,
    RulesError,
    ScopaError,
)

if TYPE_CHECKING:
    from scopa_sim.bots.registry import PolicySpec
    from scopa_sim.game.cards import CardSet
    from scopa_sim.game.rules import Rules

P = ParamSpec("P")
T = TypeVar("T")


def one_line_errors(f: Callable[P, T]) -> Callable[P, T]:
    """Raise the project's one-line errors only: an operating-system error (a full disk,
    an unreadable file) becomes a FileError naming the file, and a NUL character in a
    path a FileError, as on the command line; a ScopaError raised inside a library
    (polars, numba) call loses its chained traceback."""

    @functools.wraps(f)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return f(*args, **kwargs)
        except ScopaError as e:
            raise e.with_traceback(None) from None
        except OSError as e:
            what = e.strerror or str(e) or type(e).__name__
            where = f": {e.filename}" if e.filename is not None else ""
            raise FileError(f"{what}{where}") from None
        except ValueError as e:
            if "null byte" not in str(e) and "null character" not in str(e):
                raise
            raise FileError("a path cannot contain a NUL character") from None

    return wrapper


def resolve_rules(
    preset: str | None = None,
    rules: Rules | None = None,
    overrides: Mapping[str, Any] | Iterable[str] | None = None,
) -> Rules:
    """The rules a call plays by.

    Args:
        preset: a preset name (default ``"scopa"``); with ``rules`` given, only checked
            (:func:`named_rules` shows it as the rules' name).
        rules: the rules themselves, or None for the preset's.
        overrides: options changed on top of the preset's rules (option name -> value, as
            ``{"target": 21}``, or ``"key=value"`` texts).

    Returns:
        ``rules`` as given, or else the rules of ``preset`` with the ``overrides``.

    Raises:
        RulesError: an unknown preset, option or value, rules that are not a
            :class:`~scopa_sim.game.rules.Rules`, overrides that are neither a mapping
            nor texts, both rules and overrides given.
    """
    from scopa_sim.game.rules import PRESETS, Rules

    if preset is not None and (not isinstance(preset, str) or preset not in PRESETS):
        raise RulesError(f"unknown preset {preset!r}; presets: {', '.join(PRESETS)}")
    if rules is not None:
        if not isinstance(rules, Rules):
            raise RulesError(f"rules must be a Rules (scopa_sim.Rules.make(...)), not {rules!r}")
        if overrides:
            raise RulesError("give rules, or overrides of the preset's rules, not both")
        return rules
    if overrides is not None and not isinstance(overrides, Mapping | tuple | list):
        raise RulesError(f"overrides must map option names to values, not {overrides!r}")
    return Rules.make("scopa" if preset is None else preset, overrides)


def named_rules(
    preset: str | None,
    rules: Rules | None,
    overrides: Mapping[str, Any] | Iterable[str] | None,
) -> tuple[str, Rules]:
    """:func:`resolve_rules`, with the name a result shows for the rules: ``preset`` if
    given, else the preset the rules equal (``"custom"`` for none; ``"scopa"`` by default).

    Returns:
        ``(name, rules)``.

    Raises:
        RulesError: as :func:`resolve_rules`.
    """
    r = resolve_rules(preset, rules, overrides)
    if preset is not None:
        return preset, r
    if rules is None:
        return "scopa", r
    return r.preset_name() or "custom", r


def parse_overrides(texts: Iterable[str]) -> dict[str, Any]:
    """Rule options given as ``"key=value"`` texts (the command line's ``--rule``), typed:
    option name -> value, for a function's ``overrides`` (which checks them against the
    rest of the rules).

    Raises:
        RulesError: a malformed text, an unknown option or a value of the wrong type.
    """
    from scopa_sim.game.rules import parse_overrides as parse

    return parse(texts)


def whole(name: str, value: object, lo: int | None = None) -> int:
    """``value`` as a whole number of at least ``lo``.

    Raises:
        InputError: ``value`` is not a whole number of at least ``lo``, the message led
            by ``name`` (e.g. "the seed").
    """
    if type(value) is not int:
        raise InputError(f"{name} must be a whole number, not {value!r}")
    if lo is not None and value < lo:
        raise InputError(f"{name} must be at least {lo}, not {value}")
    return value


def wholes(name: str, values: object, lo: int | None = None) -> list[int]:
    """``values`` (an iterable such as a list of seats) as whole numbers of at least
    ``lo``.

    Raises:
        InputError: not an iterable of whole numbers of at least ``lo``.
    """
    if isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
        raise InputError(f"{name} must be a list of whole numbers, not {values!r}")
    return [whole(name, v, lo) for v in values]


def run_path(path: object) -> Path:
    """``path`` as a directory path.

    Raises:
        FileError: anything that cannot name a directory (not a path, a NUL character).
    """
    if not isinstance(path, str | os.PathLike):
        raise FileError(f"a run directory is a path, not {path!r}")
    text = os.fspath(path)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if "\x00" in text:
        raise FileError("a path cannot contain a NUL character")
    return Path(text)


def policy_texts(policy: str | Iterable[str]) -> tuple[str, ...]:
    """``policy`` (one text for every seat, or one per seat) as the command line's
    repeated ``--policy``.

    Raises:
        PolicyError: no text, or something else than texts.
    """
    if isinstance(policy, str):
        texts: tuple[Any, ...] = (policy,)
    elif isinstance(policy, Iterable) and not isinstance(policy, bytes | Mapping):
        texts = tuple(policy)
    else:
        texts = ()
    if not texts or not all(isinstance(t, str) for t in texts):
        raise PolicyError(f"a policy is a name such as 'expert' (or one per seat), not {policy!r}")
    return texts


#: Bytes of the largest table a search allocates per unit of its budget: a world of
#: ``eval`` or ``pimc`` holds four values for each of up to 40 plays, an iteration of
#: ``ismcts`` one tree node (8 64-bit columns).
BYTES_PER_WORLD = 40 * 4 * 8
BYTES_PER_ITERATION = 8 * 8


def _memory() -> int:
    """This machine's physical memory in bytes (64 GiB when it cannot be read)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 64 << 30


def search_budget(spec: PolicySpec) -> PolicySpec:
    """``spec`` checked for a budget the search could not hold: its ``worlds`` or
    ``iterations`` whose tables would need more than this machine's memory (checked before
    anything is allocated).

    Raises:
        PolicyError: a budget whose tables would not fit in memory, with the largest one
            that would.
    """
    params = dict(spec.params)
    memory = _memory()
    for key, size in (("worlds", BYTES_PER_WORLD), ("iterations", BYTES_PER_ITERATION)):
        text = params.get(key)
        if text is None or not text.strip().isdecimal():
            continue
        value = int(text)
        if value * size > memory:
            raise PolicyError(
                f"policy {str(spec)!r}: {value:,} {key} need about {value * size / 2**30:,.0f} "
                f"GiB, more than this machine's {memory / 2**30:,.1f} GiB: at most "
                f"{memory // size:,} {key} here"
            )
    return spec


def cards(value: str | CardSet | None, name: str) -> CardSet:
    """A card list given as text (``"7D 3S"``) or a :class:`CardSet`; empty for None.

    Raises:
        CardError: a malformed card or a card given twice, the message led by ``name``.
    """
    from scopa_sim.game.cards import CardSet

    if value is None or value == "":
        return CardSet()
    if isinstance(value, CardSet):
        return value
    if not isinstance(value, str):
        raise CardError(f"{name}: cards are a text such as '7D 3S', not {value!r}")
    try:
        return CardSet.parse(value)
    except CardError as e:
        raise CardError(f"{name}: {e}") from None


def pair(value: object, name: str, example: str) -> tuple[int, int]:
    """Two counts (scope so far, match totals) given as a pair of whole numbers.

    Raises:
        PositionError: anything but two whole numbers of at least 0.
    """
    if isinstance(value, tuple | list) and len(value) == 2:
        a, b = value
        if type(a) is int and type(b) is int and a >= 0 and b >= 0:
            return a, b
    raise PositionError(f"{name} {value!r}: expected two counts like {example}")


__all__ = [
    "cards",
    "named_rules",
    "one_line_errors",
    "pair",
    "parse_overrides",
    "policy_texts",
    "resolve_rules",
    "run_path",
    "search_budget",
    "whole",
    "wholes",
]
