"""The advisor and tournament commands, and search policies in play/simulate."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner
from scopa_sim_cli.main import cli

from scopa_sim.bots.advise import PositionError, position_from_cards
from scopa_sim.bots.registry import PolicySpec
from scopa_sim.game.cards import CardSet
from scopa_sim.game.rules import Rules
from scopa_sim.sim.tournament import Sprt, elo_of_score, ladder, play_pairing
from scopa_sim.stats.inference import MIN_SAMPLES

P = CardSet.parse


def run(*args: str):
    res = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in res.output
    return res


def test_advise_ranks_every_legal_play_and_is_reproducible() -> None:
    args = ["advise", "--hand", "7D 3S KH", "--table", "7C 5H 2S AD", "--json", "--seed", "3"]
    args += ["--policy", "ismcts:iterations=400"]
    a, b = run(*args), run(*args)
    assert a.exit_code == 0, a.output
    da = json.loads(a.stdout)
    assert da == json.loads(b.stdout)
    plays = {p["play"] for p in da["plays"]}
    assert plays == {"7D x 7C", "3S x AD 2S", "KH x AD 7C 2S"}
    assert sum(p["chosen"] for p in da["plays"]) == 1
    for p in da["plays"]:  # an interval from enough visits, or none (see cli/test_bad_input.py)
        if p["interval"] == "95%":
            assert p["n"] >= MIN_SAMPLES and p["ci_low"] <= p["mean_margin"] <= p["ci_high"]
        else:
            assert p["n"] < MIN_SAMPLES and p["ci_low"] is p["ci_high"] is None
    assert any(p["interval"] == "95%" for p in da["plays"])


def test_advise_says_when_values_are_horizon_estimates() -> None:
    base = ["advise", "--hand", "7D 3S KH", "--table", "7C 5H 2S AD", "--seed", "3"]
    plain = run(*base, "--policy", "ismcts:iterations=200")
    cut = run(*base, "--policy", "ismcts:iterations=200,horizon=4,c=1")
    assert plain.exit_code == cut.exit_code == 0, plain.output + cut.output
    assert "expected point margin of the hand" in plain.output
    assert "heuristic value at the rollout horizon" in cut.output
    js = run(*base, "--policy", "ismcts:iterations=200,horizon=4", "--json")
    assert json.loads(js.stdout)["values"] == "horizon_estimate"
    assert json.loads(run(*base, "--json").output)["values"] == "hand_margin"


def test_advise_takes_the_scopa() -> None:
    mine, theirs = "AD 2D 3D 4D 5D 6D AH 2H 3H 4H 6H", "JD QD KD 7H JH QH KH AC 2C 3C 4C"
    args = ["--hand", "7D 3S", "--table", "5H 2S", "--opponent-cards", "2", "--json"]
    res = run("advise", *args, "--mine", mine, "--theirs", theirs, "--policy", "pimc:worlds=8")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["chosen"] == "7D x 5H 2S"


def test_advise_from_a_record(tmp_path) -> None:
    rec = tmp_path / "g.jsonl"
    assert run("play", "--seed", "1", "--record", str(rec)).exit_code == 0
    res = run("advise", "--position", f"{rec}:1:5", "--policy", "pimc:worlds=4", "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["plays"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--hand", "7D 7D"], "twice"),
        (["--hand", "7D 3S", "--table", "7D"], "card 7D is both in the hand and on the table"),
        (["--hand", "7D", "--seen", "7D"], "both in the hand and among the other cards seen"),
        (["--hand", "7D 3S KH AS"], "the rules deal 3"),
        (["--hand", "10C"], "malformed card"),
        (["--hand", "7D", "--policy", "ismcts:bogus=1"], "unknown parameter 'bogus'"),
        (["--hand", "7D", "--opponent-cards", "3"], "impossible position"),
        (["--table", "7D"], "give the hand to play"),
        (["--position", "nofile.jsonl:1:0"], "no such file"),
        (["--position", "x"], "FILE.jsonl:LINE:PLAY"),
        (["--hand", "7D", "--scope", "1"], "two counts"),
    ],
)
def test_advise_bad_input(args: list[str], message: str) -> None:
    res = run("advise", *args)
    assert res.exit_code == 2, res.output
    assert message in res.output
    assert res.output.count("\n") == 1


def test_position_from_cards_infers_the_round() -> None:
    r = Rules.make()
    st = position_from_cards(r, P("7D 3S KH"), P("7C 5H 2S AD"))
    assert len(st.hand(1)) == 3 and len(st.stock) == 30
    st = position_from_cards(r, P("7D 3S"), P("7C"), opponent_cards=1, seen=P("AS 2S 3C 4C 5C 6C"))
    assert len(st.hand(1)) == 1 and st.dealer == 0
    with pytest.raises(PositionError):
        position_from_cards(Rules.make("scopa-3"), P("7D"), P(""))


def test_tournament_pairs_and_ladder() -> None:
    res = run("tournament", "--policy", "greedy", "--policy", "random", "--deals", "150",
              "--seed", "2", "--json")  # fmt: skip
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    (pair,) = doc["pairings"]
    assert pair["wins"] + pair["draws"] + pair["losses"] == 300
    lo, hi = pair["margin_ci"]
    assert 0 < lo < pair["margin"] < hi  # greedy clearly beats random
    assert doc["ladder"][0]["policy"] == "greedy"
    again = json.loads(run("tournament", "--policy", "greedy", "--policy", "random",
                           "--deals", "150", "--seed", "2", "--json").output)  # fmt: skip
    assert again == doc


def test_swapped_seats_cancel_the_deal() -> None:
    """A policy against itself: every deal pair's margin is exactly 0 for kernel policies."""
    r = Rules.make()
    res = play_pairing(r, PolicySpec.parse("greedy"), PolicySpec.parse("greedy"), 40, 1)
    assert res.margin.estimate == 0 and res.wins == res.losses


