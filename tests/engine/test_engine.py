"""The rules engine through its Python API: worked examples, options, scoring, golden counts."""

from __future__ import annotations

import ast
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
import reference as ref  # tests/ is on sys.path (pyproject: pythonpath)

from scopa_sim import CardSet, IllegalPlayError, Play, Rules
from scopa_sim import _engine as K
from scopa_sim.game.state import SCORE_ITEMS, HandState

P = CardSet.parse


def rules(preset: str = "scopa", *overrides: str) -> Rules:
    return Rules.make(preset, list(overrides))


def position(
    r: Rules,
    hands: Sequence[str],
    table: str,
    *,
    piles: Sequence[str] | None = None,
    scope: Sequence[int] | None = None,
    stock: str = "",
    **kw: object,
) -> HandState:
    """A position from text: hands per seat, table, optional piles per side and stock."""
    return HandState.from_position(
        r,
        hands=[P(h) for h in hands],
        table=P(table),
        piles=None if piles is None else [P(p) for p in piles],
        scope=scope,
        stock=P(stock).cards() if stock else (),
        **kw,  # type: ignore[arg-type]
    )


def plays(*texts: str) -> set[Play]:
    return {Play.parse(t) for t in texts}


def legal(st: HandState) -> set[Play]:
    return set(st.legal_plays)


def scored(
    r: Rules, piles: Sequence[str], scope: Sequence[int] | None = None
) -> list[dict[str, int]]:
    """Engine score of final piles; also checked against the reference implementation."""
    st = position(r, [""] * r.players, "", piles=piles, scope=scope)
    got = st.score()
    expected = ref.score_hand([set(P(p)) for p in piles], list(scope or [0] * r.sides), r.as_dict())
    assert got == expected
    return got


def item(score: list[dict[str, int]], key: str) -> list[int]:
    return [s[key] for s in score]


# --------------------------------------------------------------------------- RULES.md §8


def test_example1_ace_sweep_scores_a_scopa() -> None:
    st = position(rules("asso-piglia-tutto"), ["KH QH", "AS 4C"], "2C 3D 6H", turn=1)
    assert legal(st) == plays("AS x 2C 3D 6H", "4C")
    res = st.push("AS x 2C 3D 6H")
    assert (res.capture, res.scopa, res.ace_sweep, res.last) == (True, True, True, False)
    assert res.seat == 1
    assert st.scope == [0, 1]
    assert st.piles == [P(""), P("2C 3D 6H AS")]
    assert st.table == P("") and st.last_capturer == 1 and st.turn == 0


def test_example1_ace_sweep_on_the_last_play_is_no_scopa() -> None:
    st = position(rules("asso-piglia-tutto"), ["", "AS"], "2C 3D 6H", turn=1, dealer=0)
    assert st.plays_left == 1
    res = st.push("AS x 2C 3D 6H")
    assert (res.capture, res.scopa, res.ace_sweep, res.last) == (True, False, True, True)
    assert st.is_over and st.scope == [0, 0]
    assert st.piles[1] == P("2C 3D 6H AS")


def test_example1_ace_on_the_table_takes_only_the_ace() -> None:
    st = position(rules("asso-piglia-tutto"), ["KH QH", "AS 4C"], "2C 3D 6H AD", turn=1)
    assert legal(st) == plays("AS x AD", "4C x 3D AD")
    res = st.push("AS x AD")
    assert (res.capture, res.scopa, res.ace_sweep) == (True, False, False)
    assert st.table == P("2C 3D 6H")
    # two aces on the table: the player chooses which one
    st = position(rules("asso-piglia-tutto"), ["KH", "AS"], "AD AH 5C", turn=1)
    assert legal(st) == plays("AS x AD", "AS x AH")


def test_example1_ace_on_an_empty_table_is_laid() -> None:
    st = position(rules("asso-piglia-tutto"), ["KH QH", "AS 4C"], "", turn=1)
    assert legal(st) == plays("AS", "4C")
    res = st.push("AS")
    assert not res.capture and st.table == P("AS")


def test_example1_ace_sweep_takes_a_lone_card() -> None:
    st = position(rules("asso-piglia-tutto"), ["KH QH", "AS 4C"], "KC", turn=1)
    assert Play.parse("AS x KC") in st.legal_plays
    assert st.push("AS x KC").scopa


def test_example1_without_ace_sweep_the_ace_is_laid() -> None:
    st = position(rules(), ["KH QH", "AS 4C"], "2C 3D 6H", turn=1)
    assert legal(st) == plays("AS", "4C")


def test_example2_a_match_forbids_sums() -> None:
    for r in (rules(), rules("scopa", "sum_capture=fewest")):
        st = position(r, ["6S QS", "QH"], "6H 2C 4D")
        assert legal(st) == plays("6S x 6H", "QS")
        with pytest.raises(IllegalPlayError, match="6S x 4D 2C"):
            st.push("6S x 2C 4D")
    st = position(rules(), ["6S", "QH"], "6H 6C 2C 4D")
    assert legal(st) == plays("6S x 6H", "6S x 6C")
    st = position(rules(), ["6S", "QH"], "2C 4D")
    assert legal(st) == plays("6S x 2C 4D")


def test_example3_seven_takes_the_seven() -> None:
    st = position(rules(), ["7D", "QH"], "7C 5H 2S")
    assert legal(st) == plays("7D x 7C")


