"""Plain-Python reference implementation of the Scopa rules (docs: /work/shared/spec/RULES.md).

Standard library only, independent of ``scopa_sim``.  It is used by the test suite to
cross-check the fast engine and as the plain-Python baseline in benchmarks, so clarity
and faithfulness to RULES.md come first.

Card encoding (shared with the engine): ``card = suit * 10 + rank`` with suits
D=0 (denari), H=1, C=2, S=3 and ranks A,2,3,4,5,6,7,J,Q,K = 0..9.  Capture value is
``rank + 1``.  With ``deck=36`` the four 2s (rank index 1) are absent.

Rules are a plain dict holding every option of RULES.md section 7 (see ``DEFAULT_RULES``);
the options of section 9 (the sum-to-fifteen family) may be absent, as in rules written
before that section, and then have their defaults (``SECTION_9_DEFAULTS``).  The options of
section 10 (Cirulla, ``capture_mode=cirulla``, see ``SECTION_10_DEFAULTS``) are present only
in Cirulla rules (``rules_with`` and ``full_rules`` fill them in there), so the rules of every
other game are the dicts they were.

Cirulla (RULES.md section 10).  A Cirulla play is a ``CirullaPlay`` (card, take, the value
named for the matta or None, the declaration's points or None); the functions of the other
games keep their tuples.  Where section 10 leaves a point open, the reference decides:

* The matta with ``matta=play`` names its value for the play only: laid, it lies on the table
  as the 7H it is (value 7), and it is never an ace for the ace sweep's "table without an
  ace", nor for the void deal.  Like any card it "can capture" (``capture_rule``) when some
  named value captures, so under compulsory capture it is laid only on an empty table.
* Of the named values that give the same play, ``legal_plays`` lists one: a play's effect is
  its take and whether that take, emptying the table, would score a scopa (an ace sweep does
  not with ``ace_sweep_scopa=false``); it names the smallest value that has that effect (a
  lay names 1).  ``is_legal_play`` accepts every value that makes the play legal.
* ``sum_capture=fewest`` keeps the fewest-card sets among the sums (b) and, separately,
  among the fifteens (c); the match (a) is a single card anyway.
* Fresh hand: every Cirulla deal gives each seat three cards (``hand_size=3`` is required),
  so a seat holds three cards exactly until its first play of the deal: a declaration goes
  with a play from a three-card hand, and the shown cards are the declarer's hand until the
  next deal.
* The opening count comes after every void-deal check (``aces_redeal``, ``kings_redeal``);
  with the wild matta a table that can make 30 gives two scope (15 and 30 can't both be made).
* Cappotto counts the side's whole pile of the hand (the opening take and the end-of-hand
  remainder included) and wins over the totals, as ``napola_all_denari_wins`` does.

Options that ``capture_mode=cirulla`` refuses (``check_rules``), and why:

====================================  =========================================================
option                                with ``capture_mode=cirulla``
====================================  =========================================================
``deck=36``                           refused: the piccola needs the 2D (Cirulla is a 40-card
                                      game; the same reason refuses ``napola`` with 36 cards)
``hand_size`` other than 3            refused: declarations are made on three-card hands
``table_cards`` other than 4          refused: the void deal and the opening count are of four
                                      table cards
``napola=true``                       refused: the piccola is Cirulla's run of denari from the
                                      ace; both would score the same run
``opening_fifteen=true``              refused (as outside ``capture_mode=fifteen``): Cirulla's
                                      opening is ``opening_count``
``opening_fifteen_to=first_player``   refused: Cirulla's opening count goes to the dealer; the
                                      Escoba reading would be ignored without a word
``ace_sweep=false``                   allowed (issue 42): the ace captures as any card does
``kings_redeal``, ``capture_rule``,   allowed: each keeps its meaning of sections 3-6 and 9
``sum_capture``, ``remainder_to``,    (three kings void a deal as two aces do; with
``capture_compulsory``, ``primiera``, ``capture_compulsory=false`` any card may be laid)
``ace_sweep_scopa``,
``last_play_scopa``, ``re_bello``,
``four_sevens_point``, ``target``
``napola_scoring``,                   accepted without effect (section 6), napola being off
``napola_all_denari_wins``
====================================  =========================================================

Outside ``capture_mode=cirulla`` a section-10 option at a value other than its default is
refused: it would have no effect, and a user who sets ``matta=play`` on Scopa expects one.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

# --------------------------------------------------------------------------- cards

RANKS = "A234567JQK"
SUITS = "DHCS"
SUIT_SYMBOLS = {"♦": "D", "♥": "H", "♣": "C", "♠": "S"}

DENARI = 0
ACE = 0
TWO = 1
SEVEN = 6
KING = 9

SETTEBELLO = 6  # 7D
MATTA = 16  # 7H, Cirulla's wild card (RULES.md 10)
GRANDE = frozenset((7, 8, 9))  # JD QD KD
RE_BELLO = 9  # KD
ACE_D, TWO_D, THREE_D = 0, 1, 2

# primiera value by rank index: A 2 3 4 5 6 7 J Q K
PRIMIERA_VALUES = (16, 12, 13, 14, 15, 18, 21, 10, 10, 10)

# sevens rule: ranks compared in this order (7, 6, 5, 4, 3, 2, A)
SEVENS_ORDER = (6, 5, 4, 3, 2, 1, 0)
# escoba_sevens (the Escoba setenta as most sevens): 7, 6, A, 5; then nobody
ESCOBA_SEVENS_ORDER = (6, 5, 0, 4)
SEVEN_CARDS = frozenset(r * 10 + 6 for r in range(4))


def card_value(card: int) -> int:
    """Capture value: A=1 .. 7=7, J=8, Q=9, K=10."""
    return card % 10 + 1


def card_rank(card: int) -> int:
    return card % 10


def card_suit(card: int) -> int:
    return card // 10


def card_str(card: int) -> str:
    """``6 -> '7D'``."""
    if not 0 <= card < 40:
        raise ValueError(f"not a card: {card!r}")
    return RANKS[card % 10] + SUITS[card // 10]


def parse_card(text: str) -> int:
    """``'7D' -> 6``.  Accepts lower case and the suit symbols; rejects 8, 9, 10."""
    s = text.strip()
    if len(s) != 2:
        raise ValueError(f"not a card: {text!r}")
    rank_ch = s[0].upper()
    suit_ch = SUIT_SYMBOLS.get(s[1], s[1].upper())
    if rank_ch not in RANKS or suit_ch not in SUITS:
        raise ValueError(f"not a card: {text!r}")
    return SUITS.index(suit_ch) * 10 + RANKS.index(rank_ch)


def parse_cards(text: str) -> list[int]:
    """``'7D AS KC' -> [6, 30, 29]`` (whitespace or comma separated)."""
    return [parse_card(t) for t in text.replace(",", " ").split()]


def make_deck(rules: dict) -> list[int]:
    """The cards of the deck in increasing order (36 cards: no 2s)."""
    if rules["deck"] == 36:
        return [c for c in range(40) if c % 10 != TWO]
    return list(range(40))


# --------------------------------------------------------------------------- rules

DEFAULT_RULES: dict = {
    "players": 2,
    "teams": False,
    "deck": 40,
    "hand_size": 3,
    "table_cards": 4,
    "kings_redeal": True,
    "capture_rule": "card",
    "sum_capture": "any",
    "remainder_to": "last_capturer",
    "ace_sweep": False,
    "ace_sweep_scopa": True,
    "last_play_scopa": False,
    "primiera": "classic",
    "primiera_missing_suit": "exclude",
    "re_bello": False,
    "napola": False,
    "napola_scoring": "length",
    "napola_all_denari_wins": False,
    "target": 11,
    "capture_mode": "scopa",
    "capture_compulsory": True,
    "opening_fifteen": False,
    "opening_fifteen_to": "dealer",
    "four_sevens_point": False,
}
#: The options of RULES.md §9 and the Escoba readings: rules that lack them read with these.
SECTION_9_DEFAULTS = {
    "capture_mode": "scopa",
    "capture_compulsory": True,
    "opening_fifteen": False,
    "opening_fifteen_to": "dealer",
    "four_sevens_point": False,
}

_CHOICES = {
    "players": (2, 3, 4),
    "deck": (40, 36),
    "hand_size": tuple(range(1, 11)),
    "table_cards": (0, 1, 2, 3, 4),
    "capture_rule": ("card", "hand"),
    "sum_capture": ("any", "fewest"),
    "remainder_to": ("last_capturer", "dealer"),
    "primiera": ("classic", "sevens", "escoba_sevens"),
    "primiera_missing_suit": ("exclude", "zero"),
    "napola_scoring": ("length", "fixed3"),
    "capture_mode": ("scopa", "fifteen", "cirulla"),
    "opening_fifteen_to": ("dealer", "first_player"),
}
_BOOLS = (
    "teams",
    "kings_redeal",
    "ace_sweep",
    "ace_sweep_scopa",
    "last_play_scopa",
    "re_bello",
    "napola",
    "napola_all_denari_wins",
    "capture_compulsory",
    "opening_fifteen",
    "four_sevens_point",
)


#: The options of RULES.md §10 (Cirulla) and their defaults: a rules dict holds them only
#: with ``capture_mode=cirulla`` (or where given, to be refused at other values).
SECTION_10_DEFAULTS: dict = {
    "cirulla_match_priority": True,
    "aces_redeal": True,
    "opening_count": True,
    "matta": "declare",
    "declare": "choice",
    "piccola_max": 6,
    "cappotto": True,
}
_CHOICES_10 = {
    "matta": ("declare", "play", "none"),
    "declare": ("choice", "auto", "off"),
    "piccola_max": (5, 6, 7),
}
_BOOLS_10 = ("cirulla_match_priority", "aces_redeal", "opening_count", "cappotto")

#: The Cirulla presets (RULES.md §10): the options they set beyond the defaults.
CIRULLA_PRESETS: dict[str, dict] = {
    name: {
        "players": players,
        "teams": players == 4,
        "hand_size": 3,
        "table_cards": 4,
        "target": 51,
        "kings_redeal": False,
        "capture_compulsory": True,
        "ace_sweep": True,
        "ace_sweep_scopa": True,
        "last_play_scopa": False,
        "primiera": "classic",
        "primiera_missing_suit": "exclude",
        "capture_mode": "cirulla",
    }
    for name, players in (("cirulla", 2), ("cirulla-3", 3), ("cirulla-4", 4))
}


def rules_with(**overrides) -> dict:
    """DEFAULT_RULES with overrides.  ``teams`` defaults to ``players == 4`` (RULES.md 7).
    With ``capture_mode=cirulla`` the §10 options not given take their defaults; elsewhere
    only the §10 options given appear (``check_rules`` refuses them at other values than
    their defaults)."""
    unknown = set(overrides) - set(DEFAULT_RULES) - set(SECTION_10_DEFAULTS)
    if unknown:
        raise ValueError(f"unknown option(s): {sorted(unknown)}")
    rules = dict(DEFAULT_RULES)
    rules.update(overrides)
    if "teams" not in overrides:
        rules["teams"] = rules["players"] == 4
    return full_rules(rules) if rules["capture_mode"] == "cirulla" else rules


def cirulla_rules(preset: str = "cirulla", **overrides) -> dict:
    """The rules of a Cirulla preset (``cirulla``, ``cirulla-3``, ``cirulla-4``) with
    overrides; ``teams`` follows ``players`` unless given.  Not checked: see
    ``check_rules``."""
    if preset not in CIRULLA_PRESETS:
        raise ValueError(f"unknown preset {preset!r}; Cirulla presets: {list(CIRULLA_PRESETS)}")
    opts = {**CIRULLA_PRESETS[preset], **overrides}
    if "teams" not in overrides and "players" in overrides:
        opts["teams"] = opts["players"] == 4
    return rules_with(**opts)


def check_rules(rules: dict) -> None:
    """Raise ValueError for an invalid rules dict (RULES.md 3, 7, 9 and 10), naming the
    option and its allowed values.  The §9 options may be absent (rules of before §9), and
    the §10 options too: they then have their defaults.  The combinations refused with
    ``capture_mode=cirulla`` are the module docstring's table."""
    rules = full_rules(rules)
    missing = set(DEFAULT_RULES) - set(rules)
    unknown = set(rules) - set(DEFAULT_RULES) - set(SECTION_10_DEFAULTS)
    if missing or unknown:
        raise ValueError(f"bad option keys: missing {sorted(missing)}, unknown {sorted(unknown)}")
    for key, allowed in _CHOICES.items():
        if rules[key] not in allowed or isinstance(rules[key], bool):
            raise ValueError(f"option {key}={rules[key]!r}: allowed values are {allowed}")
    for key in _BOOLS:
        if not isinstance(rules[key], bool):
            raise ValueError(f"option {key}={rules[key]!r}: allowed values are True, False")
    target = rules["target"]
    if not isinstance(target, int) or isinstance(target, bool) or target < 1:
        raise ValueError(f"option target={target!r}: allowed values are integers >= 1")
    if rules["teams"] and rules["players"] != 4:
        raise ValueError("option teams=True: allowed only with players=4")
    if rules["napola"] and rules["deck"] == 36:
        raise ValueError("option napola=True: not allowed with deck=36 (allowed deck: 40)")
    if rules["ace_sweep"] and rules["capture_mode"] == "fifteen":
        raise ValueError("option ace_sweep=True: not allowed with capture_mode=fifteen")
    if rules["opening_fifteen"] and rules["capture_mode"] != "fifteen":
        raise ValueError("option opening_fifteen=True: allowed only with capture_mode=fifteen")
    if rules["opening_fifteen"] and rules["table_cards"] == 0:
        raise ValueError("option opening_fifteen=True: not allowed with table_cards=0")
    _check_section_10(rules)
    _deal_sizes(rules)  # raises on an impossible deal


