"""Figures and the reports that show them: which figures no report links."""

from __future__ import annotations

import re
from pathlib import Path

#: A Markdown link or image target: ``[text](target)`` or ``![alt](target)``.
LINK = re.compile(r"\]\(([^)\s]+)\)")


def unlinked_figures(folder: Path) -> list[Path]:
    """The PNG files under ``folder`` that no Markdown file under it links to (a link is
    relative to its Markdown file), sorted."""
    linked: set[Path] = set()
    for md in folder.rglob("*.md"):
        for target in LINK.findall(md.read_text(encoding="utf-8")):
            linked.add((md.parent / target).resolve())
    return sorted(p for p in folder.rglob("*.png") if p.resolve() not in linked)
