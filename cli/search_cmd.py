"""``advise`` (rank the plays of a position) and ``tournament`` (policies head to head)."""

from __future__ import annotations

import json
import math
import sys

import click

from scopa_sim.bots.advise import (
    advice_json,
    advise,
    check_advisor,
    describe,
    interval_kind,
    position_from_cards,
)
from scopa_sim.bots.belief import SHOWN_BELIEFS, belief, belief_json, describe_belief
from scopa_sim.bots.registry import PolicySpec
from scopa_sim.errors import ScopaError
from scopa_sim.files import json_number
from scopa_sim.game.cards import CardSet
from scopa_sim.records.record import opening_line, position_from_record
from scopa_sim.sim.pool import interruptible
from scopa_sim.sim.tournament import Sprt, ladder, run_tournament, standings
from scopa_sim.stats.inference import MIN_SAMPLES

from .options import (
    COUNT_MAX,
    WORKERS,
    BadInput,
    make_rules,
    policy_names,
    rules_options,
    seed_option,
)
from .progress import Progress, progress_option, wanted

_DEFAULT = click.core.ParameterSource.DEFAULT


def _given(name: str) -> bool:
    """Whether the option ``name`` was given on the command line (not its default)."""
    return click.get_current_context().get_parameter_source(name) is not _DEFAULT


def _cards(text: str | None, option: str) -> CardSet:
    if not text:
        return CardSet()
    try:
        return CardSet.parse(text)
    except ScopaError as e:
        raise BadInput(f"{option}: {e}") from None


def _policy(text: str) -> PolicySpec:
    try:
        return PolicySpec.parse(text)
    except ScopaError as e:
        raise BadInput(str(e)) from None


