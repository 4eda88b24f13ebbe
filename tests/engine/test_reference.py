"""Tests of the plain-Python reference implementation (tests/reference.py)."""

from __future__ import annotations

import itertools
import random

import pytest
import reference as ref  # tests/ is on sys.path (pyproject: pythonpath)
from helpers.golden import ESCOBA, FIFTEEN, GOLDEN_FIFTEEN, GOLDEN_RULES

C = ref.parse_card


def cs(text: str) -> frozenset[int]:
    return frozenset(ref.parse_cards(text))


def opts(card: str, table: str, **rules) -> list[frozenset[int]]:
    return ref.capture_options(C(card), cs(table), ref.rules_with(**rules))


def scores(piles: list[str], rules=None, scope=None) -> list[dict]:
    rules = rules or ref.rules_with()
    sets = [set(cs(p)) for p in piles]
    return ref.score_hand(sets, scope or [0] * len(sets), rules)


def points(piles: list[str], key: str, **rules) -> list[int]:
    return [s[key] for s in scores(piles, ref.rules_with(**rules))]


# --------------------------------------------------------------------------- cards


def test_card_encoding_and_text():
    assert C("AD") == 0 and C("7D") == 6 and C("KD") == 9
    assert C("AH") == 10 and C("JC") == 27 and C("KS") == 39
    assert C("7♦") == 6 and C("7d") == 6 and C("q♠") == 38
    for c in range(40):
        assert C(ref.card_str(c)) == c
    assert [ref.card_value(c) for c in range(10)] == list(range(1, 11))
    for bad in ("10D", "8D", "9S", "7X", "", "7", "AD7"):
        with pytest.raises(ValueError):
            C(bad)


def test_decks():
    assert ref.make_deck(ref.rules_with()) == list(range(40))
    d36 = ref.make_deck(ref.rules_with(deck=36))
    assert len(d36) == 36 and not any(c % 10 == 1 for c in d36)


# --------------------------------------------------------------------------- worked examples


def _state(rules, table, hands, dealer=0, deals_left=()):
    return ref.HandState(rules, dealer, cs(table), [cs(h) for h in hands], list(deals_left))


def test_example1_ace_sweep():
    rules = ref.rules_with(ace_sweep=True)
    table = cs("2C 3D 6H")
    assert ref.capture_options(C("AS"), table, rules) == [table]
    assert ref.is_ace_sweep(C("AS"), table, table, rules)
    assert ref.is_scopa(C("AS"), table, table, rules, last_play=False)
    assert not ref.is_scopa(C("AS"), table, table, rules, last_play=True)
    # with AD on the table the ace takes AD only (rule 2)
    table2 = table | {C("AD")}
    assert ref.capture_options(C("AS"), table2, rules) == [cs("AD")]
    assert not ref.is_ace_sweep(C("AS"), cs("AD"), table2, rules)
    # empty table: the ace is laid
    assert ref.capture_options(C("AS"), frozenset(), rules) == []
    # without ace_sweep the ace can't capture 2C 3D 6H
    assert opts("AS", "2C 3D 6H") == []
    # played in a hand (not the last play): scores a scopa for the player's side
    # seat 1 plays first (dealer 0); give seat 0 two cards so AS is not the last play
    st = _state(rules, "2C 3D 6H", ["KH QH", "AS 4C"])
    assert st.play(C("AS"), table) is True
    assert st.scope == [0, 1] and st.piles[1] == set(table | {C("AS")})


def test_example1_ace_sweep_scopa_false_and_last_play():
    rules = ref.rules_with(ace_sweep=True, ace_sweep_scopa=False)
    st = _state(rules, "2C 3D 6H", ["KH QH", "AS 4C"])
    assert st.play(C("AS"), cs("2C 3D 6H")) is False
    assert st.scope == [0, 0] and st.last_capturer == 1
    # an ace taking a lone ace (rule 2) is an ordinary scopa
    st = _state(rules, "AD", ["KH QH", "AS 4C"])
    assert not ref.is_ace_sweep(C("AS"), cs("AD"), cs("AD"), rules)
    assert st.play(C("AS"), cs("AD")) is True
    assert st.scope == [0, 1]
    # an ace sweep on the very last play: no scopa even with ace_sweep_scopa
    rules = ref.rules_with(ace_sweep=True)
    st = _state(rules, "2C 3D 6H", ["KH", "AS"], dealer=1)  # seat 0 first, seat 1 last
    st.play(C("KH"), frozenset())
    assert st.play(C("AS"), cs("2C 3D 6H KH")) is False
    assert st.finished and st.scope == [0, 0]
    assert st.piles[1] == set(cs("2C 3D 6H KH AS"))


