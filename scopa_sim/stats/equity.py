"""Match equity by dynamic programming over independent hand results.

No policy looks at the match totals and every hand is dealt from its own stream, so the
hands of a match are i.i.d. given who deals, and a match between ``S`` sides is a Markov
chain on (the sides' scores, which side deals next). Its winning probabilities follow
exactly from the distribution of one hand's result: the points of each playing position
(first player .. dealer) and which position (if any) captured all the denari (its side
wins the match outright under ``napola_all_denari_wins``).

The rules of RULES.md §6: after a hand, a side with all the denari wins (with that
option); else the side with the most points wins once it has at least the target; a tie
at the top plays on. The dealer rotates, so the dealing side goes round the sides (with
four players in two teams it alternates). One programme (:func:`solve_sides`) serves any
number of sides. Its states are the scores below the target, solved from the highest
scores down (a hand takes no points away, so a state depends only on higher ones and on
itself); hands that score nothing leave the scores unchanged and only pass the deal
round the sides, a cycle solved exactly (no iteration needed). A tie at or above the
target is a state of the deficits behind the leaders: with two sides there is one, both
level, which a hand ends or leaves for the next dealer (the same cycle, solved exactly);
with more, the sides behind may catch up, and the deficits are solved by value
iteration (:data:`MAX_DEFICIT`).

Estimates come with percentile bootstrap intervals: the hand-result distribution is
resampled as a multinomial over the observed hands (the bootstrap over hands) and the
programme solved again for each replicate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from scopa_sim.stats.estimate import Estimate

#: Flag of a hand result: no side took all the denari, the dealer's side did, the
#: first player's side did.
NONE, DEALER, FIRST = 0, 1, 2

#: Deficits (points behind the leaders) beyond this, in a tie at the top above the target,
#: count as out of the match: catching up from there has a probability below any printed
#: digit (each tied hand is one in several, and a hand gives a few points).
MAX_DEFICIT = 40

#: The value iteration of the ties at the top (three sides or more) stops when no value
#: moved by more than this in a sweep, or after :data:`MAX_SWEEPS` sweeps.
TOLERANCE = 1e-14
MAX_SWEEPS = 10_000


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


@dataclass(frozen=True)
class HandOutcomes:
    """The distinct results of a hand between two sides and how often each was observed."""

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
            [
                np.asarray(dealer_points),
                np.asarray(first_points),
                np.asarray(all_denari),
            ],
            axis=1,
        ).astype(np.int64)
        uniq, counts = np.unique(keys, axis=0, return_counts=True)
        return cls(uniq[:, 0].copy(), uniq[:, 1].copy(), uniq[:, 2].copy(), counts)

    def positions(self) -> PositionOutcomes:
        """The same results by playing position (first player, dealer), in the same order
        (the programme adds them up in this order, so its sums stay the same bits)."""
        points = np.column_stack([self.first_points, self.dealer_points]).astype(np.int64)
        flags = np.asarray(self.all_denari)
        den = np.where(flags == FIRST, 0, np.where(flags == DEALER, 1, -1)).astype(np.int64)
        return PositionOutcomes(points, den, np.asarray(self.counts))


# --------------------------------------------------------------------------- the programme
@njit(inline="always")
def _round_the_deal(r, q, d):  # pragma: no cover - jitted
    """The value of a state with side ``d`` dealing when a hand either leaves it, worth
    ``r[e]`` with side ``e`` dealing, or stays in it with chance ``q[e]`` and passes the
    deal on: the geometric sum round the sides, exact (written so that two and three
    sides give the bits of their former closed forms)."""
    sides = r.shape[0]
    v = r[d]
    stay = 1.0
    for i in range(1, sides):
        stay = stay * q[(d + i - 1) % sides]
        v += stay * r[(d + i) % sides]
    cycle = 1.0
    for i in range(sides):
        cycle = cycle * q[i]
    return v / (1.0 - cycle)


@njit(cache=True)
def _hand_gains(pts, den):  # pragma: no cover - jitted
    """``gains[d, j, s]``: the points side ``s`` scores in result ``j`` when side ``d``
    deals (position ``p`` is side ``(d + 1 + p) % S``); ``wins0[d, j]``: side 0 took all
    the denari; ``blank[j]``: nobody scored."""
    k, sides = pts.shape
    gains = np.zeros((sides, k, sides), dtype=np.int64)
    wins0 = np.zeros((sides, k), dtype=np.bool_)
    blank = np.ones(k, dtype=np.bool_)
    for d in range(sides):
        for j in range(k):
            for q in range(sides):
                gains[d, j, (d + 1 + q) % sides] = pts[j, q]
                if pts[j, q] != 0:
                    blank[j] = False
            wins0[d, j] = den[j] >= 0 and (d + 1 + den[j]) % sides == 0
    return gains, wins0, blank


@njit(cache=True)
def _tie_states(sides, cap):  # pragma: no cover - jitted
    """The ties at the top: deficits behind the leaders (0 .. ``cap``, and ``cap + 1`` for
    out of the match) with at least two sides level at the top, in lexicographic order
    (the first is everyone level); ``lookup`` maps a deficit vector's mixed-radix index
    to its state (-1: not a tie)."""
    m = cap + 2
    cells = m**sides
    lookup = np.full(cells, -1, dtype=np.int32)
    defs = np.zeros(sides, dtype=np.int64)
    count = 0
    for cell in range(cells):
        rest = cell
        zeros = 0
        for s in range(sides - 1, -1, -1):
            defs[s] = rest % m
            rest //= m
            if defs[s] == 0:
                zeros += 1
        if zeros >= 2:
            lookup[cell] = count
            count += 1
    ties = np.zeros((count, sides), dtype=np.int64)
    for cell in range(cells):
        t = lookup[cell]
        if t >= 0:
            rest = cell
            for s in range(sides - 1, -1, -1):
                ties[t, s] = rest % m
                rest //= m
    return ties, lookup


@njit(inline="always")
def _tie_index(sc, top, cap, lookup):  # pragma: no cover - jitted
    """The tie state of scores ``sc`` whose top ``top`` is shared: the deficits behind it."""
    m = cap + 2
    cell = 0
    for s in range(sc.shape[0]):
        cell = cell * m + min(top - sc[s], cap + 1)
    return lookup[cell]


@njit(inline="always")
def _after(before, gains, d, j, sc):  # pragma: no cover - jitted
    """``sc``: the scores ``before`` a hand plus its points (``gains[d, j]``: result
    ``j``, side ``d`` dealing), side by side; returns the top score and how many sides
    share it."""
    top = before[0] + gains[d, j, 0]
    sc[0] = top
    lead = 1
    for s in range(1, sc.shape[0]):
        v = before[s] + gains[d, j, s]
        sc[s] = v
        if v > top:
            top = v
            lead = 1
        elif v == top:
            lead += 1
    return top, lead


@njit(cache=True)
def _tie_moves(gains, wins0, den, denari_wins, cap, ties, lookup):  # pragma: no cover - jitted
    """``moves[t, d, j]``: where result ``j`` takes tie state ``t`` with side ``d``
    dealing: to a tie state (>= 0), side 0 wins (-1), or another side does (-2). The
    same for every row of probabilities and every sweep, so worked out once (4 bytes a
    state, dealer and result: three sides 124 states, four sides 10,251)."""
    n, sides = ties.shape
    k = gains.shape[1]
    moves = np.full((n, sides, k), -2, dtype=np.int32)
    # each side's score relative to the leaders before the hand; a side out of the match
    # (deficit beyond the cap) far below, where no hand's points bring it to the top
    base = np.where(ties > cap, -(10**6), -ties)
    sc = np.zeros(sides, dtype=np.int64)
    for t in range(n):
        for d in range(sides):
            for j in range(k):
                if denari_wins and den[j] >= 0:
                    if wins0[d, j]:
                        moves[t, d, j] = -1
                    continue
                top, lead = _after(base[t], gains, d, j, sc)
                if lead == 1:
                    if sc[0] == top:
                        moves[t, d, j] = -1
                    continue
                moves[t, d, j] = _tie_index(sc, top, cap, lookup)
    return moves


@njit(cache=True)
def _solve_ties(b, probs, moves, ot, new):  # pragma: no cover - jitted
    """``ot[t, d]``: P(side 0 wins) from tie state ``t`` with side ``d`` dealing, for row
    ``b`` of ``probs``. Two sides: the one state (level), which a hand ends or leaves
    level for the next dealer, solved round the deal. More: value iteration over the
    deficits (``new`` is the sweep buffer, kept across rows)."""
    n, sides, k = moves.shape
    ot[:] = 0.0
    if n == 1:
        w = np.zeros(sides)
        q = np.zeros(sides)
        for d in range(sides):
            for j in range(k):
                p = probs[b, j]
                if p == 0.0:
                    continue
                if moves[0, d, j] == -1:
                    w[d] += p
                elif moves[0, d, j] == 0:
                    q[d] += p
        for d in range(sides):
            ot[0, d] = _round_the_deal(w, q, d)
        return
    for _sweep in range(MAX_SWEEPS):
        delta = 0.0
        for t in range(n):
            for d in range(sides):
                nd = (d + 1) % sides
                v = 0.0
                for j in range(k):
                    p = probs[b, j]
                    if p == 0.0:
                        continue
                    m = moves[t, d, j]
                    if m >= 0:
                        v += p * ot[m, nd]
                    elif m == -1:
                        v += p
                delta = max(delta, abs(v - new[t, d]))
                new[t, d] = v
        ot[:] = new
        if delta < TOLERANCE:
            break


@njit(cache=True)
def _solve_sides(pts, den, probs, target, denari_wins, cap, out, tie):  # pragma: no cover - jitted
    """``out[b, i, d]``: P(side 0 wins) from the scores of mixed-radix index ``i`` (side 0
    the most significant digit, each below the target), side ``d`` dealing the next hand,
    for each row ``b`` of ``probs``; ``tie[b, d]`` the same from everyone level at or
    above the target."""
    nb, k = probs.shape
    sides = pts.shape[1]
    gains, wins0, blank = _hand_gains(pts, den)
    ties, lookup = _tie_states(sides, cap)
    moves = _tie_moves(gains, wins0, den, denari_wins, cap, ties, lookup)
    ot = np.zeros((ties.shape[0], sides))
    new = np.zeros((ties.shape[0], sides))
    x = np.zeros(sides, dtype=np.int64)
    sc = np.zeros(sides, dtype=np.int64)
    r = np.zeros(sides)
    q = np.zeros(sides)
    # the index a hand's points move a state by, while every side stays below the target
    step = np.zeros((sides, k), dtype=np.int64)
    for d in range(sides):
        for j in range(k):
            for s in range(sides):
                step[d, j] = step[d, j] * target + gains[d, j, s]
    for b in range(nb):
        _solve_ties(b, probs, moves, ot, new)
        for d in range(sides):
            tie[b, d] = ot[0, d]
        # a hand adds points, so every next state has a higher index: highest first
        for i in range(out.shape[1] - 1, -1, -1):
            rest = i
            for s in range(sides - 1, -1, -1):
                x[s] = rest % target
                rest //= target
            p0 = 0.0
            for d in range(sides):
                nd = (d + 1) % sides
                acc = 0.0
                for j in range(k):
                    p = probs[b, j]
                    if p == 0.0:
                        continue
                    if denari_wins and den[j] >= 0:
                        if wins0[d, j]:
                            acc += p
                        continue
                    if blank[j]:  # nobody scores: only the deal passes
                        if d == 0:
                            p0 += p
                        continue
                    inside = True
                    for s in range(sides):
                        if x[s] + gains[d, j, s] >= target:
                            inside = False
                            break
                    if inside:
                        acc += p * out[b, i + step[d, j], nd]
                        continue
                    top, lead = _after(x, gains, d, j, sc)
                    if lead == 1:
                        if sc[0] == top:
                            acc += p
                    else:
                        acc += p * ot[_tie_index(sc, top, cap, lookup), nd]
                r[d] = acc
            q[:] = p0
            for d in range(sides):
                out[b, i, d] = _round_the_deal(r, q, d)


def solve_sides(
    outcomes: PositionOutcomes,
    target: int,
    denari_wins: bool,
    probs: np.ndarray | None = None,
    cap: int = MAX_DEFICIT,
) -> tuple[np.ndarray, np.ndarray]:
    """Win probabilities of side 0 with ``S`` sides (``outcomes.sides``): ``V[b, x_0, ...,
    x_{S-1}, d]`` from scores ``x_s`` of side ``s`` below the target with side ``d``
    dealing next (position ``p`` of a hand is side ``(d + 1 + p) % S``), and ``T[b, d]``
    from everyone level at or above it; one row ``b`` per row of ``probs`` (default: the
    observed frequencies). With three sides or more, deficits behind the leaders above
    ``cap`` count as out of the match (:data:`MAX_DEFICIT`), and the moves between the
    ties at the top take 4 bytes per tie state, dealer and distinct result (124 states for
    three sides; 10,251 for four, about 160 KB a result)."""
    sides = outcomes.sides
    if sides < 2:
        raise ValueError("a match has at least two sides")
    if target < 1:
        raise ValueError("the target must be at least 1")
    if probs is None:
        probs = (outcomes.counts / outcomes.counts.sum())[None, :]
    probs = np.ascontiguousarray(probs, dtype=np.float64)
    pts = np.ascontiguousarray(outcomes.points, dtype=np.int64)
    den = np.ascontiguousarray(outcomes.all_denari, dtype=np.int64)
    out = np.zeros((probs.shape[0], target**sides, sides))
    tie = np.zeros((probs.shape[0], sides))
    _solve_sides(pts, den, probs, target, denari_wins, cap, out, tie)
    return out.reshape((probs.shape[0], *(target,) * sides, sides)), tie


def solve(
    outcomes: HandOutcomes,
    target: int,
    denari_wins: bool,
    probs: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Two sides: win probabilities of side X: ``V[b, x, y, d]`` from scores ``(x, y)``
    below the target with ``d`` = 0 when X deals next, 1 when Y does, and ``T[b, d]`` from
    a tie at or above it; one row ``b`` per row of ``probs`` (default: the observed
    frequencies). :func:`solve_sides` of the results by position."""
    return solve_sides(outcomes.positions(), target, denari_wins, probs)


