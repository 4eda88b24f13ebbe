"""Helpers of the board's tests (board/test_*.py): game records to open, and the board
served by the installed command in a subprocess, as a user starts it."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from scopa_sim.bots.registry import PolicySpec
from scopa_sim.game.rules import Rules
from scopa_sim.records.record import write_records
from scopa_sim.sim.match import play_match

HEADERS = {"X-Scopa-Board": "1", "Content-Type": "application/json"}


def make_records(
    path: Path, seed: int = 1, policies: tuple[str, str] = ("greedy", "random")
) -> Path:
    """One match of ``policies`` as a scopa-record/1 file (a few hands)."""
    rules = Rules.make("scopa")
    specs = [PolicySpec.parse(p) for p in policies]
    with path.open("w", encoding="utf-8") as f:
        write_records(f, rules, play_match(rules, specs, seed=seed, match=0))
    return path


def command() -> list[str]:
    """The installed ``scopa-sim`` beside this Python."""
    return [str(Path(sys.executable).parent / "scopa-sim")]


@contextmanager
def served(cwd: Path, *args: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``scopa-sim board --port 0`` running in ``cwd``: the process and its URL; stopped
    (SIGTERM, then SIGKILL) on the way out if the test did not stop it."""
    proc = subprocess.Popen(
        [*command(), "board", "--port", "0", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert proc.stderr is not None
        said = []
        while True:  # a warning may come first, then the address
            said.append(proc.stderr.readline())
            m = re.search(r"(http://\S+/)\?token=(\S+)", said[-1])
            assert said[-1], f"no address announced: {said!r}"
            if m:
                break
        url = m.group(1)
        HEADERS["X-Scopa-Token"] = m.group(2)  # every request of the tests carries it
        proc.said = said  # type: ignore[attr-defined]
        proc.page_url = f"{url}?token={m.group(2)}"  # type: ignore[attr-defined]
        deadline = time.monotonic() + 60
        while True:  # the server answers once uvicorn runs
            try:
                get(url + "api/meta")
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.1)
        yield proc, url
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def get(url: str) -> Any:
    """GET JSON with the running board's token."""
    req = urllib.request.Request(url, headers={"X-Scopa-Token": HEADERS.get("X-Scopa-Token", "")})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.load(r)


def post(
    url: str, body: Any = None, raw: bytes | None = None, headers: dict | None = None
) -> tuple[int, Any]:
    """POST JSON (or ``raw`` bytes); (status, decoded JSON answer), errors included."""
    data = raw if raw is not None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers=headers or HEADERS, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)
