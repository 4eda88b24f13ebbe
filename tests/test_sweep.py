"""The second bad-input sweep (issue 25): each input that got a traceback, a hang or
silently wrong output is a one-line error now (or, for the blank lines at the end of a
record file, accepted). Each test runs the command that showed the fault."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from scopa_sim_cli.main import cli

from scopa_sim.errors import FileError, RecordError
from scopa_sim.files import output, read_text, write_text
from scopa_sim.records.record import MAX_LINE, check_lines, iter_lines

EXE = str(Path(sys.executable).with_name("scopa-sim"))


def command(*args: str, stdin: object = subprocess.DEVNULL, env: dict | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess:  # fmt: skip
    return subprocess.run(
        [EXE, *args], stdin=stdin, capture_output=True, text=True, timeout=timeout,
        env={**os.environ, **(env or {})},
    )  # fmt: skip


def one_line(done: subprocess.CompletedProcess, *words: str) -> str:
    assert done.returncode not in (0, None), done
    err = done.stderr.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert err.startswith("Error: ") and all(w in err for w in words), err
    return err


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("records")
    res = CliRunner().invoke(cli, ["play", "--matches", "1", "--seed", "2", "--policy",
                                   "greedy", "--record", str(d / "g.jsonl")])  # fmt: skip
    assert res.exit_code == 0, res.output
    return d / "g.jsonl"


def test_a_record_file_ending_in_blank_lines_is_accepted(record: Path, tmp_path: Path) -> None:
    f = tmp_path / "blank.jsonl"
    f.write_text(record.read_text() + "\n\n  \n")
    res = CliRunner().invoke(cli, ["replay", str(f)])
    assert res.exit_code == 0 and res.output.startswith("valid: "), res.output
    lines = record.read_text().splitlines()
    inside = [lines[0], "", *lines[1:]]  # a blank line between records is still one
    assert check_lines(inside).errors == [(2, "empty line")]
    assert check_lines(["", " "]).errors == [(0, "the file holds no records")]


def test_a_device_read_as_records_is_refused_not_read_forever() -> None:
    done = command("replay", "/dev/zero", timeout=60)
    one_line(done, "line 1 is longer than", "not a scopa-record/1 line")
    with open("/dev/zero", encoding="utf-8") as f, pytest.raises(RecordError):
        next(iter_lines(f, limit=1000))
    with pytest.raises(FileError, match="longer than"):
        read_text("/dev/zero", limit=1000)
    assert MAX_LINE >= 1 << 20


def test_replay_of_a_closed_standard_input_is_one_line() -> None:
    done = subprocess.run(f"exec 0<&-; {EXE} replay -", shell=True, capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    one_line(done, "standard input is closed")


def test_an_invalid_numba_setting_is_one_line_at_start() -> None:
    done = command("variants", env={"NUMBA_NUM_THREADS": "0"})
    assert done.returncode == 2
    one_line(done, "invalid numba setting", "NUMBA_NUM_THREADS")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
def test_writing_to_a_full_device_is_one_line(tmp_path: Path) -> None:
    one_line(command("play", "--matches", "1", "--record", "/dev/full"),
             "cannot write /dev/full", "No space left")  # fmt: skip
    with open("/dev/full", "w") as full:
        shown = subprocess.run([EXE, "variants"], stdout=full, stderr=subprocess.PIPE,
                               text=True, timeout=60)  # fmt: skip
    one_line(shown, "cannot write standard output")
    with pytest.raises(FileError, match="cannot write /dev/full"), output("/dev/full") as f:
        f.write("x" * 100_000)
    with pytest.raises(FileError, match=r"cannot write .*missing"):
        write_text(tmp_path / "missing" / "x.md", "text")
    assert write_text(tmp_path / "ok.md", "text").read_text() == "text"
    assert [p.name for p in tmp_path.iterdir()] == ["ok.md"]  # no temporary file left


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("runs") / "a run with spaces"
    res = CliRunner().invoke(cli, ["simulate", "--hands", "400", "--seed", "1", "--out",
                                   str(d), "-q", "--workers", "1"])  # fmt: skip
    assert res.exit_code == 0, res.output
    return d


def test_the_same_run_twice_is_refused(run_dir: Path, tmp_path: Path) -> None:
    res = CliRunner().invoke(cli, ["analyze", str(run_dir), str(run_dir)])
    assert res.exit_code == 2 and "given twice" in res.output and "count twice" in res.output
    copy = tmp_path / "copy"
    copy.mkdir()
    for f in run_dir.rglob("*"):
        target = copy / f.relative_to(run_dir)
        if f.is_dir():
            target.mkdir(exist_ok=True)
        else:
            target.write_bytes(f.read_bytes())
    res = CliRunner().invoke(cli, ["analyze", str(run_dir), str(copy)])
    assert res.exit_code == 2 and "are the same run" in res.output


def test_match_statistics_of_a_run_of_hands_are_refused(run_dir: Path) -> None:
    res = CliRunner().invoke(cli, ["analyze", str(run_dir), "--metric", "matches"])
    assert res.exit_code == 2 and "no finished match" in res.output
    assert CliRunner().invoke(cli, ["analyze", str(run_dir), "--metric", "margin"]).exit_code == 0


def test_the_command_to_reproduce_keeps_a_path_with_spaces_whole(run_dir: Path) -> None:
    res = CliRunner().invoke(cli, ["analyze", str(run_dir), "--json"])
    assert res.exit_code == 0, res.output
    text = json.dumps(json.loads(res.stdout))
    assert "--out '" in text and "a run with spaces'" in text


def test_a_position_of_a_match_already_won_is_refused() -> None:
    from scopa_sim.game.rules import Rules
    from scopa_sim.game.state import check_match_totals

    base = ["advise", "--hand", "7D 3S KH", "--table", "7C 5H 2S AD", "--policy",
            "ismcts:iterations=20", "--totals"]  # fmt: skip
    res = CliRunner().invoke(cli, [*base, "12,3"])
    assert res.exit_code == 2 and "side 0 has already won the match to 11" in res.output
    assert len(res.output.strip().splitlines()) == 1
    assert CliRunner().invoke(cli, [*base, "11,11"]).exit_code == 0  # a tie plays on
    rules = Rules.make("scopa")
    assert check_match_totals(rules, [10, 3]) == (10, 3)
    with pytest.raises(ValueError, match="side 1 has already won"):
        check_match_totals(rules, [3, 11])
