"""The plain-Python reference (tests/reference.py) on Cirulla, RULES.md §10: the worked
examples 9-14 exactly as written, the rules point by point, the options' validation, and
properties of random hands and matches checked against small oracles written here apart
from the reference (subsets enumerated one by one, declarations by trying every value of
the matta)."""

from __future__ import annotations

import itertools
import random
import re

import pytest
import reference as ref  # tests/ is on sys.path (pyproject: pythonpath)
from helpers.golden import GOLDEN_CIRULLA, GOLDEN_CIRULLA_RULES
from hypothesis import given, settings
from hypothesis import strategies as st

C = ref.parse_card
MATTA = C("7H")


def cs(text: str) -> frozenset[int]:
    return frozenset(ref.parse_cards(text))


def names(cards) -> frozenset[str]:
    return frozenset(ref.card_str(c) for c in cards)


def ts(*texts: str) -> set[frozenset[str]]:
    """Takes written as text: ``ts("2C 3D", "")``."""
    return {frozenset(t.split()) for t in texts}


def takes(card: str, table: str, **overrides) -> set[frozenset[str]]:
    """The takes ``card`` may make (RULES.md 10), as sets of card names."""
    rules = ref.cirulla_rules(**overrides)
    return {names(t) for t in ref.capture_options(C(card), cs(table), rules)}


def P(card: str, take: str, value=None, declaration=None) -> tuple:
    """A play as ``plays`` writes it."""
    return (card, frozenset(take.split()), value, declaration)


def plays(hand: str, table: str, **overrides) -> set[tuple]:
    """The legal plays as ``(card, take, value, declaration)`` with card names."""
    rules = ref.cirulla_rules(**overrides)
    return {
        (ref.card_str(p.card), names(p.take), p.value, p.declaration)
        for p in ref.legal_plays(cs(hand), cs(table), rules)
    }


def state(table: str, hands: list[str], dealer: int = 0, deals_left=(), **overrides):
    rules = ref.cirulla_rules(**overrides)
    return ref.HandState(rules, dealer, cs(table), [cs(h) for h in hands], list(deals_left))


# --------------------------------------------------------------------------- examples 9-14


def test_example_9_the_ace_sweep_and_its_exception():
    rules = ref.cirulla_rules()
    # Table 2C 3D 4S: an ace (no ace on the table) sweeps all three, a scopa unless it is
    # the last play
    assert takes("AH", "2C 3D 4S") == ts("2C 3D 4S")
    table = cs("2C 3D 4S")
    assert ref.is_scopa(C("AH"), table, table, rules, last_play=False)
    assert not ref.is_scopa(C("AH"), table, table, rules, last_play=True)
    # Table AC 2D: an ace takes AC only
    assert takes("AH", "AC 2D") == ts("AC")
    # Table AC KH 3S: an ace may take AC, or AC+KH+3S (14, with the ace 15), a scopa
    assert takes("AD", "AC KH 3S") == ts("AC", "AC KH 3S")
    table = cs("AC KH 3S")
    assert ref.is_scopa(C("AD"), table, table, rules, last_play=False)
    assert not ref.is_ace_sweep(C("AD"), table, table, rules)  # an ordinary scopa


def test_example_10_sums_and_fifteens():
    table = "2C 3D 4S"
    assert takes("5H", table) == ts("2C 3D")  # nothing by fifteen: needs 10, the table is 9
    assert takes("JH", table) == ts("3D 4S")  # 8 + 3 + 4 = 15
    assert takes("3H", table) == ts("3D")
    assert takes("6H", table) == ts("2C 4S", "2C 3D 4S")  # 6 + 9 = 15
    whole = cs(table)
    assert ref.is_scopa(C("6H"), whole, whole, ref.cirulla_rules(), last_play=False)


def test_example_11_the_match_priority():
    assert takes("7D", "3C 5D 6H 7S") == ts("7S", "3C 5D")
    assert takes("4D", "2C 2D KS 4H") == ts("4H")
    assert takes("4D", "2C 2D KS 4H", cirulla_match_priority=False) == ts("4H", "2C 2D")


@pytest.mark.parametrize(
    ("hand", "points"),
    [
        ("2S 3D 4C", 3),  # sum 9
        ("2S 3D 5C", 0),  # 10: cannot declare
        ("7H 2S 5C", 3),  # the matta as an ace
        ("7H 4C 4S", 10),  # three fours
        ("6C 6D 6S", 10),
    ],
)
def test_example_12_declarations(hand: str, points: int):
    rules = ref.cirulla_rules()
    assert ref.declaration_points(cs(hand), rules) == points
    declared = {p.declaration for p in ref.legal_plays(cs(hand), cs("KD"), rules)}
    assert declared == ({None, points} if points else {None})