def _check_section_10(rules: dict) -> None:
    """The §10 options' values, and the combinations ``capture_mode=cirulla`` refuses."""
    for key, allowed in _CHOICES_10.items():
        if key in rules and (rules[key] not in allowed or isinstance(rules[key], bool)):
            raise ValueError(f"option {key}={rules[key]!r}: allowed values are {allowed}")
    for key in _BOOLS_10:
        if key in rules and not isinstance(rules[key], bool):
            raise ValueError(f"option {key}={rules[key]!r}: allowed values are True, False")
    mode = rules["capture_mode"]
    if mode != "cirulla":
        for key, default in SECTION_10_DEFAULTS.items():
            if key in rules and rules[key] != default:
                raise ValueError(
                    f"option {key}={rules[key]!r}: allowed only with capture_mode=cirulla "
                    f"(got capture_mode={mode}; allowed here: {key}={default!r})"
                )
        return
    fixed = (
        ("deck", 40, "the piccola needs the 2D"),
        ("hand_size", 3, "declarations are made on three-card hands"),
        ("table_cards", 4, "the void deal and the opening count are of four table cards"),
        ("napola", False, "the piccola scores the run of denari from the ace"),
        ("opening_fifteen_to", "dealer", "Cirulla's opening count goes to the dealer"),
    )
    for key, needed, why in fixed:
        if rules[key] != needed:
            raise ValueError(
                f"option {key}={rules[key]!r}: not allowed with capture_mode=cirulla "
                f"(allowed: {key}={needed!r}; {why})"
            )


