"""Match-aware against margin play: paired, seat-swapped matches to the target.

Usage::

    python -m scopa_sim.experiments.match [--pairs N] [--base SPEC] [--seed S] [--workers N]
        [--equity-hands N] [--positions N] [--b-iterations N] [--log FILE.jsonl]
        [--json FILE] [--table FILE.md] [--a-params K=V,...] [--from-totals T0,T1] [--quick]
    python -m scopa_sim.experiments.match --leaf-matches N [--json FILE]

``A`` is the base search policy (default ``ismcts:iterations=1000,horizon=4,c=1``, the
documented best bot) with ``objective=match``, ``B`` the same with the default
``objective=margin``: the same search, iterations and seeds otherwise (``--a-params``
adds parameters to A alone, e.g. ``match_leaf=calibrated``). Pair ``p`` is
match ``p`` of the run seed played twice, ``A`` on side 0 then ``A`` on side 1, through
:func:`scopa_sim.sim.match.play_match`: hand ``h`` of both matches is dealt from the same
deck by the same dealer seat (streams ``(seed, p, h)``), and each decision's seed is
that of its position in the match, so the luck of the cards is shared (common random
numbers) and only the seats are swapped. ``A``'s table is built once by the parent
(:func:`scopa_sim.bots.objective.build_table`: ``--equity-hands`` expert self-play hands from
seed 0, the table ``equity=expert`` builds by default) and given to the workers as a file.

**Equal time per move.** Before the matches, both bots are timed on the same
``--positions`` positions (from margin-bot matches of other match numbers, with their
totals), each position for A then right away for B, on the thread's CPU clock, in three
passes; if the median ratio of A's time to B's is above 1, B's ISMCTS ``iterations`` are
raised by that ratio (below 1, A's are), so that both spend the same time per move.
``--b-iterations`` fixes B's budget instead (to repeat a run exactly: the calibrated
budget depends on the machine's timings, everything else is deterministic per seed).

Statistics, over pairs (the unit of the paired design):

* **Match win rate of A** over the ``2 N`` matches, its test and interval by the exact
  McNemar test of the pairs (:func:`scopa_sim.stats.inference.mcnemar`): with side 0's win in each
  seating as the paired binary outcomes, the discordant pairs are those A won twice or
  lost twice, and the risk difference is ``2 (win rate - 1/2)`` (Wald interval with the
  paired variance, mapped back to the win rate).
* **Points per hand** A accepts: sum over both matches of all pairs of (A's points -
  B's points) over the sum of their hands -- a ratio estimator, 95% interval by the delta
  method over pairs.
* **Time per move** of each bot (CPU time of the working thread, forced moves excluded),
  measured in the same matches, and their ratio: the equal-time check.

``--from-totals T0,T1`` starts every match from those totals of side 0 and side 1
(:func:`scopa_sim.sim.match.play_match`'s ``start``) instead of 0-0: matches near the target,
where playing for the match and playing for the margin part most, measured with the
same design.

``--leaf-matches N`` checks the match objective's leaf model instead (no bot plays): in
``N`` matches of ``expert`` self-play, at plays 4, 12, 20 and 28 of every hand, the equity
after the hand that the leaf predicts from the position's estimate
(:meth:`scopa_sim.bots.objective.HandRewards.predicted`) against the one the hand reached
(:meth:`~scopa_sim.bots.objective.HandRewards.reached` by its final score): the mean error
(bias), the Brier score and the slope of the reached equity regressed on the predicted one
(1: calibrated; below 1: overconfident), next to the Brier score of the equity before the
hand (no information from the position), for the normal model and for
``match_leaf=calibrated`` (:func:`scopa_sim.bots.objective.fit_leaf`, fitted on its own
self-play hands, apart from these matches).

``--log`` appends each finished pair as a JSON line and skips pairs already in it, so a
long run can be resumed or extended; the statistics are of every pair in the log.
Matches depend on the seed and pair number only, so results are the same for any
``--workers``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np

from scopa_sim.bots.objective import DEFAULT_SEED, build_table, fit_leaf
from scopa_sim.bots.registry import PolicySpec
from scopa_sim.errors import MatchError
from scopa_sim.game.play import Play
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import HandState
from scopa_sim.sim import pool as P
from scopa_sim.sim.match import HandPlayer, play_match, start_totals
from scopa_sim.stats import inference as S

BASE = "ismcts:iterations=1000,horizon=4,c=1"
#: Pairs per task of a worker process.
CHUNK = 10
Z = NormalDist().inv_cdf(0.975)


class SearchTimer:
    """A bot that adds the CPU time of its searched (not forced) moves to a counter."""

    def __init__(self, bot: Any) -> None:
        self.bot, self.seconds, self.moves = bot, 0.0, 0

    def prepare(self, rules: Rules) -> None:
        self.bot.prepare(rules)

    def choose(self, state: HandState, seed: int) -> Any:
        if len(state.legal_plays) == 1:
            return self.bot.choose(state, seed)
        t = time.thread_time()
        play = self.bot.choose(state, seed)
        self.seconds += time.thread_time() - t
        self.moves += 1
        return play


def _play_pairs(
    rules: Rules, a: str, b: str, seed: int, pairs: list[int], start: tuple[int, ...] | None = None
) -> list[dict]:
    """Both seatings of each pair: A's side, the winner, hands and points per side; the
    matches start from the sides' totals ``start`` (default 0 each)."""
    out = []
    sa, sb = PolicySpec.parse(a), PolicySpec.parse(b)
    seatings = []
    for a_side in (0, 1):
        specs = [sa if rules.side_of(s) == a_side else sb for s in range(rules.players)]
        player = HandPlayer(rules, specs, seed)
        timers = [SearchTimer(bot) for bot in player._bots]
        player._bots = timers  # type: ignore[assignment]
        seatings.append((a_side, player, timers))
    for p in pairs:
        rec: dict[str, Any] = {"pair": p, "matches": []}
        for a_side, player, timers in seatings:
            before = [(t.seconds, t.moves) for t in timers]
            logs = list(play_match(rules, [], seed, p, player=player, start=start))
            totals = logs[-1].totals_after
            cost = {"a": [0.0, 0], "b": [0.0, 0]}
            for seat, t in enumerate(timers):
                who = "a" if rules.side_of(seat) == a_side else "b"
                cost[who][0] += t.seconds - before[seat][0]
                cost[who][1] += t.moves - before[seat][1]
            rec["matches"].append(
                {
                    "a_side": a_side,
                    "winner": logs[-1].winner,
                    "hands": len(logs),
                    "a_points": totals[a_side],
                    "b_points": totals[1 - a_side],
                    "a_seconds": cost["a"][0],
                    "a_moves": cost["a"][1],
                    "b_seconds": cost["b"][0],
                    "b_moves": cost["b"][1],
                }
            )
        out.append(rec)
    return out