def solve3(
    outcomes: PositionOutcomes,
    target: int,
    denari_wins: bool,
    probs: np.ndarray | None = None,
    cap: int = MAX_DEFICIT,
) -> np.ndarray:
    """Three sides (3 players): ``V[b, x, y, z, d]`` = P(side 0 wins) from scores (x, y, z)
    of sides 0, 1, 2 below the target, side ``d`` dealing next; one row ``b`` per row of
    ``probs`` (default: the observed frequencies). :func:`solve_sides` for three sides."""
    if outcomes.sides != 3:
        raise ValueError("solve3 is for three sides")
    return solve_sides(outcomes, target, denari_wins, probs, cap)[0]


def bootstrap_probs(
    outcomes: HandOutcomes | PositionOutcomes, replicates: int, seed: int
) -> np.ndarray:
    """Multinomial resamples of the observed hands, as frequencies (``replicates`` rows)."""
    rng = np.random.default_rng(seed)
    n = outcomes.n
    p = outcomes.counts / n
    return rng.multinomial(n, p, size=replicates) / n


def bootstrap_method(replicates: int) -> str:
    """The method of an :class:`~scopa_sim.stats.estimate.Estimate` of a match-level
    probability: a percentile bootstrap over the hands, ``replicates`` resamples."""
    return f"percentile bootstrap, {replicates:,} replicates"


