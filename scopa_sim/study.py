"""The embedded study: first-player advantage across presets and policies, and the effect
of each rule option, simulated and written up as Markdown reports with figures.

``full`` is the committed study in ``reports/study``; ``small`` is the same design
with fewer hands, which ``make study`` runs on a fresh machine in a few minutes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .policy import seat_policies
from .report import write_report
from .rules import PRESETS, Rules
from .simulate import SimConfig, local_executor, simulate

#: The search policy of part B: plain ISMCTS, whose rewards are final hand margins in
#: every preset (``horizon=4,c=1`` is stronger in 2-player scopa, but its leaf values are
#: a heuristic tuned there only).
SEARCH_POLICY = "ismcts:iterations=1000"

#: Options toggled one at a time from the `scopa` preset in part C.
OPTION_EFFECTS: tuple[tuple[str, ...], ...] = (
    ("kings_redeal=false",),
    ("capture_rule=hand",),
    ("sum_capture=fewest",),
    ("remainder_to=dealer",),
    ("ace_sweep=true",),
    ("ace_sweep=true", "ace_sweep_scopa=false"),
    ("last_play_scopa=true",),
    ("primiera=sevens",),
    ("primiera_missing_suit=zero",),
    ("re_bello=true",),
    ("napola=true",),
    ("deck=36",),
    ("target=21",),
)


@dataclass(frozen=True)
class Scale:
    """Sample sizes of the three parts."""

    fast_hands: int  # per preset, random and greedy
    search_hands: int  # per preset, search policy
    effect_matches: int  # per option variant (greedy, matches to the target)


SCALES = {
    "full": Scale(fast_hands=1_000_000, search_hands=400, effect_matches=50_000),
    "small": Scale(fast_hands=40_000, search_hands=12, effect_matches=3_000),
}


@dataclass(frozen=True)
class StudyRun:
    """One simulation of the study."""

    part: str
    name: str
    preset: str
    rules: tuple[str, ...]
    policy: str
    mode: str
    count: int


def plan(scale: Scale, seed: int) -> list[StudyRun]:
    """Every run of the study, in order."""
    runs: list[StudyRun] = []
    for preset in PRESETS:
        for policy in ("random", "greedy"):
            runs.append(
                StudyRun("A", f"{preset}-{policy}", preset, (), policy, "hands", scale.fast_hands)
            )
    for preset in PRESETS:
        runs.append(
            StudyRun(
                "B", f"{preset}-ismcts", preset, (), SEARCH_POLICY, "hands", scale.search_hands
            )
        )
    runs.append(
        StudyRun("C", "scopa-baseline", "scopa", (), "greedy", "matches", scale.effect_matches)
    )
    for opts in OPTION_EFFECTS:
        name = "scopa+" + "+".join(o.replace("=", "-") for o in opts)
        runs.append(StudyRun("C", name, "scopa", opts, "greedy", "matches", scale.effect_matches))
    return runs


PART_TITLES = {
    "A": "first-player advantage in every preset, random and greedy play",
    "B": f"first-player advantage in every preset under {SEARCH_POLICY}",
    "C": "effect of each rule option (from `scopa`, greedy play, complete matches, paired deals)",
}


def run_study(
    out: Path,
    runs_dir: Path,
    scale_name: str,
    seed: int,
    workers: int,
    say: Callable[[str], None] = print,
) -> list[Path]:
    """Simulate every run (resuming finished ones) and write one report per part."""
    scale = SCALES[scale_name]
    todo = plan(scale, seed)
    dirs: dict[str, list[Path]] = {}
    for i, run in enumerate(todo, start=1):
        rules = Rules.make(run.preset, run.rules)
        config = SimConfig.make(
            run.preset,
            rules,
            seat_policies([run.policy], rules.players),
            run.mode,
            run.count,
            seed,
        )
        d = runs_dir / run.name
        manifest = d / "manifest.json"
        doc = json.loads(manifest.read_text()) if manifest.is_file() else {}
        same = doc.get("run_id") == config.run_id  # same configuration, seed and generator
        if not (same and doc.get("complete")):
            resume = same  # finish it; a run of another configuration is started again
            say(f"[{i}/{len(todo)}] {run.name}: {run.count:,} {run.mode}, {run.policy}")
            simulate(d, config, local_executor(workers), resume=resume, overwrite=not resume)
        dirs.setdefault(run.part, []).append(d)
    written = []
    for part, part_dirs in dirs.items():
        target = out / f"part-{part.lower()}"
        cmd = f"scopa-sim study --scale {scale_name} --seed {seed} --out {out}"
        files = write_report(part_dirs, target, cmd)
        _title(files.markdown, f"Part {part}: {PART_TITLES[part]}", scale_name, seed)
        written.append(files.markdown)
        say(f"wrote {files.markdown}")
    index = out / "README.md"
    lines = [
        f"# scopa-sim study ({scale_name} scale, seed {seed})",
        "",
        f"Reproduce: `scopa-sim study --scale {scale_name} --seed {seed} --out {out}`.",
        "",
    ]
    for part, md in zip(dirs, written, strict=True):
        lines.append(f"* [Part {part}: {PART_TITLES[part]}]({md.relative_to(out)})")
    index.write_text("\n".join(lines) + "\n", encoding="utf-8")
    written.append(index)
    return written


def _title(md: Path, title: str, scale: str, seed: int) -> None:
    text = md.read_text(encoding="utf-8")
    md.write_text(f"# {title}\n\n_Study scale `{scale}`, seed {seed}._\n\n{text}", encoding="utf-8")
