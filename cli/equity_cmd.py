"""``equity``: write the match-equity table that ``objective=match`` bots play by."""

from __future__ import annotations

import click

import scopa_sim
from scopa_sim.api.choices import EQUITY_POLICIES, MAX_EQUITY_HANDS

from .options import PathArg, make_rules, rules_options, seed_option, usage_errors
from .progress import Progress, progress_option, wanted


@click.command()
@rules_options
@click.option(
    "--policy",
    default="expert",
    show_default=True,
    type=click.Choice(list(EQUITY_POLICIES)),
    help="The policy whose self-play hands the table is solved from.",
)
@click.option(
    "--hands",
    type=click.IntRange(min=1, max=MAX_EQUITY_HANDS),
    default=100_000,
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
    bar = Progress(wanted(progress), "equity", hands, "hands", rate="hands")
    with bar, usage_errors():
        made = scopa_sim.equity(
            preset,
            rules=r,
            policy=policy,
            hands=hands,
            seed=seed,
            out=out,
            progress=bar.advance if bar.show else None,
        )
    click.echo(made.text())
