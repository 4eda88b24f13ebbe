"""Tournaments: paired, seat-swapped deals between policies, an Elo ladder and an SPRT.

Every pairing plays the same deals (deal ``d`` is hand 0 of match ``d`` of the run
seed), each deal twice with the sides exchanged, so the luck of the cards cancels
within a pair. The unit of the statistics is the deal pair.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from scopa_sim.bots.learned_weights import seat_model
from scopa_sim.bots.registry import PolicySpec
from scopa_sim.errors import TournamentError
from scopa_sim.files import json_number
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import score_points
from scopa_sim.sim import pool as P
from scopa_sim.sim.match import HandPlayer
from scopa_sim.stats.estimate import Estimate
from scopa_sim.stats.inference import MIN_SAMPLES, normal_ci, normal_ci_from_stats


@dataclass(frozen=True)
class Sprt:
    """Sequential probability ratio test on Elo (H0: elo0, H1: elo1)."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not (math.isfinite(self.elo0) and math.isfinite(self.elo1)):
            raise TournamentError("the sequential test's elo0 and elo1 must be finite numbers")
        if self.elo0 >= self.elo1:
            raise TournamentError("the sequential test's elo0 must be below its elo1")
        for name, p in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < p <= 0.5:
                raise TournamentError(
                    f"the sequential test's {name} must be in (0, 0.5], not {p!r}"
                )

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
        """The test's decision at log-likelihood ratio ``llr``: ``H1``, ``H0``, or None to go on."""
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
    #: The Elo difference of ``score``, with the 95% normal interval of the score over the
    #: deal pairs carried to Elo (NaN bounds from fewer than MIN_SAMPLES deal pairs).
    elo: Estimate
    sprt_llr: float | None = None
    sprt_verdict: str | None = None


