"""Cirulla's game records (RULES.md §10, docs/record.md): the void deals, the opening count,
each play's named value and declaration, the score's grande, piccola and declarations and
the cappotto's winner, written by the match runner and checked by ``replay``; every
violation of the issue's "Bad input" reported on its line; records cross-checked with the
plain-Python reference (tests/reference.py)."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import random
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import reference as ref  # tests/ is on sys.path (pyproject: pythonpath)
from hypothesis import given, settings
from hypothesis import strategies as st

from scopa_sim import CardSet, Play, RecordError, Rules, parse_card
from scopa_sim.bots.registry import seat_policies
from scopa_sim.errors import PositionError
from scopa_sim.game.state import HandState
from scopa_sim.records.record import (
    check_lines,
    check_record,
    hand_record,
    iter_lines,
    position_from_record,
    show_hand,
    write_records,
)
from scopa_sim.sim.match import hand_log, play_match

P = CardSet.parse
MATTA = "7H"

#: The rule sets of the records checked here (preset, overrides).
VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "declare": ("cirulla", {}),
    "play": ("cirulla", {"matta": "play"}),
    "auto": ("cirulla", {"declare": "auto", "matta": "play"}),
    "off": ("cirulla", {"declare": "off"}),
    "kings": ("cirulla", {"kings_redeal": True, "ace_sweep_scopa": False, "matta": "play"}),
    "three": ("cirulla-3", {"cirulla_match_priority": False, "sum_capture": "fewest"}),
    "teams": ("cirulla-4", {"matta": "play", "capture_rule": "hand", "piccola_max": 7}),
    "free": ("cirulla", {"capture_compulsory": False, "remainder_to": "dealer"}),
}


def rules_of(name: str) -> Rules:
    preset, overrides = VARIANTS[name]
    return Rules.make(preset, overrides)


def written(rules: Rules, seed: int, matches: int) -> list[str]:
    """The record lines of ``matches`` random matches of a run of ``seed``."""
    out = io.StringIO()
    specs = seat_policies(["random"], rules.players)
    for m in range(matches):
        write_records(out, rules, play_match(rules, specs, seed, m))
    return out.getvalue().splitlines()


_POOL: dict[str, list[dict[str, Any]]] = {}


def pool(name: str) -> list[dict[str, Any]]:
    """Decoded records of 12 matches of a variant (made once), copied for each test."""
    if name not in _POOL:
        _POOL[name] = [json.loads(x) for x in written(rules_of(name), 11, 12)]
    return copy.deepcopy(_POOL[name])


def dumps(objs: list[dict[str, Any]]) -> list[str]:
    return [json.dumps(o, separators=(",", ":")) for o in objs]


def cards(names: list[str]) -> list[int]:
    return [parse_card(c) for c in names]


def reference_check(obj: dict[str, Any]) -> None:
    """Replay a record on the reference: its void tables void and its table not, the same
    opening, every play legal (named value and declaration included), the same score
    (items in order), totals and winner (the cappotto's too)."""
    rd = obj["rules"]
    table = cards(obj["deals"][0]["table"])
    deals = [[cards(h) for h in d["hands"]] for d in obj["deals"]]
    for void in obj.get("voids", []):
        assert ref.redeal_needed(cards(void), rd)
    assert not ref.redeal_needed(table, rd)
    state = ref.HandState(rd, obj["dealer"], table, deals[0], deals[1:])
    state.take_opening()
    assert state.opening == frozenset(cards(obj.get("opening", [])))
    for p in obj["plays"]:
        assert p["seat"] == state.seat
        take = cards(p["take"])
        state.play(
            parse_card(p["card"]), take, value=p.get("value"), declaration=p.get("declaration")
        )
    result = state.result()
    assert [list(s.items()) for s in result["score"]] == [list(s.items()) for s in obj["score"]]
    totals = [b + s["total"] for b, s in zip(obj["totals_before"], result["score"], strict=True)]
    assert totals == obj["totals_after"]
    assert ref.match_winner(totals, rd, result["all_denari_side"]) == obj["winner"]


# --------------------------------------------------------------------------- the writer
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_written_records_replay_clean_and_are_the_references(name: str) -> None:
    """Random matches of every variant: valid, their fields as docs/record.md says (a
    value exactly on the matta's plays under ``matta=play``, declarations of 3 or 10,
    ``voids`` and ``opening`` only when there are), and each hand the reference's."""
    rules = rules_of(name)
    lines = written(rules, 5, 6)
    summary = check_lines(lines)
    assert summary.ok, summary.errors[:3]
    assert summary.finished_matches == 6
    for line in lines:
        obj = json.loads(line)
        assert obj["rules"] == rules.complete_dict()
        assert obj.get("voids", True) and obj.get("opening", True)  # absent when none
        for p in obj["plays"]:
            named = rules.matta == "play" and p["card"] == MATTA
            assert ("value" in p) == named and p.get("value", 1) in range(1, 11)
            assert p.get("declaration", 3) in (3, 10)
            assert list(p)[:3] == ["seat", "card", "take"]
        assert list(obj["score"][0])[-4:] == ["grande", "piccola", "declarations", "total"]
        reference_check(obj)


def test_the_pools_hold_every_field() -> None:
    """The records the violations below are made from have voids, openings, named values
    and declarations (so each mutation finds what it changes)."""
    objs = pool("play") + pool("auto") + pool("kings")
    assert any("voids" in o for o in objs) and any("opening" in o for o in objs)
    plays = [p for o in objs for p in o["plays"]]
    assert any("value" in p for p in plays) and any("declaration" in p for p in plays)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32), name=st.sampled_from(sorted(VARIANTS)))
