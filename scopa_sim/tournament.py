"""Tournaments: paired, seat-swapped deals between policies, an Elo ladder and an SPRT.

Every pairing plays the same deals (deal ``d`` is hand 0 of match ``d`` of the run
seed), each deal twice with the sides exchanged, so the luck of the cards cancels
within a pair. The unit of the statistics is the deal pair.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from .advantage import Estimate
from .errors import ScopaError
from .match import HandPlayer
from .policy import PolicySpec
from .rules import Rules


class TournamentError(ScopaError):
    """A tournament that cannot be run as asked."""


@dataclass(frozen=True)
class Sprt:
    """Sequential probability ratio test on Elo (H0: elo0, H1: elo1)."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper) log-likelihood-ratio bounds."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def llr(self, pair_scores: np.ndarray) -> float:
        """Generalised SPRT log-likelihood ratio on deal-pair scores (normal approximation
        of the pentanomial model, as chess engine testers use it)."""
        n = pair_scores.size
        if n < 2:
            return 0.0
        var = float(pair_scores.var())
        if var <= 0:
            return 0.0
        s0, s1 = (1 / (1 + 10 ** (-e / 400)) for e in (self.elo0, self.elo1))
        mean = float(pair_scores.mean())
        return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)

    def verdict(self, llr: float) -> str | None:
        lo, hi = self.bounds
        if llr >= hi:
            return "H1"
        if llr <= lo:
            return "H0"
        return None


@dataclass(frozen=True)
class PairingResult:
    """Policy ``a`` against policy ``b`` over paired, seat-swapped deals."""

    a: str
    b: str
    deal_pairs: int
    margin: Estimate  # a's points minus b's, per hand, averaged over each deal pair
    wins: int
    draws: int
    losses: int
    score: float  # (wins + draws / 2) / hands, from a's side
    elo: float
    elo_low: float
    elo_high: float
    sprt_llr: float | None = None
    sprt_verdict: str | None = None


def elo_of_score(score: float) -> float:
    """Elo difference giving an expected score (clamped away from 0 and 1)."""
    s = min(max(score, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / s - 1)


def play_pairing(
    rules: Rules,
    a: PolicySpec,
    b: PolicySpec,
    deals: int,
    seed: int,
    sprt: Sprt | None = None,
    progress: Callable[[int], None] | None = None,
) -> PairingResult:
    """Play ``deals`` deal pairs of ``a`` against ``b`` (stopping early if the SPRT ends)."""
    if rules.sides != 2:
        raise TournamentError(
            f"a tournament needs two sides (2 players, or 4 in teams); these rules have "
            f"{rules.sides}"
        )
    n = rules.players
    seats_ab = [a if rules.side_of(s) == 0 else b for s in range(n)]
    seats_ba = [b if rules.side_of(s) == 0 else a for s in range(n)]
    first = HandPlayer(rules, seats_ab, seed)
    second = HandPlayer(rules, seats_ba, seed)
    margins: list[float] = []
    pair_scores: list[float] = []
    wins = draws = losses = 0
    llr, verdict = None, None
    for d in range(deals):
        dealer = d % n
        h1 = first.play(d, 0, dealer)
        h2 = second.play(d, 0, dealer)
        m1 = h1.score[0][-1] - h1.score[1][-1]  # a on side 0
        m2 = h2.score[1][-1] - h2.score[0][-1]  # a on side 1
        margins.append((m1 + m2) / 2)
        pair = 0.0
        for m in (m1, m2):
            if m > 0:
                wins += 1
                pair += 0.5
            elif m == 0:
                draws += 1
                pair += 0.25
            else:
                losses += 1
        pair_scores.append(pair)
        if progress is not None:
            progress(1)
        if sprt is not None:
            llr = sprt.llr(np.asarray(pair_scores))
            verdict = sprt.verdict(llr)
            if verdict is not None:
                break
    ps = np.asarray(pair_scores)
    score = float(ps.mean())
    z = NormalDist().inv_cdf(0.975)
    se = float(ps.std(ddof=1)) / math.sqrt(ps.size) if ps.size > 1 else math.nan
    return PairingResult(
        a=str(a),
        b=str(b),
        deal_pairs=len(margins),
        margin=Estimate.of(np.asarray(margins)) if len(margins) > 1 else Estimate(0, math.nan, 1),
        wins=wins,
        draws=draws,
        losses=losses,
        score=score,
        elo=elo_of_score(score),
        elo_low=elo_of_score(score - z * se) if se == se else math.nan,
        elo_high=elo_of_score(score + z * se) if se == se else math.nan,
        sprt_llr=llr,
        sprt_verdict=verdict,
    )


def ladder(policies: Sequence[str], results: Sequence[PairingResult]) -> list[tuple[str, float]]:
    """Elo ratings fitted by least squares to the pairwise Elo differences (mean 0)."""
    idx = {p: i for i, p in enumerate(policies)}
    k = len(policies)
    rows, rhs = [], []
    for r in results:
        row = np.zeros(k)
        row[idx[r.a]], row[idx[r.b]] = 1.0, -1.0
        rows.append(row)
        rhs.append(r.elo)
    rows.append(np.ones(k))  # anchor: ratings average to zero
    rhs.append(0.0)
    sol, *_ = np.linalg.lstsq(np.array(rows), np.array(rhs), rcond=None)
    return sorted(zip(policies, (float(x) for x in sol), strict=True), key=lambda t: -t[1])


def run_tournament(
    rules: Rules,
    policies: Sequence[PolicySpec],
    deals: int,
    seed: int,
    sprt: Sprt | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[PairingResult]:
    """Every pairing of distinct policies, on the same deals."""
    if len(policies) < 2:
        raise TournamentError("a tournament needs at least two --policy")
    if sprt is not None and len(policies) != 2:
        raise TournamentError("--sprt compares exactly two policies")
    names = [str(p) for p in policies]
    if len(set(names)) != len(names):
        raise TournamentError("each --policy must be different")
    return [
        play_pairing(rules, a, b, deals, seed, sprt, progress)
        for a, b in itertools.combinations(policies, 2)
    ]
