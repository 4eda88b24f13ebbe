"""Self-play of the jitted policies in the fused loop: whole hands, points per side.

The loop the simulations run (each hand dealt and played from streams derived from
the seed and the hand's index, dealer = hand index mod players), without the rows
they record: for timing the loop and for quick strength checks between the jitted
policies.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from scopa_sim import _engine as K
from scopa_sim.bots.base import KERNEL_CODES
from scopa_sim.bots.learned_weights import seat_model
from scopa_sim.errors import PolicyError, SimulationError
from scopa_sim.game.rules import Rules


def selfplay_points(rules: Rules, policies: Sequence[str], hands: int, seed: int) -> np.ndarray:
    """Play ``hands`` independent hands with seat ``s`` played by ``policies[s]``.

    Args:
        rules: the game.
        policies: one jitted policy per seat (``random``, ``greedy``, ``expert`` or
            ``learned``, which plays the rules' shipped weights).
        hands: how many hands, at least 1.
        seed: the run seed (the same seed gives the same hands).

    Returns:
        An int64 array of shape ``(hands, 4)``: hand ``h``'s points of each side in
        columns ``0 .. rules.sides - 1`` (the other columns 0).

    Raises:
        PolicyError: a policy is not a jitted one, or not one per seat; ``learned`` under
            rules without weights.
        FileError: the learned policy's weights file is missing or corrupt.
        SimulationError: ``hands`` is below 1.
    """
    if len(policies) != rules.players:
        raise PolicyError(f"need {rules.players} policies, one per seat, got {len(policies)}")
    for p in policies:
        if p not in KERNEL_CODES:
            raise PolicyError(f"{p!r} is not a jitted policy: one of {', '.join(KERNEL_CODES)}")
    if hands < 1:
        raise SimulationError(f"need at least 1 hand, got {hands}")
    codes = np.zeros(4, dtype=np.int64)
    codes[: len(policies)] = [KERNEL_CODES[p] for p in policies]
    out = np.zeros((hands, 4), dtype=np.int64)
    r = rules.loop_array()
    model = seat_model(rules, policies)  # refuses learned where it has no weights
    if rules.cirulla:
        none = np.empty((0, 0), np.int32)
        m = K.kernel_model(codes, model)
        kernel = K.cirulla_kernel(r)
        kernel(r, codes, seed, 0, hands, K.MODE_SELFPLAY, out, none, m)
    else:
        K.selfplay_hands(r, codes, seed, hands, out, model=model)
    return out
