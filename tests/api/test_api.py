"""The use-case layer (scopa_sim.api), which the command line calls: each function's
results (and that the command prints them as they are: its ``--json`` is the result's
``to_dict()``), its one-line errors naming no command-line option, a cheap ``import
scopa_sim``, the results' frames and HTML."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from click.testing import CliRunner, Result
from scopa_sim_cli.main import cli

import scopa_sim
from scopa_sim.errors import (
    AnalysisError,
    DatasetError,
    FileError,
    InputError,
    PolicyError,
    PositionError,
    RulesError,
    ScopaError,
    TournamentError,
)


def cli_run(*args: str) -> Result:
    result = CliRunner().invoke(cli, list(args), prog_name="scopa-sim")
    assert "Traceback" not in result.output
    return result


def cli_json(*args: str) -> Any:
    result = cli_run(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def cli_error(*args: str) -> str:
    """The one-line message the command prints for bad input (without ``Error: ``)."""
    result = cli_run(*args)
    assert result.exit_code != 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("Error: ")]
    assert len(lines) == 1, result.stderr
    return lines[0].removeprefix("Error: ")


def close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


# --------------------------------------------------------------------------- import
@pytest.mark.slow
def test_import_is_cheap_and_needs_no_numba() -> None:
    """``import scopa_sim``, rules, cards and plays, and naming the API's functions load
    neither numba nor polars; the first simulation does."""
    code = (
        "import sys, scopa_sim\n"
        "from scopa_sim import CardSet, Play, Rules, simulate, analyze, Estimate\n"
        "r = Rules.make('scopa-3', {'target': 21}); r.digest(); r.as_dict()\n"
        "assert str(CardSet.parse('7D 3S')) == '7D 3S'\n"
        "assert str(Play.parse('7D x 5H 2S')) == '7D x 5H 2S'\n"
        "assert callable(simulate) and callable(analyze) and 'advise' in dir(scopa_sim)\n"
        "print(sorted(m for m in ('numba', 'polars', 'llvmlite') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'simulat'"):
        scopa_sim.simulat  # noqa: B018


# --------------------------------------------------------------------------- same numbers
@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A run made by the command and the same run made by the API, and a rule variant."""
    d = tmp_path_factory.mktemp("api")
    args = ["--hands", "3000", "--seed", "5", "--policy", "expert", "--workers", "1", "-q"]
    result = cli_run("simulate", *args, "--out", str(d / "cli"))
    assert result.exit_code == 0, result.output
    api = scopa_sim.simulate(hands=3000, seed=5, policy="expert", workers=1, out=d / "api")
    variant = scopa_sim.simulate(
        hands=3000, seed=5, policy="expert", overrides={"remainder_to": "dealer"}, workers=1
    )
    return {"dir": d, "api": api, "variant": variant}


def test_simulate_makes_the_commands_run(runs: dict[str, Any]) -> None:
    cli_made = scopa_sim.open_run(runs["dir"] / "cli")
    api = runs["api"]
    assert api.run_id == cli_made.run_id
    assert api.directory == runs["dir"] / "api"
    assert api.manifest["run_id"] == api.run_id
    assert api.scan().collect().equals(cli_made.scan().collect())
    assert api.scan().collect_schema() == pl.Schema(scopa_sim_schema())
    assert "--rule remainder_to=dealer" in runs["variant"].command()


def scopa_sim_schema() -> dict[str, Any]:
    from scopa_sim.data.dataset import schema

    return schema()