def test_example_13_piccola_and_grande():
    five = "AD 2D 3D 4D 5D"
    assert score_of([five], "piccola") == [5]
    for cap, expected in ((6, 6), (7, 7)):
        assert score_of([five + " 6D 7D"], "piccola", piccola_max=cap) == [expected]
    assert score_of(["JD QD KD"], "grande") == [5]


def score_of(piles: list[str], key: str, **overrides) -> list[int]:
    rules = ref.cirulla_rules(**overrides)
    sets = [set(cs(p)) for p in piles]
    sets += [set()] * (ref.num_sides(rules) - len(sets))
    return [s[key] for s in ref.score_hand(sets, [0] * len(sets), rules)][: len(piles)]


def test_example_14_the_opening_count_and_the_void_deal():
    rules = ref.cirulla_rules()
    # AD 7H 4S 3C: 1 + 7 + 4 + 3 = 15, one scopa (the matta as a 7 needs no wildness)
    assert ref.opening_take(cs("AD 7H 4S 3C"), rules) == (cs("AD 7H 4S 3C"), 1)
    assert ref.opening_take(cs("AD 7H 4S 3C"), {**rules, "matta": "none"})[1] == 1
    # KD KC 5S 5H (30) gives two scope
    assert ref.opening_take(cs("KD KC 5S 5H"), rules) == (cs("KD KC 5S 5H"), 2)
    # AD AC 5S JH is void
    assert ref.aces_void(cs("AD AC 5S JH"), rules)
    assert ref.redeal_needed(cs("AD AC 5S JH"), rules)
    # and the opening is taken by the dealer's side, who is then the last capturer
    s = state("AD 7H 4S 3C", ["2S 3D 4C", "5S 6D 6C"], dealer=1)
    assert s.take_opening() == 1
    assert s.piles[1] == cs("AD 7H 4S 3C") and s.scope == [0, 1] and s.last_capturer == 1
    assert not s.table


# --------------------------------------------------------------------------- captures


def test_an_explicit_ace_sweep_false_makes_the_ace_an_ordinary_card():
    assert takes("AH", "2C 3D 4S", ace_sweep=False) == set()  # needs 1 or 14
    assert takes("AH", "4C KS 3D", ace_sweep=False) == ts("4C KS")
    assert takes("AH", "4C KS 3D") == ts("3D 4C KS")


def test_fewest_applies_to_sums_and_fifteens_apart():
    table = "AC 2D 3S 4H 5C"
    # a 6: sums {A,5}, {2,4}, {A,2,3}; fifteens (9): {4,5}, {2,3,4}, {A,3,5}
    six = ts("AC 5C", "2D 4H", "AC 2D 3S", "4H 5C", "2D 3S 4H", "AC 3S 5C")
    assert takes("6D", table) == six
    assert takes("6D", table, sum_capture="fewest") == ts("AC 5C", "2D 4H", "4H 5C")
    # a 5: the match forbids the sums, never the fifteens (10): {1,4,5}, {2,3,5}, {1,2,3,4}
    five = ts("5C", "AC 4H 5C", "2D 3S 5C", "AC 2D 3S 4H")
    assert takes("5D", table) == five
    assert takes("5D", table, sum_capture="fewest") == five - ts("AC 2D 3S 4H")
    free = {"cirulla_match_priority": False}
    assert takes("5D", table, **free) == five | ts("AC 4H", "2D 3S")
    assert takes("5D", table, **free, sum_capture="fewest") == ts(
        "5C", "AC 4H", "2D 3S", "AC 4H 5C", "2D 3S 5C"
    )


def test_capture_obligation_by_card_and_by_hand():
    # KD can capture (5H by fifteen), 2S cannot (it needs 2 or 13): by card both may be played
    assert {p[0] for p in plays("KD 2S", "5H QC")} == {"KD", "2S"}
    assert {p[0] for p in plays("KD 2S", "5H QC", capture_rule="hand")} == {"KD"}
    # a card that can capture is never laid, unless capture is not compulsory
    assert P("KD", "") not in plays("KD 2S", "5H QC")
    assert P("KD", "") in plays("KD 2S", "5H QC", capture_compulsory=False)


def test_the_matta_is_a_seven_unless_matta_play():
    for matta in ("declare", "none"):
        assert plays("7H", "3C 4D", matta=matta) == {P("7H", "3C 4D")}
    # named: 1 sweeps; 2 takes 3+K by fifteen; 3 and 4 match; 5 takes K by fifteen (and
    # 10 by match: the same play, named 5); 7 takes 3+4 by sum (and 8 by fifteen)
    assert plays("7H", "3C 4D KS", matta="play") == {
        P("7H", "3C 4D KS", 1),
        P("7H", "3C KS", 2),
        P("7H", "3C", 3),
        P("7H", "4D", 4),
        P("7H", "KS", 5),
        P("7H", "3C 4D", 7),
    }