def test_example2_match_forbids_sums():
    assert opts("6S", "6H 2C 4D") == [cs("6H")]
    assert opts("6S", "6H 2C 4D", sum_capture="fewest") == [cs("6H")]
    assert opts("6S", "2C 4D") == [cs("2C 4D")]
    # several matching cards: the player chooses one of them
    assert opts("6S", "6H 6C 2C 4D") == [cs("6H"), cs("6C")]


def test_example3_seven_and_scopa_except_last_play():
    assert opts("7D", "7C 5H 2S") == [cs("7C")]
    assert opts("7D", "5H 2S") == [cs("5H 2S")]
    rules = ref.rules_with()
    st = _state(rules, "5H 2S", ["KH QH", "7D 4C"])
    assert st.play(C("7D"), cs("5H 2S")) is True
    assert st.scope == [0, 1]
    # the same capture as the last play of the hand: no scopa, unless last_play_scopa
    for last_play_scopa in (False, True):
        rules = ref.rules_with(last_play_scopa=last_play_scopa)
        st = _state(rules, "5H 2S 3C", ["7D", "3D"])  # dealer 0: seat 1 first, seat 0 last
        assert st.play(C("3D"), cs("3C")) is False
        assert ref.capture_options(C("7D"), st.table, rules) == [cs("5H 2S")]
        assert st.is_last_play()
        assert st.play(C("7D"), cs("5H 2S")) is last_play_scopa
        assert st.finished and st.scope == [int(last_play_scopa), 0]


def test_example4_king_match_then_sums():
    assert opts("KS", "KC JS 2H 7D AH") == [cs("KC")]
    assert sorted(opts("KS", "JS 2H 7D AH"), key=len) == [cs("JS 2H"), cs("7D 2H AH")]
    assert opts("KS", "JS 2H 7D AH", sum_capture="fewest") == [cs("JS 2H")]


def test_example5_primiera():
    assert ref.primiera_classic(cs("7D 7H 7C 7S")) == 84
    assert ref.primiera_classic(cs("7D 7H 7C 6S")) == 81
    assert ref.primiera_classic(cs("7D 6D AH 5C 4C KS")) == 21 + 16 + 15 + 10


# --------------------------------------------------------------------------- captures


def test_sum_capture_any_and_fewest():
    table = "AH AC 2S 3D 4C"
    got = opts("5S", table)
    assert set(got) == {cs("AH 4C"), cs("AC 4C"), cs("2S 3D"), cs("AH AC 3D")}
    assert len(got) == 4
    assert set(opts("5S", table, sum_capture="fewest")) == {cs("AH 4C"), cs("AC 4C"), cs("2S 3D")}
    # 2 takes two aces
    assert opts("2D", "AH AC KS") == [cs("AH AC")]
    # nothing sums: empty
    assert opts("4D", "5H 6C") == []
    assert opts("3D", "") == []


def test_capture_rule_card_vs_hand():
    hand, table = cs("7D KS"), cs("7C 5H")
    card = ref.legal_plays(hand, table, ref.rules_with())
    assert card == [(C("7D"), cs("7C")), (C("KS"), frozenset())]
    hand_rule = ref.legal_plays(hand, table, ref.rules_with(capture_rule="hand"))
    assert hand_rule == [(C("7D"), cs("7C"))]
    # nothing can capture: every card is laid, under both rules
    for rule in ("card", "hand"):
        got = ref.legal_plays(cs("KS QS"), cs("AH"), ref.rules_with(capture_rule=rule))
        assert got == [(C("QS"), frozenset()), (C("KS"), frozenset())]


def test_legal_plays_sorted_and_distinct():
    hand = cs("5S 6S AS")
    table = cs("AH 4C 2S 3D 5D")
    plays = ref.legal_plays(hand, table, ref.rules_with())
    assert plays == sorted(plays, key=lambda p: (p[0], sorted(p[1])))
    assert len(set(plays)) == len(plays)
    assert (C("5S"), cs("5D")) in plays and (C("AS"), cs("AH")) in plays
    assert all(len(t) >= 2 for c, t in plays if c == C("6S"))


# --------------------------------------------------------------------------- scoring


def test_cards_and_denari_majority_ties_give_nobody():
    assert points(["AH 2H 3H", "AC 2C"], "cards") == [1, 0]
    assert points(["AH 2H", "AC 2C"], "cards") == [0, 0]
    assert points(["AH 2H", "AC 2C", "AS"], "cards") == [0, 0, 0]
    assert points(["AH", "AC 2C", "AS"], "cards") == [0, 1, 0]
    assert points(["AD 2D KH", "3D 4D"], "denari") == [0, 0]
    assert points(["AD 2D KH", "3D 4S"], "denari") == [1, 0]
    assert points(["AD", "3D", "KH"], "denari") == [0, 0, 0]
    assert points(["7D", "AD"], "settebello") == [1, 0]


