"""The round robin at equal time per move that chooses the documented best bot.

    python benchmarks/bench_roundrobin.py --deals 2000 --seed 2929 --workers 2 \\
        --log roundrobin.jsonl --json roundrobin.json --table roundrobin.md
    python benchmarks/bench_roundrobin.py --quick          # smoke test, a minute

Every setting plays every other on the same paired, seat-swapped deals of 2-player
``scopa`` (:func:`scopa_sim.sim.tournament.play_pairing`: deal ``d`` is hand 0 of match
``d`` of the seed, played twice with the sides exchanged; the results are the same for
any number of workers).  **Equal time per move**: the reference,
``ismcts:iterations=1000,horizon=4,c=1``, sets the time; each setting with a budget
(ISMCTS iterations, PIMC worlds) is calibrated to it first, as the ladder does
(``bench_ladder.equal_budget``: both bots timed back to back on the same positions,
CPU time of the thread, the budget scaled by the ratio and corrected three times).
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
so that the two play the same games wherever they decide alike.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import click
import numba

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_belief import bot_of, history_states  # noqa: E402
from bench_ladder import equal_budget, git_commit, load, median_paired_ms  # noqa: E402

from scopa_sim.bots.base import Bot  # noqa: E402
from scopa_sim.bots.registry import PolicySpec  # noqa: E402
from scopa_sim.game.rules import Rules  # noqa: E402
from scopa_sim.sim.tournament import (  # noqa: E402
    PairingResult,
    Standing,
    ladder,
    play_pairing,
    standings,
)
from scopa_sim.stats.estimate import Estimate  # noqa: E402
from scopa_sim.stats.inference import normal_ci_from_stats  # noqa: E402

#: The setting that sets the time per move.
REFERENCE = "ismcts:iterations=1000,horizon=4,c=1"


@dataclass(frozen=True)
class Entrant:
    """A setting of the round robin: its policy text and the parameter calibrated to the
    reference's time (None: played as it is), whose value in ``text`` is the budget the
    calibration starts from.  ``budget_of``: the label of the entrant whose calibrated
    budget it takes instead of its own (a setting that makes that one's computation at
    most decisions: both then play the same games wherever they decide alike, so their
    pairings differ only where they do; its time per move is still measured)."""

    label: str
    text: str
    budget_key: str | None = None
    budget_of: str | None = None

    @property
    def start(self) -> int:
        assert self.budget_key is not None
        return int(dict(PolicySpec.parse(self.text).params)[self.budget_key])

    def at(self, budget: int) -> str:
        """The setting at ``budget`` (the parameter keeps its place in the text)."""
        spec = PolicySpec.parse(self.text)
        params = tuple((k, str(budget) if k == self.budget_key else v) for k, v in spec.params)
        return str(PolicySpec(spec.name, params))


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
    # fixed before it played, from how often a type reaches it: bench_reply_min.py): at a
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


def calibrate(entrants: tuple[Entrant, ...], reference: str, positions: int, repeats: int,
              seed: int, known: dict[str, dict] | None = None) -> dict[str, dict]:  # fmt: skip
    """Each entrant's setting at the reference's time per move (by label); an entrant
    with ``budget_of`` takes that entrant's budget from this calibration or ``known``
    (an earlier one) and has its time measured only."""
    rules = Rules.make("scopa")
    opponents = ("greedy", "expert", reference)
    states = history_states(rules, positions, seed, opponents)
    ref = bot_of(reference)
    out: dict[str, dict] = {}
    for e in sorted(entrants, key=lambda e: e.budget_of is not None):
        if e.budget_key is None or e.budget_of is not None:
            budget = (
                None if e.budget_of is None else {**(known or {}), **out}[e.budget_of]["budget"]
            )
            setting = e.text if budget is None else e.at(budget)
            ms, ref_ms = median_paired_ms(bot_of(setting), ref, states, repeats)
            out[e.label] = {"setting": setting, "budget": budget, "ms_per_move": ms,
                            "reference_ms_per_move": ref_ms, "steps": []}  # fmt: skip
            if e.budget_of is not None:
                out[e.label]["budget_of"] = e.budget_of
                print(f"  {e.label:<40} {setting}  {ms:.3f} / {ref_ms:.3f} ms (the budget of "
                      f"{e.budget_of})", flush=True)  # fmt: skip
            continue

        def make(n: int, e: Entrant = e) -> Bot:
            return bot_of(e.at(n))

        budget, ms, ref_ms, steps = equal_budget(make, ref, states, e.start, repeats)
        out[e.label] = {
            "setting": e.at(budget),
            "budget": budget,
            "ms_per_move": ms,
            "reference_ms_per_move": ref_ms,
            "steps": steps,
        }
        print(f"  {e.label:<40} {out[e.label]['setting']}  {ms:.3f} / {ref_ms:.3f} ms",
              flush=True)  # fmt: skip
    return out


def result_json(r: PairingResult) -> dict:
    m = r.margin
    return {"a": r.a, "b": r.b, "deal_pairs": r.deal_pairs, "mean": m.estimate, "se": m.se,
            "n": m.n, "ci_low": m.low, "ci_high": m.high, "wins": r.wins, "draws": r.draws,
            "losses": r.losses, "score": r.score, "elo": r.elo, "elo_low": r.elo_low,
            "elo_high": r.elo_high}  # fmt: skip


def result_of(d: dict) -> PairingResult:
    return PairingResult(
        a=d["a"], b=d["b"], deal_pairs=d["deal_pairs"],
        margin=normal_ci_from_stats(d["mean"], d["se"], d["n"]),
        wins=d["wins"], draws=d["draws"], losses=d["losses"], score=d["score"], elo=d["elo"],
        elo_low=d["elo_low"], elo_high=d["elo_high"],
    )  # fmt: skip


def read_log(path: str | None, deals: int, seed: int) -> tuple[dict | None, dict]:
    """The calibration and the finished pairings of an earlier run with the same deals
    and seed (a log of other arguments is refused, not mixed in)."""
    if not path or not os.path.exists(path):
        return None, {}
    calib, done = None, {}
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            rec = json.loads(line)
            if rec["kind"] == "calibration":
                if (rec["deals"], rec["seed"]) != (deals, seed):
                    raise click.UsageError(
                        f"--log {path} is of a run with --deals {rec['deals']} --seed "
                        f"{rec['seed']}: give those, or another file"
                    )
                calib = rec["settings"]
            elif rec["kind"] == "pairing":
                done[(rec["a"], rec["b"])] = rec
    return calib, done


def _load1(load: dict | None) -> str:
    return f"{load['load_1']:.1f}" if load else "?"


def fmt(m: Estimate) -> str:
    return f"{m.estimate:+.3f} [{m.low:+.3f}, {m.high:+.3f}]"


def best_of(rank: list[Standing], focus: set[str]) -> Standing:
    """The best setting: the first of the standings, or with ``--focus`` the first of the
    focus entrants (``focus``: their policy texts; the others' standings are partial)."""
    return next((x for x in rank if x.policy in focus), rank[0])


def run_meta(deals: int, seed: int, workers: int, **setting: str) -> dict:
    """The facts of a run that go with its results: size, seed, ``setting`` (the
    reference or base), workers, start time, commit, load and machine."""
    return {"deals": deals, "seed": seed, **setting, "workers": workers,
            "date_utc": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "started": time.time(), "commit": git_commit(), "load_before": load(),
            "machine": platform.machine(), "cpus": os.cpu_count(),
            "numba": numba.__version__}  # fmt: skip


def finish_meta(meta: dict) -> None:
    """Close ``meta`` (:func:`run_meta`): the load at the end and the seconds taken."""
    meta.update(load_after=load(), seconds=round(time.time() - meta.pop("started"), 1))


def append_log(path: str | None, record: dict) -> None:
    """Append one record to the JSON-lines log (none: nothing)."""
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(record) + "\n")


