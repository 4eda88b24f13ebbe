"""Compile the kernels ahead of use (``scopa-sim warm``).

numba compiles a kernel the first time it runs and keeps it in its on-disk cache; after
that every process loads it from there. The big loops take long to compile (the fused
playout loop for each variant, ISMCTS for each capture rule: each task's ``cost`` in
:data:`TASKS`), so the first ``simulate``, ``advise`` or ``tournament``
on a fresh machine waits minutes, and processes that start together (the workers of a
run, of a cluster, of the test suite) each compile the same kernel at once. :func:`warm`
compiles them all once, in parallel processes, each task a different kernel: run it when
setting up a machine or an image, or before starting many processes.

Each task (:data:`TASKS`) runs its kernels on a tiny real input through the same
wrappers the library uses, so the signatures it compiles are the ones later calls load.
A task whose kernels are cached loads them in under a second; :func:`cached` tells,
from numba's cache index and without loading anything, whether they are. Tasks are
independent: which ones run, and in how many processes, changes only the time taken.
"""

from __future__ import annotations

import importlib
import os
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scopa_sim import _engine as K
from scopa_sim.bots.registry import PolicySpec
from scopa_sim.errors import WarmError
from scopa_sim.game.rules import Rules
from scopa_sim.sim import pool as P


@dataclass(frozen=True)
class WarmTask:
    """One warm-up task: ``name``, what it compiles, its compile time in seconds as
    measured on a 2-core machine (``cost``: the larger tasks are started first), what it
    runs, and the kernels it compiles ahead of the others (``kernels``: ``module.name``
    under ``scopa_sim``; the kernels they call are compiled into them)."""

    name: str
    summary: str
    cost: float
    run: Callable[[], None] = field(repr=False, compare=False)
    kernels: tuple[str, ...] = ()

    def _repr_html_(self) -> str:
        """The task as a one-row table."""
        import html

        cells = "".join(f"<td>{html.escape(str(c))}</td>" for c in (self.name, self.summary,
                                                                   f"{self.cost:g}"))  # fmt: skip
        return ("<div class='scopa-sim'><table><tr><th>task</th><th>compiles</th>"
                f"<th>seconds</th></tr><tr>{cells}</tr></table></div>")  # fmt: skip


#: About the seconds a task whose kernels are cached takes to load them and run its tiny
#: input (from a fraction of a second to two for the largest).
LOAD_SECONDS = 0.3


def _fused(preset: str, *overrides: str) -> Callable[[], None]:
    def run() -> None:
        rules = Rules.make(preset, overrides=list(overrides))
        codes = np.array([K.POLICY_GREEDY] * rules.players + [0] * (4 - rules.players))
        out = np.zeros((K.N_ROW_COLS, 2), dtype=np.int32)
        K.fused_rows(rules.to_array(), codes.astype(np.int64), 0, False, 0, 2, out)

    return run


def _fused_cirulla() -> None:
    """The Cirulla loops (``fused_rows_cirulla``: the preset's specialised loop, and the
    general one under ``declare=auto``) on a greedy and a random seat, so both their
    paths run, and the learned policy's Cirulla play-out (a match of ``play``)."""
    from scopa_sim.sim.match import play_match

    codes = np.array([K.POLICY_GREEDY, K.POLICY_RANDOM, 0, 0], dtype=np.int64)
    out = np.zeros((K.N_ROW_COLS_CIRULLA, 2), dtype=np.int32)
    for overrides in ([], ["declare=auto"]):
        K.fused_rows_cirulla(Rules.make("cirulla", overrides).loop_array(), codes, 0, False, 0,
                             2, out)  # fmt: skip
    rules = Rules.make("cirulla")
    for _ in play_match(rules, [PolicySpec.parse("learned")] * 2, 0, 0):
        pass


def _decide(preset: str, *policies: str) -> Callable[[], None]:
    """One decision of each policy after three greedy plays (so that a belief has
    plays to read)."""

    def run() -> None:
        from scopa_sim.bots.search import move_seed
        from scopa_sim.game.state import HandState

        rules = Rules.make(preset)
        state = HandState.deal(rules, dealer=0, seed=1)
        greedy = PolicySpec.parse("greedy").bot()
        while state.plays_made < 3:
            state.push(greedy.choose(state, move_seed(1, state.plays_made, state.turn)))
        for text in policies:
            PolicySpec.parse(text).bot().choose(state, 2)

    return run