def test_primiera_missing_suit_exclude_vs_zero():
    full_low = "KD KH KC KS"  # 40
    missing = "7D 7H 7C"  # 63 with zero for spades
    assert ref.primiera_classic(cs(missing)) is None
    assert ref.primiera_zero(cs(missing)) == 63
    assert ref.primiera_zero(frozenset()) == 0
    assert points([full_low, missing], "primiera") == [1, 0]
    assert points([full_low, missing], "primiera", primiera_missing_suit="zero") == [0, 1]
    # both missing a suit: nobody (exclude), best sum (zero)
    assert points(["7D 7H", "AD"], "primiera") == [0, 0]
    assert points(["7D 7H", "AD"], "primiera", primiera_missing_suit="zero") == [1, 0]
    # tie: nobody
    assert points(["7D 7H KC KS", "7C 7S KD KH"], "primiera") == [0, 0]
    assert points(["7D 7H 6C 6S", "6D 6H 7C 7S"], "primiera") == [0, 0]


def test_primiera_sevens_tie_chain():
    def sev(*piles):
        return points(list(piles), "primiera", primiera="sevens")

    assert ref.sevens_key(cs("7D 7H 6C AS AH")) == (2, 1, 0, 0, 0, 0, 2)
    assert sev("7D 7H", "7C KD KH") == [1, 0]  # most sevens wins, primiera values ignored
    assert sev("7D 6H", "7C 6S 5C") == [0, 1]  # tie on 7s and 6s, fives decide
    assert sev("7D 5H 3C", "7C 5S 2C AS AC") == [1, 0]  # threes before twos
    assert sev("7D 2H", "7C AS AC AH") == [1, 0]  # twos before aces
    assert sev("7D AH", "7C AS") == [0, 0]  # tied through all ranks: nobody
    assert sev("KD", "QD") == [0, 0]
    # three sides: only the tied leaders go on
    assert sev("7D 6D", "7H 6H 5H", "7C 7S") == [0, 0, 1]
    assert sev("7D 6D", "7H 6H AH", "6C 5C 4C 3C") == [0, 1, 0]


def test_napola_length_and_fixed3():
    def nap(pile, **kw):
        return points([pile, "KS"], "napola", napola=True, **kw)[0]

    assert nap("AD 2D 3D") == 3
    assert nap("AD 2D 3D 4D 5D 7D") == 5
    assert nap("AD 2D 3D 4D 5D 6D 7D JD QD KD") == 10
    assert nap("AD 2D 4D 5D") == 0
    assert nap("2D 3D 4D") == 0
    assert nap("AD 2D 3D 4D 5D", napola_scoring="fixed3") == 3
    assert nap("AD 2D", napola_scoring="fixed3") == 0
    assert points(["AD 2D 3D", "KS"], "napola") == [0, 0]  # napola off
    assert ref.napola_run(cs("AD 2D 3D 4D 6D")) == 4


def test_re_bello_and_total():
    assert points(["KD", "KH"], "re_bello") == [0, 0]
    assert points(["KD", "KH"], "re_bello", re_bello=True) == [1, 0]
    rules = ref.rules_with(re_bello=True, napola=True)
    s = scores(["AD 2D 3D 4D 7D KD 7H 7C 7S QH", "5D 6D JD QD AS"], rules=rules, scope=[2, 1])
    assert s[0] == {
        "scope": 2,
        "cards": 1,
        "denari": 1,
        "settebello": 1,
        "primiera": 1,
        "re_bello": 1,
        "napola": 4,
        "total": 11,
    }
    assert s[1]["total"] == 1 and s[1]["scope"] == 1


# --------------------------------------------------------------------------- end of hand


def test_remainder_to_last_capturer_dealer_and_nobody():
    # dealer 0: seat 1 plays first.  Nobody captures.
    for rt, expect_side in (("last_capturer", None), ("dealer", 0)):
        rules = ref.rules_with(remainder_to=rt)
        st = _state(rules, "5H", ["3S", "2C"])
        st.play(C("2C"), frozenset())
        st.play(C("3S"), frozenset())
        res = st.result()
        assert res["last_capturer"] is None
        assert res["remainder"] == cs("5H 2C 3S")
        assert res["remainder_side"] == expect_side
        if expect_side is None:
            assert res["piles"] == [set(), set()]
        else:
            assert res["piles"][expect_side] == set(cs("5H 2C 3S"))
        assert res["scope"] == [0, 0]
    # seat 1 captures, seat 0 lays: remainder to seat 1 or to the dealer (seat 0)
    for rt, side in (("last_capturer", 1), ("dealer", 0)):
        rules = ref.rules_with(remainder_to=rt)
        st = _state(rules, "5H 4D", ["3S", "5C"])
        st.play(C("5C"), cs("5H"))
        st.play(C("3S"), frozenset())
        res = st.result()
        assert res["last_capturer"] == 1 and res["remainder_side"] == side
        assert cs("4D 3S") <= res["piles"][side]
        assert res["scope"] == [0, 0]  # the remainder is never a scopa