def test_a_named_value_is_for_the_play_only():
    rules = ref.cirulla_rules(matta="play")
    s = ref.HandState(rules, 1, cs(""), [cs("7H 2S"), cs("5C 3D")])
    assert ref.legal_plays(s.hands[0], s.table, rules) == [
        ref.CirullaPlay(C("7H"), frozenset(), 1),
        ref.CirullaPlay(C("2S"), frozenset()),
    ]
    s.play(C("7H"), frozenset(), value=4)  # any value lays it on an empty table
    # on the table it is the 7H, not the 4 it was named: a 4 finds no match (nor 11)
    assert ref.capture_options(C("4C"), s.table, rules) == []
    assert ref.capture_options(C("JC"), s.table, rules) == [cs("7H")]  # 8 + 7
    assert ref.capture_options(C("7C"), s.table, rules) == [cs("7H")]  # the match
    assert ref.capture_options(C("AC"), s.table, rules) == [cs("7H")]  # no ace: the sweep


def test_the_matta_cannot_be_laid_on_a_table_under_compulsory_capture():
    for table in ("KD", "AC", "3C 4D KS", "AS AC AD"):
        laid = {p for p in plays("7H 2S", table, matta="play") if p[0] == "7H" and not p[1]}
        assert not laid, table
        free = plays("7H 2S", table, matta="play", capture_compulsory=False)
        assert P("7H", "", 1) in free


def test_a_sweep_that_scores_nothing_is_a_play_apart():
    # 2C 3D: named 1 the matta sweeps (no scopa with ace_sweep_scopa=false), named 5 it
    # takes both by sum (a scopa): two plays; with the default one
    got = plays("7H", "2C 3D", matta="play", ace_sweep_scopa=False)
    assert {p for p in got if p[1] == names(cs("2C 3D"))} == {
        P("7H", "2C 3D", 1),
        P("7H", "2C 3D", 5),
    }
    got = plays("7H", "2C 3D", matta="play")
    assert {p for p in got if p[1] == names(cs("2C 3D"))} == {P("7H", "2C 3D", 1)}
    rules = ref.cirulla_rules(matta="play", ace_sweep_scopa=False)
    whole = cs("2C 3D")
    assert not ref.is_scopa(MATTA, whole, whole, rules, False, value=1)
    assert ref.is_scopa(MATTA, whole, whole, rules, False, value=5)


def test_every_value_that_makes_a_matta_play_legal_is_accepted():
    rules = ref.cirulla_rules(matta="play")
    hand, table = cs("7H 2S"), cs("2C 3D 4S")
    play = ref.CirullaPlay
    assert ref.is_legal_play(play(MATTA, cs("3D 4S"), 7), hand, table, rules)
    assert ref.is_legal_play(play(MATTA, cs("3D 4S"), 8), hand, table, rules)  # by fifteen
    for bad in (None, 6, 0, 11, True):
        assert not ref.is_legal_play(play(MATTA, cs("3D 4S"), bad), hand, table, rules), bad
    assert not ref.is_legal_play(play(C("2S"), cs("2C"), 2), hand, table, rules)
    assert ref.is_legal_play(play(C("2S"), cs("2C")), hand, table, rules)
    # matta=declare: a named value is an error
    assert not ref.is_legal_play(play(MATTA, cs("3D 4S"), 7), hand, table, ref.cirulla_rules())


@pytest.mark.parametrize(("hand", "table", "counts"), GOLDEN_CIRULLA)
def test_golden_cirulla_counts(hand: str, table: str, counts: tuple[int, ...]):
    for overrides, count in zip(GOLDEN_CIRULLA_RULES, counts, strict=True):
        got = ref.legal_plays(cs(hand), cs(table), ref.cirulla_rules(**overrides))
        assert len(got) == len(set(got)) == count, (hand, table, overrides)


def test_golden_rows_checked_by_hand():
    # AS sweeps, 5C takes 2C+3D, JD 3D+4S; 1 + 5 + 8 = 14 declares nothing
    assert plays("AS 5C JD", "2C 3D 4S") == {
        P("AS", "2C 3D 4S"),
        P("5C", "2C 3D"),
        P("JD", "3D 4S"),
    }
    # the matta as a 7 takes 3D+4S, 2S takes 2C, 5C takes 2C+3D; 1 + 2 + 5 declares 3
    base = {P("7H", "3D 4S"), P("2S", "2C"), P("5C", "2C 3D")}
    assert plays("7H 2S 5C", "2C 3D 4S") == base | {(c, t, v, 3) for c, t, v, _ in base}
    # KD takes 5H by fifteen; 2S (2 or 13) and the 7 (7 or 8) are laid; named, the matta
    # takes 5H (5, or 10 by fifteen), QC (6 by fifteen, or 9) or both (1, the sweep)
    assert plays("7H KD 2S", "5H QC") == {P("KD", "5H"), P("2S", ""), P("7H", "")}
    assert plays("7H KD 2S", "5H QC", capture_rule="hand") == {P("KD", "5H")}
    assert plays("7H KD 2S", "5H QC", matta="play") == {
        P("KD", "5H"),
        P("2S", ""),
        P("7H", "5H", 5),
        P("7H", "QC", 6),
        P("7H", "5H QC", 1),
    }
    # an empty table: every card laid (the matta names 1); 1 + 1 + 3 declares 3
    assert plays("7H AS 3D", "", matta="play", declare="auto") == {
        P("7H", "", 1, 3),
        P("AS", "", None, 3),
        P("3D", "", None, 3),
    }


