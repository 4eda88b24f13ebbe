"""Is the documented best bot at the optimum of its own parameters?  One knob at a time.

Usage::

    python -m scopa_sim.experiments.tune --deals 3000 --seed 4242 --workers 2 \\
        --log tune-log.jsonl --json tune.json --table tune.md
    python -m scopa_sim.experiments.tune --quick          # smoke test, a minute
    python -m scopa_sim.experiments.tune --from-json tune.json --table tune.md

Issue 29's round robin picks ``--policy best`` among the settings it is given; this
benchmark asks whether a neighbour of ``best`` in its own parameters would beat it.
"``best``" here is :data:`TUNED`, ``best`` when this ran
(:data:`scopa_sim.bots.registry.ALIASES` since adds ``reply=weak,reply_gate=0.9``, which
makes ``TUNED``'s search wherever no opponent's plays make a weak type nine times likelier
than not: against strong play, all but a few decisions in a thousand).  Each
variant changes one parameter of ``best``: the
exploration constant ``c``, the rollout ``horizon``, the ``leaf`` value, the ``rollout``
policy, the exact end-game solve.  **Equal time per move**: a variant that changes the
cost of an iteration has its iterations calibrated to ``best``'s CPU time per move as the
round robin calibrates to its reference
(:func:`scopa_sim.experiments.common.calibrate_entrants`); a variant that does not
(``c``) keeps ``best``'s iterations, so both make the same computation and their games
differ only where their choices do; so does ``exact=1``, which only replaces the search by
the cheaper exact solve where the information set is one world (the last round of
2-player games).  Each variant then plays ``best`` on the same paired, seat-swapped deals
of 2-player ``scopa`` (:func:`scopa_sim.sim.tournament.play_pairing`; the same results
for any number of workers).

Output: each variant's margin per hand against ``best`` with its 95% CI over deal pairs,
W/D/L, and the two-sided z-test's p-value, Holm-adjusted over the variants (the family
is every variant played); its time per move is checked again after the games on fresh
decisions, paired with ``best``.  With ``--log`` each finished pairing is appended to a
JSON-lines file, and a rerun with the same arguments plays only the missing ones (the
calibration is read back, so the games are those of the first run); ``--from-json``
writes the table of a finished run again from its ``--json`` output, without playing.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from statistics import NormalDist
from typing import Any

import click

from scopa_sim.bots.registry import ALIASES, PolicySpec
from scopa_sim.errors import TournamentError
from scopa_sim.experiments.common import (
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
from scopa_sim.sim.tournament import PairingResult
from scopa_sim.stats.inference import holm

#: The label of the setting every variant plays, and that setting.
BASE = "best"
TUNED = "ismcts:iterations=591,horizon=4,c=1,belief=robust"


def variants(base: str) -> tuple[Entrant, ...]:
    """``base`` (an ISMCTS setting with ``iterations``) and its one-knob variants: a
    parameter replaced or added, the iterations calibrated where the knob changes the
    cost of an iteration, ``base``'s own where it does not (``budget_of``)."""
    spec = PolicySpec.parse(base)
    params = dict(spec.params)

    def with_(**kw: str) -> str:
        merged = {**params, **kw}
        return str(PolicySpec(spec.name, tuple(merged.items())))

    same_cost = [("c", v) for v in ("0.5", "0.7", "1.4", "2")] + [("exact", "1")]
    new_cost = [("horizon", v) for v in ("0", "1", "2", "3", "6", "8")]
    new_cost += [("leaf", "expert"), ("rollout", "greedy")]
    out = [Entrant(BASE, base, "iterations")]
    for k, v in same_cost:
        if params.get(k) != v:
            out.append(Entrant(f"{k}={v}", with_(**{k: v}), "iterations", budget_of=BASE))
    for k, v in new_cost:
        if params.get(k) != v:
            out.append(Entrant(f"{k}={v}", with_(**{k: v}), "iterations"))
    return tuple(out)