def _positions(rules: Rules, base: str, seed: int, n: int) -> list[HandState]:
    """``n`` positions with a choice to make, from margin-bot matches numbered from 10^6
    (apart from the pairs), with the match totals of their hands."""
    spec = PolicySpec.parse(base)
    player = HandPlayer(rules, [spec] * rules.players, seed)
    out: list[HandState] = []
    m = 10**6
    while len(out) < n:
        for log in play_match(rules, [], seed, m, player=player):
            state = HandState.deal(
                rules, dealer=log.dealer, deck=log.deck, match_totals=log.totals_before
            )
            for _seat, card, take in log.plays:
                if len(state.legal_plays) > 1 and len(out) < n:
                    out.append(state.clone())
                state.push(Play(card, take))
        m += 1
    return out


def time_ratio(a: str, b: str, states: list[HandState]) -> float:
    """Median over three passes of A's CPU time over B's on ``states`` (each state timed
    for A, then right away for B), after an untimed pass over a few."""
    ba, bb = PolicySpec.parse(a).bot(), PolicySpec.parse(b).bot()
    for i, st in enumerate(states[:20]):
        ba.choose(st, i)
        bb.choose(st, i)
    ratios = []
    for _ in range(3):
        ta = tb = 0.0
        for i, st in enumerate(states):
            c0 = time.thread_time()
            ba.choose(st, i)
            c1 = time.thread_time()
            bb.choose(st, i)
            ta += c1 - c0
            tb += time.thread_time() - c1
        ratios.append(ta / tb)
    return float(np.median(ratios))


def with_iterations(spec: str, iterations: int) -> str:
    """``spec`` (an ISMCTS policy) with its ``iterations`` set."""
    name, _, rest = spec.partition(":")
    if name != "ismcts":
        raise SystemExit("equal-time calibration needs an ismcts base policy")
    params = [kv for kv in rest.split(",") if kv and not kv.startswith("iterations=")]
    return f"{name}:" + ",".join([f"iterations={iterations}", *params])


