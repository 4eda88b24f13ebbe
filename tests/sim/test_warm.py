"""``scopa-sim warm``: the tasks reach every big kernel, each loop compiles one signature,
and bad input is a one-line error."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from scopa_sim_cli.main import cli

from scopa_sim import _engine as K
from scopa_sim._engine import ismcts as KI
from scopa_sim._engine import pimc as KP
from scopa_sim._engine import solver as KSO
from scopa_sim.bots.search import ISMCTSBot
from scopa_sim.errors import WarmError
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import HandState
from scopa_sim.sim import warm as warm_module
from scopa_sim.sim.warm import TASKS, cached, select, warm

#: The loops that take longest to compile: each must be reached by a task, in one
#: signature only (a second one is a second compile of 30-45 s).
BIG = {
    "fused_hands": K.fused_hands,
    "fused_hands_2p": K.fused_hands_2p,
    "fused_hands15": K.fused_hands15,
    "fused_hands15_2p": K.fused_hands15_2p,
    "fused_hands_cirulla": K.fused_hands_cirulla,
    "fused_hands_cirulla_2p": K.fused_hands_cirulla_2p,
    "ismcts_run_scopa": KI._ismcts_run_scopa,
    "ismcts_run15": KI._ismcts_run15,
}


@pytest.mark.slow
def test_the_tasks_compile_every_big_loop_in_one_signature() -> None:
    names = [t.name for t, seconds in warm(jobs=1) if seconds >= 0]
    assert sorted(names) == sorted(TASKS)
    for name, kernel in BIG.items():
        assert len(kernel.signatures) == 1, (name, kernel.signatures)
    for kernel in (KP.pimc_values, KSO.solve_root, K.play_out):
        assert kernel.signatures


def test_ismcts_compiles_once_whatever_the_type_of_c() -> None:
    """``c=1`` (an int, as a policy text gives it) and ``c=0.7`` run the same compiled
    loop: the wrapper passes ``c`` as a float."""
    state = HandState.deal(Rules.make("scopa"), dealer=0, seed=3)
    for c in (1, 0.7, 2):
        ISMCTSBot(iterations=4, c=c).choose(state, 1)
    assert len(KI._ismcts_run_scopa.signatures) == 1


def test_fused_rows_refuses_a_strided_buffer() -> None:
    r = Rules.make("scopa").to_array()
    codes = np.zeros(4, dtype=np.int64)
    out = np.zeros((K.N_ROW_COLS, 8), dtype=np.int32)
    with pytest.raises(TypeError, match="C-contiguous"):
        K.fused_rows(r, codes, 0, False, 0, 4, out[:, :4])


def test_select_orders_by_cost_and_refuses_unknown_tasks() -> None:
    costs = [t.cost for t in select()]
    assert costs == sorted(costs, reverse=True) and len(costs) == len(TASKS)
    assert [t.name for t in select(["steps", "steps"])] == ["steps"]
    with pytest.raises(WarmError, match="unknown warm-up task 'x': one of ismcts"):
        select(["x"])
    with pytest.raises(WarmError, match="at least 1"):
        next(warm(jobs=0))


def test_warm_command(monkeypatch: pytest.MonkeyPatch) -> None:
    run = CliRunner().invoke
    res = run(cli, ["warm", "--list"])
    assert res.exit_code == 0 and [ln.split()[0] for ln in res.output.splitlines()] == list(TASKS)
    res = run(cli, ["warm", "--only", "steps", "--only", "fused-2p", "--jobs", "2"])
    assert res.exit_code == 0, res.output
    first, *tasks, last = res.stdout.splitlines()  # what it does, each task as it ends
    assert first.startswith("the kernels of 2 tasks are in numba's cache: loading them")
    assert "compiling" not in res.output
    assert sorted(t.split()[0] for t in tasks) == ["fused-2p", "steps"]
    assert last.endswith("with 1 process")  # cached: loaded here, no processes started
    monkeypatch.setattr(warm_module, "cached", lambda task: task.name == "fused-2p")
    res = run(cli, ["warm", "--only", "steps", "--only", "fused-2p", "--jobs", "2"])
    assert res.exit_code == 0, res.output
    first, last = res.stdout.splitlines()[0], res.stdout.splitlines()[-1]
    assert first.startswith("compiling 1 task of kernels (steps) in 2 processes, largest first")
    assert first.endswith("; 1 other task cached, loading")
    assert last.endswith("with 2 processes")  # --jobs as given
    for args, named in (
        (["--only", "bogus"], "unknown warm-up task 'bogus'"),
        (["--jobs", "0"], "--jobs"),
        (["--jobs", "x"], "--jobs"),
    ):
        res = run(cli, ["warm", *args])
        assert res.exit_code != 0 and named in res.output
        assert "Traceback" not in res.output
        assert res.output.strip().splitlines()[-1].startswith("Error:")


def test_cached_reads_numba_s_index(tmp_path: Path) -> None:
    """Every task is cached here (the tests' kernels are); with an empty cache none is, and
    ``warm`` says what it compiles, without compiling anything to find out."""
    assert all(cached(t) for t in TASKS.values())
    code = (
        "import scopa_sim; from scopa_sim_cli.warm_cmd import announcement; "
        "w = scopa_sim.warm(); print(len(w.cached)); print(announcement(w))"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    count, line = out.stdout.splitlines()
    assert count == "0" and line.startswith(f"compiling {len(TASKS)} tasks of kernels in ")
    assert not list(tmp_path.rglob("*.nbi"))  # nothing compiled


#: Commands run after ``warm``: none may load a kernel signature that warm did not.
AFTER_WARM = """
import importlib, pkgutil, sys
from click.testing import CliRunner
from scopa_sim_cli.main import cli
from scopa_sim.sim.warm import TASKS

def signatures():
    found = set()
    for pkg in ("scopa_sim._engine", "scopa_sim.stats", "scopa_sim.data"):
        for m in pkgutil.iter_modules(importlib.import_module(pkg).__path__):
            mod = importlib.import_module(f"{pkg}.{m.name}")
            for name, obj in vars(mod).items():
                for sig in getattr(obj, "signatures", None) or ():
                    found.add(f"{mod.__name__}.{name}{sig}")
    return found

for task in TASKS.values():
    task.run()
warmed = signatures()
for args in sys.argv[1:]:
    res = CliRunner().invoke(cli, args.split())
    assert res.exit_code == 0, (args, res.output)
print(*sorted(signatures() - warmed), sep=chr(10))
"""


@pytest.mark.slow
def test_the_commands_load_no_kernel_that_warm_leaves_out(tmp_path: Path) -> None:
    """After ``warm``, ``simulate`` and ``review`` compiled the shard encoder and the
    review's prior (first-use notices after ``warm``): every kernel signature the common
    commands load, warm loads."""
    commands = [
        "play --matches 1 --seed 1 --policy greedy --policy random --record games.jsonl",
        "simulate --hands 500 --out r1 --workers 1 -q",
        "simulate --matches 5 --out r2 --workers 1 -q",
        "simulate --preset scopa-15 --policy expert --hands 300 --out r3 --workers 1 -q",
        "review games.jsonl 1",
        "tournament --policy ismcts:iterations=20 --policy greedy --deals 2 --workers 1 -q",
    ]
    out = subprocess.run(
        [sys.executable, "-c", AFTER_WARM, *commands],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "", f"loaded by the commands, not by warm:\n{out.stdout}"
