"""Run directories that were tampered with, damaged or mixed with foreign files: every
reader (``analyze``, ``compare``, ``report``, :func:`dataset.scan`) reads exactly the
shards the manifest lists, checks that each belongs to the run, and reports any mismatch
as a one-line error naming the file; ``simulate --resume`` uses the same check."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from helpers.cli import one_line_error, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scopa_sim.bots.registry import seat_policies
from scopa_sim.data import dataset as D
from scopa_sim.data.run import SimConfig, open_run, scan
from scopa_sim.game.rules import Rules
from scopa_sim.sim.executors import local_executor
from scopa_sim.sim.simulate import simulate

HANDS = 600


def _config(seed: int = 3, policy: str = "random", count: int = HANDS) -> SimConfig:
    r = Rules.make("scopa")
    return SimConfig.make("scopa", r, seat_policies([policy], r.players), "hands", count, seed, 200)


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("integrity")
    out = {}
    for name, cfg in {
        "good": _config(),
        "other_seed": _config(seed=4),
        "other_policy": _config(policy="greedy"),
        "other_count": _config(count=800),
    }.items():
        simulate(root / name, cfg, local_executor(1))
        out[name] = root / name
    return out


def _copy(made: dict[str, Path], tmp_path: Path) -> Path:
    d = tmp_path / "run"
    shutil.copytree(made["good"], d)
    return d


def _edit_manifest(d: Path, change: Callable[[dict], object]) -> None:
    doc = json.loads((d / D.MANIFEST).read_text())
    change(doc)
    (d / D.MANIFEST).write_text(json.dumps(doc))


def _forget_sizes(d: Path) -> None:
    """As in a manifest written before sizes and checksums were recorded: the content
    checks remain."""

    def drop(doc):
        for s in doc["shards"]:
            s.pop("bytes")
            s.pop("crc32")

    _edit_manifest(d, drop)


def _shard(d: Path, i: int = 1) -> Path:
    return d / "shards" / f"shard-{i:06d}.parquet"


def _flip(path: Path, at: int) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= 0x10
    path.write_bytes(bytes(data))


def _rewrite(path: Path, change: Callable[[pl.DataFrame], pl.DataFrame]) -> None:
    df = change(pl.read_parquet(path))
    path.unlink()
    df.write_parquet(path)


# Each tampering, and a piece of the one-line error it must give.
TAMPERINGS: dict[str, tuple[Callable[[dict[str, Path], Path], object], str]] = {
    "missing manifest": (lambda m, d: (d / D.MANIFEST).unlink(), "no manifest.json"),
    "manifest not JSON": (lambda m, d: (d / D.MANIFEST).write_text("{oops"), "corrupt manifest"),
    "manifest not UTF-8": (
        lambda m, d: (d / D.MANIFEST).write_bytes(b"\xff\xfe\x00"),
        "corrupt manifest",
    ),
    "manifest a list": (lambda m, d: (d / D.MANIFEST).write_text("[1, 2]"), "not a scopa-sim"),
    "manifest a directory": (
        lambda m, d: ((d / D.MANIFEST).unlink(), (d / D.MANIFEST).mkdir()),
        "no manifest.json",
    ),
    "other format version": (
        lambda m, d: _edit_manifest(d, lambda doc: doc.update(format="scopa-sim-dataset/9")),
        "format is not",
    ),
    "config missing": (
        lambda m, d: _edit_manifest(d, lambda doc: doc.pop("config")),
        "manifest config is malformed (not an object)",
    ),
    "config field missing": (
        lambda m, d: _edit_manifest(d, lambda doc: doc["config"].pop("seed")),
        "manifest config is malformed (no 'seed')",
    ),
    "config field of the wrong type": (
        lambda m, d: _edit_manifest(d, lambda doc: doc["config"].update(count="600")),
        "'count' is not an integer",
    ),
    "config with a bad rule": (
        lambda m, d: _edit_manifest(d, lambda doc: doc["config"]["rules"].update(players=7)),
        "bad value 7 for option 'players'",
    ),
    "config edited": (
        lambda m, d: _edit_manifest(d, lambda doc: doc["config"].update(seed=4)),
        "does not match the configuration",
    ),
    "schema edited": (
        lambda m, d: _edit_manifest(d, lambda doc: doc["schema"].pop("winner")),
        "schema differs",
    ),
    "shards not a list": (
        lambda m, d: _edit_manifest(d, lambda doc: doc.update(shards={})),
        "'shards' is not a list",
    ),
    "shard entry not an object": (
        lambda m, d: _edit_manifest(d, lambda doc: doc["shards"].__setitem__(0, 3)),
        "shard entry 0 is not an object",
    ),
    "shard entry outside the run": (
        lambda m, d: _edit_manifest(d, lambda doc: doc["shards"][2].update(index=7)),
        "index 7 is not a shard of this run",
    ),
    "shard listed twice": (
        lambda m, d: _edit_manifest(d, lambda doc: doc["shards"][2].update(index=1)),
        "shard 1 is listed twice",
    ),
    "shard file elsewhere": (
        lambda m, d: _edit_manifest(d, lambda doc: doc["shards"][0].update(file="../x.parquet")),
        "file '../x.parquet' is not shard 0's",
    ),
    "shard rows edited": (
        lambda m, d: _edit_manifest(d, lambda doc: doc["shards"][0].update(rows=250)),
        "250 rows for 200 hands",
    ),
    "run rows edited": (
        lambda m, d: _edit_manifest(d, lambda doc: doc.update(rows=650)),
        "records 650 rows, its shards hold 600",
    ),
    "incomplete": (
        lambda m, d: _edit_manifest(d, lambda doc: doc["shards"].pop()),
        "not complete",
    ),
    "shards directory missing": (
        lambda m, d: shutil.rmtree(d / "shards"),
        "no shards directory",
    ),
    "shards directory a file": (
        lambda m, d: (shutil.rmtree(d / "shards"), (d / "shards").write_text("x")),
        "no shards directory",
    ),
    "listed shard missing": (
        lambda m, d: _shard(d).unlink(),
        "shard-000001.parquet: listed in the manifest but missing",
    ),
    "shard truncated": (
        lambda m, d: _shard(d).write_bytes(_shard(d).read_bytes()[:1000]),
        "shard-000001.parquet: 1000 bytes, the manifest records",
    ),
    "shard truncated, sizes not recorded": (
        lambda m, d: (_forget_sizes(d), _shard(d).write_bytes(_shard(d).read_bytes()[:1000])),
        "shard-000001.parquet: not a readable Parquet file",
    ),
    "shard altered, same size": (
        lambda m, d: _flip(_shard(d), 3000),
        "shard-000001.parquet: its checksum differs from the manifest's",
    ),
    "shard checksum not an integer": (
        lambda m, d: _edit_manifest(d, lambda doc: doc["shards"][1].update(crc32="x")),
        "shard entry 1: 'crc32' is not an integer",
    ),
    "shard a directory": (
        lambda m, d: (_shard(d).unlink(), _shard(d).mkdir()),
        "shard-000001.parquet: listed in the manifest but missing",
    ),
    "shard from another seed": (
        lambda m, d: (_forget_sizes(d), shutil.copy(_shard(m["other_seed"]), _shard(d))),
        "shard-000001.parquet: not a shard of run",
    ),
    "shard from another policy": (
        lambda m, d: (_forget_sizes(d), shutil.copy(_shard(m["other_policy"]), _shard(d))),
        "shard-000001.parquet: not a shard of run",
    ),
    "shard from a run of another size": (
        lambda m, d: (_forget_sizes(d), shutil.copy(_shard(m["other_count"]), _shard(d))),
        "shard-000001.parquet: not a shard of run",
    ),
    "shard from another position": (
        lambda m, d: (_forget_sizes(d), shutil.copy(_shard(d, 0), _shard(d))),
        "shard-000001.parquet: holds matches 0..199, expected 200..399",
    ),
    "shard with an extra column": (
        lambda m, d: (
            _forget_sizes(d),
            _rewrite(_shard(d), lambda df: df.with_columns(pl.lit(1).alias("extra"))),
        ),
        "shard-000001.parquet: not a scopa-sim shard (extra column 'extra'",
    ),
    "shard with a column missing": (
        lambda m, d: (_forget_sizes(d), _rewrite(_shard(d), lambda df: df.drop("winner"))),
        "shard-000001.parquet: not a scopa-sim shard (no column 'winner'",
    ),
    "shard with a column of another type": (
        lambda m, d: (
            _forget_sizes(d),
            _rewrite(_shard(d), lambda df: df.with_columns(pl.col("hand").cast(pl.Int64))),
        ),
        "shard-000001.parquet: not a scopa-sim shard (column types differ",
    ),
    "shard replaced by a foreign Parquet file": (
        lambda m, d: (
            _forget_sizes(d),
            _shard(d).unlink(),
            pl.DataFrame({"x": [1, 2]}).write_parquet(_shard(d)),
        ),
        "shard-000001.parquet: not a scopa-sim shard",
    ),
    "shard with other rows": (
        lambda m, d: (_forget_sizes(d), _rewrite(_shard(d), lambda df: df.head(150))),
        "shard-000001.parquet: 150 rows, the manifest records 200",
    ),
}


@pytest.mark.parametrize("name", list(TAMPERINGS))
def test_a_tampered_run_is_a_one_line_error_in_every_reader(made, tmp_path, name):
    tamper, message = TAMPERINGS[name]
    d = _copy(made, tmp_path)
    tamper(made, d)
    with pytest.raises(D.DatasetError, match=r"^.*$") as e:
        scan(d)
    assert message in str(e.value) and "\n" not in str(e.value)
    assert message in one_line_error(run("analyze", d))
    assert message in one_line_error(run("compare", made["good"], d))
    assert message in one_line_error(run("compare", d, made["good"]))
    assert message in one_line_error(run("report", d, "--out", tmp_path / "rep"))


def test_files_the_manifest_does_not_list_are_not_read(made, tmp_path):
    """A stray shard file, a foreign Parquet file and a temporary file in shards/ (the
    issue's run of 200,000 hands that reported 250,000) change nothing."""
    d = _copy(made, tmp_path)
    shutil.copy(_shard(made["other_seed"], 0), _shard(d, 9))
    pl.DataFrame({"x": [1, 2]}).write_parquet(d / "shards" / "foreign.parquet")
    (d / "shards" / ".shard-000002.parquet.1.2.tmp").write_bytes(b"half")
    assert scan(d).collect().height == HANDS
    assert scan(d).collect().equals(scan(made["good"]).collect())
    r = run("analyze", d, "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["groups"][0]["margin"]["n"] == HANDS


def test_open_run_lists_exactly_the_manifest_shards(made):
    data = open_run(made["good"])
    assert data.rows == HANDS and [p.name for p in data.files] == [
        "shard-000000.parquet",
        "shard-000001.parquet",
        "shard-000002.parquet",
    ]


def test_resume_uses_the_same_check(made, tmp_path):
    """A shard on disk that the manifest does not list yet (its update lost in a kill) is
    adopted on resume only if it is the run's: a shard of another run is refused."""
    d = _copy(made, tmp_path)
    _edit_manifest(d, lambda doc: (doc["shards"].pop(), doc.update(complete=False)))
    shutil.copy(_shard(made["other_seed"], 2), _shard(d, 2))
    with pytest.raises(D.DatasetError, match=r"shard-000002\.parquet: not a shard of run"):
        simulate(d, _config(), local_executor(1), resume=True)
    shutil.copy(_shard(made["good"], 2), _shard(d, 2))
    assert simulate(d, _config(), local_executor(1), resume=True).complete
    assert scan(d).collect().equals(scan(made["good"]).collect())
    doc = json.loads((d / D.MANIFEST).read_text())
    assert doc["shards"][2]["bytes"] == _shard(d, 2).stat().st_size  # the adopted shard
    assert doc["shards"][2]["crc32"] == D.file_crc32(_shard(d, 2))
    assert (
        doc["shards"][2]["crc32"]
        == json.loads((made["good"] / D.MANIFEST).read_text())["shards"][2]["crc32"]
    )  # the writer's running checksum is the file's


@pytest.mark.parametrize("name", ["not a directory", "not readable"])
def test_unreadable_run_paths(made, tmp_path, name):
    if name == "not a directory":
        target = tmp_path / "file"
        target.write_text("x")
        message = "not a directory"
    else:
        import os

        if os.geteuid() == 0:
            pytest.skip("root reads every file")
        target = _copy(made, tmp_path)
        (target / D.MANIFEST).chmod(0)
        message = "cannot read the manifest"
    assert message in one_line_error(run("analyze", target))


#: Tamperings that --resume repairs: it recomputes what is missing, recounts the rows.
REPAIRABLE = {"listed shard missing", "shards directory missing", "run rows edited", "incomplete"}


@pytest.mark.parametrize("name", list(TAMPERINGS))
def test_resume_of_a_tampered_run_errs_in_one_line_or_repairs_it(made, tmp_path, name):
    tamper = TAMPERINGS[name][0]
    d = _copy(made, tmp_path)
    tamper(made, d)
    args = ["--hands", HANDS, "--seed", 3, "--shard-size", 200, "--workers", 1, "-q"]
    r = run("simulate", *args, "--out", d, "--resume")
    if name in REPAIRABLE:
        assert r.exit_code == 0, r.output
        assert scan(d).collect().equals(scan(made["good"]).collect())
    else:
        one_line_error(r)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    cut=st.integers(min_value=0, max_value=11_000),
    flip=st.integers(min_value=0, max_value=11_000),
    recorded=st.booleans(),
)
def test_a_damaged_shard_is_a_one_line_error(made, tmp_path_factory, cut, flip, recorded):
    """A shard cut short and with a byte changed anywhere. With its size and checksum in
    the manifest, reading the run is always a one-line DatasetError naming the shard (or
    the untouched data when nothing changed). Without them (an older manifest) only the
    Parquet and content checks stand: a damaged value in a data page can pass, but any
    failure is still a one-line DatasetError, never polars' own."""
    d = tmp_path_factory.mktemp("damaged") / "run"
    shutil.copytree(made["good"], d)
    if not recorded:
        _forget_sizes(d)
    path = _shard(d)
    before = path.read_bytes()
    data = bytearray(before[:cut] if cut >= len(before) // 2 else before)
    if flip < len(data):
        data[flip] ^= 0xFF
    path.write_bytes(bytes(data))
    try:
        df = scan(d).collect()
    except D.DatasetError as e:
        assert "shard-000001.parquet" in str(e) and "\n" not in str(e)
    except Exception as e:
        pytest.fail(f"not a DatasetError: {type(e).__name__}: {e}")
    else:
        assert not recorded or bytes(data) == before, "a damaged shard was read"
        assert df.height == HANDS