def summary(records: list[dict]) -> dict[str, Any]:
    """The statistics of the module's docstring over the pairs of ``records``."""
    records = sorted(records, key=lambda r: r["pair"])
    n = len(records)
    won = np.array([[m["winner"] == m["a_side"] for m in r["matches"]] for r in records])
    both, neither = int((won[:, 0] & won[:, 1]).sum()), int((~won[:, 0] & ~won[:, 1]).sum())
    # side 0's win in each seating: A's win with A on side 0, B's win with B on side 0
    side0 = np.stack([won[:, 0], ~won[:, 1]], axis=1)
    mc = S.mcnemar(
        "side 0 wins, A on side 0 vs B on side 0",
        int((side0[:, 0] & side0[:, 1]).sum()),
        int((side0[:, 0] & ~side0[:, 1]).sum()),
        int((~side0[:, 0] & side0[:, 1]).sum()),
        int((~side0[:, 0] & ~side0[:, 1]).sum()),
    )
    rate = float(won.mean())
    margin = np.array([sum(m["a_points"] - m["b_points"] for m in r["matches"]) for r in records])
    hands = np.array([sum(m["hands"] for m in r["matches"]) for r in records], dtype=float)
    ppg = float(margin.sum() / hands.sum())
    resid = margin - ppg * hands
    se = math.sqrt(float(resid.var(ddof=1)) / n) / float(hands.mean()) if n > 1 else math.nan
    pair_score = won.mean(axis=1)
    sd = float(pair_score.std(ddof=1)) if n > 1 else math.nan
    secs = {w: sum(m[f"{w}_seconds"] for r in records for m in r["matches"]) for w in "ab"}
    moves = {w: sum(m[f"{w}_moves"] for r in records for m in r["matches"]) for w in "ab"}
    ms = {w: 1000 * secs[w] / moves[w] if moves[w] else math.nan for w in "ab"}
    # pairs for 80% power at the observed effect (two-sided 5%), normal approximation
    eff = rate - 0.5
    power_pairs = ((Z + NormalDist().inv_cdf(0.8)) * sd / eff) ** 2 if eff and n > 1 else None
    return {
        "pairs": n,
        "matches": 2 * n,
        "a_match_wins": int(won.sum()),
        "a_win_rate": rate,
        "a_win_rate_ci": [max(0.0, 0.5 + mc.low / 2), min(1.0, 0.5 + mc.high / 2)],
        "pairs_a_won_both": both,
        "pairs_a_lost_both": neither,
        "pairs_split": n - both - neither,
        "test": "exact McNemar (sign test on the pairs A won twice vs lost twice), two-sided",
        "p_value": mc.p_value,
        "pair_score_sd": sd,
        "pairs_for_80pct_power_at_this_effect": power_pairs,
        "hands": int(hands.sum()),
        "hands_per_match": float(hands.sum() / (2 * n)),
        "a_points_per_hand": ppg,
        "a_points_per_hand_ci": [ppg - Z * se, ppg + Z * se],
        "points_method": "sum of (A - B) points over the sum of hands, delta-method interval "
        "over pairs",
        "ms_per_move": {"a": ms["a"], "b": ms["b"]},
        "time_ratio_a_over_b": ms["a"] / ms["b"] if moves["a"] and moves["b"] else None,
        "searched_moves": moves,
    }


def _slope(pred: np.ndarray, real: np.ndarray) -> float:
    """Least-squares slope of ``real`` on ``pred`` (1 for a calibrated predictor)."""
    p = pred - pred.mean()
    return float((p * (real - real.mean())).sum() / (p * p).sum())


def leaf_calibration(
    rules: Rules, table: Any, matches: int, seed: int, fit: Any = None
) -> dict[str, Any]:
    """The leaf model's calibration (see the module docstring), by play of the hand; with
    ``fit`` (a :class:`scopa_sim.bots.objective.LeafFit`) the calibrated leaf's next to the
    normal model's."""
    from scopa_sim.bots.objective import hand_rewards

    stages = (4, 12, 20, 28)
    rows: dict[int, list[tuple[float, ...]]] = {i: [] for i in stages}
    spec = [PolicySpec.parse("expert")] * rules.players
    for m in range(matches):
        for log in play_match(rules, spec, seed, m):
            hr = hand_rewards(table, log.totals_before, rules.side_of(log.dealer))
            hc = (
                hr
                if fit is None
                else hand_rewards(table, log.totals_before, rules.side_of(log.dealer), fit)
            )
            st = HandState.deal(rules, dealer=log.dealer, deck=log.deck)
            seen = {}
            for i, (_seat, card, take) in enumerate(log.plays):
                if i in rows:
                    seen[i] = st.clone()
                st.push(Play(card, take))
            reached = hr.reached(st) / hr.k
            for s in seen.values():
                v, vc = hr.predicted(s), hc.predicted(s)
                rows[s.plays_made].append((hr.w0 + v / hr.k, hr.w0 + reached, hr.w0,
                                           hr.w0 + vc / hr.k))  # fmt: skip
    out = []
    for i in stages:
        a = np.array(rows[i])
        row = {
            "play": i,
            "positions": len(a),
            "bias": float((a[:, 0] - a[:, 1]).mean()),
            "brier": float(((a[:, 0] - a[:, 1]) ** 2).mean()),
            "slope": _slope(a[:, 0], a[:, 1]),
            "brier_of_the_equity_before": float(((a[:, 2] - a[:, 1]) ** 2).mean()),
        }
        if fit is not None:
            row |= {
                "calibrated_bias": float((a[:, 3] - a[:, 1]).mean()),
                "calibrated_brier": float(((a[:, 3] - a[:, 1]) ** 2).mean()),
                "calibrated_slope": _slope(a[:, 3], a[:, 1]),
            }
        out.append(row)
    return {"matches": matches, "seed": seed, "stages": out}


