"""Match equity by dynamic programming over independent hand results.

No policy looks at the match totals and every hand is dealt from its own stream, so the
hands of a match are i.i.d. given who deals, and a match between two sides is a Markov
chain on (score of one side, score of the other, which side deals next). Its winning
probabilities follow exactly from the distribution of one hand's result: the points of
the dealer's side and of the first player's side, and which side (if any) captured all
the denari (it wins the match outright under ``napola_all_denari_wins``).

The rules of RULES.md §6: after a hand, a side with all the denari wins (with that
option); else the side with the most points wins once it has at least the target; a tie
at the top plays on. The dealer rotates, so with two sides the dealing side alternates
(also with four players in two teams). States are the scores below the target (both
sides) and the tie at or above the target (one state per dealing side, whatever the
score, since from there the next leader wins); hands scoring 0-0 leave the scores
unchanged and only pass the deal, which the 2x2 solve of each score pair handles
exactly (no iteration needed).

Estimates come with percentile bootstrap intervals: the hand-result distribution is
resampled as a multinomial over the observed hands (the bootstrap over hands) and the
programme solved again for each replicate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

#: Flag of a hand result: no side took all the denari, the dealer's side did, the
#: first player's side did.
NONE, DEALER, FIRST = 0, 1, 2


@dataclass(frozen=True)
class HandOutcomes:
    """The distinct results of a hand and how often each was observed."""

    dealer_points: np.ndarray  # int64 [K]
    first_points: np.ndarray  # int64 [K]
    all_denari: np.ndarray  # int64 [K], NONE / DEALER / FIRST
    counts: np.ndarray  # int64 [K]

    @property
    def n(self) -> int:
        return int(self.counts.sum())

    @classmethod
    def of(
        cls, dealer_points: np.ndarray, first_points: np.ndarray, all_denari: np.ndarray
    ) -> HandOutcomes:
        """Tally per-hand arrays (one entry per hand)."""
        keys = np.stack(
            [np.asarray(dealer_points), np.asarray(first_points), np.asarray(all_denari)],
            axis=1,
        ).astype(np.int64)
        uniq, counts = np.unique(keys, axis=0, return_counts=True)
        return cls(uniq[:, 0].copy(), uniq[:, 1].copy(), uniq[:, 2].copy(), counts)


@njit(cache=True)
def _solve(dp, fp, fl, probs, target, denari_wins, out, tie):  # pragma: no cover - jitted
    """``out[b, x, y, d]``: P(side X wins) from scores (x, y) < target with the dealer's
    side d (0: X deals, 1: Y deals), for each row b of ``probs``; ``tie[b, d]`` the same
    from a tie at or above the target."""
    nb, k = probs.shape
    for b in range(nb):
        # the tie at the top: the next hand's leader wins (or all denari), a tie plays on
        w = np.zeros(2)
        q = np.zeros(2)
        for d in range(2):
            for j in range(k):
                p = probs[b, j]
                if p == 0.0:
                    continue
                gx = dp[j] if d == 0 else fp[j]
                gy = fp[j] if d == 0 else dp[j]
                if denari_wins and fl[j] != 0:
                    x_has = (fl[j] == 1) == (d == 0)
                    if x_has:
                        w[d] += p
                elif gx > gy:
                    w[d] += p
                elif gx == gy:
                    q[d] += p
        tie[b, 0] = (w[0] + q[0] * w[1]) / (1.0 - q[0] * q[1])
        tie[b, 1] = (w[1] + q[1] * w[0]) / (1.0 - q[0] * q[1])
        for s in range(2 * target - 2, -1, -1):  # score sums, highest first
            for x in range(min(s, target - 1), -1, -1):
                y = s - x
                if y >= target or y < 0:
                    continue
                r = np.zeros(2)
                loop = np.zeros(2)
                for d in range(2):
                    for j in range(k):
                        p = probs[b, j]
                        if p == 0.0:
                            continue
                        gx = dp[j] if d == 0 else fp[j]
                        gy = fp[j] if d == 0 else dp[j]
                        if denari_wins and fl[j] != 0:
                            if (fl[j] == 1) == (d == 0):
                                r[d] += p
                            continue
                        nx, ny = x + gx, y + gy
                        if nx >= target or ny >= target:
                            if nx > ny:
                                r[d] += p
                            elif nx == ny:
                                r[d] += p * tie[b, 1 - d]
                        elif gx == 0 and gy == 0:
                            loop[d] += p
                        else:
                            r[d] += p * out[b, nx, ny, 1 - d]
                den = 1.0 - loop[0] * loop[1]
                out[b, x, y, 0] = (r[0] + loop[0] * r[1]) / den
                out[b, x, y, 1] = (r[1] + loop[1] * r[0]) / den


def solve(
    outcomes: HandOutcomes, target: int, denari_wins: bool, probs: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Win probabilities of side X: ``V[b, x, y, d]`` from scores ``(x, y)`` below the
    target with ``d`` = 0 when X deals next, 1 when Y does, and ``T[b, d]`` from a tie at
    or above it; one row ``b`` per row of ``probs`` (default: the observed frequencies)."""
    if target < 1:
        raise ValueError("the target must be at least 1")
    if probs is None:
        probs = (outcomes.counts / outcomes.counts.sum())[None, :]
    probs = np.ascontiguousarray(probs, dtype=np.float64)
    out = np.zeros((probs.shape[0], target, target, 2))
    tie = np.zeros((probs.shape[0], 2))
    _solve(
        outcomes.dealer_points,
        outcomes.first_points,
        outcomes.all_denari,
        probs,
        target,
        denari_wins,
        out,
        tie,
    )
    return out, tie


