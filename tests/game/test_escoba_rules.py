"""The Escoba readings as rule options (docs/rules.md §5 and §9; issue 25, item 2): who
takes an opening fifteen (``opening_fifteen_to``), the setenta as most sevens
(``primiera=escoba_sevens``) and the four-sevens point (``four_sevens_point``).

Validation and one-line errors, the identity of rule sets that leave them alone, the
worked examples 9-11 on the engine and on the reference, the fused loop's rows, game
records through ``replay`` and the reference, every policy playing them, and the
expert's heuristic reading them. The decision-by-decision and whole-hand cross-checks
against tests/reference.py run in tests/engine/test_crosscheck.py (its ``RULESETS``)."""

from __future__ import annotations

import io
import json
import random
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import reference as ref  # tests/ is on sys.path (pyproject: pythonpath)
from click.testing import CliRunner
from scopa_sim_cli.main import cli

from scopa_sim import CardSet, Play, Rules
from scopa_sim import _engine as K
from scopa_sim.bots.registry import seat_policies
from scopa_sim.errors import RecordError, RulesError
from scopa_sim.game.rules import KERNEL_PRESETS
from scopa_sim.game.state import HandState
from scopa_sim.records.record import check_lines, show_hand, write_records
from scopa_sim.sim.match import play_match

P = CardSet.parse
READING_OPTIONS = ("opening_fifteen_to", "four_sevens_point")
#: Rule sets with the readings on (each an Escoba reading, alone or together, and in
#: the Scopa capture mode and with more sides).
READINGS = [
    ("escoba", ("opening_fifteen_to=first_player",)),
    ("escoba", ("primiera=escoba_sevens",)),
    ("escoba", ("four_sevens_point=true",)),
    ("escoba", ("opening_fifteen_to=first_player", "primiera=escoba_sevens",
                "four_sevens_point=true", "target=21")),
    ("escoba", ("opening_fifteen_to=first_player", "players=4")),
    ("scopa", ("primiera=escoba_sevens", "four_sevens_point=true")),
    ("scopa-3", ("primiera=escoba_sevens", "four_sevens_point=true")),
]  # fmt: skip
IDS = [" ".join((p, *o)) for p, o in READINGS]


def make(preset: str, overrides: tuple[str, ...] | list[str] = ()) -> Rules:
    return Rules.make(preset, list(overrides))


