"""Reports and tables written to disk: :func:`report` (a Markdown report with figures on
runs, the ``report`` command), :func:`study` (the embedded study, the ``study`` command)
and :func:`equity` (a match-equity table, the ``equity`` command).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from scopa_sim.api.display import box, esc, table
from scopa_sim.api.inputs import one_line_errors, resolve_rules, run_path, whole
from scopa_sim.api.runs import as_run
from scopa_sim.errors import FileError, InputError, RulesError

if TYPE_CHECKING:
    from scopa_sim.analysis.run_report import ReportFiles
    from scopa_sim.bots.objective import EquityTable
    from scopa_sim.data.run import Run
    from scopa_sim.game.rules import Rules

RunLike: TypeAlias = "Run | str | os.PathLike[str]"

#: The scales of the study: ``small`` (a few minutes on 2 cores) and ``full`` (the study
#: committed in ``reports/study``).
STUDY_SCALES = ("small", "full")
#: What :func:`study` writes: every part (``all``), or part D alone (``D``).
STUDY_PARTS = ("all", "D")
#: The policies whose self-play an equity table is solved from.
EQUITY_POLICIES = ("random", "greedy", "expert")
#: The most self-play hands of an equity table (about an hour at 30,000 hands a second).
MAX_EQUITY_HANDS = 10**8


@one_line_errors
def report(
    run: RunLike, *more: RunLike, out: str | os.PathLike[str], command: str | None = None
) -> ReportFiles:
    """Write a Markdown report with PNG figures on the runs (and each compared with the
    first), as ``scopa-sim report`` does. ``out`` ending in ``.md`` is the report file, its
    figures next to it; otherwise a directory that receives ``report.md`` and the figures.
    ``command`` is the command line the report states (default: the ``scopa-sim report``
    command that writes it). Returns the files written (``markdown``, ``figures``).

    Raises DatasetError (a run directory that is missing or damaged), AnalysisError (the
    same run twice), FileError (the report cannot be written)."""
    from scopa_sim.analysis.run_report import write_report

    runs = [as_run(r) for r in (run, *more)]
    where = run_path(out)
    try:
        return write_report([r.directory for r in runs], where, command)
    except OSError as e:
        raise FileError(f"cannot write the report to {where}: {e.strerror}") from None


@one_line_errors
def study(
    scale: str = "small",
    *,
    seed: int = 0,
    out: str | os.PathLike[str] = "reports/study-small",
    runs_dir: str | os.PathLike[str] = "runs/study",
    part: str = "all",
    workers: int | None = None,
    say: Callable[[str], None] | None = None,
    on_run: Callable[[str, int, str], Callable[[int, int], None] | None] | None = None,
) -> list[Path]:
    """Run the embedded study (every preset, policies, rule options, what a deal is
    worth), as ``scopa-sim study`` does: simulate its runs into ``runs_dir/scale``
    (finished runs are reused, interrupted ones resumed), then write its Markdown reports,
    figures and ``results.json`` into ``out``. ``part`` ``"D"`` runs part D alone, adding
    its rows and section to those already in ``out``. ``say`` gets a line for each step;
    ``on_run(text, count, unit)`` is told of each simulation as it starts and may return
    its ``progress(units, rows)``. Returns the files written.

    Raises InputError (an unknown scale or part, a bad seed or number of workers),
    SimulationError, FileError."""
    from scopa_sim.analysis.study.runner import run_part_d, run_study

    if scale not in STUDY_SCALES:
        raise InputError(f"unknown scale {scale!r}; choose from: {', '.join(STUDY_SCALES)}")
    if part not in STUDY_PARTS:
        raise InputError(f"unknown part {part!r}; choose from: {', '.join(STUDY_PARTS)}")
    seed = whole("the seed", seed, 0)
    n = whole("the number of workers", workers, 1) if workers is not None else None
    write = run_part_d if part == "D" else run_study
    return write(
        run_path(out),
        run_path(runs_dir) / scale,
        scale,
        seed,
        n or os.cpu_count() or 1,
        say or (lambda line: None),
        on_run,
    )


@dataclass(frozen=True, repr=False)
class EquityTableFile:
    """A match-equity table written to ``path`` (the ``equity`` command): ``table`` the
    table itself, ``first_mover_wins`` the share of matches from 0-0 the side that plays
    first wins, by the table."""

    path: Path
    preset: str
    policy: str
    hands: int
    first_mover_wins: float
    table: EquityTable = field(repr=False, compare=False)

    def text(self) -> str:
        """What ``scopa-sim equity`` prints: a conclusion, then what was written."""
        from scopa_sim.analysis.conclusions import equity_conclusion

        r = self.table.rules
        return "\n".join(
            [
                equity_conclusion(self.first_mover_wins, r.target, self.policy, self.hands),
                f"wrote {self.path}: {r.target}-point match equity of {self.hands:,} "
                f"{self.policy} hands (rules {r.digest()}); the first mover wins "
                f"{self.first_mover_wins:.4f} of matches from 0-0",
            ]
        )

    def __repr__(self) -> str:
        """``EquityTableFile(scopa, expert, 200 hands: first mover wins 0.4930; eq.json)``."""
        return (f"EquityTableFile({self.preset}, {self.policy}, {self.hands:,} hands: first "
                f"mover wins {self.first_mover_wins:.4f}; {self.path})")  # fmt: skip

    def _repr_html_(self) -> str:
        """What was written, as a table."""
        rows = [["preset", esc(self.preset)], ["policy", esc(self.policy)],
                ["hands", f"{self.hands:,}"],
                ["first mover wins (from 0-0)", f"{self.first_mover_wins:.4f}"],
                ["file", esc(self.path)]]  # fmt: skip
        return box("scopa-sim match-equity table", table(["", ""], rows))


@one_line_errors
def equity(
    preset: str = "scopa",
    *,
    rules: Rules | None = None,
    overrides: Mapping[str, Any] | None = None,
    policy: str = "expert",
    hands: int = 100_000,
    seed: int = 0,
    out: str | os.PathLike[str],
    progress: Callable[[int], None] | None = None,
) -> EquityTableFile:
    """Solve the match-equity table of the rules (default: the preset's with
    ``overrides``) from ``hands`` self-play hands of ``policy`` and write it to ``out``
    (JSON), as ``scopa-sim equity`` does: P(win the match) from every score below the
    target, by who deals next, for search policies with ``objective=match,equity=PATH``.
    ``progress(hands)`` is called as hands are played.

    Raises InputError (an unknown policy, a number of hands outside 1..10^8, a bad seed),
    RulesError (unknown rules, or rules of more than two sides), FileError."""
    from scopa_sim.bots.objective import build_table

    r = resolve_rules(preset, rules, overrides)
    if r.sides != 2:
        raise RulesError(
            f"an equity table needs two sides (2 players, or 4 in teams), not {r.sides}"
        )
    if policy not in EQUITY_POLICIES:
        raise InputError(f"unknown policy {policy!r}; choose from: {', '.join(EQUITY_POLICIES)}")
    if type(hands) is not int or not 1 <= hands <= MAX_EQUITY_HANDS:
        raise InputError(f"the number of hands must be 1..{MAX_EQUITY_HANDS:,}, not {hands!r}")
    seed = whole("the seed", seed, 0)
    path = run_path(out)
    table = build_table(r, policy, hands, seed, progress)
    table.save(path)
    first = 1.0 - table.before((0, 0), 0)  # side 1 plays first when side 0 deals
    return EquityTableFile(path, preset, policy, hands, first, table)


__all__ = [
    "EQUITY_POLICIES",
    "MAX_EQUITY_HANDS",
    "STUDY_PARTS",
    "STUDY_SCALES",
    "EquityTableFile",
    "equity",
    "report",
    "study",
]
