"""Imported by the process pool's forkserver alone (its preload, see
:func:`scopa_sim.sim.pool._start_forkserver`), never by the library itself.

Every worker the forkserver forks starts watching, from the fork on, the process that
started the forkserver (the pool's owner): the pool's initializer, which also watches,
runs only once the worker has imported what its tasks need, seconds later for a
benchmark script, and a worker whose parent is killed in that time would finish
starting first. The import also loads the library into the forkserver, so that every
worker has it from the fork instead of importing it again.
"""

from __future__ import annotations

import os

from scopa_sim.sim import pool

#: In the forkserver: the process that started it.
CLIENT = os.getppid()


def _watch_client() -> None:
    pool.watch(CLIENT)


os.register_at_fork(after_in_child=_watch_client)
