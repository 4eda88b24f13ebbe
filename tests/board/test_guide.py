"""The board guide's Python example (docs/guide/board.md) runs as written, as a script
file (the board's worker processes import the main module: it needs its
``if __name__ == "__main__":`` guard), and prints what the guide says."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

GUIDE = Path(__file__).parents[2] / "docs" / "guide" / "board.md"

pytestmark = pytest.mark.slow


def test_the_guide_s_python_example_runs_as_a_script(tmp_path: Path) -> None:
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 1
    script = tmp_path / "board_example.py"
    script.write_text(blocks[0], encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0] == "at most 16384 worlds on the board"
    assert len(lines) == 7 and lines[1].startswith("7D x 7C ")  # three plays, best first
    assert lines[4].startswith("400 worlds=1000000: the board runs at most worlds=16,384")
    assert lines[5] == "['AD x 2D 7H 5C QS', 'AD x 2D 7H 5C QS +3']"  # Cirulla's sweep
    assert lines[6].startswith("400 ") and "belief='joker': expected one of" in lines[6]
    assert "Traceback" not in done.stderr
