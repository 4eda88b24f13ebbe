"""Twins: hot sections of the kernels held equal to the slower, plainer code beside them.

* the fused loop (:func:`scopa_sim._engine.fused._fused_hands`, with the options its
  entry points compile in) against the step kernels' hands
  (:func:`~scopa_sim._engine.rows.step_rows`) and against the general kernel of its
  capture rule: the same points and rows for every preset, policy and mode;
* :func:`scopa_sim._engine.fused._best_play` (the fused loop's "score every play, keep
  the best", walking the plays through the capture module's fast accessors) against
  the step kernels' :func:`~scopa_sim._engine.step.choose_play` (the plays listed by
  :func:`~scopa_sim._engine.step.legal_plays`): same plays, same draws from the play
  stream, as the fused loop's cross-checks hold the loop to them.
* :func:`scopa_sim._engine.plays.list_plays` and :func:`~scopa_sim._engine.plays.nth_play`
  (the search loops' enumeration) against :func:`~scopa_sim._engine.step.legal_plays`:
  the same plays in the same order.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from scopa_sim import _engine as K
from scopa_sim._engine import fused as KF
from scopa_sim._engine import plays as KP
from scopa_sim.bots.learned_weights import WEIGHTS_DIR
from scopa_sim.game.rules import KERNEL_PRESETS, Rules


def _positions(preset: str, count: int, seed: int) -> list[np.ndarray]:
    """Decision states of random self-play hands, at points spread over the hand."""
    rules = Rules.make(preset)
    r = rules.to_array()
    out: list[np.ndarray] = []
    bc = np.empty(K.MAX_PLAYS, np.int64)
    bt = np.empty(K.MAX_PLAYS, np.int64)
    sc = np.empty(K.SCRATCH, np.int64)
    deck = np.empty(40, np.int64)
    for h in range(count):
        rng = K.new_rng(K.derive_seed(seed, h, 0, 0))
        K.shuffle_deal(r, rng, deck)
        state = np.zeros(K.N_STATE, np.int64)
        K.start_hand(state, r, deck, h % rules.players)
        stop = (7 * h) % (int(r[K.R_TOTAL_PLAYS]) - 1)
        while state[K.S_PLAYS] < stop:
            n = K.legal_plays(state, r, bc, bt, sc)
            i = K.rand_below(rng, n)
            K.apply_play(state, r, bc[i], bt[i])
        out.append(state)
    return out


@njit
def _best_play_of(st, rules, expert, z, spare):
    """The fused loop's best play (:func:`scopa_sim._engine.fused._best_play`) at the
    position ``st``, with the loop's counts; ``(card, take, z, spare, n, big)``."""
    fifteen = rules[K.R_CAPTURE_FIFTEEN] != 0
    players = rules[K.R_PLAYERS]
    teams = rules[K.R_TEAMS] != 0
    ns = 2 if teams else players
    fewest = rules[K.R_SUM_FEWEST] != 0
    capture_hand = rules[K.R_CAPTURE_HAND] != 0
    optional = rules[K.R_CAPTURE_OPTIONAL] != 0
    turn = st[K.S_TURN]
    hand = st[K.S_HANDS + turn]
    table = st[K.S_TABLE]
    packed, packed_hi = K.packed_of(table, fifteen)
    plain = not fewest and not capture_hand and not optional
    big_table = K.BIG_TABLE15 if fifteen else K.BIG_TABLE
    sweep_aces, big, n, _counts, _rare, lay_ok, _one = KF._count_plays(
        hand, table, packed, packed_hi, rules[K.R_ACE_SWEEP] != 0, fewest, capture_hand,
        optional, fifteen, plain, big_table,
    )  # fmt: skip
    w = np.zeros(K.N_WORK, np.int64)
    for s in range(4):
        w[K.W_HANDS + s] = st[K.S_HANDS + s]
        w[K.W_PILES + s] = st[K.S_PILES + s]
        w[K.W_SCOPE + s] = st[K.S_SCOPE + s]
    xs = np.empty(K.EXPERT_SCRATCH)
    card, take, z, spare = KF._best_play(
        hand, table, packed, packed_hi, sweep_aces, fewest, optional, fifteen, lay_ok, expert,
        w, turn, players, teams, ns, rules[K.R_DECK_MASK], rules[K.R_DECK], st[K.S_STOCK],
        rules[K.R_HAND_SIZE], st[K.S_PLAYS], rules[K.R_TOTAL_PLAYS], st[K.S_LAST_CAPTURER],
        st[K.S_DEALER], rules[K.R_LAST_PLAY_SCOPA] != 0, K.expert_flags(rules), xs, z, spare,
    )  # fmt: skip
    return card, take, z, spare, n, big


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["scopa", "scopa-15", "scopone", "escoba", "scopa-3"])
@pytest.mark.parametrize("policy", [K.POLICY_GREEDY, K.POLICY_EXPERT])
def test_best_play_chooses_as_the_step_kernels(preset: str, policy: int) -> None:
    r = Rules.make(preset).to_array()
    bc = np.empty(K.MAX_PLAYS, np.int64)
    bt = np.empty(K.MAX_PLAYS, np.int64)
    sc = np.empty(K.SCRATCH, np.int64)
    checked = 0
    for i, st in enumerate(_positions(preset, 40, 7)):
        z = np.uint64(K.derive_seed(9, i, 0, 0))
        spare = np.uint64(0)
        card, take, z1, spare1, n, big = _best_play_of(st, r, policy == K.POLICY_EXPERT, z, spare)
        m = K.legal_plays(st, r, bc, bt, sc)
        if big or m < 2:
            continue  # the step kernels decide those (big tables) or there is no choice
        assert n == m
        rng = np.array([z, spare], dtype=np.uint64)
        j = K.choose_play(st, r, policy, rng, bc, bt, m)
        assert (card, take) == (bc[j], bt[j])
        assert (z1, spare1) == (rng[0], rng[1])
        checked += 1
    assert checked >= 10


