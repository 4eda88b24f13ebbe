"""Paired A/B timing of two git revisions through the public API, in fresh processes.

    python benchmarks/bench_ab.py [--base REV] [--head REV] [--pairs N] [--case NAME ...]
                                  [--scale X] [--json PATH]

Each revision's ``scopa_sim/`` is exported with ``git archive`` into a temporary
directory (``--head`` defaults to the work tree itself), and every case runs as a fresh
``python -c`` child with ``PYTHONPATH`` on that tree (the child prints
``scopa_sim.__file__``, checked to lie in it).  The child makes one small warm-up call
(numba compiles, or loads its cache in the tree), then the measured call, and reports
both's wall and CPU time and a digest of the measured call's results (the run id and the
rows of its shards, or the plays' values).  Pair ``i`` runs A then B when ``i`` is even,
B then A when odd (ABBA order cancels drift), both with seed ``i``.  A rate is work per
CPU second of the measured call; the table gives each side's median rate and the median
of the pairs' ratios B/A (above 1: B is faster) with its quartiles, the same for wall
time, and whether both sides gave the same results.  The children's whole CPU (start-up
and warm-up included, from ``getrusage``) and the load average go to the JSON.  The child
calls only ``scopa_sim.simulate`` and ``scopa_sim.advise`` with arguments that 0.4.0 took
too, so a release can be timed against the last one.  ``--scale`` multiplies every
case's work (the tests run tiny ones).  Ctrl-C or SIGTERM end the child and remove the
exported trees; bad input is a one-line error with exit status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from scopa_sim.api import interrupts as P

ROOT = Path(__file__).resolve().parent.parent
_UNSEEN = {"AH", "6S", "QD"}  # the other seat's hand in the solver's endgame
_PILES = sorted(
    {r + s for r in "A234567JQK" for s in "DHCS"} - {"7D", "3S", "KC", "5C", "2H"} - _UNSEEN
)
_ENDGAME = {"hand": "7D 3S KC", "table": "5C 2H"}
_ENDGAME |= {"mine": " ".join(_PILES[::2]), "theirs": " ".join(_PILES[1::2])}
_OPENING = {"hand": "7D 3S KC", "table": "5C 2H 4S AD"}

#: name -> (call, size of the measured call, unit, arguments); advise calls are counted
#: in positions (``size`` calls with seeds ``seed * 1000 + k``).
CASES: dict[str, tuple[str, int, str, dict[str, Any]]] = {
    "random": ("simulate", 2_000_000, "hands/s", {"policy": "random"}),
    "greedy": ("simulate", 500_000, "hands/s", {"policy": "greedy"}),
    # as the command line runs it: progress reported within the shards (blocks of hands)
    "random-progress": ("simulate", 2_000_000, "hands/s", {"policy": "random", "progress": 1}),
    "expert": ("simulate", 20_000, "hands/s", {"policy": "expert"}),
    "ismcts": ("advise", 100, "positions/s", {"policy": "ismcts:iterations=4000", **_OPENING}),
    "solver": ("advise", 1000, "positions/s", {"policy": "solver", **_ENDGAME}),
}

CHILD = """
import hashlib, json, resource, sys, time
from pathlib import Path
import polars as pl
import scopa_sim
call, size, args, seed, tmp = json.loads(sys.argv[1])
if args.pop("progress", None):
    args["progress"] = lambda units, rows: None
def cpu():
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime
def run(n, tmp):
    h = hashlib.sha256()
    if call == "simulate":
        r = scopa_sim.simulate("scopa", hands=n, seed=seed, out=tmp, workers=1, **args)
        for f in sorted(Path(tmp).rglob("*.parquet")):  # the rows, not the files' metadata
            rows = pl.read_parquet(f)
            h.update(str(rows.schema).encode() + rows.hash_rows(seed=1).to_numpy().tobytes())
        return r.run_id + ":" + h.hexdigest()[:16]
    for k in range(n):
        a = scopa_sim.advise(**args, seed=seed * 1000 + k)
        rows = [(p.play, p.mean, p.margin.low, p.margin.high, p.n) for p in a.plays]
        h.update(repr(rows).encode())
    return h.hexdigest()[:16]