def test_example3_sum_sweep_scores_a_scopa_except_on_the_last_play() -> None:
    st = position(rules(), ["7D KS", "QH QC"], "5H 2S")
    assert legal(st) == plays("7D x 5H 2S", "KS")
    res = st.push("7D x 5H 2S")
    assert res.scopa and not res.last and st.scope == [1, 0]
    # the same capture as the very last card of the hand
    st = position(rules(), ["7D", ""], "5H 2S", dealer=1)
    res = st.push("7D x 5H 2S")
    assert res.last and res.capture and not res.scopa
    assert st.is_over and st.scope == [0, 0] and st.piles[0] == P("7D 5H 2S")


def test_example4_king_match_then_sum_choices() -> None:
    st = position(rules(), ["KS", "QH"], "KC JS 2H 7D AH")
    assert legal(st) == plays("KS x KC")
    st = position(rules(), ["KS", "QH"], "JS 2H 7D AH")
    assert legal(st) == plays("KS x JS 2H", "KS x 7D 2H AH")
    # both choices are playable, and each leaves the rest on the table
    for choice, left in (("KS x JS 2H", "7D AH"), ("KS x 7D 2H AH", "JS")):
        s = st.clone()
        res = s.push(choice)
        assert res.capture and not res.scopa
        assert s.table == P(left)
        assert s.piles[0] == P("KS") | Play.parse(choice).taken


def test_example4_with_fewest() -> None:
    st = position(rules("scopa", "sum_capture=fewest"), ["KS", "QH"], "JS 2H 7D AH")
    assert legal(st) == plays("KS x JS 2H")
    with pytest.raises(IllegalPlayError):
        st.push("KS x 7D 2H AH")


def test_example5_primiera_values() -> None:
    def primiera(text: str) -> int:
        return int(K.primiera_classic(P(text).mask, 0))

    assert primiera("7D 7H 7C 7S") == 84
    assert primiera("7D 7H 7C 6S") == 81
    assert primiera("AD 2H 3C 4S") == 16 + 12 + 13 + 14
    assert primiera("KD QH JC 5S 5D") == 15 + 10 + 10 + 15
    assert primiera("7D 7H 7C") == -1  # no spade: can't compete (exclude)
    assert int(K.primiera_classic(P("7D 7H 7C").mask, 1)) == 63  # zero: counts 0
    # 84 beats 81: four sevens against three sevens and a six
    sc = scored(rules(), ["7D 7H 7C 7S", "6D 6H 6C 6S JD"])
    assert item(sc, "primiera") == [1, 0]
    sc = scored(rules(), ["7D 7H 7C 6S", "6D 6H 6C 7S JD"])  # 81 against 75
    assert item(sc, "primiera") == [1, 0]


# --------------------------------------------------------------------------- options: play


def test_capture_rule_card_lets_a_non_capturing_card_be_laid() -> None:
    st = position(rules(), ["7D KS", "QH"], "7C 2H")
    assert legal(st) == plays("7D x 7C", "KS")
    # but a card that can capture must capture
    with pytest.raises(IllegalPlayError):
        st.push("7D")


def test_capture_rule_hand_forces_a_capture() -> None:
    r = rules("scopa", "capture_rule=hand")
    st = position(r, ["7D KS", "QH"], "7C 2H")
    assert legal(st) == plays("7D x 7C")
    with pytest.raises(IllegalPlayError, match="compulsory"):
        st.push("KS")
    # no card of the hand can capture: any card is laid
    st = position(r, ["KS QS", "QH"], "2H")
    assert legal(st) == plays("KS", "QS")
    # scopa-corsa is capture_rule=hand
    st = position(rules("scopa-corsa"), ["7D KS", "QH"], "7C 2H")
    assert legal(st) == plays("7D x 7C")


def test_sum_capture_fewest_keeps_only_the_smallest_sets() -> None:
    table = "AH 2C 3D 4S 6H"  # K = 10: 4+6, 1+3+6, 1+2+3+4
    st = position(rules(), ["KS", "QH"], table)
    assert legal(st) == plays("KS x 4S 6H", "KS x AH 3D 6H", "KS x AH 2C 3D 4S")
    st = position(rules("scopa", "sum_capture=fewest"), ["KS", "QH"], table)
    assert legal(st) == plays("KS x 4S 6H")
    # several sets tie for fewest: all of them stay
    st = position(rules("scopa", "sum_capture=fewest"), ["KS", "QH"], "4S 6H 4C 6D AH 3D")
    assert legal(st) == plays("KS x 4S 6H", "KS x 4S 6D", "KS x 4C 6H", "KS x 4C 6D")


def remainder_case(r: Rules, last_capturer: int | None, dealer: int) -> HandState:
    """Seat (dealer + 1) % n lays the last card of the hand on a table holding 5H."""
    n = r.players
    seat = (dealer + 1) % n
    hands = [""] * n
    hands[seat] = "QS"
    st = position(r, hands, "5H", turn=seat, dealer=dealer, last_capturer=last_capturer)
    res = st.push("QS")
    assert res.last and not res.capture and not res.scopa
    assert st.is_over and st.table == P("")
    assert st.scope == [0] * r.sides  # the remainder is never a scopa
    return st


def test_remainder_to_last_capturer() -> None:
    st = remainder_case(rules(), last_capturer=1, dealer=1)
    assert st.piles == [P(""), P("5H QS")]
    st = remainder_case(rules(), last_capturer=0, dealer=1)
    assert st.piles == [P("5H QS"), P("")]


def test_remainder_to_nobody_when_nobody_captured() -> None:
    st = remainder_case(rules(), last_capturer=None, dealer=1)
    assert st.piles == [P(""), P("")] and st.last_capturer is None


