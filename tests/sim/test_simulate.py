"""The batch simulator: reproducibility, pairing, resume, schema, bad input."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner
from scopa_sim_cli.main import cli

from scopa_sim.bots.registry import seat_policies
from scopa_sim.data import dataset as D
from scopa_sim.data.run import GENERATOR, SimConfig, scan
from scopa_sim.errors import SimulationError
from scopa_sim.game.rules import Rules
from scopa_sim.sim.executors import local_executor
from scopa_sim.sim.match import play_match
from scopa_sim.sim.shards import run_shard
from scopa_sim.sim.simulate import simulate


def _config(mode="hands", count=600, seed=3, preset="scopa", policies=("random",), shard=200):
    r = Rules.make(preset)
    return SimConfig.make(
        preset, r, list(seat_policies(policies, r.players)), mode, count, seed, shard
    )


def _read(d: Path) -> pl.DataFrame:
    return scan(d).collect().sort("match", "hand")


def test_schema_pinned_and_rows(tmp_path):
    cfg = _config()
    s = simulate(tmp_path / "a", cfg, local_executor(1))
    assert s.complete and s.rows == 600
    df = _read(tmp_path / "a")
    assert dict(df.schema) == D.SCHEMA
    assert df.height == 600
    assert df["s2_points"].null_count() == 600  # 2 sides: the others are null
    assert (df["dealer"] == df["match"] % 2).all()
    # every hand's points are the sum of its items
    items = ["scope", "cards", "denari", "settebello", "primiera", "re_bello", "napola"]
    for s_ in (0, 1):
        total = sum(df[f"s{s_}_{i}"].cast(pl.Int32) for i in items)
        assert (total == df[f"s{s_}_points"]).all()
    captured = df["s0_captured"].cast(pl.Int32) + df["s1_captured"]
    assert (captured <= 40).all() and (captured == 40).mean() > 0.99
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert manifest["complete"] and len(manifest["shards"]) == 3
    assert manifest["config"]["seed"] == 3 and "numba" in manifest["versions"]


def test_same_data_whatever_workers_and_shard_size(tmp_path):
    a = simulate(tmp_path / "a", _config(shard=200), local_executor(1))
    b = simulate(tmp_path / "b", _config(shard=77), local_executor(2))
    assert a.rows == b.rows
    assert _read(tmp_path / "a").equals(_read(tmp_path / "b"))


@pytest.mark.slow
def test_same_data_with_worker_processes_for_search_policies(tmp_path):
    """Search policies run in worker processes (kernel policies in threads): same data."""
    cfg = _config(count=4, policies=("ismcts:iterations=30", "greedy"), shard=1)
    a = simulate(tmp_path / "a", cfg, local_executor(1))
    b = simulate(tmp_path / "b", cfg, local_executor(2))
    assert a.rows == b.rows == 4
    assert _read(tmp_path / "a").equals(_read(tmp_path / "b"))


def test_matches_mode_agrees_with_play(tmp_path):
    cfg = _config(mode="matches", count=5, seed=11, shard=2)
    simulate(tmp_path / "m", cfg, local_executor(1))
    df = _read(tmp_path / "m")
    r = Rules.make()
    specs = seat_policies(["random"], 2)
    expected = []
    for m in range(5):
        for log in play_match(r, specs, 11, m):
            expected.append((m, log.hand, log.dealer, *log.totals_after, log.winner))
    got = [
        (row["match"], row["hand"], row["dealer"], row["s0_total"], row["s1_total"], row["winner"])
        for row in df.iter_rows(named=True)
    ]
    assert got == expected
    winners = df.filter(pl.col("winner").is_not_null())
    assert winners.height == 5


def test_common_random_numbers_pair_deals(tmp_path):
    """Same seed, different policies: the same decks, so the same first-hand tables."""
    simulate(tmp_path / "r", _config(policies=("random",)), local_executor(1))
    simulate(tmp_path / "g", _config(policies=("greedy",)), local_executor(1))
    r, g = _read(tmp_path / "r"), _read(tmp_path / "g")
    assert r["redeals"].equals(g["redeals"])
    assert not r["s0_points"].equals(g["s0_points"])


def test_existing_dir_not_clobbered_and_resume(tmp_path):
    d = tmp_path / "run"
    cfg = _config()
    simulate(d, cfg, local_executor(1))
    with pytest.raises(SimulationError, match="already holds a run"):
        simulate(d, cfg, local_executor(1))
    before = _read(d)
    # drop a shard and its manifest entry, as after a kill: resume recomputes it
    (d / "shards" / "shard-000001.parquet").unlink()
    doc = json.loads((d / "manifest.json").read_text())
    doc["shards"] = [s for s in doc["shards"] if s["index"] != 1]
    doc["complete"] = False
    (d / "manifest.json").write_text(json.dumps(doc))
    (d / "shards" / ".shard-000001.parquet.123.tmp").write_bytes(b"half")
    s = simulate(d, cfg, local_executor(1), resume=True)
    assert s.complete and s.units_done == 200
    assert _read(d).equals(before)
    assert not list((d / "shards").glob(".*.tmp"))


def test_resume_with_other_config_is_refused(tmp_path):
    d = tmp_path / "run"
    simulate(d, _config(), local_executor(1))
    with pytest.raises(SimulationError, match="differs"):
        simulate(d, _config(seed=4), local_executor(1), resume=True)


@pytest.mark.parametrize("old", [1, 2])
def test_resume_of_a_run_by_an_older_generator_is_refused(tmp_path, old):
    """A manifest of an older generator (1: made before manifests named it) is not resumed."""
    d = tmp_path / "run"
    cfg = _config(count=600, shard=200)
    simulate(d, cfg, local_executor(1))
    doc = json.loads((d / "manifest.json").read_text())
    if old == 1:
        del doc["config"]["generator"]
    else:
        doc["config"]["generator"] = old
    doc["complete"] = False
    doc["shards"] = doc["shards"][:1]
    (d / "manifest.json").write_text(json.dumps(doc))
    expected = rf"generator {old}, .* generator {GENERATOR}; overwrite it to start again"
    with pytest.raises(SimulationError, match=expected):
        simulate(d, cfg, local_executor(1), resume=True)
    assert simulate(d, cfg, local_executor(1), overwrite=True).complete


def test_foreign_and_corrupt_files(tmp_path):
    d = tmp_path / "x"
    d.mkdir()
    (d / "notes.txt").write_text("hello")
    with pytest.raises(SimulationError, match="not empty"):
        simulate(d, _config(), local_executor(1))
    d2 = tmp_path / "run"
    simulate(d2, _config(), local_executor(1))
    (d2 / "shards" / "shard-000001.parquet").write_bytes(b"not parquet")
    with pytest.raises(D.DatasetError, match=r"shard-000001\.parquet: 11 bytes, the manifest"):
        simulate(d2, _config(), local_executor(1), resume=True)
    doc = json.loads((d2 / "manifest.json").read_text())
    for s in doc["shards"]:
        del s["bytes"], s["crc32"]  # a manifest from before sizes and checksums
    (d2 / "manifest.json").write_text(json.dumps(doc))
    with pytest.raises(D.DatasetError, match=r"shard-000001\.parquet: not a readable Parquet"):
        simulate(d2, _config(), local_executor(1), resume=True)
    (d2 / "manifest.json").write_text("{oops")
    with pytest.raises(D.DatasetError, match="corrupt manifest"):
        scan(d2)


def test_cli_simulate_and_errors(tmp_path):
    runner = CliRunner()
    out = tmp_path / "c"
    res = runner.invoke(
        cli, ["simulate", "--hands", "300", "--seed", "1", "--out", str(out), "--workers", "1"]
    )
    assert res.exit_code == 0, res.output
    assert "300 hands" in res.output
    assert scan(out).collect().height == 300
    for args, msg in [
        (["--hands", "0"], "the number of hands must be 1..9,223,372,036,854,775,807"),
        (["--hands", "-5"], "the number of hands must be 1.."),
        (["--matches", "0"], "the number of matches must be 1.."),
        (["--hands", str(10**20)], "the number of hands must be 1.."),
        (["--matches", str(2**63)], "the number of matches must be 1.."),
        (["--hands", "5", "--shard-size", str(10**12)], "the shard size must be 1..10,000,000"),
        (["--matches", "5", "--shard-size", "10000000"], "the shard size must be 1..454,545"),
        (["--matches", "5", "--rule", "target=1001"], "allowed: integers 1..1000"),
        (["--matches", "5", "--rule", "target=99999999999999999999"], "integers 1..1000"),
        (["--hands", "5", "--executor", "dask", "--worker-timeout", "0"], "--worker-timeout"),
        (["--hands", "5", "--executor", "dask", "--worker-timeout", "nan"], "not nan"),
        (["--hands", "5", "--matches", "5"], "exactly one"),
        (["--hands", "5", "--policy", "bogus"], "unknown policy"),
        (["--hands", "5", "--policy", "random:x=1"], "takes no parameters"),
        (["--hands", "5", "--preset", "nope"], "unknown preset"),
        (["--hands", "5", "--scheduler", "tcp://127.0.0.1:1"], "needs the dask executor"),
    ]:
        res = runner.invoke(cli, ["simulate", *args, "--out", str(tmp_path / "bad")])
        assert res.exit_code == 2, (args, res.output)
        assert msg in res.output, (args, res.output)
        assert "Traceback" not in res.output
        assert not (tmp_path / "bad").exists()
    res = runner.invoke(cli, ["simulate", "--hands", "10", "--out", str(out)])
    assert res.exit_code == 1 and "already holds a run" in res.output
    res = runner.invoke(
        cli, ["simulate", "--hands", "10", "--out", str(out), "--resume", "--workers", "1"]
    )
    assert res.exit_code == 1 and "differs" in res.output


@pytest.mark.slow
def test_unreachable_scheduler(tmp_path):
    res = CliRunner().invoke(
        cli,
        [
            "simulate",
            "--hands",
            "10",
            "--out",
            str(tmp_path / "d"),
            "--executor",
            "dask",
            "--scheduler",
            "tcp://127.0.0.1:9",
        ],
    )
    assert res.exit_code == 1
    assert "cannot reach the Dask scheduler" in res.output
    assert not (tmp_path / "d").exists()  # nothing half-written left behind


def _failing(exc: BaseException, after: int = 0):
    """An executor that runs ``after`` shards, then raises ``exc``."""

    def execute(run, todo, done=None):
        for i in itertools.islice(todo, after):
            yield run_shard(run.config, i, str(run.directory))
        raise exc

    return execute


def test_a_new_run_that_fails_before_any_shard_leaves_nothing(tmp_path):
    made = tmp_path / "made"
    with pytest.raises(SimulationError, match="boom"):
        simulate(made, _config(), _failing(SimulationError("boom")))
    assert not made.exists()
    given = tmp_path / "given"  # an empty directory the user made stays, empty
    given.mkdir()
    with pytest.raises(SimulationError, match="boom"):
        simulate(given, _config(), _failing(SimulationError("boom")))
    assert given.is_dir() and not any(given.iterdir())


def test_a_failed_run_keeps_its_shards_and_an_interrupted_one_its_manifest(tmp_path):
    d = tmp_path / "some"
    with pytest.raises(SimulationError, match="boom"):
        simulate(d, _config(), _failing(SimulationError("boom"), after=1))
    assert len(D.finished_shards(d)) == 1 and (d / D.MANIFEST).exists()
    assert simulate(d, _config(), local_executor(1), resume=True).complete
    i = tmp_path / "intr"
    with pytest.raises(KeyboardInterrupt):
        simulate(i, _config(), _failing(KeyboardInterrupt()))
    assert not json.loads((i / D.MANIFEST).read_text())["complete"]
    assert simulate(i, _config(), local_executor(1), resume=True).complete


@pytest.mark.slow
def test_dask_local_cluster_same_data(tmp_path):
    pytest.importorskip("distributed")
    from scopa_sim.sim.executors import dask_executor

    simulate(tmp_path / "l", _config(count=400), local_executor(1))
    simulate(tmp_path / "k", _config(count=400), dask_executor(None, 2))
    assert _read(tmp_path / "l").equals(_read(tmp_path / "k"))


@pytest.mark.slow
def test_kill_and_resume_gives_identical_data(tmp_path):
    """kill -9 in the middle of a run, then --resume: the data equal an uninterrupted run."""
    args = ["--hands", "4000000", "--seed", "5", "--shard-size", "20000", "--workers", "1", "-q"]
    env = dict(os.environ)
    d = tmp_path / "killed"
    proc = subprocess.Popen(
        [sys.executable, "-m", "scopa_sim_cli.main", "simulate", *args, "--out", str(d)],
        env=env,
        cwd=Path(__file__).resolve().parents[2],
    )
    deadline = time.time() + 120
    while time.time() < deadline:
        if len(D.finished_shards(d)) >= 2:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done = D.finished_shards(d)
    assert 2 <= len(done) < 20, "the run was not interrupted midway"
    res = CliRunner().invoke(cli, ["simulate", *args, "--out", str(d), "--resume"])
    assert res.exit_code == 0, res.output
    ref = tmp_path / "ref"
    CliRunner().invoke(cli, ["simulate", *args, "--out", str(ref)])
    assert _read(d).equals(_read(ref))


@pytest.mark.parametrize("mode", ["hands", "matches"])
def test_bot_path_rows_equal_kernel_rows(mode):
    """compute_rows (the fused loop) equals _bot_rows, which plays kernel policies hand by
    hand through the step kernels (HandPlayer) with the match bookkeeping of play_match."""
    from scopa_sim.bots.registry import PolicySpec
    from scopa_sim.sim.shards import _bot_rows, compute_rows

    for preset in ("scopa", "scopa-3", "scopone-scientifico"):
        r = Rules.make(preset)
        cfg = SimConfig.make(preset, r, seat_policies(["greedy"], r.players), mode, 12, 5)
        specs = [PolicySpec.parse("greedy")] * r.players
        assert (compute_rows(cfg, 3, 12) == _bot_rows(cfg, specs, 3, 12)).all()


def test_search_policy_in_simulate_is_reproducible(tmp_path):
    args = ["simulate", "--hands", "6", "--seed", "2", "--workers", "1", "-q"]
    args += ["--policy", "ismcts:iterations=50", "--policy", "greedy"]
    a = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "a")])
    b = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "b"), "--shard-size", "4"])
    assert a.exit_code == 0 and b.exit_code == 0, a.output + b.output
    da, db = _read(tmp_path / "a"), _read(tmp_path / "b")
    assert da.equals(db)
    assert da["policy_0"].unique().to_list() == ["ismcts:iterations=50"]


def _step_rows(preset: str, policy: str, mode: str, first: int, units: int):
    """The reference rows: the step kernels hand by hand (start_hand, play_out,
    score_state through HandPlayer) with the match bookkeeping of play_match."""
    from scopa_sim.bots.registry import PolicySpec
    from scopa_sim.sim.shards import _bot_rows

    r = Rules.make(preset)
    cfg = SimConfig.make(preset, r, seat_policies([policy], r.players), mode, first + units, 7)
    return _bot_rows(cfg, [PolicySpec.parse(policy)] * r.players, first, units)


@pytest.mark.parametrize("by_match", [False, True], ids=["hands", "matches"])
def test_fused_rows_equal_the_step_kernels_rows(by_match):
    """The fused playout loop gives the step kernels' rows exactly, for every preset."""
    import numpy as np

    from scopa_sim import _engine as K
    from scopa_sim.game.rules import KERNEL_PRESETS

    units = 40 if by_match else 400
    for preset in KERNEL_PRESETS:
        r = Rules.make(preset).to_array()
        for policy in ("random", "greedy"):
            codes = np.full(4, K.POLICY_RANDOM if policy == "random" else K.POLICY_GREEDY)
            ref = _step_rows(preset, policy, "matches" if by_match else "hands", 100, units)
            got = np.zeros((K.N_ROW_COLS, 40 * units), dtype=np.int32)
            done, rows = K.fused_rows(r, codes, 7, by_match, 100, units, got)
            assert (done, rows) == (units, ref.shape[1]), (preset, policy)
            assert (got[:, :rows] == ref).all(), (preset, policy)


