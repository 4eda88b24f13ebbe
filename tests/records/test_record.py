"""Game records (RECORD.md, ``scopa-record/1``): what the writer produces and what the
checker must reject."""

from __future__ import annotations

import copy
import io
import itertools
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
import reference as ref  # tests/ is on sys.path (pyproject: pythonpath)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scopa_sim import CardSet, Play, RecordError, Rules, parse_card
from scopa_sim.bots.registry import seat_policies
from scopa_sim.game.cards import value_of
from scopa_sim.game.rules import KERNEL_PRESETS
from scopa_sim.game.state import HandState
from scopa_sim.records.record import check_lines, hand_record, iter_lines, show_hand, write_records
from scopa_sim.sim.match import HandLog, play_match

# RECORD.md: the fields of a record, of a deal, of a play, of a score entry.
RECORD_FIELDS = {
    "format",
    "rules",
    "match",
    "hand",
    "dealer",
    "totals_before",
    "deals",
    "plays",
    "score",
    "totals_after",
    "winner",
}
SCORE_FIELDS = {"scope", "cards", "denari", "settebello", "primiera", "re_bello", "napola", "total"}
PLAY_FIELDS = {"seat", "card", "take"}
# RULES.md §7: every option key (the reference's defaults list them) but the Escoba
# readings' options, which records list only when they differ from their defaults.
OPTION_KEYS = set(ref.DEFAULT_RULES) - {"opening_fifteen_to", "four_sevens_point"}
CARD_RE = re.compile(r"^[A2-7JQK][DHCS]$")
SUITS, RANKS = "DHCS", "A234567JQK"


def deck_names(deck: int) -> set[str]:
    ranks = RANKS if deck == 40 else RANKS.replace("2", "")
    return {r + s for r in ranks for s in SUITS}


def write(rules: Rules, seed: int, matches: int, policies: list[str]) -> str:
    specs = seat_policies(policies, rules.players)
    out = io.StringIO()
    for m in range(matches):
        write_records(out, rules, play_match(rules, specs, seed, m))
    return out.getvalue()


def dumps(objs: list[Any]) -> list[str]:
    return [json.dumps(o, separators=(",", ":")) for o in objs]


# --------------------------------------------------------------------------- the writer
@pytest.mark.parametrize("policy", [["random"], ["greedy"], ["greedy", "random"]])
@pytest.mark.parametrize("preset", list(KERNEL_PRESETS))
def test_written_records_are_valid_and_complete(preset: str, policy: list[str]) -> None:
    rules = Rules.make(preset, ["target=3"])
    if len(policy) > 1:
        policy = (policy * rules.players)[: rules.players]
    text = write(rules, seed=17, matches=2, policies=policy)
    assert text.endswith("\n")
    lines = text.splitlines()
    summary = check_lines(lines)
    assert summary.errors == []
    assert summary.lines == summary.hands == len(lines)
    assert summary.matches == summary.finished_matches == 2

    objs = [json.loads(line) for line in lines]
    n, sides = rules.players, rules.sides
    deck = deck_names(rules.deck)
    for i, obj in enumerate(objs):
        # RECORD.md: `opening` only when opening_fifteen took the table (RULES.md §9)
        first_table = [parse_card(c) for c in obj["deals"][0]["table"]]
        taken, _ = ref.opening_take(first_table, obj["rules"])
        assert set(obj) == RECORD_FIELDS | ({"opening"} if taken else set())
        if taken:
            assert obj["opening"] == obj["deals"][0]["table"]  # the whole table, as dealt
        assert obj["format"] == "scopa-record/1"
        assert set(obj["rules"]) == OPTION_KEYS
        assert obj["rules"] == rules.complete_dict()
        assert Rules.from_dict(obj["rules"]) == rules
        # Deals: table only in the first, one hand per seat, a partition of the deck.
        deals = obj["deals"]
        assert set(deals[0]) == {"table", "hands"}
        assert len(deals[0]["table"]) == rules.table_cards
        assert all(set(d) == {"hands"} for d in deals[1:])
        dealt = list(deals[0]["table"])
        for d in deals:
            assert len(d["hands"]) == n
            assert len({len(h) for h in d["hands"]}) == 1  # every seat gets the same count
            for h in d["hands"]:
                dealt.extend(h)
        assert all(CARD_RE.match(c) for c in dealt)
        assert len(dealt) == len(set(dealt)) == rules.deck
        assert set(dealt) == deck
        # Plays: every dealt hand card is played once, in seat order from the dealer's left.
        if rules.capture_mode == "fifteen":  # RULES.md §9: every capture makes fifteen
            for p in obj["plays"]:
                if p["take"]:
                    cards = [parse_card(c) for c in (p["card"], *p["take"])]
                    assert sum(value_of(c) for c in cards) == 15
        plays = obj["plays"]
        assert len(plays) == rules.deck - rules.table_cards
        first = (obj["dealer"] + 1) % n
        for k, p in enumerate(plays):
            assert set(p) == PLAY_FIELDS
            assert p["seat"] == (first + k) % n
            assert CARD_RE.match(p["card"]) and all(CARD_RE.match(c) for c in p["take"])
        assert sorted(p["card"] for p in plays) == sorted(set(dealt) - set(deals[0]["table"]))
        # Score and totals.
        assert len(obj["score"]) == sides
        for s in obj["score"]:
            assert set(s) == SCORE_FIELDS
            assert s["total"] == sum(v for k, v in s.items() if k != "total")
        assert len(obj["totals_before"]) == len(obj["totals_after"]) == sides
        assert obj["totals_after"] == [
            b + s["total"] for b, s in zip(obj["totals_before"], obj["score"], strict=True)
        ]
        # Match structure: numbering, dealer rotation, winner only on the last hand.
        last_of_match = i + 1 == len(objs) or objs[i + 1]["match"] != obj["match"]
        if last_of_match:
            assert isinstance(obj["winner"], int) and 0 <= obj["winner"] < sides
            w = obj["winner"]
            assert obj["totals_after"][w] == max(obj["totals_after"]) >= rules.target
            assert obj["totals_after"].count(obj["totals_after"][w]) == 1
        else:
            assert obj["winner"] is None
        if obj["hand"] == 0:
            assert obj["match"] == (0 if i == 0 else objs[i - 1]["match"] + 1)
            assert obj["totals_before"] == [0] * sides
            assert 0 <= obj["dealer"] < n
        else:
            prev = objs[i - 1]
            assert (obj["match"], obj["hand"]) == (prev["match"], prev["hand"] + 1)
            assert obj["dealer"] == (prev["dealer"] + 1) % n
            assert obj["totals_before"] == prev["totals_after"]
    assert [o["match"] for o in objs if o["hand"] == 0] == [0, 1]


