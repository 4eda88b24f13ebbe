"""Serving the board: a socket bound on the given address (127.0.0.1 by default), the app
run by uvicorn on it, its worker pool stopped when the server stops.

Connections are bounded (:data:`MAX_CONNECTIONS` at once, :data:`HEADER_SECONDS` to
send a request's headers). Ctrl-C and SIGTERM stop uvicorn gracefully (open connections get
:data:`GRACE_SECONDS`), the app's lifespan then terminates the worker processes
(:meth:`scopa_sim.board.jobs.Jobs.close`), and uvicorn raises the signal again once it
is done, which the command reports as it ends.
"""

from __future__ import annotations

import socket
import threading
import webbrowser
from collections.abc import Callable
from typing import Any

from scopa_sim.board import work
from scopa_sim.board.app import allowed_hosts, create_app
from scopa_sim.board.jobs import Jobs
from scopa_sim.errors import BoardError

#: The default port.
PORT = 8765
#: Seconds open connections get to finish once the server is told to stop.
GRACE_SECONDS = 1
#: Connections served at once (more get 503 until some close), seconds a connection may
#: take to send a request's headers (then it is closed), and seconds an idle
#: keep-alive connection is kept.
MAX_CONNECTIONS = 64
HEADER_SECONDS = 10.0
KEEP_ALIVE_SECONDS = 5


def _bounded_protocol() -> type:
    """uvicorn's HTTP/1.1 protocol, closing a connection that has not sent a whole
    request's headers within :data:`HEADER_SECONDS` of opening or of its last answer (a
    half-open or slow connection would otherwise be held forever)."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class BoundedH11(H11Protocol):
        _deadline: Any = None

        def _arm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            self._deadline = self.loop.call_later(HEADER_SECONDS, self._too_slow)

        def _too_slow(self) -> None:
            self._deadline = None
            if self.cycle is None or self.cycle.response_complete:  # no request under way
                self.transport.close()

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            under_way = self.cycle is not None and not self.cycle.response_complete
            if under_way and self._deadline is not None:  # the headers are in: it runs
                self._deadline.cancel()
                self._deadline = None

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None
            super().connection_lost(exc)

    return BoundedH11


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
        http=_bounded_protocol(),
        limit_concurrency=MAX_CONNECTIONS,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
    )
    server = uvicorn.Server(config)
    announce(url)
    if open_browser:
        threading.Timer(0.5, webbrowser.open, [url]).start()
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()


__all__ = [
    "GRACE_SECONDS",
    "HEADER_SECONDS",
    "MAX_CONNECTIONS",
    "PORT",
    "bind",
    "serve",
    "url_of",
]
