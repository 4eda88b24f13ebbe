"""End-to-end `scopa-sim simulate` throughput, parallel efficiency and peak memory.

    python benchmarks/bench_simulate.py [--hands 10000000] [--json FILE]

Runs the real command in a subprocess (2-player scopa, random policy, Parquet out)
with 1 and 2 workers, samples the resident memory of the whole process tree, and
prints a table: throughput over the command's wall time (interpreter start-up and
kernel loading included) and over the run's own time (from the manifest), and
complete matches (``--matches``, hands/s) with 2 workers. Targets (issue 3): >= 1.5M
hands/s end to end on 2 cores, parallel efficiency >= 85 %, peak memory < 1 GiB for 10M
hands. Measured, never asserted.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import click

PAGE = os.sysconf("SC_PAGE_SIZE")


def _pss(pid: int, fallback: int) -> int:
    """Proportional set size of a process: shared pages split among their users, so the
    sum over a process tree is its real footprint (RSS would count shared pages again)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return fallback


def _tree_rss(root: int) -> int:
    """Memory (PSS) of a process and all its descendants (from /proc)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid, ppid = int(entry), int(fields[1])
        children.setdefault(ppid, []).append(pid)
        rss[pid] = _pss(pid, int(fields[21]) * PAGE)
    total, todo = 0, [root]
    while todo:
        p = todo.pop()
        total += rss.get(p, 0)
        todo.extend(children.get(p, []))
    return total


def run(hands: int, workers: int, out: Path, mode: str = "hands") -> dict[str, float]:
    """One ``simulate`` command: wall time (start-up included) and the run's own time."""
    exe = shutil.which("scopa-sim") or str(Path(sys.executable).parent / "scopa-sim")
    cmd = [exe, "simulate", f"--{mode}", str(hands), "--seed", "1", "--out", str(out)]
    cmd += ["--workers", str(workers), "--quiet", "--overwrite"]
    peak = 0
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.is_set():
            peak = max(peak, _tree_rss(proc.pid))
            time.sleep(0.1)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    _, err = proc.communicate()
    elapsed = time.perf_counter() - t0
    stop.set()
    th.join()
    if proc.returncode:
        raise SystemExit(f"simulate failed: {err.decode()}")
    manifest = json.loads((out / "manifest.json").read_text())
    run_s = manifest["timings"][-1]["seconds"]
    rows = manifest["rows"]
    return {
        "seconds": elapsed,
        "hands_per_s": rows / elapsed,
        "run_hands_per_s": rows / run_s,
        "peak_rss_mib": peak / 2**20,
    }


@click.command()
@click.option("--hands", default=10_000_000, show_default=True, help="Hands per run.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False), help="Write results here.")
def main(hands: int, json_path: str | None) -> None:
    """Print the end-to-end simulation benchmark table."""
    with tempfile.TemporaryDirectory() as tmp:
        warm = Path(tmp) / "warm"
        run(10_000, 1, warm)  # compile / load the kernels' cache first
        run(1_000, 1, warm, "matches")
        one = run(hands, 1, Path(tmp) / "one")
        two = run(hands, 2, Path(tmp) / "two")
        matches = run(max(1, hands // 20), 2, Path(tmp) / "matches", "matches")
    efficiency = two["hands_per_s"] / (2 * one["hands_per_s"])
    run_efficiency = two["run_hands_per_s"] / (2 * one["run_hands_per_s"])
    rows = [
        ("simulate, 1 worker (wall, start-up included)", one["hands_per_s"], "hands/s"),
        ("simulate, 2 workers (wall, start-up included)", two["hands_per_s"], "hands/s"),
        ("parallel efficiency, wall (2 vs 1)", 100 * efficiency, "%"),
        ("simulate, 1 worker (the run's own time)", one["run_hands_per_s"], "hands/s"),
        ("simulate, 2 workers (the run's own time)", two["run_hands_per_s"], "hands/s"),
        ("parallel efficiency, run time (2 vs 1)", 100 * run_efficiency, "%"),
        ("wall time, 2 workers", two["seconds"], "s"),
        ("simulate --matches, 2 workers (wall)", matches["hands_per_s"], "hands/s"),
        ("peak memory (PSS, process tree), 1 worker", one["peak_rss_mib"], "MiB"),
        ("peak memory (PSS, process tree), 2 workers", two["peak_rss_mib"], "MiB"),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"2-player scopa, random policy, {hands:,} hands to Parquet, {os.cpu_count()} cores")
    for name, value, unit in rows:
        print(f"{name:<{width}}  {value:>14,.1f}  {unit}")
    if json_path:
        doc = {
            "hands": hands,
            "results": [{"measure": n, "value": v, "unit": u} for n, v, u in rows],
        }
        Path(json_path).write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
