"""Paired in-process A/B of the kernels: a base revision's against the working tree's.

    python benchmarks/bench_ab.py [--base REV] [--pairs N] [--case NAME ...] [--json FILE]

The one script here that imports ``scopa_sim._engine``: what it times is two revisions
of the kernels themselves, below any public face (``--simulate`` times the public
command instead).

The base revision's kernels (``scopa_sim/_engine/`` or, before it, ``_kernels.py`` and
``_search.py``) are copied from git into a package of their own (cached by revision
under the temporary directory, so they compile once), imported beside
``scopa_sim._engine``, and every case is timed alternately: pair ``i`` runs the base
first when ``i`` is even and the new kernels first when it is odd, each on the same
inputs (seed ``i``).  A ratio is base time / new time for one pair (above 1: the new
kernels are faster), in the thread's CPU time; the table gives the median ratio, its
quartiles and extremes, the median ratio of wall times, the median CPU times, and
whether both sides gave the same results in every pair.  The machine's load average is
recorded before and after, since other jobs slow both sides of a pair but not always
equally.

Cases: ``random``, ``greedy``, ``expert`` (fused self-play of 2-player ``scopa``, 100,000 /
40,000 / 2,000 hands a call), ``expert-step`` (400 hands of the expert through the step
kernels' ``play_out``), ``random-scopa-3``, ``greedy-scopone`` (the general
kernel), ``ismcts`` (4,000 iterations from each of 8 roots, greedy rollouts to the end)
and ``ismcts-h4`` (horizon 4, estimate leaf), ``solver`` (exact values of every play in
200 endgames after 18 plays: about 0.1 s a call, long enough that one pair's ratio is
not mostly timer and cache noise, as it was with 12), ``belief`` (``ismcts ...
belief=fit``: the belief's kernel, then ISMCTS on its particles, at 8 positions).

``--simulate HANDS`` times the whole command instead: ``scopa-sim simulate --hands HANDS``
(2-player ``scopa``, random play, one worker) of the base revision's source tree (from
``git archive``, run through ``PYTHONPATH``) against the installed command (the working
tree), alternately in fresh processes, after a warm-up run of each (numba's cache
filled); wall time and the children's CPU time per run, and the runs' data compared.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import click
import numba
import numpy as np

from scopa_sim import _engine as NEW  # the kernels under test: this tool's one reach inside
from scopa_sim.game.rules import Rules
from scopa_sim.sim import pool as P

ROOT = Path(__file__).resolve().parent.parent

#: The modules of the search kernels since ``search.py`` was split (before: ``search``).
SEARCH_MODULES = ("determinize", "values", "solver", "pimc", "ismcts", "evaluator")


def search_kernels(package: str) -> SimpleNamespace:
    """The search kernels of the engine package ``package`` as one namespace (the cases
    call them as ``ks.NAME``): its ``search`` module, or the modules it was split into,
    and the belief's kernels (``belief``)."""
    if importlib.util.find_spec(f"{package}.search"):
        names: tuple[str, ...] = ("search", "belief")
    else:
        names = (*SEARCH_MODULES, "belief")
    merged: dict[str, Any] = {}
    for name in names:
        merged.update(vars(importlib.import_module(f"{package}.{name}")))
    return SimpleNamespace(**merged)


NEW_S = search_kernels("scopa_sim._engine")


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True
    ).stdout


def _import_package(name: str, folder: Path) -> ModuleType:
    """The package ``name`` whose files are in ``folder`` (imported once), so that
    ``importlib.import_module(f"{name}.x")`` finds its modules there."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(
        name, folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def load_base(rev: str, path: str | None = None) -> tuple[ModuleType, Any, str]:
    """The kernels (K) and search kernels (KS) of git revision ``rev`` (or of the copy
    of ``scopa_sim/_engine/`` in the directory ``path``) as a package of their own, and
    the revision's commit id (or the path)."""
    if path is not None:
        sha = str(path)
        engine = sorted(str(f) for f in Path(path).glob("*.py"))
        texts = {Path(f).name: Path(f).read_text() for f in engine}
    else:
        sha = _git("rev-parse", "--verify", f"{rev}^{{commit}}").strip()
        files = _git("ls-tree", "--name-only", sha, "scopa_sim/", "scopa_sim/_engine/").split()
        engine = [f for f in files if f.startswith("scopa_sim/_engine/") and f.endswith(".py")]
        sources = engine or ["scopa_sim/_kernels.py", "scopa_sim/_search.py"]
        texts = {Path(f).name: _git("show", f"{sha}:{f}") for f in sources}
    key = hashlib.sha1(json.dumps(sorted(texts.items())).encode()).hexdigest()[:12]
    name = f"ab_base_{key}"
    home = Path(tempfile.gettempdir()) / "scopa-sim-ab"
    pkg = home / name
    pkg.mkdir(parents=True, exist_ok=True)
    for fname, text in texts.items():
        path = pkg / fname
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
    if not engine:
        (pkg / "__init__.py").write_text("")
    _import_package(name, pkg)
    if engine:
        k = importlib.import_module(name)
        ks: Any = search_kernels(name)
    else:
        k = importlib.import_module(f"{name}._kernels")
        ks = importlib.import_module(f"{name}._search")
    return k, ks, sha