def play_logged(
    rules: Rules,
    a: PolicySpec,
    b: PolicySpec,
    deals: int,
    seed: int,
    workers: int,
    done: dict,
    log_path: str | None,
    what: str,
) -> PairingResult:
    """The pairing of ``a`` against ``b``: read back from ``done`` (an earlier run's log),
    or played, printed as ``what`` and appended to the log."""
    key = (str(a), str(b))
    if key in done:
        return result_of(done[key])
    t0 = time.time()
    r = play_pairing(rules, a, b, deals, seed, workers=workers)
    print(f"  {what}: {fmt(r.margin)}  ({time.time() - t0:.0f} s)", flush=True)
    append_log(log_path, {"kind": "pairing", **result_json(r)})
    return r


def timing_check(rules: Rules, settings: dict[str, str], reference: str, positions: int,
                 seed: int, repeats: int) -> dict[str, dict]:  # fmt: skip
    """Each setting's CPU time per move (by key), measured after the games on fresh
    decisions (seed ``seed + 1``), paired with ``reference``: the time was equal."""
    check = history_states(rules, positions, seed + 1, ("greedy", "expert", reference))
    ref = bot_of(reference)
    out = {}
    for key, setting in settings.items():
        ms, ref_ms = median_paired_ms(bot_of(setting), ref, check, repeats)
        out[key] = {"ms_per_move": ms, "reference_ms_per_move": ref_ms}
    return out


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
            f"| {label_of[r.a]} vs {label_of[r.b]} | {fmt(r.margin)} | {r.elo:+.0f} "
            f"[{r.elo_low:+.0f}, {r.elo_high:+.0f}] | {r.wins}/{r.draws}/{r.losses} |"
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
def main(deals: int, seed: int, workers: int, positions: int, only: tuple[str, ...],
         focus: tuple[str, ...], log_path: str | None, json_path: str | None,
         table_path: str | None, quick: bool) -> None:  # fmt: skip
    """Play the round robin at equal time per move and write its tables."""
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
        fresh = calibrate(missing, reference, positions, repeats, seed, calib)
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
    best = best_of(rank, {str(specs[f]) for f in focus})
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
