"""The match objective of the search bots (``objective=match``): play to win the match.

Under the default objective (``margin``) a bot maximises the hand's point margin. Under
``objective=match`` the value of a finished hand is instead the probability that the
bot's side wins the match from the totals after the hand, with the next dealer, read
from a match-equity table: the exact dynamic programme of :mod:`scopa_sim.stats.equity` over
the hand results of a model policy's self-play (``expert`` by default) under the bot's
rules. Two sides only (two players, or four in teams), as the programme.

The table (:class:`EquityTable`) comes from ``equity=POLICY`` (a kernel policy: that
policy's self-play, :data:`DEFAULT_HANDS` hands from seed :data:`DEFAULT_SEED`, played on
first use and kept for the process) or ``equity=PATH`` (a file that ``scopa-sim equity``
wrote; it must be for the bot's rules, target included).

Scale: the searches were tuned for margins (UCT's ``c`` for margins of a few points), so
the win probability ``W`` is expressed in points. At the start of each hand (totals
``t``, dealer ``d``), over the model's distribution of hand results, the reward is
``k * (W - w0)`` with ``w0`` the mean of ``W`` (the equity before the hand, ``V[t, d]``)
and ``k = sd(margin) / sd(W)``: rewards then have mean 0 and the same spread as the
hand margin has (a few points), whatever the score. ``sd(W)`` is floored at
:data:`MIN_SPREAD` (a match all but decided: all plays are then nearly equal anyway).
An affine map with ``k > 0`` leaves every choice of PIMC and of the solver unchanged;
only ISMCTS's exploration sees the scale. Side 1's reward is the negation of side 0's
(one side wins the match), so the searches stay zero-sum.

At a depth limit (PIMC, the solver with ``depth=``) or an ISMCTS horizon the hand is not
over. Its final points are estimated from :func:`scopa_sim._engine.values.estimate` (each side's
scope so far plus the items it leads, credited by its lead) with the item points credited
to neither side shared equally, and the rest of the hand is taken as a normal error on
the margin whose variance is the whole hand's times the share of plays still to make;
the table (interpolated bilinearly between whole points) is averaged over that error by
a 5-point Gauss-Hermite rule (:func:`scopa_sim._engine.values.leaf_value`). Scope still to come
(beyond its share of the error) and an all-denari win are not estimated.

That normal model is overconfident early in a hand: the estimate's margin is a noisy
predictor of the final one (regressed on it, the final margin's slope is about 0.5 after
4 plays). ``match_leaf=calibrated`` (:data:`MATCH_LEAVES`) replaces it by a calibration
fitted per play count on self-play (:func:`fit_leaf`, :class:`LeafFit`: the final margin
regressed on the estimated one through the origin, and the residual spread), so the
leaf's win probabilities are calibrated; ``match_leaf=normal`` (the default) keeps the
normal model.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from scopa_sim import _engine as K
from scopa_sim._engine import solver_cirulla as KSC
from scopa_sim._engine import values as KV
from scopa_sim._engine import values_cirulla as KVC
from scopa_sim.errors import EquityError, FileError
from scopa_sim.files import read_text, write_text
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import HandState
from scopa_sim.stats import equity as E

#: The objectives of the search bots (``objective=``).
OBJECTIVES = ("margin", "match")
#: The ``format`` field of an equity table file.
FORMAT = "scopa-sim-equity/1"
#: Self-play hands behind a table built on first use, and their seed.
DEFAULT_HANDS = 100_000
DEFAULT_SEED = 0
#: Points per side a hand's table covers: no side can score more than 33 in a hand (a
#: scopa on each of its at most 18 plays, the four items, re bello, a napola of 10; one
#: more with the four-sevens point).
GAINS = 40
#: Floor of ``sd(W)`` in the scale ``k`` (win probability per hand at the match's start
#: typically spreads by 0.1 or more).
MIN_SPREAD = 0.005
#: The kernel policies a table can be built from.
MODEL_POLICIES = {"random": K.POLICY_RANDOM, "greedy": K.POLICY_GREEDY, "expert": K.POLICY_EXPERT}
#: Hands per call of the jitted loop when building a table: a third of a second of
#: ``expert`` self-play on a core, so that ``equity``'s progress moves several times a
#: second (a hand's result depends on its number alone, not on the blocks).
_BLOCK = 1 << 13
#: The match objective's leaf models (``match_leaf=``): ``normal`` (the normal model of the
#: rest of the hand) and ``calibrated`` (:func:`fit_leaf`).
MATCH_LEAVES = ("normal", "calibrated")
#: Self-play hands and seed of the leaf calibration fitted on first use.
LEAF_HANDS = 20_000
LEAF_SEED = 17


@dataclass(frozen=True, eq=False)
class EquityTable:
    """A match-equity table for one set of rules: ``win[x, y, d]`` is P(side 0 wins the
    match) from scores ``(x, y)`` below the target with side ``d`` dealing next, ``tie[d]``
    the same from a tie at or above the target; ``outcomes`` the hand results it was
    solved from (``hands`` hands of ``policy`` self-play, seed ``seed``)."""

    rules: Rules
    policy: str
    hands: int
    seed: int
    outcomes: E.HandOutcomes
    win: np.ndarray  # float64 [target, target, 2]
    tie: np.ndarray  # float64 [2]

    @classmethod
    def solve(
        cls, rules: Rules, outcomes: E.HandOutcomes, policy: str, hands: int, seed: int
    ) -> EquityTable:
        """The table of ``outcomes`` under ``rules`` (exact dynamic programme)."""
        _two_sides(rules)
        win, tie = E.solve(outcomes, rules.target, outright(rules))
        return cls(rules, policy, hands, seed, outcomes, win[0], tie[0])

    # -- reading ------------------------------------------------------------------------
    def after(self, x: int, y: int, next_dealer: int) -> float:
        """P(side 0 wins) once a hand has left the totals at ``(x, y)`` (no all-denari
        win), side ``next_dealer`` dealing the next hand."""
        t = self.rules.target
        if x >= t or y >= t:
            if x != y:
                return 1.0 if x > y else 0.0
            return float(self.tie[next_dealer])
        return float(self.win[x, y, next_dealer])

    def before(self, totals: tuple[int, ...], dealer_side: int) -> float:
        """P(side 0 wins) before a hand dealt by side ``dealer_side`` at ``totals``."""
        return self.after(totals[0], totals[1], dealer_side)

    # -- files --------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """JSON-ready: the format, the rules (and their digest), the table and the hand outcomes it
        was solved from (:meth:`load` reads it back).
        """
        o = self.outcomes
        return {
            "format": FORMAT,
            "rules": self.rules.as_dict(),
            "rules_digest": self.rules.digest(),
            "target": self.rules.target,
            "sides": self.rules.sides,
            "policy": self.policy,
            "hands": self.hands,
            "seed": self.seed,
            "outcomes": {
                "dealer_points": o.dealer_points.tolist(),
                "first_points": o.first_points.tolist(),
                "all_denari": o.all_denari.tolist(),
                "counts": o.counts.tolist(),
            },
            "win": np.round(self.win, 12).tolist(),
            "tie": np.round(self.tie, 12).tolist(),
        }

    def save(self, path: str | Path) -> None:
        """Write the table to ``path`` as JSON (:meth:`to_json`), atomically.

        Raises:
            EquityError: the file cannot be written.
        """
        try:  # atomically, with one-line errors (a full disk, a missing directory)
            write_text(path, json.dumps(self.to_json()) + "\n")
        except FileError as e:
            raise EquityError(f"equity table: {e}") from None

    @classmethod
    def load(cls, path: str | Path) -> EquityTable:
        """A table written by :meth:`save`; any missing, unreadable or malformed file is
        an :class:`EquityError`.

        Raises:
            EquityError: a missing, unreadable, malformed or altered file.
        """
        p = Path(path)
        where = f"equity table {path}"
        if p.is_dir():
            raise EquityError(f"{where} is a directory, not a file")
        if not p.exists():
            raise EquityError(f"no such equity table file: {path}")
        try:  # bounded: a device such as /dev/zero is refused, not read without end
            doc = json.loads(read_text(p))
        except FileError as e:
            raise EquityError(f"{where}: {e}") from None
        except ValueError:
            raise EquityError(f"{where} is not JSON (write one with scopa-sim equity)") from None
        try:
            if not isinstance(doc, dict) or doc.get("format") != FORMAT:
                raise EquityError(f"{where} is not a {FORMAT} file (scopa-sim equity writes one)")
            rules = Rules.from_dict(doc["rules"])
            if doc["rules_digest"] != rules.digest():
                raise EquityError(f"{where}: its rules do not match their digest (edited?)")
            o = doc["outcomes"]
            cols = [
                np.asarray(o[k], dtype=np.int64)
                for k in ("dealer_points", "first_points", "all_denari", "counts")
            ]
            outcomes = E.HandOutcomes(*cols)
            win = np.asarray(doc["win"], dtype=np.float64)
            tie = np.asarray(doc["tie"], dtype=np.float64)
            hands, seed, policy = int(doc["hands"]), int(doc["seed"]), str(doc["policy"])
        except EquityError:
            raise
        except (KeyError, TypeError, ValueError, OverflowError) as e:  # RulesError included
            raise EquityError(f"{where} is malformed: {e}") from None
        t = rules.target
        k = cols[0].shape
        if (
            win.shape != (t, t, 2)
            or tie.shape != (2,)
            or not (np.all((win >= 0) & (win <= 1)) and np.all((tie >= 0) & (tie <= 1)))
            or any(c.ndim != 1 or c.shape != k for c in cols)
            or k[0] == 0
            or np.any(cols[3] <= 0)
            or np.any(cols[0] < 0)
            or np.any(cols[1] < 0)
        ):
            raise EquityError(f"{where} is malformed: tables of the wrong shape or range")
        if int(cols[3].sum()) != hands:  # the counts are the hands the table was solved from
            raise EquityError(
                f"{where}: its outcome counts add up to {int(cols[3].sum()):,} hands, not the "
                f"{hands:,} it was built from (edited or damaged?)"
            )
        return cls(rules, policy, hands, seed, outcomes, win, tie)

    def check(self, rules: Rules) -> None:
        """Raise :class:`EquityError` unless this table is for ``rules``.

        Raises:
            EquityError: the table is for other sides, another target or other rules.
        """
        mine = self.rules
        if mine == rules:
            return
        name = f"the match-equity table ({self.policy}, {mine.digest()})"
        if mine.sides != rules.sides:
            raise EquityError(f"{name} is for {mine.sides} sides, the rules have {rules.sides}")
        if mine.target != rules.target:
            raise EquityError(f"{name} is for target {mine.target}, the rules' is {rules.target}")
        a, b = mine.as_dict(), rules.as_dict()
        key = next(k for k in a if a[k] != b[k])
        raise EquityError(
            f"{name} is for other rules (digest {mine.digest()}, the rules' {rules.digest()}): "
            f"{key}={a[key]} in the table, {b[key]} in the rules"
        )


def outright(rules: Rules) -> bool:
    """Whether a side that captures all the denari wins the match at once: Scopa's
    ``napola_all_denari_wins`` (with ``napola``), Cirulla's ``cappotto`` (RULES.md §10)."""
    if rules.cirulla:
        return rules.cappotto
    return rules.napola and rules.napola_all_denari_wins