def _selfplay(preset: str, policy: int, hands: int) -> Callable[[Any, Any, int], Any]:
    r = Rules.make(preset).to_array()
    pols = np.full(4, policy, np.int64)
    out = np.zeros((hands, 4), np.int64)

    def run(k: Any, ks: Any, seed: int) -> Any:
        k.selfplay_hands(r, pols, seed, hands, out)
        return out.copy()

    return run


def _play_out(preset: str, policy: int, hands: int) -> Callable[[Any, Any, int], Any]:
    """Whole hands through the step kernels (``play_out``), as bots and records play."""
    r = Rules.make(preset).to_array()
    pols = np.full(4, policy, np.int64)
    decks = []
    for h in range(hands):
        deck = np.empty(40, np.int64)
        NEW.shuffle_deal(r, NEW.new_rng(NEW.derive_seed(5, h, 0, 0)), deck)
        decks.append(deck)
    state = np.zeros(NEW.N_STATE, np.int64)
    bc = np.empty(NEW.MAX_PLAYS, np.int64)
    bt = np.empty(NEW.MAX_PLAYS, np.int64)
    sc = np.empty(NEW.SCRATCH, np.int64)
    log_card = np.empty(40, np.int64)
    log_take = np.empty(40, np.int64)

    def run(k: Any, ks: Any, seed: int) -> Any:
        out = np.empty((hands, 40), np.int64)
        for h, deck in enumerate(decks):
            k.start_hand(state, r, deck, h % 2)
            rng = np.array([seed * hands + h, 0], dtype=np.uint64)
            k.play_out(state, r, pols, rng, bc, bt, sc, log_card, log_take)
            out[h] = log_take
        return out

    return run


def _roots(preset: str, count: int, seed: int, plays: int | None = None) -> list[np.ndarray]:
    """Decision states of random self-play hands (the new kernels deal and play them):
    after ``plays`` plays, or at points spread over the hand."""
    rules = Rules.make(preset)
    r = rules.to_array()
    out: list[np.ndarray] = []
    bc = np.empty(NEW.MAX_PLAYS, np.int64)
    bt = np.empty(NEW.MAX_PLAYS, np.int64)
    sc = np.empty(NEW.SCRATCH, np.int64)
    deck = np.empty(40, np.int64)
    for h in range(count):
        rng = NEW.new_rng(NEW.derive_seed(seed, h, 0, 0))
        NEW.shuffle_deal(r, rng, deck)
        state = np.zeros(NEW.N_STATE, np.int64)
        NEW.start_hand(state, r, deck, h % rules.players)
        stop = plays if plays is not None else (5 * h) % 30
        while state[NEW.S_PLAYS] < stop:
            n = NEW.legal_plays(state, r, bc, bt, sc)
            i = NEW.rand_below(rng, n)
            NEW.apply_play(state, r, bc[i], bt[i])
        out.append(state)
    return out


def _ismcts(horizon: int, leaf: int) -> Callable[[Any, Any, int], Any]:
    r = Rules.make("scopa").to_array()
    roots = _roots("scopa", 8, 7)
    tree = np.zeros((20_000, NEW_S.T_COLS), np.int64)
    log = np.zeros(0, np.int64)

    def run(k: Any, ks: Any, seed: int) -> Any:
        trees = []
        for root in roots:
            count = ks.ismcts_init(root, tree)
            rng = np.array([seed, 0], dtype=np.uint64)
            count = ks.ismcts_run(root, r, tree, count, 4000, 0.7, 1, horizon, rng, log, leaf)
            trees.append(tree[:count].copy())
        return trees

    return run


