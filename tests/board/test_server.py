"""``scopa-sim board`` as a user runs it: a subprocess serving on a free port, 50
concurrent requests (good and bad) answered without a crash, and Ctrl-C or SIGTERM
stopping it with no process left behind (its worker and the pool's forkserver)."""

from __future__ import annotations

import signal
import socket
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from helpers.board import HEADERS, command, get, make_records, post, served
from helpers.procs import alive, descendants

pytestmark = pytest.mark.slow

CARDS = {"cards": {"hand": "7D 3S KH", "table": "7C 5H 2S 4D"}}


def _request(url: str, i: int, records: Path) -> tuple[int, Any]:
    """One of several kinds of request, good and bad, by ``i``."""
    kind = i % 7
    if kind == 0:
        return 200, get(url + "api/meta")
    if kind == 1:
        return post(url + "api/position", {"position": CARDS})
    if kind == 2:
        return post(url + "api/position", raw=b"{junk")
    if kind == 3:
        return post(url + "api/analyse", {"page": f"p{i}", "position": CARDS})
    if kind == 4:
        return post(url + "api/record/open", {"path": str(records)})
    if kind == 5:
        return post(url + "api/record/upload", raw=b"x" * (9 << 20))
    return post(url + "api/position", {"position": {"cards": {"hand": "7D", "scope": [9, 9]}}})


def test_fifty_concurrent_requests_do_not_crash_it(tmp_path: Path) -> None:
    records = make_records(tmp_path / "games.jsonl")
    with served(tmp_path) as (proc, url):
        with ThreadPoolExecutor(50) as pool:
            answers = list(pool.map(lambda i: _request(url, i, records), range(50)))
        for i, (status, doc) in enumerate(answers):
            want = {0: 200, 1: 200, 2: 400, 3: 200, 4: 200, 5: 413, 6: 400}[i % 7]
            assert status == want, (i, status, doc)
            assert status == 200 or set(doc) == {"error"}
        jobs = [doc for i, (_, doc) in enumerate(answers) if i % 7 == 3]
        deadline = time.monotonic() + 120
        for job in jobs:  # every analysis queued in the one worker finishes
            while not job["final"]:
                assert time.monotonic() < deadline
                time.sleep(0.1)
                job = get(url + f"api/job/{job['id']}")
            assert job["status"] == "done", job
        assert proc.poll() is None and get(url + "api/meta")["presets"]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_signal_stops_it_with_no_process_left(tmp_path: Path, sig: signal.Signals) -> None:
    with served(tmp_path) as (proc, url):
        job = post(url + "api/analyse", {"page": "x", "position": CARDS,
                                         "policy": "ismcts:iterations=2000000"})[1]  # fmt: skip
        deadline = time.monotonic() + 60
        while job["stage"] < 1:  # a long stage is running in the worker
            assert time.monotonic() < deadline
            time.sleep(0.05)
            job = get(url + f"api/job/{job['id']}")
        below = descendants(proc.pid)
        assert below, "the worker and the forkserver run below the server"
        proc.send_signal(sig)
        t0 = time.monotonic()
        proc.wait(20)
        assert time.monotonic() - t0 < 5  # promptly
        assert proc.returncode == (130 if sig == signal.SIGINT else 143)
        assert proc.stderr is not None
        err = proc.stderr.read()
        assert "Traceback" not in err and "board stopped" in err, err
        assert "leaked" not in err, err  # the pool's semaphores released
    deadline = time.monotonic() + 10
    while any(alive(p) for p in below) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in below if alive(p)]


def test_a_port_in_use_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        done = subprocess.run(
            [*command(), "board", "--port", str(port)], capture_output=True, text=True, timeout=60
        )
    assert done.returncode == 2
    assert "cannot listen on 127.0.0.1" in done.stderr and "Traceback" not in done.stderr


def test_a_host_other_than_loopback_is_warned_about(tmp_path: Path) -> None:
    with served(tmp_path, "--host", "0.0.0.0", "--allow-host", "board.example") as (proc, url):
        assert "warning: serving on 0.0.0.0" in proc.said[0]  # type: ignore[attr-defined]
        status, _ = post(url + "api/position", {"position": CARDS})
        assert status == 200
        headers = {**HEADERS, "Host": "board.example"}  # a name the user allows
        assert post(url + "api/position", {"position": CARDS}, headers=headers)[0] == 200
        headers = {**HEADERS, "Host": "example.org"}  # and no other
        assert post(url + "api/position", {"position": CARDS}, headers=headers)[0] == 403
        no_token = {k: v for k, v in HEADERS.items() if k != "X-Scopa-Token"}
        assert post(url + "api/position", {"position": CARDS}, headers=no_token)[0] == 403


def test_half_open_connections_are_closed(tmp_path: Path) -> None:
    """A connection that sends nothing, or half a request's headers, is closed after the
    header time; the board goes on serving."""
    from scopa_sim.board.server import HEADER_SECONDS

    with served(tmp_path) as (_proc, url):
        host, port = url.split("//")[1].rstrip("/").rsplit(":", 1)
        silent = socket.create_connection((host, int(port)))
        half = socket.create_connection((host, int(port)))
        half.sendall(b"GET /api/meta HTTP/1.1\r\nHost: 127.0.0.1")
        t0 = time.monotonic()
        for s in (silent, half):
            s.settimeout(HEADER_SECONDS + 10)
            assert s.recv(100) == b""  # closed by the server
            s.close()
        assert time.monotonic() - t0 < HEADER_SECONDS + 5
        assert get(url + "api/meta")["presets"]


def test_connections_are_limited(tmp_path: Path) -> None:
    """Past MAX_CONNECTIONS open connections a request is answered 503 (not queued
    without end); once they close, the board serves again."""
    import urllib.error

    from scopa_sim.board.server import MAX_CONNECTIONS

    with served(tmp_path) as (_proc, url):
        host, port = url.split("//")[1].rstrip("/").rsplit(":", 1)
        held = [socket.create_connection((host, int(port))) for _ in range(MAX_CONNECTIONS)]
        try:
            time.sleep(0.5)
            with pytest.raises(urllib.error.HTTPError) as e:
                get(url + "api/meta")
            assert e.value.code == 503
        finally:
            for s in held:
                s.close()
        time.sleep(0.5)
        assert get(url + "api/meta")["presets"]