def test_remainder_to_dealer() -> None:
    r = rules("scopa", "remainder_to=dealer")
    st = remainder_case(r, last_capturer=0, dealer=1)
    assert st.piles == [P(""), P("5H QS")]
    st = remainder_case(r, last_capturer=None, dealer=0)
    assert st.piles == [P("5H QS"), P("")]
    # with teams, the dealer's side
    st = remainder_case(rules("scopa-4", "remainder_to=dealer"), last_capturer=1, dealer=2)
    assert st.piles == [P("5H QS"), P("")]
    st = remainder_case(rules("scopa-3", "remainder_to=dealer"), last_capturer=0, dealer=2)
    assert st.piles == [P(""), P(""), P("5H QS")]


def test_remainder_after_a_last_capture_goes_to_its_maker() -> None:
    st = position(rules(), ["", "5S"], "5H KC", dealer=0, turn=1, last_capturer=0)
    res = st.push("5S x 5H")
    assert res.last and res.capture and not res.scopa
    assert st.piles == [P(""), P("5H 5S KC")] and st.last_capturer == 1


def test_ace_sweep_scopa_false() -> None:
    r = rules("asso-piglia-tutto", "ace_sweep_scopa=false")
    st = position(r, ["KH QH", "AS 4C"], "2C 3D 6H", turn=1)
    res = st.push("AS x 2C 3D 6H")
    assert (res.capture, res.scopa, res.ace_sweep) == (True, False, True)
    assert st.scope == [0, 0] and st.last_capturer == 1
    # an ace taking a lone ace by the match rule is an ordinary scopa
    st = position(r, ["KH QH", "AS 4C"], "AD", turn=1)
    res = st.push("AS x AD")
    assert (res.capture, res.scopa, res.ace_sweep) == (True, True, False)
    assert st.scope == [0, 1]
    # and a sum sweep is still a scopa
    st = position(r, ["KH QH", "7D 4C"], "5H 2S", turn=1)
    assert st.push("7D x 5H 2S").scopa


def test_last_play_scopa_true() -> None:
    r = rules("scopa", "last_play_scopa=true")
    st = position(r, ["7D", ""], "5H 2S", dealer=1)
    res = st.push("7D x 5H 2S")
    assert res.last and res.scopa and st.scope == [1, 0]
    # also for an ace sweep, unless ace_sweep_scopa is false
    r = rules("asso-piglia-tutto", "last_play_scopa=true")
    st = position(r, ["", "AS"], "2C 3D", turn=1, dealer=0)
    assert st.push("AS x 2C 3D").scopa
    r = rules("asso-piglia-tutto", "last_play_scopa=true", "ace_sweep_scopa=false")
    st = position(r, ["", "AS"], "2C 3D", turn=1, dealer=0)
    assert not st.push("AS x 2C 3D").scopa


def test_scopa_needs_an_empty_table() -> None:
    st = position(rules(), ["7D KS", "QH QC"], "5H 2S 3C")
    res = st.push("7D x 5H 2S")
    assert res.capture and not res.scopa and st.table == P("3C")


def test_teams_share_piles_and_scope() -> None:
    r = rules("scopone")
    st = position(r, ["KD", "KH", "7D QH", "QC"], "5H 2S", turn=2, dealer=1)
    res = st.push("7D x 5H 2S")
    assert res.scopa and res.seat == 2
    assert st.scope == [1, 0] and st.piles == [P("7D 5H 2S"), P("")]
    assert st.last_capturer == 0 and st.turn == 3
    st.push("QC")
    res = st.push("KD")
    assert not res.capture and st.table == P("QC KD")
    res = st.push("KH x KD")
    assert res.capture and not res.scopa
    assert st.piles == [P("7D 5H 2S"), P("KH KD")] and st.last_capturer == 1
    assert len(st.score()) == 2


# --------------------------------------------------------------------------- options: scoring


def test_score_dict_layout() -> None:
    sc = scored(rules(), ["7D 7H", "KS"], scope=[2, 1])
    assert [list(s) for s in sc] == [[i for i in SCORE_ITEMS if i != "four_sevens"]] * 2
    sc = scored(rules("scopa", "four_sevens_point=true"), ["7D 7H 7C 7S", "KS"], scope=[2, 1])
    assert [list(s) for s in sc] == [list(SCORE_ITEMS)] * 2
    assert [s["four_sevens"] for s in sc] == [1, 0]
    for s in sc:
        assert s["total"] == sum(v for k, v in s.items() if k != "total")


def test_full_hand_classic_scoring() -> None:
    pile0 = "AD 2D 3D 4D 5D 6D 7D JD QD KD 7H 7C 7S 6H"
    pile1 = str(CardSet(range(40)) - P(pile0))
    sc = scored(rules(), [pile0, pile1], scope=[1, 3])
    assert sc == [
        {"scope": 1, "cards": 0, "denari": 1, "settebello": 1, "primiera": 1}
        | {"re_bello": 0, "napola": 0, "total": 4},
        {"scope": 3, "cards": 1, "denari": 0, "settebello": 0, "primiera": 0}
        | {"re_bello": 0, "napola": 0, "total": 4},
    ]
    sc = scored(rules("scopa", "re_bello=true", "napola=true"), [pile0, pile1], scope=[1, 3])
    assert item(sc, "re_bello") == [1, 0]
    assert item(sc, "napola") == [10, 0]
    assert item(sc, "total") == [15, 4]
    sc = scored(rules("scopa", "napola=true", "napola_scoring=fixed3"), [pile0, pile1])
    assert item(sc, "napola") == [3, 0]


