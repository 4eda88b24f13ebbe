"""Reading and writing files with one-line errors: the path outputs take.

A full disk, a read-only directory or a device where a file was expected must end a
command with one line naming the file, never a traceback, and must never leave half a
file where a whole one was: :func:`write_text` writes atomically (a temporary file in the
same directory, then a rename) and :func:`output` opens a stream for writing whose every
operating-system error, at open, write or close, becomes a :class:`~scopa_sim.errors.FileError`
naming the path. :func:`read_text` reads a text file with a bound on its size, so that a
device such as ``/dev/zero`` is refused instead of read without end. ``play --record`` and
the study's reports write through it; the command line turns any other operating-system
error into one line as well (``scopa_sim_cli.main``).
"""

from __future__ import annotations

import contextlib
import math
import os
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TextIO

from scopa_sim.errors import FileError

#: The largest text file :func:`read_text` reads by default (a position, a table file).
MAX_TEXT = 64 << 20


def _reason(e: OSError) -> str:
    return e.strerror or str(e) or type(e).__name__


def write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` to ``path`` atomically (UTF-8); a FileError naming the path if the
    directory cannot be written or the disk is full, with no partial file left.

    A path that exists and is not a regular file -- a device such as ``/dev/null`` or
    ``/dev/full``, a pipe, a directory -- is written in place (:func:`output`): the
    rename of an atomic write would *replace* it with a regular file (run as root,
    ``equity --out /dev/full`` replaced the device and reported success)."""
    p = Path(path)
    if p.exists() and not p.is_file():
        with output(p) as f:
            f.write(text)
        return p
    tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, p)
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise FileError(f"cannot write {p}: {_reason(e)}") from None
    return p


def write_with(path: str | Path, write: Callable[[Path], None]) -> Path:
    """Write ``path`` atomically with ``write``, a function that writes a whole file to the
    path it is given (a temporary file in the same directory, renamed over ``path`` once
    complete): for the writers of other libraries, such as polars' ``write_parquet``. A
    FileError naming ``path`` if it cannot be written, with no partial file left."""
    p = Path(path)
    tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, p)
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise FileError(f"cannot write {p}: {_reason(e)}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return p


@contextlib.contextmanager
def output(path: str | Path) -> Iterator[TextIO]:
    """A text stream to write to ``path`` (``-``: standard output); every OSError while
    opening, writing or closing it is a FileError naming the path (a broken pipe on
    standard output is left to the caller, which ends quietly)."""
    name = "standard output" if str(path) == "-" else str(path)
    try:
        if str(path) == "-":
            yield sys.stdout
            sys.stdout.flush()
            return
        with open(path, "w", encoding="utf-8") as f:
            yield f
    except BrokenPipeError:
        raise
    except OSError as e:
        raise FileError(f"cannot write {name}: {_reason(e)}") from None


def check_utf8_path(path: str | Path) -> None:
    """A FileError unless ``path`` is valid UTF-8 text.  A name in another encoding (a
    Latin-1 ``r\xff``) reaches Python as surrogates, which the Parquet reader (polars)
    cannot take: ``simulate --out`` wrote such a run and ``analyze`` could not read it."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        shown = os.fsencode(str(path)).decode("utf-8", "backslashreplace")
        raise FileError(
            f"{shown}: the path is not valid UTF-8, and run data (Parquet) is read by UTF-8 "
            "path only: rename it"
        ) from None


def open_regular(path: str | Path, limit: int | None = None) -> TextIO:
    """``path`` opened for reading as UTF-8 text (a BOM dropped), if it is a regular file
    (of at most ``limit`` bytes): a named pipe, a device or a directory is refused
    without waiting for it (the file is opened without blocking, then checked).

    Raises:
        FileError: not a regular file, over ``limit`` bytes, or a path that cannot name
            a file (a NUL character, a lone surrogate).
        OSError: the file cannot be opened (missing, not permitted...): the caller
            names it in its own words.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except (ValueError, UnicodeError):  # a NUL character, a surrogate not encodable
        raise FileError("the path cannot name a file (a NUL or an invalid character)") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = (
                "a directory" if stat.S_ISDIR(st.st_mode)
                else "a named pipe" if stat.S_ISFIFO(st.st_mode)
                else "a device or socket"
            )  # fmt: skip
            raise FileError(f"{shown_path(path)} is {kind}, not a regular file")
        if limit is not None and st.st_size > limit:
            raise FileError(f"{shown_path(path)} is larger than {limit:,} bytes: refused")
        os.set_blocking(fd, True)
        return open(fd, encoding="utf-8-sig")
    except BaseException:
        os.close(fd)
        raise


#: The most characters of a path an error message shows.
SHOWN_PATH = 120


def shown_path(path: str | Path) -> str:
    """A path as an error message shows it: printable whatever its characters (a lone
    surrogate escaped), a long one cut to :data:`SHOWN_PATH` characters."""
    text = str(path).encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= SHOWN_PATH else text[: SHOWN_PATH - 3] + "..."


def read_text(path: str | Path, limit: int = MAX_TEXT) -> str:
    """The text of ``path`` (UTF-8, a BOM dropped), a regular file only
    (:func:`open_regular`), refused past ``limit`` characters and as a FileError naming
    the path when it cannot be read."""
    try:
        with open_regular(path) as f:
            text = f.read(limit + 1)
    except FileNotFoundError:
        raise FileError(f"no such file: {shown_path(path)}") from None
    except UnicodeDecodeError:
        raise FileError(f"{shown_path(path)} is not a text (UTF-8) file") from None
    except OSError as e:
        raise FileError(f"cannot read {shown_path(path)}: {_reason(e)}") from None
    if len(text) > limit:
        raise FileError(f"{path} is longer than {limit:,} characters: refused")
    return text


def json_number(x: float | int) -> float | int | None:
    """A number for JSON: None for NaN or an infinity, which are not JSON (Python's
    ``json`` would write ``NaN`` / ``Infinity``); any other number as it is."""
    return None if isinstance(x, float) and not math.isfinite(x) else x


__all__ = [
    "DOCUMENTS",
    "MAX_TEXT",
    "check_utf8_path",
    "document",
    "json_number",
    "open_regular",
    "output",
    "read_text",
    "shown_path",
    "write_text",
    "write_with",
]


#: The documents shipped inside the package (``scopa_sim/documents/``, package data): the
#: rules the engine implements and the game-record format. They are the one copy: the
#: documentation site's ``docs/rules.md`` and ``docs/record.md`` include them.
DOCUMENTS = {"rules": "rules.md", "record": "record.md"}


def document(name: str) -> str:
    """The text of the shipped document ``name`` (``rules`` or ``record``), read from the
    installed package, so that ``pip install`` users have them (``scopa-sim rules``)."""
    from importlib.resources import files

    if name not in DOCUMENTS:
        raise FileError(f"unknown document {name!r}: one of {', '.join(DOCUMENTS)}")
    try:
        return (files("scopa_sim") / "documents" / DOCUMENTS[name]).read_text(encoding="utf-8")
    except OSError as e:
        raise FileError(
            f"the {name} document is missing from the installed package: {_reason(e)}"
        ) from None
