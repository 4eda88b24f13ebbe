"""The board's web app (Starlette): the page and its static files, and a JSON API whose
every answer to bad input is a 4xx JSON error (``{"error": "one line"}``), never a
traceback; long work goes to :mod:`scopa_sim.board.jobs`.

**Safety** (:class:`Guard`). Each launch has a secret token, in the address the command
prints; that address sets a strict cookie, and every ``/api`` route needs the token (403
otherwise). Every ``POST`` needs the header ``X-Scopa-Board: 1`` and, when the browser
sends an ``Origin``, the board's own; a request must name an allowed host (``Host``,
parsed strictly: loopback names, the served address and the names allowed); every answer
forbids framing (``frame-ancestors 'none'``) and sniffing. The app reads only files a
request names (a record or a folder of records the user opens), regular files only, off
the event loop; its static files are served from the package only. Bodies are bounded
(:data:`MAX_BODY`, :data:`MAX_UPLOAD`).
"""

from __future__ import annotations

import hmac
import io
import json
import logging
import re
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from importlib.resources import files
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from scopa_sim.api.advice import advisor, check_cirulla_advice, review_labels, reviewer
from scopa_sim.api.games import record_lines
from scopa_sim.board import work
from scopa_sim.board.jobs import Busy, Jobs, Stage
from scopa_sim.board.positions import (
    MAX_BUDGET,
    capped,
    field,
    game_state,
    game_view,
    new_game,
    only,
    position_of,
    record_frames,
    record_hands,
    seed_of,
    view,
)
from scopa_sim.bots.advise import describe
from scopa_sim.bots.belief import BELIEFS
from scopa_sim.bots.registry import POLICIES, PolicySpec, search_policies
from scopa_sim.errors import BoardError, ScopaError
from scopa_sim.files import shown_path
from scopa_sim.game.rules import OPTION_NAMES, PRESET_DESCRIPTIONS, PRESETS
from scopa_sim.records.record import iter_lines
from scopa_sim.records.review_html import CARD_CSS, COLOURS, SUIT_TITLE, SYMBOL

log = logging.getLogger("scopa_sim.board")

#: The largest JSON body, and the largest record file uploaded or opened (bytes).
MAX_BODY = 1 << 20
MAX_UPLOAD = 8 << 20
#: The largest oversized body read (and dropped) before the 413 is sent.
DRAIN = 64 << 20
#: The most hands a folder's puzzles are drawn from (each is reviewed: about 1 s).
MAX_PUZZLE_HANDS = 200
#: The default analysis policy: the evaluator ``review`` and ``advise --policy eval`` use.
DEFAULT_POLICY = "eval"
DEFAULT_EVALUATOR = "eval"
STATIC = files("scopa_sim.board") / "static"
_PAGE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_LOOPBACK = frozenset({"127.0.0.1", "localhost", "[::1]"})


class TooLarge(BoardError):
    """A body over the bound: 413."""