def learned_variants(base: str) -> tuple[Entrant, ...]:
    """``base`` and its variants that use the learned policy's model (issue 41): the root
    prior at three weights (``prior=learned,prior_visits=3|10|30``), the leaf
    (``leaf=learned``) and the rollouts (``rollout=learned``), each calibrated to
    ``base``'s time (every one costs more per decision or per iteration)."""
    spec = PolicySpec.parse(base)
    params = dict(spec.params)

    def with_(**kw: str) -> str:
        return str(PolicySpec(spec.name, tuple({**params, **kw}.items())))

    out = [Entrant(BASE, base, "iterations")]
    for v in ("3", "10", "30"):
        out.append(
            Entrant(f"prior_visits={v}", with_(prior="learned", prior_visits=v), "iterations")
        )
    out.append(Entrant("leaf=learned", with_(leaf="learned"), "iterations"))
    out.append(Entrant("rollout=learned", with_(rollout="learned"), "iterations"))
    return tuple(out)


#: ``--knobs``: the variants each set of knobs plays against the base.
KNOBS = {"one": variants, "learned": learned_variants}


def p_value(r: PairingResult) -> float:
    """Two-sided z-test of a zero mean margin (NaN without an interval)."""
    m = r.margin
    if not m.estimated:
        return math.nan
    if m.se == 0:  # every deal pair the same margin
        return 1.0 if m.estimate == 0 else 0.0
    return 2.0 * (1.0 - NormalDist().cdf(abs(m.estimate) / m.se))


def table(calib: dict, results: dict[str, PairingResult], adj: dict[str, float], timing: dict,
          meta: dict) -> str:  # fmt: skip
    """The Markdown table: one row per variant, its margin against the base and its
    Holm-adjusted p-value (``adj``)."""
    labels = [lab for lab in calib if lab != BASE]
    alias = f" (`--policy {BASE}`)" if calib[BASE]["setting"] == ALIASES[BASE] else ""
    head = (
        f"One-knob variants of `{calib[BASE]['setting']}`{alias} against it at "
        f"equal time per move: 2-player `scopa`, {meta['deals']:,} paired deals per variant "
        f"(seed {meta['seed']}); {meta['date_utc']}, commit `{meta['commit']}`.\n\n"
        "| variant | setting | margin per hand against best [95% CI] | W/D/L | p (Holm) "
        "| CPU ms per move, variant / best (calibration; check) |\n|---|---|---|---|---|---|\n"
    )
    rows = []
    for lab in labels:
        r, c, t = results[lab], calib[lab], timing[lab]
        q = adj[lab]
        verdict = "" if not q < 0.05 else (" **better**" if r.margin.estimate > 0 else " **worse**")
        how = "best's iterations" if c.get("budget_of") else "calibrated"
        rows.append(
            f"| {lab} | `{c['setting']}` ({how}) | {fmt(r.margin)} | {r.wins}/{r.draws}/"
            f"{r.losses} | {q:.3g}{verdict} | {c['ms_per_move']:.3f} / "
            f"{c['reference_ms_per_move']:.3f}; {t['ms_per_move']:.3f} / "
            f"{t['reference_ms_per_move']:.3f} |"
        )
    better = [lab for lab in labels if adj[lab] < 0.05 and results[lab].margin.estimate > 0]
    tail = (
        "\n\n"
        + (
            f"Significantly better than best (Holm, 5%): {', '.join(better)}."
            if better
            else "No variant is significantly better than best (Holm, 5%)."
        )
        + "\n"
    )
    return head + "\n".join(rows) + tail


def table_of(doc: dict[str, Any]) -> str:
    """The table of a finished run from its ``--json`` output.

    Raises:
        TournamentError: ``doc`` is not this experiment's ``--json`` output.
    """
    try:
        variants = {v["label"]: v for v in doc["variants"]}
        results = {lab: result_of(v) for lab, v in variants.items()}
        adj = {lab: v["p_holm"] for lab, v in variants.items()}
        return table(doc["calibration"], results, adj, doc["timing_check"], doc)
    except (KeyError, TypeError, ValueError):
        raise TournamentError("not a tune --json output") from None


@click.command()
@click.option("--deals", type=click.IntRange(2), default=3000, show_default=True,
              help="Deal pairs per variant.")  # fmt: skip
@click.option("--seed", type=click.IntRange(0), default=4242, show_default=True)
@click.option("--workers", type=click.IntRange(1), default=1, show_default=True)
@click.option("--positions", type=click.IntRange(10), default=150, show_default=True,
              help="Decisions timed for the calibration.")  # fmt: skip
@click.option("--log", "log_path", type=click.Path(dir_okay=False),
              help="JSON-lines file of finished pairings; a rerun resumes from it.")  # fmt: skip