def full_rules(rules: dict) -> dict:
    """``rules`` with the §9 options it lacks at their defaults (RULES.md §9, last item)
    and, with ``capture_mode=cirulla``, the §10 options it lacks at theirs."""
    full = {**SECTION_9_DEFAULTS, **rules}
    if full["capture_mode"] == "cirulla":
        full.update((k, v) for k, v in SECTION_10_DEFAULTS.items() if k not in full)
    return full


def is_cirulla(rules: dict) -> bool:
    """``capture_mode=cirulla`` (RULES.md 10)."""
    return rules.get("capture_mode") == "cirulla"


def num_sides(rules: dict) -> int:
    return 2 if (rules["teams"] and rules["players"] == 4) else rules["players"]


def side_of(seat: int, rules: dict) -> int:
    return seat % 2 if (rules["teams"] and rules["players"] == 4) else seat


# --------------------------------------------------------------------------- a play


def capture_options(
    card: int, table: Iterable[int], rules: dict, *, value: int | None = None
) -> list[frozenset[int]]:
    """The distinct sets of table cards ``card`` may capture (RULES.md 4, rules 1-3, or
    with ``capture_mode=fifteen`` RULES.md 9, or with ``capture_mode=cirulla`` RULES.md 10,
    where ``value`` is the value named for the matta, else the card's own).

    Empty list if the card can only be laid.  Sorted by ``sorted(take)``.
    """
    rules = full_rules(rules)
    table = frozenset(table)
    if not table:
        return []  # an ace on an empty table is laid too
    if rules["capture_mode"] == "cirulla":
        return cirulla_captures(card_value(card) if value is None else value, table, rules)
    if rules["capture_mode"] == "fifteen":
        return fifteen_captures(card, table, rules)
    rank = card % 10
    # 1. ace sweep
    if rank == ACE and rules["ace_sweep"] and all(c % 10 != ACE for c in table):
        return [table]
    # 2. match: exactly one card of the same value
    matches = sorted(c for c in table if c % 10 == rank)
    if matches:
        return [frozenset((c,)) for c in matches]
    # 3. sums of two or more cards (no single card has value v here)
    return sets_adding_to(table, rank + 1, rules)


def fifteen_captures(card: int, table: Iterable[int], rules: dict) -> list[frozenset[int]]:
    """RULES.md 9, ``capture_mode=fifteen``: every set of one or more table cards whose
    values add up to ``15 - v`` (``v`` the played card's value), with no match priority;
    with ``sum_capture=fewest`` only the sets with the fewest cards.  Sorted by
    ``sorted(take)``."""
    return sets_adding_to(frozenset(table), 15 - card_value(card), rules)


def sets_adding_to(table: frozenset[int], target: int, rules: dict) -> list[frozenset[int]]:
    """Every set of table cards whose values add up to ``target`` (only the smallest with
    ``sum_capture=fewest``), sorted by ``sorted(take)``: a plain depth-first search over
    the cards in ascending value, each either in the set or not, cut where the next value
    exceeds what is left.  It shares nothing with the engine's packed counts, and a scan
    of every subset would take 2^30 steps on the 30-card tables of the arbitrary-position
    tests.  Scopa's sums (rule 3) have no card of value ``target`` on the table, so their
    sets have two or more cards."""
    cards = sorted(table, key=lambda c: (card_value(c), c))
    values = [card_value(c) for c in cards]
    found: list[frozenset[int]] = []
    chosen: list[int] = []

    def extend(start: int, remaining: int) -> None:
        for i in range(start, len(cards)):
            if values[i] > remaining:
                break
            chosen.append(cards[i])
            if values[i] == remaining:
                found.append(frozenset(chosen))
            else:
                extend(i + 1, remaining - values[i])
            chosen.pop()

    extend(0, target)
    if found and rules["sum_capture"] == "fewest":
        fewest = min(len(s) for s in found)
        found = [s for s in found if len(s) == fewest]
    found.sort(key=sorted)
    return found