def test_primiera_missing_suit_exclude_and_zero() -> None:
    piles = ["7D 7H 7C", "KD KH KC KS"]  # 63 without spades, against 40
    assert item(scored(rules(), piles), "primiera") == [0, 1]
    zero = rules("scopa", "primiera_missing_suit=zero")
    assert item(scored(zero, piles), "primiera") == [1, 0]
    # both sides miss a suit: nobody (exclude); the sums compete (zero)
    piles = ["7D 7H 7C", "KD KH 6S"]
    assert item(scored(rules(), piles), "primiera") == [0, 0]
    assert item(scored(zero, piles), "primiera") == [1, 0]  # 63 against 38
    # zero, equal sums: nobody
    assert item(scored(zero, ["7D", "7H"]), "primiera") == [0, 0]
    assert item(scored(zero, ["", ""]), "primiera") == [0, 0]


def test_primiera_classic_tie_gives_nobody() -> None:
    sc = scored(rules(), ["7D 7H 6C 6S", "7C 7S 6D 6H"])  # 78 each
    assert item(sc, "primiera") == [0, 0]


def test_primiera_sevens_chain() -> None:
    r = rules("scopa", "primiera=sevens")
    # more sevens wins, whatever the other cards
    assert item(scored(r, ["7D 7H 7C", "7S 6D 6H 6C 6S AD"]), "primiera") == [1, 0]
    # 2 sevens each; sixes decide
    assert item(scored(r, ["7D 7H 6C 6H", "7C 7S 6D AD AH AC AS"]), "primiera") == [1, 0]
    # tied down to the twos; aces decide
    piles = ["7D 6D 5D 4D 3D 2D AD AH", "7H 6H 5H 4H 3H 2H AC"]
    assert item(scored(r, piles), "primiera") == [1, 0]
    # tied all the way: nobody
    assert item(scored(r, ["7D 6D KD", "7H 6H"]), "primiera") == [0, 0]
    assert item(scored(r, ["JD QD", "KH"]), "primiera") == [0, 0]
    # classic gives this one to the other side: 21 + 18 + 18 + 18, side 0 misses C and S
    piles = ["7D 7H", "7C 6D 6H 6S"]
    assert item(scored(r, piles), "primiera") == [1, 0]
    assert item(scored(rules(), piles), "primiera") == [0, 1]


def test_primiera_sevens_only_tied_sides_go_on() -> None:
    r = rules("scopa-3", "primiera=sevens")
    # sevens 2, 2, 0: the third side is out although it holds the most sixes
    sc = scored(r, ["7D 7H", "7C 7S 6D", "6H 6C 6S 5D"])
    assert item(sc, "primiera") == [0, 1, 0]
    sc = scored(r, ["7D 7H 6S", "7C 7S 6D", "6H 6C 5D"])
    assert item(sc, "primiera") == [0, 0, 0]


def test_re_bello() -> None:
    piles = ["KD", "KH"]
    assert item(scored(rules(), piles), "re_bello") == [0, 0]
    assert item(scored(rules("scopa", "re_bello=true"), piles), "re_bello") == [1, 0]
    assert item(scored(rules("scopa", "re_bello=true"), piles[::-1]), "re_bello") == [0, 1]


@pytest.mark.parametrize(
    ("pile", "length"),
    [
        ("AD 2D 3D", 3),
        ("AD 2D 3D 5D 6D", 3),
        ("AD 2D 3D 4D 6D", 4),
        ("AD 2D 3D 4D 5D 6D 7D", 7),
        ("AD 2D 3D 4D 5D 6D 7D JD QD", 9),
        ("AD 2D 3D 4D 5D 6D 7D JD QD KD", 10),
        ("AD 2D 4D 5D", 0),
        ("2D 3D 4D", 0),
        ("AH 2H 3H", 0),
    ],
)
def test_napola(pile: str, length: int) -> None:
    other = "KS"
    r = rules("scopa", "napola=true")
    assert item(scored(r, [pile, other]), "napola") == [length, 0]
    fixed3 = rules("scopa", "napola=true", "napola_scoring=fixed3")
    assert item(scored(fixed3, [other, pile]), "napola") == [0, 3 if length else 0]
    assert item(scored(rules(), [pile, other]), "napola") == [0, 0]


def test_ties_give_nobody() -> None:
    # 4 cards each, 2 denari each, no settebello, and neither side holds all four suits
    sc = scored(rules(), ["AD 2D 3H 4C", "AH 2H 3D 4D"])
    assert item(sc, "cards") == [0, 0]
    assert item(sc, "denari") == [0, 0]
    assert item(sc, "settebello") == [0, 0]
    assert item(sc, "total") == [0, 0]
    # three sides: a tie at the top gives nobody even if a third side is behind
    sc = scored(rules("scopa-3"), ["AD 2D KC", "3D 4D QC", "JS"])
    assert item(sc, "cards") == [0, 0, 0]
    assert item(sc, "denari") == [0, 0, 0]
    sc = scored(rules("scopa-3"), ["AD 2D KC", "3D QC", "JS"])
    assert item(sc, "cards") == [1, 0, 0]
    assert item(sc, "denari") == [1, 0, 0]


def test_team_scoring_four_players() -> None:
    pile0 = "7D 7H 7C 7S AD 2D 3D"
    pile1 = "KD KH KC KS QD QH QC QS JD JH"
    sc = scored(rules("scopa-4"), [pile0, pile1], scope=[2, 0])
    assert item(sc, "cards") == [0, 1]
    assert item(sc, "denari") == [1, 0]
    assert item(sc, "settebello") == [1, 0]
    assert item(sc, "primiera") == [1, 0]
    assert item(sc, "total") == [5, 1]
    sc = scored(rules("scopone-scientifico", "re_bello=true"), [pile0, pile1])
    assert item(sc, "napola") == [3, 0] and item(sc, "re_bello") == [0, 1]
    solo = rules("scopa-4-solo")
    sc = scored(solo, [pile0, pile1, "JC", "JS"])
    assert len(sc) == 4 and item(sc, "cards") == [0, 1, 0, 0]


