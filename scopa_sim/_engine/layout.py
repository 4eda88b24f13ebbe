"""Layouts of the kernels' int64 vectors and the card masks, named once.

* rules vector (``R_*`` indices), built by :func:`pack_rules`;
* hand state vector (``S_*`` indices): hand masks per seat, table mask, pile
  masks and scope counts per side, last capturer, seat to play, stock position,
  plays made, dealer, done flag and the deck order;
* score items (``I_*``), :func:`scopa_sim._engine.step.apply_play`'s flags (``F_*``),
  the kernel policies' codes (``POLICY_*``);
* the fused loop's hand rows (``C_*`` columns), work array (``W_*``), units
  (``MODE_*``) and random stream numbers (``STREAM_*``);
* a card is an index 0..39 (suit * 10 + rank, ranks A..K), a set of cards a mask
  of those bits; a play is ``(card, take_mask)``, ``take_mask == 0`` being a lay.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import ctz

__all__ = [
    "ACES",
    "C_DEALER",
    "C_FIRST",
    "C_HAND",
    "C_ITEMS",
    "C_MATCH",
    "C_PLAYS",
    "C_REDEALS",
    "C_STATS",
    "C_TOTALS",
    "C_WINNER",
    "DECLARE_AUTO",
    "DECLARE_CHOICE",
    "DECLARE_OFF",
    "DENARI",
    "FULL_DECK",
    "F_ACE_SWEEP",
    "F_CAPTURE",
    "F_LAST",
    "F_SCOPA",
    "GRANDE",
    "I_CARDS",
    "I_DECLARATIONS",
    "I_DENARI",
    "I_FOUR_SEVENS",
    "I_GRANDE",
    "I_NAPOLA",
    "I_PICCOLA",
    "I_PRIMIERA",
    "I_RE_BELLO",
    "I_SCOPE",
    "I_SETTEBELLO",
    "I_TOTAL",
    "KINGS",
    "MATTA_BIT",
    "MATTA_CARD",
    "MATTA_DECLARE",
    "MATTA_NONE",
    "MATTA_PLAY",
    "MAX_HANDS_PER_MATCH",
    "MAX_PLAYS",
    "MODE_HANDS",
    "MODE_MATCHES",
    "MODE_SELFPLAY",
    "N_ITEMS",
    "N_ITEMS_CIRULLA",
    "N_ROW_COLS",
    "N_RULES",
    "N_STATE",
    "N_STATE_BASE",
    "N_STATE_HASHED",
    "N_WORK",
    "POLICY_EXPERT",
    "POLICY_GREEDY",
    "POLICY_LEARNED",
    "POLICY_RANDOM",
    "PRIMIERA_CLASSIC",
    "PRIMIERA_ESCOBA",
    "PRIMIERA_SEVENS",
    "PRIM_BEST",
    "RE_BELLO_BIT",
    "R_ACES_REDEAL",
    "R_ACE_SWEEP",
    "R_ACE_SWEEP_SCOPA",
    "R_ALL_DENARI_WINS",
    "R_CAPPOTTO",
    "R_CAPTURE_FIFTEEN",
    "R_CAPTURE_HAND",
    "R_CAPTURE_OPTIONAL",
    "R_CIRULLA",
    "R_DECK",
    "R_DECK_MASK",
    "R_DECLARE",
    "R_FOUR_SEVENS",
    "R_HAND_SIZE",
    "R_KINGS_REDEAL",
    "R_LAST_PLAY_SCOPA",
    "R_MATCH_PRIORITY",
    "R_MATTA",
    "R_MISSING_ZERO",
    "R_NAPOLA",
    "R_NAPOLA_FIXED3",
    "R_OPENING_COUNT",
    "R_OPENING_FIFTEEN",
    "R_OPENING_FIRST",
    "R_PICCOLA_MAX",
    "R_PLAYERS",
    "R_PRIMIERA_SEVENS",
    "R_REMAINDER_DEALER",
    "R_RE_BELLO",
    "R_SIDES",
    "R_SUM_FEWEST",
    "R_TABLE_CARDS",
    "R_TARGET",
    "R_TEAMS",
    "R_TOTAL_PLAYS",
    "SAME_MASK",
    "SCRATCH",
    "SETTEBELLO_BIT",
    "SEVENS",
    "SIXES",
    "STREAM_DEAL",
    "STREAM_DEALER",
    "STREAM_PLAY",
    "S_DEALER",
    "S_DECK",
    "S_DECK_SIZE",
    "S_DECLARED",
    "S_DONE",
    "S_EVIDENCE",
    "S_HANDS",
    "S_LAST_CAPTURER",
    "S_OPENING",
    "S_OPENING_SCOPE",
    "S_PILES",
    "S_PLAYS",
    "S_REACH",
    "S_SCOPE",
    "S_SHOWN",
    "S_STOCK",
    "S_TABLE",
    "S_TURN",
    "S_VOIDS",
    "TWOS",
    "VALUE",
    "VALUE_MASK",
    "W_HANDS",
    "W_PILES",
    "W_SCOPE",
    "deck_cards",
    "pack_rules",
    "side_of",
]


R_PLAYERS = 0
R_TEAMS = 1
R_DECK = 2
R_HAND_SIZE = 3
R_TABLE_CARDS = 4
R_KINGS_REDEAL = 5
R_CAPTURE_HAND = 6
R_SUM_FEWEST = 7
R_REMAINDER_DEALER = 8
R_ACE_SWEEP = 9
R_ACE_SWEEP_SCOPA = 10
R_LAST_PLAY_SCOPA = 11
R_PRIMIERA_SEVENS = 12
R_MISSING_ZERO = 13
R_RE_BELLO = 14
R_NAPOLA = 15
R_NAPOLA_FIXED3 = 16
R_ALL_DENARI_WINS = 17
R_TARGET = 18
R_SIDES = 19
R_DECK_MASK = 20
R_TOTAL_PLAYS = 21
R_CAPTURE_FIFTEEN = 22  # 1: capture_mode=fifteen (RULES.md §9)
R_CAPTURE_OPTIONAL = 23  # 1: capture_compulsory=false
R_OPENING_FIFTEEN = 24  # 1: opening_fifteen=true
R_OPENING_FIRST = 25  # 1: opening_fifteen_to=first_player (the first player's side takes it)
R_FOUR_SEVENS = 26  # 1: four_sevens_point=true
# Cirulla (RULES.md §10): read only with R_CIRULLA (0 in every other rule set's vector)
R_CIRULLA = 27  # 1: capture_mode=cirulla (R_CAPTURE_FIFTEEN is then 0)
R_MATCH_PRIORITY = 28  # 1: cirulla_match_priority=true
R_ACES_REDEAL = 29  # 1: aces_redeal=true
R_OPENING_COUNT = 30  # 1: opening_count=true
R_MATTA = 31  # MATTA_NONE, MATTA_DECLARE or MATTA_PLAY
R_DECLARE = 32  # DECLARE_OFF, DECLARE_CHOICE or DECLARE_AUTO
R_PICCOLA_MAX = 33  # piccola_max: 5, 6 or 7
R_CAPPOTTO = 34  # 1: cappotto=true
N_RULES = 35

#: ``rules[R_MATTA]``: no wild card, the 7H wild in declarations and the opening count
#: only, or also named a value each time it is played (RULES.md §10, ``matta``).
MATTA_NONE = 0
MATTA_DECLARE = 1
MATTA_PLAY = 2
#: ``rules[R_DECLARE]``: no declarations, the player's choice, every qualifying hand.
DECLARE_OFF = 0
DECLARE_CHOICE = 1
DECLARE_AUTO = 2

#: ``rules[R_PRIMIERA_SEVENS]``: the reading of the primiera (RULES.md §5): classic, the
#: sevens then sixes, fives, ... aces (``sevens``), or the sevens then sixes, aces, fives
#: (``escoba_sevens``, the Escoba *setenta* as most sevens).
PRIMIERA_CLASSIC = 0
PRIMIERA_SEVENS = 1
PRIMIERA_ESCOBA = 2

S_HANDS = 0  # 4 seats
S_TABLE = 4
S_PILES = 5  # 4 sides
S_SCOPE = 9  # 4 sides
S_LAST_CAPTURER = 13  # side, or -1
S_TURN = 14
S_STOCK = 15  # index in the deck order of the next card to deal
S_PLAYS = 16
S_DEALER = 17
S_DONE = 18
S_DECK_SIZE = 19
S_DECK = 20  # 40 slots
S_REACH = 60  # bit s set: some subset of the table has values summing to s (s <= 10; 14: fifteen)
S_OPENING = 61  # the table taken by opening_fifteen at the deal (RULES.md §9), else 0
#: The slots of every rule set's state; Cirulla's follow (0 in every other game's state,
#: which is hashed without them: :func:`scopa_sim.bots.evaluate`'s streams).
N_STATE_BASE = 62
# Cirulla (RULES.md §10)
S_DECLARED = 62  # 4 sides: the points each side declared this hand
S_SHOWN = 66  # bit s set: seat s declared in the current deal (its hand is shown)
S_OPENING_SCOPE = 67  # the scope of the opening count (0, 1 or 2)
S_VOIDS = 68  # the deals voided before this hand's accepted one (aces or kings)
#: 4 seats: the public evidence about each seat's hand (Scopa's step kernels only, 0 in
#: Cirulla's and in the fused loops' states): bit ``v - 1`` set when the seat laid a card
#: (no capture) on a table where a card of value ``v`` would have captured, since its
#: last deal (:func:`scopa_sim._engine.step.lay_evidence`); the stream hashes leave it out.
S_EVIDENCE = 69
#: The slots the evaluations' stream hash reads (every one before the evidence, which is
#: public and derived from the plays: ``bots.evaluate._stream``).
N_STATE_HASHED = S_EVIDENCE
N_STATE = 73

# score items, in record order
I_SCOPE = 0
I_CARDS = 1
I_DENARI = 2
I_SETTEBELLO = 3
I_PRIMIERA = 4
I_RE_BELLO = 5
I_NAPOLA = 6
I_FOUR_SEVENS = 7  # four_sevens_point: 1 to the side holding all four sevens
I_TOTAL = 8
N_ITEMS = 9
#: Cirulla's items (RULES.md §10), after the others in a Cirulla score (``I_TOTAL`` counts
#: them): the grande, the piccola and the points declared. Every other score has
#: ``N_ITEMS`` columns, as the rows and shards have always had.
I_GRANDE = 9
I_PICCOLA = 10
I_DECLARATIONS = 11
N_ITEMS_CIRULLA = 12

# apply_play result flags
F_CAPTURE = 1
F_SCOPA = 2
F_ACE_SWEEP = 4
F_LAST = 8

POLICY_RANDOM = 0
POLICY_GREEDY = 1
POLICY_EXPERT = 2
#: The learned policy (:mod:`.learned`): a model vector passed beside the codes, and the
#: exact endgame where the seat's information set is one world.
POLICY_LEARNED = 3

#: Capacity of a legal-play buffer: more than the largest possible count.
MAX_PLAYS = 16384
#: Size of the scratch array the capture search needs.
SCRATCH = 128

FULL_DECK = (1 << 40) - 1
DENARI = (1 << 10) - 1
KINGS = (1 << 9) | (1 << 19) | (1 << 29) | (1 << 39)
TWOS = (1 << 1) | (1 << 11) | (1 << 21) | (1 << 31)
SETTEBELLO_BIT = 1 << 6
RE_BELLO_BIT = 1 << 9
#: Cirulla's matta, the 7H (RULES.md §10): its card index and its bit.
MATTA_CARD = 16
MATTA_BIT = 1 << MATTA_CARD
#: Cirulla's grande: the JD, QD and KD.
GRANDE = 0b111 << 7

#: The four aces; ``ACES << (v - 1)`` is the four cards of capture value v.
ACES = 1 | (1 << 10) | (1 << 20) | (1 << 30)
_PRIM = (16, 12, 13, 14, 15, 18, 21, 10, 10, 10)
#: PRIM_BEST[b]: best primiera value among the ranks set in the 10-bit suit mask b (0: none).
PRIM_BEST = np.zeros(1024, dtype=np.int64)
for _b in range(1, 1024):
    PRIM_BEST[_b] = max(_PRIM[r] for r in range(10) if _b >> r & 1)


#: Capture value (1..10) of each card index.
VALUE = np.array([c % 10 + 1 for c in range(40)], dtype=np.int64)
#: VALUE_MASK[v]: the four cards of capture value v (v = 1..10; index 0 is empty).
VALUE_MASK = np.array([0] + [ACES << (v - 1) for v in range(1, 11)], dtype=np.int64)
#: SAME_MASK[card]: the cards of the same value.
SAME_MASK = np.array([ACES << (c % 10) for c in range(40)], dtype=np.int64)
SEVENS = ACES << 6
SIXES = ACES << 5

# Column layout of the hand rows of fused_hands, one row per hand stored
# column-major: ``out[C_*, row]`` (see scopa_sim.dataset.kernel_columns).
C_MATCH = 0
C_HAND = 1
C_DEALER = 2
C_FIRST = 3
C_REDEALS = 4
C_PLAYS = 5
C_ITEMS = 6  # 4 sides x N_ITEMS
C_STATS = C_ITEMS + 4 * N_ITEMS  # 4 sides x 4: captured, denari, primiera value, sevens
C_TOTALS = C_STATS + 16  # 4 sides: match totals after the hand
C_WINNER = C_TOTALS + 4
N_ROW_COLS = C_WINNER + 1

#: Stream numbers (the last argument of :func:`derive_seed`): a hand's deck, its plays,
#: and a match's first dealer.
STREAM_DEAL = 0
STREAM_PLAY = 1
STREAM_DEALER = 2
#: A match that has not ended after this many hands is an error.
MAX_HANDS_PER_MATCH = 10000

# What a unit of fused_hands is (see there).
MODE_SELFPLAY = 0
MODE_HANDS = 1
MODE_MATCHES = 2

# Work-array layout of the fused self-play kernel (:func:`selfplay_hands`).
W_HANDS = 0  # 4 seats
W_PILES = 4  # 4 sides
W_SCOPE = 8  # 4 sides
N_WORK = 16


# --------------------------------------------------------------------------- rules
def pack_rules(
    players: int,
    teams: int,
    deck: int,
    hand_size: int,
    table_cards: int,
    kings_redeal: int,
    capture_hand: int,
    sum_fewest: int,
    remainder_dealer: int,
    ace_sweep: int,
    ace_sweep_scopa: int,
    last_play_scopa: int,
    primiera_sevens: int,
    missing_zero: int,
    re_bello: int,
    napola: int,
    napola_fixed3: int,
    all_denari_wins: int,
    target: int,
    capture_fifteen: int = 0,
    capture_optional: int = 0,
    opening_fifteen: int = 0,
    opening_first: int = 0,
    four_sevens: int = 0,
    cirulla: int = 0,
    match_priority: int = 0,
    aces_redeal: int = 0,
    opening_count: int = 0,
    matta: int = MATTA_NONE,
    declare: int = DECLARE_OFF,
    piccola_max: int = 0,
    cappotto: int = 0,
) -> np.ndarray:
    """Pack already validated options into the kernels' rules vector (the options of
    RULES.md §9 and the Escoba readings last, with their defaults; ``primiera_sevens``
    is a ``PRIMIERA_*`` reading). Cirulla's options (RULES.md §10; ``matta`` a
    ``MATTA_*`` code, ``declare`` a ``DECLARE_*`` code) are 0 unless ``cirulla``, so
    every other rule set's vector has its entries of before §10, then zeros."""
    r = np.zeros(N_RULES, dtype=np.int64)
    r[R_PLAYERS] = players
    r[R_TEAMS] = teams
    r[R_DECK] = deck
    r[R_HAND_SIZE] = hand_size
    r[R_TABLE_CARDS] = table_cards
    r[R_KINGS_REDEAL] = kings_redeal
    r[R_CAPTURE_HAND] = capture_hand
    r[R_SUM_FEWEST] = sum_fewest
    r[R_REMAINDER_DEALER] = remainder_dealer
    r[R_ACE_SWEEP] = ace_sweep
    r[R_ACE_SWEEP_SCOPA] = ace_sweep_scopa
    r[R_LAST_PLAY_SCOPA] = last_play_scopa
    r[R_PRIMIERA_SEVENS] = primiera_sevens
    r[R_MISSING_ZERO] = missing_zero
    r[R_RE_BELLO] = re_bello
    r[R_NAPOLA] = napola
    r[R_NAPOLA_FIXED3] = napola_fixed3
    r[R_ALL_DENARI_WINS] = all_denari_wins
    r[R_TARGET] = target
    r[R_SIDES] = 2 if teams else players
    r[R_DECK_MASK] = FULL_DECK if deck == 40 else FULL_DECK & ~TWOS
    r[R_TOTAL_PLAYS] = deck - table_cards
    r[R_CAPTURE_FIFTEEN] = capture_fifteen
    r[R_CAPTURE_OPTIONAL] = capture_optional
    r[R_OPENING_FIFTEEN] = opening_fifteen
    r[R_OPENING_FIRST] = opening_first
    r[R_FOUR_SEVENS] = four_sevens
    if cirulla:
        r[R_CIRULLA] = 1
        r[R_MATCH_PRIORITY] = match_priority
        r[R_ACES_REDEAL] = aces_redeal
        r[R_OPENING_COUNT] = opening_count
        r[R_MATTA] = matta
        r[R_DECLARE] = declare
        r[R_PICCOLA_MAX] = piccola_max
        r[R_CAPPOTTO] = cappotto
    return r


@njit(cache=True)
def side_of(rules, seat):
    """Side of a seat: seat % 2 with teams, else the seat."""
    if rules[R_TEAMS]:
        return seat & 1
    return seat


@njit(cache=True)
def deck_cards(rules, out):
    """Write the deck's cards in canonical order into ``out``; return how many."""
    m = rules[R_DECK_MASK]
    n = 0
    while m:
        out[n] = ctz(m)
        m &= m - 1
        n += 1
    return n
