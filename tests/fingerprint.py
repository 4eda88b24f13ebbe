"""Fingerprints of the project's outputs, to show that a refactor changes none of them.

Runs a fixed list of ``scopa-sim`` commands through the installed command line (so the
script reads the same before and after a move of the package's modules) and reduces each
output to a SHA-256 digest:

* ``play --record``: the record file's bytes;
* ``simulate``: the run id, the manifest's configuration and every shard's rows (read
  with polars and written as CSV, so that Parquet's writer metadata does not count);
* ``tournament --json``: the figures, without the timing fields;
* ``study --scale small`` (``--study``, about 4 minutes): the ``results.json``, without
  the fields that name versions, times or paths.

Usage::

    python tests/fingerprint.py --out fingerprints.json          # write
    python tests/fingerprint.py --check tests/fingerprints.json  # compare, exit 1 on change
    python tests/fingerprint.py --check tests/fingerprints.json --only play-scopa

``tests/fingerprints.json`` holds the values taken at the commit before the re-layout
(0.3.0, 5ca6bf3), but ``study-small``'s, taken again in 0.5.0 when the study's
``results.json`` gained Holm-adjusted p-values and the luck share its threshold (issue
43), after the refactor of 0.5.0 had been checked to keep it (39 of 39 unchanged), and
again when ``learned`` joined the study's parts A and B (issue 41: 61 rows added, every
earlier row byte for byte as it was), and when it played every kernel preset (142 rows
added; the other policies' 19,852 rows byte for byte as they were, ``learned``'s own
earlier rows with the same values and only their Holm family, now of 11 tests, grown),
and when the ``scopa`` weights became the file their recorded commands make (0.5.0: 82
of the 25,565 rows changed, every one a ``learned`` row or a comparison with one: those
of the rule sets that play ``scopa``'s weights or are measured against them, and the
Holm-adjusted p of their families; every other row byte for byte as it was). The
Cirulla cases (``play-cirulla``, ``simulate-*-cirulla*``) were taken at 7ff1b03, before
the speed-up of Cirulla's loop (issue 42).
``tests/project/test_fingerprint.py`` checks a quick subset of them on every test run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

PRESETS = [
    "scopa",
    "scopa-3",
    "scopa-4",
    "scopa-4-solo",
    "asso-piglia-tutto",
    "scopa-36",
    "scopa-corsa",
    "scopone",
    "scopone-scientifico",
    "scopa-15",
    "escoba",
]
#: Keys dropped (at any depth) before hashing JSON: versions, clocks, paths and speeds.
VOLATILE = {
    "versions",
    "version",
    "scopa-sim",
    "created",
    "finished",
    "started",
    "elapsed",
    "elapsed_s",
    "seconds",
    "wall_s",
    "cpu_s",
    "time_s",
    "ms_per_move",
    "hands_per_s",
    "rate",
    "out",
    "path",
    "paths",
    "command",
    "commands",
    "reproduce",
}


def _cli() -> list[str]:
    exe = Path(sys.executable).with_name("scopa-sim")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "scopa_sim_cli.main"]


def _run(args: list[str], cwd: Path) -> str:
    done = subprocess.run(
        [*_cli(), *args], cwd=cwd, capture_output=True, text=True, env=os.environ.copy()
    )
    if done.returncode != 0:
        raise SystemExit(f"scopa-sim {' '.join(args)} failed: {done.stderr.strip()[-400:]}")
    return done.stdout


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _json_digest(value: Any) -> str:
    return _sha(json.dumps(_strip(value), sort_keys=True).encode())


def play(preset: str, policies: list[str], matches: int = 2, seed: int = 7) -> Callable:
    def run(tmp: Path) -> dict[str, Any]:
        args = ["play", "--preset", preset, "--matches", str(matches), "--seed", str(seed)]
        for p in policies:
            args += ["--policy", p]
        _run([*args, "--record", "games.jsonl"], tmp)
        return {"record": _sha((tmp / "games.jsonl").read_bytes())}

    return run


def simulate(preset: str, policy: str, extra: list[str]) -> Callable:
    def run(tmp: Path) -> dict[str, Any]:
        import polars as pl

        out = tmp / "run"
        _run(
            ["simulate", "--preset", preset, "--policy", policy, *extra, "-q", "--out", str(out)],
            tmp,
        )
        manifest = json.loads((out / "manifest.json").read_text())
        shards = {
            f.name: _sha(pl.read_parquet(f).write_csv().encode())
            for f in sorted((out / "shards").glob("*.parquet"))
        }
        return {
            "run_id": manifest["run_id"],
            "config": _json_digest(manifest["config"]),
            "shards": shards,
        }

    return run


def tournament(preset: str, policies: list[str], deals: int, seed: int) -> Callable:
    def run(tmp: Path) -> dict[str, Any]:
        args = ["tournament", "--preset", preset, "--deals", str(deals), "--seed", str(seed)]
        for p in policies:
            args += ["--policy", p]
        doc = json.loads(_run([*args, "--json", "-q"], tmp))
        # the standings (issue 29) were added after these values were taken: they are read
        # from the same figures, which must not change
        doc.pop("standings", None)
        # re-taken when the Elo ladder stopped using LAPACK (its last bits followed the
        # BLAS kernel the processor picked): every other field byte for byte as before
        # and the Elo within 6e-16 relative of the 0.3.0 values on the machine they
        # were taken on (OPENBLAS_CORETYPE=SkylakeX reproduces them)
        return {"figures": _json_digest(doc)}

    return run


def study(tmp: Path) -> dict[str, Any]:
    out = tmp / "study-small"
    _run(["study", "--scale", "small", "--seed", "0", "--out", str(out)], tmp)
    rows = json.loads((out / "results.json").read_text())
    # parts D (issue 27) and E (issue 42) were added after these values were taken: parts
    # A-C must not change
    rows = [r for r in rows if r.get("part") not in ("D", "E")]
    return {"results": _json_digest(rows)}


def cases(with_study: bool) -> dict[str, Callable]:
    table: dict[str, Callable] = {}
    for p in PRESETS:
        two = p in {"scopa", "asso-piglia-tutto", "scopa-36", "scopa-corsa", "scopa-15", "escoba"}
        pol = ["greedy", "random"] if two else ["expert"]
        table[f"play-{p}"] = play(p, pol)
        table[f"simulate-hands-{p}"] = simulate(
            p, "expert", ["--hands", "1500", "--shard-size", "600", "--seed", "11"]
        )
    table["play-scopa-search"] = play("scopa", ["ismcts:iterations=40", "pimc:worlds=4"], 1, 3)
    table["play-scopa-eval"] = play("scopa", ["eval:worlds=4", "expert"], 1, 5)
    for p in ["scopa", "scopa-4", "escoba", "scopone-scientifico"]:
        table[f"simulate-matches-{p}"] = simulate(
            p, "expert", ["--matches", "8", "--shard-size", "3", "--seed", "12"]
        )
    for p in ["scopa", "escoba", "scopa-3"]:
        table[f"simulate-swapped-{p}"] = simulate(
            p, "expert", ["--hands", "1200", "--deal", "swapped", "--seed", "11"]
        )
    for pol in ["random", "greedy"]:
        table[f"simulate-{pol}-scopa"] = simulate(
            "scopa", pol, ["--hands", "5000", "--shard-size", "2000", "--seed", "13"]
        )
    table["simulate-ismcts-scopa"] = simulate(
        "scopa", "ismcts:iterations=30,horizon=4", ["--hands", "24", "--shard-size", "10"]
    )
    table["simulate-pimc-scopa-4"] = simulate(
        "scopa-4", "pimc:worlds=4", ["--hands", "12", "--shard-size", "5"]
    )
    table["tournament-scopa"] = tournament("scopa", ["greedy", "random", "expert"], 120, 3)
    table["tournament-scopa-search"] = tournament(
        "scopa", ["ismcts:iterations=30", "expert"], 12, 4
    )
    table["tournament-scopone"] = tournament("scopone", ["greedy", "expert"], 60, 5)
    # Cirulla (RULES.md §10; taken at 7ff1b03, before the loop's speed-up of issue 42):
    # the preset's own loop (random and expert seats) and the general one
    table["play-cirulla"] = play("cirulla", ["expert", "random"])
    for p in ["cirulla", "cirulla-3", "cirulla-4"]:
        for pol in ["random", "expert"]:
            table[f"simulate-{pol}-{p}"] = simulate(
                p, pol, ["--hands", "3000", "--shard-size", "1200", "--seed", "14"]
            )
    table["simulate-matches-cirulla"] = simulate(
        "cirulla", "random", ["--matches", "20", "--shard-size", "8", "--seed", "15"]
    )
    if with_study:
        table["study-small"] = study
    return table


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="write the fingerprints here")
    ap.add_argument("--check", type=Path, help="compare with the fingerprints in this file")
    ap.add_argument("--only", action="append", default=[], help="a case's name (repeatable)")
    ap.add_argument("--study", action="store_true", help="also run the small study (~4 min)")
    ns = ap.parse_args()
    table = cases(ns.study or "study-small" in ns.only)
    names = ns.only or list(table)
    unknown = [n for n in names if n not in table]
    if unknown:
        ap.error(f"unknown case(s): {', '.join(unknown)}; known: {', '.join(table)}")
    got: dict[str, Any] = {}
    for name in names:
        with tempfile.TemporaryDirectory() as tmp:
            got[name] = table[name](Path(tmp))
        print(f"{name}: {_sha(json.dumps(got[name], sort_keys=True).encode())[:16]}", flush=True)
        if ns.out:  # after each case, so that an interrupted run keeps what it made
            old = json.loads(ns.out.read_text()) if ns.out.exists() else {}
            ns.out.write_text(json.dumps({**old, name: got[name]}, indent=1, sort_keys=True) + "\n")
    if ns.check:
        want = json.loads(ns.check.read_text())
        bad = [n for n in names if want.get(n) != got[n]]
        for n in bad:
            print(f"CHANGED {n}: {want.get(n)} -> {got[n]}")
        print(f"{len(names) - len(bad)} of {len(names)} fingerprints unchanged")
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