def _belief() -> Callable[[Any, Any, int], Any]:
    """``ismcts ... belief=fit``: at each of 8 positions of greedy self-play (the seat to
    play having seen plays of this round), the ``fit`` belief computed from the history
    (``belief.compute``), then 2,000 ISMCTS iterations to horizon 4 (the documented best
    bot's search) drawing their worlds from its particles."""
    from scopa_sim.bots.belief import MODELS, Observations
    from scopa_sim.game.state import HandState

    rules = Rules.make("scopa")
    r = rules.to_array()
    model = MODELS["fit"]
    assert model is not None
    kinds, taus, eps, logprior, flat = model.arrays()
    obs = []
    for h, stop in enumerate((3, 4, 9, 10, 15, 16, 21, 22)):
        state = HandState.deal(rules, dealer=h % 2, seed=100 + h)
        rng = np.random.default_rng(h)
        while state.plays_made < stop:
            plays = list(state.legal_plays)
            state.push(plays[int(rng.integers(len(plays)))])
        obs.append(Observations(state))
    tree = np.zeros((20_000, NEW_S.T_COLS), np.int64)
    log = np.zeros(0, np.int64)
    eq = np.empty(0)

    def run(k: Any, ks: Any, seed: int) -> Any:
        # the flat channels' argument (none flat in ``fit``) exists since issue 29's belief
        extra = (flat,) if "flat" in inspect.signature(ks.compute.py_func).parameters else ()
        out = []
        for o in obs:
            parts, cum, post, method = ks.compute(
                o.root, r, o.seat, o.hist, o.cards, o.takes, kinds, taus, eps, logprior,
                model.cap, model.particles, model.chain, model.burn, model.thin,
                np.uint64(seed + 1), *extra,
            )  # fmt: skip
            count = ks.ismcts_init(o.root, tree)
            g = np.array([seed, 0], dtype=np.uint64)
            count = ks.ismcts_run(o.root, r, tree, count, 2000, 1.0, 1, 4, g, log, 0, eq, parts,
                                  cum)  # fmt: skip
            out.append((parts, cum, post, np.array([method]), tree[:count].copy()))
        return out

    return run


def _solver() -> Callable[[Any, Any, int], Any]:
    rules = Rules.make("scopa")
    r = rules.to_array()
    roots = _roots("scopa", 200, 11, plays=18)
    size = 1 << 16
    tt_key = np.zeros(size, np.int64)
    tt_val = np.zeros(size, np.float64)
    tt_meta = np.zeros(size, np.int64)
    oc = np.empty(NEW.MAX_PLAYS, np.int64)
    ot = np.empty(NEW.MAX_PLAYS, np.int64)
    ov = np.empty(NEW.MAX_PLAYS, np.float64)

    def run(k: Any, ks: Any, seed: int) -> Any:
        tt_key[:] = 0  # no entry of the other side's run
        values = []
        for root in roots:
            info = np.zeros(ks.N_INFO, np.int64)
            info[ks.V_TT_MASK] = size - 1
            info[ks.V_SALT] = seed + 1
            n = ks.solve_root(root, r, ks.FULL_DEPTH, tt_key, tt_val, tt_meta, info, oc, ot, ov)
            values.append((oc[:n].copy(), ot[:n].copy(), ov[:n].copy()))
        return values

    return run


_LAUNCH = "import sys; sys.argv[0] = 'scopa-sim'; from cli.main import main; main()"


def base_tree(rev: str) -> tuple[Path, str]:
    """The source tree of git revision ``rev`` (``git archive``), cached by commit."""
    sha = _git("rev-parse", "--verify", f"{rev}^{{commit}}").strip()
    tree = Path(tempfile.gettempdir()) / "scopa-sim-ab" / f"tree-{sha[:12]}"
    if not (tree / "scopa_sim").is_dir():
        tree.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", sha], capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        if "scopa_sim_cli" in (tree / "cli" / "main.py").read_text():
            (tree / "scopa_sim_cli").symlink_to("cli")  # the package name it installs as
    return tree, sha


