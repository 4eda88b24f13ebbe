"""The learned policy's training programme: the same seed gives the same samples and the
same weights; the command line runs each step and says what it did."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from scopa_sim.bots import learned as BL
from scopa_sim.experiments import train as T
from scopa_sim.game.rules import Rules


def _weights(seed: int) -> np.ndarray:
    rules = Rules.make("scopa")
    ex = [BL.kind_of("expert")] * 2
    s = BL.rollout_samples(rules, ex, ex, None, seed, 0, 40, 0.5, 2)
    model, curve = T.fit(s, 4, 2, 0.01, 1e-5, seed)
    assert len(curve) == 2
    return model


def test_training_is_reproducible_from_its_seed() -> None:
    a, b, c = _weights(3), _weights(3), _weights(4)
    assert BL.model_digest(a) == BL.model_digest(b)
    assert BL.model_digest(a) != BL.model_digest(c)


def test_search_samples_hold_each_plays_visit_share() -> None:
    s, shares = T.search_samples(Rules.make("scopa"), "ismcts:iterations=50", 2, 0.5, 1)
    assert s.decisions > 3 and shares.shape == s.y.shape
    for g in range(s.decisions):
        part = shares[s.starts[g] : s.starts[g + 1]]
        assert abs(part.sum() - 1.0) < 1e-9 and (part >= 0).all()
    t, again = T.search_samples(Rules.make("scopa"), "ismcts:iterations=50", 2, 0.5, 1)
    assert np.array_equal(s.y, t.y) and np.array_equal(shares, again)


def test_the_command_line_samples_fits_and_measures(tmp_path: Path) -> None:
    run = CliRunner().invoke
    data, model = str(tmp_path / "d.npz"), str(tmp_path / "m.npy")
    r = run(T.main, ["rollouts", "--hands", "30", "--worlds", "2", "--out", data])
    assert r.exit_code == 0 and "decisions" in r.output
    r = run(T.main, ["fit", data, "--hidden", "4", "--epochs", "2", "--out", model])
    assert r.exit_code == 0 and "digest" in r.output
    r = run(T.main, ["versus", model, "--pairs", "50"])
    assert r.exit_code == 0 and "n=50 deal pairs" in r.output
    r = run(T.main, ["versus", model, "--pairs", "2", "--opponent", "ismcts:iterations=20"])
    assert r.exit_code == 0 and "n=2 deal pairs" in r.output
    r = run(T.main, ["compare", model, model, "--pairs", "30", "--opponent", "expert+exact"])
    assert r.exit_code == 0 and "+0.0000 [+0.0000, +0.0000] paired" in r.output
    r = run(T.main, ["compare", model, "--opponent", "learned"])
    assert r.exit_code == 2 and "expert, greedy or random" in r.output
    r = run(T.main, ["speed", model, "--hands", "20", "--repeats", "1"])
    assert r.exit_code == 0 and "ratio" in r.output


def test_the_evidence_check_says_how_often_a_marked_value_is_held() -> None:
    """In expert self-play a value the next seat's evidence marks is held less often than
    the uniform prior says; the command prints each share with its interval."""
    got = T.evidence_check(Rules.make("scopa"), 300, 1)
    assert 0 <= got["held"].estimate < got["prior"].estimate < 1
    assert got["held - prior"].high < 0 and 0 < got["with evidence"].estimate < 1
    assert 1 <= got["values"].estimate <= 10
    r = CliRunner().invoke(T.main, ["evidence", "--hands", "40"])
    assert r.exit_code == 0 and "prior: 0." in r.output and "n=40 hands" in r.output
    r = CliRunner().invoke(T.main, ["evidence", "--preset", "cirulla", "--hands", "4"])
    assert r.exit_code == 2 and "Scopa's rules only" in r.output


def test_plays_made_reads_each_decisions_plays_feature() -> None:
    """With the exact endgame every seat's last-round decisions give no samples: in
    2-player scopa the plays made with a sampled decision are at most 30."""
    rules = Rules.make("scopa")
    ex = [BL.kind_of("expert")] * 2
    s = BL.rollout_samples(rules, ex, ex, None, 2, 0, 6, 1.0, 0)
    made = T.plays_made(s)
    assert made.min() >= 1 and made.max() <= 36 and (made > 30).any()
    exact = [BL.kind_of("expert+exact")] * 2
    s = BL.rollout_samples(rules, exact, exact, None, 2, 0, 6, 1.0, 0)
    assert T.plays_made(s).max() <= 30


@pytest.mark.parametrize(
    "args",
    [
        ["fit", "{d}/none.npz", "--seed", "1", "--out", "{d}/m.npy"],
        ["fit", "{d}/bad.npz", "--seed", "1", "--out", "{d}/m.npy"],
        ["versus", "{d}/bad.npz"],
        ["speed", "{d}/none.npy"],
        ["rollouts", "--hands", "2", "--worlds", "0", "--evidence-worlds", "--out", "{d}/x.npz"],
        [
            "rollouts",
            "--hands",
            "2",
            "--worlds",
            "8",
            "--evidence-worlds",
            "--preset=cirulla",
            "--out={d}/x.npz",
        ],
    ],
)
def test_bad_files_are_one_line_errors(tmp_path, args) -> None:
    """A missing or foreign samples or weights file, or evidence-weighted worlds where
    there are none (no worlds, Cirulla's rules): one line, status 2, no traceback."""
    import subprocess
    import sys

    (tmp_path / "bad.npz").write_bytes(b"garbage")
    argv = [a.format(d=tmp_path) for a in args]
    done = subprocess.run(
        [sys.executable, "-m", "scopa_sim.experiments.train", *argv],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("Error: ") and len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "args",
    [
        ["rollouts", "--hands", "-3", "--out", "x.npz"],
        ["search", "--hands", "0", "--out", "x.npz"],
        ["versus", "m.npy", "--pairs", "0"],
        ["compare", "m.npy", "--pairs", "0"],
        ["speed", "m.npy", "--hands", "0"],
        ["evidence", "--hands", "-5"],
        ["curve", "t", "--pairs", "0", "--json", "c.json"],
    ],
)
def test_counts_below_one_are_one_line_errors(args) -> None:
    """A count of hands or deal pairs below 1: click's one-line usage error, status 2
    (before: a traceback from numpy or a division by zero)."""
    r = CliRunner().invoke(T.main, args)
    assert r.exit_code == 2, r.output
    assert "is not in the range x>=1" in r.output and "Traceback" not in r.output


def test_a_learning_curve_is_measured_and_drawn(tmp_path: Path) -> None:
    from scopa_sim.sim import training as TR

    cfg = TR.TrainConfig(preset="scopa", seed=2, hands=24, chunk=8, worlds=2, hidden=4,
                         epochs=2, pairs=20)  # fmt: skip
    TR.train(cfg, tmp_path / "t")
    run = CliRunner().invoke
    curve, png = str(tmp_path / "c.json"), str(tmp_path / "c.png")
    r = run(T.main, ["curve", str(tmp_path / "t"), "--sizes", "1,3", "--pairs", "20",
                     "--json", curve])  # fmt: skip
    assert r.exit_code == 0, r.output
    points = json.loads(Path(curve).read_text())["points"]
    assert [p["pieces"] for p in points] == [1, 3]
    assert points[0]["cpu_seconds"] < points[1]["cpu_seconds"]
    whole = json.loads((tmp_path / "t" / "train.json").read_text())
    assert points[1]["estimate"] == whole["results"]["expert+exact"]["estimate"]
    r = run(T.main, ["plot", curve, "--png", png])
    assert r.exit_code == 0 and Path(png).stat().st_size > 10_000
    r = run(T.main, ["table", str(tmp_path / "t" / "train.json")])
    assert r.exit_code == 0 and r.output.count("\n") == 3 and "| scopa | H4 `" in r.output