def test_remainder_dealer_side_with_teams():
    rules = ref.rules_with(players=4, remainder_to="dealer")
    # dealer 3 (side 1): seat 0 first
    st = _state(rules, "KH", ["JS", "QC", "7C", "6C"], dealer=3)
    for card in ("JS", "QC", "7C", "6C"):
        st.play(C(card), frozenset())
    assert st.finished and st.last_capturer is None
    assert st.piles == [set(), set(cs("KH JS QC 7C 6C"))]


def test_teams_share_piles_and_scope():
    rules = ref.rules_with(players=4)
    assert rules["teams"] and ref.num_sides(rules) == 2
    st = _state(rules, "5H", ["3S", "5C", "4C", "KC"], dealer=0)  # seat 1 first
    assert st.play(C("5C"), cs("5H")) is True  # seat 1, side 1
    st.play(C("4C"), frozenset())  # seat 2
    st.play(C("KC"), frozenset())  # seat 3
    st.play(C("3S"), frozenset())  # seat 0
    res = st.result()
    assert res["scope"] == [0, 1]
    assert res["piles"][1] == set(cs("5H 5C 4C KC 3S"))
    assert [s for s, _, _ in res["plays"]] == [1, 2, 3, 0]


# --------------------------------------------------------------------------- dealing


def test_deal_layout_canonical():
    rules = ref.rules_with()
    deck = list(range(40))
    table, deals = ref.deal_layout(rules, deck, dealer=1)
    assert table == frozenset({0, 1, 2, 3})
    assert len(deals) == 6
    assert deals[0][0] == [4, 5, 6] and deals[0][1] == [7, 8, 9]  # seat 0 = dealer+1 first
    assert deals[5][0] == [34, 35, 36] and deals[5][1] == [37, 38, 39]
    table, deals = ref.deal_layout(rules, deck, dealer=0)
    assert deals[0][1] == [4, 5, 6] and deals[0][0] == [7, 8, 9]
    # scopone scientifico: one deal of 10, no table; dealer 2 -> seat 3 first
    rules = ref.rules_with(players=4, hand_size=10, table_cards=0, napola=True)
    table, deals = ref.deal_layout(rules, deck, dealer=2)
    assert table == frozenset() and len(deals) == 1
    assert [deals[0][s][0] for s in (3, 0, 1, 2)] == [0, 10, 20, 30]
    # 3 players
    table, deals = ref.deal_layout(ref.rules_with(players=3), deck, dealer=2)
    assert len(deals) == 4 and deals[0][0] == [4, 5, 6] and deals[0][2] == [10, 11, 12]


def test_deal_layout_deck36_short_last_deal():
    rules = ref.rules_with(deck=36)
    deck = ref.make_deck(rules)
    table, deals = ref.deal_layout(rules, deck, dealer=0)
    assert table == frozenset(deck[:4])
    assert [len(d[0]) for d in deals] == [3, 3, 3, 3, 3, 1]
    assert deals[-1][1] == [deck[34]] and deals[-1][0] == [deck[35]]
    got = sorted(table) + sorted(c for d in deals for h in d for c in h)
    assert sorted(got) == deck
    # 4 players: 32 = 12 + 12 + 8
    rules4 = ref.rules_with(deck=36, players=4)
    _, deals = ref.deal_layout(rules4, deck, dealer=3)
    assert [len(d[0]) for d in deals] == [3, 3, 2]
    assert deals[2][0] == deck[28:30] and deals[2][3] == deck[34:36]
    # a 36-card hand plays out fully, with the short deal
    res = ref.play_hand(rules, deck, 0, ref.random_chooser(random.Random(5)))
    assert len(res["plays"]) == 32
    # 3 players can't share the last 5 cards
    with pytest.raises(ValueError, match="shared equally"):
        ref.deal_layout(ref.rules_with(deck=36, players=3), deck, dealer=0)
    # 2 players, hand 10: 20 + 16 -> last deal of 8
    _, deals = ref.deal_layout(ref.rules_with(hand_size=10), list(range(40)), 0)
    assert [len(d[0]) for d in deals] == [10, 8]