def test_fused_matches_stop_before_overflowing():
    """A buffer too small for every match: the loop stops before a match that could
    overflow it (64 hands of room), and the rows it wrote are the step kernels' rows."""
    import numpy as np

    from scopa_sim import _engine as K

    r = Rules.make("scopa").to_array()
    got = np.zeros((K.N_ROW_COLS, 300), dtype=np.int32)
    done, rows = K.fused_rows(r, np.zeros(4, dtype=np.int64), 7, True, 0, 1000, got)
    assert 0 < done < 1000 and rows + 64 > 300
    ref = _step_rows("scopa", "random", "matches", 0, done + 1)
    assert rows == int((ref[K.C_MATCH] < done).sum())  # whole matches only
    assert (got[:, :rows] == ref[:, :rows]).all()
    before_last = int((ref[K.C_MATCH] < done - 1).sum())
    assert before_last + 64 <= 300  # it did not stop a match too early


def test_a_locked_run_directory_is_refused(tmp_path):
    from scopa_sim.sim.simulate import _lock

    d = tmp_path / "run"
    simulate(d, _config(), local_executor(1))
    held = _lock(d)
    try:
        with pytest.raises(SimulationError, match="another simulate"):
            simulate(d, _config(), local_executor(1), resume=True)
    finally:
        held.close()
    assert simulate(d, _config(), local_executor(1), resume=True).complete


