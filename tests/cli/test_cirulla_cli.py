"""``scopa-sim play`` and ``replay`` on Cirulla (RULES.md §10, issue 42 item 2): records
written by the kernel policies and checked end to end, ``--show``, and the one-line errors
of its bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from scopa_sim_cli.main import cli


def run(*args: str, input: str | None = None) -> Result:
    """Invoke the app; never a traceback."""
    result = CliRunner().invoke(cli, list(args), input=input, prog_name="scopa-sim")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert "Traceback" not in result.output + result.stderr
    return result


def one_error(result: Result, status: int, *named: str) -> str:
    """Exit ``status`` and one ``Error: ...`` line naming every text of ``named``."""
    assert result.exit_code == status, result.output
    errors = [x for x in result.stderr.splitlines() if x.startswith("Error")]
    assert len(errors) == 1, result.stderr
    for text in named:
        assert text in errors[0], errors[0]
    return errors[0]


@pytest.mark.parametrize(
    ("preset", "rules", "policies"),
    [
        ("cirulla", ["matta=play"], ["expert", "greedy"]),
        ("cirulla", ["declare=auto", "kings_redeal=true"], ["random"]),
        ("cirulla-3", ["matta=play", "cirulla_match_priority=false"], ["greedy"]),
        ("cirulla-4", ["piccola_max=7"], ["expert", "random", "greedy", "random"]),
    ],
)
def test_play_writes_cirulla_records_that_replay_checks(
    preset: str, rules: list[str], policies: list[str], tmp_path: Path
) -> None:
    path = tmp_path / "games.jsonl"
    args = [a for r in rules for a in ("--rule", r)] + [
        a for p in policies for a in ("--policy", p)
    ]
    result = run("play", "--preset", preset, *args, "--matches", "3", "--seed", "7",
                 "--record", str(path))  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "3 matches" in result.stdout and "opening takes:" in result.stdout
    lines = path.read_text().splitlines()
    first = json.loads(lines[0])
    assert first["rules"]["capture_mode"] == "cirulla"
    assert list(first["score"][0])[-4:] == ["grande", "piccola", "declarations", "total"]
    checked = run("replay", str(path))
    assert checked.exit_code == 0, checked.output
    assert checked.stdout.startswith(f"valid: {len(lines)} hands in 3 matches (3 finished)")
    shown = run("replay", str(path), "--show", "1")
    assert shown.exit_code == 0 and "deal 1:" in shown.stdout and "score:" in shown.stdout
    again = tmp_path / "again.jsonl"
    run("play", "--preset", preset, *args, "--matches", "3", "--seed", "7", "--record", str(again))
    assert again.read_bytes() == path.read_bytes()  # deterministic per seed


def test_records_to_stdout_replay_from_stdin() -> None:
    out = run("play", "--preset", "cirulla", "--rule", "matta=play", "--matches", "2",
              "--record", "-")  # fmt: skip
    assert out.exit_code == 0
    checked = run("replay", "-", input=out.stdout)
    assert checked.exit_code == 0 and checked.stdout.startswith("valid: ")


def test_replay_reports_a_cirulla_violation_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    run("play", "--preset", "cirulla", "--rule", "matta=play", "--matches", "4", "--seed", "3",
        "--record", str(path))  # fmt: skip
    objs = [json.loads(x) for x in path.read_text().splitlines()]
    k, i = next(
        (k, i) for k, o in enumerate(objs) for i, p in enumerate(o["plays"]) if "value" in p
    )
    del objs[k]["plays"][i]["value"]
    path.write_text("".join(json.dumps(o) + "\n" for o in objs))
    result = run("replay", str(path))
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0].startswith(f"line {k + 1}: play {i}: play 7H")
    assert "names a value under matta=play" in result.stdout
    assert "1 violation in" in result.stderr


@pytest.mark.parametrize(
    ("rule", "named"),
    [
        ("cirulla_match_priority=maybe", ["'cirulla_match_priority'", "true, false"]),
        ("piccola_max=9", ["'piccola_max'", "5", "7"]),
        ("matta=joker", ["'matta'", "declare", "play", "none"]),
        ("declare=sometimes", ["'declare'", "choice", "auto", "off"]),
        ("napola=true", ["'napola'", "capture_mode=cirulla"]),
        ("hand_size=4", ["'hand_size'", "capture_mode=cirulla"]),
    ],
)
def test_bad_cirulla_options_are_one_line_errors(rule: str, named: list[str], tmp_path) -> None:
    path = tmp_path / "games.jsonl"
    result = run("play", "--preset", "cirulla", "--rule", rule, "--record", str(path))
    one_error(result, 2, *named)
    assert not path.exists()


@pytest.mark.parametrize("policy", ["eval"])
def test_search_policies_refuse_cirulla_in_one_line(policy: str) -> None:
    result = run("play", "--preset", "cirulla", "--policy", policy)
    one_error(result, 2, f"policy '{policy}' does not play capture_mode=cirulla yet",
              "allowed: random, greedy, expert, learned, pimc, ismcts, solver")  # fmt: skip


def test_best_plays_cirulla_in_a_tournament_and_advises_with_a_belief(tmp_path: Path) -> None:
    """``best`` (a belief and reply=) plays Cirulla deal pairs through ``tournament``, and
    ``advise`` ranks a record's position with it and shows the belief from its plays."""
    one = run("tournament", "--preset", "cirulla", "--policy", "best", "--policy",
              "pimc:belief=robust,worlds=2,depth=2", "--deals", "2", "--seed", "3")  # fmt: skip
    assert one.exit_code == 0, one.output
    assert "belief=robust,reply=weak,reply_gate=0.9 vs pimc:" in one.stdout
    path = tmp_path / "games.jsonl"
    run("play", "--preset", "cirulla", "--matches", "1", "--seed", "4", "--record", str(path))
    result = run("advise", "--position", f"{path}:1:5", "--policy", "best", "--belief",
                 "robust", "--json")  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["policy"].startswith("ismcts:") and doc["chosen"] == doc["plays"][0]["play"]
    assert doc["belief"]["model"] == "robust" and doc["belief"]["plays_seen"] == 5
    review = run("review", str(path), "1", "--policy", "eval:worlds=8", "--belief", "fit")
    assert review.exit_code == 0, review.output


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("tournament", "--preset", "cirulla", "--policy", "eval", "--policy", "greedy"),
         "policy 'eval' does not play capture_mode=cirulla yet"),
        (("simulate", "--preset", "cirulla", "--policy", "eval", "--hands", "2", "--out",
          "{path}.run"), "policy 'eval' does not play capture_mode=cirulla yet"),
        (("simulate", "--preset", "cirulla", "--hands", "2", "--deal", "swapped", "--out",
          "{path}.run"), "capture_mode=cirulla is simulated on plain deals only"),
    ],
)  # fmt: skip
def test_what_does_not_read_cirulla_yet_refuses_it_in_one_line(
    args: tuple[str, ...], named: str, tmp_path: Path
) -> None:
    """What does not play Cirulla yet (the evaluator as a player, duplicate deals) refuses
    it in one line (exit status 2), never a traceback."""
    path = tmp_path / "games.jsonl"
    run("play", "--preset", "cirulla", "--matches", "1", "--record", str(path))
    result = run(*(a.format(path=path) for a in args))
    one_error(result, 2, named)


