"""Counts in words, for every text the package prints: ``plural(4, "mistake")`` is
``"4 mistakes"``, ``plural(1, "blunder")`` is ``"1 blunder"``."""

from __future__ import annotations


def plural(n: int, noun: str, nouns: str | None = None, *, sep: str = ",") -> str:
    """``n`` and ``noun``, or ``nouns`` (default: ``noun`` + ``s``) unless ``n`` is 1;
    ``n`` with a thousands separator ``sep`` (``""`` for none)."""
    count = f"{n:{sep}}" if sep else str(n)
    return f"{count} {noun if n == 1 else (nouns or noun + 's')}"


__all__ = ["plural"]
