"""``review``: grade every decision of recorded hands in points lost, luck and skill apart."""

from __future__ import annotations

import json
import sys

import click

from scopa_sim.api import review
from scopa_sim.api.choices import SHOWN_BELIEFS
from scopa_sim.errors import ScopaError

from .options import WORKERS, BadInput, PathArg, seed_option
from .progress import Progress, progress_option, wanted


@click.command()
@click.argument("targets", nargs=-1, required=True, metavar="FILE.jsonl [LINE|A-B ...] ...")
@click.option(
    "--seat",
    "seats",
    type=int,
    multiple=True,
    help="Grade only this seat's decisions (repeatable; default: every seat).",
)
@click.option(
    "--policy",
    "evaluator",
    default="eval",
    show_default=True,
    metavar="EVALUATOR",
    help="The evaluator: eval[:worlds=256,rollout=greedy,exact=1] (as advise --policy eval).",
)
@seed_option
@click.option(
    "--details",
    is_flag=True,
    help="Every decision of every hand and each deal's luck (default: the summary, then "
    "each hand's result and its labelled decisions).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the review as JSON.")
@click.option(
    "--html",
    "html_path",
    type=PathArg(dir_okay=False, writable=True),
    help="Also write a self-contained HTML report to this file.",
)
@click.option(
    "--workers",
    type=WORKERS,
    default=None,
    help="Hands reviewed at once, in threads (default: all cores; the results do not "
    "depend on it).",
)
@click.option(
    "--allow-unfinished", is_flag=True, help="Accept a file whose last match has no winner yet."
)
@click.option(
    "--belief",
    "belief_model",
    type=click.Choice(list(SHOWN_BELIEFS)),
    default=None,
    help="Also show, at each decision, the deciding seat's belief about the other hands "
    "(most likely holdings) under this play model.",
)
@progress_option
@click.option("-q", "--quiet", is_flag=True, help="No progress (as --no-progress).")
def review_cmd(
    targets: tuple[str, ...],
    seats: tuple[int, ...],
    evaluator: str,
    seed: int,
    details: bool,
    as_json: bool,
    html_path: str | None,
    workers: int | None,
    allow_unfinished: bool,
    belief_model: str | None,
    progress: bool | None,
    quiet: bool,
) -> None:
    """Grade every decision of recorded hands: points lost against the evaluator's best
    play (95% CI over common worlds), labels, luck per deal and a summary per seat and
    side. The text leads with the summary, then each hand's result and its labelled
    decisions; --details lists every decision.

    Each FILE is a scopa-record/1 file (as written by play --record), checked as replay
    does; the line numbers (N or A-B) after a file pick its hands (default: all).
    """
    bar = Progress(wanted(progress, quiet), "review", None, "hands")

    def on_hands(n: int) -> None:
        bar.restart(n, "hands", "grading")

    try:
        with bar:
            result = review(
                *targets,
                policy=evaluator,
                seed=seed,
                seats=seats or None,
                workers=workers,
                allow_unfinished=allow_unfinished,
                belief=belief_model,
                progress=bar.advance if bar.show else None,
                on_hands=on_hands if bar.show else None,
            )
    except ScopaError as e:
        raise BadInput(str(e)) from None
    if html_path:
        try:
            with open(html_path, "w", encoding="utf-8") as f:
                f.write(result.to_html())
        except OSError as e:
            raise BadInput(f"cannot write {html_path}: {e.strerror}") from None
    if as_json:
        json.dump(result.to_dict(), sys.stdout, indent=2)
        click.echo()
    else:
        click.echo(result.to_text(details), nl=False)
    if html_path:
        click.echo(f"html report: {html_path}", err=True)