out = {"file": scopa_sim.__file__, "version": scopa_sim.__version__}
for key, n in (("warm", max(1, size // 100)), ("run", size)):
    w, c = time.perf_counter(), cpu()
    out["digest"] = run(n, f"{tmp}/{key}")
    out[key + "_wall"], out[key + "_cpu"] = time.perf_counter() - w, cpu() - c
print(json.dumps(out))
"""


def _fail(message: str) -> None:
    """One line on stderr, exit status 2."""
    sys.stderr.write(f"bench_ab.py: {message}\n")
    raise SystemExit(2)


def _git(*args: str) -> str:
    proc = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
    if proc.returncode:
        _fail(f"git {args[0]}: {proc.stderr.strip() or 'failed'}")
    return proc.stdout.strip()


def export(rev: str, tmp: Path) -> tuple[Path, str]:
    """The tree holding revision ``rev``'s ``scopa_sim`` (in ``tmp``) and its commit."""
    sha = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    if not sha:
        _fail(f"--base/--head {rev!r}: not a revision of this repository")
    tree = tmp / sha[:12]
    if not tree.exists():
        tree.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", sha, "scopa_sim"], capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree, sha


def child(tree: Path, case: str, seed: int, scratch: Path) -> dict[str, Any]:
    """One fresh process running ``case`` on ``tree``'s package (its runs written in
    ``scratch``, emptied after): its report, with the process's own wall and CPU time
    (start-up and warm-up included)."""
    call, size, _, args = CASES[case]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    before, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    scratch.mkdir()  # also the child's directory: nothing there to import
    spec = json.dumps([call, size, args, seed, str(scratch)])
    cmd = [sys.executable, "-c", CHILD, spec]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=scratch, preexec_fn=P.dies_with_parent())  # fmt: skip
    try:
        out, err = proc.communicate()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        shutil.rmtree(scratch, ignore_errors=True)
    after, wall = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter() - t0
    if proc.returncode:
        raise SystemExit(f"bench_ab.py: {case} failed on {tree}: {err.decode().strip()[-500:]}")
    doc = json.loads(out.decode().strip().splitlines()[-1])
    if not Path(doc["file"]).resolve().is_relative_to(tree.resolve()):
        raise SystemExit(f"bench_ab.py: the child imported {doc['file']}, not the tree {tree}")
    doc["process_wall"] = wall
    doc["process_cpu"] = sum(
        getattr(after, f) - getattr(before, f) for f in ("ru_utime", "ru_stime")
    )
    doc["rate"] = size / doc["run_cpu"]
    return doc


def _summary(a: list[dict[str, Any]], b: list[dict[str, Any]], unit: str) -> dict[str, Any]:
    ratios = [y["rate"] / x["rate"] for x, y in zip(a, b, strict=True)]
    walls = [x["run_wall"] / y["run_wall"] for x, y in zip(a, b, strict=True)]
    q1, _, q3 = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
    return {
        "unit": unit,
        "pairs": len(ratios),
        "a_median": statistics.median(x["rate"] for x in a),
        "b_median": statistics.median(y["rate"] for y in b),
        "ratio_median": statistics.median(ratios),
        "ratio_q1": q1,
        "ratio_q3": q3,
        "wall_ratio_median": statistics.median(walls),
        "ratios": ratios,
        "same_results": all(x["digest"] == y["digest"] for x, y in zip(a, b, strict=True)),
        "a": a,
        "b": b,
    }


def table(results: dict[str, dict[str, Any]]) -> str:
    """The results as a Markdown table."""
    lines = ["| case | A median | B median | B/A median [q1, q3] | B/A wall | same results |",
             "|---|---:|---:|---|---:|---|"]  # fmt: skip
    for name, r in results.items():
        lines.append(
            f"| {name} ({r['unit']}) | {r['a_median']:,.0f} | {r['b_median']:,.0f} "
            f"| {r['ratio_median']:.3f} [{r['ratio_q1']:.3f}, {r['ratio_q3']:.3f}] "
            f"| {r['wall_ratio_median']:.3f} | {'yes' if r['same_results'] else 'NO'} |"
        )
    return "\n".join(lines)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        _fail(message)


def main(argv: list[str] | None = None) -> None:
    """Parse the options, time every case in pairs, print the table, write the JSON."""
    p = _Parser(description=__doc__.splitlines()[0])
    p.add_argument("--base", default="HEAD", help="revision A (default HEAD)")
    p.add_argument("--head", help="revision B (default: the work tree)")
    p.add_argument("--pairs", type=int, default=5, help="pairs of runs per case")
    p.add_argument("--case", action="append", choices=list(CASES), help="repeatable")
    p.add_argument("--scale", type=float, default=1.0, help="work per call, times this")
    p.add_argument("--json", dest="json_path", help="write the results here")
    opts = p.parse_args(argv)
    if opts.pairs < 1 or opts.scale <= 0:
        p.error("--pairs must be at least 1 and --scale above 0")
    for name in opts.case or []:  # sizes scaled before any run
        call, size, unit, args = CASES[name]
        CASES[name] = (call, max(1, round(size * opts.scale)), unit, args)
    try:  # SIGTERM as Ctrl-C: the children and the exported trees go in the finally blocks
        with P.interrupt_on_sigterm():  # noqa: SIM117 (the tests look for this line)
            with tempfile.TemporaryDirectory(prefix="bench-ab-") as tmp:
                tree_a, sha_a = export(opts.base, Path(tmp))
                if opts.head is None:
                    tree_b, sha_b = ROOT, "on " + _git("rev-parse", "HEAD")
                else:
                    tree_b, sha_b = export(opts.head, Path(tmp))
                load, results = [os.getloadavg()], {}
                for name in opts.case or list(CASES):
                    a, b = [], []
                    for i in range(opts.pairs):
                        for side in (0, 1) if i % 2 == 0 else (1, 0):
                            tree = (tree_a, tree_b)[side]
                            (a, b)[side].append(child(tree, name, i, Path(tmp, "runs")))
                    results[name] = _summary(a, b, CASES[name][2])
                load.append(os.getloadavg())
    except KeyboardInterrupt as e:
        sys.stderr.write("bench_ab.py: interrupted\n")
        raise SystemExit(143 if isinstance(e, P.Terminated) else 130) from None
    print(f"A = {opts.base} ({sha_a}), B = {opts.head or 'the work tree'} ({sha_b})")
    print(
        f"{opts.pairs} pairs, ABBA; rates per CPU second of the measured call; "
        f"load {load[0][0]:.1f} to {load[1][0]:.1f}"
    )
    print(table(results))
    if opts.json_path:
        doc = {"base": [opts.base, sha_a], "head": [opts.head, sha_b], "pairs": opts.pairs,
               "scale": opts.scale, "load": load, "results": results}  # fmt: skip
        Path(opts.json_path).write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
