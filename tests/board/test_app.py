"""The board's JSON API (``scopa-sim board``), in process: positions, the staged analysis
(whose final values are ``advise --json``'s), the belief, the review, a game, puzzles,
cancel and replace, and bad input of every kind answered with a 4xx JSON error while the
server keeps serving. The real server and browser: board/test_server.py,
board/test_browser.py."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.board import make_records
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from scopa_sim.board import create_app, work
from scopa_sim.board.app import MAX_BODY, MAX_UPLOAD
from scopa_sim.bots.advise import advice_json, advise, position_from_cards
from scopa_sim.bots.registry import PolicySpec
from scopa_sim.game.cards import CardSet
from scopa_sim.game.rules import Rules
from scopa_sim.records.record import position_from_record
from scopa_sim.records.review import HandTask, Review, parse_evaluator, review_hand, to_json

H = {"X-Scopa-Board": "1"}
CARDS = {"cards": {"hand": "7D 3S KH", "table": "7C 5H 2S 4D"}}


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    app = create_app()
    with TestClient(app, base_url="http://127.0.0.1") as c:
        assert c.get(f"/?token={app.state.token}").status_code == 200  # the cookie set
        yield c


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("records")
    make_records(folder / "games.jsonl")
    return folder / "games.jsonl"


def post(c: TestClient, path: str, body: Any) -> Any:
    r = c.post(path, json=body, headers=H)
    assert r.status_code == 200, r.text
    return r.json()


def finish(c: TestClient, job: dict, timeout: float = 120) -> dict:
    """Poll a job until it is final."""
    deadline = time.monotonic() + timeout
    while not job["final"]:
        assert time.monotonic() < deadline, job
        time.sleep(0.03)
        job = c.get(f"/api/job/{job['id']}").json()
    return job


# --------------------------------------------------------------------------- positions
def test_a_position_from_cards_is_advise_s(client: TestClient) -> None:
    v = post(client, "/api/position", {"position": CARDS})
    state = position_from_cards(
        Rules.make("scopa"), CardSet.parse("7D 3S KH"), CardSet.parse("7C 5H 2S 4D")
    )
    assert v["legal"] == [str(p) for p in state.legal_plays]
    assert v["hands"][0]["cards"] == ["7D", "KH", "3S"] and v["hands"][1]["cards"] is None
    assert v["hands"][1]["count"] == 3 and v["stock"] == 30 and v["turn"] == 0


def test_a_position_pasted_as_advise_reads_it(client: TestClient, records: Path) -> None:
    spec = f"{records}:1:5"
    v = post(client, "/api/position", {"position": {"advise": spec}})
    state = position_from_record(spec)
    assert v["table"] == [str(CardSet([c])) for c in state.table]
    assert v["legal"] == [str(p) for p in state.legal_plays] and v["turn"] == state.turn
    hidden = [h for h in v["hands"] if h["seat"] != state.turn]
    assert all(h["cards"] is None for h in hidden)  # the seat to play's view only


def test_a_record_steps_through_every_position(client: TestClient, records: Path) -> None:
    text = records.read_text().splitlines()[1]  # the second hand: no match start needed
    doc = post(client, "/api/record/frames", {"text": text})
    plays = json.loads(text)["plays"]
    assert len(doc["frames"]) == len(plays) + 1 and doc["frames"][-1]["over"]
    first = doc["frames"][0]
    assert first["next"].split(" x ")[0] == plays[0]["card"]
    assert all(h["cards"] is not None for h in first["hands"])  # a replay shows every hand
    assert doc["frames"][-1]["score"]


def test_opening_a_record_file_lists_its_hands(client: TestClient, records: Path) -> None:
    lines = records.read_text().splitlines()
    by_path = post(client, "/api/record/open", {"path": str(records)})
    up = client.post("/api/record/upload?name=g.jsonl", content=records.read_bytes(), headers=H)
    assert up.status_code == 200
    for doc in (by_path, up.json()):
        assert [h["line"] for h in doc["hands"]] == list(range(1, len(lines) + 1))
        assert [h["text"] for h in doc["hands"]] == lines


# --------------------------------------------------------------------------- analysis
def test_stages_grow_to_the_policy_itself() -> None:
    def budgets(text: str) -> list[str]:
        return [str(s) for s in work.stages(PolicySpec.parse(text))]

    assert budgets("eval") == ["eval:worlds=16", "eval:worlds=64", "eval"]
    assert budgets("ismcts:iterations=20000,c=1") == [
        "ismcts:c=1,iterations=1250",
        "ismcts:c=1,iterations=5000",
        "ismcts:iterations=20000,c=1",
    ]
    assert budgets("eval:worlds=20") == ["eval:worlds=16", "eval:worlds=20"]
    assert budgets("ismcts:ms=50") == ["ismcts:ms=50"]  # a time budget: one stage
    assert budgets("solver") == ["solver"]


def test_the_final_values_are_advise_json_s(client: TestClient) -> None:
    job = post(client, "/api/analyse", {"page": "a", "position": CARDS, "seed": 3})
    assert job["stages"] == 3 and job["label"].startswith("eval:worlds=16")
    job = finish(client, job)
    assert job["status"] == "done" and job["progress"] == 1.0 and job["first_seconds"] > 0
    state = position_from_cards(
        Rules.make("scopa"), CardSet.parse("7D 3S KH"), CardSet.parse("7C 5H 2S 4D")
    )
    spec = PolicySpec.parse("eval")
    bot = spec.bot()
    want = advice_json(advise(state, bot, 3), spec, bot, 3)
    assert job["result"] == json.loads(json.dumps(want))
    best = [p for p in job["result"]["plays"] if p["chosen"]]
    assert len(best) == 1 and best[0]["n"] == 256 and best[0]["interval"] == "95%"


def test_a_new_analysis_replaces_the_page_s_last(client: TestClient) -> None:
    slow = {"page": "r", "position": CARDS, "policy": "ismcts:iterations=2000000"}
    first = post(client, "/api/analyse", slow)
    second = finish(client, post(client, "/api/analyse", {"page": "r", "position": CARDS}))
    assert second["status"] == "done"
    assert client.get(f"/api/job/{first['id']}").json()["status"] == "cancelled"


@pytest.mark.slow
def test_cancel_stops_a_running_stage_and_the_board_goes_on(client: TestClient) -> None:
    jobs = client.app.state.jobs  # type: ignore[attr-defined]
    restarts = jobs.restarts
    body = {"page": "c", "position": CARDS, "policy": "ismcts:iterations=2000000"}
    job = post(client, "/api/analyse", body)
    while job["stage"] < 1:  # the cheap first stage is let finish; the second is stopped
        time.sleep(0.05)
        job = client.get(f"/api/job/{job['id']}").json()
    t0 = time.monotonic()
    job = post(client, f"/api/job/{job['id']}/cancel", {})
    assert job["status"] == "cancelled" and job["final"]
    assert jobs.restarts == restarts + 1 and time.monotonic() - t0 < 5  # the search takes minutes
    again = finish(client, post(client, "/api/analyse", {"page": "c", "position": CARDS}))
    assert again["status"] == "done"


def test_what_they_can_hold(client: TestClient, records: Path) -> None:
    uniform = finish(client, post(client, "/api/holdings", {"page": "h", "position": CARDS}))
    seat = uniform["result"]["seats"][0]
    assert seat["seat"] == 1 and not seat["weighed"] and len(seat["marginals"]) == 33
    assert math.isclose(sum(seat["marginals"].values()), 3)
    text = records.read_text().splitlines()[0]
    pos = {"record": {"text": text, "play": 3, "reveal": False}}  # seat 1 has played once
    fit = finish(client, post(client, "/api/holdings", {"page": "h", "position": pos}))
    res = fit["result"]
    assert res["plays_seen"] == 3 and res["model"] == "fit"
    for s in res["seats"]:
        assert math.isclose(sum(s["marginals"].values()), s["cards"], rel_tol=1e-9)
        assert math.isclose(sum(h["p"] for h in s["holdings"]), 1.0) or len(s["holdings"]) == 5


@pytest.mark.slow
def test_the_review_of_a_hand_is_review_s(client: TestClient, records: Path) -> None:
    text = records.read_text().splitlines()[0]
    job = post(client, "/api/review", {"page": "v", "text": text, "name": "g", "line": 1})
    doc = finish(client, job)["result"]
    ev = parse_evaluator("eval")
    hand = review_hand(HandTask("g", 1, text), ev, 0)
    want = to_json(Review(str(ev), 0, (hand,), None, ("g",)))
    assert doc["decisions"] == json.loads(json.dumps(want["decisions"]))
    assert doc["hands"] == json.loads(json.dumps(want["hands"]))
    assert doc["plot"].startswith("<svg")


def test_a_hand_against_greedy_to_the_end(client: TestClient) -> None:
    doc = post(client, "/api/play/new", {"policy": "greedy", "seed": 5, "match": True})
    game = doc["game"]
    while not doc["view"]["over"]:
        if doc["bot_to_play"]:
            play = finish(client, post(client, "/api/play/bot", {"page": "g", "game": game}))
            assert play["status"] == "done"
            move = play["result"]
        else:
            assert doc["view"]["turn"] == game["human"]
            move = doc["view"]["legal"][-1]
        game = {**game, "plays": [*game["plays"], move]}
        doc = post(client, "/api/play/state", {"game": game})
    assert len(game["plays"]) == 36 and doc["record"]
    rec = json.loads(doc["record"])
    assert [p["card"] for p in rec["plays"]] == [p.split(" x ")[0] for p in game["plays"]]
    assert sum(rec["score"][0].values()) >= 0 and doc["totals_after"] == rec["totals_after"]
    frames = post(client, "/api/record/frames", {"text": doc["record"]})  # reviewable
    assert len(frames["frames"]) == 37
    nxt = doc["next_hand"]  # no side reached 11 in one hand: the match goes on
    assert nxt["hand_no"] == 1 and nxt["dealer"] == 1 - game["dealer"]
    doc = post(client, "/api/play/state", {"game": {**game, **nxt, "plays": []}})
    assert doc["view"]["match_totals"] == rec["totals_after"] and doc["view"]["plays_made"] == 0


@pytest.mark.slow
def test_puzzles_are_the_review_s_mistakes(client: TestClient, records: Path) -> None:
    body = {"page": "p", "folder": str(records.parent), "limit": 2}
    job = finish(client, post(client, "/api/puzzles", body))
    assert job["status"] == "done" and job["stages"] == 2
    for pz in job["result"]:
        assert pz["label"] in ("mistake", "blunder") and pz["chosen"] != pz["best"]
        values = {v["play"]: v["mean_margin"] for v in pz["values"]}
        assert max(values, key=values.__getitem__) == pz["best"]
        assert math.isclose(values[pz["best"]] - values[pz["chosen"]], pz["loss"], abs_tol=1e-9)


# --------------------------------------------------------------------------- bad input
def _bad(c: TestClient, path: str, body: Any, raw: bytes | None = None) -> tuple[int, str]:
    r = c.post(path, content=raw if raw is not None else json.dumps(body), headers=H)
    assert 400 <= r.status_code < 500, (path, body, r.status_code, r.text)
    doc = r.json()
    assert set(doc) == {"error"} and "Traceback" not in doc["error"]
    assert "\n" not in doc["error"]
    return r.status_code, doc["error"]


def test_bad_input_gets_a_4xx_json_error(client: TestClient, records: Path, tmp_path: Path) -> None:
    text = records.read_text().splitlines()[0]
    broken = text.replace('"card":"', '"card":"Z', 1)
    (tmp_path / "bad.jsonl").write_text("not a record\n")
    impossible = {"cards": {"hand": "7D", "table": "", "scope": [5, 0]}}
    cases: list[tuple[str, Any, str]] = [
        ("/api/position", {"position": {"cards": {"hand": "7X"}}}, "unknown suit"),
        ("/api/position", {"position": {"cards": {"hand": "7D 7D"}}}, "twice"),
        ("/api/position", {"position": impossible}, "impossible"),
        ("/api/position", {"position": {"cards": {"hand": ""}}}, "empty"),
        ("/api/position", {"position": {"cards": {"hand": "7D", "rules": "nope=1"}}}, "nope"),
        ("/api/position", {"position": {"cards": {"hand": "7D", "scope": [1]}}}, "scope"),
        ("/api/position", {"position": {"cards": {"hand": 7}}}, "expected text"),
        ("/api/position", {"position": {"elsewhere": 1}}, "unknown kind"),
        ("/api/position", {"position": {"advise": "nofile.jsonl:1:0"}}, "no such file"),
        ("/api/position", {"position": {"advise": f"{tmp_path}:1:0"}}, "directory"),
        ("/api/position", {"position": {"record": {"text": broken}}}, "not a valid"),
        ("/api/position", {"position": {"record": {"text": text, "play": 99}}}, "plays"),
        ("/api/position", {"position": {"record": {"text": "{}"}}}, "not a valid"),
        ("/api/position", {"position": {"record": {"text": "[" * 50000}}}, "not a valid"),
        ("/api/record/open", {"path": str(tmp_path / "bad.jsonl")}, "not a valid"),
        ("/api/record/open", {"path": "/dev/zero"}, "not a regular file"),
        ("/api/record/open", {"path": "a\x00b"}, "NUL"),
        ("/api/record/frames", {"text": broken}, "not a valid"),
        ("/api/analyse", {"position": CARDS, "policy": "greedy"}, "gives no values"),
        ("/api/analyse", {"position": CARDS, "policy": "ismcts:foo=1"}, "foo"),
        ("/api/analyse", {"position": CARDS, "seed": -1}, "seed"),
        ("/api/analyse", {"position": CARDS, "page": "../x"}, "page"),
        ("/api/holdings", {"position": CARDS, "model": "psychic"}, "model"),
        ("/api/review", {"text": text, "evaluator": "ismcts"}, "evaluator"),
        ("/api/play/new", {"policy": "nobody"}, "unknown policy"),
        ("/api/play/state", {"game": {"rules": {}, "plays": ["KK"]}}, ""),
        (
            "/api/play/bot",
            {"game": {"rules": Rules.make("scopa").as_dict(), "dealer": 1}},
            "no bot",
        ),
        ("/api/puzzles", {"folder": str(tmp_path / "none")}, "not a folder"),
        ("/api/puzzles", {"folder": str(records.parent), "limit": 0}, "limit"),
        ("/api/job/nope/cancel", {}, "no job"),
        # Cirulla (RULES.md §10): what does not play it yet, a one-line 4xx (a belief,
        # best's, plays it: an unknown belief model does not)
        (
            "/api/analyse",
            {
                "position": {"cards": {**CARDS["cards"], "preset": "cirulla"}},
                "policy": "ismcts:belief=robustt",
            },
            "expected one of",
        ),
        ("/api/play/new", {"preset": "cirulla-4", "policy": "eval"}, "does not play"),
        (
            "/api/play/state",
            {"game": {"rules": Rules.make("cirulla").as_dict(), "policy": "eval"}},
            "does not play",
        ),
    ]
    for path, body, words in cases:
        _status, message = _bad(client, path, body)
        assert words.lower() in message.lower(), (path, body, message)
    for raw in (b"junk", b"[1, 2]", b'{"position": NaN}', b"\xff\xfe", b"{" * 5000, b""):
        _bad(client, "/api/position", None, raw)
    assert _bad(client, "/api/record/upload", None, b"x" * (MAX_UPLOAD + 1))[0] == 413
    assert _bad(client, "/api/position", None, b" " * (MAX_BODY + 1))[0] == 413
    assert _bad(client, "/api/record/upload", None, b"\x00\xff binary")[0] == 400
    assert client.get("/api/job/none").status_code == 400
    assert client.get("/api/meta").status_code == 200  # and the board keeps serving


def test_every_endpoint_answers_junk_with_4xx(client: TestClient) -> None:
    paths = [r.path for r in client.app.routes if getattr(r, "methods", None) == {"POST"}]  # type: ignore[attr-defined]
    assert len(paths) >= 10
    for path in paths:
        path = path.replace("{job}", "x")
        for raw in (b"junk", b'{"a": [1, {"b": null}]}', b"42", b'{"position": {"cards": []}}'):
            _bad(client, path, None, raw)


def test_foreign_pages_and_hosts_are_refused(client: TestClient) -> None:
    r = client.post("/api/position", json={"position": CARDS})  # no X-Scopa-Board
    assert r.status_code == 403 and "X-Scopa-Board" in r.json()["error"]
    r = client.get("/api/meta", headers={"Host": "evil.example:8765"})
    assert r.status_code == 403
    token = {"X-Scopa-Token": client.app.state.token}  # type: ignore[attr-defined]
    assert client.get("/api/meta", headers={"Host": "localhost:8765", **token}).status_code == 200


def test_only_the_package_s_static_files_are_served(client: TestClient) -> None:
    assert client.get("/static/board.js").status_code == 200
    for path in ("/static/../app.py", "/static/%2e%2e/app.py", "/static/..%2f..%2ferrors.py"):
        assert client.get(path).status_code == 404, path
    assert client.get("/etc/passwd").status_code == 404
    assert client.get("/cards.css").text.startswith(".c {")  # the review page's cards


# Any JSON at all, in the fields each endpoint reads (hypothesis): never a 500.
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
_FIELDS = {
    "/api/position": ["position"],
    "/api/analyse": ["page", "position", "policy", "seed"],
    "/api/holdings": ["page", "position", "model", "seed"],
    "/api/record/open": ["path"],
    "/api/record/frames": ["text"],
    "/api/review": ["page", "text", "name", "line", "evaluator", "seed"],
    "/api/play/new": ["preset", "rules", "policy", "seed", "human", "match"],
    "/api/play/state": ["game"],
    "/api/play/bot": ["page", "game"],
    "/api/puzzles": ["page", "folder", "limit", "evaluator", "seed"],
}
_POSITIONS = st.fixed_dictionaries(
    {
        "cards": st.dictionaries(
            st.sampled_from(
                ["hand", "table", "mine", "scope", "rules", "preset", "opponent_cards", "totals"]
            ),
            _json_values | st.sampled_from(["7D 3S", "AS", "", "scopa"]),
        )
    }
)


@given(data=st.data())
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_no_json_makes_a_server_error(client: TestClient, data: st.DataObject) -> None:
    path = data.draw(st.sampled_from(sorted(_FIELDS)))
    keys = data.draw(st.lists(st.sampled_from(_FIELDS[path]), unique=True))
    body = {
        k: data.draw(_POSITIONS | _json_values if k == "position" else _json_values) for k in keys
    }
    # Python's json writes NaN and infinities as NaN / Infinity, which are not JSON: the
    # server must refuse them like any other junk (the client's json= would not send them)
    text = json.dumps(body)
    r = client.post(path, content=text, headers={**H, "content-type": "application/json"})
    assert r.status_code < 500, (path, body, r.text)
    if r.status_code >= 400:
        assert set(r.json()) == {"error"}


def test_non_json_numbers_are_refused(client: TestClient) -> None:
    """NaN and Infinity (which Python's json writes, but JSON has not) are a 400."""
    for text in ('{"policy": Infinity}', '{"seed": NaN}', '{"seed": -Infinity}'):
        r = client.post(
            "/api/analyse", content=text, headers={**H, "content-type": "application/json"}
        )
        assert r.status_code == 400 and set(r.json()) == {"error"}, (text, r.text)
