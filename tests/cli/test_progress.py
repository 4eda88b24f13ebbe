"""Progress goes to standard error only: shown when asked (--progress or
SCOPA_SIM_PROGRESS=1), absent by default in a pipe, never mixed into --json output; and
``warm`` says what it compiles before it starts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from scopa_sim_cli import progress as P
from scopa_sim_cli.main import cli

SCOPA_SIM = str(Path(sys.executable).with_name("scopa-sim"))


def progress_lines(err: str) -> list[str]:
    """Standard error without the compile notices (a kernel not yet in numba's cache)."""
    return [line for line in err.splitlines() if not line.startswith("compiling ")]


def test_progress_is_shown_when_forced_and_kept_off_stdout(tmp_path: Path) -> None:
    args = ["advantage", "--hands", "3000", "--json"]
    forced = CliRunner().invoke(cli, [*args, "--progress"])
    assert forced.exit_code == 0, forced.output
    json.loads(forced.stdout)  # the JSON alone on standard output
    lines = progress_lines(forced.stderr)
    assert lines[0] == "advantage: 0/3,000 hands (0%), 0 s"
    assert lines[-1].startswith("advantage: 3,000/3,000 hands (100%), done in ")
    by_env = CliRunner().invoke(cli, args, env={"SCOPA_SIM_PROGRESS": "1"})
    assert progress_lines(by_env.stderr)[-1].startswith("advantage: 3,000/3,000 hands")
    sim = ["simulate", "--hands", "500", "--workers", "1", "--progress", "--out"]
    res = CliRunner().invoke(cli, [*sim, str(tmp_path / "run")])
    assert res.exit_code == 0 and "simulate: 500/500 hands (100%), done in" in res.stderr
    assert "simulate:" not in res.stdout


@pytest.mark.slow
def test_no_progress_by_default_in_a_pipe(tmp_path: Path) -> None:
    """A real process whose standard error is a pipe: nothing but the command's output."""
    env = {k: v for k, v in os.environ.items() if k != P.ENVVAR}
    for args in (
        ["advantage", "--hands", "3000"],
        ["simulate", "--hands", "500", "--workers", "1", "--out", str(tmp_path / "r")],
        ["analyze", str(tmp_path / "r")],
    ):
        done = subprocess.run([SCOPA_SIM, *args], capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr
        assert progress_lines(done.stderr) == [], (args, done.stderr)
    off = CliRunner().invoke(cli, ["advantage", "--hands", "3000", "--no-progress"],
                             env={P.ENVVAR: "1"})  # fmt: skip
    assert off.exit_code == 0 and progress_lines(off.stderr) == []


def test_plain_lines_are_rate_limited(capsys) -> None:  # type: ignore[no-untyped-def]
    with P.Progress(True, "job", 1000, "hands") as bar:
        for _ in range(1000):
            bar.advance(1)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "job: 0/1,000 hands (0%), 0 s"
    assert lines[-1].startswith("job: 1,000/1,000 hands (100%), done in")
    assert len(lines) <= 3  # the first, maybe one after INTERVAL seconds, the last
    with P.Progress(False, "quiet", 10) as bar:
        bar.advance(10)
        bar.status("nothing")
    assert capsys.readouterr().err == ""


def test_every_long_command_takes_progress() -> None:
    long = ["simulate", "advantage", "equity", "advise", "analyze", "compare", "report",
            "tournament", "review", "study", "warm"]  # fmt: skip
    for name in long:
        res = CliRunner().invoke(cli, [name, "--help"])
        assert "--progress / --no-progress" in res.stdout, name


def test_warm_says_what_it_does_first() -> None:
    res = CliRunner().invoke(cli, ["warm", "--only", "steps", "--jobs", "1", "--progress"])
    assert res.exit_code == 0, res.output
    out = res.stdout.splitlines()
    assert out[0].startswith("the kernels of 1 task are in numba's cache: loading them")
    assert out[1].startswith("steps ") and out[-1].startswith("warm in ")
    err = progress_lines(res.stderr)
    assert err[0] == "warm: loading steps: 0/1 tasks (0%), 0 s"
    assert err[-1].startswith("warm: 1/1 tasks (100%), done in")
