"""``scopa_sim.play``, ``scopa_sim.replay`` and ``scopa_sim.replay_hands``: the functions
the ``play`` and ``replay`` commands call, giving the same records and checks."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from scopa_sim_cli.main import cli

import scopa_sim
from scopa_sim.errors import FileError, InputError, PolicyError, RecordError, RulesError


def cli_run(*args: str) -> str:
    res = CliRunner().invoke(cli, list(args), prog_name="scopa-sim")
    assert res.exit_code == 0, res.output
    return res.stdout


def test_play_writes_the_commands_records(tmp_path: Path) -> None:
    mine, theirs = tmp_path / "api.jsonl", tmp_path / "cli.jsonl"
    text = cli_run("play", "--matches", "2", "--seed", "5", "--preset", "escoba",
                   "--policy", "greedy", "--policy", "expert", "--record", str(theirs))  # fmt: skip
    got = scopa_sim.play(["greedy", "expert"], preset="escoba", matches=2, seed=5, record=mine)
    assert mine.read_bytes() == theirs.read_bytes()
    assert got.to_text(str(theirs)).splitlines()[:-1] == text.splitlines()[:-1]  # but the time
    assert got.matches == 2 and sum(got.wins) == 2 and got.openings is not None
    assert got.policies == ("greedy", "expert")
    stream = io.StringIO()
    scopa_sim.play(["greedy", "expert"], preset="escoba", matches=2, seed=5, record=stream)
    assert stream.getvalue() == theirs.read_text()


def test_play_takes_rules_and_overrides() -> None:
    rules = scopa_sim.Rules.make("scopa", {"target": 5})
    a = scopa_sim.play("greedy", rules=rules, seed=2)
    b = scopa_sim.play("greedy", overrides={"target": 5}, seed=2)
    assert (a.hands, a.points, a.wins) == (b.hands, b.points, b.wins)
    assert (a.preset, b.preset) == ("custom", "scopa")  # rules equal to no preset: "custom"
    assert scopa_sim.play("greedy", rules=rules, preset="scopa").preset == "scopa"
    assert scopa_sim.play(rules=scopa_sim.Rules.make("escoba")).preset == "escoba"


def test_replay_checks_as_the_command(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    scopa_sim.play(matches=2, seed=3, record=path)
    summary = scopa_sim.replay(path)
    assert summary.ok and summary.matches == 2 and summary.finished_matches == 2
    assert f"valid: {summary.lines} hands in 2 matches" in cli_run("replay", str(path))
    lines = path.read_text().splitlines()
    assert scopa_sim.replay(io.StringIO("\n".join(lines[:-1]) + "\n")).errors
    assert scopa_sim.replay(io.StringIO("\n".join(lines[:-1])), allow_unfinished=True).ok
    shown = list(scopa_sim.replay_hands(path, 2))
    assert [n for n, _ in shown] == [2]
    assert shown[0][1][0].startswith(f"match 0, hand {json.loads(lines[1])['hand']}")
    assert len(list(scopa_sim.replay_hands(path))) == len(lines)


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="unknown policy"):
        scopa_sim.play("genius")
    with pytest.raises(InputError, match="matches must be at least 1"):
        scopa_sim.play(matches=0)
    with pytest.raises(RulesError, match="unknown preset"):
        scopa_sim.play(preset="scopa-9")
    with pytest.raises(FileError, match="record ''"):
        scopa_sim.play(record="")
    with pytest.raises(FileError, match="cannot write"):
        scopa_sim.play(record=tmp_path / "no-dir" / "g.jsonl")
    with pytest.raises(FileError, match="no such file"):
        scopa_sim.replay(tmp_path / "none.jsonl")
    binary = tmp_path / "b.jsonl"
    binary.write_bytes(bytes(range(256)))
    with pytest.raises(RecordError, match="not a text"):
        scopa_sim.replay(binary)
    with pytest.raises(RecordError, match="holds no records"):
        list(scopa_sim.replay_hands(io.StringIO("")))
    with pytest.raises(RecordError, match="line 1: malformed JSON"):
        list(scopa_sim.replay_hands(io.StringIO("[[\n")))
    for error in (PolicyError, FileError, RecordError):
        assert issubclass(error, scopa_sim.ScopaError)


def test_the_functions_are_offered_lazily() -> None:
    for name in ("play", "replay", "replay_hands", "Matches", "advise", "tournament"):
        assert name in scopa_sim.__all__ and name in dir(scopa_sim)
        assert getattr(scopa_sim, name) is getattr(scopa_sim.api, name)