def test_sprt_stops_early_and_bad_input() -> None:
    res = run("tournament", "--policy", "greedy", "--policy", "random", "--deals", "2000",
              "--sprt", "0,20")  # fmt: skip
    assert res.exit_code == 0 and "-> H1" in res.output, res.output
    for args, msg in [
        (["--policy", "greedy"], "at least two"),
        (["--policy", "greedy", "--policy", "greedy"], "different"),
        (["--policy", "greedy", "--policy", "random", "--preset", "scopa-3"], "two sides"),
        (["--policy", "greedy", "--policy", "random", "--sprt", "x"], "ELO0,ELO1"),
        (["--policy", "greedy", "--policy", "random", "--sprt", "5,0"], "below"),
        (["--policy", "a", "--policy", "random"], "unknown policy"),
    ]:
        r = run("tournament", *args, "--deals", "5")
        assert r.exit_code == 2 and msg in r.output, (args, r.output)


def test_sprt_and_elo_math() -> None:
    assert elo_of_score(0.5) == 0 and round(elo_of_score(0.64), 0) == 100
    t = Sprt(0, 10)
    lo, hi = t.bounds
    assert round(hi, 3) == round(np.log(0.95 / 0.05), 3) and lo == -hi
    assert t.verdict(hi + 1) == "H1" and t.verdict(lo - 1) == "H0" and t.verdict(0) is None
    strong = np.full(400, 0.75) + np.tile([0.25, -0.25], 200)
    assert t.llr(strong) > hi
    board = ladder(["greedy", "random"], [play_pairing(Rules.make(), PolicySpec.parse("greedy"),
                                             PolicySpec.parse("random"), 30, 1)])  # fmt: skip
    assert abs(board[0][1] + board[1][1]) < 1e-9


def test_play_with_search_policy_writes_valid_records(tmp_path) -> None:
    rec = tmp_path / "s.jsonl"
    res = run("play", "--rule", "target=3", "--seed", "4", "--policy", "pimc:worlds=2,depth=2",
              "--policy", "greedy", "--record", str(rec))  # fmt: skip
    assert res.exit_code == 0, res.output
    assert run("replay", str(rec)).exit_code == 0