def _searches() -> None:
    """PIMC (uniform, with a belief, for the match), the solver, the evaluator (a decision,
    and the prior a review starts from). The match objective reads a small equity table
    written here: the one built on first use plays 100,000 hands (seconds of work that
    compiles nothing more)."""
    from scopa_sim.bots.evaluate import Evaluator
    from scopa_sim.bots.objective import build_table

    with tempfile.TemporaryDirectory(prefix="scopa-warm-") as tmp:
        table = os.path.join(tmp, "equity.json")
        build_table(Rules.make("scopa"), "expert", hands=64).save(table)
        _decide(
            "scopa",
            "pimc:worlds=2,depth=2",
            "pimc:worlds=2,depth=2,belief=expert",
            f"pimc:worlds=2,depth=2,objective=match,equity={table}",
            "solver",
            f"solver:objective=match,equity={table}",
            "eval:worlds=4",
        )()
    Evaluator(4).prior(Rules.make("scopa"), 0)


def _shards() -> None:
    """A shard of hands and one of matches written (the Parquet encoder's kernels)."""
    from scopa_sim.data.run import SimConfig
    from scopa_sim.sim.shards import run_shard

    rules = Rules.make("scopa")
    with tempfile.TemporaryDirectory(prefix="scopa-warm-") as tmp:
        for mode in ("hands", "matches"):
            config = SimConfig.make("scopa", rules, ["random"], mode, 4, 0)
            os.makedirs(os.path.join(tmp, mode, "shards"))
            run_shard(config, 0, os.path.join(tmp, mode))


def _steps() -> None:
    """The step kernels (records, ``play``, matches, duplicate deals; the learned
    policy's play-out), the deals dealt again (:mod:`scopa_sim.sim.deals`), the equity
    tables' dynamic programmes (two and three sides) and the Parquet encoder
    (:func:`_shards`)."""
    from scopa_sim.data.run import SimConfig
    from scopa_sim.sim.deals import redeal
    from scopa_sim.sim.duplicate import swapped_rows
    from scopa_sim.sim.match import play_match
    from scopa_sim.stats import equity as E

    _shards()

    rules = Rules.make("scopa")
    for policy in ("expert", "learned"):
        for _ in play_match(rules, [PolicySpec.parse(policy)] * 2, 0, 0):
            pass
    codes = np.array([K.POLICY_GREEDY] * 2 + [0] * 2, dtype=np.int64)
    swapped_rows(rules, codes, 0, 0, 2)
    one = np.zeros(1, dtype=np.int64)
    redeal(SimConfig.make("scopa", rules, ["random"], "hands", 1, 0), one, one, one)
    outcomes = E.HandOutcomes(
        np.array([3, 1]), np.array([1, 3]), np.array([0, 0]), np.array([1, 1])
    )
    E.solve(outcomes, 5, False)
    three = E.PositionOutcomes.of(np.array([[2, 1, 0], [0, 1, 3]]), np.array([-1, -1]))
    E.solve3(three, 3, False)


_SEARCH = "ismcts:iterations=8,horizon=4,c=1,belief=fit,reply=tree"

#: The warm-up tasks, by name.
TASKS: dict[str, WarmTask] = {
    t.name: t
    for t in (
        WarmTask(
            "ismcts",
            "ISMCTS under Scopa's capture rule",
            60,
            _decide("scopa", _SEARCH),
            (
                "_engine.ismcts._ismcts_run_scopa",
                "_engine.ismcts.ismcts_init",
                "_engine.belief.compute",
            ),
        ),
        WarmTask(
            "ismcts15",
            "ISMCTS under the fifteen rule",
            60,
            _decide("scopa-15", _SEARCH),
            ("_engine.ismcts._ismcts_run15",),
        ),
        WarmTask(
            "fused-2p",
            "the fused playout loop, two players",
            24,
            _fused("scopa"),
            ("_engine.fused.fused_hands_2p",),
        ),
        WarmTask(
            "fused",
            "the fused playout loop, any table",
            23,
            _fused("scopa-3"),
            ("_engine.fused.fused_hands",),
        ),
        WarmTask(
            "fused15-2p",
            "the fused loop under the fifteen rule, two players",
            26,
            _fused("scopa-15"),
            ("_engine.fused.fused_hands15_2p",),
        ),
        WarmTask(
            "fused15",
            "the fused loop under the fifteen rule, any table",
            28,
            _fused("escoba", "players=4"),
            ("_engine.fused.fused_hands15",),
        ),
        WarmTask(
            "fused-cirulla",
            "the Cirulla loop (its step kernels and policies), the learned Cirulla play-out",
            20,
            _fused_cirulla,
            (
                "_engine.fused_cirulla.fused_hands_cirulla",
                "_engine.fused_cirulla.fused_hands_cirulla_2p",
                "_engine.learned_cirulla.play_out_model_cirulla",
            ),
        ),
        WarmTask(
            "pimc",
            "PIMC (uniform, with a belief, for the match), the solver, the review evaluator",
            56,
            _searches,
            (
                "_engine.pimc.pimc_values",
                "_engine.solver.solve_root",
                "_engine.evaluator.eval_values",
                "_engine.evaluator.eval_prior",
            ),
        ),
        WarmTask(
            "search-cirulla",
            "PIMC, ISMCTS and the solver on Cirulla (the Cirulla solver and tree)",
            25,
            _decide("cirulla", "pimc:worlds=2,depth=2", "solver:depth=2", "ismcts:iterations=8"),
            (
                "_engine.solver_cirulla.solve_root_cirulla",
                "_engine.solver_cirulla.solve_world_cirulla",
                "_engine.ismcts_cirulla.ismcts_run_cirulla",
            ),
        ),
        WarmTask(
            "steps",
            "the step kernels, matches, duplicate deals, equity, the shard encoder",
            7,
            _steps,
            (
                "_engine.rows.step_rows",
                "_engine.step.play_out",
                "_engine.learned.play_out_model",
                "_engine.deals.deal_masks",
                "stats.equity._solve_sides",
                "data.encoding.bit_packed",
                "data.encoding.rle_hybrid",
            ),
        ),
    )
}