def cirulla_captures(value: int, table: Iterable[int], rules: dict) -> list[frozenset[int]]:
    """RULES.md 10: the sets of table cards a card played with capture value ``value``
    (1..10) may capture.  An ace (value 1) on a non-empty table without an ace, with
    ``ace_sweep``, takes the whole table and nothing else.  Otherwise (a) one card of value
    ``value``; (b) a set of two or more cards adding up to ``value``, unless (a) has a card
    and ``cirulla_match_priority`` holds; (c) a set of one or more cards adding up to
    ``15 - value``.  ``sum_capture=fewest`` keeps the fewest-card sets of (b) and, apart,
    of (c).  The table's cards count their face values (a laid matta is a 7).  Sorted by
    ``sorted(take)``."""
    if not 1 <= value <= 10:
        raise ValueError(f"not a capture value: {value!r}")
    rules = full_rules(rules)
    table = frozenset(table)
    if not table:
        return []
    if value == 1 and rules["ace_sweep"] and all(c % 10 != ACE for c in table):
        return [table]
    every = {**rules, "sum_capture": "any"}
    matches = [frozenset((c,)) for c in table if card_value(c) == value]
    sums: list[frozenset[int]] = []
    if not (matches and rules["cirulla_match_priority"]):
        sums = _fewest([s for s in sets_adding_to(table, value, every) if len(s) >= 2], rules)
    fifteens = sets_adding_to(table, 15 - value, rules)
    return sorted({*matches, *sums, *fifteens}, key=sorted)


def _fewest(sets: list[frozenset[int]], rules: dict) -> list[frozenset[int]]:
    """``sets``, or with ``sum_capture=fewest`` those of them with the fewest cards."""
    if not sets or rules["sum_capture"] != "fewest":
        return sets
    fewest = min(len(s) for s in sets)
    return [s for s in sets if len(s) == fewest]


def legal_plays(
    hand: Iterable[int], table: Iterable[int], rules: dict
) -> list[tuple[int, frozenset[int]]] | list[CirullaPlay]:
    """Every distinct legal ``(card, take)``; ``take == frozenset()`` for a lay.

    With ``capture_compulsory=false`` (RULES.md 9) every card may also be laid, whatever
    it could capture, and ``capture_rule`` has no effect.  Sorted by ``(card, sorted(take))``.
    With ``capture_mode=cirulla`` the plays are ``CirullaPlay`` records instead
    (``cirulla_legal_plays``).
    """
    rules = full_rules(rules)
    if rules["capture_mode"] == "cirulla":
        return cirulla_legal_plays(hand, table, rules)
    table = frozenset(table)
    per_card = [(c, capture_options(c, table, rules)) for c in sorted(set(hand))]
    compulsory = rules["capture_compulsory"]
    any_capture = any(opts for _, opts in per_card)
    must_capture = compulsory and rules["capture_rule"] == "hand" and any_capture
    plays: list[tuple[int, frozenset[int]]] = []
    for card, opts in per_card:
        plays.extend((card, take) for take in opts)
        if not opts and not must_capture:
            plays.append((card, frozenset()))
        elif opts and not compulsory:
            plays.append((card, frozenset()))  # laid although it could capture
    plays.sort(key=lambda p: (p[0], sorted(p[1])))
    return plays


def opening_take(table: Iterable[int], rules: dict) -> tuple[frozenset[int], int]:
    """RULES.md 9, ``opening_fifteen``: what the dealer's side takes from the accepted
    first table, and how many scope that scores: the whole table and 1 when its values
    add up to 15; the whole table and 2 when it splits into two sets of 15 each; else
    nothing and 0 (a table that merely holds a set of 15 stays)."""
    rules = full_rules(rules)
    table = frozenset(table)
    if rules["capture_mode"] == "cirulla":
        return cirulla_opening(table, rules)
    if not rules["opening_fifteen"] or not table:
        return frozenset(), 0
    total = sum(card_value(c) for c in table)
    if total == 15:
        return table, 1
    if total == 30:
        cards = sorted(table)
        for size in range(1, len(cards)):
            for part in itertools.combinations(cards, size):
                if sum(card_value(c) for c in part) == 15:
                    return table, 2  # the rest adds up to 15 too
    return frozenset(), 0


def is_ace_sweep(
    card: int, take: Iterable[int], table: Iterable[int], rules: dict, *, value: int | None = None
) -> bool:
    """True iff playing ``card`` taking ``take`` is the whole-table ace capture of rule 1
    (RULES.md 4 and 10; ``value``: the value named for the matta, RULES.md 10)."""
    table = frozenset(table)
    rank = card % 10 if value is None else value - 1
    return (
        rules["ace_sweep"]
        and rank == ACE
        and bool(table)
        and all(c % 10 != ACE for c in table)
        and frozenset(take) == table
    )


def is_scopa(
    card: int,
    take: Iterable[int],
    table: Iterable[int],
    rules: dict,
    last_play: bool,
    *,
    value: int | None = None,
) -> bool:
    """Does this (legal) capture score a scopa?  ``last_play``: last card of the hand;
    ``value``: the value named for the matta (RULES.md 10)."""
    table = frozenset(table)
    take = frozenset(take)
    if not take or take != table:
        return False
    if last_play and not rules["last_play_scopa"]:
        return False
    return rules["ace_sweep_scopa"] or not is_ace_sweep(card, take, table, rules, value=value)


# --------------------------------------------------------------------------- Cirulla


class CirullaPlay(NamedTuple):
    """A Cirulla play (RULES.md 10): the card, the table cards it takes (empty: laid), the
    value named for the matta (``matta=play``; None for every other card and rule), and
    the points of the declaration made with it (3 or 10; None: no declaration)."""

    card: int
    take: frozenset[int]
    value: int | None = None
    declaration: int | None = None

    def key(self) -> tuple:
        """The sort order of ``cirulla_legal_plays``."""
        return (self.card, sorted(self.take), self.value or 0, self.declaration or 0)


def names_value(card: int, rules: dict) -> bool:
    """Does playing ``card`` name a value (the matta with ``matta=play``)?"""
    return card == MATTA and rules["matta"] == "play"


def _effect(take: frozenset[int], value: int, table: frozenset[int], rules: dict) -> tuple:
    """What a matta play does: its take, and whether an emptied table would score."""
    sweep = is_ace_sweep(MATTA, take, table, rules, value=value)
    return take, take == table and (rules["ace_sweep_scopa"] or not sweep)