def test_random_cirulla_matches_write_records_that_replay_clean(seed: int, name: str) -> None:
    """Property: any random Cirulla match, written then read back, is valid, and each of
    its hands is the reference's."""
    lines = written(rules_of(name), seed, 1)
    assert check_lines(lines).ok
    for line in lines:
        reference_check(json.loads(line))


def test_records_of_a_cirulla_run_are_deterministic() -> None:
    rules = rules_of("play")
    assert written(rules, 3, 2) == written(rules, 3, 2)
    assert written(rules, 3, 2) != written(rules, 4, 2)


def test_show_hand_shows_voids_values_declarations_and_the_opening() -> None:
    objs = pool("play")
    for o in objs:
        text = "\n".join(show_hand(o))
        if "voids" in o:
            assert "void deals before this one" in text
        if "opening" in o:
            assert re.search(r"opening: the table adds up to (15|30)", text)
        for p in o["plays"]:
            if "value" in p:
                assert f"7H={p['value']}" in text
            if "declaration" in p:
                assert f"declares {p['declaration']}," in text


# --------------------------------------------------------------------------- violations
Mutation = Callable[[], tuple[list[str], int, str]]
MUTATIONS: dict[str, Mutation] = {}


def mutation(name: str) -> Callable[[Mutation], Mutation]:
    def register(fn: Mutation) -> Mutation:
        MUTATIONS[name] = fn
        return fn

    return register


def plays_where(
    objs: list[dict[str, Any]], test: Callable[[dict[str, Any], int, dict[str, Any]], bool]
) -> tuple[int, int]:
    """The first (record index, play index) whose play passes ``test(record, i, play)``."""
    for k, o in enumerate(objs):
        for i, p in enumerate(o["plays"]):
            if test(o, i, p):
                return k, i
    raise AssertionError("no such play in the pool")


def first_of_deal(o: dict[str, Any], i: int) -> bool:
    """Is play ``i`` its seat's first of a deal (every Cirulla deal gives three cards)?"""
    return i % (3 * o["rules"]["players"]) < o["rules"]["players"]


def dealt_hand(o: dict[str, Any], i: int) -> list[int]:
    """The three cards the seat of play ``i`` was dealt in that play's deal."""
    deal = i // (3 * o["rules"]["players"])
    return cards(o["deals"][deal]["hands"][o["plays"][i]["seat"]])


def points(o: dict[str, Any], i: int) -> int:
    return ref.declaration_points(dealt_hand(o, i), o["rules"])


def edit_play(name: str, test, change) -> tuple[list[str], int, dict[str, Any]]:
    objs = pool(name)
    k, i = plays_where(objs, test)
    change(objs[k]["plays"][i])
    return dumps(objs), k + 1, objs[k]


@mutation("a matta play without a value under matta=play")
def _m():
    lines, line, _ = edit_play("play", lambda o, i, p: "value" in p, lambda p: p.pop("value"))
    return lines, line, r"the matta 7H names a value under matta=play"


@mutation("a value under matta=declare")
def _m():
    lines, line, _ = edit_play(
        "declare", lambda o, i, p: p["card"] == MATTA, lambda p: p.update(value=7)
    )
    return lines, line, r"a value is named only under matta=play, the rules have matta=declare"


