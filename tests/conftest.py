"""Suite-wide set-up: compile the kernels once, before the test workers start.

Most of the suite's time on a fresh machine is numba compiling the big loops (25-60 s
each). Under pytest-xdist each worker would compile whatever kernel its tests reach
first, often the same one as another worker at the same time, while tests that start
processes of their own (workers of a run, the installed command) compile it once more
in each. So the controller first runs :func:`scopa_sim.sim.warm.warm` (each kernel compiled
once, the tasks shared out over as many processes as there are test workers), and every
later process loads the kernels from numba's cache. With the cache warm this takes a few
seconds, also in the quick loop (``make test-quick``, the tests not marked ``slow``); on a
cold cache it is most of the run's time, several minutes. Set ``SCOPA_SIM_TEST_WARM=0``
to skip it.

It also gives Ctrl-C back to the processes the tests start: a suite started in the
background of a script (``make test &``, ``nohup``) begins with SIGINT ignored, which
every child inherits and Python then honours, so the tests of what a terminal's Ctrl-C
does would see it ignored.
"""

from __future__ import annotations

import os
import signal
import sys
import time

import pytest


def _let_ctrl_c_through() -> None:
    """Restore SIGINT's default if this run inherited it ignored: a Python handler is reset
    to the default in a child at exec, an ignored signal stays ignored."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_configure(config: pytest.Config) -> None:
    _let_ctrl_c_through()
    if hasattr(config, "workerinput") or os.environ.get("SCOPA_SIM_TEST_WARM") == "0":
        return  # an xdist worker: the controller has warmed the cache
    distributed = getattr(config.option, "dist", "no") != "no"
    workers = len(getattr(config.option, "tx", None) or []) if distributed else 0
    if workers < 2 or config.option.collectonly:
        return  # one process compiles each kernel once anyway
    from scopa_sim.sim.warm import warm

    t0 = time.perf_counter()
    done = [task.name for task, _ in warm(jobs=workers)]
    print(
        f"numba cache warmed ({len(done)} tasks) in {time.perf_counter() - t0:.0f} s",
        file=sys.stderr,
    )


@pytest.fixture(autouse=True)
def _signal_handlers_restored() -> object:
    """Each test leaves SIGINT's and SIGTERM's handlers and the pool's
    ``end_on_interrupt`` as it found them: a command interrupted in-process (``CliRunner``)
    ignores further interrupts while it ends, and a later test's child would inherit an
    ignored SIGINT and run on through the Ctrl-C it is sent."""
    from scopa_sim.sim import pool

    saved = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    ends = pool._ENDS_ON_INTERRUPT
    yield
    signal.signal(signal.SIGINT, saved[0])
    signal.signal(signal.SIGTERM, saved[1])
    pool._ENDS_ON_INTERRUPT = ends
