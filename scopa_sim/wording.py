"""Counts in words, for every text the package prints: ``plural(4, "mistake")`` is
``"4 mistakes"``, ``plural(1, "blunder")`` is ``"1 blunder"``."""

from __future__ import annotations


def plural(n: int, noun: str, nouns: str | None = None, *, sep: str = ",") -> str:
    """``n`` and ``noun``, or ``nouns`` unless ``n`` is 1 (default: ``noun`` + ``s``, or
    ``-ies`` for a consonant and ``y``: ``inaccuracy``, ``inaccuracies``); ``n`` with a
    thousands separator ``sep`` (``""`` for none).

    >>> plural(1, "mistake"), plural(4, "mistake"), plural(2, "inaccuracy"), plural(3, "day")
    ('1 mistake', '4 mistakes', '2 inaccuracies', '3 days')
    """
    count = f"{n:{sep}}" if sep else str(n)
    if n == 1:
        return f"{count} {noun}"
    if nouns is None:
        ies = noun.endswith("y") and len(noun) > 1 and noun[-2] not in "aeiou"
        nouns = noun[:-1] + "ies" if ies else noun + "s"
    return f"{count} {nouns}"


__all__ = ["plural"]