def test_play_hand_follows_deal_and_turn_order():
    rules = ref.rules_with()
    rng = random.Random(11)
    deck = ref.make_deck(rules)
    rng.shuffle(deck)
    res = ref.play_hand(rules, deck, 1, ref.random_chooser(rng))
    _, deals = ref.deal_layout(rules, deck, 1)
    seats = [s for s, _, _ in res["plays"]]
    assert seats == [0, 1] * 18
    for d in range(6):
        for seat in (0, 1):
            played = {c for s, c, _ in res["plays"][6 * d : 6 * d + 6] if s == seat}
            assert played == set(deals[d][seat])


def test_kings_redeal_needed():
    rules = ref.rules_with()
    assert ref.kings_redeal_needed(cs("KD KH KC AS"), rules)
    assert ref.kings_redeal_needed(cs("KD KH KC KS"), rules)
    assert not ref.kings_redeal_needed(cs("KD KH QC AS"), rules)
    assert not ref.kings_redeal_needed(cs("KD KH KC AS"), ref.rules_with(kings_redeal=False))
    deck = ref.shuffled_deck(rules, random.Random(3))
    assert not ref.kings_redeal_needed(deck[:4], rules) and sorted(deck) == list(range(40))


# --------------------------------------------------------------------------- match


def test_match_winner():
    rules = ref.rules_with()
    assert ref.match_winner([10, 9], rules, None) is None
    assert ref.match_winner([11, 9], rules, None) == 0
    assert ref.match_winner([12, 13], rules, None) == 1
    assert ref.match_winner([12, 12], rules, None) is None
    assert ref.match_winner([12, 12, 11], ref.rules_with(players=3), None) is None
    assert ref.match_winner([12, 11, 13], ref.rules_with(players=3), None) == 2
    assert ref.match_winner([1, 0], ref.rules_with(target=1), None) == 0
    # all denari: only with napola and napola_all_denari_wins
    assert ref.match_winner([2, 15], rules, 0) == 1
    assert ref.match_winner([2, 15], ref.rules_with(napola=True), 0) == 1
    nap = ref.rules_with(napola=True, napola_all_denari_wins=True)
    assert ref.match_winner([2, 15], nap, 0) == 0
    assert ref.match_winner([2, 5], nap, 1) == 1
    assert ref.match_winner([12, 12], nap, None) is None


def test_play_match_terminates():
    res = ref.play_match(ref.rules_with(), random.Random(1))
    assert max(res["totals"]) >= 11 and res["totals"].count(max(res["totals"])) == 1
    assert res["totals"][res["winner"]] == max(res["totals"])


def test_check_rules():
    for good in (
        {},
        {"players": 3},
        {"players": 4, "teams": False},
        {"players": 4, "hand_size": 9},
        {"players": 4, "hand_size": 10, "table_cards": 0, "napola": True},
        {"deck": 36, "players": 4},
    ):
        ref.check_rules(ref.rules_with(**good))
    for bad in (
        {"players": 2, "teams": True},
        {"deck": 36, "napola": True},
        {"deck": 36, "players": 3},
        {"players": 4, "hand_size": 10},
        {"capture_rule": "maybe"},
        {"target": 0},
    ):
        with pytest.raises(ValueError):
            ref.check_rules(ref.rules_with(**bad))
    with pytest.raises(ValueError):
        ref.rules_with(colour="red")


# --------------------------------------------------------------------------- RULES.md 9


def plays_of(hand: str, table: str, **rules) -> set[tuple[str, tuple[str, ...]]]:
    """Legal plays as ``(card, sorted take)`` text, for readable expectations."""
    got = ref.legal_plays(cs(hand), cs(table), ref.rules_with(**rules))
    return {(ref.card_str(c), tuple(sorted(map(ref.card_str, t)))) for c, t in got}


def test_example6_fifteen_captures():
    assert opts("5S", "7C 3D 5H", **FIFTEEN) == [cs("7C 3D")]
    assert opts("KH", "7C 3D 5H", **FIFTEEN) == [cs("5H")]
    assert opts("AS", "7C 3D 5H", **FIFTEEN) == []  # needs 14: nothing adds up to it
    assert ("AS", ()) in plays_of("AS 5S", "7C 3D 5H", **FIFTEEN)  # so it is laid


def test_example7_several_sets_and_no_scopa():
    assert opts("3S", "2C 3D 5H 7S", **FIFTEEN) == sorted([cs("5H 7S"), cs("2C 3D 7S")], key=sorted)
    assert opts("JC", "2C 3D 5H 7S", **FIFTEEN) == sorted([cs("7S"), cs("2C 5H")], key=sorted)
    table = cs("2C 3D 5H 7S")  # adds up to 17: no capture can take it all
    rules = ref.rules_with(**FIFTEEN)
    for card in range(40):
        if card not in table:
            assert all(take != table for take in ref.capture_options(card, table, rules))


