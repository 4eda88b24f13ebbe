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
        (("--policy", "learned:exact=1"), "takes no parameters"),
        (("--preset", "cirulla"), "capture_mode=cirulla"),
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


def test_the_learned_bot_refuses_a_cirulla_position() -> None:
    from scopa_sim.bots.base import KernelBot
    from scopa_sim.errors import PolicyError
    from scopa_sim.game.rules import Rules
    from scopa_sim.game.state import HandState

    rules = Rules.make("cirulla")
    bot = KernelBot("learned")
    with pytest.raises(PolicyError, match="does not play Cirulla"):
        bot.prepare(rules)
    with pytest.raises(PolicyError, match="does not play Cirulla"):
        bot.analyse(HandState.deal(rules, seed=1), seed=1)


def test_self_play_refuses_learned_under_cirulla() -> None:
    from scopa_sim.errors import PolicyError
    from scopa_sim.game.rules import Rules
    from scopa_sim.sim.selfplay import selfplay_points

    with pytest.raises(PolicyError, match="does not play Cirulla"):
        selfplay_points(Rules.make("cirulla"), ["learned", "expert"], 10, 1)
