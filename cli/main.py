"""The ``scopa-sim`` command line: one click group, thin commands over the library."""

from __future__ import annotations

import errno
import importlib
import io
import os
import signal
import sys

import click

import scopa_sim
from scopa_sim import __version__
from scopa_sim.api.interrupts import abandoned, end_on_interrupt, interrupt_on_sigterm
from scopa_sim.errors import FileError, ScopaError

from .interrupted import exit_interrupted
from .options import BadInput, usage_errors

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


#: Command name -> "module:attribute", imported only when the command runs (or for
#: ``--help``), so that ``simulate`` does not load plotting and statistics modules.
LAZY_COMMANDS = {
    "play": "scopa_sim_cli.play_cmd:play",
    "replay": "scopa_sim_cli.play_cmd:replay",
    "advantage": "scopa_sim_cli.study_cmd:advantage",
    "study": "scopa_sim_cli.study_cmd:study",
    "simulate": "scopa_sim_cli.simulate_cmd:simulate_cmd",
    "analyze": "scopa_sim_cli.analyze_cmd:analyze_cmd",
    "compare": "scopa_sim_cli.analyze_cmd:compare_cmd",
    "report": "scopa_sim_cli.analyze_cmd:report_cmd",
    "advise": "scopa_sim_cli.search_cmd:advise_cmd",
    "tournament": "scopa_sim_cli.search_cmd:tournament_cmd",
    "review": "scopa_sim_cli.review_cmd:review_cmd",
    "equity": "scopa_sim_cli.equity_cmd:equity_cmd",
    "warm": "scopa_sim_cli.warm_cmd:warm_cmd",
    "board": "scopa_sim_cli.board_cmd:board_cmd",
    "train": "scopa_sim_cli.train_cmd:train_cmd",
}


#: Commands that run no kernel (``warm`` says what it compiles itself): no compile notices,
#: and no numba to import for them.
NO_KERNELS = frozenset({"variants", "rules", "warm"})


class ScopaGroup(click.Group):
    """A group whose library errors (bad cards, records, ...) become one-line messages,
    and whose commands are imported when used. A command runs with SIGTERM turned into
    ``KeyboardInterrupt`` (:func:`scopa_sim.api.interrupts.interrupt_on_sigterm`), so that
    ``kill PID`` stops it as Ctrl-C does, its worker processes with it; either ends it
    with one line on standard error and status 130 (Ctrl-C) or 143 (SIGTERM), unless
    the command says more itself (``simulate`` and ``study`` say how to resume)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *LAZY_COMMANDS])

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """The command to run; a command that may compile kernels runs with the compile
        notices on (:func:`scopa_sim.api.warming.compile_notices`: one line on standard error when a
        kernel compiles for the first time), until the group's context closes."""
        name, command, rest = super().resolve_command(ctx, args)
        if name not in NO_KERNELS:
            from scopa_sim.api.warming import compile_notices

            ctx.with_resource(compile_notices())
        return name, command, rest

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in LAZY_COMMANDS:
            module, attr = LAZY_COMMANDS[cmd_name].split(":")
            command: click.Command = getattr(importlib.import_module(module), attr)
            return command
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> object:
        try:
            with interrupt_on_sigterm():
                return super().invoke(ctx)
        except KeyboardInterrupt as e:
            command = ctx.invoked_subcommand or "the command"
            exit_interrupted(e, f"{command} stopped before it finished")
        except ScopaError as e:
            raise click.ClickException(str(e)) from None
        except ValueError as e:  # a NUL in a path given inside another value (equity=...)
            if "null byte" not in str(e):
                raise
            raise click.ClickException("a path cannot contain a NUL character") from None
        except MemoryError as e:  # e.g. a search policy asked for a tree of 10^9 nodes
            detail = f" ({e})" if str(e) else ""
            raise click.ClickException(f"not enough memory{detail}") from None
        except OSError as e:  # a full disk, an unwritable or unreadable file, ...
            if e.errno == errno.EPIPE:  # the reader of our output went away: click's case
                raise
            raise click.ClickException(os_error_text(e)) from None


def os_error_text(e: OSError) -> str:
    """One line for an operating-system error: what failed and on which file (a write to
    a full device reports no file name: the message says so without one)."""
    what = e.strerror or str(e) or type(e).__name__
    if e.filename is not None:
        return f"{what}: {e.filename}"
    tb = e.__traceback__  # no file named: standard output, if click's echo raised it
    while tb is not None:
        if tb.tb_frame.f_code.co_name == "echo" and "click" in tb.tb_frame.f_code.co_filename:
            return f"cannot write standard output: {what}"
        tb = tb.tb_next
    return f"cannot complete the command: {what}"