@pytest.mark.slow
def test_ctrl_c_keeps_finished_shards_and_says_how_to_resume(tmp_path):
    d = tmp_path / "intr"
    args = ["--hands", "4000000", "--seed", "5", "--shard-size", "20000", "--workers", "1", "-q"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "scopa_sim_cli.main", "simulate", *args, "--out", str(d)],
        cwd=Path(__file__).resolve().parents[2],
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.time() + 120
    while time.time() < deadline and len(D.finished_shards(d)) < 2:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "--resume" in err and "Traceback" not in err
    doc = json.loads((d / "manifest.json").read_text())
    assert not doc["complete"] and len(doc["shards"]) >= 2


@pytest.mark.parametrize("mode", ["hands", "matches"])
def test_a_run_whose_play_changed_since_is_not_resumed(tmp_path, monkeypatch, mode):
    # The run's identity (configuration, seed, generator) does not cover every change of
    # a policy's play: resuming or reusing a run makes its first units again and refuses
    # the run when they come out differently, so two versions' data never mix.
    import scopa_sim.sim.simulate as SIM
    from scopa_sim import _engine as K

    d = tmp_path / "run"
    cfg = _config(mode=mode, count=60, shard=20, policies=("greedy",))
    simulate(d, cfg, local_executor(1))
    assert simulate(d, cfg, local_executor(1), resume=True).complete  # the same play
    real = SIM.compute_rows

    def changed(config, first, count, out=None):
        cols = real(config, first, count, out).copy()
        cols[K.C_PLAYS, -1] += 1  # one hand played differently
        return cols

    monkeypatch.setattr(SIM, "compute_rows", changed)
    with pytest.raises(D.DatasetError, match=r"come out differently.*overwrite it"):
        simulate(d, cfg, local_executor(1), resume=True)
    runner = CliRunner()
    args = ["simulate", "--preset", "scopa", "--policy", "greedy", "--policy", "greedy"]
    args += [f"--{mode}", "60", "--seed", "3", "--shard-size", "20", "--out", str(d), "--resume"]
    res = runner.invoke(cli, args)
    assert res.exit_code != 0 and "come out differently" in res.output
    assert len(res.output.strip().splitlines()) == 1 and "Traceback" not in res.output


