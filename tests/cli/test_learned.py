"""`--policy learned` on the command line: it plays where a jitted policy plays, its run
names the weights it played, and every way it cannot play is one line with status 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from scopa_sim_cli.main import cli

from scopa_sim.bots import learned_weights as W
from scopa_sim.bots.learned_weights import manifest


def _run(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_simulate_and_tournament_play_learned(tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = _run("simulate", "--preset", "scopa", "--policy", "learned", "--policy", "expert",
               "--hands", "300", "--seed", "3", "--out", str(out), "--workers", "1")  # fmt: skip
    assert res.exit_code == 0, res.output
    config = json.loads((out / "manifest.json").read_text())["config"]
    assert config["learned_weights"] == manifest()["scopa"].sha256
    res = _run("tournament", "--policy", "learned", "--policy", "greedy", "--deals", "6")
    assert res.exit_code == 0 and "learned vs greedy" in res.output, res.output


def test_simulate_plays_learned_with_worlds(tmp_path: Path) -> None:
    """``learned:worlds=K`` plays a run of the fused loop, which records the weights."""
    out = tmp_path / "run"
    res = _run("simulate", "--preset", "scopa", "--policy", "learned:worlds=2",
               "--policy", "expert", "--hands", "40", "--seed", "3", "--out", str(out),
               "--workers", "1")  # fmt: skip
    assert res.exit_code == 0, res.output
    config = json.loads((out / "manifest.json").read_text())["config"]
    assert config["learned_weights"] == manifest()["scopa"].sha256
    assert config["policies"][0] == "learned:worlds=2"


def test_a_preset_with_an_option_changed_plays_its_base_presets_weights(tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = _run("simulate", "--preset", "scopa", "--rule", "napola=true", "--policy", "learned",
               "--hands", "200", "--seed", "3", "--out", str(out), "--workers", "1")  # fmt: skip
    assert res.exit_code == 0, res.output
    config = json.loads((out / "manifest.json").read_text())["config"]
    assert config["learned_weights"] == manifest()["scopa"].sha256


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--preset", "escoba"), "`scopa-sim train --preset escoba`"),
        (("--rule", "players=3", "--rule", "hand_size=4"), "no preset has the structure"),
        (("--policy", "learned:exact=1"), "unknown parameter 'exact'"),
        (("--policy", "learned:worlds=65"), "expected an integer in [0, 64]"),
        (("--preset", "cirulla", "--policy", "learned:worlds=4"), "without parameters"),
    ],
)
def test_learned_where_it_cannot_play_is_one_line(
    args: tuple[str, ...], says: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # every kernel preset has shipped weights: escoba's taken out of the manifest here
    without_escoba = {k: e for k, e in W.manifest().items() if k != "escoba"}
    monkeypatch.setattr(W, "manifest", lambda directory=W.WEIGHTS_DIR: without_escoba)
    res = _run("simulate", "--policy", "learned", *args, "--hands", "10",
               "--out", str(tmp_path / "r"))  # fmt: skip
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], res.output


@pytest.mark.parametrize("preset", ["cirulla", "cirulla-3", "cirulla-4"])
def test_the_learned_bot_plays_cirulla_on_its_weights(preset: str) -> None:
    """``KernelBot('learned')`` plays whole Cirulla hands on the preset's weights (the
    named value and the declaration part of its play), choosing what the learned bot of
    those weights chooses (with the exact endgame)."""
    from scopa_sim.bots.base import KernelBot
    from scopa_sim.bots.learned import LearnedBot
    from scopa_sim.game.rules import Rules
    from scopa_sim.game.state import HandState

    rules = Rules.make(preset)
    bot = KernelBot("learned")
    bot.prepare(rules)
    twin = LearnedBot(W.load_weights(rules), exact=True)
    state = HandState.deal(rules, seed=11)
    while not state.is_over:
        seed = 100 + state.plays_made
        play = bot.choose(state, seed)
        assert play in state.legal_plays
        assert play == twin.choose(state, seed)
        state.push(play)
    assert manifest()[preset].version == 2  # Cirulla's layout


def test_self_play_and_simulate_take_learned_under_cirulla(tmp_path: Path) -> None:
    from scopa_sim.game.rules import Rules
    from scopa_sim.sim.selfplay import selfplay_points

    points = selfplay_points(Rules.make("cirulla"), ["learned", "expert"], 50, 1)
    assert points.shape == (50, 4) and points[:, :2].sum() > 0
    out = tmp_path / "run"
    res = _run("simulate", "--preset", "cirulla", "--policy", "learned", "--policy", "expert",
               "--hands", "200", "--seed", "3", "--out", str(out), "--workers", "1")  # fmt: skip
    assert res.exit_code == 0, res.output
    config = json.loads((out / "manifest.json").read_text())["config"]
    assert config["learned_weights"] == manifest()["cirulla"].sha256


def test_tournament_play_and_advice_take_learned_under_cirulla(tmp_path: Path) -> None:
    res = _run("tournament", "--preset", "cirulla-4", "--policy", "learned", "--policy",
               "expert", "--deals", "6", "--seed", "1")  # fmt: skip
    assert res.exit_code == 0 and "learned vs expert" in res.output, res.output
    record = tmp_path / "games.jsonl"
    res = _run("play", "--preset", "cirulla", "--policy", "learned", "--policy", "expert",
               "--matches", "1", "--seed", "2", "--record", str(record))  # fmt: skip
    assert res.exit_code == 0, res.output
    assert _run("replay", str(record)).exit_code == 0
    res = _run("advise", "--position", f"{record}:1:3", "--policy",
               "eval:worlds=8,rollout=learned", "--seed", "1")  # fmt: skip
    assert res.exit_code == 0, res.output


def test_a_model_plays_only_the_game_of_its_layout() -> None:
    """A Scopa model refuses a Cirulla position and a Cirulla model a Scopa one; the
    Cirulla weights' file is checked against Cirulla's layout."""
    from scopa_sim.bots.learned import LearnedBot
    from scopa_sim.game.rules import Rules
    from scopa_sim.game.state import HandState

    scopa, cirulla = Rules.make("scopa"), Rules.make("cirulla")
    with pytest.raises(ValueError, match="not made for Cirulla"):
        LearnedBot(W.load_weights(scopa)).analyse(HandState.deal(cirulla, seed=1), seed=1)
    with pytest.raises(ValueError, match="not made for Scopa"):
        LearnedBot(W.load_weights(cirulla)).analyse(HandState.deal(scopa, seed=1), seed=1)


def test_resuming_a_run_that_played_other_weights_is_one_line(tmp_path: Path) -> None:
    """A run made before the weights changed (its manifest names other weights) is refused
    by ``simulate --resume`` as any run of another configuration: one line, status 1."""
    out = tmp_path / "run"
    args = ("simulate", "--preset", "scopa", "--policy", "learned", "--hands", "200",
            "--seed", "3", "--out", str(out), "--workers", "1")  # fmt: skip
    assert _run(*args).exit_code == 0
    doc = json.loads((out / "manifest.json").read_text())
    doc["config"]["learned_weights"] = "ab" * 32
    (out / "manifest.json").write_text(json.dumps(doc))
    res = _run(*args, "--resume")
    assert res.exit_code == 1, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and "differs from the run's manifest (learned_weights)" in lines[0]