def test_records_are_deterministic() -> None:
    rules = Rules.make("scopa", ["target=5"])
    a = write(rules, seed=3, matches=2, policies=["random"])
    assert a == write(rules, seed=3, matches=2, policies=["random"])
    assert a != write(rules, seed=4, matches=2, policies=["random"])


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    seed=st.integers(min_value=0, max_value=2**63 - 1),
    preset=st.sampled_from(sorted(KERNEL_PRESETS)),
    policy=st.sampled_from(["random", "greedy"]),
    target=st.integers(min_value=1, max_value=6),
)
def test_write_then_check_is_valid(seed: int, preset: str, policy: str, target: int) -> None:
    rules = Rules.make(preset, [f"target={target}"])
    text = write(rules, seed, matches=2, policies=[policy])
    summary = check_lines(text.splitlines())
    assert summary.errors == []
    assert summary.finished_matches == 2


# --------------------------------------------------------------------------- mutations
def hand_states(obj: dict[str, Any]) -> HandState:
    rules = Rules.from_dict(obj["rules"])
    table = [parse_card(c) for c in obj["deals"][0]["table"]]
    deals = [[[parse_card(c) for c in h] for h in d["hands"]] for d in obj["deals"]]
    return HandState.from_deals(rules, obj["dealer"], table, deals)


def plays_with_tables(obj: dict[str, Any]) -> list[tuple[int, dict[str, Any], list[int]]]:
    """(index, play, table before the play) for every play of a record."""
    state = hand_states(obj)
    out = []
    for i, p in enumerate(obj["plays"]):
        out.append((i, p, list(state.table)))
        state.push(Play.of(p["card"], p["take"]))
    return out