def test_section9_no_match_priority():
    # 5H with 7C, 3D, 5D on the table: a king takes 5H or 5D, never 7C+3D (that makes 20)
    assert opts("KC", "5H 7C 3D 5D", **FIFTEEN) == [cs("5D"), cs("5H")]
    # in Scopa mode the same king has no match and no sum of 10 but 7C+3D
    assert opts("KC", "5H 7C 3D 5D") == [cs("7C 3D"), cs("5H 5D")]


def test_fifteen_single_cards_and_fewest():
    rules = ref.rules_with(**FIFTEEN)
    # a 5 takes a king alone (5 + 10), a 7 takes a jack alone (7 + 8)
    assert ref.capture_options(C("5D"), cs("KS"), rules) == [cs("KS")]
    assert ref.capture_options(C("7D"), cs("JS"), rules) == [cs("JS")]
    # 7D needs 8 on A..7 of denari and 7C: five sets, the three of two cards with fewest
    table = "AD 2D 3D 4D 5D 6D 7C"
    assert len(opts("7D", table, **FIFTEEN)) == 5
    fewest = opts("7D", table, **FIFTEEN, sum_capture="fewest")
    assert fewest == sorted([cs("AD 7C"), cs("2D 6D"), cs("3D 5D")], key=sorted)
    # a single card is the fewest there is
    assert opts("5S", "KD 6H 4C", **FIFTEEN) == [cs("KD"), cs("6H 4C")]
    assert opts("5S", "KD 6H 4C", **FIFTEEN, sum_capture="fewest") == [cs("KD")]


def test_capture_compulsory_false_lets_every_card_be_laid():
    got = plays_of("5S KH AS", "7C 3D 5H", **FIFTEEN, capture_compulsory=False)
    assert got == {
        ("5S", ("3D", "7C")),
        ("5S", ()),
        ("KH", ("5H",)),
        ("KH", ()),
        ("AS", ()),
    }
    # in Scopa mode too, and capture_rule=hand then has no effect
    for rule in ("card", "hand"):
        got = plays_of("7D 2S", "7C 5H", capture_compulsory=False, capture_rule=rule)
        assert got == {("7D", ("7C",)), ("7D", ()), ("2S", ())}
    assert plays_of("7D 2S", "7C 5H", capture_rule="hand") == {("7D", ("7C",))}
    assert plays_of("7D 2S", "7C 5H") == {("7D", ("7C",)), ("2S", ())}


def test_capture_rule_hand_in_fifteen_mode():
    assert plays_of("5S KH AS", "7C 3D 5H", **FIFTEEN, capture_rule="hand") == {
        ("5S", ("3D", "7C")),
        ("KH", ("5H",)),
    }
    # no card can capture: every card is laid
    assert plays_of("AS 2S", "KD QC", **FIFTEEN, capture_rule="hand") == {("AS", ()), ("2S", ())}


def test_example8_opening_take():
    rules = ref.rules_with(**ESCOBA)
    assert ref.opening_take(cs("AD 2C 5H 7S"), rules) == (cs("AD 2C 5H 7S"), 1)
    assert ref.opening_take(cs("KD 5C KS 5H"), rules) == (cs("KD 5C KS 5H"), 2)
    assert ref.opening_take(cs("KD QC KS AH"), rules) == (frozenset(), 0)  # 30, no split
    # a table that merely holds a set of 15 stays; so do the others
    assert ref.opening_take(cs("KD 5C 2S 3H"), rules) == (frozenset(), 0)
    assert ref.opening_take(cs("KD 4C"), rules) == (frozenset(), 0)
    # with fewer table cards, as given
    assert ref.opening_take(cs("KD 5C"), ref.rules_with(**ESCOBA, table_cards=2)) == (
        cs("KD 5C"),
        1,
    )
    # only with opening_fifteen
    assert ref.opening_take(cs("AD 2C 5H 7S"), ref.rules_with(**FIFTEEN)) == (frozenset(), 0)


