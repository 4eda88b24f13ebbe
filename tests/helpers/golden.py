"""Rule sets of the sum-to-fifteen family as the plain-Python reference's overrides, and
golden legal-play counts for fixed positions: shared by engine/test_reference.py (the
reference's counts) and engine/test_crosscheck_fifteen.py (the engine's)."""

from __future__ import annotations

FIFTEEN = {"capture_mode": "fifteen"}
ESCOBA = {
    "capture_mode": "fifteen",
    "capture_compulsory": False,
    "opening_fifteen": True,
    "kings_redeal": False,
    "target": 15,
}


#: Golden counts of distinct legal plays (perft style) for fixed fifteen positions:
#: (hand, table, counts under scopa-15, escoba, scopa-15 + sum_capture=fewest,
#: scopa-15 + capture_rule=hand).  Several are checked by hand in engine/test_reference.py
#: (examples 6 and 7, the denari run of test_fifteen_single_cards_and_fewest).
GOLDEN_FIFTEEN = [
    ("5S KH AS", "7C 3D 5H", (3, 5, 3, 2)),
    ("3S JC", "2C 3D 5H 7S", (4, 6, 2, 4)),
    ("KC", "5H 7C 3D 5D", (2, 3, 2, 2)),
    ("7D 5C AH", "AD 2D 3D 4D 5D 6D 7C", (20, 23, 9, 20)),
    ("AS 2S 3S 4S 5S 6S 7S JS QS KS", "AH 2H 3H 4H 5H 6H 7H JH QH KH", (92, 102, 22, 92)),
    ("KD QD JD", "AC AH AS 2C 2H 3C 3H 4C", (68, 71, 12, 68)),
    ("7D", "AH 7C", (1, 2, 1, 1)),
    ("AS", "", (1, 1, 1, 1)),
    ("AS 2S", "KD QC", (2, 2, 2, 2)),
]
GOLDEN_RULES = (
    FIFTEEN,
    ESCOBA,
    {**FIFTEEN, "sum_capture": "fewest"},
    {**FIFTEEN, "capture_rule": "hand"},
)