def cirulla_card_captures(
    card: int, table: Iterable[int], rules: dict
) -> list[tuple[frozenset[int], int | None]]:
    """Every ``(take, named value)`` capture of ``card`` (RULES.md 10), lays left out.
    The matta with ``matta=play`` tries the values 1..10 and keeps, per effect (the take,
    and whether it would score a scopa), the smallest value; every other card names None."""
    rules = full_rules(rules)
    table = frozenset(table)
    if not names_value(card, rules):
        return [(take, None) for take in cirulla_captures(card_value(card), table, rules)]
    chosen: dict[tuple, int] = {}
    for value in range(1, 11):
        for take in cirulla_captures(value, table, rules):
            chosen.setdefault(_effect(take, value, table, rules), value)
    return sorted(((e[0], v) for e, v in chosen.items()), key=lambda tv: (sorted(tv[0]), tv[1]))


def declaration_points(hand: Iterable[int], rules: dict) -> int:
    """RULES.md 10: the points a three-card hand may declare: 10 for three cards of a rank,
    else 3 for values adding up to 9 or less, else 0 (also for any other number of cards).
    The matta (unless ``matta=none``) stands for the value that helps most: the rank of
    the other two, or an ace.  ``declare`` is not looked at."""
    rules = full_rules(rules)
    cards = sorted(set(hand))
    if len(cards) != 3:
        return 0
    wild = rules["matta"] != "none" and MATTA in cards
    others = [c for c in cards if not (wild and c == MATTA)]
    if len({c % 10 for c in others}) == 1:
        return 10
    total = sum(card_value(c) for c in others) + (1 if wild else 0)
    return 3 if total <= 9 else 0


def cirulla_legal_plays(
    hand: Iterable[int], table: Iterable[int], rules: dict
) -> list[CirullaPlay]:
    """Every distinct legal ``CirullaPlay`` of ``hand`` on ``table`` (RULES.md 10), sorted
    by ``CirullaPlay.key``.  A laid matta with ``matta=play`` names 1.  A three-card hand
    (a fresh one: Cirulla deals three cards) that qualifies declares with its points with
    ``declare=auto``, may declare or not with ``choice`` (each play listed both ways), and
    never with ``off``."""
    rules = full_rules(rules)
    table = frozenset(table)
    hand = sorted(set(hand))
    per_card = [(c, cirulla_card_captures(c, table, rules)) for c in hand]
    compulsory = rules["capture_compulsory"]
    any_capture = any(opts for _, opts in per_card)
    must_capture = compulsory and rules["capture_rule"] == "hand" and any_capture
    plays: list[CirullaPlay] = []
    for card, opts in per_card:
        plays.extend(CirullaPlay(card, take, value) for take, value in opts)
        if (not opts and not must_capture) or (opts and not compulsory):
            plays.append(CirullaPlay(card, frozenset(), 1 if names_value(card, rules) else None))
    points = declaration_points(hand, rules) if rules["declare"] != "off" else 0
    if points:
        declared = [p._replace(declaration=points) for p in plays]
        plays = declared if rules["declare"] == "auto" else plays + declared
    plays.sort(key=CirullaPlay.key)
    return plays


def canonical_play(play: CirullaPlay, table: Iterable[int], rules: dict) -> CirullaPlay | None:
    """``play`` with the value ``cirulla_legal_plays`` names for its effect, or None when
    its named value is wrong (missing, out of 1..10, or given for a card that names none,
    or one with which the take is no capture)."""
    rules = full_rules(rules)
    table = frozenset(table)
    card, take, value, _ = play
    if not names_value(card, rules):
        return play if value is None else None
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 10:
        return None
    if not take:
        return play._replace(value=1)
    if take not in cirulla_captures(value, table, rules):
        return None
    effect = _effect(take, value, table, rules)
    for v in range(1, 11):
        if take in cirulla_captures(v, table, rules) and _effect(take, v, table, rules) == effect:
            return play._replace(value=v)
    raise AssertionError("unreachable: value itself has the effect")


def is_legal_play(
    play: CirullaPlay, hand: Iterable[int], table: Iterable[int], rules: dict
) -> bool:
    """Is ``play`` legal for the seat holding ``hand`` (RULES.md 10)?  Every named value
    that makes the play legal is accepted (``cirulla_legal_plays`` lists one per effect)."""
    canon = canonical_play(CirullaPlay(*play), table, rules)
    return canon is not None and canon in cirulla_legal_plays(hand, table, rules)


def cirulla_opening(table: Iterable[int], rules: dict) -> tuple[frozenset[int], int]:
    """RULES.md 10, ``opening_count``: the dealer's side takes the accepted first table
    with one scopa when its values add up to 15, with two when they add up to 30; the
    matta (unless ``matta=none``) counts whichever value from 1 to 10 makes 15 or 30."""
    rules = full_rules(rules)
    table = frozenset(table)
    if not rules["opening_count"] or not table:
        return frozenset(), 0
    wild = rules["matta"] != "none" and MATTA in table
    base = sum(card_value(c) for c in table if not (wild and c == MATTA))
    for total, scope in ((30, 2), (15, 1)):
        if (1 <= total - base <= 10) if wild else base == total:
            return table, scope
    return frozenset(), 0


def aces_void(table: Iterable[int], rules: dict) -> bool:
    """RULES.md 10, ``aces_redeal``: two or more aces on the first table void a Cirulla
    deal (the matta is no ace)."""
    rules = full_rules(rules)
    return (
        rules["capture_mode"] == "cirulla"
        and rules["aces_redeal"]
        and sum(1 for c in table if c % 10 == ACE) >= 2
    )


# --------------------------------------------------------------------------- scoring


def _best_by_suit(cards: Iterable[int]) -> list[int | None]:
    best: list[int | None] = [None, None, None, None]
    for c in cards:
        s = c // 10
        p = PRIMIERA_VALUES[c % 10]
        b = best[s]
        if b is None or p > b:
            best[s] = p
    return best


def primiera_classic(cards: Iterable[int]) -> int | None:
    """Sum of the best primiera value of each suit; None if a suit is missing."""
    best = _best_by_suit(cards)
    if any(b is None for b in best):
        return None
    return sum(best)  # type: ignore[arg-type]


def primiera_zero(cards: Iterable[int]) -> int:
    """Classic primiera with ``primiera_missing_suit=zero``: a missing suit counts 0."""
    return sum(b for b in _best_by_suit(cards) if b is not None)


def sevens_key(cards: Iterable[int], order: tuple[int, ...] = SEVENS_ORDER) -> tuple[int, ...]:
    """Counts of 7s, 6s, 5s, 4s, 3s, 2s, aces (or of the ranks of ``order``):
    lexicographically larger is better."""
    counts = [0] * 10
    for c in cards:
        counts[c % 10] += 1
    return tuple(counts[r] for r in order)


