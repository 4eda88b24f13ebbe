"""simulate under stress: long matches, huge counts, signals, dead parents, Dask clusters
without workers, and resuming a finished run. Each test runs the command that showed
the problem (issue 14)."""

from __future__ import annotations

import itertools
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from helpers.cli import one_line_error, run
from helpers.procs import alive, descendants

from scopa_sim import _engine as K
from scopa_sim.bots.registry import PolicySpec, seat_policies
from scopa_sim.data import dataset as D
from scopa_sim.data import run as RUN
from scopa_sim.data.run import scan
from scopa_sim.game.rules import MAX_TARGET, Rules
from scopa_sim.sim import executors as EX
from scopa_sim.sim import shards as SH
from scopa_sim.sim import simulate as S
from scopa_sim.sim.match import MatchError, play_match

ROOT = Path(__file__).resolve().parents[2]


def _spawn(*args: object, **kw) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "scopa_sim_cli.main", *map(str, args)],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        **kw,
    )


def _wait_for(condition, seconds: float = 120) -> None:
    deadline = time.time() + seconds
    while not condition():
        assert time.time() < deadline, "timed out"
        time.sleep(0.05)


def _listed_shards(d: Path) -> list:
    """The shards the run's manifest lists so far (none while it is being created)."""
    try:
        return json.loads((d / D.MANIFEST).read_text())["shards"]
    except (OSError, ValueError, KeyError):
        return []


def _read(d: Path):
    return scan(d).collect().sort("match", "hand")


# --------------------------------------------------------------------------- long matches


def test_long_matches_simulate(tmp_path):
    """simulate --matches N --rule target=200 crashed ("a match did not end within the
    output buffer"); now any target the rules accept works."""
    r = run("simulate", "--matches", 300, "--rule", "target=200", "--out", tmp_path / "a", "-q")
    assert r.exit_code == 0, r.output
    df = _read(tmp_path / "a")
    ends = df.filter(df["winner"].is_not_null())
    assert ends.height == 300 and ends["match"].n_unique() == 300
    assert df.group_by("match").len()["len"].min() > 30  # long matches indeed
    assert (ends.select(pl.max_horizontal("s0_total", "s1_total")) >= 200).to_series().all()
    top = run(
        "simulate",
        "--matches",
        3,
        "--preset",
        "scopa-4-solo",
        "--rule",
        f"target={MAX_TARGET}",
        "--out",
        tmp_path / "b",
        "-q",
    )
    assert top.exit_code == 0, top.output
    assert _read(tmp_path / "b")["hand"].max() > 500


def test_long_matches_equal_the_hand_by_hand_rows():
    """The fused loop's rows for long matches, in blocks, equal the step kernels'."""
    r = Rules.make("scopa", ["target=150"])
    cfg = RUN.SimConfig.make("scopa", r, seat_policies(["greedy"], 2), "matches", 4, 5)
    ref = SH._bot_rows(cfg, [PolicySpec.parse("greedy")] * 2, 1, 3)
    assert (SH.compute_rows(cfg, 1, 3) == ref).all()


def test_a_match_outgrowing_the_buffer_is_computed_again(monkeypatch):
    """The jitted loop raises when a match outgrows its buffer; the block is then made
    again with fewer matches, giving the same rows; a match that never ends (past the
    loop's MAX_HANDS_PER_MATCH) is a one-line SimulationError."""
    r = Rules.make("scopa", ["target=60"])
    cfg = RUN.SimConfig.make("scopa", r, seat_policies(["random"], 2), "matches", 40, 2)
    expected = SH.compute_rows(cfg, 0, 40)
    real = K.fused_rows
    calls = []

    def overflow_once(rules, codes, seed, by_match, first, n, out, model=None):
        calls.append(n)
        if len(calls) == 1:
            raise ValueError("fused_hands: a match did not end within the output buffer")
        return real(rules, codes, seed, by_match, first, n, out, model=model)

    monkeypatch.setattr(K, "fused_rows", overflow_once)
    assert (SH.compute_rows(cfg, 0, 40) == expected).all()
    assert calls[:2] == [40, 20]

    def never_ends(*args, **kwargs):
        raise ValueError("fused_hands: a match did not end within the output buffer")

    monkeypatch.setattr(K, "fused_rows", never_ends)
    with pytest.raises(S.SimulationError, match="match 0 did not end within 10,000 hands"):
        SH.compute_rows(cfg, 0, 40)