@click.group(cls=ScopaGroup, context_settings=CONTEXT)
@click.version_option(__version__, "-V", "--version", prog_name="scopa-sim")
def cli() -> None:
    """Monte Carlo strategy analyzer for Scopa and its family."""


@cli.command()
@click.argument("name", required=False)
@click.option("--rule", "rules", multiple=True, metavar="KEY=VALUE", help="Override an option.")
def variants(name: str | None, rules: tuple[str, ...]) -> None:
    """List the rule presets, or print the effective options of preset NAME."""
    if name is None:
        if rules:
            raise BadInput("--rule needs a preset NAME to apply to")
        described = scopa_sim.presets()
        width = max(len(p) for p in described)
        for preset, description in described.items():
            click.echo(f"{preset:<{width}}  {description}")
        return
    with usage_errors():
        click.echo(scopa_sim.variant(name, rules).text())


@cli.command()
@click.option("--record", is_flag=True, help="The game-record format instead of the rules.")
@click.option("--path", "show_path", is_flag=True, help="Print where the document is installed.")
def rules(record: bool, show_path: bool) -> None:
    """Print the rules the engine implements (Markdown), or with --record the format of
    the game records that play --record writes: the documents shipped in the package."""
    name = "record" if record else "rules"
    if show_path:
        from scopa_sim.api.variants import document_path

        click.echo(str(document_path(name)))
        return
    click.echo(scopa_sim.document(name), nl=False)


def main() -> None:
    """Entry point of the ``scopa-sim`` command.

    A command that succeeded has written, closed and flushed all it makes, so the
    process then ends at once (``os._exit``) instead of tearing the interpreter down:
    unloading numba and the compiled kernels took 0.2 to 0.3 s at every exit.  Not
    after an error, nor when Dask's distributed module was used, whose clients and
    clusters clean up at exit; but always after an interrupt that left a search running
    in a thread (:func:`scopa_sim.sim.pool.interruptible`), which nothing can stop.
    """
    _closed_streams()
    _python_ctrl_c()
    end_on_interrupt()
    try:
        cli.main(prog_name="scopa-sim")  # standalone mode: always ends in SystemExit
    except SystemExit as e:
        if e.code in (0, None) and "distributed" not in sys.modules:
            _exit_now()
        if abandoned():  # an interrupted search still runs in a thread: do not wait for it
            _exit_now(e.code if isinstance(e.code, int) else 1)
        try:
            sys.stdout.flush()
        except OSError as err:
            if err.errno != errno.EPIPE:
                _fail_output(err)
        raise


def _python_ctrl_c() -> None:
    """Ctrl-C raises ``KeyboardInterrupt`` again (while the modules loaded, it ended the
    process at once: :mod:`scopa_sim_cli`), unless it is ignored (a background job)."""
    if signal.getsignal(signal.SIGINT) not in (signal.SIG_IGN, signal.default_int_handler):
        signal.signal(signal.SIGINT, signal.default_int_handler)


class _ClosedOutput(io.TextIOBase):
    """Standard output when the process started with it closed (``>&-``; Python then has
    ``sys.stdout = None``, and click's ``echo`` drops every line silently, the command
    ending with status 0 as if it had shown its results): writing to it is a
    :class:`~scopa_sim.errors.FileError`, which the command line reports in one line."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise FileError("cannot write standard output: it is closed")


def _closed_streams() -> None:
    """Stand-ins for standard streams the process started without: standard output
    fails on the first write (:class:`_ClosedOutput`); standard error, where nothing
    can be reported, discards what is written (the exit status still tells), so that
    code asking it ``isatty()`` runs."""
    if sys.stdout is None:
        sys.stdout = _ClosedOutput()
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - for the process


def _exit_now(code: int = 0) -> None:
    """End the process with status ``code`` once standard output and error are flushed
    (if flushing fails, e.g. on a closed pipe, return so that the normal exit reports
    it)."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError as e:  # standard output is a full device, say: one line, status 1
        if e.errno == errno.EPIPE:
            return  # the reader went away: the normal exit handles it
        _fail_output(e)
    except Exception:  # the normal exit reports it
        return
    os._exit(code)


def _fail_output(e: OSError) -> None:
    """Standard output could not be written: say so on standard error in one line and end
    with status 1 (Python's own exit would print a traceback-like 'Exception ignored')."""
    try:
        sys.stderr.write(f"Error: cannot write standard output: {e.strerror or e}\n")
        sys.stderr.flush()
    finally:
        os._exit(1)


if __name__ == "__main__":
    main()
