"""The ``scopa-sim`` command line: one click group, thin commands over the library."""

from __future__ import annotations

import click

from cli.analyze_cmd import analyze_cmd, compare_cmd, report_cmd
from cli.options import BadInput, make_rules
from cli.play_cmd import play, replay
from cli.search_cmd import advise_cmd, tournament_cmd
from cli.simulate_cmd import simulate_cmd
from cli.study_cmd import advantage, study
from scopa_sim import __version__
from scopa_sim.errors import ScopaError
from scopa_sim.rules import OPTION_NAMES, PRESET_DESCRIPTIONS, PRESETS

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class ScopaGroup(click.Group):
    """A group whose library errors (bad cards, records, ...) become one-line messages."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except ScopaError as e:
            raise click.ClickException(str(e)) from None


@click.group(cls=ScopaGroup, context_settings=CONTEXT)
@click.version_option(__version__, "-V", "--version", prog_name="scopa-sim")
def cli() -> None:
    """Monte Carlo strategy analyzer for Scopa and its family."""


@cli.command()
@click.argument("name", required=False)
@click.option("--rule", "rules", multiple=True, metavar="KEY=VALUE", help="Override an option.")
def variants(name: str | None, rules: tuple[str, ...]) -> None:
    """List the rule presets, or print the effective options of preset NAME."""
    if name is None:
        if rules:
            raise BadInput("--rule needs a preset NAME to apply to")
        width = max(len(p) for p in PRESETS)
        for preset in PRESETS:
            click.echo(f"{preset:<{width}}  {PRESET_DESCRIPTIONS[preset]}")
        return
    r = make_rules(name, rules)
    click.echo(f"# {name}: {PRESET_DESCRIPTIONS[name]}")
    for key in OPTION_NAMES:
        value = getattr(r, key)
        text = str(value).lower() if isinstance(value, bool) else str(value)
        click.echo(f"{key} = {text}")


cli.add_command(play)
cli.add_command(replay)
cli.add_command(advantage)
cli.add_command(study)
cli.add_command(simulate_cmd, name="simulate")
cli.add_command(analyze_cmd, name="analyze")
cli.add_command(compare_cmd, name="compare")
cli.add_command(report_cmd, name="report")
cli.add_command(advise_cmd, name="advise")
cli.add_command(tournament_cmd, name="tournament")


def main() -> None:
    """Entry point of the ``scopa-sim`` command."""
    cli(prog_name="scopa-sim")


if __name__ == "__main__":
    main()
