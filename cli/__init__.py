"""The ``scopa-sim`` command-line application (click), a thin layer over ``scopa_sim``.

Two start-up savings, for the command-line process only (a program that imports the
library keeps numba's and OpenBLAS's defaults):

* BLAS is never on a hot path here, but OpenBLAS starts a thread per core at import
  (numpy's and scipy's copies both) that spin for a while: about 0.2 s of CPU taken
  from the simulation threads at every start.  A user's own setting is kept.
* numba probes at the first jitted call whether scipy's BLAS is there (for ``np.dot``
  in jitted code, which the kernels never use) by importing ``scipy.linalg``: 0.15
  to 0.25 s before the first kernel runs.  The probe is answered "no" here; scipy itself
  imports normally afterwards (the statistics use it).
"""

from __future__ import annotations

import importlib.abc
import os
import signal
import sys
from importlib.machinery import ModuleSpec
from types import FrameType

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


class _NoBlasProbe(importlib.abc.MetaPathFinder):
    """Fails the import of scipy's Cython BLAS (and of ``scipy.linalg``, its package,
    which is the slow part) while numba's array module loads."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> ModuleSpec | None:
        if name in ("scipy.linalg", "scipy.linalg.cython_blas"):
            raise ImportError("skipped by scopa-sim: no BLAS in jitted code")
        return None


def _load_numba_without_blas_probe() -> None:
    if "numba.np.arraymath" in sys.modules:
        return
    finder = _NoBlasProbe()
    sys.meta_path.insert(0, finder)
    try:
        import numba.np.arraymath  # noqa: F401 - its import runs the probe
    except ImportError:  # another numba layout: nothing to skip
        pass
    finally:
        sys.meta_path.remove(finder)


def _numba_or_exit() -> None:
    """Load numba, or end at once with one line when its settings in the environment are
    invalid (``NUMBA_NUM_THREADS=0``, say): numba raises at import, before any command
    could turn the error into a message."""
    try:
        _load_numba_without_blas_probe()
    except (ValueError, TypeError, RuntimeError) as e:
        names = ", ".join(sorted(k for k in os.environ if k.startswith("NUMBA_"))) or "none"
        sys.stderr.write(f"Error: invalid numba setting in the environment ({names}): {e}\n")
        sys.exit(2)


def _interrupted_while_starting(signum: int, frame: FrameType | None) -> None:
    """Ctrl-C while the command's modules load (a second or so: numba, the library):
    nothing to clean up yet, so one line and status 130 at once, not the traceback of
    an import. :func:`scopa_sim_cli.main.main` hands Ctrl-C back to Python."""
    try:
        sys.stderr.write("interrupted: scopa-sim stopped while starting\n")
        sys.stderr.flush()
    finally:
        os._exit(130)


def _catch_ctrl_c_while_starting() -> None:
    """In the ``scopa-sim`` command only (not in a program or test that imports this
    package), and unless Ctrl-C is ignored (a background job): Ctrl-C during the
    imports ends the command in one line (:func:`_interrupted_while_starting`)."""
    if os.path.basename(sys.argv[0] if sys.argv else "") != "scopa-sim":
        return
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _interrupted_while_starting)


_catch_ctrl_c_while_starting()
_numba_or_exit()