# --------------------------------------------------------------------------- golden counts

BIG_HAND = "KD QD JD 7H 6H 5S AS 4S 3D"
BIG_TABLE = "AH AC 2D 2H 2C 3C 3S 4D 4H 5C 6S"
SMALL_CARDS = " ".join(f"{r}{s}" for s in "DHCS" for r in "A23456")

# (preset, overrides, hand to play, table, number of legal plays). The small counts are
# checked by hand; the large ones by a brute force over itertools.combinations and by
# tests/reference.py (all three agree).
GOLDEN = [
    ("scopa", (), "KS 5C", "KC JS 2H 7D AH", 2),  # KS x KC, 5C
    ("scopa", (), "KS", "JS 2H 7D AH", 2),  # example 4
    ("scopa", ("sum_capture=fewest",), "KS", "JS 2H 7D AH", 1),
    ("scopa", (), "7D 4C QS", "5H 2S AD 3C", 3),  # 7D x 5H 2S, 4C x AD 3C, QS x AD 3C 5H
    ("scopa", (), "KS QS JS", "AD 2D 3D", 3),  # nothing reaches 8: three lays
    ("asso-piglia-tutto", (), "AS AD 5C", "2C 3D 6H KH", 3),  # two sweeps, 5C x 2C 3D
    ("asso-piglia-tutto", (), "AS 5C", "AD AH 2C 3D", 4),
    ("asso-piglia-tutto", (), "AS KS 7D", "", 3),
    ("scopa-corsa", (), "KS 5C QH", "JS 2H 3D", 2),  # QH may not be laid
    ("scopa", (), "KS 5C QH", "JS 2H 3D", 3),
    ("scopone", (), "KD", BIG_TABLE, 78),  # a king with many sums
    ("scopone", (), BIG_HAND, BIG_TABLE, 238),
    ("scopone", ("sum_capture=fewest",), BIG_HAND, BIG_TABLE, 29),
    ("scopa", (), "7D JD QD KD", SMALL_CARDS, 3431),  # every A..6 on the table
    ("scopa", ("sum_capture=fewest",), "7D JD QD KD", SMALL_CARDS, 140),
]
#: Fixed positions under RULES.md §9, with their counts under scopa-15, escoba,
#: scopa-15 with sum_capture=fewest, scopa-15 with capture_rule=hand and scopa with
#: capture_compulsory=false (counted by tests/reference.py; the first two rows by hand:
#: 7D takes JC, 6S 2D, 6S AH AC, 5H 3S, 5H 2D AH, 5H 2D AC, 4C 3S AH, 4C 3S AC or
#: 4C 2D AH AC, nine sets making 8; example 6 below).
FIFTEEN_POSITIONS = [
    ("7D", "AH AC 2D 3S 4C 5H 6S JC", (9, 10, 1, 9, 9)),
    ("5S KH AS", "7C 3D 5H", (3, 5, 3, 2, 5)),  # example 6
    ("3S JC", "2C 3D 5H 7S", (4, 6, 2, 4, 4)),  # example 7
    ("KD QS", "5C 5D 5H 6S 4D AC", (8, 10, 4, 8, 12)),
    ("AS 2S", "KC QC JC 7H 6H 5H", (4, 6, 4, 4, 2)),
    ("6D QD 4S", "", (3, 3, 3, 3, 3)),
    ("5C", "KS QS JS 7S 3D 2D AD", (5, 6, 1, 5, 2)),
    ("AD 2D 3D 4D 5D", "AH 2H 3H 4H 5H 6H 7H AC 2C 3C", (236, 241, 15, 236, 13)),
]
FIFTEEN_RULES = [
    ("scopa-15", ()),
    ("escoba", ()),
    ("scopa-15", ("sum_capture=fewest",)),
    ("scopa-15", ("capture_rule=hand",)),
    ("scopa", ("capture_compulsory=false",)),
]
GOLDEN += [
    (preset, overrides, hand, table, counts[i])
    for hand, table, counts in FIFTEEN_POSITIONS
    for i, (preset, overrides) in enumerate(FIFTEEN_RULES)
]


@pytest.mark.parametrize(("preset", "overrides", "hand", "table", "count"), GOLDEN)
def test_golden_legal_play_counts(
    preset: str, overrides: tuple[str, ...], hand: str, table: str, count: int
) -> None:
    r = rules(preset, *overrides)
    hands = [hand] + [""] * (r.players - 1)
    st = position(r, hands, table, strict=False)  # only the legal plays are probed
    assert len(st.legal_plays) == count
    got = {(p.card, frozenset(p.taken)) for p in st.legal_plays}
    assert len(got) == count  # all distinct
    assert got == set(ref.legal_plays(P(hand), P(table), r.as_dict()))
    for p in st.legal_plays:
        assert p.card in P(hand)
        assert p.take & ~P(table).mask == 0
        if p.is_capture and r.capture_mode == "fifteen":
            assert p.taken.value_sum() + p.card % 10 + 1 == 15
        elif p.is_capture and not (r.ace_sweep and p.card % 10 == 0):
            assert p.taken.value_sum() == p.card % 10 + 1


# --------------------------------------------------------------------------- RULES.md §9