def simulate_ab(rev: str, hands: int, pairs: int) -> dict:
    """Alternating runs of ``scopa-sim simulate`` by the base tree and the working tree."""
    tree, sha = base_tree(rev)
    work = Path(tempfile.mkdtemp(prefix="scopa-sim-ab-runs-"))

    exe = shutil.which("scopa-sim") or str(Path(sys.executable).parent / "scopa-sim")
    tied = P.dies_with_parent()  # a kill -9 of this one stops the runs it started

    def run(src: Path, label: str, seed: int) -> tuple[float, float, Path]:
        out = work / f"{label}-{seed}"
        shutil.rmtree(out, ignore_errors=True)
        args = ["simulate", "--hands", str(hands), "--seed", str(seed), "--workers", "1"]
        args += ["--out", str(out)]
        if src == ROOT:  # the installed command (this working tree)
            env = dict(os.environ)
            env.pop("PYTHONPATH", None)
            cmd = [exe, *args]
        else:
            env = {**os.environ, "PYTHONPATH": str(src)}
            launch = _LAUNCH
            if (src / "scopa_sim_cli").exists():
                launch = launch.replace("from cli.main", "from scopa_sim_cli.main")
            cmd = [sys.executable, "-c", launch, *args]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, capture_output=True, preexec_fn=tied)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return wall, cpu, out

    run(tree, "base", 0)  # warm-up: numba's caches of both trees
    run(ROOT, "new", 0)
    t: dict[str, dict[str, list[float]]] = {k: {"wall": [], "cpu": []} for k in ("base", "new")}
    same = True
    for i in range(pairs):
        order = (("base", tree), ("new", ROOT)) if i % 2 == 0 else (("new", ROOT), ("base", tree))
        outs = {}
        for label, src in order:
            wall, cpu, outs[label] = run(src, label, i)
            t[label]["wall"].append(wall)
            t[label]["cpu"].append(cpu)
        a = sorted((outs["base"] / "shards").glob("*.parquet"))
        b = sorted((outs["new"] / "shards").glob("*.parquet"))
        same = same and [f.read_bytes() for f in a] == [f.read_bytes() for f in b]
    shutil.rmtree(work, ignore_errors=True)
    ratios = {k: [x / y for x, y in zip(t["base"][k], t["new"][k], strict=True)] for k in t["base"]}
    return {
        "base_commit": sha,
        "hands": hands,
        "pairs": pairs,
        "same_shards": same,
        **{f"{side}_{k}_median_s": statistics.median(t[side][k]) for side in t for k in t[side]},
        **{f"{k}_ratio_median": statistics.median(v) for k, v in ratios.items()},
        **{f"{k}_ratio_q1": float(np.quantile(v, 0.25)) for k, v in ratios.items()},
        **{f"{k}_ratio_q3": float(np.quantile(v, 0.75)) for k, v in ratios.items()},
        "runs": t,
    }


CASES: dict[str, Callable[[], Callable[[Any, Any, int], Any]]] = {
    "random": lambda: _selfplay("scopa", 0, 100_000),
    "greedy": lambda: _selfplay("scopa", 1, 40_000),
    "expert": lambda: _selfplay("scopa", 2, 2_000),
    "expert-step": lambda: _play_out("scopa", 2, 400),
    "random-scopa-3": lambda: _selfplay("scopa-3", 0, 60_000),
    "greedy-scopone": lambda: _selfplay("scopone", 1, 10_000),
    "ismcts": lambda: _ismcts(1000, 0),
    "ismcts-h4": lambda: _ismcts(4, 0),
    "solver": _solver,
    "belief": _belief,
}


def _same(a: Any, b: Any) -> bool:
    """Whether two results (arrays, or lists and tuples of them) are equal."""
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(np.array_equal(a, b))


def ab(run: Callable[[Any, Any, int], Any], base: tuple[Any, Any], pairs: int) -> dict:
    """Alternating pairs of one case.  Times are the thread's CPU time (other jobs on the
    machine take the processor away from a run without counting against it), with the
    wall times beside them; ``same`` says whether every pair gave equal results."""
    new = (NEW, NEW_S)
    run(*base, 0)  # warm-up: compile or load from the cache
    run(*new, 0)
    cpu: dict[str, list[float]] = {"base": [], "new": []}
    wall: dict[str, list[float]] = {"base": [], "new": []}
    same = True
    for i in range(pairs):
        order = (("base", base), ("new", new)) if i % 2 == 0 else (("new", new), ("base", base))
        got = {}
        for label, mods in order:
            w0 = time.perf_counter()
            t0 = time.thread_time()
            got[label] = run(*mods, i)
            cpu[label].append(time.thread_time() - t0)
            wall[label].append(time.perf_counter() - w0)
        same = same and _same(got["base"], got["new"])
    ratios = [b / n for b, n in zip(cpu["base"], cpu["new"], strict=True)]
    wall_ratios = [b / n for b, n in zip(wall["base"], wall["new"], strict=True)]
    q = np.quantile(ratios, [0.25, 0.75])
    return {
        "pairs": pairs,
        "same_results": same,
        "ratio_median": statistics.median(ratios),
        "ratio_q1": float(q[0]),
        "ratio_q3": float(q[1]),
        "ratio_min": min(ratios),
        "ratio_max": max(ratios),
        "wall_ratio_median": statistics.median(wall_ratios),
        "base_median_s": statistics.median(cpu["base"]),
        "new_median_s": statistics.median(cpu["new"]),
        "ratios": ratios,
        "wall_ratios": wall_ratios,
    }


