"""The board's gate (issue 40): a per-launch token (the printed address sets an HttpOnly,
SameSite=Strict cookie; every /api route needs it), the Origin of every POST, the Host
parsed strictly and limited to the names allowed, and headers that forbid framing and
sniffing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from scopa_sim.board import create_app
from scopa_sim.board.app import allowed_hosts, parse_host
from scopa_sim.errors import BoardError

H = {"X-Scopa-Board": "1"}
CARDS = {"cards": {"hand": "7D 3S KH", "table": "7C 5H 2S 4D"}}


@pytest.fixture(scope="module")
def app() -> Iterator:
    a = create_app(token="s3cret-token")
    with TestClient(a, base_url="http://127.0.0.1"):  # the lifespan: workers up, then down
        yield a


def fresh(app) -> TestClient:  # type: ignore[no-untyped-def]
    """A client with no cookie (the app's lifespan is the fixture's)."""
    return TestClient(app, base_url="http://127.0.0.1", follow_redirects=False)


def test_every_api_route_needs_the_token(app) -> None:  # type: ignore[no-untyped-def]
    c = fresh(app)
    routes = [r.path for r in app.routes if r.path.startswith("/api/")]
    assert len(routes) >= 14
    for path in routes:
        path = path.replace("{job}", "x")
        for r in (c.get(path), c.post(path, json={}, headers=H)):
            assert r.status_code in (403, 405), (path, r.status_code)
            if r.status_code == 403:
                assert "token" in r.json()["error"]
    assert c.get("/").status_code == 403  # the page too, without its address
    wrong = {"X-Scopa-Token": "s3cret-tokeN"}
    assert c.get("/api/meta", headers=wrong).status_code == 403
    assert c.get("/?token=guess").status_code == 403


def test_the_printed_address_sets_a_strict_cookie(app) -> None:  # type: ignore[no-untyped-def]
    c = fresh(app)
    r = c.get("/?token=s3cret-token")
    assert r.status_code == 303 and r.headers["location"] == "/"
    cookie = r.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "s3cret-token" in cookie
    assert c.get("/").status_code == 200
    assert c.get("/api/meta").status_code == 200
    assert c.post("/api/position", json={"position": CARDS}, headers=H).status_code == 200
    scripted = fresh(app)  # a script sends the header instead
    assert scripted.get("/api/meta", headers={"X-Scopa-Token": "s3cret-token"}).status_code == 200


def test_a_post_from_another_origin_is_refused(app) -> None:  # type: ignore[no-untyped-def]
    c = fresh(app)
    h = {**H, "X-Scopa-Token": "s3cret-token"}
    for origin in ("http://evil.example", "null", "http://127.0.0.1:9999", "https://127.0.0.1"):
        r = c.post("/api/position", json={"position": CARDS}, headers={**h, "Origin": origin})
        assert r.status_code == 403 and "another site" in r.json()["error"], origin
    ok = c.post(
        "/api/position", json={"position": CARDS}, headers={**h, "Origin": "http://127.0.0.1"}
    )
    assert ok.status_code == 200


@pytest.mark.parametrize(
    "host",
    ["127.0.0.1:1@evil.example", "evil.example", "127.0.0.1.evil.example", "127.0.0.1:99999",
     "127.0.0.1 :80", "", "localhost:80/x", "[::1]x"],
)  # fmt: skip
def test_a_host_not_strictly_allowed_is_refused(app, host: str) -> None:  # type: ignore[no-untyped-def]
    c = fresh(app)
    r = c.get("/api/meta", headers={"Host": host, "X-Scopa-Token": "s3cret-token"})
    assert r.status_code == 403


def test_host_names_allowed() -> None:
    assert parse_host("127.0.0.1:8765") == ("127.0.0.1", 8765)
    assert parse_host("[::1]:80") == ("[::1]", 80)
    assert parse_host("127.0.0.1:1@evil.example") is None
    assert parse_host("LocalHost") == ("localhost", None)
    lan = allowed_hosts("192.168.1.5", ("board.lan",))
    assert {"192.168.1.5", "board.lan", "127.0.0.1"} <= lan and "evil.example" not in lan
    assert "0.0.0.0" not in allowed_hosts("0.0.0.0")
    with pytest.raises(BoardError, match="empty allowed host"):
        allowed_hosts("127.0.0.1", ("board.lan", " "))  # --allow-host "" allowed nothing
    app = create_app(hosts=allowed_hosts("192.168.1.5", ("board.lan",)), token="t")
    c = TestClient(app, base_url="http://192.168.1.5")
    assert c.get("/api/meta", headers={"X-Scopa-Token": "t"}).status_code == 200
    other = {"Host": "10.0.0.9:8765", "X-Scopa-Token": "t"}
    assert c.get("/api/meta", headers=other).status_code == 403


def test_every_answer_forbids_framing_and_sniffing(app) -> None:  # type: ignore[no-untyped-def]
    c = fresh(app)
    for r in (
        c.get("/"),
        c.get("/static/board.js"),
        c.get("/api/meta"),
        c.get("/?token=s3cret-token"),
    ):
        assert "frame-ancestors 'none'" in r.headers["content-security-policy"]
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "no-referrer"


@pytest.mark.parametrize("name", ["a@b", "x:80", "a/b", "", "[::1"])
def test_a_malformed_allowed_host_is_refused(name: str) -> None:
    from scopa_sim.errors import BoardError

    with pytest.raises(BoardError, match="host name or address"):
        allowed_hosts("192.168.1.5", (name,)) if name else allowed_hosts("127.0.0.1", ("a b",))
