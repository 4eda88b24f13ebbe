"""The study's runs: simulate every run of a plan that is not finished yet, then write the
reports (:mod:`scopa_sim.analysis.study.parts_a_to_c`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from scopa_sim.analysis.study.part_d import write_part_d
from scopa_sim.analysis.study.part_e import write_part_e
from scopa_sim.analysis.study.parts_a_to_c import write_study
from scopa_sim.analysis.study.plan import SCALES, Plan, StudyRun, part_d_runs, plan
from scopa_sim.sim.executors import local_executor
from scopa_sim.sim.simulate import simulate


def run_dir(runs_dir: Path, run: StudyRun) -> Path:
    return runs_dir / run.name


def run_state(d: Path, run_id: str) -> tuple[bool, bool]:
    """Whether the run directory ``d`` holds the run ``run_id`` (the same configuration,
    seed and generator), and whether it holds it finished."""
    manifest = d / "manifest.json"
    doc = json.loads(manifest.read_text()) if manifest.is_file() else {}
    same = doc.get("run_id") == run_id
    return same, same and bool(doc.get("complete"))


#: A study's progress: called at each run it simulates with what it is, how many units
#: and which (hands or matches); returns the run's ``progress(units, rows)`` callback of
#: :func:`scopa_sim.sim.simulate.simulate`, or None.
OnRun = Callable[[str, int, str], Callable[[int, int], None] | None]


def ensure_runs(
    p: Plan,
    runs_dir: Path,
    seed: int,
    workers: int,
    say: Callable[[str], None] = print,
    on_run: OnRun | None = None,
) -> dict[str, Path]:
    """Simulate every run of the plan that is not finished yet (resuming a run of the same
    configuration, seed and generator; starting again a run of another one); ``on_run``
    follows the progress of each."""
    out = {}
    for i, run in enumerate(p.runs, start=1):
        config = run.config(seed)
        d = run_dir(runs_dir, run)
        same, finished = run_state(d, config.run_id)
        if not finished:
            resume = same
            deal = "" if run.deal == "plain" else f", {run.deal} deals"
            say(f"[{i}/{len(p.runs)}] {run.name}: {run.count:,} {run.mode}, {run.policy}{deal}")
            progress = (
                on_run(f"[{i}/{len(p.runs)}] {run.name}", run.count, run.mode) if on_run else None
            )
            simulate(
                d,
                config,
                local_executor(workers),
                resume=resume,
                overwrite=not resume,
                progress=progress,
            )
        out[run.name] = d
    return out


def run_study(
    out: Path,
    runs_dir: Path,
    scale_name: str,
    seed: int,
    workers: int,
    say: Callable[[str], None] = print,
    on_run: OnRun | None = None,
) -> list[Path]:
    """Simulate every run (resuming finished ones; ``on_run`` follows the progress of
    each), then write the reports and ``results.json``; return the files written: parts
    A-C's reports, part D's, part E's, the README and results.json."""
    scale = SCALES[scale_name]
    p = plan(scale)
    dirs = ensure_runs(p, runs_dir, seed, workers, say, on_run)
    files = write_study(p, dirs, out, scale_name, scale, seed, say)
    d_md = write_part_d(p, dirs, out, scale_name, scale, seed, say)[0]
    e_md = write_part_e(p, dirs, out, scale_name, scale, seed, say)[0]
    return [*files[:-2], d_md, e_md, *files[-2:]]


def run_part_d(
    out: Path,
    runs_dir: Path,
    scale_name: str,
    seed: int,
    workers: int,
    say: Callable[[str], None] = print,
    on_run: OnRun | None = None,
) -> list[Path]:
    """Part D alone: simulate the runs it needs that are not finished (its own, and part
    A's plain runs under the kernel policies), read part A's runs under search where they
    are finished, then write part D's report and add its rows to ``out/results.json`` and
    its section to ``out/README.md`` without touching parts A-C's."""
    scale = SCALES[scale_name]
    p = plan(scale)
    need = part_d_runs(p)
    dirs = ensure_runs(Plan(need, ()), runs_dir, seed, workers, say, on_run)
    for r in p.runs:  # part A's search runs: read if finished with this configuration
        d = run_dir(runs_dir, r)
        wanted = r.part == "A" and r.deal == "plain" and not r.rules and r.name not in dirs
        if wanted and run_state(d, r.config(seed).run_id)[1]:
            dirs[r.name] = d
    return write_part_d(p, dirs, out, scale_name, scale, seed, say)
