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


#: Golden counts of distinct legal plays for fixed Cirulla positions (RULES.md §10), for
#: the reference's tests (engine/test_reference_cirulla.py) and the kernels' to come:
#: (hand, table, counts under the ``cirulla`` preset with each of GOLDEN_CIRULLA_RULES).
#: A play is a (card, take, named value, declaration): a qualifying three-card hand
#: doubles the plays with ``declare=choice``; the matta with ``matta=play`` has one play
#: per effect (tests/reference.py's docstring). Checked by hand: the first two rows, the
#: sixth and the seventh (engine/test_reference_cirulla.py says how).
GOLDEN_CIRULLA = [
    ("AS 5C JD", "2C 3D 4S", (3, 3, 3, 3, 3, 3)),
    ("7H 2S 5C", "2C 3D 4S", (6, 18, 6, 6, 6, 10)),
    ("7H 4C 4S", "3C 4D KS", (6, 16, 6, 6, 6, 8)),
    ("AH 6D 5D", "AC 2D 3S 4H 5C", (12, 12, 14, 8, 12, 12)),
    ("4D 2S QS", "2C 2D KS 4H", (5, 5, 6, 5, 5, 5)),
    ("7H KD 2S", "5H QC", (3, 5, 3, 3, 1, 5)),
    ("7H AS 3D", "", (6, 6, 6, 6, 6, 3)),
    ("6C 6D 6S", "AC 2D 3S 4H 5C 6H", (36, 36, 54, 18, 36, 18)),
    ("AD 7H KS", "AC KH 3S", (4, 10, 4, 4, 3, 10)),
]
GOLDEN_CIRULLA_RULES = (
    {},
    {"matta": "play"},
    {"cirulla_match_priority": False},
    {"sum_capture": "fewest"},
    {"capture_rule": "hand"},
    {"declare": "off", "matta": "play", "ace_sweep_scopa": False},
)
