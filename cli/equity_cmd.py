"""``equity``: write the match-equity table that ``objective=match`` bots play by."""

from __future__ import annotations

import click

from scopa_sim.analysis.conclusions import equity_conclusion
from scopa_sim.bots.objective import DEFAULT_HANDS, MODEL_POLICIES, build_table

from .options import BadInput, PathArg, make_rules, rules_options, seed_option
from .progress import Progress, progress_option, wanted

#: The most self-play hands of a table (about an hour at 30,000 hands a second).
MAX_HANDS = 10**8


@click.command()
@rules_options
@click.option(
    "--policy",
    default="expert",
    show_default=True,
    type=click.Choice(list(MODEL_POLICIES)),
    help="The policy whose self-play hands the table is solved from.",
)
@click.option(
    "--hands",
    type=click.IntRange(min=1, max=MAX_HANDS),
    default=DEFAULT_HANDS,
    show_default=True,
    help="Self-play hands behind the table.",
)
@seed_option
@click.option(
    "--out",
    required=True,
    type=PathArg(dir_okay=False, writable=True),
    help="The table file to write (JSON), for equity=PATH of a search policy.",
)
@progress_option
def equity_cmd(
    preset: str,
    rules: tuple[str, ...],
    policy: str,
    hands: int,
    seed: int,
    out: str,
    progress: bool | None,
) -> None:
    """Solve the match-equity table of the rules from self-play hands and write it.

    The table gives P(win the match) from every score below the target, by who deals
    next (an exact dynamic programme over the hand results). Search policies with
    objective=match,equity=OUT play by it; it only fits the rules it was built for.
    """
    r = make_rules(preset, rules)
    if r.sides != 2:
        raise BadInput(f"an equity table needs two sides (2 players, or 4 in teams), not {r.sides}")
    with Progress(wanted(progress), "equity", hands, "hands", rate="hands") as bar:
        table = build_table(r, policy, hands, seed, bar.advance if bar.show else None)
    table.save(out)
    first = 1.0 - table.before((0, 0), 0)  # side 1 plays first when side 0 deals
    click.echo(equity_conclusion(first, r.target, policy, hands))
    click.echo(
        f"wrote {out}: {r.target}-point match equity of {hands:,} {policy} hands "
        f"(rules {r.digest()}); the first mover wins {first:.4f} of matches from 0-0"
    )