# --------------------------------------------------------------------------- declarations


def test_declare_choice_auto_off():
    hand, table = "2S 3D 4C", "KD"
    assert {p[3] for p in plays(hand, table)} == {None, 3}
    assert {p[3] for p in plays(hand, table, declare="auto")} == {3}
    assert {p[3] for p in plays(hand, table, declare="off")} == {None}
    assert len(plays(hand, table)) == 2 * len(plays(hand, table, declare="off"))
    # no wild card with matta=none: 7H 2S 5C adds up to 14
    assert {p[3] for p in plays("7H 2S 5C", table, matta="none")} == {None}
    # three of a rank that also adds up to 9 or less scores 10
    assert {p[3] for p in plays("AS AC 7H", "KD KC", declare="auto")} == {10}
    assert ref.declaration_points(cs("2S 2C 2D"), ref.cirulla_rules()) == 10


def test_declarations_only_before_the_seats_first_play_of_a_deal():
    s = state("KD KC", ["2S 3D 4C", "6C 6D 6S"], dealer=1, deals_left=[[cs("AS 2C 3C"), cs("")]])
    assert s.legal() == sorted(s.legal(), key=ref.CirullaPlay.key)
    s.play(C("2S"), frozenset(), declaration=3)
    assert s.declared == [3, 0] and s.info()["shown"] == {0: cs("3D 4C")}
    s.play(C("6C"), frozenset(), declaration=10)
    assert s.info()["shown"] == {0: cs("3D 4C"), 1: cs("6D 6S")}
    with pytest.raises(ValueError, match="illegal"):  # seat 0 has played in this deal
        s.play(C("3D"), frozenset(), declaration=3)
    with pytest.raises(ValueError, match="illegal"):  # wrong points
        state("KD", ["2S 3D 4C", "AS"], dealer=1).play(C("2S"), frozenset(), declaration=10)
    with pytest.raises(ValueError, match="illegal"):  # a hand that does not qualify
        state("KD", ["2S 3D 5C", "AS"], dealer=1).play(C("2S"), frozenset(), declaration=3)


def test_shown_cards_are_hidden_again_by_the_next_deal():
    later = [[cs("AS 2C 3C"), cs("4S 4C 4D")]]
    s = state("KD KC", ["2S 3D", "6C 6D"], dealer=1, deals_left=later)
    s.declarers.add(0)  # as after a declaration
    s.play(C("2S"), frozenset(), check=False)
    assert s.info()["shown"] == {0: cs("3D")}
    for card in ("6C", "3D", "6D"):
        s.play(C(card), frozenset(), check=False)
    assert s.info()["shown"] == {} and len(s.hands[0]) == 3
    assert {p.declaration for p in s.legal()} == {None, 3}


def test_declared_points_go_to_the_side_and_its_total():
    rules = ref.cirulla_rules("cirulla-4")
    piles: list[set[int]] = [set(), set()]
    score = ref.score_hand(piles, [0, 0], rules, declared=[13, 0])
    assert score[0]["declarations"] == 13 and score[0]["total"] == 13
    assert ref.score_hand(piles, [0, 0], rules)[0]["declarations"] == 0
    with pytest.raises(ValueError):
        ref.score_hand(piles, [0, 0], ref.rules_with(), declared=[3, 0])


# --------------------------------------------------------------------------- deal and match


def test_the_opening_count_with_the_wild_matta():
    rules = ref.cirulla_rules()
    assert ref.opening_take(cs("7H 2C 3D 4S"), rules) == (cs("7H 2C 3D 4S"), 1)  # as a 6
    assert ref.opening_take(cs("7H KD KC 2S"), rules) == (cs("7H KD KC 2S"), 2)  # as an 8
    assert ref.opening_take(cs("7H KD KC 2S"), {**rules, "matta": "none"}) == (frozenset(), 0)
    assert ref.opening_take(cs("7H KD KC QS"), rules) == (cs("7H KD KC QS"), 2)  # as an ace
    assert ref.opening_take(cs("7H KD 5C 2S"), rules) == (frozenset(), 0)  # 17: 15 < 18
    assert ref.opening_take(cs("AD 2C 5H 7S"), {**rules, "opening_count": False})[1] == 0
    assert ref.opening_take(cs("KD 5C KS 4H"), rules) == (frozenset(), 0)  # 29


