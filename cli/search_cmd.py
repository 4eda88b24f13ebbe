"""``advise`` (rank the plays of a position) and ``tournament`` (policies head to head)."""

from __future__ import annotations

import json
import sys

import click

from scopa_sim.api import advise, tournament
from scopa_sim.api.choices import SHOWN_BELIEFS
from scopa_sim.errors import ScopaError

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


@click.command()
@rules_options
@click.option("--hand", help='Cards of the seat to play, e.g. "7D 3S KH".')
@click.option("--table", help='Cards on the table, e.g. "7C 5H 2S".')
@click.option("--mine", help="Cards captured by your side so far.")
@click.option("--theirs", help="Cards captured by the other side so far.")
@click.option("--seen", help="Other cards out of play (they score for nobody).")
@click.option("--scope", help="Scope so far: your side, the other side.  [default: 0,0]")
@click.option("--opponent-cards", type=int, help="Cards in each other hand (default: inferred).")
@click.option(
    "--totals",
    help="Match points before this hand: your side, the other side (objective=match).  "
    "[default: 0,0]",
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
    table: str | None,
    mine: str | None,
    theirs: str | None,
    seen: str | None,
    scope: str | None,
    opponent_cards: int | None,
    totals: str | None,
    position: str | None,
    policy: str,
    belief_model: str | None,
    seed: int,
    as_json: bool,
    progress: bool | None,
) -> None:
    """Rank every legal play of a position by expected point margin, with 95% CIs."""
    named = _given("preset") or bool(rules)
    with Progress(wanted(progress), "advise", text=f"ranking the plays with {policy}"):
        try:
            advice = advise(
                hand,
                table,
                preset=preset if _given("preset") else None,
                rules=make_rules(preset, rules) if named else None,
                mine=mine,
                theirs=theirs,
                seen=seen,
                scope=_counts(scope, "--scope", "1,0"),
                opponent_cards=opponent_cards,
                totals=_counts(totals, "--totals", "7,9"),
                position=position,
                policy=policy,
                belief=belief_model,
                seed=seed,
            )
        except ScopaError as e:
            raise BadInput(str(e)) from None
    if as_json:
        json.dump(advice.to_dict(), sys.stdout, indent=2)
        click.echo()
        return
    click.echo(advice.to_text(), nl=False)


def _counts(text: str | None, option: str, example: str) -> tuple[int, int] | None:
    """``--scope 1,0`` or ``--totals 7,9``: two counts, or None when not given."""
    if text is None:
        return None
    counts = [x.strip() for x in text.split(",")]
    if len(counts) != 2 or not all(x.isdecimal() for x in counts):
        raise BadInput(f"{option} {text!r}: expected two counts like {example}")
    return int(counts[0]), int(counts[1])


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
    e0e1 = None
    if sprt is not None:
        try:
            e0, e1 = (float(x) for x in sprt.split(","))
        except ValueError:
            raise BadInput(f"--sprt {sprt!r}: expected ELO0,ELO1 such as 0,10") from None
        e0e1 = (e0, e1)
    pairings = len(policies) * (len(policies) - 1) // 2
    try:
        bar = Progress(wanted(progress, quiet), "tournament", deals * pairings, "deal pairs")
        with bar:
            result = tournament(
                *policies,
                preset=preset,
                rules=make_rules(preset, rules),
                deals=deals,
                seed=seed,
                sprt=e0e1,
                alpha=alpha if _given("alpha") else None,
                beta=beta if _given("beta") else None,
                workers=workers,
                progress=bar.advance if bar.show else None,
            )
    except ScopaError as e:
        raise BadInput(str(e)) from None
    if as_json:
        json.dump(result.to_dict(), sys.stdout, indent=2)
        click.echo()
        return
    click.echo(result.to_text(), nl=False)