@njit
def _plays_of(st, rules, out_card, out_take, nth_card, nth_take):
    """The plays at ``st`` through :mod:`scopa_sim._engine.plays`: listed to ``out_*`` and
    taken one by one by :func:`~scopa_sim._engine.plays.nth_play` to ``nth_*``;
    ``(n, big)``."""
    fifteen = rules[K.R_CAPTURE_FIFTEEN] != 0
    turn = st[K.S_TURN]
    hand = st[K.S_HANDS + turn]
    table = st[K.S_TABLE]
    packed, packed_hi = K.packed_of(table, fifteen)
    hc = np.empty(16, np.int64)
    kk = np.empty(16, np.int64)
    bt = np.empty(K.MAX_PLAYS, np.int64)
    sc = np.empty(K.SCRATCH, np.int64)
    optional = rules[K.R_CAPTURE_OPTIONAL] != 0
    fewest = rules[K.R_SUM_FEWEST] != 0
    big_table = K.BIG_TABLE15 if fifteen else K.BIG_TABLE
    sweep_aces, big, nh, n, lay_ok = KP.count_hand(
        hand, table, packed, packed_hi, rules[K.R_ACE_SWEEP] != 0, fewest,
        rules[K.R_CAPTURE_HAND] != 0, optional, fifteen, big_table, hc, kk, bt, sc,
    )  # fmt: skip
    listed = KP.list_plays(hc, kk, nh, lay_ok, optional, big, table, packed, packed_hi,
                           sweep_aces, fewest, fifteen, bt, sc, out_card, out_take)  # fmt: skip
    if listed != n:
        return -1, big
    for r in range(n + 1):  # one past the end: (-1, 0)
        nth_card[r], nth_take[r] = KP.nth_play(r, hc, kk, nh, lay_ok, optional, big, table,
                                               packed, packed_hi, sweep_aces, fewest, fifteen,
                                               bt, sc)  # fmt: skip
    return n, big