def _read_log(path: Path | None) -> dict[int, dict]:
    done: dict[int, dict] = {}
    if path is not None and path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                rec = json.loads(line)
                done[rec["pair"]] = rec
    return done


def run(
    rules: Rules,
    a: str,
    b: str,
    pairs: int,
    seed: int,
    workers: int,
    log: Path | None,
    say: Any = print,
    totals: tuple[int, ...] | None = None,
) -> list[dict]:
    """Play pairs ``0..pairs-1`` (those not yet in ``log``), appending each to it; the
    matches start from the totals ``totals`` (default 0 each)."""
    done = _read_log(log)
    todo = [p for p in range(pairs) if p not in done]
    chunks = [todo[i : i + CHUNK] for i in range(0, len(todo), CHUNK)]
    sink = log.open("a") if log is not None else None
    start = time.time()
    try:
        if workers <= 1:
            results = (_play_pairs(rules, a, b, seed, c, totals) for c in chunks)
            for got in results:
                _record(got, done, sink)
                say(f"  {len(done)}/{pairs} pairs, {time.time() - start:.0f} s")
        else:  # every chunk queued at once, recorded as it finishes
            with P.process_pool(workers) as pool:
                args = ((rules, a, b, seed, c, totals) for c in chunks)
                for got in P.stream(pool, _play_pairs, args, len(chunks)):
                    _record(got, done, sink)
                    say(f"  {len(done)}/{pairs} pairs, {time.time() - start:.0f} s")
    finally:
        if sink is not None:
            sink.close()
    return [done[p] for p in range(pairs)]


def _record(got: list[dict], done: dict[int, dict], sink: Any) -> None:
    for rec in got:
        done[rec["pair"]] = rec
        if sink is not None:
            sink.write(json.dumps(rec) + "\n")
            sink.flush()


def _from(doc: dict[str, Any]) -> str:
    """The words for where the matches started (e.g. " from 10-6"), or "" from 0 each."""
    start = doc.get("start_totals") or []
    return " from " + "-".join(str(t) for t in start) if any(start) else ""


