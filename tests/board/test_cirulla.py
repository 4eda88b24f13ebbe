"""The board on Cirulla (RULES.md §10), in process: positions from cards and records (the
shown hands of a declaration, the opening count, the void deals, the score's grande,
piccola and declarations), a game against a kernel policy that writes `play`'s record,
the evaluator's and ISMCTS's advice, a bot move by ISMCTS, the review, and the one-line
4xx of what does not play Cirulla yet (the evaluator as a player, a kernel policy as an
advisor) and of bad input (an unknown belief model)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from scopa_sim.api import advise
from scopa_sim.api.advice import position
from scopa_sim.board import create_app
from scopa_sim.board.positions import view
from scopa_sim.bots.registry import PolicySpec
from scopa_sim.game.cards import card_name
from scopa_sim.game.rules import Rules
from scopa_sim.records.record import check_lines, decode_hand
from scopa_sim.sim.match import HandPlayer, cirulla_deal

H = {"X-Scopa-Board": "1"}
#: Seat 0 holds a hand of 9 or less (a declaration of 3) and the matta is on the table.
CARDS = {"cards": {"preset": "cirulla", "hand": "AD 3C 3S", "table": "7H 5C 2D QS"}}
#: A Cirulla seed whose first hand has a void deal (two aces on the first table).
VOID_SEED = 6


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    app = create_app()
    with TestClient(app, base_url="http://127.0.0.1") as c:
        assert c.get(f"/?token={app.state.token}").status_code == 200
        yield c


def post(c: TestClient, path: str, body: Any) -> Any:
    r = c.post(path, json=body, headers=H)
    assert r.status_code == 200, r.text
    return r.json()


def finish(c: TestClient, job: dict, timeout: float = 180) -> dict:
    deadline = time.monotonic() + timeout
    while not job["final"]:
        assert time.monotonic() < deadline, job
        time.sleep(0.05)
        job = c.get(f"/api/job/{job['id']}").json()
    return job


def bad(c: TestClient, path: str, body: Any) -> str:
    r = c.post(path, json=body, headers=H)
    assert 400 <= r.status_code < 500, (path, body, r.status_code, r.text)
    doc = r.json()
    assert set(doc) == {"error"} and "\n" not in doc["error"]
    return str(doc["error"])


def test_a_cirulla_position_shows_its_plays_and_a_declared_hand(client: TestClient) -> None:
    v = post(client, "/api/position", {"position": CARDS})
    assert v["cirulla"] == {"declared": [0, 0], "shown": []}
    declares = [p for p in v["legal"] if p.endswith(" +3")]
    assert declares and v["hands"][1]["cards"] is None and not v["hands"][1]["declared"]
    c = CARDS["cards"]
    state = position(c["hand"], c["table"], rules=Rules.make("cirulla"))
    state.push(declares[0])  # seat 0 declares: seat 1's view shows seat 0's hand
    after = view(state)
    assert after["seat"] == 1 and after["cirulla"] == {"declared": [3, 0], "shown": [0]}
    assert after["hands"][0]["declared"] and after["hands"][0]["cards"] == [
        card_name(c) for c in state.hand(0)
    ]


def test_a_game_against_expert_writes_play_s_record(client: TestClient) -> None:
    doc = post(client, "/api/play/new", {"preset": "cirulla", "policy": "expert",
                                         "seed": VOID_SEED, "match": True})  # fmt: skip
    game = doc["game"]
    assert doc["view"]["voids"] and doc["view"]["cirulla"]["declared"] == [0, 0]
    while not doc["view"]["over"]:
        if doc["bot_to_play"]:
            job = finish(client, post(client, "/api/play/bot", {"page": "g", "game": game}))
            assert job["status"] == "done", job
            move = job["result"]
        else:
            move = doc["view"]["legal"][-1]
        game = {**game, "plays": [*game["plays"], move]}
        doc = post(client, "/api/play/state", {"game": game})
    rec = json.loads(doc["record"])
    assert check_lines([doc["record"]], allow_unfinished=True).errors == []
    rules = Rules.from_dict(rec["rules"])
    deck, voids = cirulla_deal(rules, VOID_SEED, 0, 0)
    dealt = HandPlayer(rules, [PolicySpec.parse("greedy")] * 2, seed=VOID_SEED)
    hp = dealt.play(0, 0, game["dealer"])
    assert (deck, voids) == (hp.deck, hp.voids) and len(rec["voids"]) == len(voids)
    _state, plays = decode_hand(rec)
    assert [str(p) for p in plays] == game["plays"]  # the named values and declarations
    items = doc["view"]["score"][0]
    assert {"grande", "piccola", "declarations"} <= set(items)
    frames = post(client, "/api/record/frames", {"text": doc["record"]})
    assert frames["voids"] == rec["voids"] and len(frames["frames"]) == len(plays) + 1
    assert [f["next"] for f in frames["frames"][:-1]] == game["plays"]


def test_the_evaluator_advises_a_cirulla_position(client: TestClient) -> None:
    policy = "eval:worlds=32"
    job = finish(client, post(client, "/api/analyse", {"page": "a", "position": CARDS,
                                                        "policy": policy, "seed": 3}))  # fmt: skip
    assert job["status"] == "done", job
    c = CARDS["cards"]
    want = advise(c["hand"], c["table"], preset="cirulla", policy=policy, seed=3).to_dict()
    assert job["result"]["plays"] == json.loads(json.dumps(want["plays"]))


def test_ismcts_advises_and_plays_a_cirulla_position(client: TestClient) -> None:
    policy = "ismcts:iterations=200"
    job = finish(client, post(client, "/api/analyse", {"page": "a", "position": CARDS,
                                                        "policy": policy, "seed": 3}))  # fmt: skip
    assert job["status"] == "done", job
    c = CARDS["cards"]
    want = advise(c["hand"], c["table"], preset="cirulla", policy=policy, seed=3).to_dict()
    assert job["result"]["plays"] == json.loads(json.dumps(want["plays"]))
    doc = post(client, "/api/play/new", {"preset": "cirulla", "policy": policy, "seed": 2})
    game = doc["game"]
    if not doc["bot_to_play"]:
        game = {**game, "plays": [doc["view"]["legal"][0]]}
        doc = post(client, "/api/play/state", {"game": game})
    job = finish(client, post(client, "/api/play/bot", {"page": "g", "game": game}))
    assert job["status"] == "done", job
    assert job["result"] in doc["view"]["legal"]


def test_a_cirulla_record_is_reviewed(client: TestClient) -> None:
    rules = Rules.make("cirulla")
    from scopa_sim.records.record import hand_record
    from scopa_sim.sim.match import play_match

    logs = play_match(rules, [PolicySpec.parse("greedy")] * 2, seed=1, match=0)
    text = json.dumps(hand_record(rules, next(iter(logs))), separators=(",", ":"))
    body = {"page": "v", "text": text, "evaluator": "eval:worlds=32"}
    job = finish(client, post(client, "/api/review", body))
    assert job["status"] == "done", job
    assert job["result"]["decisions"] and job["result"]["plot"].startswith("<svg")


def test_what_does_not_play_cirulla_is_a_one_line_4xx(client: TestClient) -> None:
    cases = [
        ("/api/analyse", {"position": CARDS, "policy": "ismcts:belief=joker"}, "expected one of"),
        ("/api/analyse", {"position": CARDS, "policy": "greedy"}, "greedy"),
        ("/api/holdings", {"position": CARDS, "model": "joker"}, "one of"),
        ("/api/play/new", {"preset": "cirulla", "policy": "eval"}, "does not play"),
        (
            "/api/play/state",
            {"game": {"rules": Rules.make("cirulla").as_dict(), "policy": "eval"}},
            "does not play",
        ),
        ("/api/play/new", {"preset": "cirulla", "rules": "matta=joker"}, "allowed"),
        ("/api/play/new", {"preset": "cirulla", "rules": "piccola_max=9"}, "piccola_max"),
        (
            "/api/play/state",
            {"game": {"rules": Rules.make("cirulla").as_dict(), "plays": ["7H=11"]}},
            "",
        ),
    ]
    for path, body, words in cases:
        page = {"page": "x"} if path in ("/api/analyse", "/api/holdings") else {}
        assert words in bad(client, path, {**page, **body}), (path, body)
    assert post(client, "/api/position", {"position": CARDS})["turn"] == 0  # still serving


def test_puzzles_come_from_cirulla_hands_too(tmp_path: Any) -> None:
    rules = Rules.make("cirulla")
    from scopa_sim.board import work
    from scopa_sim.records.record import hand_record
    from scopa_sim.sim.match import play_match

    logs = list(play_match(rules, [PolicySpec.parse("random")] * 2, seed=3, match=0))
    text = json.dumps(hand_record(rules, logs[0]), separators=(",", ":"))
    puzzles = work.puzzles_of_hand(text, "g.jsonl", 1, "eval:worlds=16", 0)
    for pz in puzzles:  # random play makes mistakes: each with every play's value
        assert pz["label"] in ("mistake", "blunder") and pz["chosen"] != pz["best"]
        assert any(v["play"] == pz["best"] and v["best"] for v in pz["values"])
    assert puzzles


def test_a_record_s_opening_count_is_shown(client: TestClient) -> None:
    rules = Rules.make("cirulla")
    from scopa_sim.records.record import hand_record
    from scopa_sim.sim.match import play_match

    logs = list(play_match(rules, [PolicySpec.parse("random")] * 2, seed=2, match=0))
    rec = hand_record(rules, logs[2])  # its first table adds up to fifteen
    frames = post(client, "/api/record/frames", {"text": json.dumps(rec)})["frames"]
    assert sorted(frames[0]["opening"]) == sorted(rec["opening"])
    assert frames[0]["scope"][rec["dealer"] % 2] >= 1  # the opening count's scopa