def elo_of_score(score: float) -> float:
    """Elo difference giving an expected score (clamped away from 0 and 1)."""
    s = min(max(score, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / s - 1)


#: The method of a pairing's Elo :class:`Estimate`.
ELO_METHOD = "Elo of the score, normal interval of the score over deal pairs"


def elo_estimate(score: float, se: float, n: int, z: float | None = None) -> Estimate:
    """The Elo difference of an expected ``score`` (:func:`elo_of_score`), its 95% bounds
    those of the score's normal interval (standard error ``se``; NaN: not estimated;
    ``z`` the normal quantile, by default the 97.5% one) carried to Elo; ``n`` the deal
    pairs behind it."""
    z = NormalDist().inv_cdf(0.975) if z is None else z
    low = elo_of_score(score - z * se) if se == se else math.nan
    high = elo_of_score(score + z * se) if se == se else math.nan
    return Estimate(elo_of_score(score), low, high, n, ELO_METHOD)


def _players(rules: Rules, a: PolicySpec, b: PolicySpec, seed: int) -> tuple[HandPlayer, ...]:
    """The two seatings of a pairing: ``a`` on side 0, then ``a`` on side 1."""
    n = rules.players
    seats_ab = [a if rules.side_of(s) == 0 else b for s in range(n)]
    seats_ba = [b if rules.side_of(s) == 0 else a for s in range(n)]
    return HandPlayer(rules, seats_ab, seed), HandPlayer(rules, seats_ba, seed)


def _play_deals(
    players: tuple[HandPlayer, ...], rules: Rules, lo: int, hi: int
) -> list[tuple[int, int]]:
    """``a``'s margin in each seating of deals ``lo..hi-1``: they depend on the deal alone
    (its deck and each decision's seed come from ``(seed, deal, hand 0)``)."""
    out = []
    for d in range(lo, hi):
        dealer = d % rules.players
        p1 = score_points(players[0].play(d, 0, dealer).score)
        p2 = score_points(players[1].play(d, 0, dealer).score)
        out.append((p1[0] - p1[1], p2[1] - p2[0]))
    return out


#: The seatings a worker process built last (rules, policies, seed) -> players.
_WORKER_PLAYERS: dict[tuple[Rules, str, str, int], tuple[HandPlayer, ...]] = {}


def _play_block(
    rules: Rules, a: PolicySpec, b: PolicySpec, seed: int, lo: int, hi: int
) -> list[tuple[int, int]]:
    """A worker process's task: a block of deals, with the pairing's players kept."""
    key = (rules, str(a), str(b), seed)
    players = _WORKER_PLAYERS.get(key)
    if players is None:
        _WORKER_PLAYERS.clear()
        players = _WORKER_PLAYERS[key] = _players(rules, a, b, seed)
    return _play_deals(players, rules, lo, hi)


def _margins(
    rules: Rules,
    a: PolicySpec,
    b: PolicySpec,
    deals: int,
    seed: int,
    pool: Executor | None,
    workers: int,
) -> Generator[tuple[int, int], None, None]:
    """Each deal's pair of margins, in deal order, computed here or by ``pool``'s processes
    (blocks of deals, ``2 * workers`` of them queued ahead); closing the iterator, an
    error or an interrupt stops the pool's workers at once, and a worker that died is a
    :class:`~scopa_sim.errors.WorkerError`."""
    if pool is None:
        players = _players(rules, a, b, seed)
        for d in range(deals):
            yield from _play_deals(players, rules, d, d + 1)
        return
    block = max(1, min(BLOCK_DEALS, deals // (4 * workers)))
    blocks = ((rules, a, b, seed, lo, min(lo + block, deals)) for lo in range(0, deals, block))
    done = P.ordered(pool, _play_block, blocks, 2 * workers)
    try:
        for margins in done:
            yield from margins
    finally:
        done.close()


#: Deals per task of a worker process (fewer when there are few deals per worker).
BLOCK_DEALS = 25


def play_pairing(
    rules: Rules,
    a: PolicySpec,
    b: PolicySpec,
    deals: int,
    seed: int,
    sprt: Sprt | None = None,
    progress: Callable[[int], None] | None = None,
    workers: int = 1,
) -> PairingResult:
    """Play ``deals`` deal pairs of ``a`` against ``b`` (stopping early if the SPRT ends).

    With ``workers > 1`` the deals are played in that many processes; the result is the
    same, since every deal depends on the seed and its number only and the statistics
    (and the SPRT) take the deals in order.

    Args:
        rules: the rules of every deal (two sides).
        a, b: the two policies; margins are ``a``'s points minus ``b``'s per hand.
        deals: the deal pairs, each deal played twice with the seats swapped.
        seed: the seed of the deals.
        sprt: a sequential test that may stop the pairing early.
        progress: called with 1 after each deal pair.
        workers: the processes to play in.

    Returns:
        The :class:`PairingResult`.

    Raises:
        TournamentError: rules of other than two sides.
    """
    workers = min(workers, deals)  # no process without a deal to play
    if workers <= 1:
        return _pairing(rules, a, b, deals, seed, sprt, progress, None, 1)
    with P.process_pool(workers) as pool:
        return _pairing(rules, a, b, deals, seed, sprt, progress, pool, workers)


def _pairing(
    rules: Rules,
    a: PolicySpec,
    b: PolicySpec,
    deals: int,
    seed: int,
    sprt: Sprt | None,
    progress: Callable[[int], None] | None,
    pool: Executor | None,
    workers: int,
) -> PairingResult:
    if rules.sides != 2:
        raise TournamentError(
            f"a tournament needs two sides (2 players, or 4 in teams); these rules have "
            f"{rules.sides}"
        )
    margins: list[float] = []
    pair_scores: list[float] = []
    wins = draws = losses = 0
    llr, verdict = None, None
    stream = _margins(rules, a, b, deals, seed, pool, workers)
    try:
        for m1, m2 in stream:
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
    finally:
        stream.close()
    ps = np.asarray(pair_scores)
    score = float(ps.mean())
    # no interval from fewer than MIN_SAMPLES deal pairs (as for the margin's Estimate)
    se = float(ps.std(ddof=1)) / math.sqrt(ps.size) if ps.size >= MIN_SAMPLES else math.nan
    return PairingResult(
        a=str(a),
        b=str(b),
        deal_pairs=len(margins),
        margin=normal_ci(np.asarray(margins))
        if len(margins) > 1
        else normal_ci_from_stats(0, math.nan, 1),
        wins=wins,
        draws=draws,
        losses=losses,
        score=score,
        elo=elo_estimate(score, se, len(margins)),
        sprt_llr=llr,
        sprt_verdict=verdict,
    )


def ladder(policies: Sequence[str], results: Sequence[PairingResult]) -> list[tuple[str, float]]:
    """Elo ratings fitted by least squares to the pairwise Elo differences, averaging 0
    over each set of policies connected by pairings (all of them, in a round robin).

    Solved from the normal equations in plain Python floats (:func:`_solve`), not by
    LAPACK: a BLAS picks its kernels by the processor, and its last bits differed
    between machines, so a tournament's figures did too."""
    idx = {p: i for i, p in enumerate(policies)}
    k = len(policies)
    a = [[0.0] * k for _ in range(k)]
    b = [0.0] * k
    parent = list(range(k))

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for r in results:
        i, j = idx[r.a], idx[r.b]
        a[i][i] += 1.0
        a[j][j] += 1.0
        a[i][j] -= 1.0
        a[j][i] -= 1.0
        b[i] += r.elo.estimate
        b[j] -= r.elo.estimate
        parent[root(i)] = root(j)
    sol = [0.0] * k
    for comp in {root(i) for i in range(k)}:
        members = [i for i in range(k) if root(i) == comp]
        # the anchor (sum of the component's ratings = 0) added to the normal equations
        sub = [[a[i][j] + 1.0 for j in members] for i in members]
        for i, x in zip(members, _solve(sub, [b[i] for i in members]), strict=True):
            sol[i] = x
    return sorted(zip(policies, sol, strict=True), key=lambda t: -t[1])


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """``a x = b`` by Gaussian elimination with partial pivoting, in a fixed order of
    operations (the same bits on every machine); ``a`` is symmetric positive definite
    here (a connected comparison graph's Laplacian plus the anchor)."""
    n = len(b)
    m = [[*row, rhs] for row, rhs in zip(a, b, strict=True)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            if f:
                m[r] = [x - f * y for x, y in zip(m[r], m[c], strict=True)]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][j] * x[j] for j in range(r + 1, n))) / m[r][r]
    return x


@dataclass(frozen=True)
class Standing:
    """One policy's place in a round robin: its Elo (:func:`ladder`), its worst pairing
    (the opponent against which its margin per hand is lowest, with that margin from
    its side) and the opponents it is significantly worse against (the pairing's 95%
    CI of its margin entirely below 0)."""

    policy: str
    elo: float
    worst_opponent: str
    worst_margin: Estimate
    worse_against: tuple[str, ...]

    @property
    def unbeaten(self) -> bool:
        """Not significantly worse than any other policy of the round robin."""
        return not self.worse_against

    def to_dict(self) -> dict[str, object]:
        """The standing as ``tournament --json`` writes it (no interval: ``None``)."""
        m = self.worst_margin
        return {
            "policy": self.policy,
            "elo": self.elo,
            "worst_opponent": self.worst_opponent,
            "worst_margin": m.estimate,
            "worst_margin_ci": [json_number(m.low), json_number(m.high)],
            "worse_against": list(self.worse_against),
            "unbeaten": self.unbeaten,
        }


def _side(r: PairingResult, policy: str) -> Estimate:
    """The pairing's margin per hand from ``policy``'s side."""
    m = r.margin
    return m if r.a == policy else m.negated()


def standings(policies: Sequence[str], results: Sequence[PairingResult]) -> list[Standing]:
    """Every policy's :class:`Standing`, best first by the round robin's rule for the best
    setting: the policies not significantly worse than any other first, then by the
    worst case (the margin of the worst pairing, higher first), then by Elo.  So the
    first one is the setting with the best worst case among those no other setting
    beats; when every policy is beaten by some other, the first is the one with the
    best worst case.  Each pairing's interval is its own 95% one (no correction for the
    several pairings a policy plays: the rule is the stricter for it).  The documented
    best bot's rule then ties the first with the settings a pairing shows level with it
    (its CI within a stated margin) and breaks the tie by the best bot's targets,
    measured elsewhere (:func:`scopa_sim.sim.ranking.pick_best`).

    Raises:
        TournamentError: a policy that played no pairing of the round robin.
    """
    elo = dict(ladder(policies, results))
    out = []
    for p in policies:
        mine = [(r.b if r.a == p else r.a, _side(r, p)) for r in results if p in (r.a, r.b)]
        if not mine:
            raise TournamentError(f"{p!r} played no pairing of this round robin")
        opp, worst = min(mine, key=lambda t: (t[1].estimate, t[0]))
        worse = tuple(o for o, m in mine if m.estimated and m.high < 0)
        out.append(Standing(p, elo[p], opp, worst, worse))
    return sorted(out, key=lambda s: (not s.unbeaten, -s.worst_margin.estimate, -s.elo, s.policy))


def run_tournament(
    rules: Rules,
    policies: Sequence[PolicySpec],
    deals: int,
    seed: int,
    sprt: Sprt | None = None,
    progress: Callable[[int], None] | None = None,
    workers: int = 1,
) -> list[PairingResult]:
    """Every pairing of distinct policies, on the same deals; ``progress(1)`` after each
    deal pair. ``workers > 1`` plays the deals in that many processes, with the same
    results.

    Args:
        rules: the rules of every deal (two sides).
        policies: the policies, each once.
        deals: the deal pairs of each pairing (at least 2).
        seed: the seed of the deals, the same for every pairing.
        sprt: a sequential test (two policies only).
        progress: called with 1 after each deal pair.
        workers: the processes to play in.

    Returns:
        One :class:`PairingResult` a pair of policies, in the order of ``policies``.

    Raises:
        TournamentError: fewer than 2 deal pairs or 2 policies, a policy given twice, a
            sequential test of other than two policies, rules of other than two sides.
        PolicyError, FileError: ``learned`` under rules without weights, or its weights
            file missing or corrupt.
    """
    if type(deals) is not int or deals < 2:
        raise TournamentError(f"deals must be a whole number of at least 2, not {deals!r}")
    if len(policies) < 2:
        raise TournamentError("a tournament needs at least two policies")
    if sprt is not None and len(policies) != 2:
        raise TournamentError("the sequential test compares exactly two policies")
    names = [str(p) for p in policies]
    if len(set(names)) != len(names):
        raise TournamentError("each policy must be different")
    if rules.sides != 2:
        raise TournamentError(
            f"a tournament needs two sides (2 players, or 4 in teams); these rules have "
            f"{rules.sides}"
        )
    seat_model(rules, [p.name for p in policies])  # learned: its weights, before any work
    pairs = list(itertools.combinations(policies, 2))
    workers = min(workers, deals)  # no process without a deal to play
    if workers <= 1:
        return [_pairing(rules, a, b, deals, seed, sprt, progress, None, 1) for a, b in pairs]
    with P.process_pool(workers) as pool:
        return [_pairing(rules, a, b, deals, seed, sprt, progress, pool, workers) for a, b in pairs]
