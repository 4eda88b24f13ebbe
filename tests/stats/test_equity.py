"""The match-equity dynamic programme against brute force and against simulated matches."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scopa_sim.bots.registry import seat_policies
from scopa_sim.data.run import SimConfig
from scopa_sim.game.rules import Rules
from scopa_sim.sim.shards import compute_rows
from scopa_sim.stats import equity as E


def _brute(out: E.HandOutcomes, target: int, denari_wins: bool, x: int, y: int, d: int) -> float:
    """P(X wins) by value iteration over every score pair up to a cap (ties above the
    target recurse like any other state); the cap is far enough that its error is nil."""
    p = out.counts / out.counts.sum()
    cap = target + 25
    v = np.full((cap + 1, cap + 1, 2), 0.5)
    for _ in range(400):
        new = v.copy()
        for a in range(cap + 1):
            for b in range(cap + 1):
                if max(a, b) >= target and a != b:
                    continue
                for dd in range(2):
                    tot = 0.0
                    for j in range(p.size):
                        gx = out.dealer_points[j] if dd == 0 else out.first_points[j]
                        gy = out.first_points[j] if dd == 0 else out.dealer_points[j]
                        if denari_wins and out.all_denari[j]:
                            tot += p[j] * float((out.all_denari[j] == E.DEALER) == (dd == 0))
                            continue
                        na, nb = min(a + gx, cap), min(b + gy, cap)
                        if max(na, nb) >= target and na != nb:
                            tot += p[j] * float(na > nb)
                        else:
                            tot += p[j] * v[na, nb, 1 - dd]
                    new[a, b, dd] = tot
        if np.abs(new - v).max() < 1e-13:
            break
        v = new
    return float(v[x, y, d])


def _outcomes(rows: list[tuple[int, int, int, int]]) -> E.HandOutcomes:
    a = np.array(rows, dtype=np.int64)
    return E.HandOutcomes(a[:, 0], a[:, 1], a[:, 2], a[:, 3])


@pytest.mark.slow
@pytest.mark.parametrize("denari_wins", [False, True])
def test_dp_matches_value_iteration(denari_wins: bool) -> None:
    # dealer-favoured hands, 0-0 hands (self-loops), ties, and all-denari hands
    out = _outcomes([(2, 1, 0, 30), (1, 2, 0, 20), (0, 0, 0, 10), (1, 1, 0, 15),
                     (3, 0, 1, 4), (0, 3, 2, 6), (0, 1, 0, 15)])  # fmt: skip
    target = 5
    v, tie = E.solve(out, target, denari_wins)
    for x, y, d in [(0, 0, 0), (0, 0, 1), (4, 4, 0), (3, 1, 1), (0, 4, 1), (2, 3, 0)]:
        assert v[0, x, y, d] == pytest.approx(_brute(out, target, denari_wins, x, y, d), abs=1e-9)
    assert tie[0, 0] == pytest.approx(_brute(out, target, denari_wins, 7, 7, 0), abs=1e-9)


def test_dp_symmetric_game_and_certain_outcomes() -> None:
    sym = _outcomes([(2, 1, 0, 1), (1, 2, 0, 1)])
    v, _ = E.solve(sym, 11, False)
    # X deals and gets 2 (or 1): symmetric in who deals, so from 0-0 it is even
    assert v[0, 0, 0, 0] == pytest.approx(0.5) and v[0, 0, 0, 1] == pytest.approx(0.5)
    dealer_takes_all = _outcomes([(1, 0, 0, 1)])
    v, _ = E.solve(dealer_takes_all, 3, False)
    # the dealing alternates: from 0-0 with X dealing, X scores in hands 1 and 3, Y in 2
    assert v[0, 0, 0, 0] == 1.0 and v[0, 0, 0, 1] == 0.0
    with pytest.raises(ValueError):
        E.solve(sym, 0, False)


def test_bootstrap_interval_covers_the_estimate() -> None:
    out = _outcomes([(3, 1, 0, 500), (1, 3, 0, 450), (2, 2, 0, 50)])
    eq = E.first_mover_win(out, 11, False, 200, seed=3)
    assert eq.low < eq.estimate < eq.high and eq.n == 1000
    # deterministic per seed
    assert E.first_mover_win(out, 11, False, 200, seed=3) == eq


def _scopa_rows(policy: str, mode: str, count: int) -> np.ndarray:
    r = Rules.make("scopa")
    cfg = SimConfig.make("scopa", r, seat_policies([policy], 2), mode, count, 5)
    return compute_rows(cfg, 0, count).copy()


@pytest.mark.slow
@pytest.mark.parametrize("policy", ["random", "greedy", "expert"])
def test_dp_agrees_with_simulated_matches(policy: str) -> None:
    from scopa_sim import _engine as K

    hands = _scopa_rows(policy, "hands", 20_000)
    first = hands[K.C_FIRST]
    pts = [hands[K.C_ITEMS + s * K.N_ITEMS + K.I_TOTAL] for s in range(2)]
    dealer_pts = np.where(first == 0, pts[1], pts[0])
    first_pts = np.where(first == 0, pts[0], pts[1])
    out = E.HandOutcomes.of(dealer_pts, first_pts, np.zeros_like(first_pts))
    v, _ = E.solve(out, 11, False)
    dp = float(v[0, 0, 0, 1])
    rows = _scopa_rows(policy, "matches", 4_000)
    last = rows[:, rows[K.C_WINNER] >= 0]
    first0 = (last[K.C_FIRST] - last[K.C_HAND]) % 2
    wins = float((first0 == last[K.C_WINNER]).mean())
    se = math.sqrt(wins * (1 - wins) / last.shape[1] + 0.004**2)  # the DP's own sd, about
    assert abs(dp - wins) < 4 * se


def _brute3(out: E.PositionOutcomes, target: int, denari_wins: bool) -> np.ndarray:
    """P(side 0 wins) from every score triple below the target, by value iteration over
    absolute scores up to a cap (ties above the target recurse like any state)."""
    p = out.counts / out.counts.sum()
    cap = target + 14
    v = np.full((cap + 1, cap + 1, cap + 1, 3), 1 / 3)
    idx = np.arange(cap + 1)
    for _ in range(300):
        new = np.empty_like(v)
        for d in range(3):
            acc = np.zeros((cap + 1,) * 3)
            for j in range(p.size):
                g = [0, 0, 0]
                for q in range(3):
                    g[(d + 1 + q) % 3] = int(out.points[j, q])
                if denari_wins and out.all_denari[j] >= 0:
                    acc += p[j] * float((d + 1 + out.all_denari[j]) % 3 == 0)
                    continue
                a = np.minimum(idx + g[0], cap)[:, None, None]
                b = np.minimum(idx + g[1], cap)[None, :, None]
                c = np.minimum(idx + g[2], cap)[None, None, :]
                a, b, c = np.broadcast_arrays(a, b, c)
                top = np.maximum(a, np.maximum(b, c))
                lead = (a == top).astype(int) + (b == top) + (c == top)
                done = (top >= target) & (lead == 1)
                val = np.where(done, (a == top).astype(float), v[a, b, c, (d + 1) % 3])
                acc += p[j] * val
            new[..., d] = acc
        if np.abs(new - v).max() < 1e-13:
            v = new
            break
        v = new
    return v


@pytest.mark.parametrize("denari_wins", [False, True])
def test_three_side_dp_matches_value_iteration(denari_wins: bool) -> None:
    rows = [
        ((2, 1, 0), -1, 20), ((0, 1, 2), -1, 25), ((1, 1, 1), -1, 10), ((0, 0, 0), -1, 8),
        ((1, 1, 0), -1, 12), ((3, 0, 1), 0, 3), ((0, 2, 2), 2, 4), ((0, 0, 1), -1, 18),
    ]  # fmt: skip
    out = E.PositionOutcomes(
        np.array([r[0] for r in rows], dtype=np.int64),
        np.array([r[1] for r in rows], dtype=np.int64),
        np.array([r[2] for r in rows], dtype=np.int64),
    )
    target = 4
    v = E.solve3(out, target, denari_wins)[0]
    brute = _brute3(out, target, denari_wins)
    assert np.allclose(v, brute[:target, :target, :target], atol=1e-9)
    # someone wins: the three sides' chances from 0-0-0 add up to 1 (relabel the sides)
    assert v[0, 0, 0].sum() == pytest.approx(1.0)
    eq = E.first_mover_win3(out, target, denari_wins, 30, seed=1)
    assert eq.estimate == pytest.approx(v[0, 0, 0, 2]) and eq.low <= eq.estimate <= eq.high
    with pytest.raises(ValueError):
        E.solve3(E.PositionOutcomes(out.points[:, :2], out.all_denari, out.counts), 4, False)


def _brute_sides(out: E.PositionOutcomes, target: int, denari_wins: bool) -> np.ndarray:
    """P(side 0 wins) from every score vector below the target, any number of sides, by
    value iteration over absolute scores up to a cap (ties above the target recurse like
    any state; a side at the cap stays there: an error of about 1e-7 with these hands)."""
    sides = out.sides
    p = out.counts / out.counts.sum()
    cap = target + 8
    grid = np.indices((cap + 1,) * sides)  # grid[s]: side s's score in each cell
    v = np.full((cap + 1,) * sides + (sides,), 1 / sides)
    for _ in range(300):
        new = np.empty_like(v)
        for d in range(sides):
            acc = np.zeros((cap + 1,) * sides)
            for j in range(p.size):
                if denari_wins and out.all_denari[j] >= 0:
                    acc += p[j] * float((d + 1 + out.all_denari[j]) % sides == 0)
                    continue
                g = [0] * sides
                for q in range(sides):
                    g[(d + 1 + q) % sides] = int(out.points[j, q])
                nxt = tuple(np.minimum(grid[s] + g[s], cap) for s in range(sides))
                top = np.max(np.stack(nxt), axis=0)
                lead = sum((n == top).astype(int) for n in nxt)
                done = (top >= target) & (lead == 1)
                acc += p[j] * np.where(
                    done, (nxt[0] == top).astype(float), v[(*nxt, (d + 1) % sides)]
                )
            new[..., d] = acc
        if np.abs(new - v).max() < 1e-13:
            return new
        v = new
    return v


@pytest.mark.slow
@pytest.mark.parametrize("denari_wins", [False, True])
def test_four_side_dp_matches_value_iteration(denari_wins: bool) -> None:
    """The one programme takes any number of sides: four (four players each for
    themselves) against brute force, and the four sides' chances add up to 1."""
    rows = [
        ((3, 1, 0, 0), -1, 20), ((0, 2, 1, 0), -1, 25), ((0, 0, 0, 0), -1, 8),
        ((1, 0, 0, 2), 3, 4), ((0, 1, 0, 3), 1, 5), ((2, 0, 1, 1), -1, 10), ((1, 1, 0, 0), -1, 6),
    ]  # fmt: skip
    out = E.PositionOutcomes(
        np.array([r[0] for r in rows], dtype=np.int64),
        np.array([r[1] for r in rows], dtype=np.int64),
        np.array([r[2] for r in rows], dtype=np.int64),
    )
    target = 3
    v, tie = E.solve_sides(out, target, denari_wins)
    brute = _brute_sides(out, target, denari_wins)
    assert v.shape == (1, 3, 3, 3, 3, 4)
    # the brute force's cap on the scores costs it about 1e-7 here; a wrong programme
    # is off by far more (1e-2)
    assert np.allclose(v[0], brute[:target, :target, :target, :target], atol=1e-6)
    assert v[0, 0, 0, 0, 0].sum() == pytest.approx(1.0)  # relabel the sides: someone wins
    level = brute[target + 1, target + 1, target + 1, target + 1]
    assert np.allclose(tie[0], level, atol=1e-6)


def test_two_and_three_sides_are_the_one_programme() -> None:
    """``solve`` and ``solve3`` are :func:`solve_sides` of their results by position, to
    the last bit (the two-side results put the first player before the dealer)."""
    two = _outcomes([(2, 1, 0, 30), (1, 2, 0, 20), (0, 0, 0, 10), (1, 1, 0, 15), (3, 0, 1, 4)])
    v, tie = E.solve(two, 5, True)
    v2, tie2 = E.solve_sides(two.positions(), 5, True)
    assert v.tobytes() == v2.tobytes() and tie.tobytes() == tie2.tobytes()
    assert two.positions().points[0].tolist() == [1, 2] and two.positions().all_denari[4] == 1
    with pytest.raises(ValueError, match="at least two sides"):
        E.solve_sides(E.PositionOutcomes(np.zeros((1, 1), np.int64), np.array([-1]),
                                         np.array([1])), 3, False)  # fmt: skip