@click.command()
@rules_options
@click.option("--hand", help='Cards of the seat to play, e.g. "7D 3S KH".')
@click.option("--table", default="", help='Cards on the table, e.g. "7C 5H 2S".')
@click.option("--mine", default="", help="Cards captured by your side so far.")
@click.option("--theirs", default="", help="Cards captured by the other side so far.")
@click.option("--seen", default="", help="Other cards out of play (they score for nobody).")
@click.option(
    "--scope", default="0,0", show_default=True, help="Scope so far: your side, the other side."
)
@click.option("--opponent-cards", type=int, help="Cards in each other hand (default: inferred).")
@click.option(
    "--totals",
    default="0,0",
    show_default=True,
    help="Match points before this hand: your side, the other side (objective=match).",
)
@click.option(
    "--position",
    metavar="FILE.jsonl:LINE:PLAY",
    help="Take the position before play PLAY (0-based) of the hand on LINE of a record.",
)
@click.option(
    "--policy",
    default="ismcts:iterations=20000",
    show_default=True,
    help=f"Policy that ranks the plays: {policy_names()} (solver is a cheat that sees every card).",
)
@click.option(
    "--belief",
    "belief_model",
    type=click.Choice(list(SHOWN_BELIEFS)),
    default=None,
    help="Also show the belief about the other hands (most likely holdings, from the "
    "plays of --position's record) under this play model.",
)
@seed_option
@click.option("--json", "as_json", is_flag=True, help="Print the analysis as JSON.")
@progress_option
def advise_cmd(
    preset: str,
    rules: tuple[str, ...],
    hand: str | None,
    table: str,
    mine: str,
    theirs: str,
    seen: str,
    scope: str,
    opponent_cards: int | None,
    totals: str,
    position: str | None,
    policy: str,
    belief_model: str | None,
    seed: int,
    as_json: bool,
    progress: bool | None,
) -> None:
    """Rank every legal play of a position by expected point margin, with 95% CIs."""
    spec = _policy(policy)
    try:
        check_advisor(spec)
    except ScopaError as e:
        raise BadInput(str(e)) from None
    if position:
        given = [
            f"--{name.replace('_', '-')}"
            for name in (
                "hand",
                "table",
                "mine",
                "theirs",
                "seen",
                "scope",
                "opponent_cards",
                "totals",
            )
            if _given(name)
        ]
        given += ["--preset"] * _given("preset")
        given += ["--rule"] * bool(rules)
        if given:
            raise BadInput(
                f"--position takes the rules and the cards from the record: drop {given[0]}"
            )
        try:
            state = position_from_record(position)
        except ScopaError as e:
            raise BadInput(str(e)) from None
    else:
        if not hand:
            raise BadInput("give --hand (and --table), or --position FILE.jsonl:LINE:PLAY")
        r = make_rules(preset, rules)
        counts = [x.strip() for x in scope.split(",")]
        if len(counts) != 2 or not all(x.isdecimal() for x in counts):
            raise BadInput(f"--scope {scope!r}: expected two counts like 1,0")
        sc = (int(counts[0]), int(counts[1]))
        points = [x.strip() for x in totals.split(",")]
        if len(points) != 2 or not all(x.isdecimal() for x in points):
            raise BadInput(f"--totals {totals!r}: expected two match scores like 7,9")
        try:
            state = position_from_cards(
                r,
                _cards(hand, "--hand"),
                _cards(table, "--table"),
                mine=_cards(mine, "--mine"),
                theirs=_cards(theirs, "--theirs"),
                seen=_cards(seen, "--seen"),
                scope=(sc[0], sc[1]),
                opponent_cards=opponent_cards,
                totals=(int(points[0]), int(points[1])),
            )
        except ScopaError as e:
            raise BadInput(str(e)) from None
    bot = spec.bot()
    ranking = f"ranking {len(state.legal_plays)} plays with {spec}"
    with Progress(wanted(progress), "advise", text=ranking) as bar:
        # on a worker thread, so that Ctrl-C and SIGTERM stop a long search at once
        result = interruptible(advise, state, bot, seed, recorded=bool(position))
        if belief_model:
            bar.status(f"the belief about the other hands ({belief_model})")
        shown = belief(state, belief_model, seed=seed) if belief_model else None
    horizon = dict(spec.params).get("horizon") is not None  # values are heuristic estimates
    match = dict(spec.params).get("objective") == "match"
    win = getattr(bot, "win_probability", None)
    p_win = {p.play: win(state, p.mean) for p in result.plays} if match and win else {}
    if as_json:
        doc = advice_json(result, spec, bot, seed)
        if shown is not None:
            doc["belief"] = belief_json(shown)
        json.dump(doc, sys.stdout, indent=2)
        click.echo()
        return
    click.echo(describe(state, result.seat))
    if state.rules.opening_fifteen and state.opening:
        click.echo(opening_line(state.rules, state.dealer, state.opening))
    if match:
        score = "-".join(map(str, state.match_totals))
        what = f"match-win chance at {score} in points (P(win) beside it)"
    elif horizon:
        what = "estimated point margin (heuristic value at the rollout horizon)"
    else:
        what = "expected point margin of the hand"
    click.echo(f"policy {spec}, seed {seed}; {what} for your side:")
    width = max(len(str(p.play)) for p in result.plays)
    extra = f"  {'P(win)':>7}" if match else ""
    click.echo(f"  {'play':<{width}}  {'margin':>7}  {'95% CI':>17}  {'n':>7}{extra}")
    for p in result.plays:
        mark = "  <- best" if p.chosen else ""
        ci = f"[{p.ci_low:+.2f}, {p.ci_high:+.2f}]" if p.estimated and not p.exact else ""
        pw = f"  {p_win[p.play]:7.3f}" if match else ""
        ci = ci or interval_kind(p)
        click.echo(f"  {p.play!s:<{width}}  {p.mean:+7.3f}  {ci:>17}  {p.n:>7}{pw}{mark}")
    if result.layout is not None:
        click.echo(result.layout.sentence(spec.name, cut=not all(p.exact for p in result.plays)))
    elif any(not p.estimated for p in result.plays):
        click.echo(
            f"intervals not estimated: from fewer than {MIN_SAMPLES} samples (worlds or "
            "visits) no interval is given"
        )
    if shown is not None:
        click.echo(f"belief ({belief_model}, {shown.method}, from {shown.observations.plays} "
                   "plays seen):")  # fmt: skip
        for line in describe_belief(shown):
            click.echo(f"  {line}")