@pytest.mark.parametrize(
    ("policy", "workers", "bots"),
    [("expert", 1, 0), ("greedy", 2, 0), ("pimc:worlds=2,depth=1", 1, 1 + 2 * 2)],
)
def test_a_run_parses_its_policies_once_and_packs_its_rules_once(
    tmp_path, monkeypatch, policy, workers, bots
):
    """Parse once (issue 24): the policy text is parsed when the configuration is made
    (parsing a search policy builds its bot once, to check it); the shards computed in
    this process (in line, or in threads) parse nothing again, pack the rules vector once
    for the whole run, and take the configuration as it is, not through JSON. Bots are
    built once per seat and shard to play (a fresh bot for each shard) besides."""
    from scopa_sim import _engine as K
    from scopa_sim.bots import registry as REG
    from scopa_sim.bots.registry import PolicySpec

    calls = {"parse": 0, "pack": 0, "from_json": 0, "bots": 0}

    def counted(name, fn):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return fn(*args, **kwargs)

        return wrapper

    parse = PolicySpec.parse.__func__
    monkeypatch.setattr(PolicySpec, "parse", classmethod(counted("parse", parse)))
    monkeypatch.setattr(K, "pack_rules", counted("pack", K.pack_rules))
    monkeypatch.setattr(REG, "make_bot", counted("bots", REG.make_bot))
    from_json = SimConfig.from_json.__func__
    monkeypatch.setattr(SimConfig, "from_json", classmethod(counted("from_json", from_json)))
    rules = Rules.make("scopa")  # a fresh rule set: its vector not packed yet
    count, shard = (800, 200) if bots == 0 else (4, 2)
    cfg = SimConfig.make("scopa", rules, [policy], "hands", count, 5, shard)
    assert calls == {"parse": 1, "pack": 0, "from_json": 0, "bots": min(bots, 1)}
    summary = simulate(tmp_path / "run", cfg, local_executor(workers))
    assert summary.complete and cfg.shards >= 2
    assert calls == {"parse": 1, "pack": 1, "from_json": 0, "bots": bots}
    assert rules.to_array() is rules.to_array()  # cached, the same array for every caller