def test_long_matches_play():
    """play --rule target=100000 raised RuntimeError; the target range is now checked up
    front, and the longest target plays to the end."""
    assert "allowed: integers 1..1000" in one_line_error(run("play", "--rule", "target=100000"))
    big = "99999999999999999999"  # overflowed in pack_rules
    assert "allowed: integers 1..1000" in one_line_error(run("play", "--rule", f"target={big}"))
    r = run("play", "--rule", f"target={MAX_TARGET}", "--matches", 1)
    assert r.exit_code == 0, r.output
    assert "1 win," in r.output


def test_a_match_that_never_ends_is_a_scopa_error(monkeypatch):
    import scopa_sim.sim.match as M

    monkeypatch.setattr(M, "MAX_HANDS_PER_MATCH", 3)
    r = Rules.make("scopa", ["target=1000"])
    with pytest.raises(MatchError, match="did not end within 3 hands"):
        list(play_match(r, [PolicySpec.parse("random")] * 2, 0, 0))


def test_default_shard_size_keeps_shards_small_for_long_matches():
    short, long = Rules.make("scopa-4-solo"), Rules.make("scopa", ["target=1000"])
    assert RUN.default_shard_size("matches", short) == RUN.DEFAULT_SHARD_MATCHES
    assert RUN.default_shard_size("matches", long) == RUN.DEFAULT_SHARD_MATCHES * 44 // 2000
    assert RUN.default_shard_size("hands", long) == RUN.DEFAULT_SHARD_HANDS


# --------------------------------------------------------------------------- huge runs


@pytest.mark.slow
def test_huge_hand_counts_start_at_once_and_stop_on_ctrl_c(tmp_path):
    """simulate --hands 10**15 grew memory by gigabytes before writing a shard and ignored
    Ctrl-C: shards are now planned as they are taken."""
    d = tmp_path / "huge"
    proc = _spawn("simulate", "--hands", 10**15, "--shard-size", 1000, "--workers", 2, "-q",
                  "--out", d)  # fmt: skip
    # the manifest, not the shard files: a worker renames its file into place before the
    # parent records it (resume adopts such a file), so files alone race the assertion below
    _wait_for(lambda: len(_listed_shards(d)) >= 2, 60)
    rss = int(Path(f"/proc/{proc.pid}/statm").read_text().split()[1]) * os.sysconf("SC_PAGESIZE")
    assert rss < 1 << 30
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "--resume" in err and "Traceback" not in err
    doc = json.loads((d / D.MANIFEST).read_text())
    assert doc["config"]["count"] == 10**15 and len(doc["shards"]) >= 2


def test_the_shard_plan_is_lazy():
    cfg = RUN.SimConfig.make("scopa", Rules(), seat_policies(["random"], 2), "hands", 10**18, 0, 1)
    run_ = SH.RunWriter(Path("."), cfg, {"shards": [{"index": 0}]})
    todo = run_.todo()
    assert next(todo) == 1 and next(todo) == 2  # a list would hold 10**18 entries


# --------------------------------------------------------------------------- signals


@pytest.mark.slow
def test_sigterm_is_handled_like_ctrl_c(tmp_path):
    """SIGTERM exited 143 without a word and left a temporary shard file."""
    d = tmp_path / "term"
    args = ["--hands", 400000, "--seed", 5, "--shard-size", 20000, "--workers", 2, "-q"]
    proc = _spawn("simulate", *args, "--out", d)
    _wait_for(lambda: len(D.finished_shards(d)) >= 2)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert "terminated (SIGTERM)" in err and "--resume" in err and "Traceback" not in err
    assert not list((d / "shards").glob(".*tmp"))
    assert not json.loads((d / D.MANIFEST).read_text())["complete"]
    r = run("simulate", *args, "--out", d, "--resume")
    assert r.exit_code == 0, r.output
    ref = tmp_path / "ref"
    assert run("simulate", *args, "--out", ref).exit_code == 0
    assert _read(d).equals(_read(ref))


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_worker_processes_stop_when_simulate_is_killed(tmp_path):
    """kill -9 of a simulate whose shards run in processes (search policies) left the
    workers running and writing shards for a minute."""
    d = tmp_path / "k9"
    proc = _spawn("simulate", "--hands", 400, "--shard-size", 2, "--workers", 2, "-q",
                  "--policy", "ismcts:iterations=3000", "--out", d)  # fmt: skip
    _wait_for(lambda: len(descendants(proc.pid)) >= 3, 60)  # forkserver and two workers
    time.sleep(0.5)
    children = descendants(proc.pid)
    proc.kill()  # not reaped yet: the workers see a zombie parent
    deadline = time.time() + 5
    while any(alive(p) for p in children) and time.time() < deadline:
        time.sleep(0.05)
    proc.wait()
    assert not [p for p in children if alive(p)]
    shards = len(D.finished_shards(d))
    time.sleep(1)
    assert len(D.finished_shards(d)) == shards  # nobody writes any more