@pytest.mark.parametrize(
    ("table", "scope"), [("AD 2C 5H 7S", 1), ("KD 5C KS 5H", 2), ("KD QC KS AH", 0)]
)
@pytest.mark.parametrize("dealer", [0, 1])
def test_opening_take_goes_to_the_dealers_side(table: str, scope: int, dealer: int):
    rules = ref.rules_with(**ESCOBA)
    first = [c for c in range(40) if c not in cs(table)]
    deck = sorted(cs(table)) + first  # the table cards first (canonical layout)
    state = ref.HandState(rules, dealer, cs(table), [set(first[:3]), set(first[3:6])])
    assert state.take_opening() == scope
    side = ref.side_of(dealer, rules)
    if scope:
        assert state.table == set() and state.piles[side] == set(cs(table))
        assert state.scope[side] == scope and state.scope[1 - side] == 0
        assert state.last_capturer == side and state.opening == cs(table)
    else:
        assert state.table == set(cs(table)) and state.last_capturer is None
        assert state.opening == frozenset() and state.scope == [0, 0]
    with pytest.raises(ValueError):
        state.take_opening()  # once only
    # a whole hand from this deck counts the opening's scope in the dealer side's scope
    res = ref.play_hand(rules, deck, dealer, ref.random_chooser(random.Random(1)))
    assert res["opening"] == (cs(table) if scope else frozenset())
    assert res["opening_scope"] == scope
    assert res["scope"][side] >= scope
    assert res["score"][side]["scope"] == res["scope"][side]
    assert sum(res["scope"]) == scope + len(res["scopa_turns"])


def test_opening_makes_the_dealer_the_last_capturer():
    # nobody captures after the opening: the remainder goes to the dealer's side
    rules = ref.rules_with(**ESCOBA, players=2, hand_size=1, table_cards=4)
    state = ref.HandState(rules, 1, cs("AD 2C 5H 7S"), [cs("KD"), cs("KS")])
    state.take_opening()
    state.play(C("KD"), frozenset())  # seat 0 lays a king on the empty table
    state.play(C("KS"), frozenset())  # seat 1 (the dealer) lays too: 20 is no capture
    assert state.finished and state.remainder == cs("KS KD") and state.remainder_side == 1


def test_check_rules_section9():
    ref.check_rules(ref.rules_with(**ESCOBA))
    ref.check_rules(ref.rules_with(capture_compulsory=False))
    ref.check_rules({k: v for k, v in ref.rules_with().items() if k not in ref.SECTION_9_DEFAULTS})
    for bad in (
        {"capture_mode": "fifteen", "ace_sweep": True},
        {"opening_fifteen": True},
        {"capture_mode": "fifteen", "opening_fifteen": True, "table_cards": 0},
        {"capture_mode": "15"},
        {"capture_compulsory": 0},
    ):
        with pytest.raises(ValueError):
            ref.check_rules(ref.rules_with(**bad))


def test_rules_of_before_section9_read_with_the_defaults():
    old = {k: v for k, v in ref.rules_with().items() if k not in ref.SECTION_9_DEFAULTS}
    assert ref.full_rules(old) == ref.rules_with()
    assert ref.legal_plays(cs("7D 2S"), cs("7C 5H"), old) == ref.legal_plays(
        cs("7D 2S"), cs("7C 5H"), ref.rules_with()
    )


@pytest.mark.parametrize(("hand", "table", "counts"), GOLDEN_FIFTEEN)
def test_golden_fifteen_counts(hand: str, table: str, counts: tuple[int, ...]):
    for rules, count in zip(GOLDEN_RULES, counts, strict=True):
        plays = ref.legal_plays(cs(hand), cs(table), ref.rules_with(**rules))
        assert len(plays) == len(set(plays)) == count, (hand, table, rules)


def test_denari_run_counts_by_hand():
    # 7D needs 8, 5C needs 10, AH needs 14 from values 1..7: 5 + 7 + 8 sets
    rules = ref.rules_with(**FIFTEEN)
    table = cs("AD 2D 3D 4D 5D 6D 7C")
    assert [len(ref.capture_options(C(c), table, rules)) for c in ("7D", "5C", "AH")] == [5, 7, 8]


@pytest.mark.parametrize("name", ["scopa-15", "escoba", "scopa-optional", "fifteen-variants"])
def test_properties_on_random_positions(name: str):
    """capture_compulsory=false: every card of the hand is a legal lay; fifteen mode:
    every capture's values add up to fifteen with the played card, and every set of
    table cards that does so (the fewest, with sum_capture=fewest) is offered."""
    rules = ref.rules_with(**COMBOS[name])
    rng = random.Random(name)
    deck = ref.make_deck(rules)
    for _ in range(200):
        rng.shuffle(deck)
        n_hand, n_table = rng.randint(1, 5), rng.randint(0, 8)
        hand, table = deck[:n_hand], frozenset(deck[n_hand : n_hand + n_table])
        plays = ref.legal_plays(hand, table, rules)
        if not rules["capture_compulsory"]:
            assert all((c, frozenset()) in plays for c in hand)
        if rules["capture_mode"] != "fifteen":
            continue
        for card, take in plays:
            assert not take or ref.card_value(card) + sum(map(ref.card_value, take)) == 15
        for card in hand:
            need = 15 - ref.card_value(card)
            sets = [
                frozenset(s)
                for k in range(1, len(table) + 1)
                for s in itertools.combinations(table, k)
                if sum(map(ref.card_value, s)) == need
            ]
            if sets and rules["sum_capture"] == "fewest":
                sets = [s for s in sets if len(s) == min(map(len, sets))]
            assert {t for c, t in plays if c == card and t} == set(sets)


