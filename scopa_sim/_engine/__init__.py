"""The rules engine's numba kernels: masks in, masks out.

Everything here works on plain int64 arrays so that it compiles once and is cached
(``cache=True``).  The Python API in :mod:`scopa_sim.state` validates input and wraps
these; the other modules import the package (``from . import _engine as K``), which
re-exports the public names of its modules:

* :mod:`.layout`: the layouts of the rules, state, row and work vectors and the card
  masks, named once, and :func:`~.layout.pack_rules`;
* :mod:`.bits`: the bit intrinsics (``popcount``, ``ctz``);
* :mod:`.streams`: the random streams (SplitMix64, derived seeds, the deal's shuffle);
* :mod:`.capture`: counting, enumerating and picking captures, the one place a game's
  capture rule lives;
* :mod:`.scoring`: the scoring of a hand, for every loop;
* :mod:`.policy`: the kernel policies' play values (greedy, expert);
* :mod:`.step`: the step kernels (deal, legal plays, apply, score, play out);
* :mod:`.fused`: the fused self-play loop behind ``simulate``;
* :mod:`.fused_cirulla`: its Cirulla twin (RULES.md §10), on the Cirulla step kernels;
* :mod:`.rows`: a run's rows through the step kernels (duplicate deals) and the deal
  features of the control variates;
* :mod:`.deals`: the one routine that deals a round (every loop deals with it), the
  deal order for Python code, and the deals of any rows of a run dealt again (the
  opening table, each seat's cards at each deal), for the analyses of what a deal is
  worth.

The search kernels are imported on their own (``from ._engine import ismcts as KI``):

* :mod:`.determinize`: worlds consistent with what a seat knows;
* :mod:`.values`: hand margins, the match objective's table and the heuristic values of
  depth-limited positions;
* :mod:`.solver`: the exact (or depth-limited) alpha-beta solver of one world;
* :mod:`.solver_cirulla`: the solver of one Cirulla world (the matta's value and the
  declaration chosen with the play);
* :mod:`.pimc`: perfect-information Monte Carlo over sampled worlds;
* :mod:`.ismcts`: single-observer ISMCTS;
* :mod:`.evaluator`: the review's evaluator (rollouts, then the solver in open endgames);
* :mod:`.belief`: beliefs over the hidden cards (particles, the play model's likelihood).

Caching: numba's on-disk cache of a function is keyed on its own file only, so a
change to a kernel in one module would leave stale machine code in the cache of any
module whose kernels call it.  :func:`_drop_stale_cache` therefore records a hash of
all the package's files next to the cache and removes every cached kernel of the
package when it changes.  For the same reason every cached kernel that calls the
engine lives in this package (``tests/test_engine.py`` checks it).
"""

from __future__ import annotations

import hashlib
import inspect
from pathlib import Path
from typing import Any

#: Name of the file that records the hash of the package's sources in its cache directory.
STAMP = "engine.sources-stamp"


def _cache_dir() -> Path:
    """The directory numba caches this package's kernels in: the first of numba's cache
    locators that accepts this file (``NUMBA_CACHE_DIR``, else ``__pycache__`` next to
    the sources, else the user's cache), as numba itself picks it."""
    here = Path(__file__).resolve().parent
    try:
        from numba.core import caching

        source = inspect.getfile(_cache_dir)
        locators: list[Any] = caching.CacheImpl._locator_classes
        for cls in locators:
            locator = cls.from_function(_cache_dir, source)
            if locator is not None:
                return Path(locator.get_cache_path())
    except Exception:  # pragma: no cover - numba's internals moved: the usual place
        pass
    return here / "__pycache__"


def sources_stamp(directory: Path | None = None) -> str:
    """A hash of every module of the package (names and contents), or of the ``.py``
    files of ``directory``."""
    digest = hashlib.sha1()
    for f in sorted((directory or Path(__file__).resolve().parent).glob("*.py")):
        digest.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
    return digest.hexdigest()


def _drop_stale_cache() -> None:
    """Remove the package's numba cache files when any of its modules changed since they
    were written (numba only checks the file that defines each kernel)."""
    try:
        stamp = sources_stamp()
        cache = _cache_dir()
        mark = cache / STAMP
        old = mark.read_text() if mark.exists() else ""
        if old != stamp:
            for f in cache.glob("*.nb[ic]"):
                f.unlink(missing_ok=True)
            cache.mkdir(parents=True, exist_ok=True)
            mark.write_text(stamp)
    except OSError:  # pragma: no cover - read-only install: numba falls back as usual
        pass


_drop_stale_cache()

from .bits import *  # noqa: E402, F403
from .capture import *  # noqa: E402, F403
from .deals import *  # noqa: E402, F403
from .fused import *  # noqa: E402, F403
from .fused_cirulla import *  # noqa: E402, F403
from .layout import *  # noqa: E402, F403
from .policy import *  # noqa: E402, F403
from .rows import *  # noqa: E402, F403
from .scoring import *  # noqa: E402, F403
from .step import *  # noqa: E402, F403
from .streams import *  # noqa: E402, F403