def test_resume_of_a_finished_run_says_so(tmp_path):
    """--resume of a finished run printed "0 hands in 0.00 s"."""
    d = tmp_path / "done"
    assert run("simulate", "--hands", 300, "--out", d, "-q").exit_code == 0
    r = run("simulate", "--hands", 300, "--out", d, "-q", "--resume")
    assert r.exit_code == 0
    assert "is already complete (300 hands; run " in r.output and "0.00 s" not in r.output
    m = tmp_path / "matches"
    assert run("simulate", "--matches", 20, "--out", m, "-q").exit_code == 0
    r = run("simulate", "--matches", 20, "--out", m, "-q", "--resume")
    assert f"already complete (20 matches, {_read(m).height:,} hands; run" in r.output


def test_resume_takes_the_runs_shard_size(tmp_path):
    """A run made with --shard-size is resumed without repeating it."""
    d = tmp_path / "r"
    cfg = RUN.SimConfig.make("scopa", Rules(), seat_policies(["random"], 2), "hands", 500, 0, 100)
    with pytest.raises(KeyboardInterrupt):
        S.simulate(d, cfg, _interrupt_after(2))
    r = run("simulate", "--hands", 500, "--out", d, "-q", "--resume", "--workers", 1)
    assert r.exit_code == 0, r.output
    # the hands computed by this call (a rate such as "37,500 hands/s" must not count)
    assert re.search(r"(^|\s)300 hands in", r.output), r.output
    assert not re.search(r"(^|\s)500 hands in", r.output), r.output


def _interrupt_after(n: int):
    def execute(run_, todo, done=None):
        for i in itertools.islice(todo, n):
            yield SH.run_shard(run_.config, i, str(run_.directory))
        raise KeyboardInterrupt

    return execute


# --------------------------------------------------------------------------- Dask


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("notaurl", "missing port number"),
        ("tcp://127.0.0.1", "missing port number"),
        ("127.0.0.1", "missing port number"),
        ("http://127.0.0.1:1", "unknown address scheme 'http'"),
        ("tcp://[::1", "invalid address"),
        ("tcp://:8786", "no host"),
        ("tcp://127.0.0.1:99999", "port 99999 is not 1..65535"),
        ("tcp://127.0.0.1:abc", "invalid literal"),
        ("", "missing port number"),
    ],
)
def test_malformed_scheduler_addresses(tmp_path, address, why):
    pytest.importorskip("distributed")
    r = run("simulate", "--hands", 10, "--executor", "dask", "--scheduler", address,
            "--out", tmp_path / "d")  # fmt: skip
    error = one_line_error(r)
    assert f"bad Dask scheduler address {address!r}: {why}" in error, error
    assert not (tmp_path / "d").exists()


def _cluster(workers: int):
    """A scheduler on 127.0.0.1 with ``workers`` in-process workers (threads)."""
    distributed = pytest.importorskip("distributed")
    return distributed.LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=False,
        protocol="tcp",
        host="127.0.0.1",
        dashboard_address=None,
    )


@pytest.fixture
def empty_cluster():
    cluster = _cluster(0)
    yield cluster
    cluster.close()


def test_a_scheduler_without_workers_times_out(tmp_path, empty_cluster):
    t0 = time.time()
    r = run("simulate", "--hands", 10, "--executor", "dask", "--out", tmp_path / "d",
            "--scheduler", empty_cluster.scheduler_address, "--worker-timeout", 1)  # fmt: skip
    assert time.time() - t0 < 30
    assert "waiting for Dask workers at" in r.stderr
    assert r.stderr.strip().splitlines()[-1].startswith("Error: no Dask worker at")
    assert r.exit_code == 1 and "(--worker-timeout)" in r.stderr
    assert not (tmp_path / "d").exists()