def test_the_rules_vector_is_cached_outside_the_rules_identity():
    """The packed vector lives beside the fields: equality, hash, digest and a copy with
    other options do not see it, and it is what packing the options gives."""
    import dataclasses
    import pickle

    from scopa_sim import _engine as K

    a, b = Rules.make("scopa-3"), Rules.make("scopa-3")
    va = a.to_array()
    assert a == b and hash(a) == hash(b) and a.digest() == b.digest()
    assert (va == b.to_array()).all() and va.dtype == K.pack_rules(*[0] * 19).dtype
    other = a.replace(target=21)
    assert other.to_array()[K.R_TARGET] == 21 and va[K.R_TARGET] == 11
    assert dataclasses.asdict(a) == dataclasses.asdict(b)
    again = pickle.loads(pickle.dumps(a))
    assert again == a and (again.to_array() == va).all()


# --------------------------------------------------------------------------- progress
@pytest.mark.parametrize("preset", ["scopa", "scopa-3", "escoba"])
def test_rows_computed_in_blocks_are_those_of_one_call(preset, monkeypatch):
    """A shard that reports its progress computes its hands in blocks (when it would take
    long): the rows are the same, ``C_MATCH`` included (the offset from the shard's first
    hand)."""
    from scopa_sim.sim import shards as SH

    monkeypatch.setattr(SH, "PROGRESS_HANDS", 97)
    monkeypatch.setattr(SH, "PROGRESS_SECONDS", 1e-9)  # blocks of 97 hands
    monkeypatch.setattr(SH, "_BUFFERS", threading.local())  # none left by another table
    cfg = _config(preset=preset, policies=("expert",), count=3000, shard=1000)
    whole = SH.compute_rows(cfg, 1234, 1000).copy()
    told: list[int] = []
    blocks = SH.compute_rows(cfg, 1234, 1000, done=told.append)
    assert (blocks == whole).all()
    assert told == [97] * 10 + [30]