@click.command()
@click.option("--base", default="main", show_default=True, help="Git revision of the base.")
@click.option(
    "--base-path",
    type=click.Path(exists=True, file_okay=False),
    help="A directory holding a copy of scopa_sim/_engine/ to use as the base instead.",
)
@click.option("--pairs", default=30, show_default=True, help="Alternating pairs per case.")
@click.option(
    "--case",
    "cases",
    multiple=True,
    type=click.Choice(list(CASES)),
    help="Cases to run (repeatable; default: random, greedy, expert).",
)
@click.option(
    "--simulate",
    "simulate_hands",
    type=int,
    help="Time `scopa-sim simulate --hands N` of the base tree against the working tree.",
)
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="Write results here.")
def main(
    base: str,
    base_path: str | None,
    pairs: int,
    cases: tuple[str, ...],
    simulate_hands: int | None,
    json_path: str | None,
) -> None:
    """Print base/new time ratios of alternating in-process runs (one core)."""
    if simulate_hands:
        load_before = os.getloadavg()
        res = simulate_ab(base, simulate_hands, pairs)
        res["load_average_before"] = load_before
        res["load_average_after"] = os.getloadavg()
        print(
            f"scopa-sim simulate --hands {simulate_hands}, base {base} "
            f"({res['base_commit'][:10]}) / working tree, {pairs} pairs: wall ratio "
            f"{res['wall_ratio_median']:.4f} [q1 {res['wall_ratio_q1']:.4f}, q3 "
            f"{res['wall_ratio_q3']:.4f}], CPU ratio {res['cpu_ratio_median']:.4f} [q1 "
            f"{res['cpu_ratio_q1']:.4f}, q3 {res['cpu_ratio_q3']:.4f}]; medians base "
            f"{res['base_wall_median_s']:.3f} s / new {res['new_wall_median_s']:.3f} s wall; "
            f"same shards: {res['same_shards']}; load {load_before[0]:.2f} -> "
            f"{res['load_average_after'][0]:.2f}"
        )
        if json_path:
            Path(json_path).write_text(json.dumps(res, indent=2) + "\n")
        return
    k, ks, sha = load_base(base, base_path)
    if base_path:
        base = base_path
    load_before = os.getloadavg()
    results: dict[str, dict] = {}
    names = list(cases) or ["random", "greedy", "expert"]
    print(f"base {base} ({sha[:10]}) against the working tree, {pairs} pairs a case")
    print(f"{'case':<16} {'base/new':>9} {'q1':>7} {'q3':>7} {'min':>7} {'max':>7} "
          f"{'wall':>7} {'base ms':>9} {'new ms':>9}  same")  # fmt: skip
    for name in names:
        res = ab(CASES[name](), (k, ks), pairs)
        results[name] = res
        print(
            f"{name:<16} {res['ratio_median']:>9.4f} {res['ratio_q1']:>7.4f} "
            f"{res['ratio_q3']:>7.4f} {res['ratio_min']:>7.4f} {res['ratio_max']:>7.4f} "
            f"{res['wall_ratio_median']:>7.4f} {1e3 * res['base_median_s']:>9.2f} "
            f"{1e3 * res['new_median_s']:>9.2f}  {'yes' if res['same_results'] else 'NO'}",
            flush=True,
        )
    load_after = os.getloadavg()
    print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f}")
    if json_path:
        doc = {
            "base": base,
            "base_commit": sha,
            "pairs": pairs,
            "load_average_before": load_before,
            "load_average_after": load_after,
            "machine": {
                "python": platform.python_version(),
                "numba": numba.__version__,
                "cpu": platform.processor() or platform.machine(),
                "cores": os.cpu_count(),
            },
            "results": results,
        }
        Path(json_path).write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    with P.interrupt_on_sigterm():  # kill PID stops it as Ctrl-C does
        main()