def select(names: Sequence[str] = ()) -> list[WarmTask]:
    """The tasks named (all when none), largest first; an unknown name is a
    :class:`WarmError` that lists the known ones.

    Raises:
        WarmError: an unknown task name.
    """
    for name in names:
        if name not in TASKS:
            raise WarmError(f"unknown warm-up task {name!r}: one of {', '.join(TASKS)}")
    chosen = [TASKS[n] for n in dict.fromkeys(names)] if names else list(TASKS.values())
    return sorted(chosen, key=lambda t: -t.cost)


def cached(task: WarmTask) -> bool:
    """Whether numba's on-disk cache holds every kernel of ``task`` (:attr:`WarmTask.kernels`)
    compiled from the current source for this machine: read from the caches' index files,
    nothing compiled or loaded. False when the cache cannot be read the way this numba
    keeps it."""
    return all(_kernel_cached(name) for name in task.kernels)


def _kernel_cached(name: str) -> bool:
    """Whether the index of kernel ``name``'s cache has an entry of this machine (its
    codegen's magic tuple) and of the kernel's current bytecode. numba's own index key
    (:meth:`numba.core.caching.Cache._index_key`) is ``(signature, magic tuple, code
    hashes)``; the index is empty when the source file changed since it was written."""
    module, attr = f"scopa_sim.{name}".rsplit(".", 1)
    try:
        dispatcher: Any = getattr(importlib.import_module(module), attr)
        cache = dispatcher._cache
        index = cache._cache_file._load_index()
        want = cache._index_key(None, dispatcher.targetctx.codegen())[1:]
    except (AttributeError, TypeError, ImportError, OSError):  # another numba's layout
        return False
    return any(isinstance(key, tuple) and key[1:] == want for key in index)


def _run(name: str) -> float:
    t0 = time.perf_counter()
    TASKS[name].run()
    return time.perf_counter() - t0


def _named_run(name: str) -> tuple[str, float]:
    """A worker process's task: the task ``name`` run, with its name (results come back
    as they finish, not in the order given)."""
    return name, _run(name)


def warm(names: Sequence[str] = (), jobs: int = 1) -> Iterator[tuple[WarmTask, float]]:
    """Run the tasks ``names`` (all by default) in ``jobs`` processes (1: in this one) of
    :func:`scopa_sim.sim.pool.process_pool`, every task queued at once, largest first;
    yield each task with its seconds as it finishes. An error, an interrupt or stopping
    the iteration stops the worker processes at once.

    Raises:
        WarmError: an unknown task name, or ``jobs`` below 1.
    """
    if jobs < 1:
        raise WarmError(f"the number of processes must be at least 1, got {jobs}")
    tasks = select(names)
    if jobs == 1:
        for t in tasks:
            yield t, _run(t.name)
        return
    with P.process_pool(min(jobs, len(tasks))) as pool:
        for name, seconds in P.stream(pool, _named_run, ((t.name,) for t in tasks), len(tasks)):
            yield TASKS[name], seconds
