"""What the experiments share: bots from policy texts, timing per move, equal-time
budgets, paired deals played in chunks on the process pool, pairing summaries, run
facts and JSON-lines logs.

Deals are those of :func:`scopa_sim.bots.search.play_deal`: deal ``d`` of a run seeded
``seed`` is dealt from :func:`scopa_sim.bots.search.deal_seed` with dealer ``d % 2`` and
played twice, the seats exchanged; the unit of the statistics is the deal pair.  Times
are CPU times of the working thread (``time.thread_time``: what a move costs on one
core however busy the machine is), wall times beside them.
"""

from __future__ import annotations

import json
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

import click
import numba
import numpy as np

from scopa_sim.bots.base import Bot, PlayStats
from scopa_sim.bots.registry import PolicySpec
from scopa_sim.bots.search import deal_seed, move_seed, play_deal
from scopa_sim.errors import ScopaError
from scopa_sim.game.play import Play
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import HandState
from scopa_sim.sim import pool as P
from scopa_sim.sim.tournament import ELO_METHOD, PairingResult, elo_estimate, play_pairing
from scopa_sim.stats.estimate import Estimate
from scopa_sim.stats.inference import normal_ci, normal_ci_from_stats

#: The committed results of a source checkout (the experiments' default inputs).
RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
#: Deal pairs per task of a worker process.
CHUNK = 25
#: The reference search of the equal-time comparisons.
REFERENCE = "ismcts:iterations=1000,horizon=4,c=1"
#: Prefix of a setting whose belief is the truth: a cheat, for reference (:func:`bot_of`).
ORACLE = "oracle|"
#: z of a two-sided 95% normal interval.
Z = 1.959963984540054

E = TypeVar("E", bound=ScopaError)


# --------------------------------------------------------------------------- run facts
def utc() -> str:
    """The UTC time now, ``YYYY-MM-DDTHH:MM:SSZ``."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def load() -> dict[str, Any]:
    """UTC time and the 1-, 5- and 15-minute load averages (as ``uptime`` shows them)."""
    one, five, fifteen = os.getloadavg()
    return {"utc": utc(), "load_1": one, "load_5": five, "load_15": fifteen}


def git_commit() -> str | None:
    """The short commit of the working directory's git checkout, or None outside one."""
    try:
        proc = subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.strip() or None