def gains(rules: Rules) -> int:
    """Points per side that a hand's table covers (:data:`GAINS` but under Cirulla's
    rules, RULES.md §10, where one side can score far more in a hand: a scopa on each of
    its plays, the four items, the grande's 5, the piccola's up to ``piccola_max`` and 10
    for each of its hands declared)."""
    if not rules.cirulla:
        return GAINS
    plays = rules.total_plays // rules.sides
    hands = -(-plays // rules.hand_size)
    return plays + 4 + 5 + rules.piccola_max + 10 * hands + 1


def _model_code(policy: str) -> int:
    """The kernel policy code of a model policy (:data:`MODEL_POLICIES`); an
    :class:`EquityError` naming the allowed ones otherwise."""
    if policy not in MODEL_POLICIES:
        raise EquityError(f"unknown model policy {policy!r}; allowed: {', '.join(MODEL_POLICIES)}")
    return MODEL_POLICIES[policy]


def _two_sides(rules: Rules) -> None:
    if rules.sides != 2:
        raise EquityError(
            f"objective=match needs two sides (2 players, or 4 in teams); these rules have "
            f"{rules.sides}"
        )


def hand_outcomes(
    rules: Rules,
    policy: str,
    hands: int,
    seed: int,
    progress: Callable[[int], None] | None = None,
) -> E.HandOutcomes:
    """The results of ``hands`` independent hands of ``policy`` self-play (hand ``h`` is
    hand 0 of match ``h`` of ``seed``, as ``simulate --hands`` numbers them), as the
    dealer's side's points, the first player's side's and which took all the denari;
    ``progress(n)`` after each block of ``n`` hands.

    Raises:
        EquityError: ``hands`` is below 1, rules of other than two sides, a policy not in
            :data:`MODEL_POLICIES`.
    """
    _two_sides(rules)
    code = _model_code(policy)
    if hands < 1:
        raise EquityError(f"an equity table needs at least 1 hand, got {hands}")
    # Cirulla's hands (RULES.md §10) are played by the jitted loop's Cirulla twin, its rows
    # wider (the grande, the piccola and the declarations after the other columns)
    r = rules.loop_array() if rules.cirulla else rules.to_array()
    loop = K.fused_rows_cirulla if rules.cirulla else K.fused_rows
    width = K.N_ROW_COLS_CIRULLA if rules.cirulla else K.N_ROW_COLS
    codes = np.array([code] * rules.players + [0] * (4 - rules.players))
    dp, fp, fl = [], [], []
    for first in range(0, hands, _BLOCK):
        n = min(_BLOCK, hands - first)
        cols = np.zeros((width, n), dtype=np.int32)
        loop(r, codes.astype(np.int64), seed, False, first, n, cols)
        dealers = K.row_dealers(cols)
        dealer_side = dealers % 2 if rules.teams else dealers
        pts = np.stack([K.row_side_points(cols, s) for s in range(2)])
        den = np.stack([K.row_side_denari(cols, s) for s in range(2)])
        idx = np.arange(n)
        dp.append(pts[dealer_side, idx])
        fp.append(pts[1 - dealer_side, idx])
        flag = np.full(n, E.NONE)
        flag[den[1 - dealer_side, idx] == 10] = E.FIRST
        flag[den[dealer_side, idx] == 10] = E.DEALER
        fl.append(flag)
        if progress is not None:
            progress(n)
    return E.HandOutcomes.of(np.concatenate(dp), np.concatenate(fp), np.concatenate(fl))


def build_table(
    rules: Rules,
    policy: str = "expert",
    hands: int = DEFAULT_HANDS,
    seed: int = DEFAULT_SEED,
    progress: Callable[[int], None] | None = None,
) -> EquityTable:
    """The match-equity table of ``rules`` from ``hands`` hands of ``policy`` self-play
    (``progress(n)`` after each block of ``n`` hands played)."""
    outcomes = hand_outcomes(rules, policy, hands, seed, progress)
    return EquityTable.solve(rules, outcomes, policy, hands, seed)


@lru_cache(maxsize=8)
def _cached_table(rules: Rules, policy: str, hands: int, seed: int) -> EquityTable:
    return build_table(rules, policy, hands, seed)


@dataclass(frozen=True, eq=False)
class HandRewards:
    """The match objective's values for one hand (totals and dealer fixed): ``eq`` for
    the kernels (layout ``scopa_sim._engine.values.EQ_*``), in points; ``w0`` is side 0's equity
    before the hand and ``k`` the points per unit of win probability, so a value ``v``
    of side 0 means P(win) = ``w0 + v / k``."""

    eq: np.ndarray
    w0: float
    k: float

    def probability(self, value: float, side: int) -> float:
        """The win probability of ``side`` that its value ``value`` stands for."""
        if math.isnan(value):
            return math.nan
        w = self.w0 + value / self.k if side == 0 else 1.0 - self.w0 + value / self.k
        return min(1.0, max(0.0, w))

    def reached(self, state: HandState) -> float:
        """Side 0's value of the finished hand ``state`` (two sides): what its final
        score is worth in the match, in the rewards' points."""
        g = state.points  # Cirulla's total, declarations and runs included
        piles = [p.mask for p in state.piles]
        return float(KV.end_value(self.eq, int(g[0]), int(g[1]), piles[0], piles[1]))

    def predicted(self, state: HandState) -> float:
        """Side 0's value of the unfinished hand ``state`` (two sides) as the match
        objective's leaf predicts it from the position's heuristic estimate, in the
        rewards' points (Cirulla's: the estimate plus the declared points, as its searches
        value a depth limit)."""
        if state.rules.cirulla:
            score = np.zeros((4, K.N_ITEMS_CIRULLA), dtype=np.int64)
            return float(KSC.match_static_cirulla(state._vec, state.rules.loop_array(), score,
                                                  np.zeros(16), False, self.eq))  # fmt: skip
        work = np.zeros(16)
        KV.estimate(state._vec, state.rules.to_array(), 0, True, work)
        sc = state.scope
        total = state.plays_made + state.plays_left
        return float(KV.leaf_value(self.eq, work[12], work[13], sc[0], sc[1],
                                   state.plays_left, total))  # fmt: skip


@dataclass(frozen=True, eq=False)
class LeafFit:
    """The match leaf's calibration for one set of rules: before play ``p`` of a hand,
    the final margin (side 0 - side 1) is ``slope[p]`` times the margin the leaf
    estimates plus an error of standard deviation ``spread[p]``; fitted on ``hands``
    hands of ``policy`` self-play from ``seed``."""

    rules: Rules
    policy: str
    hands: int
    seed: int
    slope: np.ndarray  # float64 [plays of a hand]
    spread: np.ndarray  # float64 [plays of a hand]


def leaf_data(
    rules: Rules, policy: str = "expert", hands: int = LEAF_HANDS, seed: int = LEAF_SEED
) -> tuple[np.ndarray, np.ndarray]:
    """``(d, m)``: the margin the leaf estimates before each play (``d[h, p]``) and the
    final margin (``m[h]``) of ``hands`` hands of ``policy`` self-play
    (:func:`scopa_sim._engine.values.leaf_samples`; under Cirulla's rules
    :func:`scopa_sim._engine.values_cirulla.leaf_samples_cirulla`).

    Raises:
        EquityError: ``hands`` is below 2, rules of other than two sides, a policy not in
            :data:`MODEL_POLICIES`.
    """
    _two_sides(rules)
    code = _model_code(policy)
    if hands < 2:
        raise EquityError(f"a leaf calibration needs at least 2 hands, got {hands}")
    d = np.zeros((hands, rules.total_plays))
    m = np.zeros(hands)
    if rules.cirulla:  # Cirulla's hands, its leaf (the declared points counted)
        KVC.leaf_samples_cirulla(rules.loop_array(), code, hands, seed, d, m)
    else:
        KV.leaf_samples(rules.to_array(), code, hands, seed, d, m)
    return d, m


def calibration_of(d: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per column ``p`` of ``d``: the least-squares slope of ``m`` on ``d[:, p]`` through
    the origin (the two sides are alike, so the fit is the one of the data pooled with its
    mirror image; 0 where ``d`` is all 0) and the residual standard deviation."""
    sxx = (d * d).sum(axis=0)
    sxy = (d * m[:, None]).sum(axis=0)
    slope = np.where(sxx > 0, sxy / np.where(sxx > 0, sxx, 1.0), 0.0)
    resid = m[:, None] - d * slope
    return slope, np.sqrt((resid * resid).mean(axis=0))


def fit_leaf(
    rules: Rules, policy: str = "expert", hands: int = LEAF_HANDS, seed: int = LEAF_SEED
) -> LeafFit:
    """The match leaf's calibration of ``rules`` from ``hands`` hands of ``policy``
    self-play (:func:`leaf_data`, :func:`calibration_of`)."""
    slope, spread = calibration_of(*leaf_data(rules, policy, hands, seed))
    return LeafFit(rules, policy, hands, seed, slope, spread)


@lru_cache(maxsize=8)
def _cached_leaf(rules: Rules) -> LeafFit:
    return fit_leaf(rules)


def hand_rewards(
    table: EquityTable,
    totals: tuple[int, ...],
    dealer_side: int,
    leaf: LeafFit | None = None,
) -> HandRewards:
    """The rewards of a hand dealt by side ``dealer_side`` at match totals ``totals``:
    ``k * (W - w0)`` for side 0, ``W`` the win probability after the hand (see the
    module's docstring for ``k`` and ``w0``); ``leaf``: the leaf's calibration (None:
    the normal model)."""
    rules = table.rules
    nxt = 1 - dealer_side  # two sides: the deal alternates
    t, (t0, t1) = rules.target, totals
    size = gains(rules)
    x, y = np.meshgrid(t0 + np.arange(size), t1 + np.arange(size), indexing="ij")
    inside = table.win[np.minimum(x, t - 1), np.minimum(y, t - 1), nxt]
    top = np.where(x > y, 1.0, np.where(x < y, 0.0, table.tie[nxt]))
    w = np.where((x >= t) | (y >= t), top, inside)  # as :meth:`EquityTable.after`
    o = table.outcomes
    p = o.counts / o.counts.sum()
    g0 = o.dealer_points if dealer_side == 0 else o.first_points
    g1 = o.first_points if dealer_side == 0 else o.dealer_points
    wj = w[np.minimum(g0, size - 1), np.minimum(g1, size - 1)]
    denari = outright(rules)
    if denari:  # the side with all the denari wins outright
        side0 = np.where(o.all_denari == E.DEALER, dealer_side, 1 - dealer_side)
        wj = np.where(o.all_denari == E.NONE, wj, (side0 == 0).astype(np.float64))
    w0 = float(p @ wj)
    sd_w = math.sqrt(max(0.0, float(p @ (wj - w0) ** 2)))
    m = (g0 - g1).astype(np.float64)
    sd_m = math.sqrt(max(0.0, float(p @ (m - p @ m) ** 2)))
    k = max(sd_m, 1.0) / max(sd_w, MIN_SPREAD)  # sd_m is a few points; 1 if degenerate
    plays = 0 if leaf is None else int(leaf.slope.shape[0])
    eq = np.empty(KV.EQ_GAINS + size * size + 2 * plays)
    eq[KV.EQ_SIZE] = size
    eq[KV.EQ_DENARI] = 1.0 if denari else 0.0
    eq[KV.EQ_DENARI0] = k * (1.0 - w0)
    eq[KV.EQ_DENARI1] = k * (0.0 - w0)
    eq[KV.EQ_ITEMS] = 4.0 + rules.re_bello + rules.four_sevens_point
    eq[KV.EQ_SPREAD] = sd_m
    end = KV.EQ_GAINS + size * size
    eq[KV.EQ_GAINS : end] = (k * (w - w0)).ravel()
    eq[KV.EQ_CAL] = 0.0 if leaf is None else float(end)
    eq[KV.EQ_CAL_N] = plays
    if leaf is not None:
        eq[end : end + plays] = leaf.slope
        eq[end + plays :] = leaf.spread
    return HandRewards(eq, w0, k)


class MatchObjective:
    """The match objective of one bot: where its table comes from (``equity=``: a model
    policy's name or a table file), the table for each rules and the rewards of each
    hand, computed once and kept."""

    def __init__(self, source: str = "expert", leaf: str = "normal") -> None:
        """The match objective of a search: its equity table from ``source`` and its
        ``leaf`` (one of :data:`MATCH_LEAVES`).

        Raises:
            EquityError: an unknown leaf, or a ``source`` that is neither a model policy
                nor a readable equity table file.
        """
        if leaf not in MATCH_LEAVES:
            raise EquityError(f"unknown match leaf {leaf!r}; allowed: {', '.join(MATCH_LEAVES)}")
        self.source = source
        self.leaf = leaf
        self._file: EquityTable | None = None
        if source not in MODEL_POLICIES:
            self._file = EquityTable.load(source)  # missing or unreadable: fail now
        self._rewards: dict[tuple[Rules, tuple[int, ...], int], HandRewards] = {}

    def table(self, rules: Rules) -> EquityTable:
        """The table for ``rules`` (:class:`EquityError` if it cannot be had)."""
        _two_sides(rules)
        if self._file is not None:
            self._file.check(rules)
            return self._file
        return _cached_table(rules, self.source, DEFAULT_HANDS, DEFAULT_SEED)

    def rewards(self, rules: Rules, totals: tuple[int, ...], dealer: int) -> HandRewards:
        """The rewards of the hand dealt by seat ``dealer`` at match totals ``totals``."""
        key = (rules, totals, rules.side_of(dealer))
        got = self._rewards.get(key)
        if got is None:
            fit = _cached_leaf(rules) if self.leaf == "calibrated" else None
            got = self._rewards[key] = hand_rewards(self.table(rules), totals, key[2], fit)
        return got


__all__ = [
    "DEFAULT_HANDS",
    "DEFAULT_SEED",
    "FORMAT",
    "LEAF_HANDS",
    "LEAF_SEED",
    "MATCH_LEAVES",
    "OBJECTIVES",
    "EquityTable",
    "HandRewards",
    "LeafFit",
    "MatchObjective",
    "build_table",
    "calibration_of",
    "fit_leaf",
    "gains",
    "hand_outcomes",
    "hand_rewards",
    "leaf_data",
    "outright",
]
