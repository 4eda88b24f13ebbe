"""``scopa-sim train``: the pipeline from the command line, its progress on standard
error, bad input in one line with status 2, and a training killed part-way resumed to
the same weights."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from scopa_sim_cli.main import cli

from scopa_sim.sim import training as T

EXE = str(Path(sys.executable).with_name("scopa-sim"))
TINY = ["--seed", "3", "--hands", "24", "--chunk", "8", "--worlds", "2", "--hidden", "4",
        "--epochs", "2", "--pairs", "20"]  # fmt: skip


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, ["train", *args], prog_name="scopa-sim")


def test_train_fits_measures_and_ships(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(T, "weights_dir", lambda: tmp_path / "weights")
    r = run("--preset", "scopa-4", "--out", str(tmp_path / "t"), *TINY, "--ship")
    assert r.exit_code == 0, r.output
    assert "learned vs expert+exact" in r.output and "shipped" in r.output
    assert "data 3/3" in r.output  # the progress (standard error, mixed in by the runner)
    doc = json.loads((tmp_path / "t" / "train.json").read_text())
    manifest = json.loads((tmp_path / "weights" / "manifest.json").read_text())
    assert manifest["presets"]["scopa-4"]["digest"] == doc["digest"]
    assert manifest["presets"]["scopa-4"]["rules_options"]["players"] == 4


def test_a_cirulla_preset_trains_and_ships_cirulla_weights(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Cirulla preset trains on Cirulla's features: its entry names layout version 2
    and the weights load and play under its rules."""
    from scopa_sim.bots import learned_weights as W
    from scopa_sim.bots.learned import LearnedBot
    from scopa_sim.game.rules import Rules
    from scopa_sim.game.state import HandState

    monkeypatch.setattr(T, "weights_dir", lambda: tmp_path / "weights")
    r = run("--preset", "cirulla-3", "--out", str(tmp_path / "t"), *TINY, "--ship")
    assert r.exit_code == 0, r.output
    entry = json.loads((tmp_path / "weights" / "manifest.json").read_text())["presets"]
    assert (entry["cirulla-3"]["version"], entry["cirulla-3"]["n_sparse"]) == (2, 407)
    rules = Rules.make("cirulla-3")
    model = W.load_weights(rules, tmp_path / "weights")
    state = HandState.deal(rules, seed=4)
    assert LearnedBot(model, exact=True).choose(state, 1) in state.legal_plays


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--preset", "nope"], "unknown preset"),
        (["--preset", "cirulla", "--search-hands", "10"], "on Scopa's positions only"),
        (["--preset", "scopa", "--hands", "0"], "hands must be in"),
        (["--preset", "scopa", "--worlds", "99"], "worlds must be in"),
    ],
)
def test_bad_input_is_one_line_with_status_2(tmp_path: Path, args: list[str], words: str) -> None:
    r = run(*args, "--out", str(tmp_path / "x"))
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and words in lines[0]


def test_an_unwritable_or_foreign_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    r = run("--preset", "scopa", "--out", str(tmp_path / "file" / "sub"), *TINY)
    assert r.exit_code == 2 and "cannot write the training directory" in r.output
    assert run("--preset", "scopa", "--out", str(tmp_path / "a"), *TINY).exit_code == 0
    r = run("--preset", "scopa", "--out", str(tmp_path / "a"), *TINY, "--worlds", "3")
    assert r.exit_code == 2 and "another training (its worlds differ)" in r.output


@pytest.mark.slow
def test_a_killed_training_resumes_to_the_same_weights(tmp_path: Path) -> None:
    args = ["train", "--preset", "scopa", *TINY[:4], "--hands", "400", "--chunk", "20",
            "--worlds", "2", "--hidden", "4", "--epochs", "2", "--pairs", "20"]  # fmt: skip
    cut, whole = tmp_path / "cut", tmp_path / "whole"
    proc = subprocess.Popen([EXE, *args, "--out", str(cut)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not list((cut / "data").glob("*.npz")):
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1].startswith("interrupted: train stopped")
    assert "Traceback" not in err and not (cut / "train.json").exists()
    pieces = len(list((cut / "data").glob("*.npz")))
    assert 1 <= pieces < 20
    done = subprocess.run([EXE, *args, "--out", str(cut)], capture_output=True, text=True,
                          timeout=300, env=os.environ)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert run(*args[1:], "--out", str(whole)).exit_code == 0
    a = json.loads((cut / "train.json").read_text())
    b = json.loads((whole / "train.json").read_text())
    assert a["digest"] == b["digest"] and a["results"] == b["results"]