@click.command()
@rules_options
@click.option(
    "--policy",
    "policies",
    multiple=True,
    required=True,
    metavar="NAME[:K=V,...]",
    help=f"A contestant (at least two): {policy_names()}, with parameters, e.g. pimc:worlds=8.",
)
@click.option(
    "--deals",
    type=click.IntRange(min=2, max=COUNT_MAX),
    default=200,
    show_default=True,
    help="Deal pairs.",
)
@seed_option
@click.option(
    "--sprt",
    metavar="ELO0,ELO1",
    help="Stop early with a sequential probability ratio test (two policies).",
)
@click.option(
    "--alpha",
    type=click.FloatRange(0, 0.5, min_open=True),
    default=0.05,
    show_default=True,
    help="With --sprt: the chance of accepting H1 (ELO1) when H0 (ELO0) is true.",
)
@click.option(
    "--beta",
    type=click.FloatRange(0, 0.5, min_open=True),
    default=0.05,
    show_default=True,
    help="With --sprt: the chance of accepting H0 (ELO0) when H1 (ELO1) is true.",
)
@click.option(
    "--workers",
    type=WORKERS,
    default=1,
    show_default=True,
    help="Processes playing the deals; the results are the same for any number.",
)
@progress_option
@click.option("-q", "--quiet", is_flag=True, help="No progress (as --no-progress).")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
def tournament_cmd(
    preset: str,
    rules: tuple[str, ...],
    policies: tuple[str, ...],
    deals: int,
    seed: int,
    sprt: str | None,
    alpha: float,
    beta: float,
    workers: int,
    progress: bool | None,
    quiet: bool,
    as_json: bool,
) -> None:
    """Policies head to head on paired, seat-swapped deals, with CIs and an Elo ladder.

    Every pairing plays the same deals, each twice with the sides swapped. Progress is
    shown on standard error when it is a terminal (see --progress).
    """
    r = make_rules(preset, rules)
    specs = [_policy(p) for p in policies]
    test = None
    if sprt:
        try:
            e0, e1 = (float(x) for x in sprt.split(","))
        except ValueError:
            raise BadInput(f"--sprt {sprt!r}: expected ELO0,ELO1 such as 0,10") from None
        if not (math.isfinite(e0) and math.isfinite(e1)):
            raise BadInput(f"--sprt {sprt!r}: ELO0 and ELO1 must be finite numbers")
        if e0 >= e1:
            raise BadInput("--sprt: ELO0 must be below ELO1")
        test = Sprt(e0, e1, alpha, beta)
    if sprt is None and (_given("alpha") or _given("beta")):
        raise BadInput("--alpha and --beta are the error rates of --sprt: give --sprt too")
    pairings = len(specs) * (len(specs) - 1) // 2
    try:
        bar = Progress(wanted(progress, quiet), "tournament", deals * pairings, "deal pairs")
        with bar:
            callback = bar.advance if bar.show else None
            results = run_tournament(r, specs, deals, seed, test, callback, workers)
    except ScopaError as e:
        raise BadInput(str(e)) from None
    names = [str(p) for p in specs]
    board = ladder(names, results)
    rank = standings(names, results)
    if as_json:
        doc = {
            "preset": preset,
            "rules": r.as_dict(),
            "seed": seed,
            "deals": deals,
            "pairings": [
                {
                    "a": x.a,
                    "b": x.b,
                    "deal_pairs": x.deal_pairs,
                    "margin": x.margin.estimate,
                    "margin_ci": [json_number(x.margin.low), json_number(x.margin.high)],
                    "wins": x.wins,
                    "draws": x.draws,
                    "losses": x.losses,
                    "score": x.score,
                    "elo": x.elo,
                    "elo_ci": [json_number(x.elo_low), json_number(x.elo_high)],
                    "sprt_llr": x.sprt_llr,
                    "sprt_verdict": x.sprt_verdict,
                }
                for x in results
            ],
            "ladder": [{"policy": p, "elo": e} for p, e in board],
            "standings": [x.to_dict() for x in rank],
        }
        json.dump(doc, sys.stdout, indent=2)
        click.echo()
        return
    click.echo(f"rules {preset} ({r.digest()}), seed {seed}; each deal played twice, sides swapped")
    for x in results:
        if x.margin.estimated:
            margin_ci = f"95% CI [{x.margin.low:+.3f}, {x.margin.high:+.3f}]"
            elo_ci = f" [{x.elo_low:+.0f}, {x.elo_high:+.0f}]"
        else:
            margin_ci = f"no CI (not estimated from fewer than {MIN_SAMPLES} deal pairs)"
            elo_ci = ""
        click.echo(
            f"{x.a} vs {x.b}: {x.margin.estimate:+.3f} points per hand, {margin_ci} over "
            f"{x.deal_pairs} deal pairs; W/D/L {x.wins}/{x.draws}/{x.losses}, "
            f"Elo {x.elo:+.0f}{elo_ci}"
        )
        if x.sprt_llr is not None and test is not None:
            lo, hi = test.bounds
            verdict = {"H1": f"H1 (elo >= {test.elo1:g})", "H0": f"H0 (elo <= {test.elo0:g})"}
            click.echo(
                f"  SPRT elo0={test.elo0:g} elo1={test.elo1:g} alpha={alpha} beta={beta}: "
                f"LLR {x.sprt_llr:+.2f} in [{lo:.2f}, {hi:.2f}] -> "
                f"{verdict.get(x.sprt_verdict or '', 'inconclusive')}"
            )
    click.echo("Elo ladder (least-squares fit, mean 0):")
    for p, e in board:
        click.echo(f"  {e:+7.1f}  {p}")
    click.echo(
        "Standings (not significantly worse than any other first, then by the worst pairing):"
    )
    for x in rank:
        m = x.worst_margin
        ci = f" [{m.low:+.3f}, {m.high:+.3f}]" if m.estimated else " (no CI)"
        worse = ", ".join(x.worse_against) if x.worse_against else "none"
        click.echo(
            f"  {x.policy}: worst pairing {m.estimate:+.3f}{ci} vs {x.worst_opponent}; "
            f"significantly worse against: {worse}"
        )