def sum_instead_of_match(obj: dict[str, Any]) -> tuple[int, list[str]] | None:
    """A play that took one matching card while a sum of 2+ table cards was also there."""
    for i, p, table in plays_with_tables(obj):
        if len(p["take"]) != 1:
            continue
        v = value_of(parse_card(p["card"]))
        for k in range(2, len(table) + 1):
            for combo in itertools.combinations(table, k):
                if sum(value_of(c) for c in combo) == v:
                    return i, [RANKS[c % 10] + SUITS[c // 10] for c in combo]
    return None


class Base:
    """A valid file of several matches, with the indices the mutations aim at."""

    def __init__(self) -> None:
        for seed in range(200):
            rules = Rules.make("scopa", ["target=4"])
            objs = [json.loads(x) for x in write(rules, seed, 3, ["random"]).splitlines()]
            conts = [i for i, o in enumerate(objs) if o["hand"] >= 1 and o["winner"] is None]
            sums = [(i, s) for i, o in enumerate(objs) if (s := sum_instead_of_match(o))]
            if conts and sums and objs[-1]["hand"] >= 1:
                break
        else:  # pragma: no cover
            raise AssertionError("no suitable base file")
        self.rules = rules
        self.objs = objs
        self.n = len(objs)
        self.cont = conts[0]  # a mid-match hand, neither first nor last of its match
        self.sum_line, self.sum_play = sums[0]
        self.first_of_match = [i for i, o in enumerate(objs) if o["hand"] == 0]
        self.middle = next(i for i, o in enumerate(objs) if o["winner"] is None)

    def copy(self) -> list[dict[str, Any]]:
        return copy.deepcopy(self.objs)


@pytest.fixture(scope="module")
def base() -> Base:
    b = Base()
    assert check_lines(dumps(b.objs)).errors == []
    assert len(b.first_of_match) == 3
    return b


# A mutation edits the parsed records (or their lines) and says which line (1-based) must
# be reported, a regex the reason must match, and whether that must be the only error.
Mutation = Callable[[Base], tuple[list[str], int, str, bool]]
MUTATIONS: dict[str, Mutation] = {}


def mutation(name: str) -> Callable[[Mutation], Mutation]:
    def deco(f: Mutation) -> Mutation:
        MUTATIONS[name] = f
        return f

    return deco


def edit(
    b: Base, line: int, f: Callable[[dict[str, Any]], object], reason: str, only: bool = True
) -> tuple[list[str], int, str, bool]:
    objs = b.copy()
    f(objs[line])
    return dumps(objs), line + 1, reason, only


def first_capture(obj: dict[str, Any]) -> int:
    return next(i for i, p in enumerate(obj["plays"]) if p["take"])


def seat_card(obj: dict[str, Any], seat: int) -> str:
    return obj["deals"][0]["hands"][seat][0]


# -- cards and the partition
@mutation("swap hand card with table card")
def _m(b: Base):
    def f(o):
        d = o["deals"][0]
        d["hands"][0][0], d["table"][0] = d["table"][0], d["hands"][0][0]

    # the first play that uses either swapped card is refused
    return edit(b, b.cont, f, r"^play \d+: .*not (in the hand|on the table)")


@mutation("move a hand card to the table")
def _m(b: Base):
    return edit(
        b,
        b.cont,
        lambda o: o["deals"][0]["table"].append(o["deals"][0]["hands"][1].pop()),
        "table holds 5 cards",
    )


@mutation("swap cards between two deals")
def _m(b: Base):
    def f(o):
        d0, d1 = o["deals"][0]["hands"][0], o["deals"][1]["hands"][0]
        d0[0], d1[0] = d1[0], d0[0]

    return edit(b, b.cont, f, r"^play \d+: ")


@mutation("duplicated card")
def _m(b: Base):
    def f(o):
        o["deals"][2]["hands"][1][2] = o["deals"][0]["table"][3]

    return edit(b, b.cont, f, "dealt twice")


@mutation("card removed from a hand")
def _m(b: Base):
    return edit(b, b.cont, lambda o: o["deals"][3]["hands"][0].pop(), "gives seat 0 2 cards")


@mutation("card removed from the table")
def _m(b: Base):
    return edit(b, b.cont, lambda o: o["deals"][0]["table"].pop(), "table holds 3 cards")


@mutation("a deal missing")
def _m(b: Base):
    return edit(b, b.cont, lambda o: o["deals"].pop(), "undealt")


@mutation("a second table")
def _m(b: Base):
    return edit(b, b.cont, lambda o: o["deals"][1].update(table=[]), "only the first deal")


for _bad in ["10C", "8H", "9S", "junk", "", "7X", "ZD", 7, None]:

    @mutation(f"card {_bad!r} in a hand")
    def _m(b: Base, bad=_bad):
        def f(o):
            o["deals"][0]["hands"][1][0] = bad

        return edit(b, b.cont, f, r"card|malformed")


@mutation("card '8H' on the table")
def _m(b: Base):
    return edit(b, b.cont, lambda o: o["deals"][0]["table"].__setitem__(0, "8H"), "malformed")


@mutation("card '10D' played")
def _m(b: Base):
    return edit(b, b.cont, lambda o: o["plays"][3].__setitem__("card", "10D"), "malformed")


@mutation("card 'QQ' taken")
def _m(b: Base):
    def f(o):
        o["plays"][first_capture(o)]["take"][0] = "QQ"

    return edit(b, b.cont, f, "malformed")


@mutation("2s in a 36-card deck")
def _m(b: Base):
    # A new match may change its rules, but the deals then do not fit a 36-card deck.
    return edit(
        b, b.first_of_match[1], lambda o: o["rules"].update(deck=36), r"deal \d", only=False
    )


# -- plays
@mutation("played card not in the hand")
def _m(b: Base):
    def f(o):
        dealer = o["dealer"]
        o["plays"][0]["card"] = seat_card(o, dealer)  # the dealer plays last

    return edit(b, b.cont, f, r"^play 0: .*not in the hand of seat")


@mutation("wrong seat")
def _m(b: Base):
    def f(o):
        o["plays"][1]["seat"] = o["plays"][0]["seat"]

    return edit(b, b.cont, f, r"^play 1: seat \d played but it is seat \d's turn")


@mutation("seat as text")
def _m(b: Base):
    return edit(b, b.cont, lambda o: o["plays"][0].update(seat="0"), "must be an integer")


@mutation("missing compulsory capture")
def _m(b: Base):
    i = first_capture(b.objs[b.cont])

    def f(o):
        o["plays"][i]["take"] = []

    return edit(b, b.cont, f, rf"^play {i}: .*not allowed")


@mutation("sum taken where a match exists")
def _m(b: Base):
    i, combo = b.sum_play

    def f(o):
        o["plays"][i]["take"] = combo

    return edit(b, b.sum_line, f, rf"^play {i}: .*not allowed")


@mutation("capture of a card not on the table")
def _m(b: Base):
    def f(o):
        o["plays"][0]["take"] = [seat_card(o, o["dealer"])]

    return edit(b, b.cont, f, r"^play 0: .*not on the table")


@mutation("capture of a card of another value")
def _m(b: Base):
    obj = b.objs[b.cont]
    i, p, table = next(
        (i, p, t)
        for i, p, t in plays_with_tables(obj)
        if len(p["take"]) == 1 and any(value_of(c) != value_of(parse_card(p["card"])) for c in t)
    )
    v = value_of(parse_card(p["card"]))
    other = next(RANKS[c % 10] + SUITS[c // 10] for c in table if value_of(c) != v)

    def f(o):
        o["plays"][i]["take"] = [other]

    return edit(b, b.cont, f, rf"^play {i}: .*not allowed")


@mutation("played card taking itself")
def _m(b: Base):
    def f(o):
        o["plays"][0]["take"] = [o["plays"][0]["card"]]

    return edit(b, b.cont, f, r"take itself|not on the table")


@mutation("extra play")
def _m(b: Base):
    return edit(b, b.cont, lambda o: o["plays"].append(dict(o["plays"][-1])), "already over")


@mutation("missing play")
def _m(b: Base):
    return edit(b, b.cont, lambda o: o["plays"].pop(), "unfinished")


@mutation("two plays swapped")
def _m(b: Base):
    def f(o):
        o["plays"][0], o["plays"][1] = o["plays"][1], o["plays"][0]

    return edit(b, b.cont, f, r"^play 0: seat")


@mutation("plays not a list")
def _m(b: Base):
    return edit(b, b.cont, lambda o: o.update(plays={}), "must be a list")


# -- score and totals
for _item in sorted(SCORE_FIELDS):

    @mutation(f"wrong score item {_item}")
    def _m(b: Base, item=_item):
        def f(o):
            o["score"][1][item] += 1

        return edit(b, b.cont, f, rf"score of side 1: {item} is")


@mutation("score item as text")
def _m(b: Base):
    return edit(
        b, b.cont, lambda o: o["score"][0].update(cards=str(o["score"][0]["cards"])), "cards is"
    )


@mutation("score item missing")
def _m(b: Base):
    return edit(b, b.cont, lambda o: o["score"][0].pop("primiera"), "primiera is None")


@mutation("score of one side missing")
def _m(b: Base):
    return edit(b, b.cont, lambda o: o["score"].pop(), "one entry per side")


@mutation("wrong total and totals_after together")
def _m(b: Base):
    def f(o):
        o["score"][0]["total"] += 1
        o["totals_after"][0] += 1

    # The next hand's totals_before then disagree too: not the only error.
    return edit(b, b.cont, f, "total is", only=False)


@mutation("wrong totals_after")
def _m(b: Base):
    # The next hand's totals_before then disagree as well: not the only error.
    return edit(
        b,
        b.cont,
        lambda o: o["totals_after"].__setitem__(0, o["totals_after"][0] + 1),
        "totals_after is",
        only=False,
    )


@mutation("wrong totals_before mid-match")
def _m(b: Base):
    return edit(
        b,
        b.cont,
        lambda o: o["totals_before"].__setitem__(1, o["totals_before"][1] + 1),
        "totals_before",
        only=False,
    )


@mutation("nonzero totals_before at a match start")
def _m(b: Base):
    return edit(
        b,
        b.first_of_match[1],
        lambda o: o["totals_before"].__setitem__(0, 1),
        "starts with totals 0",
        only=False,
    )


@mutation("totals with one side too many")
def _m(b: Base):
    return edit(b, b.cont, lambda o: o["totals_after"].append(0), "one per side", only=False)


# -- winner
@mutation("winner null on the last line")
def _m(b: Base):
    return edit(b, b.n - 1, lambda o: o.update(winner=None), "winner is None", only=False)


@mutation("winner on a middle line")
def _m(b: Base):
    return edit(
        b, b.middle, lambda o: o.update(winner=0), "winner is 0, the totals give None", only=False
    )


@mutation("the other side wins")
def _m(b: Base):
    return edit(b, b.n - 1, lambda o: o.update(winner=1 - o["winner"]), "winner is")


@mutation("winner true")
def _m(b: Base):
    return edit(
        b, b.n - 1, lambda o: o.update(winner=True), "winner must be a side number", only=False
    )


@mutation("winner missing")
def _m(b: Base):
    return edit(b, b.n - 1, lambda o: o.pop("winner"), "missing field 'winner'", only=False)


# -- dealer and numbering
@mutation("wrong dealer mid-match")
def _m(b: Base):
    return edit(
        b, b.cont, lambda o: o.update(dealer=(o["dealer"] + 1) % 2), "dealer should be", only=False
    )


@mutation("dealer out of range")
def _m(b: Base):
    return edit(b, b.first_of_match[0], lambda o: o.update(dealer=2), "not a seat", only=False)


@mutation("another first dealer")
def _m(b: Base):
    # The first dealer of a match is free, but the plays then start with the wrong seat.
    return edit(
        b,
        b.first_of_match[1],
        lambda o: o.update(dealer=1 - o["dealer"]),
        r"^play 0: seat",
        only=False,
    )


@mutation("wrong hand number")
def _m(b: Base):
    return edit(b, b.cont, lambda o: o.update(hand=o["hand"] + 1), "expected match", only=False)


@mutation("hand 0 mid-match")
def _m(b: Base):
    return edit(b, b.cont, lambda o: o.update(hand=0), "expected match", only=False)


@mutation("wrong match number mid-match")
def _m(b: Base):
    return edit(b, b.cont, lambda o: o.update(match=o["match"] + 1), "expected match", only=False)


@mutation("wrong match number at a match start")
def _m(b: Base):
    return edit(
        b, b.first_of_match[1], lambda o: o.update(match=5), "expected match 1 hand 0", only=False
    )


@mutation("match number as text")
def _m(b: Base):
    return edit(
        b, b.cont, lambda o: o.update(match=str(o["match"])), "must be an integer", only=False
    )


@mutation("a line dropped mid-file")
def _m(b: Base):
    lines = dumps(b.objs)
    del lines[b.cont]
    return lines, b.cont + 1, "expected match|totals_before|dealer", False


@mutation("a line repeated")
def _m(b: Base):
    lines = dumps(b.objs)
    lines.insert(b.cont, lines[b.cont])
    return lines, b.cont + 2, "expected match", False


# -- rules
# When a record's rules can't be read, the checker can't resync on that record's totals,
# so the next hand's totals_before is reported too: these mutations are not the only error.
@mutation("rules changed mid-match (last_play_scopa)")
def _m(b: Base):
    return edit(
        b, b.cont, lambda o: o["rules"].update(last_play_scopa=True), "rules changed", False
    )


@mutation("rules changed mid-match (target)")
def _m(b: Base):
    return edit(b, b.cont, lambda o: o["rules"].update(target=5), "rules changed", False)


@mutation("unknown rule option")
def _m(b: Base):
    return edit(
        b,
        b.cont,
        lambda o: o["rules"].update(colour="red"),
        "rules: unknown option 'colour'",
        False,
    )


@mutation("rule option missing")
def _m(b: Base):
    return edit(b, b.cont, lambda o: o["rules"].pop("sum_capture"), "'sum_capture'", False)


for _key, _val in [
    ("players", "two"),
    ("players", 5),
    ("deck", 52),
    ("hand_size", 0),
    ("kings_redeal", "yes"),
    ("kings_redeal", 1),
    ("capture_rule", "always"),
    ("target", 0),
    ("target", 4.0),
    ("teams", True),
]:

    @mutation(f"bad rule value {_key}={_val!r}")
    def _m(b: Base, key=_key, val=_val):
        return edit(b, b.cont, lambda o: o["rules"].update({key: val}), rf"rules: .*'{key}'", False)


@mutation("rules not an object")
def _m(b: Base):
    return edit(b, b.cont, lambda o: o.update(rules="scopa"), "rules", False)


# -- format and JSON
@mutation("format scopa-record/2")
def _m(b: Base):
    return edit(
        b, b.cont, lambda o: o.update(format="scopa-record/2"), "format is 'scopa-record/2'"
    )


@mutation("format missing")
def _m(b: Base):
    return edit(b, b.cont, lambda o: o.pop("format"), "format is None")


@mutation("truncated JSON line")
def _m(b: Base):
    lines = dumps(b.objs)
    lines[b.cont] = lines[b.cont][: len(lines[b.cont]) // 2]
    return lines, b.cont + 1, "malformed JSON", False


@mutation("truncated last line")
def _m(b: Base):
    lines = dumps(b.objs)
    lines[-1] = lines[-1][:-1]
    return lines, b.n, "malformed JSON", False


for _text in ["[1, 2]", "42", "null", '"scopa"', "true"]:

    @mutation(f"non-object JSON {_text}")
    def _m(b: Base, text=_text):
        lines = dumps(b.objs)
        lines[b.cont] = text
        return lines, b.cont + 1, "must be a JSON object", False


@mutation("blank line")
def _m(b: Base):
    lines = dumps(b.objs)
    lines.insert(b.cont, "")
    return lines, b.cont + 1, "empty line", False


@mutation("file ends inside a match")
def _m(b: Base):
    return dumps(b.objs)[:-1], b.n - 1, "ends inside a match", True


MUTATION_IDS = sorted(MUTATIONS)


@pytest.mark.parametrize("name", MUTATION_IDS)
def test_mutation_is_rejected_on_its_line(base: Base, name: str) -> None:
    lines, line, reason, only = MUTATIONS[name](base)
    summary = check_lines(lines)
    assert summary.errors, f"{name}: accepted"
    got_line, got_reason = summary.errors[0]
    assert got_line == line, summary.errors
    assert re.search(reason, got_reason), summary.errors
    if only:
        assert len(summary.errors) == 1, summary.errors
    # The same lines read from a text stream (as the CLI does) give the same errors.
    stream = io.StringIO("".join(x + "\n" for x in lines))
    assert check_lines(iter_lines(stream)).errors == summary.errors


def test_mutations_cover_the_brief() -> None:
    assert len(MUTATIONS) >= 60


def test_unknown_extra_fields_are_ignored(base: Base) -> None:
    objs = base.copy()
    for o in objs:
        o["comment"] = {"by": "someone", "note": [1, 2, 3]}
        o["plays"][0]["think_ms"] = 12
        o["deals"][0]["shuffle"] = "riffle"
        o["score"][0]["bonus"] = "none"
    summary = check_lines(dumps(objs))
    assert summary.errors == []
    assert summary.hands == base.n


def test_unfinished_file_is_accepted_only_on_request(base: Base) -> None:
    lines = dumps(base.objs)[:-1]
    assert check_lines(lines).errors == [
        (base.n - 1, "the file ends inside a match (the last hand has no winner)")
    ]
    summary = check_lines(lines, allow_unfinished=True)
    assert summary.errors == []
    assert summary.matches == 3 and summary.finished_matches == 2


def test_empty_file_is_rejected() -> None:
    summary = check_lines([])
    assert summary.errors == [(0, "the file holds no records")]
    assert check_lines(io.StringIO("")).errors == summary.errors
    # blank lines at the end are accepted (issue 25), so a file of blank lines holds none
    assert check_lines(["", "  "]).errors == [(0, "the file holds no records")]


def test_summary_counts(base: Base) -> None:
    summary = check_lines(dumps(base.objs))
    assert summary.ok
    assert summary.hands == summary.lines == base.n
    assert summary.matches == summary.finished_matches == 3
    assert sum(summary.wins.values()) == 3
    assert summary.plays == sum(len(o["plays"]) for o in base.objs)
    assert summary.scope == sum(s["scope"] for o in base.objs for s in o["score"])


def test_errors_on_several_lines_are_all_reported(base: Base) -> None:
    objs = base.copy()
    objs[0]["plays"][0]["seat"] = 1 - objs[0]["plays"][0]["seat"]
    objs[base.cont]["score"][0]["denari"] += 1
    errors = check_lines(dumps(objs)).errors
    assert [line for line, _ in errors] == [1, base.cont + 1]


# --------------------------------------------------------------------------- kings redeal
def kings_table_record(rules: Rules) -> dict[str, Any]:
    """A hand whose table holds three kings, played out with the first legal play."""
    kings = [parse_card(k) for k in ("KD", "KH", "KC")]
    rest = [c for c in range(40) if c not in kings]
    order = [*kings, *rest]  # table = the first table_cards cards
    state = HandState.deal(rules, dealer=0, deck=order)
    assert {*kings} <= set(state.table)
    plays = []
    while not state.is_over:
        seat, p = state.turn, state.legal_plays[0]
        state.push(p)
        plays.append((seat, p.card, p.take))
    score = state.score_array()
    totals = tuple(int(x) for x in score[:, -1])
    log = HandLog(
        match=0,
        hand=0,
        dealer=0,
        deck=tuple(order),
        plays=tuple(plays),
        score=tuple(tuple(int(x) for x in row) for row in score),
        piles=tuple(p.mask for p in state.piles),
        totals_before=(0,) * rules.sides,
        totals_after=totals,
        winner=None,
    )
    return hand_record(rules, log)


def test_kings_redeal_violation_is_rejected() -> None:
    lax = Rules.make("scopa", ["kings_redeal=false", "target=99"])
    obj = kings_table_record(lax)
    assert {"KC", "KD", "KH"} <= set(obj["deals"][0]["table"])
    ok = check_lines([json.dumps(obj)], allow_unfinished=True)
    assert ok.errors == []
    # The very same hand under kings_redeal=true: that deal should have been redealt.
    obj["rules"]["kings_redeal"] = True
    summary = check_lines([json.dumps(obj)], allow_unfinished=True)
    assert len(summary.errors) == 1
    line, reason = summary.errors[0]
    assert line == 1 and "kings" in reason


def test_from_deals_rejects_three_kings_on_the_table() -> None:
    strict = Rules.make("scopa")
    table = [parse_card(c) for c in ("KD", "KH", "KS", "AD")]
    rest = [c for c in range(40) if c not in table]
    deals = [[rest[i : i + 3], rest[i + 3 : i + 6]] for i in range(0, 36, 6)]
    with pytest.raises(RecordError, match="kings"):
        HandState.from_deals(strict, 1, table, deals)
    four = [parse_card(c) for c in ("KD", "KH", "KS", "KC")]
    rest4 = [c for c in range(40) if c not in four]
    deals4 = [[rest4[i : i + 3], rest4[i + 3 : i + 6]] for i in range(0, 36, 6)]
    with pytest.raises(RecordError, match="kings"):
        HandState.from_deals(strict, 1, four, deals4)
    # Two kings are fine, and so are three without the rule.
    HandState.from_deals(Rules.make("scopa", ["kings_redeal=false"]), 1, table, deals)
    two = [parse_card(c) for c in ("KD", "KH", "AS", "AD")]
    rest2 = [c for c in range(40) if c not in two]
    deals2 = [[rest2[i : i + 3], rest2[i + 3 : i + 6]] for i in range(0, 36, 6)]
    HandState.from_deals(strict, 1, two, deals2)


def test_deeply_nested_json_is_an_error_not_a_crash(base: Base) -> None:
    lines = dumps(base.objs)
    lines[0] = "[" * 100_000 + "]" * 100_000
    summary = check_lines(lines)
    assert summary.errors[0] == (1, "malformed JSON: nested too deeply")


# Regressions: records that do not describe a hand dealt and played by the rules, once
# accepted by the checker.
def test_extra_empty_deal_is_rejected(base: Base) -> None:
    objs = base.copy()
    objs[base.cont]["deals"].append({"hands": [[], []]})
    assert check_lines(dumps(objs)).errors


def test_card_repeated_in_take_is_rejected(base: Base) -> None:
    objs = base.copy()
    play = objs[base.cont]["plays"][first_capture(objs[base.cont])]
    play["take"].append(play["take"][0])
    assert check_lines(dumps(objs)).errors


def test_float_winner_is_rejected(base: Base) -> None:
    objs = base.copy()
    last = len(objs) - 1
    objs[last]["winner"] = float(objs[last]["winner"])
    assert check_lines(dumps(objs)).errors[0] == (
        last + 1,
        f"winner must be a side number or null, got {objs[last]['winner']!r}",
    )


# --------------------------------------------------------------------------- RULES.md §9
# The `opening` field (RECORD.md): written when opening_fifteen took the first table,
# absent or [] otherwise, and checked against what the rules take.
OPENING_TABLES = {"one": ("AD 2C 5H 7S", 1), "two": ("KD 5C KS 5H", 2), "stays": ("KD QC KS AH", 0)}


def crafted_record(
    rules: Rules, table: str, dealer: int = 1, hand: int = 0, before: tuple[int, ...] = ()
) -> dict[str, Any]:
    """A hand whose first table is ``table`` (the rest of the deck in card order), played
    out with the first legal play, as the record of hand ``hand`` of match 0 with the
    totals ``before`` it (a match that goes on: winner null)."""
    first = [parse_card(c) for c in table.split()]
    order = [*first, *(c for c in range(40) if c not in first)]
    state = HandState.deal(rules, dealer=dealer, deck=order)
    plays = []
    while not state.is_over:
        seat, p = state.turn, state.legal_plays[0]
        state.push(p)
        plays.append((seat, p.card, p.take))
    score = state.score_array()
    before = before or (0,) * rules.sides
    log = HandLog(
        match=0,
        hand=hand,
        dealer=dealer,
        deck=tuple(order),
        plays=tuple(plays),
        score=tuple(tuple(int(x) for x in row) for row in score),
        piles=tuple(p.mask for p in state.piles),
        totals_before=before,
        totals_after=tuple(b + int(x) for b, x in zip(before, score[:, -1], strict=True)),
        winner=None,
    )
    return hand_record(rules, log)


ESCOBA_99 = Rules.make("escoba", ["target=99"])


def errors_of(obj: dict[str, Any]) -> list[tuple[int, str]]:
    return check_lines([json.dumps(obj)], allow_unfinished=True).errors


@pytest.mark.parametrize("name", sorted(OPENING_TABLES))
@pytest.mark.parametrize("dealer", [0, 1])
def test_opening_is_written_exactly_when_taken(name: str, dealer: int) -> None:
    table, scope = OPENING_TABLES[name]
    obj = crafted_record(ESCOBA_99, table, dealer)
    assert errors_of(obj) == []
    if scope:
        assert obj["opening"] == table.split()  # the whole first table, in its dealt order
        assert list(obj).index("opening") == list(obj).index("deals") + 1
    else:
        assert "opening" not in obj
    # the opening's scope are the dealer side's, who is then the last capturer
    state = hand_states(obj)
    assert state.opening == CardSet.parse(table if scope else "")
    assert state.scope[dealer] == scope and state.scope[1 - dealer] == 0
    assert obj["score"][dealer]["scope"] >= scope
    if scope:
        assert state.last_capturer == dealer and not state.table


def test_opening_absent_or_empty_without_a_take() -> None:
    obj = crafted_record(ESCOBA_99, OPENING_TABLES["stays"][0])
    assert errors_of({**obj, "opening": []}) == []
    plain = crafted_record(Rules.make("scopa-15", ["target=99"]), "AD 2C 5H 7S")
    assert "opening" not in plain  # no opening_fifteen: the table of fifteen stays
    assert errors_of({**plain, "opening": []}) == []


@pytest.mark.parametrize(
    ("table", "change", "reason"),
    [
        ("one", lambda o: o.pop("opening"), r"^opening is missing: .*\[AD 5H 2C 7S\]"),
        ("two", lambda o: o.update(opening=[]), r"^opening is missing: .*opening_fifteen=true"),
        ("one", lambda o: o.update(opening=["AD", "2C"]), r"^opening is \[AD 2C\], the rules"),
        ("two", lambda o: o.update(opening=["KD", "5C", "KS", "5D"]), r"^opening is \["),
        ("stays", lambda o: o.update(opening=["KD", "QC", "KS", "AH"]), "is not taken"),
        ("one", lambda o: o.update(opening="AD 2C 5H 7S"), "^opening must be a list"),
        ("one", lambda o: o.update(opening=None), "^opening must be a list"),
        ("one", lambda o: o.update(opening=["AD", "2C", "5H", "7S", "AD"]), "listed twice"),
        ("one", lambda o: o.update(opening=["AD", "2C", "5H", "8S"]), "8S"),
        ("one", lambda o: o.update(opening=["AD", 2, "5H", "7S"]), "not a card"),
    ],
)
def test_wrong_or_missing_opening_is_rejected(
    table: str, change: Callable[[dict[str, Any]], object], reason: str
) -> None:
    obj = crafted_record(ESCOBA_99, OPENING_TABLES[table][0])
    change(obj)
    errors = errors_of(obj)
    assert len(errors) == 1 and errors[0][0] == 1, errors
    assert re.search(reason, errors[0][1]), errors
    with pytest.raises((RecordError, ValueError)):
        show_hand(obj)


def test_opening_without_opening_fifteen_is_rejected() -> None:
    obj = crafted_record(Rules.make("scopa-15", ["target=99"]), "AD 2C 5H 7S")
    obj["opening"] = ["AD", "2C", "5H", "7S"]
    assert errors_of(obj) == [
        (1, "opening is [AD 5H 2C 7S] but the rules have opening_fifteen=false")
    ]


def test_records_of_before_section_9_read_with_the_defaults(base: Base) -> None:
    objs = base.copy()
    for o in objs:
        for key in ("capture_mode", "capture_compulsory", "opening_fifteen"):
            del o["rules"][key]
    summary = check_lines(dumps(objs))
    assert summary.errors == [] and summary.hands == base.n
    assert show_hand(objs[0]) == show_hand(base.objs[0])
    # a record of scopa rules is written with every option, the §9 ones included
    assert base.objs[0]["rules"] == Rules.make("scopa", ["target=4"]).complete_dict()
    # but a rules object of before §9 lacking another option is still refused
    del objs[0]["rules"]["target"]
    assert check_lines(dumps(objs)).errors[0] == (1, "rules: rules lack option 'target'")


def test_show_hand_shows_the_opening_take() -> None:
    one = show_hand(crafted_record(ESCOBA_99, OPENING_TABLES["one"][0], dealer=1))
    assert one[2].startswith("deal 1:")
    assert one[3] == (
        "opening: the table makes fifteen, side 1 (the dealer's) takes AD 5H 2C 7S SCOPA"
    )
    assert "table [" in one[4]  # then the plays, from an empty table
    two = show_hand(crafted_record(ESCOBA_99, OPENING_TABLES["two"][0], dealer=0))
    assert two[3] == (
        "opening: the table makes two fifteens, side 0 (the dealer's) takes KD 5H 5C KS SCOPA x2"
    )
    stays = show_hand(crafted_record(ESCOBA_99, OPENING_TABLES["stays"][0]))
    assert not any(line.startswith("opening") for line in stays)
    teams = Rules.make("escoba", ["players=4", "target=99"])
    four = show_hand(crafted_record(teams, OPENING_TABLES["one"][0], dealer=3))
    assert any(line.startswith("opening: the table makes fifteen, team 1 ") for line in four)


def test_escoba_records_of_played_matches_hold_their_openings() -> None:
    """Whole matches of escoba: every written opening is the reference's, and the file
    checks; some hand of the run has an opening (it is not rare: about 1 in 30)."""
    rules = Rules.make("escoba", ["target=11"])
    lines = write(rules, seed=5, matches=3, policies=["random"]).splitlines()
    assert check_lines(lines).errors == []
    openings = 0
    for line in lines:
        obj = json.loads(line)
        table = [parse_card(c) for c in obj["deals"][0]["table"]]
        taken, _ = ref.opening_take(table, obj["rules"])
        assert CardSet.parse(obj.get("opening", [])) == CardSet(taken)
        openings += bool(taken)
    assert openings >= 1


# The command line: `replay` rejects a wrong opening in one line with status 1;
# `replay --show`, `play` and `advise` show the opening take.
def cli_run(*args: str, input: str | None = None) -> Any:
    from click.testing import CliRunner
    from scopa_sim_cli.main import cli

    res = CliRunner().invoke(cli, list(args), input=input, prog_name="scopa-sim")
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exc_info
    assert "Traceback" not in res.output
    return res


def test_replay_reports_a_missing_opening_on_its_line(tmp_path: Any) -> None:
    good = crafted_record(ESCOBA_99, "KD QC KS AH", dealer=1)
    bad = crafted_record(ESCOBA_99, "KD 5C KS 5H", 0, 1, tuple(good["totals_after"]))
    assert check_lines(dumps([good, bad]), allow_unfinished=True).errors == []
    del bad["opening"]
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    res = cli_run("replay", str(path), "--allow-unfinished")
    assert res.exit_code == 1
    assert res.stdout.splitlines() == [
        "line 2: opening is missing: the dealer's side takes the first table [KD 5H 5C KS] "
        "at the opening (opening_fifteen=true)"
    ]
    shown = cli_run("replay", str(path), "--show", "2")
    assert shown.exit_code == 1
    assert shown.output.strip().splitlines()[-1].startswith("Error: line 2: opening is missing")
    assert len(shown.output.strip().splitlines()) == 1


def test_replay_show_and_play_show_the_opening(tmp_path: Any) -> None:
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(crafted_record(ESCOBA_99, "AD 2C 5H 7S")) + "\n")
    res = cli_run("replay", str(path), "--allow-unfinished")
    assert res.exit_code == 0 and res.stdout.startswith("valid: 1 hand in")
    shown = cli_run("replay", str(path), "--show")
    assert shown.exit_code == 0
    assert "opening: the table makes fifteen, side 1 (the dealer's) takes AD 5H 2C 7S SCOPA" in (
        shown.stdout
    )
    rec = tmp_path / "escoba.jsonl"
    played = cli_run(
        "play", "--preset", "escoba", "--seed", "5", "--matches", "3", "--record", str(rec)
    )
    assert played.exit_code == 0
    lines = rec.read_text().splitlines()
    taken = sum("opening" in json.loads(x) for x in lines)
    assert f"opening takes: {taken} of {len(lines)} hands" in played.stdout
    assert cli_run("replay", str(rec)).exit_code == 0
    plain = cli_run("play", "--preset", "scopa-15", "--seed", "5")
    assert plain.exit_code == 0 and "opening takes" not in plain.stdout


def test_advise_from_a_record_shows_the_opening(tmp_path: Any) -> None:
    path = tmp_path / "two.jsonl"
    path.write_text(json.dumps(crafted_record(ESCOBA_99, "KD 5C KS 5H", dealer=1)) + "\n")
    res = cli_run("advise", "--position", f"{path}:1:0", "--policy", "ismcts:iterations=20")
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[1] == (
        "opening: the table makes two fifteens, side 1 (the dealer's) takes KD 5H 5C KS SCOPA x2"
    )
    assert "scope [0, 2]" in lines[0]


def test_advise_accepts_the_dealers_opening_scope() -> None:
    """At the start of a hand the other side (the dealer's, seat 1) may have two scope
    from the opening with no play made, under opening_fifteen only."""
    from scopa_sim.bots.advise import PositionError, position_from_cards

    hand, table = CardSet.parse("AS 2S 3S"), CardSet.parse("")
    theirs = CardSet.parse("KD 5C KS 5H")
    state = position_from_cards(
        Rules.make("escoba"), hand, table, theirs=theirs, scope=(0, 2), opponent_cards=3
    )
    assert state.scope == [0, 2]
    with pytest.raises(PositionError, match="at most 0"):
        position_from_cards(
            Rules.make("scopa-15"), hand, table, theirs=theirs, scope=(0, 2), opponent_cards=3
        )
    with pytest.raises(PositionError, match="at most 2"):
        position_from_cards(
            Rules.make("escoba"), hand, table, theirs=theirs, scope=(0, 3), opponent_cards=3
        )


# --------------------------------------------------------------------------- decoding
@pytest.mark.parametrize("preset", ["scopa", "scopa-3", "scopone", "escoba"])
def test_decode_hand_is_the_position_of_every_play(preset: str, tmp_path) -> None:
    """The one decoder (``advise --position``, ``review``): the state at the deal, with the
    match totals before the hand, and the plays that the checker makes, in order; every
    prefix of them is the position ``position_from_record`` gives."""
    from scopa_sim.records.record import decode_hand, position_from_record

    rules = Rules.make(preset)
    text = write(rules, 11, matches=1, policies=["greedy"])
    path = tmp_path / "r.jsonl"
    path.write_text(text)
    for line, record in enumerate(text.splitlines(), start=1):
        obj = json.loads(record)
        state, plays = decode_hand(obj)
        assert state.rules == rules and state.dealer == obj["dealer"]
        assert list(state.match_totals) == obj["totals_before"] and state.plays_made == 0
        assert plays == [
            Play(parse_card(p["card"]), CardSet([parse_card(c) for c in p["take"]]).mask)
            for p in obj["plays"]
        ]
        for k, play in enumerate(plays):
            if k in (0, len(plays) // 2, len(plays) - 1):
                here = position_from_record(f"{path}:{line}:{k}")
                assert here.plays_made == k and here.match_totals == state.match_totals
                assert (here.turn, here.hands, here.table, here.piles, here.scope) == (
                    state.turn, state.hands, state.table, state.piles, state.scope
                )  # fmt: skip
            state.push(play)  # legal: the checker made the same plays
        assert state.is_over
        assert [s["total"] for s in state.score()] == [s["total"] for s in obj["score"]]


def test_decode_hand_names_the_bad_field() -> None:
    """A malformed record is a RecordError naming what is wrong, as the checker says it."""
    from scopa_sim.records.record import decode_hand

    obj = json.loads(write(Rules.make("scopa"), 3, matches=1, policies=["random"]).splitlines()[0])
    for broken, message in [
        ({**obj, "plays": [{"card": 7, "take": []}]}, "play 0: missing or malformed 'card'"),
        ({**obj, "plays": [{"card": "7D", "take": ["7D", "7D"]}]}, "listed twice"),
        ({**obj, "deals": []}, "deals is empty"),
        ({k: v for k, v in obj.items() if k != "rules"}, "missing field 'rules'"),
        ({**obj, "totals_before": [0]}, "one per side"),
    ]:
        with pytest.raises(RecordError, match=re.escape(message)):
            decode_hand(broken)