@mutation("a value on another card")
def _m():
    lines, line, _ = edit_play(
        "play", lambda o, i, p: p["card"] != MATTA and p["take"], lambda p: p.update(value=3)
    )
    return lines, line, r"cannot name a value; allowed: only the matta 7H names one"


for _bad in (0, 11, "5", True, None):

    @mutation(f"a value {_bad!r}")
    def _m(bad=_bad):
        lines, line, _ = edit_play(
            "play", lambda o, i, p: "value" in p, lambda p: p.update(value=bad)
        )
        return lines, line, r"bad value .*; allowed: 1..10$"


def _cannot_take(o: dict[str, Any], i: int, p: dict[str, Any]) -> bool:
    return "value" in p and bool(p["take"]) and _wrong_value(o, i) is not None


def _table_before(o: dict[str, Any], i: int) -> list[int]:
    state = HandState.from_deals(
        Rules.from_dict(o["rules"]),
        o["dealer"],
        cards(o["deals"][0]["table"]),
        [[cards(h) for h in d["hands"]] for d in o["deals"]],
    )
    for p in o["plays"][:i]:
        state.push(Play(parse_card(p["card"]), CardSet(cards(p["take"])).mask,
                        p.get("value", 0), p.get("declaration", 0)))  # fmt: skip
    return list(state.table)


def _wrong_value(o: dict[str, Any], i: int) -> int | None:
    """A value with which the matta of play ``i`` cannot take what it took, if any."""
    take = frozenset(cards(o["plays"][i]["take"]))
    table = _table_before(o, i)
    for v in range(1, 11):
        if take not in ref.cirulla_captures(v, table, o["rules"]):
            return v
    return None


@mutation("a named value with which the matta cannot take what it took")
def _m():
    objs = pool("play")
    k, i = plays_where(objs, _cannot_take)
    objs[k]["plays"][i]["value"] = _wrong_value(objs[k], i)
    return dumps(objs), k + 1, r"is not allowed; with 7H the rules allow"


@mutation("a declaration on a hand that does not qualify")
def _m():
    lines, line, _ = edit_play(
        "declare",
        lambda o, i, p: first_of_deal(o, i) and points(o, i) == 0,
        lambda p: p.update(declaration=3),
    )
    return lines, line, r"does not qualify for a declaration"


@mutation("a declaration with the wrong points")
def _m():
    lines, line, _ = edit_play(
        "declare",
        lambda o, i, p: first_of_deal(o, i) and points(o, i) == 3,
        lambda p: p.update(declaration=10),
    )
    return lines, line, r"declares 3, not 10"


@mutation("a declaration after the seat has played in the deal")
def _m():
    lines, line, _ = edit_play(
        "declare",
        lambda o, i, p: not first_of_deal(o, i) and "declaration" not in p,
        lambda p: p.update(declaration=3),
    )
    return lines, line, r"declares after it has played in this deal"


@mutation("a declaration of 4 points")
def _m():
    lines, line, _ = edit_play(
        "declare", lambda o, i, p: first_of_deal(o, i), lambda p: p.update(declaration=4)
    )
    return lines, line, r"bad declaration 4; allowed: 3, 10"


@mutation("a declaration under declare=off")
def _m():
    lines, line, _ = edit_play(
        "off",
        lambda o, i, p: first_of_deal(o, i) and points(o, i) == 3,
        lambda p: p.update(declaration=3),
    )
    return lines, line, r"declare=off"


@mutation("a qualifying hand not declared under declare=auto")
def _m():
    lines, line, _ = edit_play(
        "auto", lambda o, i, p: "declaration" in p, lambda p: p.pop("declaration")
    )
    return lines, line, r"qualifies for (3|10) points and declare=auto declares it"


def _edit_record(name: str, test, change) -> tuple[list[str], int]:
    objs = pool(name)
    k = next(k for k, o in enumerate(objs) if test(o))
    change(objs[k])
    return dumps(objs), k + 1


@mutation("an opening count on a table that does not add up")
def _m():
    lines, line = _edit_record(
        "declare",
        lambda o: "opening" not in o,
        lambda o: o.update(opening=o["deals"][0]["table"]),
    )
    return lines, line, r"opening is \[.*\] but the first table \[.*\] adds up to \d+.*neither 15"


@mutation("a missing opening count")
def _m():
    lines, line = _edit_record("play", lambda o: "opening" in o, lambda o: o.pop("opening"))
    return lines, line, r"opening is missing: the first table \[.*\] adds up to"


@mutation("an opening count of part of the table")
def _m():
    lines, line = _edit_record(
        "play", lambda o: "opening" in o, lambda o: o.update(opening=o["opening"][:2])
    )
    return lines, line, r"the rules take \[.*\] \(the whole first table\)"