def test_analyze_gives_the_commands_numbers(runs: dict[str, Any]) -> None:
    doc = cli_json("analyze", str(runs["dir"] / "cli"))
    a = scopa_sim.analyze(runs["api"])
    g = doc["groups"][0]
    assert close(a.dealer_margin.estimate, g["margin"]["estimate"])
    assert close(a.dealer_margin.low, g["margin"]["low"])
    assert close(a.dealer_margin.high, g["margin"]["high"])
    assert a.dealer_margin.n == g["margin"]["n"] == 3000
    for s, e in enumerate(a.seats):
        assert close(e.estimate, g["seats"][s]["estimate"])
    for name, est in g["items"]:
        assert close(a.items[name].estimate, est["estimate"])
    frame = a.to_polars()
    assert frame.columns == ["group", "metric", "estimate", "low", "high", "n", "method"]
    row = frame.filter(pl.col("metric") == "dealer_margin").row(0, named=True)
    assert close(row["estimate"], g["margin"]["estimate"])
    label = {"label": "same"}
    assert [{**g, **label} for g in a.to_dict()["groups"]] == [
        {**g, **label} for g in doc["groups"]
    ]
    assert "dealer margin" in repr(a) and "<table>" in a._repr_html_()


def test_analyze_of_several_groups(runs: dict[str, Any]) -> None:
    a = scopa_sim.analyze(runs["api"], runs["variant"])
    assert len(a.groups) == 2
    with pytest.raises(AnalysisError, match="2 groups"):
        a.dealer_margin  # noqa: B018
    assert set(a.to_polars()["group"]) == {"api", "scopa expert remainder_to=dealer"}


def test_compare_gives_the_commands_numbers(runs: dict[str, Any]) -> None:
    variant = runs["variant"].directory
    doc = cli_json("compare", str(runs["dir"] / "cli"), str(variant))
    c = scopa_sim.compare(runs["api"], runs["variant"])
    want = {r["metric"]: r for r in doc["comparisons"][0]["results"]}
    d = c.difference("margin")
    assert close(d.estimate, want["margin"]["estimate"])
    assert close(d.low, want["margin"]["low"])
    frame = c.to_polars()
    for row in frame.iter_rows(named=True):
        assert close(row["p_holm"], want[row["metric"]]["p_holm"]), row["metric"]
        assert close(row["baseline_value"], want[row["metric"]]["a"])
    assert c.result.pairs[0].paired
    assert "paired" in repr(c) and "margin" in c._repr_html_()


def test_advantage_gives_the_commands_numbers() -> None:
    doc = cli_json("advantage", "--preset", "scopa-3", "--hands", "2000", "--seed", "2")
    adv = scopa_sim.advantage("scopa-3", hands=2000, seed=2)
    assert close(adv.dealer_margin.estimate, doc["dealer_margin"]["mean"])
    assert close(adv.dealer_margin.high, doc["dealer_margin"]["high"])
    for e, want in zip(adv.by_position, doc["points_by_position"], strict=True):
        assert close(e.estimate, want["mean"]) and e.n == want["n"] == 2000
    assert adv.to_polars()["metric"].to_list() == [
        "first player",
        "position 2",
        "dealer",
        "dealer_margin",
    ]


def test_advise_gives_the_commands_numbers() -> None:
    cards = ["--hand", "7D 3S KH", "--table", "7C 5H 2S AD"]
    policy = "pimc:worlds=8"
    doc = cli_json("advise", *cards, "--policy", policy, "--seed", "4")
    adv = scopa_sim.advise("7D 3S KH", "7C 5H 2S AD", policy=policy, seed=4)
    assert adv.to_dict() == doc
    assert adv.chosen == doc["chosen"]
    assert adv.to_polars().height == len(doc["plays"])
    html = adv._repr_html_()
    assert 'class="c D"' in html and "\u2666" in html  # cards drawn as on the review page


def test_tournament_gives_the_commands_numbers() -> None:
    doc = cli_json("tournament", "--policy", "expert", "--policy", "random", "--deals", "6")
    t = scopa_sim.tournament("expert", "random", deals=6)
    assert t.to_dict() == doc
    assert t.ladder[0][0] == "expert" or t.pairings[0].margin.estimate <= 0
    assert "Elo" in t._repr_html_()