def markdown(doc: dict[str, Any]) -> str:
    s = doc["summary"]
    lo, hi = s["a_win_rate_ci"]
    plo, phi = s["a_points_per_hand_ci"]
    rows = [
        "| measure | value |",
        "|---|---|",
        f"| A | `{doc['a']}` |",
        f"| B | `{doc['b']}` |",
        f"| pairs of seat-swapped matches to {doc['target']}{_from(doc)} | {s['pairs']:,} "
        f"({s['matches']:,} matches, {s['hands']:,} hands, {s['hands_per_match']:.2f} a match) |",
        f"| A's match win rate | {s['a_win_rate']:.4f} [{lo:.4f}, {hi:.4f}] |",
        f"| pairs A won twice / lost twice / split | {s['pairs_a_won_both']:,} / "
        f"{s['pairs_a_lost_both']:,} / {s['pairs_split']:,} |",
        f"| two-sided p (exact McNemar on the pairs) | {s['p_value']:.3g} |",
        f"| A's points per hand (A - B) | {s['a_points_per_hand']:+.4f} [{plo:+.4f}, {phi:+.4f}] |",
        f"| ms per searched move, A / B | {s['ms_per_move']['a']:.3f} / "
        f"{s['ms_per_move']['b']:.3f} (ratio {s['time_ratio_a_over_b']:.3f}) |",
    ]
    return "\n".join(rows) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=2000)
    ap.add_argument("--base", default=BASE)
    ap.add_argument("--preset", default="scopa")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--equity-hands", type=int, default=100_000)
    ap.add_argument("--positions", type=int, default=1000, help="for the time calibration")
    ap.add_argument("--b-iterations", type=int, help="B's iterations (no calibration)")
    ap.add_argument(
        "--a-params", default="", help="more parameters of A, e.g. match_leaf=calibrated"
    )
    ap.add_argument("--log", type=Path)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--table", type=Path, help="write the summary as a Markdown table")
    ap.add_argument("--quick", action="store_true", help="a tiny run (smoke test)")
    ap.add_argument("--leaf-matches", type=int, help="check the leaf model in N matches")
    ap.add_argument(
        "--from-totals",
        help="start every match from these totals of side 0 and side 1, e.g. 9,9 "
        "(matches near the target, where the objectives differ most)",
    )
    args = ap.parse_args()
    start = None
    if args.from_totals is not None:
        try:
            start = tuple(int(t) for t in args.from_totals.split(","))
        except ValueError:
            raise SystemExit(
                f"--from-totals {args.from_totals!r}: give integers, e.g. 9,9"
            ) from None
    if args.leaf_matches is not None:
        rules = Rules.make(args.preset)
        table = build_table(rules, "expert", args.equity_hands, DEFAULT_SEED)
        fit = fit_leaf(rules)
        doc = {
            "benchmark": "scopa_sim.experiments.match leaf calibration",
            "preset": args.preset,
            "equity_table": {"policy": "expert", "hands": args.equity_hands, "seed": DEFAULT_SEED},
            "leaf_fit": {"policy": fit.policy, "hands": fit.hands, "seed": fit.seed,
                         "slope": fit.slope.tolist(), "spread": fit.spread.tolist()},
            **leaf_calibration(rules, table, args.leaf_matches, args.seed, fit),
        }  # fmt: skip
        for row in doc["stages"]:
            print(row)
        if args.json:
            args.json.write_text(json.dumps(doc, indent=2) + "\n")
        return None
    if args.quick:
        args.pairs, args.equity_hands, args.positions = 2, 2000, 30
        args.base = "ismcts:iterations=30,horizon=4,c=1"
    rules = Rules.make(args.preset)
    if start is not None:
        try:  # the matches' own check, before the table and the calibration
            start_totals(rules, start)
        except MatchError as e:
            raise SystemExit(f"--from-totals: {e}") from None
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    with tempfile.TemporaryDirectory() as tmp:
        table_file = Path(tmp) / "equity.json"
        t0 = time.time()
        table = build_table(rules, "expert", args.equity_hands, DEFAULT_SEED)
        table.save(table_file)
        print(f"equity table: {args.equity_hands:,} expert hands, {time.time() - t0:.1f} s")
        a = f"{args.base},objective=match,equity={table_file}" + (
            f",{args.a_params}" if args.a_params else ""
        )
        b = args.base
        iters = int(dict(PolicySpec.parse(b).params).get("iterations", "1000"))
        calibration: dict[str, Any] = {}
        if args.b_iterations is not None:
            b = with_iterations(b, args.b_iterations)
            calibration = {"b_iterations": args.b_iterations, "method": "given"}
        else:
            states = _positions(rules, b, args.seed, args.positions)
            ratio = time_ratio(a, b, states)
            if ratio > 1:
                b = with_iterations(b, round(iters * ratio))
            else:
                a = with_iterations(a, round(iters / ratio))
            calibration = {"positions": len(states), "time_ratio_a_over_b": ratio}
            print(f"time per move, A / B at equal iterations: {ratio:.3f}")
        calibration |= {"a": a.replace(str(table_file), "expert"), "b": b}
        records = run(rules, a, b, args.pairs, args.seed, args.workers, args.log, totals=start)
    doc = {
        "benchmark": "scopa_sim.experiments.match",
        "started_utc": started,
        "finished_utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "load_average": os.getloadavg(),
        "preset": args.preset,
        "target": rules.target,
        "start_totals": list(start) if start is not None else [0] * rules.sides,
        "seed": args.seed,
        "a": calibration["a"],
        "b": b,
        "calibration": calibration,
        "equity_table": {"policy": "expert", "hands": args.equity_hands, "seed": DEFAULT_SEED},
        "summary": summary(records),
    }
    text = markdown(doc)
    print(text)
    if args.json:
        args.json.write_text(json.dumps(doc, indent=2) + "\n")
    if args.table:
        args.table.write_text(text)


if __name__ == "__main__":
    try:
        with P.interrupt_on_sigterm():  # kill PID stops the pool as Ctrl-C does
            main()
    except KeyboardInterrupt:
        sys.exit("interrupted: the pairs finished are in --log, when one was given")