def test_blocks_of_any_size_share_one_buffer(monkeypatch):
    """Blocks are sized on the speed just measured, so their sizes vary: they reuse one
    buffer of a power of two times PROGRESS_HANDS rows (and a few more), made again only
    when a larger block comes (a fresh one for each size paid for fresh pages each
    time)."""
    from scopa_sim.sim import shards as SH

    monkeypatch.setattr(SH, "PROGRESS_HANDS", 100)
    monkeypatch.setattr(SH, "_BUFFERS", threading.local())
    buf = SH._block_buffer(250)
    assert buf.shape[1] == 400 + SH._BLOCK_PAD and buf.flags.c_contiguous
    assert SH._block_buffer(130) is buf and SH._block_buffer(400 + SH._BLOCK_PAD) is buf
    assert SH._block_buffer(417).shape[1] == 800 + SH._BLOCK_PAD


@pytest.mark.parametrize(
    ("workers", "policy", "mode", "count", "shard"),
    [
        (1, "random", "hands", 900, 400),  # in this process
        (2, "expert", "hands", 900, 400),  # threads
        (2, "expert", "matches", 6, 4),  # threads, the matches loop
        pytest.param(  # worker processes, through a queue
            2, "ismcts:iterations=300", "hands", 12, 5, marks=pytest.mark.slow
        ),
    ],
)
def test_progress_within_shards_adds_up_and_changes_no_shard(
    workers, policy, mode, count, shard, tmp_path, monkeypatch
):
    """The progress moved only as 250,000-hand shards ended: it now comes as units are
    computed, the counts add up to the run's units and rows, and the shards are those of
    a run without progress."""
    from scopa_sim.sim import shards as SH

    monkeypatch.setattr(SH, "PROGRESS_HANDS", 50)
    monkeypatch.setattr(SH, "PROGRESS_SECONDS", 1e-9)  # blocks of 50 hands
    cfg = _config(mode=mode, count=count, policies=(policy,), shard=shard)
    calls: list[tuple[int, int]] = []
    told = simulate(
        tmp_path / "a", cfg, local_executor(workers), progress=lambda u, r: calls.append((u, r))
    )
    plain = simulate(tmp_path / "b", cfg, local_executor(workers))
    assert sum(u for u, _ in calls) == count and sum(r for _, r in calls) == told.rows
    assert len(calls) > cfg.shards
    crcs = [
        [s["crc32"] for s in json.loads((d / "manifest.json").read_text())["shards"]]
        for d in (tmp_path / "a", tmp_path / "b")
    ]
    assert crcs[0] == crcs[1] and told.rows == plain.rows


def test_a_fast_shard_is_one_call(monkeypatch):
    """A shard that takes under a second is computed in one call into the shard's buffer,
    as without progress (blocks cost a copy: 11% of random play's speed), after a first
    block that measures the speed, once per rules and policies."""
    from scopa_sim.sim import shards as SH

    monkeypatch.setattr(SH, "_RATES", {})
    monkeypatch.setattr(SH, "PROGRESS_HANDS", 100)
    cfg = _config(count=4000, shard=2000)
    told: list[int] = []
    whole = SH.compute_rows(cfg, 0, 2000).copy()
    assert (SH.compute_rows(cfg, 0, 2000, done=told.append) == whole).all()
    assert told == [100, 1900]
    told.clear()
    SH.compute_rows(cfg, 2000, 2000, done=told.append)
    assert told == [2000]