def _bootstrapped(
    outcomes: HandOutcomes, target: int, denari_wins: bool, replicates: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """``V[x, y, d]`` of the observed hands (see :func:`solve`) and its ``replicates``
    bootstrap copies ``V[b, x, y, d]``."""
    est, _ = solve(outcomes, target, denari_wins)
    boot, _ = solve(outcomes, target, denari_wins, bootstrap_probs(outcomes, replicates, seed))
    return est[0], boot


def _bootstrap_estimate(est: float, boot: np.ndarray, n: int, replicates: int) -> Estimate:
    """A match-level probability with its 95% percentile interval; ``sd`` is ``sqrt(n)``
    times the replicates' standard deviation, so that the estimate's ``se`` is the
    bootstrap standard error (what :func:`bootstrap_z_p` tests with)."""
    low, high = np.quantile(boot, [0.025, 0.975])
    sd = float(np.std(boot, ddof=1)) * math.sqrt(n) if len(boot) > 1 else math.nan
    return Estimate(float(est), float(low), float(high), n, bootstrap_method(replicates), sd)


def bootstrap_z_p(e: Estimate, null: float) -> float:
    """The two-sided p-value of a bootstrap z test of ``e`` against ``null``: ``(estimate -
    null) / se`` referred to the standard normal, ``se`` the bootstrap standard error
    (:func:`first_mover_win`, :func:`side_wins3`). NaN when the estimate has no ``se``."""
    se = e.se
    if not (math.isfinite(se) and se > 0):
        return math.nan
    return float(math.erfc(abs(e.estimate - null) / se / math.sqrt(2)))


def equity_table(
    outcomes: HandOutcomes, target: int, denari_wins: bool, replicates: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Point estimates and 95% percentile bounds of ``V[x, y, d]`` (see :func:`solve`)."""
    est, boot = _bootstrapped(outcomes, target, denari_wins, replicates, seed)
    low = np.quantile(boot, 0.025, axis=0)
    high = np.quantile(boot, 0.975, axis=0)
    return est, low, high


def first_mover_win(
    outcomes: HandOutcomes, target: int, denari_wins: bool, replicates: int, seed: int
) -> Estimate:
    """P(the side that plays first in the first hand wins the match): from 0-0 with the
    other side dealing; a 95% percentile bootstrap interval over the hands (``replicates``
    resamples drawn from ``seed``), and the bootstrap standard error as ``se``."""
    est, boot = _bootstrapped(outcomes, target, denari_wins, replicates, seed)
    return _bootstrap_estimate(est[0, 0, 1], boot[:, 0, 0, 1], outcomes.n, replicates)


def side_wins3(
    outcomes: PositionOutcomes, target: int, denari_wins: bool, replicates: int, seed: int
) -> list[Estimate]:
    """Each side's probability of winning a three-side match, by its seat in the first
    hand (0 plays first, 2 deals), with percentile bootstrap intervals: side ``s`` is side
    0 of the programme with the deal rotated, ``V[0, 0, 0, 2 - s]``. One programme and one
    set of bootstrap draws serve the three, which sum to 1."""
    est = solve3(outcomes, target, denari_wins)[0, 0, 0, 0]
    boot = bootstrap_probs(outcomes, replicates, seed)
    vals = solve3(outcomes, target, denari_wins, boot)[:, 0, 0, 0]
    return [
        _bootstrap_estimate(est[2 - s], vals[:, 2 - s], outcomes.n, replicates) for s in range(3)
    ]


def first_mover_win3(
    outcomes: PositionOutcomes,
    target: int,
    denari_wins: bool,
    replicates: int,
    seed: int,
) -> Estimate:
    """:func:`first_mover_win` for three sides: side 0 plays first, side 2 deals."""
    return side_wins3(outcomes, target, denari_wins, replicates, seed)[0]


__all__ = [
    "DEALER",
    "FIRST",
    "MAX_DEFICIT",
    "NONE",
    "HandOutcomes",
    "PositionOutcomes",
    "bootstrap_method",
    "bootstrap_probs",
    "bootstrap_z_p",
    "equity_table",
    "first_mover_win",
    "first_mover_win3",
    "side_wins3",
    "solve",
    "solve3",
    "solve_sides",
]
