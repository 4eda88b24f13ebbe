"""Issue 14's command-line additions: policies listed from the registry, tournaments in
worker processes with a progress bar, advantage in bounded memory."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from click.testing import CliRunner, Result
from scopa_sim_cli.main import cli

from scopa_sim.bots.registry import POLICIES, PolicySpec
from scopa_sim.game.rules import Rules
from scopa_sim.sim.tournament import Sprt, run_tournament
from scopa_sim.stats.inference import normal_ci, normal_ci_from_sums


def run(*args: str) -> Result:
    res = CliRunner().invoke(cli, list(args), prog_name="scopa-sim")
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exc_info
    return res


def flat_help(command: str) -> str:
    res = run(command, "--help")
    assert res.exit_code == 0, res.output
    return re.sub(r"\s+", " ", res.output)


# --------------------------------------------------------------------------- help texts
@pytest.mark.parametrize("command", ["play", "advantage", "simulate", "tournament", "advise"])
def test_policy_help_lists_the_registry(command: str) -> None:
    """`play --help` and `advantage --help` said "random or greedy"."""
    text = flat_help(command)
    assert "random or greedy" not in text
    for name in POLICIES:
        assert re.search(rf"\b{name}\b", text), (command, name)


def test_tournament_help_explains_every_option() -> None:
    res = run("tournament", "--help")
    options = re.findall(r"^\s+(?:-\w, )?(--[\w-]+)(.*)$", res.output, flags=re.M)
    assert {"--alpha", "--beta", "--workers", "--quiet"} <= {o for o, _ in options}
    for option, rest in options:
        assert rest.strip(), f"{option} has no help"  # the text follows on the same line
    text = flat_help("tournament")
    assert "--alpha FLOAT RANGE With --sprt" in text and "--beta FLOAT RANGE With --sprt" in text


# --------------------------------------------------------------------------- tournaments
@pytest.mark.slow
def test_tournament_results_do_not_depend_on_workers() -> None:
    r = Rules.make()
    specs = [PolicySpec.parse(t) for t in ("greedy", "random", "pimc:worlds=2,depth=1")]
    one = run_tournament(r, specs, 12, seed=5)
    two = run_tournament(r, specs, 12, seed=5, workers=2)
    assert one == two
    assert [x.deal_pairs for x in one] == [12, 12, 12]


@pytest.mark.slow
def test_tournament_sprt_stops_at_the_same_deal_with_workers() -> None:
    r = Rules.make()
    specs = [PolicySpec.parse("greedy"), PolicySpec.parse("random")]
    test = Sprt(0, 20)
    one = run_tournament(r, specs, 3000, seed=1, sprt=test)
    seen: list[int] = []
    three = run_tournament(r, specs, 3000, seed=1, sprt=test, progress=seen.append, workers=3)
    assert one == three
    assert one[0].sprt_verdict == "H1" and one[0].deal_pairs < 3000
    assert sum(seen) == one[0].deal_pairs  # progress counts the deal pairs used


@pytest.mark.slow
def test_tournament_cli_workers_and_progress() -> None:
    base = ["tournament", "--policy", "greedy", "--policy", "random", "--deals", "60", "--json"]
    a, b = run(*base), run(*base, "--workers", "2", "--quiet")
    assert a.exit_code == b.exit_code == 0, a.output + b.output
    assert json.loads(a.stdout) == json.loads(b.stdout)
    bad = run(*base, "--workers", "0")
    assert bad.exit_code == 2 and "--workers" in bad.output
    bad = run(*base, "--alpha", "0.1")
    assert bad.exit_code == 2 and "give sprt too" in bad.output


# --------------------------------------------------------------------------- advantage
def test_estimate_from_sums_matches_the_sample() -> None:
    x = np.random.default_rng(1).integers(-5, 9, size=1001)
    a = normal_ci(x.astype(np.float64))
    b = normal_ci_from_sums(x.size, int(x.sum()), int((x * x).sum()))
    assert a.n == b.n and abs(a.estimate - b.estimate) < 1e-12 and abs(a.se - b.se) < 1e-12


def test_advantage_rejects_counts_it_cannot_play() -> None:
    """`advantage --hands 10^15` tried to allocate 14 PiB up front."""
    res = run("advantage", "--hands", "99999999999999999999")
    assert res.exit_code == 2 and "--hands" in res.output and "Traceback" not in res.output


# --------------------------------------------------------------------------- compare --json
@pytest.mark.parametrize("seed_b", ["1", "2"])  # paired (same seed), then unpaired
def test_compare_json_labels_a_as_the_baseline(tmp_path, seed_b: str) -> None:
    """`compare --json` put run B's values in each result's `a`/`n_a`, while the enclosing
    `a` names the baseline."""
    import polars as pl

    from scopa_sim.data.run import scan

    a, b = tmp_path / "a", tmp_path / "b"
    sim = ["simulate", "--hands", "300", "--quiet", "--workers", "1"]
    assert run(*sim, "--seed", "1", "--out", str(a)).exit_code == 0
    res = run(*sim, "--seed", seed_b, "--policy", "greedy", "--hands", "500", "--out", str(b))
    assert res.exit_code == 0, res.output
    res = run("compare", str(a), str(b), "--metric", "plays", "--metric", "scopa", "--json")
    assert res.exit_code == 0, res.output
    (cmp,) = json.loads(res.stdout)["comparisons"]
    assert cmp["a"] == str(a) and cmp["b"] == str(b) and cmp["estimate"] == "b - a"
    plays = {d: scan(d).select(pl.col("plays").cast(pl.Float64).mean()).collect().item()
             for d in (a, b)}  # fmt: skip
    got = {r["metric"]: r for r in cmp["results"]}
    r = got["plays"]
    n_a, n_b = (300, 300) if cmp["paired"] else (300, 500)
    assert cmp["paired"] == (seed_b == "1")
    assert (r["n_a"], r["n_b"]) == (n_a, n_b)
    assert abs(r["a"] - plays[a]) < 1e-9  # the baseline's 300 hands, paired or not
    if not cmp["paired"]:
        assert abs(r["b"] - plays[b]) < 1e-9
    assert abs(r["estimate"] - (r["b"] - r["a"])) < 1e-9
    s = got["scopa"]
    assert abs(s["estimate"] - (s["b"] - s["a"])) < 1e-9


def test_tournament_progress_on_standard_error() -> None:
    """Forced progress goes to standard error and counts every deal pair; --quiet and a
    pipe (the default) show none; standard output stays the JSON alone."""
    args = ["tournament", "--policy", "greedy", "--policy", "random", "--policy", "pimc:worlds=1"]
    res = CliRunner().invoke(cli, [*args, "--deals", "3", "--json", "--progress"])
    assert res.exit_code == 0, res.output
    json.loads(res.stdout)  # nothing but the JSON on standard output
    last = res.stderr.strip().splitlines()[-1]
    assert last.startswith("tournament: 9/9 deal pairs (100%), done in"), res.stderr
    for quiet in (["--quiet"], ["--progress", "--quiet"], []):
        res = CliRunner().invoke(cli, [*args, "--deals", "3", *quiet])
        assert res.exit_code == 0 and "deal pairs (" not in res.stderr


def test_too_few_deal_pairs_or_hands_give_no_interval() -> None:
    """From fewer than MIN_SAMPLES deal pairs (tournament) or hands (advantage) no normal
    interval is printed or written (JSON null), only the estimate; at MIN_SAMPLES it is."""
    from scopa_sim.stats.inference import MIN_SAMPLES

    args = ["tournament", "--policy", "greedy", "--policy", "random"]
    few = CliRunner().invoke(cli, [*args, "--deals", "3", "--json"])
    assert few.exit_code == 0, few.output
    pairing = json.loads(few.stdout)["pairings"][0]
    assert pairing["margin_ci"] == [None, None] and pairing["elo_ci"] == [None, None]
    text = CliRunner().invoke(cli, [*args, "--deals", "3"]).output
    assert "no CI (not estimated from fewer than 10 deal pairs)" in text and "nan" not in text
    enough = CliRunner().invoke(cli, [*args, "--deals", str(MIN_SAMPLES), "--json"])
    pairing = json.loads(enough.stdout)["pairings"][0]
    assert all(isinstance(x, float) for x in pairing["margin_ci"] + pairing["elo_ci"])

    adv = ["advantage", "--policy", "random", "--hands"]
    got = json.loads(CliRunner().invoke(cli, [*adv, "5", "--json"]).stdout)
    assert got["dealer_margin"]["low"] is None and got["dealer_margin"]["n"] == 5
    assert all(p["high"] is None for p in got["points_by_position"])
    text = CliRunner().invoke(cli, [*adv, "5"]).output
    assert "no CI" in text and "nan" not in text and "with no interval" in text
    got = json.loads(CliRunner().invoke(cli, [*adv, str(MIN_SAMPLES), "--json"]).stdout)
    assert isinstance(got["dealer_margin"]["low"], float)