def test_void_deals():
    rules = ref.cirulla_rules()
    assert not ref.aces_void(cs("AD 7H 5S JH"), rules)  # the matta is no ace
    assert not ref.aces_void(cs("AD AC 5S JH"), {**rules, "aces_redeal": False})
    assert not ref.aces_void(cs("AD AC 5S JH"), ref.rules_with())  # Scopa has no such rule
    kings = {**rules, "kings_redeal": True}
    assert ref.redeal_needed(cs("KD KC KS JH"), kings)
    assert not ref.redeal_needed(cs("KD KC KS JH"), rules)


def test_cappotto_wins_the_match_at_once():
    rules = ref.cirulla_rules()
    assert ref.match_winner([3, 60], rules, 0) == 0
    assert ref.match_winner([3, 20], rules, 0) == 0
    assert ref.match_winner([3, 20], {**rules, "cappotto": False}, 0) is None
    assert ref.match_winner([51, 51], rules, None) is None
    assert ref.match_winner([52, 51], rules, None) == 0
    assert ref.match_winner([30, 50], rules, None) is None


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("cirulla_match_priority", "maybe"),
        ("piccola_max", 9),
        ("piccola_max", True),
        ("matta", "joker"),
        ("declare", "always"),
        ("aces_redeal", 1),
        ("opening_count", "yes"),
        ("cappotto", None),
        ("capture_mode", "genoese"),
    ],
)
def test_bad_values_name_the_option_and_the_allowed_values(option: str, value):
    with pytest.raises(ValueError, match=rf"option {option}=.*allowed values are") as err:
        ref.check_rules(ref.cirulla_rules(**{option: value}))
    assert "\n" not in str(err.value)


def refusals() -> list[str]:
    """The module docstring's table: the options refused with capture_mode=cirulla."""
    rows = re.findall(r"^``(\w+)(?:=\S+)?``(?: other than \d+)?\s+refused", ref.__doc__, re.M)
    assert len(rows) == 6, rows
    return rows


REFUSED = {
    "deck": 36,
    "hand_size": 4,
    "table_cards": 2,
    "napola": True,
    "opening_fifteen": True,
    "opening_fifteen_to": "first_player",
}


def test_the_documented_refusals_are_the_refused_options():
    assert set(refusals()) == set(REFUSED)


@pytest.mark.parametrize(("option", "value"), sorted(REFUSED.items()))
def test_cirulla_refuses_what_it_cannot_take(option: str, value):
    for preset in ref.CIRULLA_PRESETS:
        with pytest.raises(ValueError, match=rf"option {option}={value!r}: .*allowed") as err:
            ref.check_rules(ref.cirulla_rules(preset, **{option: value}))
        assert "\n" not in str(err.value)
    # the same option is fine in a game that has it: the refusal is Cirulla's
    elsewhere = {"opening_fifteen": {"capture_mode": "fifteen"}}.get(option, {})
    ref.check_rules(ref.rules_with(**{option: value}, **elsewhere))


@pytest.mark.parametrize(
    "overrides",
    [
        {"ace_sweep": False},
        {"ace_sweep_scopa": False, "last_play_scopa": True},
        {"kings_redeal": True},
        {"capture_rule": "hand", "sum_capture": "fewest"},
        {"capture_compulsory": False, "remainder_to": "dealer"},
        {"primiera": "sevens", "re_bello": True, "four_sevens_point": True},
        {"napola_scoring": "fixed3", "napola_all_denari_wins": True},
        {"piccola_max": 5, "matta": "play", "declare": "auto", "cappotto": False},
        {"cirulla_match_priority": False, "aces_redeal": False, "opening_count": False},
        {"matta": "none", "declare": "off", "piccola_max": 7, "target": 1},
    ],
)
def test_cirulla_takes_the_options_that_keep_their_meaning(overrides: dict):
    for preset in ref.CIRULLA_PRESETS:
        ref.check_rules(ref.cirulla_rules(preset, **overrides))


def test_the_presets():
    for preset, players in (("cirulla", 2), ("cirulla-3", 3), ("cirulla-4", 4)):
        rules = ref.cirulla_rules(preset)
        ref.check_rules(rules)
        assert rules["players"] == players and rules["teams"] == (players == 4)
        assert ref.num_sides(rules) == (2 if players == 4 else players)
        expected = {
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
            **ref.SECTION_10_DEFAULTS,
        }
        assert {k: rules[k] for k in expected} == expected
    assert ref.SECTION_10_DEFAULTS == {
        "cirulla_match_priority": True,
        "aces_redeal": True,
        "opening_count": True,
        "matta": "declare",
        "declare": "choice",
        "piccola_max": 6,
        "cappotto": True,
    }


