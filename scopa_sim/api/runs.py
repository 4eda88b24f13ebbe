"""Runs in a notebook: :func:`simulate` a run (the ``simulate`` command) and
:func:`open_run` a finished one, each a :class:`Run` whose hands are a polars frame.

Thin wrappers over what the command line calls (:class:`~scopa_sim.data.run.SimConfig`,
:func:`scopa_sim.sim.simulate.simulate`, :func:`scopa_sim.analysis.analyze.open_run`),
with the command's names and defaults, so a run made here is the run the command makes
with the same options, byte for byte (the same run id).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scopa_sim.api.display import (
    box,
    esc,
    make_rules,
    one_line_errors,
    policy_texts,
    run_path,
    table,
    whole,
)
from scopa_sim.errors import SimulationError

if TYPE_CHECKING:
    import polars as pl

    from scopa_sim.analysis.analyze import Run as LibraryRun
    from scopa_sim.data.run import SimConfig


@dataclass(frozen=True, repr=False)
class Run:
    """A complete run directory, checked (manifest, configuration, every shard).

    ``path`` is its directory and ``manifest`` its ``manifest.json``; :meth:`hands` reads
    its rows lazily with the pinned schema, :meth:`by_role` as a tidy frame by role. A run
    that :func:`simulate` made in a temporary directory (no ``out``) lives as long as this
    object: keep it while you use its frames, or give ``out`` to keep the data.
    """

    path: Path
    manifest: Mapping[str, Any] = field(compare=False)
    _run: LibraryRun = field(compare=False)
    _keep: tempfile.TemporaryDirectory[str] | None = field(default=None, compare=False)

    @property
    def config(self) -> SimConfig:
        """The run's configuration (preset, rules, policies, mode, count, seed)."""
        return self._run.config

    @property
    def run_id(self) -> str:
        return self._run.run_id

    @property
    def rows(self) -> int:
        """Hands in the run (one row each)."""
        return self._run.rows

    def hands(self, deal: bool = False) -> pl.LazyFrame:
        """The run's hands, one row each, lazily, with the pinned schema (docs/record.md):
        the stored columns only (the analysis adds derived ones, such as each side's
        four-sevens point, to its own scan).

        With ``deal=True``, also each hand's deal, dealt again from the run's streams (no
        storage: about 5 million hands a second): ``table`` and ``seat{s}_deal{r}`` (seat
        ``s``'s cards of deal ``r``, from 1) as 40-bit masks (bit ``c`` for card ``c``),
        each with its ``..._cards`` (card names, ``7D``): :mod:`scopa_sim.sim.deals`."""
        from scopa_sim.data.dataset import schema

        lf = self._run.scan().select(list(schema()))
        if not deal:
            return lf
        from scopa_sim.sim.deals import deal_columns_expr

        return lf.with_columns(deal_columns_expr(self.config)).unnest("deal")

    def by_role(self) -> pl.LazyFrame:
        """The run's hands as a tidy frame by role (the dealer's side, the first player's
        side, each seat), without the always-null columns: :func:`scopa_sim.data.roles.by_role`."""
        from scopa_sim.data.roles import by_role

        return by_role(self.hands(), self.config)

    def command(self) -> str:
        """The ``scopa-sim simulate`` command that reproduces this run's data."""
        return self._run.command()

    def __repr__(self) -> str:
        c = self.config
        pols = ",".join(dict.fromkeys(c.policies))
        rows = f", {self.rows:,} hands" if c.mode == "matches" else ""
        return (
            f"Run({str(self.path)!r}: {c.preset}, policy {pols}, {c.count:,} {c.mode}{rows}, "
            f"seed {c.seed}, run id {self.run_id})"
        )

    def _repr_html_(self) -> str:
        c = self.config
        rows = [
            ["directory", esc(self.path)],
            ["preset", esc(c.preset)],
            ["rule options", esc(" ".join(self._run.rule_overrides()) or "as the preset")],
            ["policies", esc(", ".join(c.policies))],
            [c.mode, f"{c.count:,}"],
            ["hands", f"{self.rows:,}"],
            ["seed", str(c.seed)],
            ["run id", esc(self.run_id)],
        ]
        return box("scopa-sim run", table(["", ""], rows))


def _wrap(run: LibraryRun, keep: tempfile.TemporaryDirectory[str] | None = None) -> Run:
    return Run(run.directory, run.manifest, run, keep)


@one_line_errors
def open_run(path: str | os.PathLike[str]) -> Run:
    """A finished run directory (as ``simulate`` writes it), checked without reading its
    rows; a DatasetError naming the file if it is missing, unreadable, incomplete or not
    a run of this format."""
    from scopa_sim.analysis.analyze import open_run as library_open_run

    return _wrap(library_open_run(run_path(path)))


def as_library_run(run: Run | str | os.PathLike[str]) -> LibraryRun:
    """The analyses' run of ``run`` (a :class:`Run`, or a directory to open)."""
    return run._run if isinstance(run, Run) else open_run(run)._run


@one_line_errors
def simulate(
    preset: str = "scopa",
    *,
    hands: int | None = None,
    matches: int | None = None,
    policy: str | Iterable[str] = "random",
    rules: Mapping[str, Any] | None = None,
    seed: int = 0,
    deal: str = "plain",
    out: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    executor: str = "local",
    scheduler: str | None = None,
    resume: bool = False,
    overwrite: bool = False,
) -> Run:
    """Simulate ``hands`` independent hands or ``matches`` complete matches, as
    ``scopa-sim simulate`` does, and return the run.

    ``policy`` is one policy text for every seat or one per seat (``"expert"``,
    ``["expert", "greedy"]``, ``"ismcts:iterations=1000"``); ``rules`` overrides options of
    the preset (``{"target": 21}``); ``out`` is the run directory (default: a temporary
    one, removed with the returned :class:`Run`); ``workers`` the cores (default: all);
    ``executor`` ``"local"`` or ``"dask"`` (``scheduler``: a Dask scheduler's address, else
    a local cluster). A finished run already in ``out`` with the same configuration is
    returned as it is; ``resume`` finishes an interrupted one, ``overwrite`` replaces one.
    """
    from scopa_sim.data.run import SimConfig, mode_and_count
    from scopa_sim.sim.executors import dask_executor, local_executor
    from scopa_sim.sim.simulate import simulate as library_simulate

    mode, count = mode_and_count(hands, matches)
    r = make_rules(preset, rules)
    seed = whole("--seed", seed, 0)
    n_workers = whole("--workers", workers, 1) if workers is not None else os.cpu_count() or 1
    if executor not in ("local", "dask"):
        raise SimulationError(f"unknown executor {executor!r}; choose from: local, dask")
    if scheduler and executor != "dask":
        raise SimulationError("--scheduler needs --executor dask")
    if resume and overwrite:
        raise SimulationError("--resume and --overwrite exclude each other")
    config = SimConfig.make(preset, r, policy_texts(policy), mode, count, seed, deal=deal)
    keep = None
    if out is None:
        keep = tempfile.TemporaryDirectory(prefix="scopa-sim-run-")
        directory = Path(keep.name) / preset
    else:
        directory = run_path(out)
    if executor == "dask":
        run_exec = dask_executor(scheduler, n_workers)
    else:
        run_exec = local_executor(n_workers)
    library_simulate(directory, config, run_exec, resume=resume, overwrite=overwrite)
    from scopa_sim.analysis.analyze import open_run as library_open_run

    return _wrap(library_open_run(directory), keep)


__all__ = ["Run", "open_run", "simulate"]
