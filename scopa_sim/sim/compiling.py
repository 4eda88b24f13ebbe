"""A one-line notice when numba compiles a kernel: what, and about how long it takes.

numba compiles a kernel the first time it runs on a machine and keeps the machine code in
its on-disk cache (``cache=True``); later processes load it in a fraction of a second. The
first ``simulate``, ``advise`` or ``play`` on a fresh install therefore waits, silently,
for one to several minutes. With :func:`notices` (or :func:`install`) on, the first
compilation of each group of kernels prints one line on standard error, such as::

    compiling the ISMCTS search under Scopa's capture rule (first use only: about 1 min on
    2 free cores, several times that on a busy machine; `scopa-sim warm` compiles every
    kernel ahead of use)

How it knows: numba broadcasts a ``"numba:compile"`` event (``numba.core.event``) from
``Dispatcher.compile`` only after its in-memory overloads and its on-disk cache both
missed, just before it compiles. A listener on that event therefore fires exactly when a
kernel is about to compile and never when the cache holds it. Kernels called from a
kernel being compiled compile inside it (nested events): only the outermost one is named.

The kernels of the process pool's workers (:mod:`scopa_sim.sim.pool`) compile in those
processes: a pool started while the notices are on turns them on in its workers, which
share a directory of marks (one empty file per group, created exclusively) so that a
group compiled by several processes at once is still announced once.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

#: The groups of kernels a notice names, by module (the last part of the kernel's
#: module name): what compiles, and about how long it takes on 2 free cores (the costs
#: of :data:`scopa_sim.sim.warm.TASKS`; a busy machine takes several times longer).
GROUPS: dict[str, tuple[str, str]] = {
    "fused": ("the self-play loop", "about 25 s"),
    "ismcts": ("the ISMCTS search", "about 1 min"),
    "ismcts_cirulla": ("the ISMCTS search on Cirulla", "about 20 s"),
    "pimc": ("the PIMC search", "about 1 min"),
    "solver": ("the endgame solver", "about 30 s"),
    "evaluator": ("the review's evaluator", "about 30 s"),
    "determinize": ("the search's world sampler", "about 10 s"),
    "values": ("the search's position values", "about 10 s"),
    "belief": ("the belief over hidden hands", "about 30 s"),
    "rows": ("the duplicate-deal loop", "about 10 s"),
    "step": ("the step-by-step game kernels", "about 10 s"),
    "capture": ("the capture rule's kernels", "about 5 s"),
    "scoring": ("the scoring kernels", "a few seconds"),
    "policy": ("the greedy and expert policies", "about 10 s"),
    "streams": ("the random streams", "a few seconds"),
    "layout": ("the engine's layout helpers", "a few seconds"),
    "bits": ("the engine's bit helpers", "a few seconds"),
    "equity": ("the match-equity programme", "a few seconds"),
    "encoding": ("the shard encoder", "a few seconds"),
}

#: The kernels' packages: a compilation of anything else (a user's own numba code) is
#: not announced.
PACKAGES = ("scopa_sim._engine.", "scopa_sim.stats.", "scopa_sim.data.")


def notice_text(module: str, name: str) -> str | None:
    """The notice for compiling kernel ``name`` of ``module``, or None when it is not one
    of this package's kernels. Kernels whose name ends in ``15`` are the sum-to-fifteen
    rule's twins (Scopa a quindici, Escoba), compiled apart from Scopa's."""
    if not module.startswith(PACKAGES):
        return None
    what, how_long = GROUPS.get(module.rsplit(".", 1)[-1], ("the engine's kernels", "a minute"))
    if name.rstrip("_").endswith("15"):
        what += " under the sum-to-fifteen rule"
    elif module.endswith((".fused", ".ismcts", ".pimc", ".policy")):
        what += " under Scopa's capture rule"
    return (
        f"compiling {what} (first use only: {how_long} on 2 free cores, several times that "
        "on a busy machine; `scopa-sim warm` compiles every kernel ahead of use)"
    )


def _group(module: str, name: str) -> str:
    """The key a notice is given once for: the module, and the fifteen rule or not."""
    return module.rsplit(".", 1)[-1] + ("15" if name.rstrip("_").endswith("15") else "")


def _stderr_line(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


@dataclass(frozen=True)
class Settings:
    """What a process needs to give the notices: where the marks of groups already
    announced live (shared by the processes of one command), or None for this process
    alone."""

    marks: str | None = None


class _Listener:
    """The ``numba:compile`` listener (a ``numba.core.event.Listener``, built by
    :func:`_listener` so that numba is imported only when the notices are turned on)."""

    def __init__(self, settings: Settings, write: Callable[[str], None]) -> None:
        self.settings = settings
        self.write = write
        self.depth = threading.local()
        self.said: set[str] = set()

    def start(self, data: dict[str, Any]) -> None:
        """A kernel starts compiling: announce its group once, if it is the outermost compile."""
        depth = getattr(self.depth, "n", 0)
        self.depth.n = depth + 1
        if depth:
            return
        func = getattr(data.get("dispatcher"), "py_func", None)
        if func is None:
            return
        module, name = getattr(func, "__module__", "") or "", func.__name__
        text = notice_text(module, name)
        if text is None or not self._first(_group(module, name)):
            return
        self.write(text)

    def end(self) -> None:
        """A kernel finished compiling."""
        self.depth.n = max(0, getattr(self.depth, "n", 1) - 1)

    def _first(self, group: str) -> bool:
        """Whether ``group`` is announced for the first time (in this process, and in
        the command's other processes when they share marks)."""
        if group in self.said:
            return False
        self.said.add(group)
        if self.settings.marks is None:
            return True
        try:
            fd = os.open(os.path.join(self.settings.marks, group), os.O_CREAT | os.O_EXCL)
        except FileExistsError:
            return False
        except OSError:  # the marks went away (the command ended): say it here
            return True
        os.close(fd)
        return True


_STATE: dict[str, Any] = {}  # "listener": the installed _Listener, "numba": its adapter


def _listener(listener: _Listener) -> Any:
    from numba.core import event

    class Adapter(event.Listener):
        def on_start(self, ev: Any) -> None:
            listener.start(ev.data or {})

        def on_end(self, ev: Any) -> None:
            listener.end()

    return Adapter()


def install(settings: Settings | None = None, write: Callable[[str], None] | None = None) -> None:
    """Turn the notices on in this process (again: replaces the previous settings):
    ``write`` takes each line (default: standard error)."""
    from numba.core import event

    uninstall()
    listener = _Listener(settings or Settings(), write or _stderr_line)
    adapter = _listener(listener)
    event.register("numba:compile", adapter)
    _STATE.update(listener=listener, numba=adapter)


def uninstall() -> None:
    """Turn the notices off in this process."""
    adapter = _STATE.pop("numba", None)
    _STATE.pop("listener", None)
    if adapter is not None:
        from numba.core import event

        event.unregister("numba:compile", adapter)


def settings() -> Settings | None:
    """The notices' settings in this process, None when they are off: what a worker
    process of :mod:`scopa_sim.sim.pool` is started with."""
    listener = _STATE.get("listener")
    return None if listener is None else listener.settings


@contextmanager
def notices(write: Callable[[str], None] | None = None) -> Iterator[None]:
    """The notices on for the block, in this process and in the workers of process pools
    started inside it, each group announced once among them all."""
    marks = tempfile.mkdtemp(prefix="scopa-compile-")
    install(Settings(marks), write)
    try:
        yield
    finally:
        uninstall()
        shutil.rmtree(marks, ignore_errors=True)