# --------------------------------------------------------------------------- validation
@pytest.mark.parametrize(
    ("rule", "option", "allowed"),
    [
        ("opening_fifteen_to=mano", "'opening_fifteen_to'", "allowed: dealer, first_player"),
        ("opening_fifteen_to=", "'opening_fifteen_to'", "allowed: dealer, first_player"),
        ("primiera=setenta", "'primiera'", "allowed: classic, sevens, escoba_sevens"),
        ("four_sevens_point=yes", "'four_sevens_point'", "allowed: true, false"),
    ],
)
def test_bad_values_are_one_line_errors(rule: str, option: str, allowed: str) -> None:
    with pytest.raises(RulesError) as err:
        make("escoba", [rule])
    msg = str(err.value)
    assert option in msg and allowed in msg and "\n" not in msg
    res = CliRunner().invoke(cli, ["variants", "escoba", "--rule", rule], prog_name="scopa-sim")
    assert res.exit_code not in (0, None) and "Traceback" not in res.output
    lines = [ln for ln in res.output.strip().splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: ") and option in lines[0], res.output


def test_typed_values_are_checked_on_construction() -> None:
    for field, bad in [("opening_fifteen_to", "mano"), ("four_sevens_point", 1),
                       ("primiera", "escoba")]:  # fmt: skip
        with pytest.raises(RulesError, match=f"'{field}'"):
            Rules(**{field: bad})  # type: ignore[arg-type]
        with pytest.raises(RulesError, match=f"'{field}'"):
            Rules.from_dict({**Rules().complete_dict(), field: bad})


def test_no_invalid_combination_options_without_effect_are_recorded() -> None:
    """RULES.md §6: ``opening_fifteen_to`` without ``opening_fifteen`` is accepted and
    recorded as given; the setenta reading and the four-sevens point are scoring readings,
    allowed in both capture modes (the explicit choice of docs/rules.md §9)."""
    r = make("scopa", ["opening_fifteen_to=first_player"])
    assert r.opening_fifteen_to == "first_player" and not r.opening_fifteen
    assert r.complete_dict()["opening_fifteen_to"] == "first_player"
    assert r.digest() != make("scopa").digest()
    assert make("scopa", ["primiera=escoba_sevens"]).capture_mode == "scopa"
    assert make("scopone", ["four_sevens_point=true", "deck=40"]).four_sevens_point
    assert make("scopa-36", ["four_sevens_point=true"]).four_sevens_point  # 36 cards: 4 sevens


# --------------------------------------------------------------------------- identity
@pytest.mark.parametrize("preset", list(KERNEL_PRESETS))
def test_defaults_leave_records_and_identity_alone(preset: str) -> None:
    rules = make(preset)
    assert not set(READING_OPTIONS) & set(rules.complete_dict())
    assert not set(READING_OPTIONS) & set(rules.as_dict())
    same = make(preset, ["opening_fifteen_to=dealer", "four_sevens_point=false"])
    assert same == rules and same.digest() == rules.digest()
    assert list(rules.to_array()[: K.R_OPENING_FIRST]) == list(same.to_array()[: K.R_OPENING_FIRST])


@pytest.mark.parametrize(("preset", "overrides"), READINGS, ids=IDS)
def test_readings_enter_the_identity_and_read_back(preset: str, overrides: tuple[str, ...]):
    rules = make(preset, overrides)
    assert rules.digest() != make(preset).digest()
    assert Rules.from_dict(rules.complete_dict()) == rules
    assert Rules.from_dict(rules.as_dict()) == rules
    assert Rules.from_dict(json.loads(json.dumps(rules.complete_dict()))) == rules


def test_the_kernel_vector() -> None:
    r = make("escoba", ["opening_fifteen_to=first_player", "four_sevens_point=true",
                        "primiera=escoba_sevens"]).to_array()  # fmt: skip
    assert (r[K.R_OPENING_FIRST], r[K.R_FOUR_SEVENS]) == (1, 1)
    assert r[K.R_PRIMIERA_SEVENS] == K.PRIMIERA_ESCOBA
    assert make("scopa-corsa").to_array()[K.R_PRIMIERA_SEVENS] == K.PRIMIERA_SEVENS
    assert make("scopa").to_array()[K.R_PRIMIERA_SEVENS] == K.PRIMIERA_CLASSIC


# --------------------------------------------------------------------------- worked examples
def deck_with_table(table: str, seed: int = 0) -> list[int]:
    first = P(table).cards()
    rest = [c for c in range(40) if c not in first]
    random.Random(seed).shuffle(rest)
    return [*first, *rest]


@pytest.mark.parametrize(("players", "dealer"), [(2, 1), (2, 0), (3, 2), (4, 3), (4, 0)])
def test_worked_example_9_the_first_player_takes_the_opening(players: int, dealer: int) -> None:
    """docs/rules.md example 9: the opening fifteen to the first player's side, who scores
    its scopa and is the last capturer; the engine and the reference agree."""
    for table, scope in [("AD 2C 5H 7S", 1), ("KD 5C KS 5H", 2), ("KD QC KS AH", 0)]:
        rules = make("escoba", [f"players={players}", "opening_fifteen_to=first_player"])
        deck = deck_with_table(table)
        state = HandState.deal(rules, dealer=dealer, deck=deck)
        first = (dealer + 1) % players
        side = rules.side_of(first)
        assert state.turn == first and rules.opening_seat(dealer) == first
        assert state.opening == (P(table) if scope else CardSet())
        assert state.scope[side] == scope and sum(state.scope) == scope
        if scope:
            assert state.piles[side] == P(table) and state.last_capturer == side
            if rules.side_of(dealer) != side:
                assert not state.piles[rules.side_of(dealer)]
        res = ref.play_hand(rules.complete_dict(), deck, dealer, lambda legal, info: 0)
        assert res["opening"] == frozenset(state.opening) and res["opening_scope"] == scope


def test_worked_example_9_needs_opening_fifteen() -> None:
    rules = make("scopa-15", ["opening_fifteen_to=first_player"])
    state = HandState.deal(rules, dealer=1, deck=deck_with_table("AD 2C 5H 7S"))
    assert state.opening == CardSet() and state.table == P("AD 2C 5H 7S")
    assert state.scope == [0, 0] and state.last_capturer is None


def score(rules: Rules, *piles: str) -> list[dict[str, int]]:
    masks = np.zeros(4, dtype=np.int64)
    for s, p in enumerate(piles):
        masks[s] = P(p).mask
    out = np.zeros((4, K.N_ITEMS), dtype=np.int64)
    K.score_piles(rules.to_array(), masks, np.zeros(4, dtype=np.int64), out)
    from scopa_sim.game.state import score_dicts

    got = score_dicts(rules, out[: len(piles)])
    assert got == ref.score_hand([set(P(p)) for p in piles], [0] * len(piles), rules.as_dict())
    return got


def test_worked_example_10_a_setenta_decided_by_aces() -> None:
    a, b = "7D 7C 6H AS AC", "7H 7S 6D AD 5C 5H 5S"
    escoba = score(make("escoba", ["primiera=escoba_sevens"]), a, b)
    assert [s["primiera"] for s in escoba] == [1, 0]
    sevens = score(make("escoba", ["primiera=sevens"]), a, b)
    assert [s["primiera"] for s in sevens] == [0, 1]  # the fives decide it
    # still tied after the fives (and the order of escoba_sevens stops there): nobody
    tied = score(make("escoba", ["primiera=escoba_sevens"]), "7D 6H AS 5C 4H", "7H 6D AD 5H")
    assert [s["primiera"] for s in tied] == [0, 0]
    assert [s["primiera"] for s in score(make("scopa-corsa"), "7D 6H AS 5C 4H",
                                         "7H 6D AD 5H")] == [1, 0]  # fmt: skip
    # three sides: only the sides still tied go on (the third has fewer sevens)
    three = score(make("scopa-3", ["primiera=escoba_sevens"]), "7D 6H 5C 5D 5H",
                  "7H 6D AD", "7C 6C AC AH")  # fmt: skip
    assert [s["primiera"] for s in three] == [0, 0, 1]


def test_worked_example_11_the_four_sevens_point() -> None:
    rules = make("escoba", ["four_sevens_point=true"])
    got = score(rules, "7D 7H 7C 7S", "AD 2C")
    assert got[0]["four_sevens"] == 1 and got[0]["settebello"] == 1 and got[1]["four_sevens"] == 0
    assert got[0]["total"] == sum(v for k, v in got[0].items() if k != "total")
    assert [s["four_sevens"] for s in score(rules, "7D 7H 7C", "7S")] == [0, 0]
    assert "four_sevens" not in score(make("escoba"), "7D 7H 7C 7S", "AD")[0]


# --------------------------------------------------------------------------- the fused loop
@pytest.mark.parametrize(("preset", "overrides"), READINGS, ids=IDS)
def test_fused_rows_hold_the_items(preset: str, overrides: tuple[str, ...]) -> None:
    """The fused loop's rows (what simulate writes): the four-sevens item is 1 exactly
    for the side whose sevens stat is 4 under the option, and the items add up to the
    points; the points equal the step kernels' (tests/engine/test_crosscheck.py checks these
    against the reference)."""
    rules = make(preset, overrides)
    r = rules.to_array()
    n = 2000
    points = np.zeros((n, 4), dtype=np.int64)
    cols = np.zeros((K.N_ROW_COLS, n), dtype=np.int32)
    policies = np.array([K.POLICY_EXPERT, K.POLICY_GREEDY, K.POLICY_RANDOM, K.POLICY_EXPERT])
    K.fused_kernel(r)(r, policies, K.NO_MODEL, 5, 0, n, K.MODE_HANDS, points, cols)
    seen = 0
    for s in range(rules.sides):
        items = cols[K.C_ITEMS + s * K.N_ITEMS : K.C_ITEMS + (s + 1) * K.N_ITEMS]
        four = items[K.I_FOUR_SEVENS]
        sevens = cols[K.C_STATS + 4 * s + 3]
        assert (four == ((sevens == 4) & rules.four_sevens_point)).all()
        assert (items[: K.I_TOTAL].sum(axis=0) == items[K.I_TOTAL]).all()
        assert (items[K.I_TOTAL] == points[:, s]).all()
        seen += int(four.sum())
    assert (seen > 0) == rules.four_sevens_point


# --------------------------------------------------------------------------- records
def record_text(rules: Rules, policies: list[str], seed: int = 3, matches: int = 2) -> str:
    specs = seat_policies(policies, rules.players)
    out = io.StringIO()
    for m in range(matches):
        write_records(out, rules, play_match(rules, specs, seed, m))
    return out.getvalue()


@pytest.mark.parametrize(("preset", "overrides"), READINGS, ids=IDS)
@pytest.mark.parametrize("policy", ["random", "greedy", "expert"])
def test_records_replay_and_match_the_reference(
    preset: str, overrides: tuple[str, ...], policy: str
) -> None:
    """Records of every kernel policy under the readings: replay finds them legal and
    scored right, and the reference, replaying each hand's plays from its deck, gives
    the same opening and score."""
    rules = make(preset, overrides).replace(target=6)
    lines = record_text(rules, [policy]).splitlines()
    summary = check_lines(lines)
    assert summary.errors == [] and summary.finished_matches == 2
    rd = rules.complete_dict()
    for line in lines:
        obj = json.loads(line)
        assert Rules.from_dict(obj["rules"]) == rules
        for opt in READING_OPTIONS:
            assert (opt in obj["rules"]) == (getattr(rules, opt) != getattr(Rules(), opt))
        for s in obj["score"]:
            assert ("four_sevens" in s) == rules.four_sevens_point
        deck = [CardSet.parse(c).cards()[0] for c in obj["deals"][0]["table"]]
        for d in obj["deals"]:
            for j in range(rules.players):
                seat = (obj["dealer"] + 1 + j) % rules.players
                deck += [CardSet.parse(c).cards()[0] for c in d["hands"][seat]]
        plays = iter(obj["plays"])

        def choose(
            legal: list[tuple[int, frozenset[int]]], info: dict, plays: Iterator[dict] = plays
        ) -> int:
            p = next(plays)
            want = (CardSet.parse(p["card"]).cards()[0], frozenset(P(" ".join(p["take"]))))
            return legal.index(want)

        res = ref.play_hand(rd, deck, obj["dealer"], choose)
        assert res["score"] == obj["score"]
        assert res["opening"] == frozenset(P(" ".join(obj.get("opening", []))))


def test_replay_show_names_the_taker_and_the_item() -> None:
    rules = make("escoba", ["opening_fifteen_to=first_player", "four_sevens_point=true"])
    lines = record_text(rules, ["expert"], seed=1, matches=6).splitlines()
    opened = [json.loads(x) for x in lines if "opening" in json.loads(x)]
    four = [json.loads(x) for x in lines if any(s["four_sevens"] for s in json.loads(x)["score"])]
    assert opened and four
    text = "\n".join(show_hand(opened[0]))
    first = (opened[0]["dealer"] + 1) % 2
    assert f"side {first} (the first player's) takes" in text
    assert "four_sevens 1" in "\n".join(show_hand(four[0]))
    # the record's opening must be the first player's take: a changed dealer breaks it
    bad = dict(opened[0], rules={**opened[0]["rules"], "opening_fifteen_to": "dealer"})
    with pytest.raises(RecordError, match="score of side"):
        show_hand(bad)  # checks the hand on its own


# --------------------------------------------------------------------------- policies
@pytest.mark.parametrize(
    "policy", ["pimc:worlds=2,depth=2", "ismcts:iterations=30", "solver:depth=2", "eval:worlds=2"]
)
def test_search_policies_play_the_readings_legally(policy: str) -> None:
    rules = make("escoba", ["opening_fifteen_to=first_player", "primiera=escoba_sevens",
                            "four_sevens_point=true", "target=2"])  # fmt: skip
    lines = record_text(rules, [policy], seed=4, matches=1).splitlines()
    assert check_lines(lines).errors == []


def test_expert_values_the_aces_under_escoba_sevens() -> None:
    """With sevens and sixes even, an ace is worth something to the expert only under
    the Escoba setenta (its third tie-break); a five is worth nothing for the primiera
    under either reading, and a seven more than a six more than an ace."""
    ace, five, six, seven = (P(c).mask for c in ("AS", "5S", "6S", "7S"))
    pm, po = P("7D 6D").mask, P("7H 6H").mask
    for primiera, aces_count in [("escoba_sevens", True), ("sevens", False), ("classic", False)]:
        x = int(K.expert_flags(make("escoba", [f"primiera={primiera}"]).to_array()))
        base = K.expert_eval(pm, po, 0, 40, x)

        def gain(card: int, x: int = x, base: float = base) -> float:
            return (
                K.expert_eval(pm | card, po, 0, 40, x)
                - base
                - (
                    K.expert_eval(pm | P("2S").mask, po, 0, 40, x) - base  # a card's own worth
                )
            )

        assert (gain(ace) > 0.01) == aces_count
        assert abs(gain(five)) < 1e-12
        assert gain(seven) > gain(six) > gain(ace) >= 0


def test_expert_values_the_four_sevens() -> None:
    on = int(K.expert_flags(make("escoba", ["four_sevens_point=true"]).to_array()))
    off = int(K.expert_flags(make("escoba").to_array()))
    three, four = P("7D 7H 7C").mask, P("7D 7H 7C 7S").mask
    d_on = K.expert_eval(four, 0, 0, 40, on) - K.expert_eval(three, 0, 0, 40, on)
    d_off = K.expert_eval(four, 0, 0, 40, off) - K.expert_eval(three, 0, 0, 40, off)
    assert d_on == pytest.approx(d_off + 0.5)  # half a point: 1/2 chance -> certain
    assert K.expert_eval(three, P("7S").mask, 0, 40, on) == pytest.approx(
        K.expert_eval(three, P("7S").mask, 0, 40, off)  # nobody can have them all
    )


def test_greedy_ranks_sevens_sixes_aces_as_the_escoba_setenta() -> None:
    """Greedy's fixed weights already follow the new reading's order (documented)."""

    def worth(card: str) -> int:
        c = P(card).cards()[0]
        table = P("KS QC").mask
        return int(K.greedy_score(table, 19, True, False, c, P("KS QC").mask, True, 0))

    assert worth("7C") > worth("6C") > worth("AC") > worth("5C")


def test_search_leaf_counts_the_readings() -> None:
    """The depth-limited searches' estimate of a side's points (values.estimate_sides)
    counts the four-sevens point, and an ace as the Escoba setenta's third tie-break."""
    from scopa_sim._engine import values as KV

    def estimate(overrides: list[str], pile0: str, pile1: str) -> float:
        piles = np.array([P(pile0).mask, P(pile1).mask, 0, 0], dtype=np.int64)
        work = np.zeros(16)
        r = make("escoba", overrides).to_array()
        KV.estimate_sides(r, piles, 0, np.zeros(4, dtype=np.int64), 0, 40, 10, False, work)
        return float(work[12] - work[13])

    sevens = "7D 7H 7C 7S"
    on = estimate(["four_sevens_point=true"], sevens, "AD")
    assert on == pytest.approx(estimate([], sevens, "AD") + 1.0)
    tie = ("7D 6D AS", "7H 6H")
    assert estimate(["primiera=escoba_sevens"], *tie) > estimate(["primiera=sevens"], *tie)


def test_play_then_replay_on_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    args = ["play", "--preset", "escoba", "--rule", "opening_fifteen_to=first_player",
            "--rule", "four_sevens_point=true", "--rule", "primiera=escoba_sevens",
            "--matches", "2", "--seed", "5", "--policy", "expert",
            "--record", str(path)]  # fmt: skip
    res = CliRunner().invoke(cli, args, prog_name="scopa-sim")
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(cli, ["replay", str(path)], prog_name="scopa-sim")
    assert res.exit_code == 0 and "violation" not in res.output, res.output
    res = CliRunner().invoke(cli, ["replay", str(path), "--show", "1"], prog_name="scopa-sim")
    assert res.exit_code == 0 and "score:" in res.output, res.output


def test_hand_state_pushes_follow_the_reading() -> None:
    """A whole hand through HandState's push, the opening to the first player, with the
    reference choosing: legal plays agree at every decision."""
    rules = make("escoba", ["opening_fifteen_to=first_player", "players=3"])
    deck = deck_with_table("KD 5C KS 5H", seed=2)
    state = HandState.deal(rules, dealer=2, deck=deck)
    rng = random.Random(2)

    def choose(legal: list[tuple[int, frozenset[int]]], info: dict) -> int:
        assert {(p.card, frozenset(p.taken)) for p in state.legal_plays} == set(legal)
        i = rng.randrange(len(legal))
        state.push(Play(legal[i][0], CardSet(legal[i][1]).mask))
        return i

    res = ref.play_hand(rules.complete_dict(), deck, 2, choose)
    assert state.score() == res["score"] and res["opening_scope"] == 2
    assert state.scope[0] >= 2  # seat 0, the first player, took two fifteens


# --------------------------------------------------------------------------- simulate, analyze
@pytest.mark.slow
def test_simulate_and_analyze_list_the_four_sevens_point(tmp_path: Path) -> None:
    """The shards keep the pinned schema; ``analyze`` lists the item from each side's
    sevens, and the items add up to the margin (the points include it)."""
    import polars as pl

    from scopa_sim.analysis import analyze as A
    from scopa_sim.data import dataset as D
    from scopa_sim.data.run import SimConfig, open_run, scan
    from scopa_sim.sim.executors import local_executor
    from scopa_sim.sim.simulate import simulate

    found = {}
    for on in (True, False):
        r = make("escoba", [f"four_sevens_point={str(on).lower()}"])
        cfg = SimConfig.make("escoba", r, seat_policies(["expert"], 2), "hands", 3000, 9, 1500)
        simulate(tmp_path / str(on), cfg, local_executor(1))
        df = scan(tmp_path / str(on)).collect()
        assert dict(df.schema) == D.schema()
        (g,) = A.analyze([tmp_path / str(on)]).groups
        names = [i for i, _ in g.items]
        assert ("four_sevens" in names) == on
        assert sum(e.estimate for _, e in g.items) == pytest.approx(g.margin.estimate)
        rows = A.scan_hands(open_run(tmp_path / str(on))).collect()
        for s in range(2):
            want = (rows[f"s{s}_sevens"] == 4).cast(pl.Int16) * int(on)
            assert rows[f"s{s}_four_sevens"].to_list() == want.to_list()
            items = sum(rows[f"s{s}_{i}"] for i in A.ITEMS)
            assert (items == rows[f"s{s}_points"]).all()
        found[on] = df
    assert int((found[True]["s0_sevens"] == 4).sum() + (found[True]["s1_sevens"] == 4).sum()) > 0
