"""scopa_sim.sim.pool.interruptible: a call runs on a kept worker thread (none started
per call), its errors raised in the caller, and a call left running by an interrupt
keeps its worker, which is never handed another call."""

from __future__ import annotations

import _thread
import threading
import time

import pytest

from scopa_sim.sim import pool


def test_calls_reuse_a_worker_thread() -> None:
    pool.interruptible(lambda: None)
    before = threading.active_count()
    names = {pool.interruptible(lambda: threading.current_thread().ident) for _ in range(50)}
    assert threading.active_count() == before
    assert len(names) == 1 and threading.get_ident() not in names


def test_an_error_is_raised_in_the_caller() -> None:
    def fail() -> None:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        pool.interruptible(fail)
    assert pool.interruptible(lambda x, y=0: x + y, 2, y=3) == 5


def test_an_interrupted_call_s_worker_is_not_reused() -> None:
    release = threading.Event()
    busy: list[int] = []

    def slow() -> None:
        busy.append(threading.get_ident())
        release.wait(10)

    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        pool.interruptible(slow)
    assert pool.abandoned()
    other = pool.interruptible(threading.get_ident)
    assert other != busy[0]
    release.set()
    deadline = time.monotonic() + 5
    while pool.abandoned() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not pool.abandoned()