def test_advise_ranks_cirulla_plays_with_the_evaluator(tmp_path: Path) -> None:
    """``advise --policy eval`` on Cirulla: every play with its named value and its
    declaration, valued by rollouts of a kernel policy; from cards or from a record."""
    result = run("advise", "--preset", "cirulla", "--rule", "matta=play", "--hand", "7H 2S 3C",
                 "--table", "5D 4C JS 6H", "--policy", "eval:worlds=64", "--json")  # fmt: skip
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    plays = [p["play"] for p in doc["plays"]]
    assert "7H=1 x 5D 6H 4C JS +3" in plays and "7H=1 x 5D 6H 4C JS" in plays
    assert doc["chosen"] == plays[0] and all(p["n"] == 64 for p in doc["plays"])
    path = tmp_path / "games.jsonl"
    run("play", "--preset", "cirulla", "--matches", "1", "--record", str(path))
    result = run("advise", "--position", f"{path}:1:1", "--policy", "eval:rollout=expert")
    assert result.exit_code == 0, result.output
    assert "<- best" in result.stdout and "policy eval:rollout=expert" in result.stdout


def test_review_grades_a_cirulla_record(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    run("play", "--preset", "cirulla", "--rule", "matta=play", "--matches", "1", "--seed", "2",
        "--policy", "greedy", "--record", str(path))  # fmt: skip
    result = run("review", str(path), "1", "--policy", "eval:worlds=16", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    plays = json.loads(path.read_text().splitlines()[0])["plays"]
    assert len([d for d in doc["decisions"] if d["line"] == 1]) == len(plays)


def test_tournament_pairs_the_kernel_policies_on_cirulla() -> None:
    """Each deal played twice with the sides exchanged, margins from each hand's total;
    the same numbers on two workers."""
    args = ("tournament", "--preset", "cirulla", "--rule", "matta=play", "--policy", "expert",
            "--policy", "random", "--deals", "12", "--seed", "3")  # fmt: skip
    one = run(*args)
    assert one.exit_code == 0, one.output
    assert "expert vs random:" in one.stdout and "over 12 deal pairs" in one.stdout
    two = run(*args, "--workers", "2")
    assert two.stdout == one.stdout


def _recorded_twice(tmp_path: Path, args: tuple[str, ...]) -> Path:
    """Run ``args`` (a ``play`` ending in ``--record``) into a record, check that ``replay``
    finds it valid and that the same command writes the same bytes again; the record."""
    path = tmp_path / "games.jsonl"
    result = run(*args, str(path))
    assert result.exit_code == 0, result.output
    checked = run("replay", str(path))
    assert checked.exit_code == 0 and checked.stdout.startswith("valid: "), checked.output
    again = tmp_path / "again.jsonl"
    run(*args, str(again))
    assert again.read_bytes() == path.read_bytes()
    return path


def test_play_and_tournament_with_pimc_and_the_solver_on_cirulla(tmp_path: Path) -> None:
    """PIMC and the solver play Cirulla (its matta's value and declarations chosen with the
    play): records that replay checks, the same bytes again for the seed; a tournament."""
    args = ("play", "--preset", "cirulla", "--rule", "matta=play", "--policy",
            "pimc:worlds=3,depth=2,exact_below=4", "--policy", "solver:depth=2", "--matches",
            "1", "--seed", "5", "--record")  # fmt: skip
    _recorded_twice(tmp_path, args)
    one = run("tournament", "--preset", "cirulla", "--policy", "pimc:worlds=2,depth=2",
              "--policy", "greedy", "--deals", "2", "--seed", "1")  # fmt: skip
    assert one.exit_code == 0, one.output
    assert "pimc:worlds=2,depth=2 vs greedy:" in one.stdout


def test_play_tournament_and_advise_with_ismcts_on_cirulla(tmp_path: Path) -> None:
    """ISMCTS plays Cirulla (the matta's value and declarations chosen with the play):
    records that replay checks, the same bytes again for the seed; a tournament; advice on
    a record's position with advise's default policy (ISMCTS)."""
    args = ("play", "--preset", "cirulla", "--rule", "matta=play", "--policy",
            "ismcts:iterations=100", "--policy", "ismcts:iterations=50,rollout=expert",
            "--matches", "1", "--seed", "5", "--record")  # fmt: skip
    path = _recorded_twice(tmp_path, args)
    one = run("tournament", "--preset", "cirulla-4", "--policy", "ismcts:iterations=50",
              "--policy", "greedy", "--deals", "2", "--seed", "1")  # fmt: skip
    assert one.exit_code == 0, one.output
    assert "ismcts:iterations=50 vs greedy:" in one.stdout
    result = run("advise", "--position", f"{path}:1:2", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["policy"].startswith("ismcts:") and doc["chosen"] == doc["plays"][0]["play"]


def test_advise_ranks_cirulla_plays_with_pimc_and_the_solver() -> None:
    """``advise --policy pimc`` and ``solver`` on Cirulla: declared and undeclared plays
    both listed, each valued."""
    for policy in ("pimc:worlds=4,depth=2", "solver:depth=2"):
        result = run("advise", "--preset", "cirulla", "--hand", "7H 2S 3C", "--table",
                     "5D 4C JS 6H", "--policy", policy, "--json")  # fmt: skip
        assert result.exit_code == 0, result.output
        plays = [p["play"] for p in json.loads(result.stdout)["plays"]]
        assert any(p.endswith("+3") for p in plays) and any(not p.endswith("+3") for p in plays)