def test_a_cluster_whose_workers_all_go_times_out(tmp_path):
    """Workers that all die in the middle of a run: a clear error after the time-out, with
    the finished shards kept for --resume."""
    cluster = _cluster(1)
    cfg = RUN.SimConfig.make("scopa", Rules(), seat_policies(["random"], 2), "hands", 1000, 0, 100)
    notes: list[str] = []

    def kill_worker(units: int, rows: int) -> None:
        if not notes:
            notes.append("killed")
            cluster.scale(0)

    execute = EX.dask_executor(cluster.scheduler_address, 1, 1.0, notify=notes.append)
    try:
        with pytest.raises(S.SimulationError, match=r"every Dask worker .* gone .* within 1 s"):
            S.simulate(tmp_path / "d", cfg, execute, progress=kill_worker)
    finally:
        cluster.close()
    assert any("no Dask worker left" in n for n in notes)
    assert D.finished_shards(tmp_path / "d")
    assert not json.loads((tmp_path / "d" / D.MANIFEST).read_text())["complete"]


def _slow_blocks(monkeypatch, seconds: float) -> None:
    """Shards of in-process workers computed in blocks of 4,096 hands, each ``seconds``
    longer (the rows as they are), reported on every block."""
    block = SH._block_into

    def slow(*args, **kw):
        time.sleep(seconds)
        return block(*args, **kw)

    monkeypatch.setattr(SH, "_block_into", slow)
    monkeypatch.setattr(SH, "PROGRESS_SECONDS", 0.001)
    monkeypatch.setattr(EX, "DASK_REPORT_SECONDS", 0.0)


def test_dask_progress_moves_within_a_shard(tmp_path, monkeypatch):
    """Progress on a Dask cluster is told before the first shard finishes, in parts of
    shards, at least once a second, and adds up to the run's hands exactly; the data are
    those of a run without progress."""
    _slow_blocks(monkeypatch, 0.05)  # a shard of 49,152 hands: 12 blocks, about 0.6 s
    shard, count = 12 * SH.PROGRESS_HANDS, 24 * SH.PROGRESS_HANDS
    cfg = RUN.SimConfig.make(
        "scopa", Rules(), seat_policies(["random"], 2), "hands", count, 4, shard
    )
    d = tmp_path / "d"
    calls: list[tuple[int, int]] = []  # (hands told, shards written so far)
    times: list[float] = []

    def progress(units: int, rows: int) -> None:
        assert rows == units
        calls.append((units, len(D.finished_shards(d))))
        times.append(time.monotonic())

    cluster = _cluster(1)
    try:
        S.simulate(d, cfg, EX.dask_executor(cluster.scheduler_address, 1), progress=progress)
    finally:
        cluster.close()
    assert calls[0][1] == 0, calls  # told before the first shard was written
    assert max(b - a for a, b in itertools.pairwise(times)) < 1.0  # at least once a second
    assert any(0 < units < shard for units, _ in calls), calls
    assert all(units >= 0 for units, _ in calls)
    assert sum(units for units, _ in calls) == count
    S.simulate(tmp_path / "plain", cfg, EX.local_executor(1))
    assert scan(d).collect().equals(scan(tmp_path / "plain").collect())


def test_dask_progress_of_a_shard_computed_again_is_counted_once(tmp_path, monkeypatch):
    """A shard whose worker is removed in the middle is computed again on another worker,
    whose reports start from zero again: the progress neither goes back nor counts the
    shard twice."""
    _slow_blocks(monkeypatch, 0.1)  # 12 blocks, about 1.2 s
    shard = 12 * SH.PROGRESS_HANDS
    cfg = RUN.SimConfig.make(
        "scopa", Rules(), seat_policies(["random"], 2), "hands", shard, 5, shard
    )
    reports: list[int] = []  # units so far, as the tasks logged them
    take = EX._DaskReports.take

    def spy(self, event):
        reports.append(event[1][2])
        take(self, event)

    monkeypatch.setattr(EX._DaskReports, "take", spy)
    cluster = _cluster(2)
    calls: list[int] = []

    def progress(units: int, rows: int) -> None:
        calls.append(units)
        if len(calls) == 1:  # remove the worker computing the shard
            (task,) = cluster.scheduler.tasks.values()
            assert task.processing_on is not None, "the shard finished before its first report"
            address = task.processing_on.address
            cluster.sync(cluster.scheduler.remove_worker, address=address, stimulus_id="test")

    try:
        S.simulate(
            tmp_path / "d", cfg, EX.dask_executor(cluster.scheduler_address, 2), progress=progress
        )
    finally:
        cluster.close()
    # one task's reports only grow: a report not above the one before is the shard computed
    # again (its first report may equal the removed worker's last one: 4096, 4096)
    assert any(b <= a for a, b in itertools.pairwise(reports)), reports
    assert all(units >= 0 for units in calls) and sum(calls) == shard, calls