@mutation("a void deal that is not one")
def _m():
    lines, line = _edit_record(
        "play", lambda o: True, lambda o: o.update(voids=[["2C", "3C", "AD", "KS"]])
    )
    return lines, line, r"void deal 0: the table \[.*\] is not void \(1 ace, 1 king"


@mutation("a void deal of three kings without kings_redeal")
def _m():
    lines, line = _edit_record(
        "play", lambda o: True, lambda o: o.update(voids=[["KC", "KD", "KS", "2C"]])
    )
    return lines, line, r"is not void \(0 aces, 3 kings; aces_redeal=true, kings_redeal=false\)"


@mutation("a void deal of two cards")
def _m():
    lines, line = _edit_record("play", lambda o: True, lambda o: o.update(voids=[["AC", "AS"]]))
    return lines, line, r"void deal 0 has 2 table cards, the rules deal 4"


@mutation("voids not a list")
def _m():
    lines, line = _edit_record("play", lambda o: True, lambda o: o.update(voids="AC AS"))
    return lines, line, r"voids must be a list"


def _two_aces(o: dict[str, Any]) -> None:
    """Swap an ace of a later hand onto the first table, beside its ace."""
    table = o["deals"][0]["table"]
    spot = next(j for j, c in enumerate(table) if c[0] != "A")
    for deal in o["deals"]:
        for hand in deal["hands"]:
            for j, c in enumerate(hand):
                if c[0] == "A":
                    hand[j], table[spot] = table[spot], c
                    return
    raise AssertionError("no ace to move")


@mutation("an accepted table that the aces void")
def _m():
    lines, line = _edit_record(
        "play", lambda o: sum(c[0] == "A" for c in o["deals"][0]["table"]) == 1, _two_aces
    )
    return lines, line, r"the table holds two or more aces: the rules ask for a redeal"


@mutation("a grande not scored")
def _m():
    lines, line = _edit_record(
        "declare",
        lambda o: any(s["grande"] for s in o["score"]),
        lambda o: [s.update(grande=0) for s in o["score"]],
    )
    return lines, line, r"grande is 0, the plays give 5"


@mutation("a piccola item missing")
def _m():
    lines, line = _edit_record(
        "declare", lambda o: True, lambda o: [s.pop("piccola") for s in o["score"]]
    )
    return lines, line, r"piccola is None"


@mutation("declarations' points not scored")
def _m():
    lines, line = _edit_record(
        "auto",
        lambda o: any(s["declarations"] for s in o["score"]),
        lambda o: [s.update(declarations=0) for s in o["score"]],
    )
    return lines, line, r"declarations is 0, the plays give (3|6|9|10|\d+)"


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_each_violation_is_reported_on_its_line(name: str) -> None:
    lines, line, reason = MUTATIONS[name]()
    summary = check_lines(lines)
    assert summary.errors, f"{name}: accepted"
    got_line, got_reason = summary.errors[0]
    assert got_line == line, summary.errors
    assert re.search(reason, got_reason), summary.errors
    assert "\n" not in got_reason
    stream = io.StringIO("".join(x + "\n" for x in lines))
    assert check_lines(iter_lines(stream)).errors == summary.errors


def test_any_value_that_makes_the_matta_play_legal_is_accepted() -> None:
    """RULES.md §10 names no canonical value: a record may name any value with which the
    matta takes what it took (the writer names the smallest)."""
    objs = pool("play")
    changed = 0
    for o in objs:
        for i, p in enumerate(o["plays"]):
            if "value" not in p or not p["take"]:
                continue
            table = _table_before(o, i)
            take = frozenset(cards(p["take"]))
            play = ref.CirullaPlay(parse_card(MATTA), take, p["value"])
            for v in range(p["value"] + 1, 11):
                other = play._replace(value=v)
                if ref.canonical_play(other, table, o["rules"]) == play:
                    p["value"] = v
                    changed += 1
                    break
    assert changed
    assert check_lines(dumps(objs)).ok


def test_a_kings_void_is_read_under_kings_redeal() -> None:
    objs = pool("kings")
    objs[0]["voids"] = [["KC", "KD", "KS", "2C"], ["AC", "AD", "4S", "5S"]]
    assert check_lines(dumps(objs)).ok