@click.option("--json", "json_path", type=click.Path(dir_okay=False))
@click.option("--table", "table_path", type=click.Path(dir_okay=False))
@click.option(
    "--base",
    default=TUNED,
    show_default=True,
    help="The setting the variants play (an ISMCTS setting with iterations=).",
)
@click.option(
    "--knobs",
    type=click.Choice(sorted(KNOBS)),
    default="one",
    show_default=True,
    help="one: best's one-knob variants; learned: its uses of the learned model.",
)
@click.option("--quick", is_flag=True, help="Smoke test: 40 iterations, 3 variants, 10 deals.")
@click.option(
    "--from-json",
    "from_json",
    type=click.Path(dir_okay=False, exists=True),
    help="Write the table of a finished run's --json output; play nothing.",
)
def main(deals: int, seed: int, workers: int, positions: int, log_path: str | None,
         json_path: str | None, table_path: str | None, base: str, knobs: str, quick: bool,
         from_json: str | None) -> None:  # fmt: skip
    """Play best's one-knob variants against it at equal time and write the table."""
    if from_json:
        text = table_of(read_json(from_json, TournamentError))
        print(text)
        if table_path:
            Path(table_path).write_text(text)
        return
    base = str(PolicySpec.parse(base))
    if "iterations" not in dict(PolicySpec.parse(base).params):
        raise click.BadParameter("an ISMCTS setting with iterations=", param_hint="--base")
    repeats = 3
    entrants = KNOBS[knobs](base)
    if quick:
        base = str(Entrant(BASE, base, "iterations").at(40))
        keep = {BASE, "c=0.5", "horizon=2", "exact=1", "prior_visits=10", "leaf=learned"}
        entrants = tuple(e for e in KNOBS[knobs](base) if e.label in keep)
        deals, positions, repeats = min(deals, 10), 10, 1
    rules = Rules.make("scopa")
    meta = run_meta(deals, seed, workers, base=base)
    calib, done = read_log(log_path, deals, seed)
    if calib is not None and calib.get(BASE, {}).get("setting") != base:
        raise click.UsageError(f"--log {log_path} is of another base setting: give another file")
    missing = tuple(e for e in entrants if e.label not in (calib or {}))
    if missing:
        # the base is its own reference: its budget stays as it is
        known = {BASE: {"setting": base, "budget": Entrant(BASE, base, "iterations").start}}
        todo = tuple(e for e in missing if e.label != BASE)
        print(f"calibrating to {base} on {positions} positions ...", flush=True)
        fresh = calibrate_entrants(todo, base, positions, repeats, seed, known) if todo else {}
        if any(e.label == BASE for e in missing):
            fresh[BASE] = {"setting": base, "budget": known[BASE]["budget"], "steps": []}
        calib = {**fresh, **(calib or {})}
        append_log(log_path, {"kind": "calibration", "deals": deals, "seed": seed,
                              "base": base, "settings": calib})  # fmt: skip
    assert calib is not None  # calibrated above, or read back from the log
    calib = {e.label: calib[e.label] for e in entrants}
    base_spec = PolicySpec.parse(base)
    results = {
        lab: play_logged(rules, PolicySpec.parse(c["setting"]), base_spec, deals, seed,
                         workers, done, log_path, f"{lab} vs {BASE}")
        for lab, c in calib.items()
        if lab != BASE
    }  # fmt: skip
    settings = {lab: c["setting"] for lab, c in calib.items() if lab != BASE}
    timing = timing_check(rules, settings, base, positions, seed, repeats)
    finish_meta(meta)
    labels = [lab for lab in calib if lab != BASE]
    adj = dict(zip(labels, holm([p_value(results[lab]) for lab in labels]), strict=True))
    doc = {
        **meta,
        "calibration": calib,
        "timing_check": timing,
        "variants": [
            {
                "label": lab,
                "setting": calib[lab]["setting"],
                "p_value": p_value(results[lab]),
                "p_holm": adj[lab],
                **result_json(results[lab]),
            }
            for lab in labels
        ],
    }
    text = table(calib, results, adj, timing, meta)
    print(text)
    if json_path:
        Path(json_path).write_text(json.dumps(doc, indent=2) + "\n")
    if table_path:
        Path(table_path).write_text(text)


if __name__ == "__main__":
    main()