def test_example6_fifteen_takes_no_match_first() -> None:
    r = rules("scopa-15")
    st = position(r, ["5S KH AS", "2C 4C"], "7C 3D 5H")
    assert legal(st) == plays("5S x 7C 3D", "KH x 5H", "AS")
    res = st.push("5S x 7C 3D")
    assert res.capture and not res.scopa and st.table == P("5H") and st.last_capturer == 0
    assert st.piles[0] == P("5S 7C 3D")
    # AS needs 14: no set adds up to it, so it is laid; a king takes a lone 5 (no match rule)
    st = position(r, ["KH AS", "2C"], "5H 7C 3D 5D")
    assert legal(st) == plays("KH x 5H", "KH x 5D", "AS")


def test_example6_escoba_lays_what_could_capture() -> None:
    st = position(rules("escoba"), ["5S KH AS", "2C 4C"], "7C 3D 5H")
    assert legal(st) == plays("5S x 7C 3D", "KH x 5H", "AS", "5S", "KH")
    res = st.push("KH")
    assert not res.capture and st.table == P("7C 3D 5H KH")


def test_example7_no_capture_sweeps_a_table_over_fifteen() -> None:
    st = position(rules("scopa-15"), ["3S JC", "2H KS"], "2C 3D 5H 7S")
    assert legal(st) == plays("3S x 5H 7S", "3S x 2C 3D 7S", "JC x 7S", "JC x 2C 5H")
    for p in st.legal_plays:
        after = st.clone()
        assert not after.push(p).scopa and after.table
    # a table of 15 minus the card is swept: a scopa (an escoba), except on the last play
    st = position(rules("scopa-15"), ["3S JC", "2H KS"], "5H 7S")
    res = st.push("3S x 5H 7S")
    assert res.scopa and st.scope == [1, 0]


@pytest.mark.parametrize(
    ("table", "scope"), [("AD 2C 5H 7S", 1), ("KD 5C KS 5H", 2), ("KD QC KS AH", 0)]
)
@pytest.mark.parametrize("dealer", [0, 1])
def test_example8_the_opening_table(table: str, scope: int, dealer: int) -> None:
    first = P(table).cards()
    deck = [*first, *(c for c in range(40) if c not in first)]
    st = HandState.deal(rules("escoba"), dealer=dealer, deck=deck)
    if scope:
        assert st.opening == P(table) and st.table == P("")
        assert st.piles[dealer] == P(table) and st.piles[1 - dealer] == P("")
        assert st.scope[dealer] == scope and st.scope[1 - dealer] == 0
        assert st.last_capturer == dealer  # the dealer's side until someone captures
    else:
        assert st.opening == P("") and st.table == P(table)
        assert st.scope == [0, 0] and st.last_capturer is None
    assert st.turn == 1 - dealer and len(st.hand(st.turn)) == 3
    # without the option (scopa-15) the table stays
    st = HandState.deal(rules("scopa-15"), dealer=dealer, deck=deck)
    assert st.opening == P("") and st.table == P(table) and st.scope == [0, 0]


def test_opening_take_goes_to_the_dealer_team() -> None:
    first = P("KD 5C KS 5H").cards()
    deck = [*first, *(c for c in range(40) if c not in first)]
    st = HandState.deal(rules("escoba", "players=4"), dealer=3, deck=deck)
    assert st.opening == P("KD 5C KS 5H") and st.scope == [0, 2] and st.last_capturer == 1


def test_opening_scope_count_in_the_score() -> None:
    # the dealer's side scores its opening scope with the scope of its plays
    first = P("KD 5C KS 5H").cards()
    deck = [*first, *(c for c in range(40) if c not in first)]
    st = HandState.deal(rules("escoba"), dealer=0, deck=deck)
    while not st.is_over:
        st.push(st.legal_plays[0])
    assert st.score()[0]["scope"] >= 2
    assert st.score()[0]["scope"] == st.scope[0]


# --------------------------------------------------------------------------- dealing


def test_deal_from_a_deck_order() -> None:
    deck = list(range(40))
    st = HandState.deal(rules(), dealer=1, deck=deck)
    assert st.table == CardSet(deck[:4])
    assert st.turn == 0 and st.dealer == 1
    assert st.hand(0) == CardSet(deck[4:7]) and st.hand(1) == CardSet(deck[7:10])
    assert st.stock == deck[10:]
    assert st.plays_made == 0 and st.plays_left == 36 and not st.is_over
    assert st.piles == [P(""), P("")] and st.scope == [0, 0] and st.last_capturer is None


def test_redeal_when_the_hands_are_empty() -> None:
    r = rules()
    deck = list(range(40))
    random.Random(7).shuffle(deck)
    st = HandState.deal(r, dealer=0, deck=deck)
    for _ in range(6):
        st.push(st.legal_plays[0])
    assert st.turn == 1  # the first player starts every deal
    assert st.hand(1) == CardSet(deck[10:13]) and st.hand(0) == CardSet(deck[13:16])
    assert st.stock == deck[16:]


def test_last_deal_shares_what_is_left() -> None:
    r = rules("scopa", "hand_size=4")  # 36 = 4 deals of 8, then 2 cards each
    deck = list(range(40))
    st = HandState.deal(r, dealer=1, deck=deck)
    sizes = [len(st.hand(0))]
    while not st.is_over:
        held = sum(len(h) for h in st.hands)
        st.push(st.legal_plays[-1])
        if sum(len(h) for h in st.hands) > held:  # a new deal
            assert len(st.hand(0)) == len(st.hand(1))
            sizes.append(len(st.hand(0)))
    assert sizes == [4, 4, 4, 4, 2]