class JSON(JSONResponse):
    """A JSON answer in ASCII: a text holding a lone surrogate (a path or name a request
    sent) is escaped rather than failing to encode."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, allow_nan=False, separators=(",", ":")).encode("ascii")


def _error(status: int, message: str) -> JSONResponse:
    return JSON({"error": message}, status_code=status)


async def _body(request: Request, limit: int) -> bytes:
    """The request's body, refused (413) past ``limit`` bytes, however it is sent. An
    oversized body up to :data:`DRAIN` bytes is read to its end and dropped first, so
    that the client, still sending, gets the answer rather than a reset connection."""
    size = request.headers.get("content-length")
    too_large = TooLarge(f"the request is too large (at most {limit:,} bytes)")
    if size is not None and (not size.isdecimal() or int(size) > DRAIN):
        raise too_large
    chunks, total = [], 0
    async for chunk in request.stream():
        total += len(chunk)
        if total > DRAIN:
            raise too_large
        if total <= limit:
            chunks.append(chunk)
    if total > limit:
        raise too_large
    return b"".join(chunks)


async def _json(request: Request, *allowed: str) -> dict[str, Any]:
    """The request's JSON object, with no field but ``allowed`` (a misspelt field is an
    error, not a default silently used)."""
    raw = await _body(request, MAX_BODY)
    try:
        doc = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except UnicodeDecodeError:
        raise BoardError("the request body is not UTF-8 text") from None
    except RecursionError:
        raise BoardError("the request body is nested too deeply") from None
    except ValueError as e:
        raise BoardError(f"the request body is not JSON: {e}") from None
    if not isinstance(doc, dict):
        raise BoardError("the request body must be a JSON object")
    only(doc, allowed, "the request")
    return doc


def _no_constant(name: str) -> Any:
    raise BoardError(f"the request body is not JSON: {name} is not a number JSON allows")


def _page(doc: Mapping[str, Any]) -> str:
    page = field(doc, "page", str, "default")
    if not _PAGE.match(page):
        raise BoardError("page: 1 to 64 letters, digits, '-' or '_'")
    return page


Handler = Callable[[Request], Awaitable[Response]]


def api(fn: Callable[[Request], Awaitable[Any]]) -> Handler:
    """An endpoint answering JSON: its value, or a one-line error with a 4xx status."""

    async def endpoint(request: Request) -> Response:
        try:
            return JSON(await fn(request))
        except TooLarge as e:
            return _error(413, str(e))
        except Busy as e:
            return _error(429, str(e))
        except ScopaError as e:
            return _error(400, str(e))
        except MemoryError:
            return _error(413, "not enough memory for this request")
        except (RecursionError, OverflowError) as e:
            return _error(400, f"the request cannot be read: {type(e).__name__}")

    endpoint.__name__ = fn.__name__
    return endpoint


# --------------------------------------------------------------------------- endpoints
class Board:
    """The endpoints, over one :class:`~scopa_sim.board.jobs.Jobs`."""

    def __init__(self, jobs: Jobs) -> None:
        self.jobs = jobs

    async def meta(self, request: Request) -> dict[str, Any]:
        """What the page's forms offer: presets, options, policies, beliefs; how cards
        and labels are drawn (the review page's symbols and colours)."""
        return {
            "presets": {k: PRESET_DESCRIPTIONS[k] for k in PRESETS},
            "options": list(OPTION_NAMES),
            "policies": {k: p.summary for k, p in POLICIES.items()},
            "search_policies": search_policies(),
            "beliefs": list(BELIEFS),
            "default_policy": DEFAULT_POLICY,
            "limits": {
                **MAX_BUDGET,
                "job_seconds": self.jobs.max_seconds,
                "abandon_seconds": self.jobs.abandon_seconds,
                "file_bytes": MAX_UPLOAD,
            },
            "symbols": SYMBOL,
            "suit_names": SUIT_TITLE,
            "label_colours": {str(k): v for k, v in COLOURS.items()},
            "labels": list(review_labels()),
            "thresholds": review_labels(),
        }

    async def position(self, request: Request) -> dict[str, Any]:
        """A position's view (validated): what the page draws before any analysis."""
        doc = await _json(request, "position")
        pos = await run_in_threadpool(position_of, field(doc, "position", dict))
        state = pos.state
        out = view(state, reveal=pos.reveal)
        out["summary"] = "the hand is over" if state.is_over else describe(state, state.turn)
        return out

    async def analyse(self, request: Request) -> dict[str, Any]:
        """Start (or replace) the page's analysis: every legal play valued by ``policy``
        in stages (:func:`scopa_sim.board.work.stages`)."""
        doc = await _json(request, "page", "position", "policy", "seed")
        page = _page(doc)
        pos = await run_in_threadpool(position_of, field(doc, "position", dict))
        policy = field(doc, "policy", str, DEFAULT_POLICY)
        seed = seed_of(doc)
        if pos.state.is_over:
            raise BoardError("the hand is over: there is no play to analyse")

        # off the event loop: a policy's equity= table is a file read when its bot is made
        def plan() -> list[PolicySpec]:
            spec = advisor(str(capped(PolicySpec.parse(policy))))
            if pos.state.rules.cirulla:  # RULES.md §10: a one-line 400, not a failed job
                check_cirulla_advice(spec)
            return work.stages(spec)

        specs = await run_in_threadpool(plan)
        weights = [_weight(s) for s in specs]
        stages = [
            Stage(
                work.analyse,
                (pos.state, str(s), seed, pos.recorded),
                weights[i],
                f"{s} (stage {i + 1} of {len(specs)})",
                cheap=i == 0 and len(specs) > 1,
            )
            for i, s in enumerate(specs)
        ]
        return self.jobs.start(page, "analyse", stages).as_dict()

    async def holdings(self, request: Request) -> dict[str, Any]:
        """Start the page's "what can they hold" for a position under a belief model."""
        doc = await _json(request, "page", "position", "model", "seed")
        page = _page(doc)
        pos = await run_in_threadpool(position_of, field(doc, "position", dict))
        model = field(doc, "model", str, "fit")
        if model not in BELIEFS:
            raise BoardError(f"model {model!r}: one of {', '.join(BELIEFS)}")
        if pos.state.is_over:
            raise BoardError("the hand is over: every card is seen")
        stage = Stage(work.holdings, (pos.state, model, seed_of(doc)), 1.0, f"belief {model}")
        return self.jobs.start(page, "holdings", [stage]).as_dict()

    async def job(self, request: Request) -> dict[str, Any]:
        return self.jobs.get(request.path_params["job"]).as_dict()

    async def cancel(self, request: Request) -> dict[str, Any]:
        await _body(request, MAX_BODY)
        return self.jobs.cancel(request.path_params["job"]).as_dict()

    async def record_open(self, request: Request) -> dict[str, Any]:
        """The hands of a record file the user names by its path."""
        doc = await _json(request, "path")
        path = field(doc, "path", str)
        # off the event loop: reading and checking a large file takes seconds
        return await run_in_threadpool(
            lambda: record_hands(read_record(path), shown_path(path), quote=False)
        )

    async def record_upload(self, request: Request) -> dict[str, Any]:
        """The hands of a record file sent as the body (an upload from the page)."""
        raw = await _body(request, MAX_UPLOAD)
        name = request.query_params.get("name", "upload.jsonl")[:200]

        def hands() -> dict[str, Any]:
            try:
                text = raw.decode("utf-8-sig")
            except UnicodeDecodeError:
                raise BoardError(f"{name}: not a text (UTF-8) file, so not a record file") from None
            return record_hands(_lines(io.StringIO(text), name), name)

        return await run_in_threadpool(hands)  # checking 8 MB of records takes seconds

    async def record_frames(self, request: Request) -> dict[str, Any]:
        """Every position of one recorded hand, to step through."""
        doc = await _json(request, "text")
        return record_frames(field(doc, "text", str))

    async def review(self, request: Request) -> dict[str, Any]:
        """Start the review of one recorded hand (labels, points lost, the curve)."""
        doc = await _json(request, "page", "text", "name", "line", "evaluator", "seed")
        page = _page(doc)
        text = field(doc, "text", str)
        record_frames(text)  # checked here: a broken record is a 400 now, not a failed job
        evaluator = field(doc, "evaluator", str, DEFAULT_EVALUATOR)
        reviewer(str(capped(PolicySpec.parse(evaluator))))
        name, line = field(doc, "name", str, "board"), field(doc, "line", int, 1)
        args = (text, name[:200], line, evaluator, seed_of(doc))
        stage = Stage(work.review_line, args, 1.0, f"review with {evaluator}")
        return self.jobs.start(page, "review", [stage]).as_dict()

    async def play_new(self, request: Request) -> dict[str, Any]:
        fields = ("preset", "rules", "policy", "seed", "human", "match")
        game = new_game(await _json(request, *fields))
        return {"game": game, **game_view(game_state(game))}

    async def play_state(self, request: Request) -> dict[str, Any]:
        """A game after its plays (the human's last one checked legal)."""
        doc = await _json(request, "game")
        game = field(doc, "game", dict)
        return {"game": game, **game_view(game_state(game))}

    async def play_bot(self, request: Request) -> dict[str, Any]:
        """Start the bot's decision in a game where a bot is to play."""
        doc = await _json(request, "page", "game")
        game = game_state(field(doc, "game", dict))
        if not game.bot_to_play:
            raise BoardError("no bot is to play in this game now")
        args = (game.state, str(game.policy), game.bot_seed())
        stage = Stage(work.bot_play, args, 1.0, f"{game.policy} plays")
        return self.jobs.start(_page(doc), "bot", [stage]).as_dict()

    async def puzzles(self, request: Request) -> dict[str, Any]:
        """Start drawing puzzles from a folder of records: every hand reviewed, each
        mistake and blunder a puzzle."""
        doc = await _json(request, "page", "folder", "limit", "evaluator", "seed")
        folder = field(doc, "folder", str)
        limit = field(doc, "limit", int, 40)
        if not 1 <= limit <= MAX_PUZZLE_HANDS:
            raise BoardError(f"limit: 1 to {MAX_PUZZLE_HANDS} hands")
        evaluator = field(doc, "evaluator", str, DEFAULT_EVALUATOR)
        reviewer(str(capped(PolicySpec.parse(evaluator))))
        seed = seed_of(doc)
        hands = await run_in_threadpool(folder_hands, folder, limit)
        stages = [
            Stage(
                work.puzzles_of_hand,
                (t, name, line, evaluator, seed),
                1.0,
                f"reviewing {Path(name).name} line {line}",
            )
            for name, line, t in hands
        ]
        return self.jobs.start(_page(doc), "puzzles", stages, merge=_concat).as_dict()


def _concat(acc: list[Any] | None, new: list[Any]) -> list[Any]:
    return [*(acc or []), *new]


def _weight(spec: PolicySpec) -> float:
    """A stage's share of the progress: its budget (1 for an unstaged policy)."""
    key = work.BUDGETS.get(spec.name, ("", 0))[0]
    value = dict(spec.params).get(key)
    return float(value) if value is not None and value.isdecimal() else 1.0


def _lines(stream: Any, name: str) -> list[str]:
    """A record file's lines as ``replay`` reads them (each with a bound)."""
    try:
        return list(iter_lines(stream))
    except ScopaError as e:
        raise BoardError(f"{name}: {e}") from None


def read_record(path: str) -> list[str]:
    """The lines of the record file at ``path`` (one the user names): a regular file of
    at most :data:`MAX_UPLOAD` bytes, UTF-8 text (:func:`scopa_sim.api.record_lines`).
    Call it off the event loop: it reads a file."""
    return record_lines(path, max_bytes=MAX_UPLOAD)


def folder_hands(folder: str, limit: int) -> list[tuple[str, int, str]]:
    """Up to ``limit`` hands (file, line, text) of the record files (``*.jsonl``) of a
    folder the user names, in file-name order; each file checked as ``replay`` does."""
    shown = shown_path(folder)
    try:
        d = Path(folder).expanduser()
        if not d.is_dir():
            raise BoardError(f"{shown} is not a folder")
        paths = sorted(p for p in d.iterdir() if p.suffix == ".jsonl" and p.is_file())
    except ScopaError:
        raise
    except RuntimeError:  # ~user of no such user
        raise BoardError(f"{shown} is not a folder") from None
    except (ValueError, UnicodeError):  # a NUL or a lone surrogate
        raise BoardError("the path cannot name a folder (a NUL or an invalid character)") from None
    except OSError as e:
        raise BoardError(f"cannot read {shown}: {e.strerror or type(e).__name__}") from None
    if not paths:
        raise BoardError(f"{shown} holds no record file (*.jsonl)")
    out: list[tuple[str, int, str]] = []
    for p in paths:
        hands = record_hands(read_record(str(p)), shown_path(p), quote=False)["hands"]
        out += [(str(p), h["line"], h["text"]) for h in hands]
        if len(out) >= limit:
            break
    return out[:limit]


# --------------------------------------------------------------------------- the app
async def index(request: Request) -> Response:
    return FileResponse(str(STATIC / "index.html"), media_type="text/html")


async def favicon(request: Request) -> Response:
    return Response(status_code=204)


async def cards_css(request: Request) -> Response:
    """The review page's card styles (:data:`scopa_sim.records.review_html.CARD_CSS`)."""
    return Response(CARD_CSS, media_type="text/css")


async def _http_error(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    detail = exc.detail if isinstance(exc, HTTPException) else "internal error"
    return _error(status, str(detail))


async def _server_error(request: Request, exc: Exception) -> Response:
    log.error("internal error on %s", request.url.path, exc_info=exc)
    return _error(500, f"internal error: {type(exc).__name__}")


def create_app(
    jobs: Jobs | None = None,
    hosts: frozenset[str] | None = frozenset(_LOOPBACK),
    token: str | None = None,
) -> Starlette:
    """The board's app over ``jobs`` (a new :class:`Jobs` of one worker by default);
    ``hosts``: the host names a request may name (default: loopback names; None: any);
    ``token``: the secret every ``/api`` request must carry (:class:`Guard`; default a
    new random one), in ``app.state.token``. The jobs' workers stop with the app (its
    lifespan)."""
    token = token or secrets.token_urlsafe(24)
    jobs = jobs or Jobs(1, work.warm)
    b = Board(jobs)
    routes = [
        Route("/", index),
        Route("/cards.css", cards_css),
        Route("/favicon.ico", favicon),
        Route("/api/meta", api(b.meta)),
        Route("/api/position", api(b.position), methods=["POST"]),
        Route("/api/analyse", api(b.analyse), methods=["POST"]),
        Route("/api/holdings", api(b.holdings), methods=["POST"]),
        Route("/api/job/{job}", api(b.job)),
        Route("/api/job/{job}/cancel", api(b.cancel), methods=["POST"]),
        Route("/api/record/open", api(b.record_open), methods=["POST"]),
        Route("/api/record/upload", api(b.record_upload), methods=["POST"]),
        Route("/api/record/frames", api(b.record_frames), methods=["POST"]),
        Route("/api/review", api(b.review), methods=["POST"]),
        Route("/api/play/new", api(b.play_new), methods=["POST"]),
        Route("/api/play/state", api(b.play_state), methods=["POST"]),
        Route("/api/play/bot", api(b.play_bot), methods=["POST"]),
        Route("/api/puzzles", api(b.puzzles), methods=["POST"]),
        Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
    ]

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        jobs.pool()  # the worker starts and loads the kernels while the page loads
        try:
            yield
        finally:
            jobs.close()

    app = Starlette(
        routes=routes,
        exception_handlers={HTTPException: _http_error, Exception: _server_error},
        middleware=[Middleware(Guard, hosts=hosts, token=token)],
        lifespan=lifespan,
    )
    app.state.jobs = jobs
    app.state.token = token
    return app


#: The header and the cookie that carry the board's token (the cookie's name ends with
#: the port: two boards on one machine keep theirs apart).
TOKEN_HEADER = "x-scopa-token"
COOKIE = "scopa_board_token"
#: What every answer says about itself: no framing by another site, no sniffing, no
#: referrer (the page's address can hold the token), only the package's own scripts.
SECURITY_HEADERS = (
    (b"content-security-policy", b"default-src 'self'; script-src 'self'; style-src 'self' "
     b"'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
     b"form-action 'self'; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-store"),
)  # fmt: skip
_HOST = re.compile(
    r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)(?::(\d{1,5}))?$"
)


def parse_host(value: str) -> tuple[str, int | None] | None:
    """A ``Host`` header's name (lower case; an IPv6 address in brackets) and port, or
    None when it is anything but ``name[:port]`` (``127.0.0.1:1@evil.example`` is
    not)."""
    m = _HOST.match(value)
    if m is None:
        return None
    port = int(m.group(2)) if m.group(2) is not None else None
    if port is not None and not 0 < port <= 65535:
        return None
    return m.group(1).lower(), port


class Guard:
    """The board's gate, an ASGI middleware in front of every route:

    * a request must name an allowed host (``Host``, parsed strictly: 403 otherwise);
    * every ``/api`` route needs the launch's token, from the cookie the page got or the
      ``X-Scopa-Token`` header (a script's); the page itself is served to the address
      printed at launch (``/?token=...``), which sets the cookie (``HttpOnly``,
      ``SameSite=Strict``) and sends the browser on to ``/``;
    * a ``POST`` needs the header ``X-Scopa-Board: 1``, and an ``Origin``, when sent,
      must be the board's own;
    * every answer carries :data:`SECURITY_HEADERS`.
    """

    def __init__(self, app: ASGIApp, hosts: frozenset[str] | None, token: str) -> None:
        self.app, self.hosts, self.token = app, hosts, token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def secured(message: Any) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []),
                                                   *SECURITY_HEADERS]}  # fmt: skip
            await send(message)

        headers: dict[str, str] = {}
        for k, v in scope["headers"]:
            headers.setdefault(k.decode("latin-1"), v.decode("latin-1"))
        answer = self._check(scope, headers)
        if answer is not None:
            await answer(scope, receive, secured)
            return
        await self.app(scope, receive, secured)

    def _check(self, scope: Scope, headers: dict[str, str]) -> Response | None:
        """The answer refusing (or redirecting) the request; None to serve it."""
        host = parse_host(headers.get("host", ""))
        if host is None:
            return _error(403, "the request's Host is not a host name and port")
        if self.hosts is not None and host[0] not in self.hosts:
            return _error(
                403, f"this board answers requests for {', '.join(sorted(self.hosts))} only"
            )
        path, method = scope["path"], scope["method"]
        if method == "POST":
            if headers.get("x-scopa-board") != "1":
                return _error(403, "a request to the board needs the header X-Scopa-Board: 1")
            origin = headers.get("origin")
            if (
                origin is not None
                and origin != f"{scope.get('scheme', 'http')}://{headers['host']}"
            ):
                return _error(403, "a request from another site's page is refused")
        server = scope.get("server") or ("", host[1] or 80)
        cookie = f"{COOKIE}_{server[1]}"
        if path == "/" and "token=" in scope.get("query_string", b"").decode("latin-1"):
            given = dict(
                p.split("=", 1)
                for p in scope["query_string"].decode("latin-1").split("&")
                if "=" in p
            ).get("token", "")
            if not hmac.compare_digest(given.encode(), self.token.encode()):
                return _refused_page("this address's token is not this board's")
            r = Response(status_code=303, headers={"location": "/"})
            r.set_cookie(cookie, self.token, httponly=True, samesite="strict", path="/")
            return r
        if path == "/" or path.startswith("/api/"):
            given = headers.get(TOKEN_HEADER) or _cookie(headers.get("cookie", ""), cookie)
            if not given or not hmac.compare_digest(given.encode(), self.token.encode()):
                if path == "/":
                    return _refused_page(
                        "open the address scopa-sim board printed (with its token)"
                    )
                return _error(403, "the board's token is missing or wrong: open the address "
                              "scopa-sim board printed")  # fmt: skip
        return None