def napola_run(cards: Iterable[int]) -> int:
    """Length of the unbroken run of denari from the ace (A,2,3,...,K); 0..10."""
    denari = {c for c in cards if c // 10 == DENARI}
    n = 0
    while n < 10 and n in denari:
        n += 1
    return n


def _strict_winner(values: list) -> int | None:
    """Index of the strictly greatest value (None entries can't win); None on a tie."""
    best = None
    winner = None
    tied = False
    for i, v in enumerate(values):
        if v is None:
            continue
        if best is None or v > best:
            best, winner, tied = v, i, False
        elif v == best:
            tied = True
    return None if tied else winner


SCORE_KEYS = (
    "scope",
    "cards",
    "denari",
    "settebello",
    "primiera",
    "re_bello",
    "napola",
    "four_sevens",
)


#: The score items Cirulla adds (RULES.md 10): grande, piccola, declarations' points.
CIRULLA_SCORE_KEYS = ("grande", "piccola", "declarations")


def score_keys(rules: dict) -> tuple[str, ...]:
    """The score items of a hand under ``rules``: ``four_sevens`` only with
    ``four_sevens_point`` (RECORD.md: records of other rules lack it), and the items of
    ``CIRULLA_SCORE_KEYS`` only with ``capture_mode=cirulla``."""
    keys = SCORE_KEYS if rules.get("four_sevens_point") else SCORE_KEYS[:-1]
    return keys + CIRULLA_SCORE_KEYS if is_cirulla(rules) else keys


def piccola_points(cards: Iterable[int], rules: dict) -> int:
    """RULES.md 10: 3 for A, 2 and 3 of denari, 1 more per further denari of the unbroken
    run from the 4, up to ``piccola_max``; 0 without the three."""
    run = napola_run(cards)
    return min(run, full_rules(rules)["piccola_max"]) if run >= 3 else 0


def score_hand(
    piles: list[set[int]], scope: list[int], rules: dict, declared: list[int] | None = None
) -> list[dict]:
    """Points of each side for one hand (RULES.md 5); one dict per side.  With
    ``capture_mode=cirulla`` also grande, piccola and ``declared``, the points each side
    declared in the hand (RULES.md 10; default none)."""
    if declared and any(declared) and not is_cirulla(rules):
        raise ValueError("declarations score only with capture_mode=cirulla")
    n = len(piles)
    keys = score_keys(rules)
    result = [dict.fromkeys(keys, 0) for _ in range(n)]
    for i in range(n):
        result[i]["scope"] = scope[i]

    w = _strict_winner([len(p) for p in piles])
    if w is not None:
        result[w]["cards"] = 1
    w = _strict_winner([sum(1 for c in p if c // 10 == DENARI) for p in piles])
    if w is not None:
        result[w]["denari"] = 1
    for i, p in enumerate(piles):
        if SETTEBELLO in p:
            result[i]["settebello"] = 1

    if rules["primiera"] == "sevens":
        w = _strict_winner([sevens_key(p) for p in piles])
    elif rules["primiera"] == "escoba_sevens":
        w = _strict_winner([sevens_key(p, ESCOBA_SEVENS_ORDER) for p in piles])
    elif rules["primiera_missing_suit"] == "zero":
        w = _strict_winner([primiera_zero(p) for p in piles])
    else:
        w = _strict_winner([primiera_classic(p) for p in piles])
    if w is not None:
        result[w]["primiera"] = 1

    if rules["re_bello"]:
        for i, p in enumerate(piles):
            if RE_BELLO in p:
                result[i]["re_bello"] = 1
    if rules["napola"]:
        for i, p in enumerate(piles):
            if ACE_D in p and TWO_D in p and THREE_D in p:
                result[i]["napola"] = 3 if rules["napola_scoring"] == "fixed3" else napola_run(p)
    if rules.get("four_sevens_point"):
        for i, p in enumerate(piles):
            if set(p) >= SEVEN_CARDS:
                result[i]["four_sevens"] = 1
    if is_cirulla(rules):
        for i, p in enumerate(piles):
            result[i]["grande"] = 5 if set(p) >= GRANDE else 0
            result[i]["piccola"] = piccola_points(p, rules)
            result[i]["declarations"] = declared[i] if declared else 0

    for r in result:
        r["total"] = sum(r[k] for k in keys)
    return result


# --------------------------------------------------------------------------- dealing


def _deal_sizes(rules: dict) -> list[int]:
    """Cards per seat of each successive deal; raises ValueError if impossible."""
    n = rules["players"]
    k = rules["hand_size"]
    deck_size = rules["deck"]
    stock = deck_size - rules["table_cards"]
    if stock < n * k:
        raise ValueError(
            f"option hand_size={k}: {rules['table_cards']} table cards + {n}x{k} dealt "
            f"exceed the {deck_size}-card deck"
        )
    sizes = []
    while stock >= n * k:
        sizes.append(k)
        stock -= n * k
    if stock:
        if stock % n:
            raise ValueError(
                f"options players={n}, deck={deck_size}, hand_size={k}, "
                f"table_cards={rules['table_cards']}: the last {stock} cards can't be "
                f"shared equally"
            )
        sizes.append(stock // n)
    return sizes


def deal_layout(
    rules: dict, deck: list[int], dealer: int
) -> tuple[frozenset[int], list[list[list[int]]]]:
    """Canonical dealing: ``table = deck[:table_cards]``; then each deal gives seat
    ``(dealer + 1 + j) % n`` (j = 0..n-1) the next k consecutive cards.

    Returns ``(table, deals)`` with ``deals[d][seat]`` the cards of ``seat`` in deal ``d``.
    """
    n = rules["players"]
    t = rules["table_cards"]
    if len(deck) != rules["deck"]:
        raise ValueError(f"deck has {len(deck)} cards, rules say {rules['deck']}")
    table = frozenset(deck[:t])
    pos = t
    deals: list[list[list[int]]] = []
    for k in _deal_sizes(rules):
        deal: list[list[int]] = [[] for _ in range(n)]
        for j in range(n):
            deal[(dealer + 1 + j) % n] = list(deck[pos : pos + k])
            pos += k
        deals.append(deal)
    assert pos == len(deck)
    return table, deals


def kings_redeal_needed(table: Iterable[int], rules: dict) -> bool:
    """Three or four kings on the initial table, with ``kings_redeal``."""
    return rules["kings_redeal"] and sum(1 for c in table if c % 10 == KING) >= 3


def redeal_needed(table: Iterable[int], rules: dict) -> bool:
    """Is a deal with this first table void: the kings rule, or Cirulla's two aces?"""
    table = list(table)
    return kings_redeal_needed(table, rules) or aces_void(table, rules)


def shuffled_deck(rules: dict, rng: random.Random) -> list[int]:
    """A shuffled deck, reshuffled while the kings rule (or, in Cirulla, the aces rule)
    asks for a redeal."""
    return shuffled_deck_and_voids(rules, rng)[0]


def shuffled_deck_and_voids(rules: dict, rng: random.Random) -> tuple[list[int], list[list[int]]]:
    """``shuffled_deck``, and the deck orders of the void deals before it, in order (the
    same draws from ``rng``)."""
    deck = make_deck(rules)
    rng.shuffle(deck)
    voids: list[list[int]] = []
    while redeal_needed(deck[: rules["table_cards"]], rules):
        voids.append(list(deck))
        rng.shuffle(deck)
    return deck, voids


# --------------------------------------------------------------------------- a hand


class HandState:
    """A hand in progress.  ``deals_left[d][seat]``: cards of the stock's later deals.

    Cirulla (RULES.md 10): ``plays`` holds ``(seat, card, take, value, declaration)``
    instead of ``(seat, card, take)``, ``declared`` the points each side declared, and
    ``declarers`` the seats that declared in the current deal (their hands are shown)."""

    def __init__(
        self,
        rules: dict,
        dealer: int,
        table: Iterable[int],
        hands: Sequence[Iterable[int]],
        deals_left: Sequence[Sequence[Iterable[int]]] = (),
        first_seat: int | None = None,
    ) -> None:
        self.rules = rules = full_rules(rules)
        self.n = rules["players"]
        self.nsides = num_sides(rules)
        self.dealer = dealer
        self.table: set[int] = set(table)
        self.hands: list[set[int]] = [set(h) for h in hands]
        self.deals_left = [[list(cards) for cards in deal] for deal in deals_left]
        self.stock = sum(len(cards) for deal in self.deals_left for cards in deal)
        self.in_hands = sum(len(h) for h in self.hands)
        self.piles: list[set[int]] = [set() for _ in range(self.nsides)]
        self.scope = [0] * self.nsides
        self.last_capturer: int | None = None
        self.seat = (dealer + 1) % self.n if first_seat is None else first_seat
        self.plays: list[tuple[int, int, frozenset[int]]] = []
        self.scopa_turns: list[int] = []
        self.finished = False
        self.remainder: frozenset[int] = frozenset()
        self.remainder_side: int | None = None
        self.opening: frozenset[int] = frozenset()
        self.opening_scope = 0
        self.opened = False
        self.cirulla = rules["capture_mode"] == "cirulla"
        self.declared = [0] * self.nsides
        self.declarers: set[int] = set()
        if self.in_hands == 0:
            self._refill_or_finish()

    def take_opening(self) -> int:
        """RULES.md 9: with ``opening_fifteen``, the dealer's side (the first player's with
        ``opening_fifteen_to=first_player``) takes the accepted first table if it makes 15
        (1 scopa) or two sets of 15 (2 scope), and is then the last capturer; RULES.md 10:
        with ``opening_count`` the dealer's side takes a table making 15 (1) or 30 (2).
        Call once, before the first play.  Returns the scope scored."""
        if self.plays or self.opened:
            raise ValueError("the opening take comes once, before the first play")
        self.opened = True
        take, scope = opening_take(self.table, self.rules)
        if take:
            taker = self.dealer
            if self.rules.get("opening_fifteen_to") == "first_player":
                taker = (self.dealer + 1) % self.rules["players"]
            side = side_of(taker, self.rules)
            self.table -= take
            self.piles[side] |= take
            self.scope[side] += scope
            self.last_capturer = side
            self.opening = take
            self.opening_scope = scope
        return scope

    def is_last_play(self) -> bool:
        return self.in_hands == 1 and self.stock == 0

    def legal(self) -> list[tuple[int, frozenset[int]]]:
        return legal_plays(self.hands[self.seat], self.table, self.rules)

    def info(self) -> dict:
        """What the seat to play sees; in Cirulla also ``shown`` (each declarer's shown
        cards still in hand) and ``declared`` (points per side so far)."""
        info = {
            "turn": len(self.plays),
            "seat": self.seat,
            "side": side_of(self.seat, self.rules),
            "dealer": self.dealer,
            "hand": frozenset(self.hands[self.seat]),
            "table": frozenset(self.table),
            "stock": self.stock,
            "last_play": self.is_last_play(),
        }
        if self.cirulla:
            info["shown"] = {s: frozenset(self.hands[s]) for s in sorted(self.declarers)}
            info["declared"] = list(self.declared)
        return info

    def play(
        self,
        card: int,
        take: Iterable[int],
        check: bool = True,
        *,
        value: int | None = None,
        declaration: int | None = None,
    ) -> bool:
        """Play ``card`` capturing ``take``; returns True if it scored a scopa.  Cirulla
        (RULES.md 10): ``value`` is the value named for the matta, ``declaration`` the
        points declared with this play (None: none); other rules refuse them."""
        if self.finished:
            raise ValueError("the hand is over")
        take = frozenset(take)
        seat = self.seat
        hand = self.hands[seat]
        if not self.cirulla and (value is not None or declaration is not None):
            raise ValueError("a named value or a declaration needs capture_mode=cirulla")
        if self.cirulla:
            play = CirullaPlay(card, take, value, declaration)
            if check and not is_legal_play(play, hand, self.table, self.rules):
                raise ValueError(f"illegal play {_play_text(play)}")
        elif check and (card, take) not in self.legal():
            raise ValueError(f"illegal play {card_str(card)} x {sorted(map(card_str, take))}")
        side = side_of(seat, self.rules)
        scopa = False
        if declaration:
            self.declared[side] += declaration
            self.declarers.add(seat)
        hand.remove(card)
        self.in_hands -= 1
        if take:
            last_play = self.in_hands == 0 and self.stock == 0
            scopa = is_scopa(card, take, self.table, self.rules, last_play, value=value)
            self.table -= take
            pile = self.piles[side]
            pile |= take
            pile.add(card)
            self.last_capturer = side
            if scopa:
                self.scope[side] += 1
                self.scopa_turns.append(len(self.plays))
        else:
            self.table.add(card)
        if self.cirulla:
            self.plays.append((seat, card, take, value, declaration))
        else:
            self.plays.append((seat, card, take))
        self.seat = (seat + 1) % self.n
        if self.in_hands == 0:
            self._refill_or_finish()
        elif not self.hands[self.seat]:
            raise ValueError(f"seat {self.seat} has no card while others still hold some")
        return scopa

    def _refill_or_finish(self) -> None:
        if self.deals_left:
            self.declarers.clear()  # shown cards are all played: a new deal hides hands
            deal = self.deals_left.pop(0)
            for seat, cards in enumerate(deal):
                self.hands[seat].update(cards)
                self.in_hands += len(cards)
                self.stock -= len(cards)
            return
        self.finished = True
        self.remainder = frozenset(self.table)
        side: int | None
        if self.rules["remainder_to"] == "dealer":
            side = side_of(self.dealer, self.rules)
        else:
            side = self.last_capturer
        self.remainder_side = side
        if side is not None:
            self.piles[side] |= self.table
        self.table = set()

    def all_denari_side(self) -> int | None:
        denari = {c for c in make_deck(self.rules) if c // 10 == DENARI}
        for side, pile in enumerate(self.piles):
            if denari <= pile:
                return side
        return None

    def result(self) -> dict:
        """The finished hand (``play_hand``'s result); in Cirulla also ``declared``."""
        if not self.finished:
            raise ValueError("the hand is not over")
        result = {
            "plays": list(self.plays),
            "piles": [set(p) for p in self.piles],
            "scope": list(self.scope),
            "last_capturer": self.last_capturer,
            "score": score_hand(
                self.piles, self.scope, self.rules, self.declared if self.cirulla else None
            ),
            "scopa_turns": list(self.scopa_turns),
            "remainder": self.remainder,
            "remainder_side": self.remainder_side,
            "all_denari_side": self.all_denari_side(),
            "opening": self.opening,
            "opening_scope": self.opening_scope,
        }
        if self.cirulla:
            result["declared"] = list(self.declared)
        return result


def _play_text(play: CirullaPlay) -> str:
    """``7H x ['2C', '3D'] as 5, declaring 3``."""
    text = f"{card_str(play.card)} x {sorted(map(card_str, play.take))}"
    if play.value is not None:
        text += f" as {play.value}"
    if play.declaration is not None:
        text += f", declaring {play.declaration}"
    return text


Chooser = Callable[[list, dict], int]


def play_hand(rules: dict, deck: list[int], dealer: int, choose: Chooser) -> dict:
    """Play a whole hand from an accepted deck order (no kings or aces check here).

    ``choose(legal_plays_list, info) -> index``.  Returns a dict with ``plays``
    (list of ``(seat, card, take)``), ``piles`` and ``scope`` per side,
    ``last_capturer`` (side or None), ``score`` (``score_hand``), plus ``scopa_turns``
    (indices into ``plays``), ``remainder``, ``remainder_side``, ``all_denari_side``,
    ``opening`` (the cards the dealer's side took by ``opening_fifteen``, RULES.md 9, or
    ``opening_count``, RULES.md 10) and ``opening_scope`` (the scope that scored, also
    counted in ``scope``).  Cirulla (RULES.md 10): the legal plays are ``CirullaPlay``
    records, ``plays`` holds ``(seat, card, take, value, declaration)``, and ``declared``
    the points each side declared.
    """
    check_rules(rules)
    rules = full_rules(rules)
    if sorted(deck) != make_deck(rules):
        raise ValueError("deck is not a permutation of the rules' deck")
    table, deals = deal_layout(rules, deck, dealer)
    state = HandState(rules, dealer, table, deals[0], deals[1:])
    state.take_opening()
    while not state.finished:
        legal = state.legal()
        chosen = legal[choose(legal, state.info())]
        if state.cirulla:
            card, take, value, declaration = chosen
            state.play(card, take, check=False, value=value, declaration=declaration)
        else:
            card, take = chosen
            state.play(card, take, check=False)
    return state.result()


def random_chooser(rng: random.Random) -> Chooser:
    """Uniform choice among all legal plays."""

    def choose(legal: list, info: dict) -> int:
        return rng.randrange(len(legal))

    return choose


# --------------------------------------------------------------------------- the match


def match_winner(totals: list[int], rules: dict, all_denari_side: int | None) -> int | None:
    """Winner after a hand has been scored (RULES.md 6), or None: play another hand.  A
    side that took all the denari wins at once with ``napola_all_denari_wins`` (and
    ``napola``), and in Cirulla with ``cappotto`` (RULES.md 10)."""
    if rules["napola"] and rules["napola_all_denari_wins"] and all_denari_side is not None:
        return all_denari_side
    if is_cirulla(rules) and full_rules(rules)["cappotto"] and all_denari_side is not None:
        return all_denari_side
    best = max(totals)
    if best < rules["target"]:
        return None
    leaders = [i for i, t in enumerate(totals) if t == best]
    return leaders[0] if len(leaders) == 1 else None


def play_match(
    rules: dict,
    rng: random.Random,
    first_dealer: int = 0,
    choose: Chooser | None = None,
    max_hands: int = 10_000,
) -> dict:
    """Play hands until ``match_winner`` names a side; the dealer moves on each hand.

    Returns ``winner``, ``totals`` and ``hands``; in Cirulla (RULES.md 10) also ``log``, one
    dict per hand: ``dealer``, ``voids`` (the void deals' deck orders), ``deck`` (the
    accepted one), ``totals_before`` and ``result`` (``play_hand``'s)."""
    check_rules(rules)
    if choose is None:
        choose = random_chooser(rng)
    totals = [0] * num_sides(rules)
    dealer = first_dealer
    hands = 0
    log: list[dict] = []
    while hands < max_hands:
        deck, voids = shuffled_deck_and_voids(rules, rng)
        before = list(totals)
        res = play_hand(rules, deck, dealer, choose)
        hands += 1
        for side, s in enumerate(res["score"]):
            totals[side] += s["total"]
        if is_cirulla(rules):
            entry = {"dealer": dealer, "voids": voids, "deck": deck, "totals_before": before}
            log.append({**entry, "result": res})
        winner = match_winner(totals, rules, res["all_denari_side"])
        if winner is not None:
            if is_cirulla(rules):
                return {"winner": winner, "totals": totals, "hands": hands, "log": log}
            return {"winner": winner, "totals": totals, "hands": hands}
        dealer = (dealer + 1) % rules["players"]
    raise RuntimeError(f"no winner after {max_hands} hands")
