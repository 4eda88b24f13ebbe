"""First-player advantage from independent self-play hands, with confidence intervals.

Hands are played in memory exactly as ``simulate --hands`` plays them (hand ``h``
is dealt by seat ``h % players`` from streams derived from ``(seed, h)``), so the
result depends only on the configuration and the seed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from scopa_sim.bots.registry import PolicySpec
from scopa_sim.data.run import SimConfig
from scopa_sim.errors import AnalysisError
from scopa_sim.game.rules import Rules
from scopa_sim.sim.shards import compute_rows, row_buffer, row_points
from scopa_sim.stats.estimate import Estimate
from scopa_sim.stats.inference import normal_ci_from_sums

CHUNK = 200_000
#: The most hands :func:`first_player_advantage` takes: hand numbers stay far inside the
#: kernels' int64 (and 10^15 hands would take decades at a million hands per second).
MAX_HANDS = 10**15


@dataclass(frozen=True)
class AdvantageResult:
    """Points per hand by playing position (0 = first player, last = dealer)."""

    rules: Rules
    policies: tuple[PolicySpec, ...]
    seed: int
    hands: int
    by_position: tuple[Estimate, ...]
    dealer_margin: Estimate  # dealer's side minus the first player's side, per hand
    seconds: float


def position_points(rules: Rules, points: np.ndarray, first_hand: int) -> np.ndarray:
    """Rearrange ``points[hand, side]`` into ``[hand, position]`` (0 = first player)."""
    n = rules.players
    hands = np.arange(first_hand, first_hand + points.shape[0])
    dealer = hands % n
    out = np.empty((points.shape[0], n), dtype=np.int64)
    for p in range(n):
        seat = (dealer + 1 + p) % n
        side = seat % 2 if rules.teams else seat
        out[:, p] = points[np.arange(points.shape[0]), side]
    return out


def first_player_advantage(
    rules: Rules,
    policies: Sequence[PolicySpec],
    hands: int,
    seed: int,
    progress: Callable[[int], None] | None = None,
) -> AdvantageResult:
    """Play ``hands`` independent hands and estimate the points per position.

    Raises:
        AnalysisError: ``hands`` is not a whole number from 2 to 10^15.
    """
    if type(hands) is not int or not 2 <= hands <= MAX_HANDS:
        raise AnalysisError(
            f"the number of hands must be a whole number 2..10^15 (two at least for a "
            f"confidence interval), not {hands!r}"
        )
    config = SimConfig(
        preset=rules.preset_name() or "custom",
        rules=rules,
        policies=tuple(str(p) for p in policies),
        mode="hands",
        count=hands,
        seed=seed,
        shard_size=CHUNK,
    )
    n = rules.players
    # Exact integer sums and sums of squares per position (and of the dealer's margin,
    # last), chunk by chunk: memory does not grow with the number of hands.
    s1, s2 = [0] * (n + 1), [0] * (n + 1)
    start = time.perf_counter()
    done = 0
    buf = row_buffer(min(CHUNK, hands))
    while done < hands:
        k = min(CHUNK, hands - done)
        cols = compute_rows(config, done, k, buf)
        points = row_points(cols, rules.sides)
        pos = position_points(rules, points, done)
        values = np.concatenate([pos, pos[:, n - 1 : n] - pos[:, 0:1]], axis=1)
        for j in range(n + 1):
            s1[j] += int(values[:, j].sum())
            s2[j] += int((values[:, j] * values[:, j]).sum())
        done += k
        if progress is not None:
            progress(k)
    elapsed = time.perf_counter() - start
    return AdvantageResult(
        rules=rules,
        policies=tuple(policies),
        seed=seed,
        hands=hands,
        by_position=tuple(normal_ci_from_sums(hands, s1[p], s2[p]) for p in range(n)),
        dealer_margin=normal_ci_from_sums(hands, s1[n], s2[n]),
        seconds=elapsed,
    )
