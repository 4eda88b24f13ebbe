"""Serving the board: a socket bound on the given address (127.0.0.1 by default), the app
run by uvicorn on it, its worker pool stopped when the server stops.

Ctrl-C and SIGTERM stop uvicorn gracefully (open connections get
:data:`GRACE_SECONDS`), the app's lifespan then terminates the worker processes
(:meth:`scopa_sim.board.jobs.Jobs.close`), and uvicorn raises the signal again once it
is done, which the command reports as it ends.
"""

from __future__ import annotations

import socket
import threading
import webbrowser
from collections.abc import Callable

from scopa_sim.board import work
from scopa_sim.board.app import allowed_hosts, create_app
from scopa_sim.board.jobs import Jobs
from scopa_sim.errors import BoardError

#: The default port.
PORT = 8765
#: Seconds open connections get to finish once the server is told to stop.
GRACE_SECONDS = 1


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: any free port); a BoardError in one
    line when the address cannot be used (in use, not this machine's, ...)."""
    if not 0 <= port <= 65535:
        raise BoardError(f"port {port}: a port is 0 to 65535")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as e:
        raise BoardError(f"host {host}: not an address of this machine ({e})") from None
    family, _, _, _, address = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as e:
        sock.close()
        raise BoardError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    return sock


def url_of(host: str, sock: socket.socket, token: str | None = None) -> str:
    """The address the board is opened at (with ``?token=`` when given)."""
    port = sock.getsockname()[1]
    shown = "127.0.0.1" if host in ("0.0.0.0", "", "::") else host
    shown = f"[{shown}]" if ":" in shown and not shown.startswith("[") else shown
    return f"http://{shown}:{port}/" + (f"?token={token}" if token else "")


def serve(
    host: str = "127.0.0.1",
    port: int = PORT,
    open_browser: bool = False,
    workers: int = 1,
    announce: Callable[[str], None] = print,
    allow_hosts: tuple[str, ...] = (),
) -> None:
    """Serve the board until Ctrl-C or SIGTERM; ``announce(url)`` once it listens (the
    address with this launch's token, see :class:`~scopa_sim.board.app.Guard`);
    ``open_browser``: open the page in the user's browser; ``allow_hosts``: host names or
    addresses requests may name besides loopback ones and ``host``."""
    import secrets

    import uvicorn

    sock = bind(host, port)
    token = secrets.token_urlsafe(24)
    url = url_of(host, sock, token)
    app = create_app(Jobs(workers, work.warm), allowed_hosts(host, allow_hosts), token)
    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=GRACE_SECONDS,
        access_log=False,
    )
    server = uvicorn.Server(config)
    announce(url)
    if open_browser:
        threading.Timer(0.5, webbrowser.open, [url]).start()
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()


__all__ = ["GRACE_SECONDS", "PORT", "bind", "serve", "url_of"]