@pytest.mark.parametrize("cappotto", [True, False])
def test_a_cappotto_wins_the_match_whatever_the_totals(cappotto: bool) -> None:
    """A side that captures the ten denari wins at once (``cappotto``): the record's winner
    is that side even below the target, and the checker recomputes it. Every card laid
    (``capture_compulsory=false``) and the table going to the dealer at the end: the
    dealer's side takes the whole deck."""
    rules = Rules.make(
        "cirulla",
        {"capture_compulsory": False, "remainder_to": "dealer", "cappotto": cappotto},
    )
    deck = list(range(40))
    rng = random.Random(4)
    while True:
        rng.shuffle(deck)
        if not ref.redeal_needed(deck[:4], rules.complete_dict()):
            break
    state = HandState.deal(rules, dealer=0, deck=deck)
    plays = []
    while not state.is_over:
        seat = state.turn
        play = next(q for q in state.legal_plays if not q.take and not q.declaration)
        plays.append((seat, play.card, play.take))
        state.push(play)
    log = hand_log(state, match=0, hand=3, dealer=0, deck=tuple(deck), plays=tuple(plays),
                   totals_before=(0, 50))  # fmt: skip
    record = hand_record(rules, log)
    assert record["totals_after"][1] == 50 and record["totals_after"][0] < 51
    assert record["winner"] == (0 if cappotto else None)
    check_record(record)
    record["winner"] = None if cappotto else 0
    with pytest.raises(RecordError, match="winner is"):
        check_record(record)


@pytest.mark.parametrize("name", ["play", "kings", "teams"])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_hand_state_accepts_the_named_values_the_reference_accepts(name: str, data) -> None:
    """Arbitrary positions with the matta in hand: every named value 1..10 with every take
    some value makes (and declared or not) is legal for :class:`HandState` exactly when it
    is for the reference (``is_legal_play``: any value that makes the play legal)."""
    rules = rules_of(name)
    rd = rules.complete_dict()
    rest = data.draw(st.permutations([c for c in range(40) if c != parse_card(MATTA)]))
    k = data.draw(st.integers(0, 8))
    hand, table = [parse_card(MATTA), *rest[:2]], rest[2 : 2 + k]
    hands = [CardSet(hand)] + [CardSet() for _ in range(rules.players - 1)]
    state = HandState.from_position(rules, hands=hands, table=CardSet(table), strict=False)
    takes = {t for v in range(1, 11) for t in ref.cirulla_captures(v, table, rd)}
    takes |= {frozenset(), frozenset(table[:1]), frozenset(table[:2])}
    points = ref.declaration_points(hand, rd)
    for take in takes:
        for v in range(1, 11):
            for d in {0, points, 3}:
                got = state.is_legal(Play(parse_card(MATTA), CardSet(take).mask, v, d))
                want = ref.is_legal_play(
                    ref.CirullaPlay(parse_card(MATTA), take, v, d or None), hand, table, rd
                )
                assert got == want, (hand, table, sorted(take), v, d)


JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True),
    st.text(max_size=6), st.lists(st.integers(-3, 50), max_size=5),
    st.lists(st.sampled_from(["AC", "AD", "KS", "7H", "XX", ""]), max_size=6),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_malformed_cirulla_fields_are_violations_never_crashes(data) -> None:
    """Any value in a Cirulla field (a play's value or declaration, the voids, the
    opening, a Cirulla score item): ``replay`` reports a violation or accepts it, and
    ``--show`` and a position of the record raise the project's errors only."""
    objs = pool("auto")[:3]
    k = data.draw(st.integers(0, len(objs) - 1))
    o = objs[k]
    junk = data.draw(JUNK)
    where = data.draw(st.sampled_from(["value", "declaration", "voids", "void", "opening",
                                       "score"]))  # fmt: skip
    if where in ("value", "declaration"):
        o["plays"][data.draw(st.integers(0, len(o["plays"]) - 1))][where] = junk
    elif where == "voids":
        o["voids"] = junk
    elif where == "void":
        o["voids"] = [junk]
    elif where == "opening":
        o["opening"] = junk
    else:
        o["score"][0][data.draw(st.sampled_from(["grande", "piccola", "declarations"]))] = junk
    lines = dumps(objs)
    summary = check_lines(lines)
    assert all("\n" not in reason for _, reason in summary.errors)
    with contextlib.suppress(RecordError, ValueError):  # CardError is a ValueError
        show_hand(json.loads(lines[k]))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "games.jsonl"
        path.write_text("".join(x + "\n" for x in lines))
        for play in (0, 5):
            with contextlib.suppress(PositionError):
                position_from_record(f"{path}:{k + 1}:{play}")
