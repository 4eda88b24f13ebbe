"""Beliefs over the hidden cards: the play model's fit, the beliefs' quality, and
belief-weighted search against the same search with uniform worlds at equal time.

Usage::

    python -m scopa_sim.experiments.belief [--parts fit,quality,strength,reply,oracle,budget]
        [--fit-hands N] [--quality-deals N] [--deals N] [--workers N] [--seed S]
        [--json FILE] [--quick]

All in 2-player ``scopa``; numbers are measured, never asserted.

1. **Fit** (``--fit-hands``). Hands of self-play of the documented best bot,
   ``ismcts:iterations=1000,horizon=4,c=1`` (and, for reference, of ``expert`` and of
   ``greedy``); for every decision with more than one legal play, the log-likelihood of
   the play made, the hand being known, under the softened expert (softmax of its play
   values at temperature ``tau`` points, floor ``eps`` uniform) on a grid of (tau, eps);
   the maximum-likelihood point of the ISMCTS data is ``belief=expert``'s
   (:data:`scopa_sim.bots.belief.EXPERT_TAU`, ``EXPERT_EPS``).  Seed: ``--seed + 1``.
2. **Quality** (``--quality-deals``). Deals (deck seed ``derive_seed(seed, 8, d, 0)``,
   dealer ``d % 2``) played by the ISMCTS bot above (uniform worlds) against each
   opponent of the ladder, each deal twice with the seats exchanged; at each of its
   decisions where the belief has evidence (the opponent has played this round and
   still holds cards) the bits gained, ``log2 P_belief(true hand) - log2
   P_uniform(true hand)``, for ``belief=expert`` and ``belief=fit``; by deal round
   and overall, and per hand (the sum over the hand's decisions, decisions without
   evidence counting 0); 95% CIs over hands (a hand's decisions averaged first).  Also
   the ``fit`` posterior over its channels at the last decision with evidence.
3. **Strength at equal time** (``--deals``). For each base search (``ismcts:iterations=
   1000,horizon=4,c=1`` and ``pimc``) and belief (``expert``, ``fit``), the belief
   version's budget (ISMCTS iterations, PIMC worlds) is calibrated until its CPU time
   per move matches the base's on 100 positions with their histories (so the belief's
   cost counts), timed back to back (:func:`scopa_sim.experiments.common.equal_budget`: medians of
   three passes on the thread's CPU clock).  Then each setting (the base too) plays the same
   paired, seat-swapped deals against each ladder opponent; the result is the
   per-deal difference of margins, belief minus uniform, with its 95% CI over deals.
   The CPU times per move in those games are reported next to the calibration.

   **Reply** (``--parts reply``): the same for ISMCTS with the opponent model in the
   search too (``belief=B,reply=R`` for each ``B`` of ``--reply-models`` and ``R`` of
   ``--replies``; ``tree``: the other seat's plays in the tree follow the belief's play
   model, ``model``: in the rollouts too, see :class:`scopa_sim.bots.search.ISMCTSBot`),
   against the same search with uniform worlds.  Calibrated the same way, but per
   opponent, on 100 positions against that opponent: the model's cost depends on how
   the opponent is taken to play (a greedy or random reply is cheap, an expert one
   is not).

4. **Oracle** (``--parts oracle``, a cheat for reference): each base search drawing its
   worlds with the other hand as it truly is (only the stock's order unknown), against
   the same search with uniform worlds, on the same deals (``--deals``): what a perfect
   belief would be worth.

5. **Budget** (``--parts budget``): each belief at the base's own budget (1,000
   iterations, 12 worlds) against the base, on the same deals: what the belief is worth
   before its cost is paid for.

Deals run in chunks of :data:`CHUNK` on ``--workers`` processes, with fresh bots per
chunk; budgets are iteration / world counts, so results (not times) are the same for
any worker count.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click
import numpy as np

from scopa_sim.bots.base import Bot
from scopa_sim.bots.belief import (
    EXPERT_EPS,
    EXPERT_TAU,
    MODELS,
    Channel,
    belief,
    play_log_likelihoods,
)
from scopa_sim.bots.search import deal_seed, move_seed
from scopa_sim.experiments.common import (
    ORACLE,
    REFERENCE,
    Task,
    bot_of,
    chunks,
    command_line,
    equal_budget,
    fmt,
    git_commit,
    history_states,
    load,
    machine,
    play_chunk,
    run_tasks,
    warm_bots,
    with_param,
)
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import HandState
from scopa_sim.sim import pool as P
from scopa_sim.stats.inference import normal_ci

#: The documented best bot and PIMC: the bases of the strength part.
BASES = {"ismcts": REFERENCE, "pimc": "pimc"}
#: The ladder's opponents.
OPPONENTS = ("random", "greedy", "expert", "pimc", "ismcts:iterations=1000,horizon=4,c=1")
#: The belief models measured (uniform is the reference).
BELIEF_MODELS = ("expert", "fit", "robust")
#: The fit's grid.
TAUS = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.75, 1.0, 1.5, 2.0)
EPSS = (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3)


# --------------------------------------------------------------------------- 1. fit
def fit_records(rules: Rules, player: str, hands: int, seed: int) -> list[tuple]:
    """(state, card, take) of every decision with more than one legal play in
    ``hands`` hands of ``player`` self-play (the mover's hand is the true one)."""
    bot = bot_of(player)
    out = []
    for h in range(hands):
        ds = deal_seed(seed, h)
        s = HandState.deal(rules, dealer=h % 2, seed=ds)
        while not s.is_over:
            play = bot.choose(s, move_seed(ds, s.plays_made, s.turn))
            if len(s.legal_plays) > 1:
                out.append((s.clone(), play.card, play.take))
            s.push(play)
    return out


def fit_grid(rules: Rules, records: list[tuple]) -> dict:
    """Mean log-likelihood per decision of the softened expert on the (tau, eps) grid."""
    grid = [(t, e) for t in TAUS for e in EPSS if t > 0 or e > 0]
    channels = [Channel("expert", t, e) for t, e in grid]
    total = np.zeros(len(grid))
    n_legal = 0
    for state, card, take in records:
        ll, n = play_log_likelihoods(state, card, take, channels)
        n_legal += n
        total += ll
    mean = total / max(1, len(records))
    best = int(np.argmax(mean))
    # the uniform model's log-likelihood, for scale: -log(n) per decision
    u_total = 0.0
    for state, card, take in records:
        u_total += play_log_likelihoods(state, card, take, [Channel("random")])[0][0]
    uniform = u_total / max(1, len(records))
    return {
        "decisions": len(records),
        "mean_legal_plays": n_legal / max(1, len(records)),
        "best": {"tau": grid[best][0], "eps": grid[best][1], "mean_loglik": float(mean[best])},
        "uniform_mean_loglik": uniform,
        "grid": [
            {"tau": t, "eps": e, "mean_loglik": float(m)}
            for (t, e), m in zip(grid, mean, strict=True)
        ],
    }


def run_fit(rules: Rules, hands: int, seed: int) -> dict:
    out = {}
    for player in ("ismcts:iterations=1000,horizon=4,c=1", "expert", "greedy"):
        t = time.perf_counter()
        recs = fit_records(rules, player, hands if player.startswith("ismcts") else hands // 2,
                           seed)  # fmt: skip
        res = fit_grid(rules, recs)
        res["hands"] = hands if player.startswith("ismcts") else hands // 2
        res["seconds"] = time.perf_counter() - t
        out[player] = res
        b = res["best"]
        print(f"  {player:<40} {res['decisions']:>7,} decisions: best tau={b['tau']:g} "
              f"eps={b['eps']:g}, {b['mean_loglik']:+.4f} nats per decision (uniform "
              f"{res['uniform_mean_loglik']:+.4f})")  # fmt: skip
    out["used"] = {"tau": EXPERT_TAU, "eps": EXPERT_EPS}
    return out


# --------------------------------------------------------------------------- 2. quality


def deal_round(state: HandState) -> int:
    """The deal round now (1 = the first deal of the hand), from the stock position."""
    r = state.rules
    dealt = state.plays_made + sum(len(h) for h in state.hands)  # to the hands so far
    return max(1, math.ceil(dealt / (r.players * r.hand_size)))


def quality_task(task: Task, seed: int) -> dict:
    """Bits gained at every decision of the observer, per model, per deal and seat."""
    rules = Rules.make("scopa")
    me, opp = bot_of(task.a), bot_of(task.b)
    rows: list[tuple] = []
    for d in range(task.start, task.stop):
        ds = deal_seed(seed, d)
        for seat in (0, 1):
            s = HandState.deal(rules, dealer=d % 2, seed=ds)
            last_post = None
            while not s.is_over:
                if s.turn == seat:
                    for name in BELIEF_MODELS:
                        b = belief(s, name, seed=ds)
                        if b.seats:
                            rows.append((d, seat, name, deal_round(s), len(s.hand(1 - seat)),
                                         b.log2_gain(s)))  # fmt: skip
                            if name == "fit":
                                last_post = b.type_posterior(1 - seat)
                    play = me.choose(s, move_seed(ds, s.plays_made, s.turn))
                else:
                    play = opp.choose(s, move_seed(ds, s.plays_made, s.turn))
                s.push(play)
            rows.append((d, seat, "post", 0, 0, last_post))
    return {"task": task, "rows": rows}


def summarise_quality(rows: list[tuple], opponent: str, hands: int) -> dict:
    """Mean bits per decision by round and overall, per hand, with 95% CIs over hands."""
    out: dict = {"opponent": opponent, "hands": hands, "models": {}}
    for name in BELIEF_MODELS:
        mine = [r for r in rows if r[2] == name]
        per: dict = {}
        for stage in ["all", *range(1, 7)]:
            by_hand: dict[tuple[int, int], list[float]] = {}
            for d, seat, _, rnd, _, g in mine:
                if stage == "all" or rnd == stage:
                    by_hand.setdefault((d, seat), []).append(g)
            x = np.array([np.mean(v) for v in by_hand.values()])
            n_dec = sum(len(v) for v in by_hand.values())
            if x.size > 1:
                e = normal_ci(x)
                per[str(stage)] = {"bits_per_decision": e.estimate, "ci_low": e.low,
                                   "ci_high": e.high, "hands": int(x.size),
                                   "decisions": n_dec}  # fmt: skip
        sums: dict[tuple[int, int], float] = {}
        for d, seat, _, _, _, g in mine:
            sums[(d, seat)] = sums.get((d, seat), 0.0) + g
        ph = np.array([sums.get(k, 0.0) for k in {(r[0], r[1]) for r in rows}])
        e = normal_ci(ph)
        out["models"][name] = {"by_round": per, "bits_per_hand": e.estimate,
                               "bits_per_hand_ci": [e.low, e.high]}  # fmt: skip
    posts = [r[5] for r in rows if r[2] == "post" and r[5]]
    if posts:
        out["fit_posterior_at_last_evidence"] = {
            k: float(np.mean([p[k] for p in posts])) for k in posts[0]
        }
    return out


# --------------------------------------------------------------------------- 3. strength


def margins_of(results: list[dict], setting: str, opp: str) -> tuple[np.ndarray, float]:
    """Per deal the mean margin of ``setting`` against ``opp`` over its two seats, and its
    CPU ms per move, from the match chunks."""
    parts = sorted((res for res in results if res["task"].key == "match"
                    and res["task"].a == setting and res["task"].b == opp),
                   key=lambda res: res["task"].start)  # fmt: skip
    m0 = np.array([m for p in parts for m in p["m0"]], dtype=float)
    m1 = np.array([m for p in parts for m in p["m1"]], dtype=float)
    ms = 1000 * sum(p["a_cpu"] for p in parts) / max(1, sum(p["a_moves"] for p in parts))
    return (m0 + m1) / 2, ms


def compare(
    results: list[dict], base: str, opp: str, beliefs: list[str], labels: Sequence[str] = ()
) -> dict:
    """One row of parts strength, reply and budget: ``base`` (uniform worlds) against
    ``opp``, and each belief setting (labelled by ``labels``, default
    :data:`BELIEF_MODELS`) with its margin minus the base's, paired by deal; printed as
    it goes."""
    ref, ref_ms = margins_of(results, base, opp)
    e = normal_ci(ref)
    row: dict[str, Any] = {
        "base": base, "opponent": opp, "deals": int(ref.size), "base_margin": e.estimate,
        "base_ci": [e.low, e.high], "base_ms_per_move": ref_ms, "beliefs": {}}  # fmt: skip
    print(f"  {base} vs {opp}: uniform {fmt(e)} ({ref_ms:.3f} ms/move)")
    for model, st in zip(labels or BELIEF_MODELS, beliefs, strict=True):
        x, ms = margins_of(results, st, opp)
        e, dlt = normal_ci(x), normal_ci(x - ref)
        row["beliefs"][model] = {"setting": st, "margin": e.estimate, "ci": [e.low, e.high],
                                 "minus_uniform": dlt.estimate,
                                 "minus_uniform_ci": [dlt.low, dlt.high],
                                 "ms_per_move": ms}  # fmt: skip
        print(f"      {model:<18} {fmt(e)}, minus uniform {fmt(dlt)} ({st}, "
              f"{ms:.3f} ms/move)")  # fmt: skip
    return row


def run_task(task: Task, seed: int) -> dict:
    """A task of part quality (:func:`quality_task`) or a match's chunk."""
    return quality_task(task, seed) if task.key == "quality" else play_chunk(task, seed)


def init_worker() -> None:
    """Load every compiled kernel before the first timed move."""
    warm_bots(("expert", "greedy", "pimc:belief=fit", "ismcts:iterations=20,belief=fit",
               "ismcts:iterations=20,horizon=4,c=1,belief=expert", "pimc:worlds=2",
               "ismcts:iterations=20,horizon=4,c=1,belief=fit,reply=model"))  # fmt: skip
    s = HandState.deal(Rules.make("scopa"), seed=1)
    for _ in range(3):
        s.push(s.legal_plays[0])
    belief(s, "fit")


def calibrate(
    base: str, model: str, states: list[HandState], repeats: int, reply: str = "uct"
) -> dict:
    """The belief version's budget (with ``reply=model``: the opponent model in the tree
    too) at which it costs the base's CPU time per move."""
    key = "iterations" if base.startswith("ismcts") else "worlds"
    start = 1000 if key == "iterations" else 12

    def setting(n: int) -> str:
        text = with_param(with_param(base, key, n), "belief", model)
        # a reply with options (``weak+reply_min=0.5``): the options follow it
        return text if reply == "uct" else with_param(text, "reply", reply.replace("+", ","))

    def make(n: int) -> Bot:
        return bot_of(setting(n))

    budget, ms, ref_ms, steps = equal_budget(make, bot_of(base), states, start, repeats)
    return {"base": base, "belief": model, "reply": reply, "setting": setting(budget),
            "budget_key": key, "budget": budget, "ms_per_move": ms,
            "base_ms_per_move": ref_ms, "positions": len(states), "steps": steps}  # fmt: skip


def _ckey(base: str, model: str, reply: str, opp: str | None = None) -> str:
    """The calibration's key of a setting (as the results JSON names it)."""
    return (
        f"{base}|{model}"
        + ("" if reply == "uct" else f"|reply={reply}")
        + ("" if opp is None else f"|vs={opp}")
    )


@click.command()
@click.option("--parts", default="fit,quality,strength", show_default=True)
@click.option("--fit-hands", default=1000, show_default=True, help="ISMCTS self-play hands")
@click.option("--quality-deals", default=300, show_default=True, help="paired deals per opponent")
@click.option("--deals", default=2000, show_default=True, help="paired deals per strength match")
@click.option(
    "--opponents",
    default=";".join(OPPONENTS),
    show_default=True,
    help="semicolon list of the opponents (policy texts)",
)
@click.option(
    "--bases",
    default=",".join(BASES),
    show_default=True,
    help="comma list of the base searches: ismcts, pimc",
)
@click.option(
    "--replies",
    default="model",
    show_default=True,
    help="part reply: comma list of the reply= settings measured (tree, model, weak; "
    "options after +: weak+reply_min=0.5)",
)
@click.option(
    "--reply-models",
    default=",".join(BELIEF_MODELS),
    show_default=True,
    help="part reply: comma list of the beliefs measured with each reply",
)
@click.option("--workers", default=2, show_default=True)
@click.option("--seed", default=2027, show_default=True)
@click.option("--json", "json_path", type=click.Path(dir_okay=False), default=None)
@click.option("--quick", is_flag=True, help="tiny run (smoke test)")
def main(
    parts: str,
    fit_hands: int,
    quality_deals: int,
    deals: int,
    opponents: str,
    bases: str,
    replies: str,
    reply_models: str,
    workers: int,
    seed: int,
    json_path: str | None,
    quick: bool,
) -> None:
    """Measure the beliefs and belief-weighted search (see the module docstring)."""
    want = {p.strip() for p in parts.split(",") if p.strip()}
    opps = [o.strip() for o in opponents.split(";") if o.strip()]
    base_list = [BASES[b.strip()] for b in bases.split(",") if b.strip() in BASES]
    if not opps or len(base_list) != len([b for b in bases.split(",") if b.strip()]):
        raise click.UsageError(
            "--opponents: policy texts apart by ;, --bases: a comma list of ismcts, pimc"
        )
    for o in opps:
        try:
            bot_of(o)
        except ValueError as e:
            raise click.UsageError(f"--opponents: {e}") from None
    if not want or want - {"fit", "quality", "strength", "reply", "oracle", "budget"}:
        raise click.UsageError(
            "--parts: a comma list of fit, quality, strength, reply, oracle, budget"
        )
    if quick:
        fit_hands, quality_deals, deals = min(fit_hands, 4), min(quality_deals, 2), min(deals, 2)
    if min(fit_hands, quality_deals, deals) < 2 or workers < 1:
        raise click.UsageError("--fit-hands, --quality-deals and --deals must be at least 2")
    if json_path:
        try:
            Path(json_path).parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise click.ClickException(f"cannot write {json_path}: {e.strerror}") from None
    rules = Rules.make("scopa")
    doc: dict = {
        "command": command_line("belief"),
        "commit": git_commit(), "seed": seed, "workers": workers,
        "machine": machine(),
        "models": {name: [c.label for c in m.channels] for name, m in MODELS.items() if m},
        "load": {"start": load()},
    }  # fmt: skip
    if "fit" in want:
        print(f"fit of the softened expert ({fit_hands} hands of ISMCTS self-play, "
              f"{fit_hands // 2} of expert and of greedy), seed {seed + 1}")  # fmt: skip
        doc["fit"] = run_fit(rules, fit_hands, seed + 1)
        doc["load"]["after_fit"] = load()
    tasks: list[Task] = []
    if "quality" in want:
        for opp in opps:
            tasks += chunks("quality", BASES["ismcts"], opp, quality_deals)
    calib = {}
    # (base, model, reply) of each calibrated setting; part reply: ISMCTS bases only
    reply_list = [r.strip() for r in replies.split(",") if r.strip()]
    if not reply_list or {r.partition("+")[0] for r in reply_list} - {"tree", "model", "weak"}:
        raise click.UsageError(
            "--replies: a comma list of tree, model, weak (each with +key=value options)"
        )
    for r in reply_list:
        try:
            bot_of(f"ismcts:belief=fit,reply={r.replace('+', ',')}")
        except ValueError as e:
            raise click.UsageError(f"--replies {r}: {e}") from None
    models = [m.strip() for m in reply_models.split(",") if m.strip()]
    if not models or set(models) - set(BELIEF_MODELS):
        raise click.UsageError("--reply-models: a comma list of " + ", ".join(BELIEF_MODELS))
    # part strength: one budget for every opponent, on positions against greedy and
    # expert; part reply (whose cost depends on how the opponent is modelled): a budget
    # per opponent, on positions against that opponent
    runs: list[tuple[str, str, str, str | None]] = [
        (base, model, "uct", None) for base in base_list for model in BELIEF_MODELS
        if "strength" in want]  # fmt: skip
    runs += [(base, model, r, opp) for base in base_list if base.startswith("ismcts")
             for r in reply_list for model in models for opp in opps
             if "reply" in want]  # fmt: skip
    if runs:
        n_states = 10 if quick else 100
        states: dict[str | None, list[HandState]] = {
            None: history_states(rules, n_states, seed + 2)
        }
        for base, model, reply, against in runs:
            if against is not None and against not in states:
                states[against] = history_states(rules, n_states, seed + 2, [against])
            c = calibrate(base, model, states[against], 1 if quick else 3, reply)
            calib[_ckey(base, model, reply, against)] = c
            print(f"calibrated {c['setting']}" + (f" against {against}" if against else "")
                  + f": {c['ms_per_move']:.3f} ms/move against "
                  f"{c['base_ms_per_move']:.3f} for {base}")  # fmt: skip
        doc["calibration"] = calib
        doc["load"]["after_calibration"] = load()
        for base, model, reply, vs in runs:
            for opp in opps if vs is None else [vs]:
                for st in (base, calib[_ckey(base, model, reply, vs)]["setting"]):
                    key = ("match", st, opp)
                    if key not in {(t.key, t.a, t.b) for t in tasks}:
                        tasks += chunks("match", st, opp, deals)
    extra = {
        "oracle": lambda b: [ORACLE + b],
        "budget": lambda b: [with_param(b, "belief", m) for m in BELIEF_MODELS],
    }
    for part, make in extra.items():
        if part in want:
            for base in base_list:
                for opp in opps:
                    for st in [base, *make(base)]:
                        key = ("match", st, opp)
                        if key not in {(t.key, t.a, t.b) for t in tasks}:
                            tasks += chunks("match", st, opp, deals)
    t0 = time.perf_counter()
    results = run_tasks(run_task, tasks, seed, workers, init_worker)
    doc["pool_seconds"] = time.perf_counter() - t0
    doc["load"]["after_pool"] = load()

    if "quality" in want:
        doc["quality"] = []
        print(f"\nbits gained on the opponent's hand (observer {BASES['ismcts']}, "
              f"{quality_deals} paired deals each)")  # fmt: skip
        for opp in opps:
            rows = [row for res in results if res["task"].key == "quality"
                    and res["task"].b == opp for row in res["rows"]]  # fmt: skip
            q = summarise_quality(rows, opp, 2 * quality_deals)
            doc["quality"].append(q)
            for name in BELIEF_MODELS:
                m = q["models"][name]
                allr = m["by_round"].get("all")
                per_dec = (f"{allr['bits_per_decision']:+.3f} [{allr['ci_low']:+.3f}, "
                           f"{allr['ci_high']:+.3f}]") if allr else "-"  # fmt: skip
                rounds = " ".join(
                    f"{m['by_round'][str(k)]['bits_per_decision']:+.2f}"
                    if str(k) in m["by_round"] else "-" for k in range(1, 7)
                )  # fmt: skip
                print(f"  {opp:<38} {name:<6} per decision {per_dec}  by round {rounds}  "
                      f"per hand {m['bits_per_hand']:+.2f}")  # fmt: skip
            if "fit_posterior_at_last_evidence" in q:
                post = q["fit_posterior_at_last_evidence"]
                print("      fit posterior: " + ", ".join(f"{k} {v:.2f}" for k, v in post.items()))
    if "strength" in want:
        print(f"\nbelief against uniform worlds at equal time ({deals} paired deals per match), "
              "difference of margins per hand, 95% CI over deals")  # fmt: skip
        doc["strength"] = []
        for base in base_list:
            settings = [calib[_ckey(base, m, "uct")]["setting"] for m in BELIEF_MODELS]
            for opp in opps:
                doc["strength"].append(compare(results, base, opp, settings))
    if "reply" in want:
        print(f"\nbelief with the opponent model in the tree (reply={replies}) against uniform "
              f"worlds at equal time ({deals} paired deals per match)")  # fmt: skip
        doc["reply"] = []
        labels = [f"{m},reply={r}" for r in reply_list for m in models]
        for base in (b for b in base_list if b.startswith("ismcts")):
            for opp in opps:
                settings = [calib[_ckey(base, m, r, opp)]["setting"]
                            for r in reply_list for m in models]  # fmt: skip
                doc["reply"].append(compare(results, base, opp, settings, labels))
    if "budget" in want:
        print(f"\nbelief against uniform worlds at the same budget ({deals} paired deals per "
              "match; the belief's cost not compensated)")  # fmt: skip
        doc["budget"] = [
            compare(results, base, opp, [with_param(base, "belief", m) for m in BELIEF_MODELS])
            for base in base_list
            for opp in opps
        ]
    if "oracle" in want:
        doc["oracle"] = []
        print(f"\nthe cheat: worlds with the other hand as it is ({deals} paired deals), "
              "minus uniform worlds")  # fmt: skip
        for base in base_list:
            for opp in opps:
                per = {st: margins_of(results, st, opp) for st in (base, ORACLE + base)}
                dlt = normal_ci(per[ORACLE + base][0] - per[base][0])
                doc["oracle"].append({"base": base, "opponent": opp, "deals": int(dlt.n),
                                      "minus_uniform": dlt.estimate,
                                      "minus_uniform_ci": [dlt.low, dlt.high],
                                      "ms_per_move": per[ORACLE + base][1]})  # fmt: skip
                print(f"  {base} vs {opp}: {fmt(dlt)}")
    doc["load"]["end"] = load()
    if json_path:
        try:
            Path(json_path).write_text(json.dumps(doc, indent=2, default=str) + "\n")
        except OSError as e:
            raise click.ClickException(f"cannot write the output: {e}") from None


if __name__ == "__main__":
    with P.interrupt_on_sigterm():  # kill PID stops the pool as Ctrl-C does
        main()
