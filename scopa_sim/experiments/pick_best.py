"""The documented best bot, picked from the committed measurements by the rule of
:mod:`scopa_sim.sim.ranking`.

Usage::

    python -m scopa_sim.experiments.pick_best --json best.json --table best.md

Run from the repository's root: the defaults are the committed results in
``benchmarks/results/`` (the round robin; target 2's confirmations; target 3's belief
experiments).  Prints the Markdown table of the unbeaten settings in the rule's order
and the pick, which ``scopa_sim.bots.registry.ALIASES["best"]`` must be; ``--json``
writes the candidates, the pick and the range of equivalence margins with the same
pick.  A file that cannot be read or is not the kind of result its option takes is a
one-line error (exit status 1; a missing file or a margin out of range: 2).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import click

from scopa_sim.errors import RankingError, ScopaError
from scopa_sim.experiments.common import RESULTS, read_json
from scopa_sim.sim.ranking import EQUIVALENCE, Pick

#: The committed measurements the rule reads by default.
ROUNDROBIN = RESULTS / "roundrobin.json"
CONFIRM = (
    RESULTS / "roundrobin-confirm.json",
    RESULTS / "roundrobin-confirm-3131.json",
    RESULTS / "roundrobin-gate-3030.json",
)
BELIEF = (
    RESULTS / "belief-robust.json",
    RESULTS / "belief-replymin.json",
    RESULTS / "belief-replygate.json",
)


def _f(x: float | None) -> str:
    return "—" if x is None else f"{x:+.4f}"


def table(pick: Pick) -> str:
    """The Markdown table of a pick's candidates in the rule's order and the pick;
    opponents named by their round-robin labels."""
    labels, d, span = pick.labels, pick.equivalence, pick.same_pick
    lines = [
        f"Unbeaten settings of the round robin in the rule's order: the standings' first "
        f"and the settings level with it (their pairing's 95% CI within ±{d:g} points per "
        f"hand) by targets met, then the standings' order.",
        "",
        "| # | setting | worst pairing [95% CI] | level with | tied with the first | "
        "target 2: vs reference | target 3: vs greedy over uniform | targets met | Elo |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for i, c in enumerate(pick.candidates, 1):
        t2, t3 = c.target2, c.target3
        two = "—" if t2["margin"] is None else (
            f"{_f(t2['margin'])} [{_f(t2['ci'][0])}, {_f(t2['ci'][1])}], "
            f"{t2['deal_pairs']:,} pairs")  # fmt: skip
        three = "not measured" if t3.get("gain") is None else (
            f"{_f(t3['gain'])} [{_f(t3['ci'][0])}, {_f(t3['ci'][1])}]")  # fmt: skip
        worst = (f"{_f(c.worst.estimate)} [{_f(c.worst.low)}, {_f(c.worst.high)}] vs "
                 f"{labels.get(c.worst_opponent, c.worst_opponent)}")  # fmt: skip
        lev = ", ".join(labels.get(o, o) for o in c.level_with) or "—"
        lines.append(
            f"| {i} | `{c.policy}` | {worst} | {lev} | {'yes' if c.tied else 'no'} | {two} | "
            f"{three} | {c.targets_met} of 3 | {c.elo:+.1f} |"
        )
    hi = "∞" if math.isinf(span[1]) else f"{span[1]:.4f}"
    lines += ["", f"Best: `{pick.best}`; the same pick for every equivalence margin "
              f"in [{span[0]:.4f}, {hi})."]  # fmt: skip
    return "\n".join(lines) + "\n"


def pick_from_files(roundrobin: str, confirm: Sequence[str], belief: Sequence[str],
                    equivalence: float) -> Pick:  # fmt: skip
    """The rule applied to result files.

    Raises:
        RankingError: a file cannot be read, is not JSON, or is not the kind of result
            its argument takes; a confirmation file is given twice or is the round
            robin's; or the rule cannot pick (:func:`scopa_sim.sim.ranking.pick_best`).
    """
    from scopa_sim.sim.ranking import pick_best

    given = [Path(p).resolve() for p in confirm]
    if len(set(given)) < len(given) or Path(roundrobin).resolve() in given:
        raise RankingError("each --confirm file once, and not the round robin's")

    def named(path: str) -> tuple[str, dict]:
        return Path(path).name, read_json(path, RankingError)

    return pick_best(named(roundrobin), [named(p) for p in confirm],
                     [named(p) for p in belief], equivalence)  # fmt: skip


@click.command()
@click.option("--roundrobin", type=click.Path(dir_okay=False, exists=True),
              default=str(ROUNDROBIN), show_default=True)  # fmt: skip
@click.option("--confirm", multiple=True, type=click.Path(dir_okay=False, exists=True),
              default=[str(p) for p in CONFIRM], show_default=True,
              help="tournament --json files of candidates against the reference.")  # fmt: skip
@click.option("--belief", multiple=True, type=click.Path(dir_okay=False, exists=True),
              default=[str(p) for p in BELIEF], show_default=True,
              help="Belief experiments' --json files (the gain against greedy).")  # fmt: skip
@click.option(
    "--equivalence",
    type=click.FloatRange(0, 1),
    default=EQUIVALENCE,
    show_default=True,
    help="Points per hand within which a pairing's 95% CI shows two settings level.",
)
@click.option("--json", "json_path", type=click.Path(dir_okay=False))
@click.option("--table", "table_path", type=click.Path(dir_okay=False))
def main(roundrobin: str, confirm: tuple[str, ...], belief: tuple[str, ...], equivalence: float,
         json_path: str | None, table_path: str | None) -> None:  # fmt: skip
    """Apply the rule of the documented best bot to the committed measurements."""
    try:
        pick = pick_from_files(roundrobin, confirm, belief, equivalence)
    except ScopaError as e:  # a RankingError, or a setting that does not parse
        raise click.ClickException(str(e)) from None
    text = table(pick)
    print(text, end="")
    if table_path:
        Path(table_path).write_text(text)
    if json_path:
        span = pick.same_pick
        doc = {
            "roundrobin": Path(roundrobin).name,
            "confirm": [Path(p).name for p in confirm],
            "belief": [Path(p).name for p in belief],
            "equivalence": equivalence,
            "same_pick_for_equivalence": [span[0], None if math.isinf(span[1]) else span[1]],
            "candidates": [c.to_dict() for c in pick.candidates],
            "best": pick.best,
        }
        Path(json_path).write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