# --------------------------------------------------------------------------- random hands

COMBOS: dict[str, dict] = {
    "2p": {},
    "2p-variants": {
        "capture_rule": "hand",
        "sum_capture": "fewest",
        "ace_sweep": True,
        "remainder_to": "dealer",
        "primiera": "sevens",
    },
    "3p": {"players": 3},
    "4p-teams": {"players": 4},
    "4p-solo": {"players": 4, "teams": False, "primiera_missing_suit": "zero"},
    "scopone": {"players": 4, "hand_size": 9},
    "scientifico": {"players": 4, "hand_size": 10, "table_cards": 0, "napola": True},
    "deck36-2p": {"deck": 36, "re_bello": True},
    "scopa-15": {"capture_mode": "fifteen"},
    "escoba": {
        "capture_mode": "fifteen",
        "capture_compulsory": False,
        "opening_fifteen": True,
        "kings_redeal": False,
        "target": 15,
    },
    "fifteen-variants": {
        "capture_mode": "fifteen",
        "opening_fifteen": True,
        "sum_capture": "fewest",
        "capture_rule": "hand",
        "remainder_to": "dealer",
        "players": 3,
        "table_cards": 1,
    },
    "fifteen-4p-deck36": {
        "capture_mode": "fifteen",
        "capture_compulsory": False,
        "opening_fifteen": True,
        "players": 4,
        "deck": 36,
    },
    "scopa-optional": {"capture_compulsory": False, "capture_rule": "hand"},
}


@pytest.mark.parametrize("name", sorted(COMBOS))
def test_random_hands_conserve_cards(name):
    rules = ref.rules_with(**COMBOS[name])
    rng = random.Random(name)
    n = rules["players"]
    nsides = ref.num_sides(rules)
    full = ref.make_deck(rules)
    for hand_no in range(100):
        deck = ref.shuffled_deck(rules, rng)
        dealer = hand_no % n
        res = ref.play_hand(rules, deck, dealer, ref.random_chooser(rng))

        # replay: every play comes from the seat's hand and is legal on the table
        table0, deals = ref.deal_layout(rules, deck, dealer)
        taken, opening_scope = ref.opening_take(table0, rules)
        assert res["opening"] == taken and res["opening_scope"] == opening_scope
        table = set(table0) - taken
        hands: list[set[int]] = [set() for _ in range(n)]
        pending = list(deals)
        seat = (dealer + 1) % n
        scope = [0] * nsides
        scope[ref.side_of(dealer, rules)] += opening_scope
        for i, (s, card, take) in enumerate(res["plays"]):
            if not any(hands):
                for st, cards in enumerate(pending.pop(0)):
                    hands[st].update(cards)
            assert s == seat
            assert (card, take) in ref.legal_plays(hands[s], table, rules)
            if take and rules["capture_mode"] == "fifteen":  # RULES.md 9
                assert ref.card_value(card) + sum(map(ref.card_value, take)) == 15
            last = i == len(res["plays"]) - 1
            if ref.is_scopa(card, take, table, rules, last):
                scope[ref.side_of(s, rules)] += 1
                assert i in res["scopa_turns"]
            hands[s].remove(card)
            if take:
                table -= take
            else:
                table.add(card)
            seat = (seat + 1) % n
        assert not pending and not any(hands)
        assert set(res["remainder"]) == table
        if rules["capture_mode"] == "fifteen":  # RULES.md 9: 220 (212) is no multiple of 15
            assert sum(map(ref.card_value, table)) % 15 == sum(map(ref.card_value, full)) % 15
            assert table
        assert len(res["plays"]) == len(full) - rules["table_cards"]
        assert res["scope"] == scope

        # conservation: piles are disjoint and, with the unclaimed remainder, the deck
        piles = res["piles"]
        assert len(piles) == nsides
        total = sum(len(p) for p in piles)
        union = set().union(*piles)
        assert total == len(union)
        if res["remainder_side"] is None:
            assert res["last_capturer"] is None and rules["remainder_to"] == "last_capturer"
            assert union | table == set(full) and not (union & table)
        else:
            assert union == set(full)

        # scoring sanity
        score = res["score"]
        assert score == ref.score_hand(piles, res["scope"], rules)
        for key in ("cards", "denari", "settebello", "primiera", "re_bello"):
            assert sum(s[key] for s in score) <= 1
        for s in score:
            assert s["total"] == sum(s[k] for k in ref.score_keys(rules))
