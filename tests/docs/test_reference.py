"""The API reference documents the public faces only: every name ``import scopa_sim``
offers, and no internal module."""

from __future__ import annotations

import re
from pathlib import Path

import scopa_sim
import scopa_sim.api as api

REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "reference" / "api.md"
#: Names documented in the prose rather than in a summary table.
IN_PROSE = {"PRESETS", "__version__", "Card"}


def listed() -> set[str]:
    """The names in the reference's summary tables (``autosummary`` entries)."""
    names = set()
    for block in re.findall(r"\.\. autosummary::\n(.*?)```", REFERENCE.read_text(), re.S):
        names |= {line.strip() for line in block.splitlines() if re.match(r"^   \w", line)}
    return {n for n in names if not n.startswith(":")}


def test_the_reference_lists_every_public_name() -> None:
    want = set(scopa_sim.__all__) - IN_PROSE
    assert want <= listed(), sorted(want - listed())


def test_the_reference_lists_no_internal_module() -> None:
    extra = listed() - set(scopa_sim.__all__) - set(api.__all__)
    assert extra == {"errors"}, extra  # scopa_sim.errors: every error users may catch
    assert ":recursive:" not in REFERENCE.read_text()
