"""The one process pool (issue 24): every command and benchmark that computes in several
processes takes them from :mod:`scopa_sim.sim.pool`, and none leaves a process behind.

* ``kill -9`` of each multi-process command and benchmark, once its workers exist,
  leaves no process of it (its workers, the forkserver, the resource tracker, a program
  it started) alive a few seconds later: the pids are taken from ``/proc`` before the
  kill, since the orphans are re-parented after it.
* Ctrl-C (SIGINT to the process group, as a terminal sends it) and SIGTERM stop
  ``tournament`` and ``simulate`` promptly, with one line on standard error, and leave
  no process. (``tournament``'s workers took a terminal's Ctrl-C too: tracebacks, then
  ``Aborted!``, sometimes a hang; and SIGTERM left them to finish their blocks.)
* No ``ProcessPoolExecutor`` outside ``scopa_sim/sim/pool.py``.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers.procs import alive, tree

from scopa_sim.bots.registry import PolicySpec
from scopa_sim.game.rules import Rules
from scopa_sim.records.record import write_records
from scopa_sim.sim import pool as P
from scopa_sim.sim.match import play_match

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")

#: Seconds a killed command's processes get to notice and end (the watchdog checks
#: every 0.2 s; a loaded 2-core machine is slow to schedule them).
GONE_WITHIN = 3.0
#: Seconds a command gets to start its workers.
START_WITHIN = 60.0


# --------------------------------------------------------------------------- /proc
def _left(pids: set[int], seconds: float) -> list[int]:
    """The processes of ``pids`` still alive after waiting up to ``seconds``."""
    deadline = time.monotonic() + seconds
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return sorted(p for p in pids if alive(p))


def _describe(pids: list[int]) -> list[str]:
    out = []
    for p in pids:
        try:
            out.append(f"{p}: " + Path(f"/proc/{p}/cmdline").read_bytes().replace(b"\0", b" ")
                       .decode(errors="replace")[:160])  # fmt: skip
        except OSError:
            out.append(f"{p}: gone")
    return out


# --------------------------------------------------------------------------- running
class Started:
    """A command started in a session of its own, its standard error collected."""

    def __init__(self, argv: list[str], env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            argv,
            cwd=ROOT,
            env={**os.environ, **(env or {})},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        self.err: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.err.append(line)

    def stderr(self) -> str:
        self._reader.join(timeout=10)
        return "".join(self.err)

    def wait_for_workers(self, depth: int, count: int) -> set[int]:
        """Every process below the command once ``count`` of them are ``depth`` levels
        below it (2: a pool's workers, children of its forkserver; 0: threads of the
        command, besides its main thread)."""
        deadline = time.monotonic() + START_WITHIN
        while True:
            below = tree(self.proc.pid)
            if depth == 0:
                found = len(list(Path(f"/proc/{self.proc.pid}/task").glob("*"))) - 1
            else:
                found = sum(d == depth for d in below.values())
            if found >= count:
                time.sleep(0.2)  # let the pool finish starting what it starts at once
                return set(tree(self.proc.pid)) | set(below)
            if self.proc.poll() is not None:
                pytest.fail(f"ended before its workers started:\n{self.stderr()}")
            if time.monotonic() > deadline:
                self.kill_all()
                pytest.fail(f"no {count} processes at depth {depth} within {START_WITHIN} s")
            time.sleep(0.05)

    def kill_all(self) -> None:
        """The test's own clean-up: whatever is left of the session."""
        with contextlib.suppress(OSError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A few recorded matches of greedy against random, for ``review``."""
    path = tmp_path_factory.mktemp("records") / "games.jsonl"
    rules = Rules.make("scopa")
    specs = [PolicySpec.parse("greedy"), PolicySpec.parse("random")]
    with path.open("w", encoding="utf-8") as f:
        for m in range(2):
            write_records(f, rules, play_match(rules, specs, 7, m))
    return path


SEARCH = "ismcts:iterations=3000"


@dataclass(frozen=True)
class Case:
    """A multi-process command or benchmark to stop: its arguments (``{tmp}``: a
    temporary directory, ``{records}``: recorded matches), the depth of its workers
    below it (2: a pool's, under its forkserver; 0: threads) and how many to wait for,
    and whether it runs on an empty numba cache (so that its tasks compile for a
    minute)."""

    argv: str
    depth: int = 2
    count: int = 2
    cold: bool = False

    def command(self, tmp: Path, records: Path | None = None) -> list[str]:
        fill = {"{tmp}": str(tmp), "{records}": str(records)}
        args = [fill.get(a, a) for a in self.argv.split()]
        if args[0].startswith("bench_"):
            return [sys.executable, str(ROOT / "benchmarks" / f"{args[0]}.py"), *args[1:]]
        if args[0].startswith("experiments."):
            return [sys.executable, "-m", f"scopa_sim.{args[0]}", *args[1:]]
        return [sys.executable, "-m", "scopa_sim_cli.main", *args]


CASES = {
    "simulate": Case(
        f"simulate --hands 400 --shard-size 2 --workers 2 -q --policy {SEARCH} --out {{tmp}}"
    ),
    "warm": Case("warm --only fused-2p --only steps --jobs 2", cold=True),
    "tournament": Case(f"tournament --policy {SEARCH} --policy greedy --deals 200 --workers 2 -q"),
    # threads (the evaluator's kernel runs without the GIL): nothing may be left either
    "review": Case("review {records} --workers 2 -q", depth=0),
    "belief": Case(
        "experiments.belief --parts quality --quality-deals 50 --opponents greedy --workers 2"
    ),
    "ladder": Case("experiments.ladder --only ismcts:iterations=4000 --deals 50 --workers 2"),
    "match": Case(
        "experiments.match --pairs 20 --equity-hands 2000 --b-iterations 300 "
        "--base ismcts:iterations=300 --workers 2"
    ),
    # the scopa-sim review it starts to time the command
    "review_experiment": Case("experiments.review --quick --speed-only", depth=1, count=1),
    # the search policy's run is in processes (shards of 250 hands)
    "variance": Case("experiments.variance --hands 200 --search-hands 600 --workers 2"),
    # the scopa-sim simulate it starts (random play: threads, no workers of its own)
    "bench_simulate": Case("bench_simulate --hands 100000 --repeat 1", depth=1, count=1),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
def test_kill_9_leaves_no_process(name: str, tmp_path: Path, records: Path) -> None:
    case = CASES[name]
    env = {"TMPDIR": str(tmp_path)}  # what a benchmark leaves in its temporary files
    if case.cold:
        env["NUMBA_CACHE_DIR"] = str(tmp_path / "numba-cache")
    run = Started(case.command(tmp_path / "out", records), env)
    try:
        pids = run.wait_for_workers(case.depth, case.count)
        os.kill(run.proc.pid, signal.SIGKILL)  # not reaped yet: its children see a zombie
        left = _left(pids, GONE_WITHIN)
        assert not left, f"{name}: still running after kill -9:\n" + "\n".join(_describe(left))
    finally:
        run.kill_all()


# --------------------------------------------------------------------------- signals
#: What the one line says, besides "interrupted" or "terminated (SIGTERM)".
STOPPED = {
    "tournament": "tournament stopped before it finished",
    "simulate": "run the same command with --resume",
}


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
@pytest.mark.parametrize("name", list(STOPPED))
def test_ctrl_c_and_sigterm_stop_at_once(name: str, sig: int, tmp_path: Path) -> None:
    says = STOPPED[name]
    run = Started(CASES[name].command(tmp_path / "out"))
    try:
        pids = run.wait_for_workers(2, 2)
        t0 = time.monotonic()
        if sig == signal.SIGINT:  # a terminal's Ctrl-C: the whole foreground group
            os.killpg(run.proc.pid, signal.SIGINT)
        else:  # kill PID: the command alone
            os.kill(run.proc.pid, signal.SIGTERM)
        code = run.proc.wait(timeout=30)
        seconds = time.monotonic() - t0
        err = run.stderr()
        lines = err.strip().splitlines()
        what, status = (
            ("interrupted", 130) if sig == signal.SIGINT else ("terminated (SIGTERM)", 143)
        )
        assert code == status, err
        assert len(lines) == 1 and lines[0].startswith(what + ": ") and says in lines[0], err
        assert seconds < 10, f"took {seconds:.1f} s to stop"
        left = _left(pids, GONE_WITHIN)
        assert not left, "\n".join(_describe(left))
    finally:
        run.kill_all()


#: When Ctrl-C comes, in seconds after the start: while the modules load, while the pool
#: starts, once its workers compute; the last one twice (a user pressing Ctrl-C again
#: while the command ends).
CTRL_C_AT = (0.3, 0.9, 1.6, 2.5, 4.0)


@pytest.mark.slow
def test_ctrl_c_says_so_in_one_line_every_time() -> None:
    """The scopa-sim command, interrupted at any moment: one line, status 130, no
    traceback (the process pool's exit handler once printed one, a Ctrl-C while the
    modules loaded gave an import's), no process left. A Ctrl-C taken by a thread other
    than the main one (the kernel picks any) once went unnoticed until the next block
    of searches finished, minutes later."""
    command = [str(Path(sys.executable).with_name("scopa-sim")), *CASES["tournament"].argv.split()]
    command[command.index("--deals") + 1] = "20000"
    for at in CTRL_C_AT:
        run = Started(command)
        try:
            time.sleep(at)
            pids = set(tree(run.proc.pid))
            os.killpg(run.proc.pid, signal.SIGINT)
            if at == CTRL_C_AT[-1]:
                time.sleep(0.05)
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(run.proc.pid, signal.SIGINT)
            code = run.proc.wait(timeout=10)
            err = run.stderr()
            assert code == 130, f"Ctrl-C at {at} s: status {code}\n{err}"
            lines = err.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("interrupted: "), f"at {at} s:\n{err}"
            left = _left(pids, GONE_WITHIN)
            assert not left, f"at {at} s:\n" + "\n".join(_describe(left))
        finally:
            run.kill_all()


def test_interrupt_on_sigterm_raises_terminated_and_restores_the_handler() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(P.Terminated), P.interrupt_on_sigterm():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler raises here, in the main thread
    assert signal.getsignal(signal.SIGTERM) == before
    assert issubclass(P.Terminated, KeyboardInterrupt)  # every Ctrl-C clean-up runs for it


# --------------------------------------------------------------------------- one pool
def _python_files() -> list[Path]:
    skip = {".venv", ".git", "build", "dist", "node_modules"}
    return [
        f
        for f in ROOT.rglob("*.py")
        if not skip & set(f.relative_to(ROOT).parts) and not f.name.startswith(".")
    ]


def test_no_process_pool_outside_sim_pool() -> None:
    here = Path(__file__).resolve()
    pool = ROOT / "scopa_sim" / "sim" / "pool.py"
    found = [
        str(f.relative_to(ROOT))
        for f in _python_files()
        if f.resolve() not in (here, pool)
        and re.search(r"ProcessPoolExecutor|get_context\(|multiprocessing\.Pool\b", f.read_text())
    ]
    assert not found, f"processes started outside scopa_sim/sim/pool.py: {found}"


def _calls(text: str, name: str) -> list[str]:
    """The argument text of each call of ``name`` in ``text`` (``name(...)``, or
    ``f(name, ...)`` where it is passed on), up to its closing parenthesis."""
    out = []
    for m in re.finditer(re.escape(name) + r"\s*[(,]", text):
        i, depth = m.end(), 1
        while depth and i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        out.append(text[m.end() : i])
    return out


def test_every_benchmark_that_starts_processes_stops_them() -> None:
    """A benchmark that computes in processes turns SIGTERM into KeyboardInterrupt (so
    that its pool is stopped), and a program it starts (other than git and tar, which
    end at once) dies with it."""
    starts = re.compile(
        r"process_pool|run_tasks\(|local_executor|review_tasks|subprocess\.(run|Popen)"
    )
    checked = []
    programs = sorted((ROOT / "benchmarks").glob("bench_*.py"))
    programs += [f for f in sorted((ROOT / "scopa_sim" / "experiments").glob("*.py"))
                 if f.name not in ("__init__.py", "common.py")]  # fmt: skip
    for f in programs:
        text = f.read_text()
        if starts.search(text):
            assert "with P.interrupt_on_sigterm():" in text, f.name
            checked.append(f.name)
        for call in _calls(text, "subprocess.run") + _calls(text, "subprocess.Popen"):
            if not re.match(r'\s*\[\s*"(git|tar)"', call):
                given = "preexec_fn=" in call or ("**kw" in call and 'kw["preexec_fn"]' in text)
                assert given and "P.dies_with_parent()" in text, (f.name, call)
    assert "ladder.py" in checked and "bench_simulate.py" in checked


def _interrupted_stream() -> None:
    """A thread pool's stream stopped by a KeyboardInterrupt, as a notebook's Ctrl-C."""
    from concurrent.futures import ThreadPoolExecutor

    def ctrl_c(x: int) -> int:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        list(P.stream(ThreadPoolExecutor(1), ctrl_c, [(1,)], ahead=1))


def test_an_interrupted_pool_leaves_a_library_callers_ctrl_c_alone() -> None:
    """In a notebook's kernel (no :func:`end_on_interrupt`), an interrupted call must not
    leave Ctrl-C ignored for the rest of the session; a command line's pool does ignore
    further interrupts while it stops."""
    before = signal.getsignal(signal.SIGINT)
    _interrupted_stream()
    assert signal.getsignal(signal.SIGINT) is before
    P.end_on_interrupt()
    _interrupted_stream()
    assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN  # restored by conftest
