"""Runs: :func:`simulate` a run (the ``simulate`` command) and :func:`open_run` a finished
one, each a :class:`scopa_sim.data.run.Run` whose hands are a polars frame
(:meth:`~scopa_sim.data.run.Run.scan`); :func:`hands_with_deals` adds each hand's deal.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scopa_sim.api.inputs import one_line_errors, policy_texts, resolve_rules, run_path, whole
from scopa_sim.errors import InputError, ScopaError, SimulationError

if TYPE_CHECKING:
    import polars as pl

    from scopa_sim.data.run import Run
    from scopa_sim.game.rules import Rules


@one_line_errors
def open_run(path: str | os.PathLike[str], label: str | None = None) -> Run:
    """The finished run in directory ``path`` (as ``simulate`` writes it), checked without
    reading its rows (:func:`scopa_sim.data.run.open_run`), under ``label`` in tables and
    comparisons (default: the directory's name).

    Raises DatasetError naming the file if it is missing, unreadable, incomplete or not a
    run of this format; FileError if ``path`` cannot name a directory; InputError for a
    bad ``label``."""
    from scopa_sim.data.run import open_run as open_data_run

    run = open_data_run(run_path(path))
    return run if label is None else run.labelled(label)


def as_run(run: Run | str | os.PathLike[str]) -> Run:
    """``run`` itself, or the finished run in the directory it names (:func:`open_run`)."""
    from scopa_sim.data.run import Run

    return run if isinstance(run, Run) else open_run(run)


def hands_with_deals(run: Run | str | os.PathLike[str]) -> pl.LazyFrame:
    """The run's hands (:meth:`Run.scan`) with each hand's deal, dealt again from the run's
    streams: ``table`` and ``seat{s}_deal{r}``
    (seat ``s``'s cards of deal ``r``, from 1) as 40-bit masks (bit ``c`` for card ``c``),
    each with its ``..._cards`` (card names, ``7D``): :mod:`scopa_sim.sim.deals`.

    Raises DatasetError if ``run`` names no finished run."""
    from scopa_sim.sim.deals import deal_columns_expr

    r = as_run(run)
    return r.scan().with_columns(deal_columns_expr(r.config)).unnest("deal")


@one_line_errors
def simulate(
    preset: str = "scopa",
    *,
    rules: Rules | None = None,
    overrides: Mapping[str, Any] | None = None,
    hands: int | None = None,
    matches: int | None = None,
    policy: str | Iterable[str] = "random",
    seed: int = 0,
    deal: str = "plain",
    out: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    executor: str = "local",
    scheduler: str | None = None,
    worker_timeout: float | None = None,
    shard_size: int | None = None,
    resume: bool = False,
    overwrite: bool = False,
    progress: Callable[[int, int], None] | None = None,
    notify: Callable[[str], None] | None = None,
    label: str | None = None,
) -> Run:
    """Simulate ``hands`` independent hands or ``matches`` complete matches into the run
    directory ``out`` (the ``simulate`` command) and return the finished run, named
    ``label`` in tables and comparisons (default: the directory's name, or for a run
    without ``out`` its preset, policies and overrides: :attr:`Run.label`).

    ``rules`` are the rules of the run (default: the preset's with ``overrides``, option
    name -> value, e.g. ``{"target": 21}``); ``policy`` one policy text for every seat or
    one per seat (``"expert"``, ``["expert", "greedy"]``, ``"ismcts:iterations=1000"``);
    ``deal`` ``"plain"`` or ``"swapped"`` (the duplicate deal of each hand; hands only);
    ``out`` the run directory (default: a temporary one, removed when the returned run is
    no longer used); ``workers`` the cores (default: all); ``executor`` ``"local"`` or
    ``"dask"`` (``scheduler``: a Dask scheduler's address, else a local cluster; given up
    after ``worker_timeout`` seconds without a worker, default 60, ``notify`` told of the
    waiting);
    ``shard_size`` units a shard file (default 250,000 hands or 25,000 matches; the run's
    own when resuming). A directory that already holds a run is an error unless
    ``resume`` (which finishes an interrupted run and returns a finished one as it is) or
    ``overwrite`` (which replaces it). ``progress(units, rows)`` is told of the units
    as they are computed, within shards, on either executor (several times a second on
    long runs; a ``matches`` run's rows as each shard finishes); the counts add up to
    the run's.

    Raises InputError (bad counts, seed, workers, settings that exclude each other, a
    bad ``label``),
    RulesError, PolicyError, SimulationError (a directory that holds another run, a
    resume that does not match, a cluster out of reach), FileError.
    """
    from scopa_sim.data.run import SimConfig, check_label, mode_and_count
    from scopa_sim.sim.executors import dask_executor, local_executor
    from scopa_sim.sim.simulate import simulate as simulate_run

    mode, count = mode_and_count(hands, matches)
    r = resolve_rules(preset, rules, overrides)
    seed = whole("the seed", seed, 0)
    n_workers = whole("the number of workers", workers, 1) if workers is not None else None
    if executor not in ("local", "dask"):
        raise InputError(f"unknown executor {executor!r}; choose from: local, dask")
    if scheduler and executor != "dask":
        raise InputError("a scheduler address needs the dask executor")
    if worker_timeout is not None and not worker_timeout > 0:
        raise InputError(
            f"the worker timeout must be a number of seconds > 0 (or inf), not {worker_timeout}"
        )
    if resume and overwrite:
        raise InputError("resuming a run and overwriting it exclude each other")
    if deal != "plain" and mode != "hands":
        raise InputError("swapped deals are for runs of hands only, not of matches")
    if label is not None:
        check_label(label)
    keep = None
    if out is None:
        keep = tempfile.TemporaryDirectory(prefix="scopa-sim-run-")
        directory = Path(keep.name) / preset
    else:
        directory = run_path(out)
    if resume and shard_size is None:
        shard_size = _run_shard_size(directory)
    elif shard_size is not None:
        shard_size = whole("the shard size", shard_size, 1)
    try:
        config = SimConfig.make(
            preset, r, policy_texts(policy), mode, count, seed, shard_size, deal=deal
        )
    except SimulationError as e:
        raise InputError(str(e)) from None
    n = n_workers or os.cpu_count() or 1
    if executor == "dask":
        timeout = {} if worker_timeout is None else {"worker_timeout": worker_timeout}
        run_exec = dask_executor(scheduler, n, notify=notify, **timeout)
    else:
        run_exec = local_executor(n)
    simulate_run(directory, config, run_exec, resume=resume, overwrite=overwrite, progress=progress)
    from scopa_sim.data.run import open_run as open_data_run

    return dataclasses.replace(open_data_run(directory), keep=keep, name=label)


def _run_shard_size(directory: Path) -> int | None:
    """The shard size of the run to resume in ``directory`` (None if there is no readable
    one; resuming then says what is wrong)."""
    from scopa_sim.data import dataset as D

    try:
        size = D.read_manifest(directory).get("config", {}).get("shard_size")
    except (ScopaError, AttributeError):
        return None
    return size if type(size) is int and size >= 1 else None


__all__ = ["as_run", "hands_with_deals", "open_run", "simulate"]