def _cookie(header: str, name: str) -> str | None:
    """The value of cookie ``name`` in a ``Cookie`` header."""
    for part in header.split(";"):
        k, _, v = part.strip().partition("=")
        if k == name:
            return v
    return None


def _refused_page(reason: str) -> Response:
    body = (
        "<!doctype html><meta charset=utf-8><title>scopa-sim board</title>"
        f"<p>This board needs its token: {reason}.</p>"
    )
    return Response(body, status_code=403, media_type="text/html")


def loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address (the board's default)."""
    return host in _LOOPBACK or host == "::1" or host.startswith("127.")


def allowed_hosts(host: str, allow: tuple[str, ...] | list[str] = ()) -> frozenset[str]:
    """The host names requests may name when serving on ``host``: the loopback names,
    ``host`` itself (unless it is every address, ``0.0.0.0`` or ``::``) and the names
    or addresses in ``allow`` (lower case; an IPv6 address in brackets).

    Raises:
        BoardError: a name that is not a host name or address (``a@b``, ``x:80``), or an
            empty one in ``allow``.
    """
    names = set(_LOOPBACK)
    if any(not h.strip() for h in allow):
        raise BoardError("an empty allowed host: give a host name or address, such as board.lan")
    for h in (host, *allow):
        if h in ("0.0.0.0", "::", ""):
            continue
        name = f"[{h}]" if ":" in h and not h.startswith("[") else h.lower()
        if parse_host(name) != (name, None):
            raise BoardError(f"host {h!r}: a host name or address, such as board.lan")
        names.add(name)
    return frozenset(names)


__all__ = [
    "COOKIE",
    "MAX_BODY",
    "MAX_UPLOAD",
    "SECURITY_HEADERS",
    "TOKEN_HEADER",
    "Board",
    "Guard",
    "allowed_hosts",
    "create_app",
    "loopback",
    "parse_host",
]
