"""The analysis board: ``scopa-sim board`` serves a local web app to set up or load a
position and see every play's value, step through a recorded game with its review, play
the bots, and solve puzzles drawn from one's own mistakes (docs/guide/board.md).

:func:`~scopa_sim.board.app.create_app` makes the app (Starlette); :func:`serve` runs it
with uvicorn; the long work runs in :mod:`scopa_sim.board.jobs`' worker process.
"""

from scopa_sim.board.app import create_app
from scopa_sim.board.server import serve

__all__ = ["create_app", "serve"]