def cpu_model() -> str:
    """The processor's model name, as Linux's ``/proc/cpuinfo`` gives it (``AMD EPYC``,
    ``Intel(R) Xeon(R) ...``); elsewhere what :mod:`platform` knows (on Linux it gives
    only the architecture, ``x86_64``, which cannot tell two machines' speeds apart)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict[str, Any]:
    """Python and numba versions, the processor (:func:`cpu_model`) and the number of
    cores: what a speed measurement names beside its figures."""
    return {"python": platform.python_version(), "numba": numba.__version__,
            "cpu": cpu_model(), "cores": os.cpu_count()}  # fmt: skip


def run_meta(deals: int, seed: int, workers: int, **setting: str) -> dict[str, Any]:
    """The facts of a run that go with its results: size, seed, ``setting`` (the
    reference or base), workers, start time, commit, load and machine."""
    return {"deals": deals, "seed": seed, **setting, "workers": workers,
            "date_utc": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "started": time.time(), "commit": git_commit(), "load_before": load(),
            "machine": machine()}  # fmt: skip


def finish_meta(meta: dict[str, Any]) -> None:
    """Close ``meta`` (:func:`run_meta`): the load at the end and the seconds taken."""
    meta.update(load_after=load(), seconds=round(time.time() - meta.pop("started"), 1))


def read_json(path: str | Path, error: type[E]) -> dict[str, Any]:
    """The JSON object in the file ``path``.

    Raises:
        error: the file cannot be read, is not UTF-8 JSON, or holds no JSON object
            (the message names ``path``).
    """
    try:
        doc = json.loads(Path(path).read_text())
    except OSError as e:
        raise error(f"cannot read {path}: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise error(f"{path} is not JSON: {e.msg} at line {e.lineno}") from None
    except (UnicodeDecodeError, RecursionError):
        raise error(f"{path} is not JSON text") from None
    if not isinstance(doc, dict):
        raise error(f"{path} is not a JSON object")
    return doc


def append_log(path: str | None, record: Mapping[str, Any]) -> None:
    """Append one record to the JSON-lines log ``path`` (None: nothing)."""
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(record) + "\n")


# --------------------------------------------------------------------------- bots
def bot_of(text: str) -> Bot:
    """A bot from its policy text; ``oracle|TEXT``: the search ``TEXT`` drawing its worlds
    with every other hand as it truly is (only the stock's order unknown).

    Raises:
        PolicyError: the text is not a policy.
    """
    if not text.startswith(ORACLE):
        return PolicySpec.parse(text).bot()
    bot = PolicySpec.parse(text[len(ORACLE) :]).bot()

    def truth(state: HandState, seed: int) -> tuple[np.ndarray, np.ndarray]:
        parts = np.full((1, 4), -1, dtype=np.int64)
        for s in range(state.players):
            if s != state.turn and state.hand(s):
                parts[0, s] = state.hand(s).mask
        if (parts < 0).all():
            return np.empty((0, 4), dtype=np.int64), np.empty(0)
        return parts, np.ones(1)

    bot._worlds_from = truth  # type: ignore[attr-defined]
    bot.name = ORACLE + bot.name
    return bot


def with_param(text: str, key: str, value: object) -> str:
    """``text`` with parameter ``key`` set to ``value`` (added or replaced)."""
    name, _, rest = text.partition(":")
    items = [kv for kv in rest.split(",") if kv and not kv.startswith(key + "=")]
    return f"{name}:{','.join([*items, f'{key}={value}'])}"


class Timed(Bot):
    """A bot that adds up its moves' CPU time (``cpu``, seconds of the thread) and wall
    time (``wall``), and counts them (``moves``)."""

    def __init__(self, bot: Bot) -> None:
        self.bot, self.name = bot, bot.name
        self.cpu = self.wall = 0.0
        self.moves = 0

    def analyse(self, state: HandState, seed: int) -> list[PlayStats]:
        return self.bot.analyse(state, seed)

    def choose(self, state: HandState, seed: int) -> Play:
        t, c = time.perf_counter(), time.thread_time()
        play = self.bot.choose(state, seed)
        self.cpu += time.thread_time() - c
        self.wall += time.perf_counter() - t
        self.moves += 1
        return play

    @property
    def wall_ms_per_move(self) -> float:
        """Mean wall time per move, milliseconds."""
        return 1000 * self.wall / max(1, self.moves)


# --------------------------------------------------------------------------- positions
def decision_states(rules: Rules, count: int, seed: int) -> list[HandState]:
    """``count`` decisions spread over whole hands played by ``greedy`` (whose positions
    are closer to the search bots' than random play's), for timing bots per move."""
    rnd = random.Random(seed)
    greedy = bot_of("greedy")
    out: list[HandState] = []
    while len(out) < count:
        s = HandState.deal(rules, seed=rnd.randrange(2**32))
        while not s.is_over:
            if rnd.random() < 0.3:
                out.append(s.clone())
            s.push(greedy.choose(s, rnd.randrange(2**32)))
    return out[:count]


def history_states(
    rules: Rules,
    count: int,
    seed: int,
    opponents: Sequence[str] = ("greedy", "expert"),
    searcher: str = REFERENCE,
) -> list[HandState]:
    """``count`` decisions of ``searcher`` against ``opponents`` (in turn), each with its
    history (rebuilt by pushing the plays, so that a belief's cost counts), for the
    equal-time calibrations."""
    rnd = random.Random(seed)
    me = bot_of(searcher)
    out: list[HandState] = []
    g = 0
    while len(out) < count:
        opp = bot_of(opponents[g % len(opponents)])
        ds = rnd.randrange(2**62)
        s = HandState.deal(rules, dealer=g % 2, seed=ds)
        plays: list[Play] = []
        while not s.is_over:
            mine = s.turn == 0
            if mine and rnd.random() < 0.3:
                c = HandState.deal(rules, dealer=g % 2, seed=ds)
                for p in plays:
                    c.push(p)
                out.append(c)
            bot = me if mine else opp
            p = bot.choose(s, move_seed(ds, s.plays_made, s.turn))
            plays.append(p)
            s.push(p)
        g += 1
    return out[:count]


# --------------------------------------------------------------------------- equal time
def paired_ms_per_move(
    a: Bot, b: Bot, states: Sequence[HandState], clock: Callable[[], float] = time.thread_time
) -> tuple[float, float]:
    """Mean times per move of ``a`` and ``b`` over ``states``, milliseconds, each state
    timed for ``a`` then right away for ``b`` (drifts of the machine's speed hit both
    alike), after an untimed pass over a few states; ``clock``: the thread's CPU time,
    or e.g. ``time.perf_counter`` for wall time."""
    for i, s in enumerate(states[:10]):
        a.choose(s, i)
        b.choose(s, i)
    ta = tb = 0.0
    for i, s in enumerate(states):
        c0 = clock()
        a.choose(s, i)
        c1 = clock()
        b.choose(s, i)
        ta += c1 - c0
        tb += clock() - c1
    return ta * 1000 / len(states), tb * 1000 / len(states)


def median_paired_ms(
    a: Bot, b: Bot, states: Sequence[HandState], repeats: int
) -> tuple[float, float]:
    """Medians over ``repeats`` passes of :func:`paired_ms_per_move` (a burst of other
    load on the shared machine then moves one pass, not the answer)."""
    runs = [paired_ms_per_move(a, b, states) for _ in range(repeats)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def equal_budget(
    make: Callable[[int], Bot],
    target: Bot,
    states: Sequence[HandState],
    start: int,
    repeats: int,
) -> tuple[int, float, float, list[dict[str, Any]]]:
    """The budget at which ``make(budget)`` takes as long per move as ``target`` on
    ``states`` (:func:`median_paired_ms`): scaled from ``start`` by the measured ratio,
    corrected three times (fixed costs per move), then measured once more.

    Returns:
        (budget, its ms per move, the target's, the calibration steps).
    """
    budget, steps = start, []
    for _ in range(4):
        ms, target_ms = median_paired_ms(make(budget), target, states, repeats)
        steps.append({"budget": budget, "ms_per_move": ms, "target_ms_per_move": target_ms})
        budget = max(1, round(budget * target_ms / ms))
    ms, target_ms = median_paired_ms(make(budget), target, states, repeats)
    steps.append({"budget": budget, "ms_per_move": ms, "target_ms_per_move": target_ms})
    return budget, ms, target_ms, steps


# --------------------------------------------------------------------------- paired deals
@dataclass(frozen=True)
class Task:
    """Deal pairs ``start`` to ``stop - 1`` of ``a`` against ``b``; ``key`` groups a
    pairing's tasks (and names what a task computes)."""

    key: str
    a: str
    b: str
    start: int
    stop: int


def chunks(key: str, a: str, b: str, deals: int, size: int = CHUNK) -> list[Task]:
    """The tasks of ``deals`` deal pairs of ``a`` against ``b``, ``size`` pairs each."""
    return [Task(key, a, b, s, min(deals, s + size)) for s in range(0, deals, size)]


def play_chunk(task: Task, seed: int) -> dict[str, Any]:
    """Play one task with fresh bots in 2-player ``scopa``.

    Returns:
        ``task``, ``key``, ``start``; ``m0``, ``m1``: per deal the margin of ``a`` in
        seat 0 and in seat 1; ``a_cpu``, ``a_wall``, ``a_moves`` and the same for ``b``.
    """
    rules = Rules.make("scopa")
    a, b = Timed(bot_of(task.a)), Timed(bot_of(task.b))
    m0: list[int] = []
    m1: list[int] = []
    for d in range(task.start, task.stop):
        ds = deal_seed(seed, d)
        for seat, out in ((0, m0), (1, m1)):
            bots: list[Bot] = [b, b]
            bots[seat] = a
            pts = play_deal(rules, bots, ds, dealer=d % 2)
            out.append(pts[seat] - pts[1 - seat])
    return {"task": task, "key": task.key, "start": task.start, "m0": m0, "m1": m1,
            "a_cpu": a.cpu, "a_wall": a.wall, "a_moves": a.moves,
            "b_cpu": b.cpu, "b_wall": b.wall, "b_moves": b.moves}  # fmt: skip


def warm_bots(texts: Sequence[str]) -> None:
    """Load every compiled kernel the bots ``texts`` use (one move each, a few plays
    into a hand), so that no timed move pays for it."""
    s = HandState.deal(Rules.make("scopa"), seed=1)
    for _ in range(3):
        s.push(s.legal_plays[0])
    for text in texts:
        bot_of(text).choose(s, 1)


def run_tasks(
    fn: Callable[[Task, int], dict[str, Any]],
    tasks: Sequence[Task],
    seed: int,
    workers: int,
    init: Callable[[], None],
) -> list[dict[str, Any]]:
    """``fn(task, seed)`` of every task, in the order given: in this process after
    ``init()`` with one worker, else on the process pool (every task queued at once,
    each worker started by ``init``).  Run it under
    :func:`scopa_sim.sim.pool.interrupt_on_sigterm` so that ``kill`` stops the pool."""
    if workers <= 1:
        init()
        return [fn(t, seed) for t in tasks]
    with P.process_pool(workers, init) as pool:
        return list(P.ordered(pool, fn, ((t, seed) for t in tasks), len(tasks)))


def by_key(results: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Task results grouped by ``key``, each group in deal order."""
    out: dict[str, list[dict[str, Any]]] = {}
    for res in results:
        out.setdefault(res["key"], []).append(res)
    for v in out.values():
        v.sort(key=lambda res: res["start"])
    return out


def pairing(a: str, b: str, m0: Sequence[int], m1: Sequence[int]) -> PairingResult:
    """``a`` against ``b`` from its margins per deal in seat 0 and seat 1, summarised as
    :func:`scopa_sim.sim.tournament.play_pairing` does: margins averaged per deal pair,
    the score from each hand's win (1), draw (1/2) or loss, Elo of the score with the
    interval of the pair scores (no interval from fewer than two pairs)."""
    x0, x1 = np.asarray(m0, dtype=np.float64), np.asarray(m1, dtype=np.float64)
    both = np.concatenate([x0, x1])
    wins, draws = int((both > 0).sum()), int((both == 0).sum())
    ps = ((x0 > 0) * 0.5 + (x0 == 0) * 0.25) + ((x1 > 0) * 0.5 + (x1 == 0) * 0.25)
    score = float(ps.mean())
    se = float(ps.std(ddof=1)) / math.sqrt(ps.size) if ps.size > 1 else math.nan
    return PairingResult(
        a=a, b=b, deal_pairs=int(x0.size),
        margin=normal_ci((x0 + x1) / 2) if x0.size > 1 else normal_ci_from_stats(0.0, math.nan, 1),
        wins=wins, draws=draws, losses=int(both.size) - wins - draws, score=score,
        elo=elo_estimate(score, se, int(x0.size), Z),
    )  # fmt: skip


def summary(a: str, b: str, parts: Sequence[dict[str, Any]], first: int | None = None) -> dict:
    """A pairing's margin, Elo and both bots' ms per move (CPU; wall time too) from its
    tasks' results (:func:`play_chunk`), over the first ``first`` deal pairs only when
    given (the times are then of all of them); ``_pairing``: the
    :class:`~scopa_sim.sim.tournament.PairingResult`."""
    m0 = [m for p in parts for m in p["m0"]][:first]
    m1 = [m for p in parts for m in p["m1"]][:first]
    pr = pairing(a, b, m0, m1)
    t = {k: sum(p[k] for p in parts) for k in ("a_cpu", "a_wall", "a_moves", "b_cpu", "b_wall",
                                                  "b_moves")}  # fmt: skip
    a_n, b_n = max(1, t["a_moves"]), max(1, t["b_moves"])
    return {"a": a, "b": b, "deals": pr.deal_pairs, "hands": 2 * pr.deal_pairs,
            "mean_margin": pr.margin.estimate, "ci_low": pr.margin.low,
            "ci_high": pr.margin.high, "wins": pr.wins, "draws": pr.draws,
            "losses": pr.losses, "score": pr.score, "elo": pr.elo.estimate,
            "elo_low": pr.elo.low, "elo_high": pr.elo.high,
            "a_ms_per_move": 1000 * t["a_cpu"] / a_n, "b_ms_per_move": 1000 * t["b_cpu"] / b_n,
            "a_wall_ms_per_move": 1000 * t["a_wall"] / a_n,
            "b_wall_ms_per_move": 1000 * t["b_wall"] / b_n,
            "a_moves": t["a_moves"], "b_moves": t["b_moves"], "_pairing": pr}  # fmt: skip


# --------------------------------------------------------------------------- pairings
def fmt(m: Estimate) -> str:
    """A margin and its 95% CI, three decimals."""
    return f"{m.estimate:+.3f} [{m.low:+.3f}, {m.high:+.3f}]"


def fmt_ci(m: Mapping[str, Any]) -> str:
    """A summary's margin and its 95% CI, or "no CI" from fewer deal pairs than an
    interval needs (:data:`scopa_sim.stats.inference.MIN_SAMPLES`)."""
    if not (math.isfinite(m["ci_low"]) and math.isfinite(m["ci_high"])):
        return f"{m['mean_margin']:+.3f} (no CI)"
    return f"{m['mean_margin']:+.3f} [{m['ci_low']:+.3f}, {m['ci_high']:+.3f}]"


def result_json(r: PairingResult) -> dict[str, Any]:
    """A pairing as the round robin's JSON and log hold it."""
    m = r.margin
    return {"a": r.a, "b": r.b, "deal_pairs": r.deal_pairs, "mean": m.estimate, "se": m.se,
            "n": m.n, "ci_low": m.low, "ci_high": m.high, "wins": r.wins, "draws": r.draws,
            "losses": r.losses, "score": r.score, "elo": r.elo.estimate, "elo_low": r.elo.low,
            "elo_high": r.elo.high}  # fmt: skip


def result_of(d: Mapping[str, Any]) -> PairingResult:
    """The pairing of a :func:`result_json` record."""
    return PairingResult(
        a=d["a"], b=d["b"], deal_pairs=d["deal_pairs"],
        margin=normal_ci_from_stats(d["mean"], d["se"], d["n"]),
        wins=d["wins"], draws=d["draws"], losses=d["losses"], score=d["score"],
        elo=Estimate(d["elo"], d["elo_low"], d["elo_high"], d["deal_pairs"], ELO_METHOD),
    )  # fmt: skip


def read_log(path: str | None, deals: int, seed: int) -> tuple[dict | None, dict]:
    """The calibration and the finished pairings (by ``(a, b)``) of an earlier run's
    JSON-lines log with the same deals and seed; (None, {}) without a log.

    Raises:
        click.UsageError: the log is of a run with other deals or another seed (it is
            refused, not mixed in).
    """
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


def play_logged(
    rules: Rules,
    a: PolicySpec,
    b: PolicySpec,
    deals: int,
    seed: int,
    workers: int,
    done: Mapping[tuple[str, str], Mapping[str, Any]],
    log_path: str | None,
    what: str,
) -> PairingResult:
    """The pairing of ``a`` against ``b`` (:func:`scopa_sim.sim.tournament.play_pairing`):
    read back from ``done`` (an earlier run's log, :func:`read_log`), or played,
    printed as ``what`` and appended to the log."""
    key = (str(a), str(b))
    if key in done:
        return result_of(done[key])
    t0 = time.time()
    r = play_pairing(rules, a, b, deals, seed, workers=workers)
    print(f"  {what}: {fmt(r.margin)}  ({time.time() - t0:.0f} s)", flush=True)
    append_log(log_path, {"kind": "pairing", **result_json(r)})
    return r


# --------------------------------------------------------------------------- entrants
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


def calibrate_entrants(entrants: tuple[Entrant, ...], reference: str, positions: int, repeats: int,
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


def command_line(name: str) -> str:
    """The command that runs this process, as experiment ``name`` (for its JSON)."""
    return " ".join(["python", "-m", f"scopa_sim.experiments.{name}", *sys.argv[1:]])