def test_section_10_options_outside_cirulla():
    assert not set(ref.SECTION_10_DEFAULTS) & set(ref.rules_with())
    assert not set(ref.SECTION_10_DEFAULTS) & set(ref.full_rules(ref.rules_with()))
    ref.check_rules(ref.rules_with(matta="declare", piccola_max=6))  # the defaults: no effect
    for mode in ("scopa", "fifteen"):
        for option, value in (("matta", "play"), ("piccola_max", 7), ("declare", "off")):
            with pytest.raises(ValueError, match=rf"option {option}=.*capture_mode=cirulla"):
                ref.check_rules(ref.rules_with(capture_mode=mode, **{option: value}))
    # rules lacking the section 10 options read with their defaults
    lean = {k: v for k, v in ref.cirulla_rules().items() if k not in ref.SECTION_10_DEFAULTS}
    ref.check_rules(lean)
    assert ref.full_rules(lean) == ref.cirulla_rules()


# --------------------------------------------------------------------------- oracles


def oracle_takes(value: int, table: frozenset[int], rules: dict) -> set[frozenset[int]]:
    """RULES.md 10's captures by enumerating every subset of the table."""
    if not table:
        return set()
    if value == 1 and rules["ace_sweep"] and not any(c % 10 == 0 for c in table):
        return {table}
    subsets = [
        frozenset(s) for n in range(1, len(table) + 1) for s in itertools.combinations(table, n)
    ]

    def worth(s):
        return sum(ref.card_value(c) for c in s)

    match = {s for s in subsets if len(s) == 1 and worth(s) == value}
    sums = {s for s in subsets if len(s) >= 2 and worth(s) == value}
    if match and rules["cirulla_match_priority"]:
        sums = set()
    fifteens = {s for s in subsets if worth(s) == 15 - value}
    if rules["sum_capture"] == "fewest":
        sums = {s for s in sums if len(s) == min(map(len, sums))}
        fifteens = {s for s in fifteens if len(s) == min(map(len, fifteens))}
    return match | sums | fifteens


def oracle_declaration(hand: frozenset[int], rules: dict) -> int:
    """RULES.md 10's declaration points by trying every value the matta may stand for."""
    if len(hand) != 3:
        return 0
    wild = rules["matta"] != "none" and MATTA in hand
    best = 0
    for v in range(1, 11) if wild else [None]:
        values = [v if (wild and c == MATTA) else ref.card_value(c) for c in hand]
        if len(set(values)) == 1:
            best = max(best, 10)
        elif sum(values) <= 9:
            best = max(best, 3)
    return best


RULE_VARIANTS = st.fixed_dictionaries(
    {
        "cirulla_match_priority": st.booleans(),
        "sum_capture": st.sampled_from(["any", "fewest"]),
        "capture_rule": st.sampled_from(["card", "hand"]),
        "capture_compulsory": st.sampled_from([True, True, False]),
        "ace_sweep": st.sampled_from([True, True, False]),
        "ace_sweep_scopa": st.booleans(),
        "last_play_scopa": st.booleans(),
        "matta": st.sampled_from(["declare", "play", "none"]),
        "declare": st.sampled_from(["choice", "auto", "off"]),
        "piccola_max": st.sampled_from([5, 6, 7]),
        "opening_count": st.booleans(),
        "aces_redeal": st.booleans(),
        "kings_redeal": st.booleans(),
        "cappotto": st.booleans(),
        "remainder_to": st.sampled_from(["last_capturer", "last_capturer", "dealer"]),
    }
)
PRESET = st.sampled_from(list(ref.CIRULLA_PRESETS))
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
DECK = list(range(40))


@settings(max_examples=300, deadline=None)
@given(variant=RULE_VARIANTS, seed=SEEDS, size=st.integers(0, 9))
def test_captures_match_the_subset_oracle(variant: dict, seed: int, size: int):
    rules = ref.cirulla_rules(**variant)
    rng = random.Random(seed)
    table = frozenset(rng.sample(DECK, size))
    for value in range(1, 11):
        got = ref.cirulla_captures(value, table, rules)
        assert len(got) == len(set(got)) and set(got) == oracle_takes(value, table, rules)
    hand = frozenset(rng.sample(sorted(set(DECK) - table), 3))
    legal = ref.legal_plays(hand, table, rules)
    assert len(legal) == len(set(legal))
    for card in hand:
        mine = {p for p in legal if p.card == card}
        if ref.names_value(card, rules):
            expected = set().union(*(oracle_takes(v, table, rules) for v in range(1, 11)))
            assert all(p.take in oracle_takes(p.value, table, rules) for p in mine if p.take)
        else:
            expected = oracle_takes(ref.card_value(card), table, rules)
            assert all(p.value is None for p in mine)
        assert {p.take for p in mine if p.take} == expected
        laid = any(not p.take for p in mine)
        can = bool(expected)
        any_can = any(
            oracle_takes(v, table, rules)
            for c in hand
            for v in (range(1, 11) if ref.names_value(c, rules) else [ref.card_value(c)])
        )
        must = rules["capture_compulsory"] and (
            can or (rules["capture_rule"] == "hand" and any_can)
        )
        assert laid == (not must)
    points = oracle_declaration(hand, rules) if rules["declare"] != "off" else 0
    declared = {p.declaration for p in legal}
    assert (
        declared
        == {
            "choice": {None, points} if points else {None},
            "auto": {points or None},
            "off": {None},
        }[rules["declare"]]
    )


