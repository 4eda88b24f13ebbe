"""``board``: the analysis board, a local web app (docs/guide/board.md)."""

from __future__ import annotations

import click

from scopa_sim.api.interrupts import Terminated
from scopa_sim.errors import ScopaError

from .options import WORKERS, BadInput


@click.command()
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8765,
    show_default=True,
    help="Port to serve on (0: any free port; the address is printed).",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to serve on. Anything but a loopback address lets other machines use "
    "the board (and open files on this one by their paths): a warning is printed.",
)
@click.option(
    "--allow-host",
    "allow_hosts",
    multiple=True,
    metavar="NAME",
    help="A host name or address the board may be reached by besides loopback ones and "
    "--host (repeatable; e.g. this machine's name on the network).",
)
@click.option("--open", "open_browser", is_flag=True, help="Open the board in your browser.")
@click.option(
    "--workers",
    type=WORKERS,
    default=1,
    show_default=True,
    help="Worker processes for the evaluations (jobs of several pages run side by side).",
)
def board_cmd(
    port: int, host: str, allow_hosts: tuple[str, ...], open_browser: bool, workers: int
) -> None:
    """Serve the analysis board: set up or load a position and see every play's value,
    step through a recorded game with its review, play the bots, solve puzzles drawn
    from your mistakes. Stop it with Ctrl-C."""
    from scopa_sim.board import loopback, serve

    if not loopback(host):
        click.echo(
            f"warning: serving on {host}: anyone who can reach this machine can use the "
            "board, and open the files of this machine that it can read by their paths",
            err=True,
        )

    def announce(url: str) -> None:
        click.echo(f"scopa-sim board at {url} (Ctrl-C to stop)", err=True)
        click.echo("  (the address holds this launch's token: open the board with it)", err=True)

    try:
        serve(host, port, open_browser, workers, announce, allow_hosts)
    except ScopaError as e:
        raise BadInput(str(e)) from None
    except KeyboardInterrupt as e:
        what = "SIGTERM" if isinstance(e, Terminated) else "Ctrl-C"
        click.echo(f"board stopped ({what})", err=True)
        raise SystemExit(143 if isinstance(e, Terminated) else 130) from None
