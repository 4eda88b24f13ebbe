"""Self-play of the jitted policies through :func:`scopa_sim.sim.selfplay.selfplay_points`."""

from __future__ import annotations

import numpy as np
import pytest

from scopa_sim.errors import PolicyError, SimulationError
from scopa_sim.game.rules import Rules
from scopa_sim.sim.selfplay import selfplay_points


def test_points_per_side_are_deterministic_per_seed() -> None:
    rules = Rules.make("scopa")
    a = selfplay_points(rules, ["random", "random"], 200, 7)
    assert a.shape == (200, 4) and a.dtype == np.int64
    assert (a[:, 2:] == 0).all() and (a[:, :2] >= 0).all() and a[:, :2].sum() > 0
    assert (selfplay_points(rules, ["random", "random"], 200, 7) == a).all()
    assert (selfplay_points(rules, ["random", "random"], 200, 8) != a).any()
    # hand h is the same hand whatever the count: the streams are per hand
    assert (selfplay_points(rules, ["random", "random"], 50, 7) == a[:50]).all()


def test_expert_beats_greedy_on_the_same_deals() -> None:
    rules = Rules.make("scopa")
    a = selfplay_points(rules, ["expert", "greedy"], 2000, 1)
    b = selfplay_points(rules, ["greedy", "expert"], 2000, 1)
    assert ((a[:, 0] - a[:, 1]) + (b[:, 1] - b[:, 0])).mean() > 0.5


@pytest.mark.parametrize(
    ("policies", "hands", "error", "says"),
    [(["random"], 10, PolicyError, "need 2 policies"),
     (["random", "ismcts"], 10, PolicyError, "not a jitted policy"),
     (["random", "random"], 0, SimulationError, "at least 1 hand")],
)  # fmt: skip
def test_bad_input_raises(policies: list[str], hands: int, error: type, says: str) -> None:
    with pytest.raises(error, match=says):
        selfplay_points(Rules.make("scopa"), policies, hands, 1)