def test_dask_progress_does_not_hang_when_the_scheduler_dies(tmp_path, monkeypatch):
    """The scheduler gone in the middle of a run that reports its progress: a one-line
    SimulationError within seconds, the finished shards kept."""
    _slow_blocks(monkeypatch, 0.05)
    shard = 12 * SH.PROGRESS_HANDS
    cfg = RUN.SimConfig.make(
        "scopa", Rules(), seat_policies(["random"], 2), "hands", 20 * shard, 6, shard
    )
    cluster = _cluster(1)
    killed: list[float] = []

    def progress(units: int, rows: int) -> None:
        if not killed:
            killed.append(time.monotonic())
            cluster.sync(cluster.scheduler.close)

    try:
        with pytest.raises(S.SimulationError) as e:
            S.simulate(
                tmp_path / "d",
                cfg,
                EX.dask_executor(cluster.scheduler_address, 1, 5.0),
                progress=progress,
            )
        assert time.monotonic() - killed[0] < 30
        assert "\n" not in str(e.value)
    finally:
        cluster.close()


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
@pytest.mark.parametrize("how", ["ctrl-c", "kill -9"])
def test_a_dask_run_with_progress_stops_cleanly(tmp_path, how):
    """Ctrl-C of a simulate on a local Dask cluster whose progress is followed: one line
    (no warning of the workers' cancelled tasks above it) and status 130; kill -9: nothing
    to say. Either way no process is left."""
    pytest.importorskip("distributed")
    proc = _spawn("simulate", "--hands", 50_000_000, "--executor", "dask", "--workers", 1,
                  "--progress", "--out", tmp_path / "d")  # fmt: skip
    _wait_for(lambda: len(descendants(proc.pid)) >= 2, 120)  # a nanny and its worker
    time.sleep(3)  # shards under way
    children = descendants(proc.pid)
    if how == "ctrl-c":
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, err
        assert "Traceback" not in err and err.strip().splitlines()[-1].startswith("interrupted")
        # the cancelled tasks' workers say nothing of it (their log is at ERROR)
        assert "CancelledError" not in err and "WARNING" not in err, err
    else:
        proc.kill()
        proc.communicate(timeout=60)
    _wait_for(lambda: not [p for p in children if alive(p)], 20)


def test_dask_progress_counts_a_shard_computed_again_once():
    """Reports of a shard are its units so far: a shard that Dask computes again reports
    from zero again and adds nothing until it passes what was told; reports of another
    run, of a finished shard or malformed are dropped."""
    told: list[tuple[int, int]] = []
    reports = EX._DaskReports("run", lambda shard, units: told.append((shard, units)))
    reports.start(0)
    reports.start(1)
    events = [
        ["run", 0, 4096],
        ["other", 0, 200000],
        ["run", 0, 8192],
        ["run", 1, 4096],
        ["run", 0, 4096],  # shard 0 again, from zero, on another worker
        ["run", 0, 8192],
        ["run", 0, 12288],
        ["run", 7, 4096],  # not in flight
        "junk",
        ["run", 0],
    ]
    for msg in events:
        reports.take((0.0, msg))
    reports.take("junk")
    reports.pass_on()
    assert told == [(0, 4096), (0, 4096), (1, 4096), (0, 4096)]
    reports.finish(0)
    reports.take((0.0, ["run", 0, 20000]))
    reports.pass_on()
    assert len(told) == 4


def test_a_run_directory_removed_in_the_middle_is_a_one_line_error(tmp_path):
    """The directory (or the disk) fails under a running simulate: a SimulationError that
    says so, not an OSError's traceback."""
    import shutil

    d = tmp_path / "gone"
    cfg = RUN.SimConfig.make("scopa", Rules(), seat_policies(["random"], 2), "hands", 600, 0, 200)

    def remove(units: int, rows: int) -> None:
        shutil.rmtree(d / "shards")

    with pytest.raises(S.SimulationError, match=r"the run in .*gone failed: No such file"):
        S.simulate(d, cfg, EX.local_executor(1), progress=remove)