@pytest.mark.slow
def test_review_gives_the_commands_numbers(tmp_path: Path) -> None:
    record = tmp_path / "games.jsonl"
    made = cli_run("play", "--matches", "1", "--seed", "3", "--record", str(record))
    assert made.exit_code == 0, made.output
    args = [str(record), "1", "--policy", "eval:worlds=4", "--seed", "1", "--workers", "1"]
    doc = cli_json("review", *args, "-q")
    r = scopa_sim.review(record, "1", policy="eval:worlds=4", seed=1, workers=1)
    assert r.to_dict() == doc
    assert r.to_polars().height == len(doc["decisions"])
    assert r.to_text() == cli_run("review", *args, "-q").stdout
    html = r._repr_html_()
    assert "<svg" in html and 'class="c ' in html and ".scopa-sim table" in html
    r.save_html(tmp_path / "review.html")
    assert (tmp_path / "review.html").read_text().startswith("<!DOCTYPE html>")


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("call", "command", "kind"),
    [
        (
            lambda: scopa_sim.simulate("scopa-9", hands=10),
            ["--hands", "10", "--preset", "scopa-9"],
            RulesError,
        ),
        (
            lambda: scopa_sim.simulate(hands=10, overrides={"colour": 1}),
            ["--hands", "10", "--rule", "colour=1"],
            RulesError,
        ),
        (
            lambda: scopa_sim.simulate(hands=10, overrides={"target": 0}),
            ["--hands", "10", "--rule", "target=0"],
            RulesError,
        ),
        (
            lambda: scopa_sim.simulate(hands=10, policy="genius"),
            ["--hands", "10", "--policy", "genius"],
            PolicyError,
        ),
        (
            lambda: scopa_sim.simulate(hands=10, policy=["expert"] * 3),
            ["--hands", "10", *["--policy", "expert"] * 3],
            PolicyError,
        ),
        (lambda: scopa_sim.simulate(hands=0), ["--hands", "0"], InputError),
        (lambda: scopa_sim.simulate(hands=-5), ["--hands", "-5"], InputError),
        (lambda: scopa_sim.simulate(), [], InputError),
        (
            lambda: scopa_sim.simulate(hands=5, matches=5),
            ["--hands", "5", "--matches", "5"],
            InputError,
        ),
    ],
)
def test_simulate_bad_input_has_the_commands_message(
    call: Any, command: list[str], kind: type[ScopaError], tmp_path: Path
) -> None:
    want = cli_error("simulate", *command, "--out", str(tmp_path / "x"))
    with pytest.raises(kind) as info:
        call()
    assert str(info.value) == want
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_other_bad_counts_are_scopa_errors() -> None:
    with pytest.raises(InputError, match="whole number"):
        scopa_sim.simulate(hands=1.5)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="whole number"):
        scopa_sim.simulate(hands="10")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="the seed"):
        scopa_sim.simulate(hands=10, seed=-1)
    with pytest.raises(InputError, match="the number of workers"):
        scopa_sim.simulate(hands=10, workers=0)
    with pytest.raises(InputError, match="executor"):
        scopa_sim.simulate(hands=10, executor="cloud")
    with pytest.raises(InputError, match="exclude each other"):
        scopa_sim.simulate(hands=10, resume=True, overwrite=True)
    with pytest.raises(RulesError, match="not both"):
        scopa_sim.simulate(hands=10, rules=scopa_sim.Rules.make(), overrides={"target": 21})
    with pytest.raises(InputError, match="number of hands"):
        scopa_sim.advantage(hands=1)
    with pytest.raises(InputError, match="deals must be at least 2"):
        scopa_sim.tournament("expert", "random", deals=1)
    with pytest.raises(TournamentError, match="elo0 must be below its elo1"):
        scopa_sim.tournament("expert", "random", sprt=(10, 0))
    with pytest.raises(RulesError, match="unknown preset"):
        scopa_sim.advantage(["scopa"], hands=10)  # type: ignore[arg-type]


def test_bad_run_directories_have_the_commands_message(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "manifest.json").write_text('{"format": "something-else"}')
    notes = tmp_path / "notes.txt"
    notes.write_text("hello")
    for path in (tmp_path / "missing", foreign, notes, tmp_path):
        want = cli_error("analyze", str(path))
        with pytest.raises(DatasetError) as info:
            scopa_sim.open_run(path)
        assert str(info.value) == want
        with pytest.raises(DatasetError):
            scopa_sim.analyze(str(path))
    with pytest.raises(FileError, match="NUL"):
        scopa_sim.open_run("runs/\x00x")
    with pytest.raises(FileError, match="a path"):
        scopa_sim.open_run(None)  # type: ignore[arg-type]


