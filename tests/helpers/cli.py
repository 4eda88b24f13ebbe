"""The command line run in-process (click's ``CliRunner``), as its tests read it."""

from __future__ import annotations

from click.testing import CliRunner, Result
from scopa_sim_cli.main import cli


def run(*args: object) -> Result:
    """``scopa-sim ARGS`` in this process: its result, which must not be a traceback."""
    result = CliRunner().invoke(cli, [str(a) for a in args], prog_name="scopa-sim")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert "Traceback" not in result.output
    return result


def one_line_error(result: Result) -> str:
    """The one line a failed command printed on standard error (``Error: ...``)."""
    assert result.exit_code not in (0, None), result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error"), result.stderr
    return lines[0]
