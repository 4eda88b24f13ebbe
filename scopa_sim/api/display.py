"""What the notebook API's results share: input checks that raise the
project's one-line errors, and the HTML of their ``_repr_html_`` (the cards drawn as on
the review page, :mod:`scopa_sim.records.review_html`, with its style scoped to the
result so that a notebook's own look is left alone).
"""

from __future__ import annotations

import functools
import html
import math
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from scopa_sim.errors import FileError, InputError, RulesError, ScopaError

if TYPE_CHECKING:
    from scopa_sim.game.rules import Rules
    from scopa_sim.stats.estimate import Estimate

P = ParamSpec("P")
T = TypeVar("T")


# --------------------------------------------------------------------------- input checks
def one_line_errors(f: Callable[P, T]) -> Callable[P, T]:
    """Raise the project's one-line errors only: an operating-system error (a full disk,
    an unreadable file) becomes a FileError naming the file, and a NUL character in a
    path a ScopaError, as on the command line; a ScopaError raised inside a library
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


def whole(name: str, value: object, lo: int | None = None) -> int:
    """``value`` as a whole number of at least ``lo``; an InputError naming it (``name``,
    e.g. "the seed") if it is not."""
    if type(value) is not int:
        raise InputError(f"{name} must be a whole number, not {value!r}")
    if lo is not None and value < lo:
        raise InputError(f"{name} must be at least {lo}, not {value}")
    return value


def resolve_rules(
    preset: object, rules: Rules | None = None, overrides: Mapping[str, Any] | None = None
) -> Rules:
    """The rules of a call: ``rules`` as given, or else the rules of ``preset`` with the
    ``overrides`` (option name -> value, or ``key=value`` texts); a RulesError for an
    unknown preset, a bad option or value, or both rules and overrides given."""
    from scopa_sim.game.rules import PRESETS, Rules

    if not isinstance(preset, str) or preset not in PRESETS:
        raise RulesError(f"unknown preset {preset!r}; presets: {', '.join(PRESETS)}")
    if rules is not None:
        if not isinstance(rules, Rules):
            raise RulesError(f"rules must be a Rules, not {rules!r}")
        if overrides:
            raise RulesError("give rules, or overrides of the preset's rules, not both")
        return rules
    if overrides is not None and not isinstance(overrides, Mapping | tuple | list):
        raise RulesError(f"overrides must map option names to values, not {overrides!r}")
    return Rules.make(preset, overrides)


def make_rules(preset: object, rules: Mapping[str, Any] | None) -> Rules:
    """The rules of ``preset`` with the overrides ``rules`` (option name -> value): the
    search functions' form of :func:`resolve_rules`."""
    return resolve_rules(preset, overrides=rules)


def policy_texts(policy: str | Iterable[str]) -> tuple[str, ...]:
    """``policy`` (one text for every seat, or one per seat) as the command line's
    repeated ``--policy``."""
    from scopa_sim.errors import PolicyError

    texts = (policy,) if isinstance(policy, str) else tuple(policy)
    if not texts or not all(isinstance(t, str) for t in texts):
        raise PolicyError(f"a policy is a name such as 'expert' (or one per seat), not {policy!r}")
    return texts


def run_path(path: object) -> Path:
    """``path`` as a directory path; a FileError for anything that cannot name one."""
    if not isinstance(path, str | os.PathLike):
        raise FileError(f"a run directory is a path, not {path!r}")
    text = os.fspath(path)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if "\x00" in text:
        raise FileError("a path cannot contain a NUL character")
    return Path(text)


# --------------------------------------------------------------------------- HTML
_BOX = "scopa-sim"
_EXTRA_CSS = """
.scopa-sim { font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
  color: #1d2329; }
.scopa-sim caption { text-align: left; font-weight: 600; padding: 4px 0; }
"""


@functools.cache
def scoped_css() -> str:
    """The review page's style with every rule confined to ``.scopa-sim`` boxes (its
    ``body`` rule left out: a notebook keeps its own page style)."""
    from scopa_sim.records.review_html import CSS

    out = []
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", CSS):
        names = [s.strip() for s in selectors.split(",") if s.strip()]
        if names == ["body"]:
            continue
        out.append(", ".join(f".{_BOX} {s}" for s in names) + " {" + body.strip() + "}")
    return "\n".join(out) + _EXTRA_CSS


def esc(x: object) -> str:
    return html.escape(str(x), quote=True)


def box(title: str, *parts: str) -> str:
    """A result's HTML: a titled box with the scoped style."""
    return (
        f"<div class='{_BOX}'><style>{scoped_css()}</style>"
        f"<div class='meta'><b>{esc(title)}</b></div>{''.join(parts)}</div>"
    )


def table(head: Sequence[str], rows: Iterable[Sequence[str]], caption: str = "") -> str:
    """An HTML table: ``head`` escaped, ``rows`` of cells already in HTML (numbers right)."""
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    th = "".join(f"<th>{esc(h)}</th>" for h in head)
    body = "".join(
        "<tr>" + "".join(f"<td class='{_cell_class(c)}'>{c}</td>" for c in row) + "</tr>"
        for row in rows
    )
    return f"<table>{cap}<tr>{th}</tr>{body}</table>"


def _cell_class(cell: str) -> str:
    return "num" if re.fullmatch(r"[-+\[\d][-+\d,. \[\]e]*%?", cell) else "nw"


def fmt(x: float, spec: str = "+.4f") -> str:
    return "-" if not math.isfinite(x) else format(x, spec)


def est_cells(e: Estimate, spec: str = "+.4f") -> list[str]:
    """An estimate as three cells: the estimate, its interval, its sample size."""
    return [fmt(e.estimate, spec), f"[{fmt(e.low, spec)}, {fmt(e.high, spec)}]", f"{e.n:,}"]


__all__ = ["box", "est_cells", "one_line_errors", "scoped_css", "table"]