def test_deal_rejects_bad_input() -> None:
    r = rules()
    with pytest.raises(ValueError, match="dealer"):
        HandState.deal(r, dealer=2, seed=1)
    with pytest.raises(ValueError, match="deck"):
        HandState.deal(r, deck=list(range(39)))
    with pytest.raises(ValueError, match="deck"):
        HandState.deal(r, deck=[0, *range(39)])
    with pytest.raises(ValueError, match="deck"):
        HandState.deal(rules("scopa-36"), deck=list(range(36)))  # holds 2s


def test_deal_36_card_deck() -> None:
    r = rules("scopa-36")
    deck = [c for c in range(40) if c % 10 != 1][::-1]
    st = HandState.deal(r, deck=deck)
    assert st.plays_left == 32
    assert not any(c % 10 == 1 for h in st.hands for c in h)


# Seed 43: its first shuffle puts KD KC KS on the table (found by a search).
KINGS_SEED = 43


def test_kings_redeal() -> None:
    no_redeal = HandState.deal(rules("scopa", "kings_redeal=false"), seed=KINGS_SEED)
    assert sum(1 for c in no_redeal.table if c % 10 == 9) >= 3
    redealt = HandState.deal(rules(), seed=KINGS_SEED)
    assert sum(1 for c in redealt.table if c % 10 == 9) < 3
    assert redealt.dealer == no_redeal.dealer == 0


def test_from_deals_matches_the_deck_order() -> None:
    r = rules("scopa-3")
    deck = list(range(40))
    random.Random(3).shuffle(deck)
    table, deals = ref.deal_layout(r.as_dict(), deck, 2)
    a = HandState.from_deals(r, 2, list(table), deals)
    b = HandState.deal(r, dealer=2, deck=deck)
    assert a.table == b.table and a.hands == b.hands and a.stock == b.stock


# --------------------------------------------------------------------------- push / pop / clone


def snapshot(st: HandState) -> tuple[object, ...]:
    return (
        st.turn,
        st.dealer,
        st.table,
        tuple(st.hands),
        tuple(st.piles),
        tuple(st.scope),
        st.last_capturer,
        tuple(st.stock),
        st.plays_made,
        st.plays_left,
        st.is_over,
        tuple(st.legal_plays),
        repr(st),
        tuple(tuple(s.items()) for s in st.score()),
    )


@pytest.mark.parametrize("preset", ["scopa", "asso-piglia-tutto", "scopone", "scopa-3"])
def test_push_pop_restores_the_exact_state(preset: str) -> None:
    st = HandState.deal(rules(preset), dealer=1, seed=11)
    rng = random.Random(5)
    snaps = []
    while not st.is_over:
        snaps.append(snapshot(st))
        st.push(rng.choice(list(st.legal_plays)))
    final = snapshot(st)
    pushed = st.history
    assert len(pushed) == len(snaps) == st.plays_made
    for i in range(len(snaps) - 1, -1, -1):
        assert st.pop() == pushed[i]
        assert snapshot(st) == snaps[i]
    with pytest.raises(IndexError):
        st.pop()
    for p in pushed:  # replaying reaches the same end
        st.push(p)
    assert snapshot(st) == final


def test_clone_is_independent() -> None:
    st = HandState.deal(rules(), seed=3)
    st.push(st.legal_plays[0])
    before = snapshot(st)
    twin = st.clone()
    assert snapshot(twin) == before and twin.history == []
    twin.push(twin.legal_plays[0])
    twin.push(twin.legal_plays[-1])
    assert snapshot(st) == before
    st.push(st.legal_plays[-1])
    after = snapshot(st)
    assert snapshot(twin) != after
    again = twin.clone()
    twin.pop()
    assert snapshot(again) != snapshot(twin)
    assert snapshot(st) == after


def test_illegal_plays_are_rejected_and_change_nothing() -> None:
    st = position(rules(), ["7D KS", "QH QC"], "7C 5H 2S")
    before = snapshot(st)
    for bad, why in [
        ("QH", "not in the hand"),
        ("7D x 5H 2S", "7D x 7C"),  # a match exists
        ("7D", "7D x 7C"),
        ("KS x 7C", "KS"),
        ("7D x 7H", "not on the table"),
    ]:
        with pytest.raises(IllegalPlayError, match=why):
            st.push(bad)
        assert not st.is_legal(Play.parse(bad))
        assert snapshot(st) == before
    assert isinstance(IllegalPlayError("x"), ValueError)


def test_no_play_after_the_end() -> None:
    st = position(rules(), ["7D", ""], "5H", dealer=1)
    st.push("7D")
    assert st.is_over
    assert len(st.legal_plays) == 0 and not st.legal_plays
    with pytest.raises(IllegalPlayError, match="over"):
        st.push("7D")


def test_legal_plays_view() -> None:
    st = position(rules(), ["7D KS", "QH"], "7C 2H")
    view = st.legal_plays
    assert len(view) == 2 and bool(view)
    assert Play.parse("7D x 7C") in view and Play.parse("7D") not in view
    assert view[0] in set(view)
    assert "7D x 7C" in repr(view)
    assert st.is_legal(Play.parse("KS"))


# --------------------------------------------------------------------------- from_position


def test_from_position_with_stock_deals_it() -> None:
    r = rules()
    # seat 1 played first this round; the dealer (seat 0) plays its last card
    st = position(r, ["KS", ""], "5H", stock="AD 2D 3D 4D 5D 6D", dealer=0, turn=0)
    assert st.plays_left == 7 and st.stock == P("AD 2D 3D 4D 5D 6D").cards()
    st.push("KS")
    assert st.hand(1) == P("AD 2D 3D") and st.hand(0) == P("4D 5D 6D")
    assert st.stock == [] and st.turn == 1