_ORDER_RULES = [(p, ()) for p in KERNEL_PRESETS] + [
    ("scopa", ("capture_compulsory=false",)),
    ("scopa", ("sum_capture=fewest",)),
    ("scopa-15", ("sum_capture=fewest", "capture_compulsory=false")),
]


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "overrides"), _ORDER_RULES)
def test_search_enumeration_lists_the_plays_in_the_step_kernels_order(
    preset: str, overrides: tuple[str, ...]
) -> None:
    r = Rules.make(preset, overrides=list(overrides)).to_array()
    bc = np.empty(K.MAX_PLAYS, np.int64)
    bt = np.empty(K.MAX_PLAYS, np.int64)
    sc = np.empty(K.SCRATCH, np.int64)
    lc = np.empty(K.MAX_PLAYS, np.int64)
    lt = np.empty(K.MAX_PLAYS, np.int64)
    nc = np.empty(K.MAX_PLAYS + 1, np.int64)
    nt = np.empty(K.MAX_PLAYS + 1, np.int64)
    seen_big = False
    for st in _positions(preset, 60, 3):
        m = K.legal_plays(st, r, bc, bt, sc)
        n, big = _plays_of(st, r, lc, lt, nc, nt)
        seen_big |= bool(big)
        assert n == m
        assert np.array_equal(lc[:n], bc[:m]) and np.array_equal(lt[:n], bt[:m])
        assert np.array_equal(nc[:n], bc[:m]) and np.array_equal(nt[:n], bt[:m])
        assert (nc[n], nt[n]) == (-1, 0)
    if overrides == ("capture_compulsory=false",):
        assert seen_big  # free lays grow the table past the packed counts


_RULES = [(p, ()) for p in KERNEL_PRESETS] + [("scopa", ("capture_compulsory=false",))]


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "overrides"), _RULES)
def test_fused_loop_and_step_kernels_give_the_same_hands(
    preset: str, overrides: tuple[str, ...]
) -> None:
    """The fused loop (the kernel :func:`~scopa_sim._engine.fused.fused_kernel` picks, its
    options compiled in; ``learned`` seats playing the shipped weights) plays the hands
    of a ``--hands`` run as the step kernels do
    (:func:`~scopa_sim._engine.rows.step_rows`), and, in every mode, as the general
    kernel of its capture rule that reads those options at run time."""
    rules = Rules.make(preset, overrides=list(overrides))
    r = rules.to_array()
    kernel = K.fused_kernel(r)
    general = KF.fused_hands15 if rules.capture_mode == "fifteen" else KF.fused_hands
    ident = np.arange(rules.deck, dtype=np.int64)
    shipped = np.load(WEIGHTS_DIR / "scopa.npy")  # the features read any rule set
    for pol in (K.POLICY_RANDOM, K.POLICY_GREEDY, K.POLICY_EXPERT, K.POLICY_LEARNED):
        pols = np.array([pol, K.POLICY_RANDOM, pol, K.POLICY_GREEDY], np.int64)
        hands = 30 if pol >= K.POLICY_EXPERT else 200
        model = shipped if pol == K.POLICY_LEARNED else K.NO_MODEL
        steps = np.zeros((K.N_ROW_COLS, hands), np.int32)
        K.step_rows(r, pols, model, np.uint64(11 + pol), 5, hands, ident, False, steps)
        for mode in (K.MODE_SELFPLAY, K.MODE_HANDS, K.MODE_MATCHES):
            got = []
            for run in (kernel, general):
                points = np.zeros((0, 4) if mode == K.MODE_MATCHES else (hands, 4), np.int64)
                cols = np.zeros((K.N_ROW_COLS, 64 * 4 if mode == K.MODE_MATCHES else hands),
                                np.int32)  # fmt: skip
                units = 3 if mode == K.MODE_MATCHES else hands
                done = run(r, pols, model, 11 + pol, 5, units, mode, points, cols)
                got.append((tuple(done), points, cols))
            (d0, p0, c0), (d1, p1, c1) = got
            assert d0 == d1 and d0[1] > 0
            assert np.array_equal(p0, p1)
            assert np.array_equal(c0, c1)
            if mode == K.MODE_HANDS:
                assert np.array_equal(c0, steps)