def bootstrap_probs(outcomes: HandOutcomes, replicates: int, seed: int) -> np.ndarray:
    """Multinomial resamples of the observed hands, as frequencies (``replicates`` rows)."""
    rng = np.random.default_rng(seed)
    n = outcomes.n
    p = outcomes.counts / n
    return rng.multinomial(n, p, size=replicates) / n


@dataclass(frozen=True)
class Equity:
    """A match-level probability with its percentile bootstrap interval."""

    estimate: float
    low: float
    high: float
    n: int  # hands behind it
    replicates: int


def equity_table(
    outcomes: HandOutcomes, target: int, denari_wins: bool, replicates: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Point estimates and 95% percentile bounds of ``V[x, y, d]`` (see :func:`solve`)."""
    est, _ = solve(outcomes, target, denari_wins)
    boot, _ = solve(outcomes, target, denari_wins, bootstrap_probs(outcomes, replicates, seed))
    low = np.quantile(boot, 0.025, axis=0)
    high = np.quantile(boot, 0.975, axis=0)
    return est[0], low, high


def first_mover_win(
    outcomes: HandOutcomes, target: int, denari_wins: bool, replicates: int, seed: int
) -> Equity:
    """P(the side that plays first in the first hand wins the match): from 0-0 with the
    other side dealing."""
    est, low, high = equity_table(outcomes, target, denari_wins, replicates, seed)
    return Equity(
        float(est[0, 0, 1]), float(low[0, 0, 1]), float(high[0, 0, 1]), outcomes.n, replicates
    )


__all__ = [
    "DEALER",
    "FIRST",
    "NONE",
    "Equity",
    "HandOutcomes",
    "bootstrap_probs",
    "equity_table",
    "first_mover_win",
    "solve",
]


# --------------------------------------------------------------------------- three sides
#: Deficits (points behind the leaders) beyond this, in a tie at the top above the target,
#: count as out of the match: catching up from there has a probability below any printed
#: digit (each tied hand is one in several, and a hand gives a few points).
MAX_DEFICIT = 40


@dataclass(frozen=True)
class PositionOutcomes:
    """Distinct hand results by playing position (0 = first player .. last = dealer, one
    side each) and the position that took all the denari (-1: none), with their counts."""

    points: np.ndarray  # int64 [K, S]
    all_denari: np.ndarray  # int64 [K], a position or -1
    counts: np.ndarray  # int64 [K]

    @property
    def n(self) -> int:
        return int(self.counts.sum())

    @property
    def sides(self) -> int:
        return int(self.points.shape[1])

    @classmethod
    def of(cls, points: np.ndarray, all_denari: np.ndarray) -> PositionOutcomes:
        keys = np.column_stack([np.asarray(points), np.asarray(all_denari)]).astype(np.int64)
        uniq, counts = np.unique(keys, axis=0, return_counts=True)
        return cls(uniq[:, :-1].copy(), uniq[:, -1].copy(), counts)


@njit(cache=True)
def _solve3(pts, den, probs, target, denari_wins, cap, out):  # pragma: no cover - jitted
    """``out[b, x, y, z, d]``: P(side 0 wins) from scores (x, y, z) below the target, side
    d dealing the next hand (position p of a hand is side (d + 1 + p) % 3)."""
    nb, k = probs.shape
    # ties at the top above the target: deficits (a, b, c) from the leaders' score, min 0
    # with two zeros at least; a deficit of cap + 1 is out of the match
    m = cap + 2
    ot = np.zeros((m, m, m, 3))
    new = np.zeros((m, m, m, 3))
    gains = np.zeros((3, k, 3), dtype=np.int64)  # [dealer, outcome, side]
    wins0 = np.zeros((3, k), dtype=np.bool_)  # side 0 took all the denari
    for d in range(3):
        for j in range(k):
            for q in range(3):
                gains[d, j, (d + 1 + q) % 3] = pts[j, q]
            wins0[d, j] = den[j] >= 0 and (d + 1 + den[j]) % 3 == 0
    sc = np.zeros(3, dtype=np.int64)
    for b in range(nb):
        ot[:] = 0.0
        for _it in range(10_000):
            delta = 0.0
            for a0 in range(m):
                for a1 in range(m):
                    for a2 in range(m):
                        zeros = (a0 == 0) + (a1 == 0) + (a2 == 0)
                        if zeros < 2:
                            continue
                        for d in range(3):
                            v = 0.0
                            for j in range(k):
                                p = probs[b, j]
                                if p == 0.0:
                                    continue
                                gain = gains[d, j]
                                if denari_wins and den[j] >= 0:
                                    if wins0[d, j]:
                                        v += p
                                    continue
                                sc[0] = -a0 + gain[0] if a0 <= cap else -(10**6)
                                sc[1] = -a1 + gain[1] if a1 <= cap else -(10**6)
                                sc[2] = -a2 + gain[2] if a2 <= cap else -(10**6)
                                top = max(sc[0], max(sc[1], sc[2]))
                                lead = (sc[0] == top) + (sc[1] == top) + (sc[2] == top)
                                if lead == 1:
                                    if sc[0] == top:
                                        v += p
                                    continue
                                n0 = min(top - sc[0], cap + 1)
                                n1 = min(top - sc[1], cap + 1)
                                n2 = min(top - sc[2], cap + 1)
                                v += p * ot[n0, n1, n2, (d + 1) % 3]
                            delta = max(delta, abs(v - new[a0, a1, a2, d]))
                            new[a0, a1, a2, d] = v
            ot[:] = new
            if delta < 1e-14:
                break
        for s in range(3 * target - 3, -1, -1):  # score sums, highest first
            for x in range(min(s, target - 1), -1, -1):
                for y in range(min(s - x, target - 1), -1, -1):
                    z = s - x - y
                    if z >= target:
                        continue
                    r = np.zeros(3)
                    p0 = 0.0
                    for d in range(3):
                        for j in range(k):
                            p = probs[b, j]
                            if p == 0.0:
                                continue
                            gain = gains[d, j]
                            if denari_wins and den[j] >= 0:
                                if wins0[d, j]:
                                    r[d] += p
                                continue
                            if gain[0] == 0 and gain[1] == 0 and gain[2] == 0:
                                if d == 0:
                                    p0 += p
                                continue
                            nx, ny, nz = x + gain[0], y + gain[1], z + gain[2]
                            top = max(nx, max(ny, nz))
                            if top < target:
                                r[d] += p * out[b, nx, ny, nz, (d + 1) % 3]
                                continue
                            lead = (nx == top) + (ny == top) + (nz == top)
                            if lead == 1:
                                if nx == top:
                                    r[d] += p
                                continue
                            n0 = min(top - nx, cap + 1)
                            n1 = min(top - ny, cap + 1)
                            n2 = min(top - nz, cap + 1)
                            r[d] += p * ot[n0, n1, n2, (d + 1) % 3]
                    # 0-0-0 hands only pass the deal, around the three dealers
                    den3 = 1.0 - p0**3
                    for d in range(3):
                        v = r[d] + p0 * r[(d + 1) % 3] + p0 * p0 * r[(d + 2) % 3]
                        out[b, x, y, z, d] = v / den3


def solve3(
    outcomes: PositionOutcomes,
    target: int,
    denari_wins: bool,
    probs: np.ndarray | None = None,
    cap: int = MAX_DEFICIT,
) -> np.ndarray:
    """Three sides (3 players): ``V[b, x, y, z, d]`` = P(side 0 wins) from scores (x, y, z)
    of sides 0, 1, 2 below the target, side ``d`` dealing next; one row ``b`` per row of
    ``probs`` (default: the observed frequencies). Ties at the top above the target are
    solved by value iteration over the deficits (see :data:`MAX_DEFICIT`)."""
    if outcomes.sides != 3:
        raise ValueError("solve3 is for three sides")
    if target < 1:
        raise ValueError("the target must be at least 1")
    if probs is None:
        probs = (outcomes.counts / outcomes.counts.sum())[None, :]
    probs = np.ascontiguousarray(probs, dtype=np.float64)
    out = np.zeros((probs.shape[0], target, target, target, 3))
    _solve3(outcomes.points, outcomes.all_denari, probs, target, denari_wins, cap, out)
    return out


def first_mover_win3(
    outcomes: PositionOutcomes, target: int, denari_wins: bool, replicates: int, seed: int
) -> Equity:
    """:func:`first_mover_win` for three sides: side 0 plays first, side 2 deals."""
    est = solve3(outcomes, target, denari_wins)[0, 0, 0, 0, 2]
    rng = np.random.default_rng(seed)
    p = outcomes.counts / outcomes.n
    boot = rng.multinomial(outcomes.n, p, size=replicates) / outcomes.n
    vals = solve3(outcomes, target, denari_wins, boot)[:, 0, 0, 0, 2]
    low, high = np.quantile(vals, [0.025, 0.975])
    return Equity(float(est), float(low), float(high), outcomes.n, replicates)
