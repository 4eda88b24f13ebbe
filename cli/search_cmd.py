"""``advise`` (rank the plays of a position) and ``tournament`` (policies head to head)."""

from __future__ import annotations

import contextlib
import json
import math
import sys
from collections.abc import Callable, Iterator

import click

from scopa_sim.bots.advise import advise, describe, position_from_cards
from scopa_sim.bots.base import MIN_SAMPLES, PlayStats
from scopa_sim.bots.belief import Belief, belief, describe_belief
from scopa_sim.bots.registry import PolicySpec, search_policies
from scopa_sim.errors import ScopaError
from scopa_sim.game.cards import CardSet
from scopa_sim.records.record import opening_line, position_from_record
from scopa_sim.sim.pool import interruptible
from scopa_sim.sim.tournament import Sprt, ladder, run_tournament

from .options import (
    COUNT_MAX,
    WORKERS,
    BadInput,
    make_rules,
    policy_names,
    progress_bar,
    rules_options,
    seed_option,
)

_DEFAULT = click.core.ParameterSource.DEFAULT


def _given(name: str) -> bool:
    """Whether the option ``name`` was given on the command line (not its default)."""
    return click.get_current_context().get_parameter_source(name) is not _DEFAULT


def _on_terminal() -> bool:
    """Whether standard error is a terminal (where a progress bar is drawn)."""
    return sys.stderr.isatty()


@contextlib.contextmanager
def _progress_bar(show: bool, total: int) -> Iterator[Callable[[int], None] | None]:
    """A rich progress bar of deal pairs on standard error, or no callback at all."""
    if not show:
        yield None
        return
    bar = progress_bar("deal pairs", stderr=True)
    task = bar.add_task("deals", total=total)
    with bar:
        yield lambda n: bar.update(task, advance=n)


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
    type=click.Choice(["expert", "fit"]),
    default=None,
    help="Also show the belief about the other hands (most likely holdings, from the "
    "plays of --position's record) under this play model.",
)
@seed_option
@click.option("--json", "as_json", is_flag=True, help="Print the analysis as JSON.")
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
) -> None:
    """Rank every legal play of a position by expected point margin, with 95% CIs."""
    spec = _policy(policy)
    if spec.is_kernel:
        raise BadInput(
            f"--policy {spec}: advise ranks plays with a search policy "
            f"({', '.join(search_policies())}); {spec} gives no values to rank by"
        )
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
    # on a worker thread, so that Ctrl-C and SIGTERM stop a long search at once
    result = interruptible(advise, state, bot, seed, recorded=bool(position))
    shown = belief(state, belief_model, seed=seed) if belief_model else None
    horizon = dict(spec.params).get("horizon") is not None  # values are heuristic estimates
    match = dict(spec.params).get("objective") == "match"
    win = getattr(bot, "win_probability", None)
    p_win = {p.play: win(state, p.mean) for p in result.plays} if match and win else {}
    if as_json:
        doc = {
            "policy": str(spec),
            "seed": seed,
            "rules": state.rules.as_dict(),
            "seat": result.seat,
            "hand": str(state.hand(result.seat)),
            "table": str(state.table),
            "chosen": str(result.chosen),
            "values": ("match_win_points" if match else "")
            or ("horizon_estimate" if horizon else "hand_margin"),
            "match_totals": list(state.match_totals),
            "plays": [
                {
                    "play": str(p.play),
                    "mean_margin": _num(p.mean),
                    "ci_low": _num(p.ci_low),
                    "ci_high": _num(p.ci_high),
                    "interval": _interval(p),
                    "n": p.n,
                    "chosen": p.chosen,
                    **({"p_win": _num(p_win[p.play])} if match else {}),
                }
                for p in result.plays
            ],
        }
        if result.layout is not None:
            doc["perfect_information"] = result.layout.as_dict()
        if shown is not None:
            doc["belief"] = _belief_json(shown)
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
        click.echo(
            f"  {p.play!s:<{width}}  {p.mean:+7.3f}  {ci or _interval(p):>17}  {p.n:>7}{pw}{mark}"
        )
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


def _num(x: float) -> float | None:
    """A number for JSON: None for NaN or an infinity (not valid JSON)."""
    return x if math.isfinite(x) else None


def _interval(p: PlayStats) -> str:
    """What a play's interval is: ``exact``, ``95%`` or ``not estimated``."""
    return "exact" if p.exact else "95%" if p.estimated else "not estimated"


def _belief_json(b: Belief) -> dict:
    """The belief of ``advise --belief --json``: per other seat holding cards, its most
    likely hands (top 10) and the posterior over the model's channels."""
    seats = {}
    for s in range(b.observations.rules.players):
        if s == b.seat or not b.hand_size(s):
            continue
        seats[str(s)] = {
            "cards": b.hand_size(s),
            "weighed": s in b.seats,
            "holdings": [{"hand": str(h), "p": p} for h, p in b.holdings(s, 10)],
            "plays_like": b.type_posterior(s),
        }
    return {"model": b.model.name if b.model else "uniform", "method": b.method,
            "plays_seen": b.observations.plays, "seats": seats}  # fmt: skip


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
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
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
    quiet: bool,
    as_json: bool,
) -> None:
    """Policies head to head on paired, seat-swapped deals, with CIs and an Elo ladder.

    Every pairing plays the same deals, each twice with the sides swapped. A progress
    bar is drawn on a terminal (--quiet or a pipe silences it).
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
        with _progress_bar(not quiet and _on_terminal(), deals * pairings) as progress:
            results = run_tournament(r, specs, deals, seed, test, progress, workers)
    except ScopaError as e:
        raise BadInput(str(e)) from None
    names = [str(p) for p in specs]
    board = ladder(names, results)
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
                    "margin": x.margin.mean,
                    "margin_ci": [x.margin.low, x.margin.high],
                    "wins": x.wins,
                    "draws": x.draws,
                    "losses": x.losses,
                    "score": x.score,
                    "elo": x.elo,
                    "elo_ci": [x.elo_low, x.elo_high],
                    "sprt_llr": x.sprt_llr,
                    "sprt_verdict": x.sprt_verdict,
                }
                for x in results
            ],
            "ladder": [{"policy": p, "elo": e} for p, e in board],
        }
        json.dump(doc, sys.stdout, indent=2)
        click.echo()
        return
    click.echo(f"rules {preset} ({r.digest()}), seed {seed}; each deal played twice, sides swapped")
    for x in results:
        click.echo(
            f"{x.a} vs {x.b}: {x.margin.mean:+.3f} points per hand, 95% CI "
            f"[{x.margin.low:+.3f}, {x.margin.high:+.3f}] over {x.deal_pairs} deal pairs; "
            f"W/D/L {x.wins}/{x.draws}/{x.losses}, Elo {x.elo:+.0f} "
            f"[{x.elo_low:+.0f}, {x.elo_high:+.0f}]"
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