def test_advise_and_review_bad_input() -> None:
    want = cli_error("advise", "--hand", "7D", "--policy", "expert")
    with pytest.raises(PolicyError) as info:
        scopa_sim.advise("7D", policy="expert")
    assert str(info.value) == want
    want = cli_error("advise", "--hand", "7X")
    with pytest.raises(ScopaError) as err:
        scopa_sim.advise("7X")
    assert str(err.value) == want
    with pytest.raises(PositionError, match="give the hand"):
        scopa_sim.advise()
    with pytest.raises(PositionError, match="two counts"):
        scopa_sim.advise("7D", scope=(1,))  # type: ignore[arg-type]
    want = cli_error("review", "no-such-file.jsonl")
    with pytest.raises(ScopaError) as err:
        scopa_sim.review("no-such-file.jsonl")
    assert str(err.value) == want


def test_the_data_jobs_check_their_input_before_any_work(tmp_path: Path) -> None:
    """Each job refuses bad arguments in words that name no command-line option."""
    cases: list[tuple[Any, type[ScopaError], str]] = [
        (lambda: scopa_sim.compare_presets("scopa", hands=10), InputError, "two presets"),
        (
            lambda: scopa_sim.compare_presets("scopa", "scopa", hands=10),
            InputError,
            "given twice",
        ),
        (
            lambda: scopa_sim.compare_presets("scopa", "escoba", hands=1),
            InputError,
            "at least 2",
        ),
        (lambda: scopa_sim.compare_presets("scopa", "escoba"), InputError, "exactly one"),
        (lambda: scopa_sim.equity("scopa-3", out=tmp_path / "e.json"), RulesError, "two sides"),
        (
            lambda: scopa_sim.equity(policy="genius", out=tmp_path / "e.json"),
            InputError,
            "unknown policy",
        ),
        (lambda: scopa_sim.study("huge"), InputError, "unknown scale"),
        (lambda: scopa_sim.study(part="E"), InputError, "unknown part"),
        (lambda: scopa_sim.warm(["nope"]), ScopaError, "unknown warm-up task"),
        (lambda: scopa_sim.warm(jobs=0), ScopaError, "at least 1"),
        (lambda: scopa_sim.variant("scopa", ["players=5"]), RulesError, "players"),
        (lambda: scopa_sim.document("manual"), FileError, "unknown document"),
        (lambda: scopa_sim.report(tmp_path / "none", out=tmp_path / "r"), DatasetError, "none"),
    ]
    for call, kind, text in cases:
        with pytest.raises(kind, match=text) as info:
            call()
        assert "--" not in str(info.value), str(info.value)
    assert not (tmp_path / "e.json").exists()


def test_variants_and_documents() -> None:
    assert list(scopa_sim.presets()) == list(scopa_sim.PRESETS)
    v = scopa_sim.variant("scopa", {"target": 21})
    assert v.rules.target == 21 and ("target", "21") in v.options
    assert v.text().splitlines()[0].startswith("# scopa: ")
    assert scopa_sim.document("rules").startswith("#")
    from scopa_sim.api.reporting import EQUITY_POLICIES
    from scopa_sim.bots.objective import MODEL_POLICIES

    assert tuple(MODEL_POLICIES) == EQUITY_POLICIES


def test_report_writes_the_commands_report(runs: dict[str, Any], tmp_path: Path) -> None:
    files = scopa_sim.report(runs["api"], runs["variant"], out=tmp_path / "r.md")
    assert files.markdown == tmp_path / "r.md" and files.figures
    assert "## " in files.markdown.read_text()


# --------------------------------------------------------------------------- typing
def test_the_package_is_typed() -> None:
    assert (Path(scopa_sim.__file__).parent / "py.typed").exists()
    text = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert 'scopa_sim = ["py.typed"]' in text
    assert '"scopa_sim.api.*"' in text and "disallow_untyped_defs = true" in text