def test_from_position_rejects_repeated_or_foreign_cards() -> None:
    with pytest.raises(ValueError, match="twice"):
        position(rules(), ["KS", "QS"], "KS")
    with pytest.raises(ValueError, match="36"):
        position(rules("scopa-36"), ["2S", "QS"], "5H")
    with pytest.raises(ValueError, match="hands"):
        position(rules(), ["KS"], "5H")


@pytest.mark.parametrize(
    "kw",
    [
        {"turn": 2},
        {"turn": 5},
        {"turn": -1},
        {"dealer": 7},
        {"last_capturer": 3},
        {"scope": [-1, 0]},
    ],
)
def test_from_position_rejects_out_of_range_seats(kw: dict[str, object]) -> None:
    # Regression (scopa_sim/state.py, from_position): none of these used to be checked.
    # turn=-1 reads vec[S_HANDS - 1] == vec[-1] (the table's subset-sum bitset) as the
    # hand, so legal_plays lists AD and 6D, which nobody holds; turn=5 reads the pile
    # of side 0 as a hand; turn=2 gives a 2-player state with no legal play that is not
    # over; dealer=7 with remainder_to=dealer writes a pile mask into a scope slot.
    with pytest.raises(ValueError):
        position(rules(), ["KS", "QS"], "5H", **kw)


def test_from_position_rejects_impossible_hand_sizes() -> None:
    # Regression: seat 0 holding two cards and seat 1 none used to give a state with no
    # legal play that was not over. Seats still to play hold one card more than the others.
    with pytest.raises(ValueError, match="cannot occur"):
        position(rules(), ["KS 4S", ""], "5H", turn=0)
    with pytest.raises(ValueError, match="dealer"):  # seat 0 plays last: it is the dealer
        position(rules(), ["KS 4S", "QS"], "5H", turn=0, dealer=1, stock="7C 7H")
    st = position(rules(), ["KS", ""], "5H", turn=0)
    assert st.dealer == 0  # seat 0 plays last in this round
    st = position(rules(), ["", "KS"], "5H", turn=1)
    assert st.dealer == 1


# --------------------------------------------------------------------------- kernel cache

_SCORE_SETTEBELLO = """
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import eng as K
r = K.pack_rules(2, 0, 40, 3, 4, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 11)
state = np.zeros(K.N_STATE, np.int64)
state[K.S_PILES] = K.SETTEBELLO_BIT
out = np.zeros((4, K.N_ITEMS), np.int64)
K.score_state(state, r, out)  # step.py, calling scoring.score_into
print(out[0, K.I_SETTEBELLO])
"""


@pytest.mark.slow
def test_a_changed_module_never_loads_a_stale_cached_kernel(tmp_path: Path) -> None:
    # numba keys a cached kernel on its own file only: score_state (step.py) has
    # scoring.score_into compiled into it, so an edit of scoring.py alone would leave
    # the cached score_state stale without the package-wide stamp (_engine/__init__.py).
    pkg = tmp_path / "eng"
    shutil.copytree(Path(K.__file__).parent, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}

    def settebello() -> str:
        run = subprocess.run(
            [sys.executable, "-c", _SCORE_SETTEBELLO, str(tmp_path)],
            env=env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        return run.stdout.strip()

    assert settebello() == "1"
    assert settebello() == "1"  # from the cache
    scoring = pkg / "scoring.py"  # a new score_into, which step.score_state calls
    scoring.write_text(
        scoring.read_text()
        + "\n\nfrom .layout import I_SETTEBELLO\n\n_first_score_into = score_into\n\n\n"
        + "@njit(cache=True)\n"
        + "def score_into(rules, piles, po, scope, so, out):\n"
        + "    _first_score_into(rules, piles, po, scope, so, out)\n"
        + "    out[0, I_SETTEBELLO] *= 5\n"
    )
    assert settebello() == "5"


def _cached_kernels_using_the_engine(source: str) -> list[str]:
    """Names of the functions of a module's source that numba caches (``cache=True``)
    when the module imports the engine package."""
    tree = ast.parse(source)
    uses_engine = any(
        isinstance(node, ast.ImportFrom)
        and (
            (node.module or "").split(".")[-1] == "_engine"
            or any(alias.name == "_engine" for alias in node.names)
        )
        for node in ast.walk(tree)
    )
    cached = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for dec in node.decorator_list:
                if isinstance(dec, ast.Call) and any(
                    k.arg == "cache" and isinstance(k.value, ast.Constant) and k.value.value
                    for k in dec.keywords
                ):
                    cached.append(node.name)
    return cached if uses_engine else []


def test_every_cached_kernel_that_uses_the_engine_is_in_the_engine_package() -> None:
    # The package-wide stamp drops the engine package's cache only: a cached kernel
    # elsewhere that calls the step kernels kept a stale state layout after an engine
    # change (duplicate deals of escoba came out wrong on a machine with an old cache).
    root = Path(K.__file__).resolve().parent.parent
    found = {
        str(f.relative_to(root.parent)): names
        for f in [*root.rglob("*.py"), *(root.parent / "cli").glob("*.py")]
        if "_engine" not in f.relative_to(root.parent).parts
        and (names := _cached_kernels_using_the_engine(f.read_text()))
    }
    assert found == {}
    probe = "from . import _engine as K\n@njit(cache=True)\ndef f(x):\n    return K.N_STATE\n"
    assert _cached_kernels_using_the_engine(probe) == ["f"]  # the check sees one
