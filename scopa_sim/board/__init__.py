"""The analysis board: ``scopa-sim board`` serves a local web app to set up or load a
position and see every play's value, step through a recorded game with its review, play
the bots, and solve puzzles drawn from one's own mistakes (docs/guide/board.md).

:func:`~scopa_sim.board.app.create_app` makes the app (Starlette); :func:`serve` runs it
with uvicorn (:func:`loopback` tells whether an address serves this machine only); the
long work runs in :mod:`scopa_sim.board.jobs`' worker process. This package is the
board's face for a front door (the command line imports these names from here).
"""

from scopa_sim.board.app import create_app, loopback
from scopa_sim.board.server import serve

__all__ = ["create_app", "loopback", "serve"]
