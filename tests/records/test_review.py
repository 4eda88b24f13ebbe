"""The review evaluator and ``scopa-sim review``: paired losses from the information set
only, exact open endgames, luck + skill = result, JSON, HTML and bad input."""

from __future__ import annotations

import json
import random
from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest
from click.testing import CliRunner
from scopa_sim_cli.main import cli

from scopa_sim import _engine as K
from scopa_sim.bots.evaluate import DEALT, PUBLIC, Evaluator
from scopa_sim.bots.registry import PolicyError, PolicySpec
from scopa_sim.bots.search import SolverBot
from scopa_sim.errors import ReviewError
from scopa_sim.game.infoset import InfoSet
from scopa_sim.game.play import Play
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import HandState
from scopa_sim.records.record import write_records
from scopa_sim.records.review import (
    THRESHOLDS,
    Decision,
    Review,
    band_for,
    label_for,
    load_tasks,
    parse_evaluator,
    parse_targets,
    review_tasks,
    run_review,
    summarize,
    to_json,
    to_text,
)
from scopa_sim.records.review_html import to_html
from scopa_sim.sim.match import play_match
from scopa_sim.stats import Estimate
from scopa_sim.stats.inference import MIN_SAMPLES

SMALL = "eval:worlds=16"


def run(*args: str):
    res = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in res.output
    return res


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One match of greedy (seat 0) against random (seat 1), as play --record writes it."""
    path = tmp_path_factory.mktemp("review") / "games.jsonl"
    rules = Rules.make("scopa")
    specs = [PolicySpec.parse("greedy"), PolicySpec.parse("random")]
    with path.open("w", encoding="utf-8") as f:
        write_records(f, rules, play_match(rules, specs, 11, 0))
    return path


def endgames(rules: Rules, count: int, seed: int) -> list[HandState]:
    """Positions of the last round (stock empty) of 2-player hands, from random play."""
    rnd = random.Random(seed)
    out = []
    for _ in range(count):
        s = HandState.deal(rules, dealer=rnd.randrange(2), seed=rnd.randrange(2**32))
        while s.plays_left > 6 - rnd.randrange(4):
            s.push(rnd.choice(list(s.legal_plays)))
        out.append(s)
    return out


# --------------------------------------------------------------------------- evaluator
def test_losses_are_paired_differences_on_common_worlds() -> None:
    s = HandState.deal(Rules.make("scopa"), seed=4)
    e = Evaluator(worlds=32).evaluate(s, 1)
    assert e.worlds == 32 and not e.exact and len(e.plays) > 1
    assert list(e.plays) == list(s.legal_plays)
    best = e.best
    assert e.means[best] == e.means.max()
    assert e.loss(best).estimate == e.loss(best).low == e.loss(best).high == 0.0
    for i in range(len(e.plays)):
        loss = e.loss(i)
        assert loss.estimate == pytest.approx(e.means[best] - e.means[i])
        assert loss.low <= loss.estimate <= loss.high
    # paired: the loss's interval is narrower than the sum of the two plays' own halves
    stats = {p.play: p for p in e.play_stats()}
    worst = int(np.argmin(e.means))
    own = [stats[e.plays[j]].margin.high - stats[e.plays[j]].mean for j in (best, worst)]
    assert e.loss(worst).high - e.loss(worst).estimate < sum(own)


def test_same_position_and_seed_same_numbers_and_seeds_matter() -> None:
    s = HandState.deal(Rules.make("scopa"), seed=9)
    ev = Evaluator(worlds=24)
    a, b = ev.evaluate(s, 3), ev.evaluate(s.clone(), 3)
    assert np.array_equal(a.values, b.values)
    assert not np.array_equal(a.values, ev.evaluate(s, 4).values)


def test_only_the_information_set_is_read() -> None:
    """Another world of the same information set (hidden cards dealt otherwise) gives
    exactly the same evaluation: the recorded hidden cards are never read."""
    s = HandState.deal(Rules.make("scopa"), seed=21)
    later = s.clone()
    later.push(later.legal_plays[0])
    ev = Evaluator(worlds=16)
    for state in (s, later):
        other = InfoSet(state).sample(5)
        assert other.hand(1 - state.turn) != state.hand(1 - state.turn)
        assert np.array_equal(ev.evaluate(state, 2).values, ev.evaluate(other, 2).values)


def test_open_endgames_are_exact_and_the_solver_loses_nothing() -> None:
    rules = Rules.make("scopa")
    solver = SolverBot()
    ev = Evaluator(worlds=64)
    for s in endgames(rules, 12, 3):
        e = ev.evaluate(s, 0)
        assert e.exact and e.worlds == 1
        exact = {p.play: p.mean for p in solver.analyse(s, 0)}
        top = max(exact.values())
        for i, p in enumerate(e.plays):
            assert e.means[i] == exact[p]
            assert e.loss(i).estimate == top - exact[p]
            assert e.loss(i).low == e.loss(i).high == e.loss(i).estimate
        assert e.loss(e.index(solver.choose(s, 0))).estimate == 0.0


def test_position_values_views() -> None:
    rules = Rules.make("scopa")
    s = HandState.deal(rules, seed=2)
    ev = Evaluator(worlds=32)
    for view in (DEALT, PUBLIC, 0, 1):
        v = ev.position_values(s, view, 0)
        assert v.shape == (32, 2)
        assert np.array_equal(v[:, 0], -v[:, 1])  # two sides: margins are opposite
    # every hand known and the stock order unknown: a swap of the stock's order is
    # invisible, a swap of the hands is not
    a = ev.position_values(s, DEALT, 0)
    vec = s._vec.copy()
    lo = K.S_DECK + int(vec[K.S_STOCK])
    vec[lo : lo + 2] = vec[lo : lo + 2][::-1]
    assert np.array_equal(a, ev.position_values(HandState(rules, vec), DEALT, 0))
    other = InfoSet(s, 0).sample(3)  # seat 1's hand dealt otherwise
    assert not np.array_equal(a, ev.position_values(other, DEALT, 0))
    # no hand known: the hands do not matter; a seat's view: only the others' do not
    assert np.array_equal(ev.position_values(s, PUBLIC, 0), ev.position_values(other, PUBLIC, 0))
    assert np.array_equal(ev.position_values(s, 0, 0), ev.position_values(other, 0, 0))
    done = HandState.deal(rules, seed=2)
    while not done.is_over:
        done.push(done.legal_plays[0])
    totals = done.score_array()[:, 7]
    assert list(ev.position_values(done, DEALT, 0)[0]) == [
        totals[0] - totals[1],
        totals[1] - totals[0],
    ]
    with pytest.raises(ValueError, match="view"):
        ev.position_values(s, 5, 0)


def test_prior_is_deterministic_and_antisymmetric() -> None:
    rules = Rules.make("scopa")
    p = Evaluator(worlds=8).prior(rules, 0)
    assert np.array_equal(p, Evaluator(worlds=99).prior(rules, 0))  # independent of worlds
    assert p[0] == -p[1] and abs(p[0]) < 1


def test_evaluator_parameters_are_checked() -> None:
    for text, match in [
        ("eval:worlds=0", "worlds"),
        ("eval:rollout=bogus", "rollout"),
        ("eval:exact=2", "exact"),
        ("eval:depth=3", "unknown parameter"),
    ]:
        with pytest.raises(PolicyError, match=match):
            PolicySpec.parse(text)
    with pytest.raises(ReviewError, match="unknown evaluator"):
        parse_evaluator("ismcts:iterations=10")
    ev = parse_evaluator("eval:worlds=12,rollout=random,exact=0")
    assert (ev.worlds, ev.rollout, ev.exact) == (12, "random", False)
    assert str(ev) == "eval:worlds=12,rollout=random,exact=0"


def test_the_evaluator_plays_as_a_bot() -> None:
    bot = PolicySpec.parse(SMALL).bot()
    s = HandState.deal(Rules.make("scopa"), seed=5)
    e = Evaluator(worlds=16).evaluate(s, 8)
    assert bot.choose(s, 8) == e.plays[e.best]
    stats = bot.analyse(s, 8)
    assert stats[0].chosen and [p.mean for p in stats] == sorted(e.means, reverse=True)


# --------------------------------------------------------------------------- labels etc.
def _decision(loss: float, low: float, random_loss: float, forced: bool = False) -> Decision:
    return Decision(
        "f", 1, 0, 0, 0, 0, 0, forced, False, 2, "AD", "AD", 0.0, loss,
        Estimate(loss, low, loss + 0.1, 100, "normal"), random_loss, label_for(loss, low), "AD",
        "", ("", ""), (0, 0), (),
    )  # fmt: skip


def test_labels_need_an_interval_above_zero() -> None:
    t = THRESHOLDS
    assert label_for(t["blunder"] + 1, 0.0) is None  # CI includes 0: no label
    assert label_for(t["inaccuracy"] / 2, 0.01) is None
    assert label_for(t["inaccuracy"], 0.01) == "inaccuracy"
    assert label_for(t["mistake"], 0.01) == "mistake"
    assert label_for(t["blunder"], 0.01) == "blunder"
    assert band_for(0.0) != band_for(10.0)


def test_summary_formulas() -> None:
    ds = [_decision(0.0, 0.0, 0.5), _decision(0.5, 0.2, 0.5), _decision(1.0, 0.0, 1.0, True)]
    s = summarize("seat 0", ds)
    assert (s.decisions, s.forced) == (2, 1)
    assert s.mean_loss.estimate == pytest.approx(0.25)
    assert not s.ci_estimated  # two decisions: no interval (MIN_SAMPLES)
    assert s.accuracy == pytest.approx(100 * (1 - 0.5 / 1.0))
    assert sum(s.counts.values()) == 1
    many = summarize("seat 0", ds[:2] * (MIN_SAMPLES // 2))
    assert many.ci_estimated and many.mean_loss.low < 0.25 < many.mean_loss.high


def test_line_arguments() -> None:
    assert parse_targets(["a.jsonl", "2", "4-5", "b.jsonl"]) == [
        ("a.jsonl", [range(2, 3), range(4, 6)]),
        ("b.jsonl", None),
    ]
    with pytest.raises(ReviewError, match="line range"):
        parse_targets(["a.jsonl", "5-4"])


# --------------------------------------------------------------------------- reviewing
@pytest.fixture(scope="module")
def reviewed(games: Path):
    tasks = load_tasks([(str(games), None)])
    return tasks, review_tasks(tasks, Evaluator(worlds=16), 0)


def test_review_grades_every_play_and_splits_luck_and_skill(games: Path, reviewed) -> None:
    tasks, rv = reviewed
    records = [json.loads(line) for line in games.read_text().splitlines()]
    assert len(rv.hands) == len(records) == len(tasks)
    for h, rec in zip(rv.hands, records, strict=True):
        assert [d.chosen for d in h.decisions] == [
            str(Play.of(p["card"], p["take"])) for p in rec["plays"]
        ]
        assert len(h.deals) == len(rec["deals"])
        assert h.deals[0].before == h.prior
        totals = [sc["total"] for sc in rec["score"]]
        assert h.result == (totals[0] - totals[1], totals[1] - totals[0])
        for s in range(2):
            assert h.luck[s] + h.skill[s] == pytest.approx(h.result[s])
            assert h.luck[s] == pytest.approx(h.prior[s] + sum(d.luck[s] for d in h.deals))
        for d in h.decisions:
            assert d.forced == (d.legal == 1) and (d.label is None or not d.forced)
            assert d.loss.estimate >= 0 and d.loss.low <= d.loss.estimate <= d.loss.high
            assert d.best_value - d.chosen_value == pytest.approx(d.loss.estimate)
        # the curve: a point after every play, two at every later deal
        assert len(h.curve) == 2 + len(rec["plays"]) + len(rec["deals"]) - 1
        assert h.curve[-1][1] == h.result


def test_results_do_not_depend_on_workers(reviewed) -> None:
    tasks, rv = reviewed
    ticks: list[int] = []
    again = review_tasks(tasks, Evaluator(worlds=16), 0, workers=3, progress=ticks.append)
    assert to_json(again) == to_json(rv)
    assert sum(ticks) == len(tasks)
    with pytest.raises(ReviewError, match="workers"):
        review_tasks(tasks, Evaluator(worlds=16), 0, workers=0)


def test_json_and_text(reviewed) -> None:
    _, rv = reviewed
    doc = to_json(rv)
    d0 = doc["decisions"][0]
    for key in ("line", "play", "seat", "chosen", "best", "loss", "loss_ci", "label"):
        assert key in d0
    seats = doc["summary"]["seats"]
    assert set(seats) == {"0", "1"}
    for s in seats.values():
        for key in ("decisions", "mean_loss", "accuracy", *THRESHOLDS):
            assert key in s
    assert sum(s["decisions"] + s["forced"] for s in seats.values()) == len(doc["decisions"])
    text = to_text(rv)
    assert "summary" in text and "luck" in text and "seat 1:" in text


def test_advise_shares_the_evaluator(games: Path, reviewed) -> None:
    """advise --policy eval on a recorded position gives the numbers review printed."""
    _, rv = reviewed
    d = next(d for d in rv.hands[0].decisions if not d.forced and d.best != d.chosen)
    res = run(
        "advise", "--position", f"{games}:1:{d.play}", "--policy", SMALL, "--seed", "0", "--json"
    )
    assert res.exit_code == 0, res.output
    plays = {p["play"]: p["mean_margin"] for p in json.loads(res.stdout)["plays"]}
    assert plays[d.chosen] == d.chosen_value and plays[d.best] == d.best_value


class _Checker(HTMLParser):
    VOID: ClassVar[set[str]] = {"meta", "br", "img", "hr", "input", "link"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.count: dict[str, int] = {}
        self.attrs: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.count[tag] = self.count.get(tag, 0) + 1
        self.attrs += attrs
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.count[tag] = self.count.get(tag, 0) + 1

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1] == tag, (tag, self.stack[-5:])
        self.stack.pop()


def test_html_report_is_well_formed_and_self_contained(reviewed) -> None:
    _, rv = reviewed
    page = to_html(rv)
    p = _Checker()
    p.feed(page)
    p.close()
    assert p.stack == []
    assert p.count["svg"] == len(rv.hands) and p.count["polyline"] >= len(rv.hands)
    assert p.count["section"] == len(rv.hands)
    decisions = sum(len(h.decisions) for h in rv.hands)
    assert p.count["tr"] == decisions + len(rv.hands) + 1 + 4  # + headers, summary rows
    refs = [v for k, v in p.attrs if k in ("src", "href")]
    assert refs == [] and "<script" not in page
    assert "\u2666" in page and 'class="c D"' in page
    for label in {d.label for h in rv.hands for d in h.decisions} - {None}:
        assert f">{label}</span>" in page


def test_review_other_games() -> None:
    """Three players (no exact endgames, margins against the best other side) and four
    in teams: every play graded, luck + skill = result."""
    for preset in ("scopa-3", "scopone"):
        rules = Rules.make(preset)
        logs = list(play_match(rules, [PolicySpec.parse("greedy")] * rules.players, 1, 0))
        text = "\n".join(json.dumps(r) for r in _records(rules, logs[:1]))
        from scopa_sim.records.review import HandTask, review_hand

        h = review_hand(HandTask("x", 1, text), Evaluator(worlds=4), 0)
        assert len(h.decisions) == len(logs[0].plays) and len(h.result) == rules.sides
        for s in range(rules.sides):
            assert h.luck[s] + h.skill[s] == pytest.approx(h.result[s])
        assert not any(d.exact for d in h.decisions) or rules.sides == 2
        page = to_html(Review("eval:worlds=4", 0, (h,)))
        p = _Checker()
        p.feed(page)
        assert p.stack == [] and p.count["polyline"] == (1 if rules.sides == 2 else rules.sides)
        assert f"side {rules.sides - 1}:" in to_text(Review("eval:worlds=4", 0, (h,)))


def _records(rules: Rules, logs):
    from scopa_sim.records.record import hand_record

    return [hand_record(rules, log) for log in logs]


# --------------------------------------------------------------------------- command line
def test_cli_review(games: Path, tmp_path: Path) -> None:
    res = run("review", str(games), "1", "--policy", SMALL, "--seat", "1", "-q")
    assert res.exit_code == 0, res.output
    assert "seat 1:" in res.output and "seat 0:" not in res.output
    out = tmp_path / "r.html"
    js = run("review", str(games), "2-3", "--policy", SMALL, "--json", "--html", str(out))
    assert js.exit_code == 0, js.output
    doc = json.loads(js.stdout)
    assert {d["line"] for d in doc["decisions"]} == {2, 3}
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_cli_bad_input(games: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    lines = games.read_text().splitlines()
    rec = json.loads(lines[0])
    rec["plays"][0]["card"], rec["plays"][1]["card"] = rec["plays"][1]["card"], "KD"
    bad.write_text("\n".join([json.dumps(rec), *lines[1:]]) + "\n")
    binary = tmp_path / "bin.jsonl"
    binary.write_bytes(b"\xff\xfe\x00")
    cases = [
        ([str(bad)], "not a valid scopa-record/1 file: line 1"),
        ([str(binary)], "not a text"),
        ([str(tmp_path / "none.jsonl")], "no such file"),
        ([str(games), "99"], f"has lines 1..{len(lines)}, not 99"),
        ([str(games), "--seat", "2"], "seat 2:"),
        ([str(games), "--policy", "ismcts"], "unknown evaluator"),
        ([str(games), "--policy", "nonsense"], "unknown policy"),
        ([str(games), "--policy", "eval:worlds=x"], "worlds"),
    ]
    for args, message in cases:
        res = run("review", *args, "-q")
        assert res.exit_code != 0, args
        assert message in res.output, (args, res.output)
        assert len(res.output.strip().splitlines()) == 1, res.output


def test_the_text_leads_with_the_summary_and_stays_compact(tmp_path: Path) -> None:
    """``review`` printed 1,095 lines for 23 hands with the summary last, and "4 mistake,
    2 blunder": the summary now comes first, then each hand's result and its labelled
    decisions; every decision with ``details``; counts in the plural when not one."""
    rules = Rules.make("scopa")
    specs = [PolicySpec.parse("greedy"), PolicySpec.parse("random")]
    path = tmp_path / "games.jsonl"
    with path.open("w", encoding="utf-8") as f:
        write_records(f, rules, play_match(rules, specs, 3, 0))
    rv = run_review([str(path)], "eval:worlds=16", seed=0)
    text, details = to_text(rv), to_text(rv, details=True)
    lines = text.splitlines()
    assert lines[0].startswith(f"review: {len(rv.hands)} hands, evaluator")
    assert lines.index("summary") < 6 and details.splitlines().index("summary") < 6
    assert len(lines) <= 16 + 2 * len(rv.hands) + sum(1 for d in rv.decisions() if d.label)
    assert len(details.splitlines()) > len(lines)
    assert "--details" in lines[-1]
    for word in ("decision(s)", "hand(s)", "point(s)", " 1 mistakes", " 1 blunders"):
        assert word not in text + details
    counts = {n: sum(1 for d in rv.decisions() if d.label == n and d.seat == 0) for n in THRESHOLDS}
    seat0 = next(ln for ln in lines if ln.startswith("  seat 0:"))
    words = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}
    for name, n in counts.items():
        assert f" {n} {name if n == 1 else words[name]}" in seat0