class Recorder:
    """A random chooser that takes sweeps and declarations often, and remembers each
    decision's hand, table, stock and legal plays."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.seen: list[dict] = []

    def __call__(self, legal: list, info: dict) -> int:
        table = info["table"]
        good = [i for i, p in enumerate(legal) if (p.take and p.take == table) or p.declaration]
        i = (
            self.rng.choice(good)
            if good and self.rng.random() < 0.7
            else self.rng.randrange(len(legal))
        )
        self.seen.append({**info, "legal": legal, "chosen": legal[i]})
        return i


def check_hand(rules: dict, deck: list[int], dealer: int, res: dict, seen: list[dict]) -> None:
    """The properties of one finished Cirulla hand."""
    n, sides = rules["players"], ref.num_sides(rules)
    table = frozenset(deck[:4])
    # 40 cards: 36 plays, the opening take, piles and the remainder partition the deck
    assert len(res["plays"]) == 36 == len(seen)
    piles = res["piles"]
    assert sum(map(len, piles)) == len(set().union(*piles))
    claimed = set().union(*piles)
    if res["remainder_side"] is None:
        assert claimed | res["remainder"] == set(DECK) and not claimed & res["remainder"]
    else:
        assert claimed == set(DECK)
    # the opening count: the table's values, the matta wild
    wild = rules["matta"] != "none" and MATTA in table
    sums = {
        sum(ref.card_value(c) if c != MATTA or not wild else v for c in table) for v in range(1, 11)
    }
    expected_scope = 0
    if rules["opening_count"]:
        expected_scope = 2 if 30 in sums else 1 if 15 in sums else 0
    assert res["opening_scope"] == expected_scope
    assert res["opening"] == (table if expected_scope else frozenset())
    # plays: seats in turn, each legal, declarations only on fresh qualifying hands
    scope = [0] * sides
    scope[ref.side_of(dealer, rules)] += expected_scope
    declared = [0] * sides
    for turn, ((seat, card, take, value, declaration), info) in enumerate(
        zip(res["plays"], seen, strict=True)
    ):
        assert seat == (dealer + 1 + turn) % n == info["seat"]
        play = ref.CirullaPlay(card, take, value, declaration)
        assert play == info["chosen"] and ref.is_legal_play(
            play, info["hand"], info["table"], rules
        )
        if declaration is not None:
            assert len(info["hand"]) == 3 and rules["declare"] != "off"
            assert declaration == oracle_declaration(info["hand"], rules) > 0
            declared[ref.side_of(seat, rules)] += declaration
        elif rules["declare"] == "auto" and len(info["hand"]) == 3:
            assert oracle_declaration(info["hand"], rules) == 0
        # shown: the hands of this deal's declarers, less what they have played since
        deal_start = turn - turn % (3 * n)
        shown: dict[int, set[int]] = {}
        for earlier in seen[deal_start:turn]:
            if earlier["chosen"].declaration:
                shown[earlier["seat"]] = set(earlier["hand"])
            shown.get(earlier["seat"], set()).discard(earlier["chosen"].card)
        assert info["shown"] == shown
        last = turn == 35
        if take and take == info["table"] and not (last and not rules["last_play_scopa"]):
            sweep = rules["ace_sweep"] and not any(c % 10 == 0 for c in take)
            sweep = sweep and (value if value is not None else ref.card_value(card)) == 1
            scope[ref.side_of(seat, rules)] += rules["ace_sweep_scopa"] or not sweep
    assert res["scope"] == scope and res["declared"] == declared
    # points add up
    for side, s in enumerate(res["score"]):
        assert s["total"] == sum(v for k, v in s.items() if k != "total")
        assert s["declarations"] == declared[side] and s["scope"] == scope[side]
        assert s["grande"] == (5 if {7, 8, 9} <= piles[side] else 0)
        assert s["piccola"] in (0, 3, 4, 5, 6, 7) and s["piccola"] <= rules["piccola_max"]
        run = next(r for r in range(11) if r == 10 or r not in piles[side])
        assert s["piccola"] == (min(run, rules["piccola_max"]) if run >= 3 else 0)
    for key in ("cards", "denari", "settebello", "primiera"):
        assert sum(s[key] for s in res["score"]) <= 1


@settings(max_examples=200, deadline=None)
@given(preset=PRESET, variant=RULE_VARIANTS, seed=SEEDS)
def test_random_hands_keep_the_rules(preset: str, variant: dict, seed: int):
    rules = ref.cirulla_rules(preset, **variant)
    rng = random.Random(seed)
    deck, _ = ref.shuffled_deck_and_voids(rules, rng)
    dealer = rng.randrange(rules["players"])
    chooser = Recorder(rng)
    res = ref.play_hand(rules, deck, dealer, chooser)
    check_hand(rules, deck, dealer, res, chooser.seen)


@settings(max_examples=60, deadline=None)
@given(preset=PRESET, variant=RULE_VARIANTS, seed=SEEDS, target=st.sampled_from([21, 51]))
def test_random_matches_keep_the_rules(preset: str, variant: dict, seed: int, target: int):
    rules = ref.cirulla_rules(preset, **variant, target=target)
    rng = random.Random(seed)
    first = rng.randrange(rules["players"])
    res = ref.play_match(rules, rng, first_dealer=first, choose=Recorder(rng))
    totals = [0] * ref.num_sides(rules)
    for i, hand in enumerate(res["log"]):
        # the dealer moves once per hand played; void deals keep it
        assert hand["dealer"] == (first + i) % rules["players"]
        assert hand["totals_before"] == totals
        for void in hand["voids"]:
            assert sorted(void) == DECK
            aces = sum(1 for c in void[:4] if c % 10 == 0)
            kings = sum(1 for c in void[:4] if c % 10 == 9)
            assert (rules["aces_redeal"] and aces >= 2) or (rules["kings_redeal"] and kings >= 3)
        accepted = hand["deck"][:4]
        assert not rules["aces_redeal"] or sum(1 for c in accepted if c % 10 == 0) < 2
        totals = [t + s["total"] for t, s in zip(totals, hand["result"]["score"], strict=True)]
        denari = [s for s, p in enumerate(hand["result"]["piles"]) if set(range(10)) <= p]
        last = i == len(res["log"]) - 1
        if rules["cappotto"] and denari:
            assert last and res["winner"] == denari[0]  # cappotto ends the match
        elif last:
            assert max(totals) >= target and totals.count(max(totals)) == 1
            assert res["winner"] == totals.index(max(totals))
        else:
            assert max(totals) < target or totals.count(max(totals)) > 1
    assert res["totals"] == totals and res["hands"] == len(res["log"])


def test_void_deals_redeal_with_the_same_draws():
    rules = ref.cirulla_rules()
    voided = 0
    for seed in range(300):
        deck, voids = ref.shuffled_deck_and_voids(rules, random.Random(seed))
        assert deck == ref.shuffled_deck(rules, random.Random(seed))
        voided += len(voids)
        assert all(ref.aces_void(v[:4], rules) for v in voids)
        assert not ref.aces_void(deck[:4], rules)
    # two or more aces among four cards of forty: 1 - (C(36,4) + 4 C(36,3)) / C(40,4), 4.3%
    # of the deals, so about 13.5 voids before 300 accepted ones
    assert 3 < voided < 30
    # without the option no deal is void
    assert not ref.shuffled_deck_and_voids({**rules, "aces_redeal": False}, random.Random(7))[1]


def test_a_side_with_every_denari_is_found_at_the_end_of_the_hand():
    s = state("2C", ["2D", "KC"], dealer=1)
    s.piles[0] |= {c for c in range(10) if c != C("2D")}  # as if captured earlier
    s.play(C("2D"), cs("2C"))
    s.play(C("KC"), frozenset())
    res = s.result()
    assert res["all_denari_side"] == 0 and res["remainder_side"] == 0


def test_cappotto_ends_the_match_loop(monkeypatch: pytest.MonkeyPatch):
    """A hand in which side 1 takes every denari ends the match, whatever the totals."""
    rules = ref.cirulla_rules()
    real = ref.play_hand
    played = []

    def hand_with_cappotto(rules, deck, dealer, choose):
        res = real(rules, deck, dealer, choose)
        played.append(dealer)
        return {**res, "all_denari_side": 1 if len(played) == 2 else None}

    monkeypatch.setattr(ref, "play_hand", hand_with_cappotto)
    res = ref.play_match(rules, random.Random(5))
    assert res["hands"] == 2 == len(played) and res["winner"] == 1
    assert max(res["totals"]) < 51  # two hands of random play are far from 51
    played.clear()
    res = ref.play_match({**rules, "cappotto": False}, random.Random(5))
    assert res["hands"] > 2
