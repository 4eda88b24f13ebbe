"""The rule presets and the documents shipped with the package: :func:`presets` and
:func:`variant` (the ``variants`` command), :func:`document` (the ``rules`` command).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scopa_sim.api.display import box, esc, table
from scopa_sim.api.inputs import one_line_errors, resolve_rules

if TYPE_CHECKING:
    from scopa_sim.game.rules import Rules


def presets() -> dict[str, str]:
    """Every rule preset by name, with its one-line description, in the order of
    :data:`scopa_sim.game.rules.PRESETS`."""
    from scopa_sim.game.rules import PRESET_DESCRIPTIONS, PRESETS

    return {p: PRESET_DESCRIPTIONS[p] for p in PRESETS}


@dataclass(frozen=True, repr=False)
class Variant:
    """A preset's rules with overrides: ``options`` every option of the rules with its
    value as a ``key=value`` text takes it (booleans in lower case); the options of
    Cirulla (RULES.md §10) only in Cirulla's rule sets."""

    preset: str
    description: str
    rules: Rules
    options: tuple[tuple[str, str], ...]

    def text(self) -> str:
        """What ``scopa-sim variants NAME`` prints."""
        lines = [f"# {self.preset}: {self.description}"]
        lines += [f"{key} = {value}" for key, value in self.options]
        return "\n".join(lines)

    def __repr__(self) -> str:
        """``Variant(scopa: Classic 2-player Scopa..., 2 players, target 11, rules 1a2b...)``."""
        r = self.rules
        return (f"Variant({self.preset}: {self.description}; {r.players} players, deck "
                f"{r.deck}, target {r.target}, rules {r.digest()}; .text() for every "
                "option)")  # fmt: skip

    def _repr_html_(self) -> str:
        """Every option and its value, as a table."""
        rows = [[esc(k), esc(v)] for k, v in self.options]
        return box(f"scopa-sim rules: {self.preset}: {self.description}",
                   table(["option", "value"], rows))  # fmt: skip


@one_line_errors
def variant(preset: str, overrides: Mapping[str, Any] | Iterable[str] | None = None) -> Variant:
    """The effective rules of ``preset`` with ``overrides`` (option name -> value, or
    ``key=value`` texts), as ``scopa-sim variants NAME`` prints them.

    Raises RulesError (an unknown preset, option or value, or an invalid combination)."""
    from scopa_sim.game.rules import CIRULLA_DEFAULTS, OPTION_NAMES, PRESET_DESCRIPTIONS

    texts = overrides if overrides is None or isinstance(overrides, Mapping) else tuple(overrides)
    r = resolve_rules(preset, overrides=texts)
    options = []
    for key in OPTION_NAMES:
        if key in CIRULLA_DEFAULTS and r.capture_mode != "cirulla":
            continue  # RULES.md §10's options belong to Cirulla's rule sets only
        value = getattr(r, key)
        options.append((key, str(value).lower() if isinstance(value, bool) else str(value)))
    return Variant(preset, PRESET_DESCRIPTIONS[preset], r, tuple(options))


@one_line_errors
def document(name: str = "rules") -> str:
    """The text (Markdown) of a document shipped in the package: ``"rules"``, the rules
    the engine implements, or ``"record"``, the format of the game records.

    Raises FileError for another name."""
    from scopa_sim.files import document as read_document

    return read_document(name)


def document_path(name: str = "rules") -> Path:
    """Where the document ``name`` (see :func:`document`) is installed; a FileError for
    another name."""
    from importlib.resources import files

    from scopa_sim.errors import FileError
    from scopa_sim.files import DOCUMENTS

    if name not in DOCUMENTS:
        raise FileError(f"unknown document {name!r}: one of {', '.join(DOCUMENTS)}")
    return Path(str(files("scopa_sim") / "documents" / DOCUMENTS[name]))


__all__ = ["Variant", "document", "document_path", "presets", "variant"]
