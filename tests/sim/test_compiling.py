"""The compile notice: one line on standard error when a kernel is about to compile,
none when numba's cache holds it (checked on an empty cache in fresh processes)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from scopa_sim.sim import compiling as C

pytestmark = pytest.mark.slow

#: Run in a fresh process: the notices on, then two of the random-stream kernels (one
#: group) twice each, in this process or in two pool workers at once.
SCRIPT = """
import sys
import numpy as np
from scopa_sim.sim import compiling, pool
from scopa_sim._engine import streams as S

def work(_=None):
    for _ in range(2):
        S.derive_seed(np.int64(1), np.int64(2), np.int64(3), np.int64(4))
        S.mix64(np.uint64(5))
    return 0

if __name__ == "__main__":
    with compiling.notices():
        if sys.argv[1] == "pool":
            with pool.process_pool(2) as p:
                assert list(pool.ordered(p, work, [(i,) for i in range(2)], 2)) == [0, 0]
        else:
            work()
"""


def run(tmp: Path, cache: Path, how: str) -> str:
    script = tmp / "kernels.py"
    script.write_text(SCRIPT, encoding="utf-8")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    done = subprocess.run(
        [sys.executable, str(script), how], capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stderr


def test_a_notice_when_compiling_and_none_from_the_cache(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = run(tmp_path, cache, "here").splitlines()
    assert first == [C.notice_text("scopa_sim._engine.streams", "derive_seed")]
    assert first[0].startswith("compiling the random streams (first use only: ")
    assert "`scopa-sim warm`" in first[0]
    assert run(tmp_path, cache, "here") == ""  # loaded from numba's cache: silent


def test_pool_workers_announce_a_group_once(tmp_path: Path) -> None:
    """Two workers compile the same kernels at once: one line between them."""
    lines = run(tmp_path, tmp_path / "cache", "pool").splitlines()
    assert lines == [C.notice_text("scopa_sim._engine.streams", "derive_seed")]


def test_notice_texts() -> None:
    fused = C.notice_text("scopa_sim._engine.fused", "fused_hands15")
    assert fused is not None and "the self-play loop under the sum-to-fifteen rule" in fused
    scopa = C.notice_text("scopa_sim._engine.ismcts", "_ismcts_run_scopa")
    assert scopa is not None and "ISMCTS search under Scopa's capture rule" in scopa
    cirulla = C.notice_text("scopa_sim._engine.ismcts_cirulla", "ismcts_run_cirulla")
    assert cirulla is not None and "the ISMCTS search on Cirulla (" in cirulla
    assert C.notice_text("my_notebook", "f") is None  # a user's own numba code: not ours


def test_notices_off_outside_the_block() -> None:
    with C.notices():
        assert C.settings() is not None
        marks = C.settings().marks  # type: ignore[union-attr]
        assert marks is not None and Path(marks).is_dir()
    assert C.settings() is None and not Path(marks).exists()
