"""The round robin at equal time per move that chooses the documented best bot.

Usage::

    python -m scopa_sim.experiments.roundrobin --deals 2000 --seed 2929 --workers 2 \\
        --log roundrobin.jsonl --json roundrobin.json --table roundrobin.md
    python -m scopa_sim.experiments.roundrobin --quick          # smoke test, a minute
    python -m scopa_sim.experiments.roundrobin --from-json roundrobin.json --table roundrobin.md

Every setting plays every other on the same paired, seat-swapped deals of 2-player
``scopa`` (:func:`scopa_sim.sim.tournament.play_pairing`: deal ``d`` is hand 0 of match
``d`` of the seed, played twice with the sides exchanged; the results are the same for
any number of workers).  **Equal time per move**: the reference,
``ismcts:iterations=1000,horizon=4,c=1``, sets the time; each setting with a budget
(ISMCTS iterations, PIMC worlds) is calibrated to it first, as the ladder does
(:func:`scopa_sim.experiments.common.equal_budget`: both bots timed back to back on the
same positions, CPU time of the thread, the budget scaled by the ratio and corrected three times).
The positions are decisions of the ISMCTS bot with their histories (so a belief's cost
counts) against greedy, expert and the reference itself in turn.  Settings without a
budget (``expert``) and the uniform search at a quarter of the reference's iterations
play as they are: they take less time, never more.

Output: each pairing's margin per hand with its 95% CI over deal pairs, Elo, the
least-squares Elo ladder, each setting's worst pairing and the settings it is
significantly worse against (:func:`scopa_sim.sim.tournament.standings`); the best
setting is the first of the standings (not significantly worse than any other, best
worst case).  After the games the CPU time per move of every setting is measured
again on fresh positions, paired with the reference, so the table shows that the
time was equal.  With ``--log`` each finished pairing is appended to a JSON-lines file
and a rerun with the same arguments plays only the pairings missing from it (the
calibrated settings are read back from it, so the games are those of the first run; an
entrant added since is calibrated alone and plays the others).  An entrant that makes
another's computation at most of its decisions takes that one's budget (``budget_of``),
so that the two play the same games wherever they decide alike.  ``--from-json``
writes the tables of a finished run again from its ``--json`` output, without playing.
Bad options and unreadable files are one-line errors (exit status 2 and 1).
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

import click

from scopa_sim.bots.registry import PolicySpec
from scopa_sim.errors import TournamentError
from scopa_sim.experiments.common import (
    REFERENCE,
    Entrant,
    append_log,
    calibrate_entrants,
    finish_meta,
    fmt,
    play_logged,
    read_json,
    read_log,
    result_json,
    result_of,
    run_meta,
    timing_check,
)
from scopa_sim.game.rules import Rules
from scopa_sim.sim.ranking import first_of
from scopa_sim.sim.tournament import PairingResult, Standing, ladder, standings

#: The entrants: the jitted expert, uniform ISMCTS at two budgets (the reference and a
#: quarter of it), PIMC, the belief bots before this round robin (``fit``, with and
#: without the opponent model in the tree) and the robust belief (issue 29) at two weights.
ENTRANTS: tuple[Entrant, ...] = (
    Entrant("expert", "expert"),
    Entrant("ismcts uniform, 250", "ismcts:iterations=250,horizon=4,c=1"),
    Entrant("ismcts uniform, 1000 (reference)", REFERENCE),
    Entrant("pimc", "pimc:worlds=12", "worlds"),
    Entrant("ismcts fit", "ismcts:iterations=700,horizon=4,c=1,belief=fit", "iterations"),
    Entrant(
        "ismcts fit, reply=tree",
        "ismcts:iterations=250,horizon=4,c=1,belief=fit,reply=tree",
        "iterations",
    ),
    Entrant("ismcts robust", "ismcts:iterations=700,horizon=4,c=1,belief=robust", "iterations"),
    Entrant(
        "ismcts robust, reply=tree",
        "ismcts:iterations=250,horizon=4,c=1,belief=robust,reply=tree",
        "iterations",
    ),
    Entrant(
        "ismcts robust uniform=1, reply=tree",
        "ismcts:iterations=250,horizon=4,c=1,belief=robust,uniform=1,reply=tree",
        "iterations",
    ),
    # added after the first nine had played each other (their games and budgets are read
    # back from the log): the opponent model tempered, half the replies by UCB1
    Entrant(
        "ismcts robust, reply=tree, uct_floor=0.5",
        "ismcts:iterations=400,horizon=4,c=1,belief=robust,reply=tree,uct_floor=0.5",
        "iterations",
    ),
    # added after the first ten: the opponent model for the weak types only (random,
    # greedy), every expert-like seat searched by UCB1, which costs nothing in the tree
    Entrant(
        "ismcts robust, reply=weak",
        "ismcts:iterations=591,horizon=4,c=1,belief=robust,reply=weak",
        "iterations",
    ),
    # added after the first eleven: reply=weak's model trusted only for a type the seat's
    # plays have made more likely than not (reply_min=0.5, fixed before it played)
    Entrant(
        "ismcts robust, reply=weak, reply_min=0.5",
        "ismcts:iterations=576,horizon=4,c=1,belief=robust,reply=weak,reply_min=0.5",
        "iterations",
    ),
    # added after the first twelve: reply_min=0.9 with an exact fallback (reply_gate=0.9,
    # fixed before it played, from how often a type reaches it: the reply_min experiment): at a
    # decision where no weak type is that likely it makes `ismcts robust`'s computation,
    # random numbers included, so it takes that entrant's budget and the two play the
    # same games except where the gate opens
    Entrant(
        "ismcts robust, reply=weak, reply_gate=0.9",
        "ismcts:iterations=591,horizon=4,c=1,belief=robust,reply=weak,reply_gate=0.9",
        "iterations",
        budget_of="ismcts robust",
    ),
)


def _load1(load: dict | None) -> str:
    return f"{load['load_1']:.1f}" if load else "?"


def table(calib: dict, results: list[PairingResult], rank: list[Standing], best: Standing,
          timing: dict, meta: dict) -> str:  # fmt: skip
    """The Markdown tables: settings in the order of ``rank`` (the standings), every
    pairing, and the ``best`` setting."""
    label_of = {c["setting"]: lab for lab, c in calib.items()}
    lines = [
        f"Round robin at equal time per move: 2-player `scopa`, {meta['deals']:,} paired "
        f"deals per pairing (seed {meta['seed']}), reference `{meta['reference']}`; "
        f"{meta['date_utc']}, commit `{meta['commit']}`, load averages (1 min) "
        f"{_load1(meta['load_before'])} at the start, {_load1(meta['load_after'])} at the end.",
        "",
        "| # | setting | policy | Elo | worst pairing: margin per hand [95% CI] | "
        "significantly worse against | CPU ms per move (calibration / check) |",
        "|---|---|---|---|---|---|---|",
    ]
    for i, s in enumerate(rank, 1):
        c = calib[label_of[s.policy]]
        t = timing.get(s.policy, {})
        worse = ", ".join(label_of[o] for o in s.worse_against) or "none"
        lines.append(
            f"| {i} | {label_of[s.policy]} | `{s.policy}` | {s.elo:+.0f} | "
            f"{fmt(s.worst_margin)} vs {label_of[s.worst_opponent]} | {worse} | "
            f"{c['ms_per_move']:.3f} / {t.get('ms_per_move', math.nan):.3f} |"
        )
    lines += [
        "",
        "| pairing (first one's side) | margin per hand [95% CI] | Elo [95% CI] | W/D/L |",
        "|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {label_of[r.a]} vs {label_of[r.b]} | {fmt(r.margin)} | {r.elo.estimate:+.0f} "
            f"[{r.elo.low:+.0f}, {r.elo.high:+.0f}] | {r.wins}/{r.draws}/{r.losses} |"
        )
    verdict = (
        "not significantly worse than any other"
        if best.unbeaten
        else ("significantly worse than " + ", ".join(label_of[o] for o in best.worse_against))
    )
    lines += [
        "",
        f"Best setting: `{best.policy}` ({label_of[best.policy]}): {verdict}; worst pairing "
        f"{fmt(best.worst_margin)} against {label_of[best.worst_opponent]}.",
    ]
    return "\n".join(lines) + "\n"


def table_of(doc: dict[str, Any]) -> str:
    """The tables of a finished run from its ``--json`` output: the standings computed
    again from its pairings (:func:`scopa_sim.sim.tournament.standings`).

    Raises:
        TournamentError: ``doc`` is not a round robin's ``--json`` output.
    """
    try:
        results = [result_of(r) for r in doc["pairings"]]
        calib = doc["calibration"]
        names = [c["setting"] for c in calib.values()]
        rank = standings(names, results)
        focus = {calib[f]["setting"] for f in doc.get("focus") or []}
        return table(calib, results, rank, first_of(rank, focus), doc["timing_check"], doc)
    except (KeyError, TypeError, ValueError):
        raise TournamentError("not a round robin's --json output") from None


@click.command()
@click.option("--deals", type=click.IntRange(2), default=2000, show_default=True,
              help="Deal pairs per pairing.")  # fmt: skip
@click.option("--seed", type=click.IntRange(0), default=2929, show_default=True)
@click.option("--workers", type=click.IntRange(1), default=1, show_default=True)
@click.option("--positions", type=click.IntRange(10), default=150, show_default=True,
              help="Decisions timed for the calibration.")  # fmt: skip
@click.option("--only", "only", multiple=True,
              help="Play only the entrants with these labels (repeatable).")  # fmt: skip
@click.option("--focus", "focus", multiple=True,
              help="Play only the pairings of these entrants (labels, repeatable): their "
                   "standings against every other; the others' are then partial.")  # fmt: skip
@click.option("--log", "log_path", type=click.Path(dir_okay=False),
              help="JSON-lines file of finished pairings; a rerun resumes from it.")  # fmt: skip
@click.option("--json", "json_path", type=click.Path(dir_okay=False))
@click.option("--table", "table_path", type=click.Path(dir_okay=False))
@click.option("--quick", is_flag=True, help="Smoke test: 4 entrants, 10 deal pairs.")
@click.option(
    "--from-json",
    "from_json",
    type=click.Path(dir_okay=False, exists=True),
    help="Write the tables of a finished run's --json output; play nothing.",
)
def main(deals: int, seed: int, workers: int, positions: int, only: tuple[str, ...],
         focus: tuple[str, ...], log_path: str | None, json_path: str | None,
         table_path: str | None, quick: bool, from_json: str | None) -> None:  # fmt: skip
    """Play the round robin at equal time per move and write its tables."""
    if from_json:
        text = table_of(read_json(from_json, TournamentError))
        print(text)
        if table_path:
            Path(table_path).write_text(text)
        return
    entrants = ENTRANTS
    reference = REFERENCE
    repeats = 3
    if quick:
        reference = "ismcts:iterations=100,horizon=4,c=1"
        entrants = (Entrant("expert", "expert"),
                    Entrant("ismcts uniform, 100 (reference)", reference),
                    Entrant("ismcts robust", "ismcts:iterations=40,horizon=4,c=1,belief=robust",
                            "iterations"),
                    Entrant("ismcts robust, reply=weak, reply_gate=0.9",
                            "ismcts:iterations=40,horizon=4,c=1,belief=robust,reply=weak,"
                            "reply_gate=0.9", "iterations",
                            budget_of="ismcts robust"))  # fmt: skip
        deals, positions, repeats = min(deals, 10), 10, 1
    labels = {e.label for e in ENTRANTS} | {e.label for e in entrants}
    for hint, given in (("--only", only), ("--focus", focus)):
        for o in given:
            if o not in labels:
                raise click.BadParameter(
                    f"{o!r} is not an entrant: {', '.join(sorted(labels))}", param_hint=hint
                )  # fmt: skip
    if only:
        entrants = tuple(e for e in entrants if e.label in only)
    if len(entrants) < 2:
        raise click.UsageError("a round robin needs at least two entrants")
    playing = {e.label for e in entrants}
    for e in entrants:
        if e.budget_of is not None and e.budget_of not in playing:
            raise click.UsageError(
                f"{e.label!r} takes the budget of {e.budget_of!r}: play that too"
            )
    rules = Rules.make("scopa")
    meta = run_meta(deals, seed, workers, reference=reference)
    calib, done = read_log(log_path, deals, seed)
    missing = tuple(e for e in entrants if e.label not in (calib or {}))
    if missing:
        print(f"calibrating to {reference} on {positions} positions ...", flush=True)
        fresh = calibrate_entrants(missing, reference, positions, repeats, seed, calib)
        calib = {**fresh, **(calib or {})}
        append_log(log_path, {"kind": "calibration", "deals": deals, "seed": seed,
                              "reference": reference, "settings": calib})  # fmt: skip
    assert calib is not None  # calibrated above, or read back from the log
    calib = {e.label: calib[e.label] for e in entrants}
    specs = {lab: PolicySpec.parse(c["setting"]) for lab, c in calib.items()}
    results = []
    for (la, a), (lb, b) in itertools.combinations(specs.items(), 2):
        if focus and la not in focus and lb not in focus:
            continue
        results.append(play_logged(rules, a, b, deals, seed, workers, done, log_path,
                                   f"{la} vs {lb}"))  # fmt: skip
    settings = {str(specs[lab]): c["setting"] for lab, c in calib.items()}
    timing = timing_check(rules, settings, reference, positions, seed, repeats)
    finish_meta(meta)
    names = [str(s) for s in specs.values()]
    rank = standings(names, results)
    best = first_of(rank, {str(specs[f]) for f in focus})
    doc = {
        **meta,
        "calibration": calib,
        "timing_check": timing,
        "pairings": [result_json(r) for r in results],
        "ladder": [{"policy": p, "elo": e} for p, e in ladder(names, results)],
        "standings": [s.to_dict() for s in rank],
        "best": best.policy,
        "focus": list(focus),
    }
    text = table(calib, results, rank, best, timing, meta)
    print(text)
    if json_path:
        Path(json_path).write_text(json.dumps(doc, indent=2) + "\n")
    if table_path:
        Path(table_path).write_text(text)


if __name__ == "__main__":
    main()
