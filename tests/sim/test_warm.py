"""``scopa-sim warm``: the tasks reach every big kernel, each loop compiles one signature,
and bad input is a one-line error."""

from __future__ import annotations

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
from scopa_sim.sim.warm import TASKS, select, warm

#: The loops that take longest to compile: each must be reached by a task, in one
#: signature only (a second one is a second compile of 30-45 s).
BIG = {
    "fused_hands": K.fused_hands,
    "fused_hands_2p": K.fused_hands_2p,
    "fused_hands15": K.fused_hands15,
    "fused_hands15_2p": K.fused_hands15_2p,
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


def test_warm_command() -> None:
    run = CliRunner().invoke
    res = run(cli, ["warm", "--list"])
    assert res.exit_code == 0 and [ln.split()[0] for ln in res.output.splitlines()] == list(TASKS)
    res = run(cli, ["warm", "--only", "steps", "--jobs", "2"])
    assert res.exit_code == 0, res.output
    first, task = res.stdout.splitlines()[:2]  # what it compiles, then each task as it ends
    assert first.startswith("compiling 1 task(s) of kernels in 2 process(es), largest first")
    assert task.startswith("steps ")
    assert "with 1 process(es)" not in res.output  # --jobs as given
    for args, named in (
        (["--only", "bogus"], "unknown warm-up task 'bogus'"),
        (["--jobs", "0"], "--jobs"),
        (["--jobs", "x"], "--jobs"),
    ):
        res = run(cli, ["warm", *args])
        assert res.exit_code != 0 and named in res.output
        assert "Traceback" not in res.output
        assert res.output.strip().splitlines()[-1].startswith("Error:")
