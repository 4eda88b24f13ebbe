"""Twins: hot sections of the kernels that stay written out because their carve into named
steps measured slower, each held equal here to the carved version beside it.

* :func:`scopa_sim._engine.ismcts._ismcts` (the ISMCTS kernels' body) and
  :func:`~scopa_sim._engine.ismcts._ismcts_steps` (the same loop in named steps): the
  same trees, counters and logs from the same roots;
* :func:`scopa_sim._engine.fused._fused_hands` (the fused loop's body) and
  :func:`~scopa_sim._engine.fused._fused_hands_steps` (the same loop in named steps,
  :func:`~scopa_sim._engine.fused.fused_hands_steps`): the same points and rows for
  every preset, policy and mode;
* its "score every play, keep the best" step,
  :func:`scopa_sim._engine.fused._best_play`, against the step kernels'
  :func:`~scopa_sim._engine.step.choose_play` (same plays, same draws from the play
  stream), as the fused loop's cross-checks hold the loop to them.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from scopa_sim import _engine as K
from scopa_sim._engine import fused as KF
from scopa_sim._engine import ismcts as KI
from scopa_sim._engine import values as KV
from scopa_sim.game.rules import PRESETS, Rules


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


def _match_table(size: int = 12) -> np.ndarray:
    """A match objective's table (``EQ_*`` layout) with arbitrary values."""
    eq = np.zeros(KV.EQ_GAINS + size * size)
    eq[KV.EQ_SIZE] = size
    eq[KV.EQ_ITEMS] = 4.0
    eq[KV.EQ_SPREAD] = 2.5
    g = np.random.default_rng(5).normal(size=(size, size))
    eq[KV.EQ_GAINS :] = g.ravel()
    return eq


_NONE = (np.empty(0, np.int64), np.empty(0), np.empty(0), np.empty((4, 0)), False)

# (preset, rollout policy, horizon, leaf, match objective, belief particles, play models)
_ISMCTS_CASES = [
    ("scopa", K.POLICY_GREEDY, KI.FULL_DEPTH, KV.LEAF_ESTIMATE, False, False, None),
    ("scopa", K.POLICY_RANDOM, 4, KV.LEAF_ESTIMATE, False, True, None),
    ("scopa", K.POLICY_EXPERT, 2, KV.LEAF_EXPERT, False, False, "tree"),
    ("scopa", K.POLICY_GREEDY, 3, KV.LEAF_ESTIMATE, True, True, "model"),
    ("scopa", K.POLICY_GREEDY, KI.FULL_DEPTH, KV.LEAF_ESTIMATE, True, False, None),
    ("scopone", K.POLICY_GREEDY, KI.FULL_DEPTH, KV.LEAF_ESTIMATE, False, False, "model"),
    ("scopa-3", K.POLICY_EXPERT, 4, KV.LEAF_EXPERT, False, True, None),
]


@pytest.mark.parametrize(
    ("preset", "policy", "horizon", "leaf", "match", "belief", "reply"), _ISMCTS_CASES
)
def test_ismcts_written_out_and_in_steps_build_the_same_trees(
    preset: str, policy: int, horizon: int, leaf: int, match: bool, belief: bool, reply: str | None
) -> None:
    r = Rules.make(preset).to_array()
    players = int(r[K.R_PLAYERS])
    eq = _match_table() if match else np.empty(0)
    for i, root in enumerate(_positions(preset, 6, 40)):
        seat = int(root[K.S_TURN])
        parts = np.empty((0, 4), np.int64)
        cum = np.empty(0)
        if belief:  # a particle holding the true hands, and one holding none
            parts = np.full((2, 4), -1, np.int64)
            for s in range(players):
                if s != seat:
                    parts[0, s] = root[K.S_HANDS + s]
            cum = np.array([0.5, 1.0])
        models = _NONE
        if reply is not None:
            kinds = np.array([KI.KIND_RANDOM, KI.KIND_GREEDY, KI.KIND_EXPERT, KI.KIND_SEARCH])
            post = np.full((4, 4), 0.25)
            models = (kinds, np.array([0.0, 0.0, 0.5, 0.0]), np.array([0.0, 0.02, 0.05, 0.0]),
                      post, reply == "model")  # fmt: skip
        got = []
        for kernel in (KI._ismcts_run_scopa, KI._ismcts_steps_scopa):
            tree = np.zeros((3000, KI.T_COLS), np.int64)
            log = np.zeros(KI.L_SIZE, np.int64)
            rng = np.array([1000 + i, 0], dtype=np.uint64)
            count = KI.ismcts_init(root, tree)
            count = kernel(root, r, tree, count, 300, 0.7, policy, horizon, rng, log, leaf, eq,
                           parts, cum, *models)  # fmt: skip
            got.append((count, tree[:count].copy(), rng.copy(), log.copy()))
        (c0, t0, g0, l0), (c1, t1, g1, l1) = got
        assert c0 == c1 > 1
        assert np.array_equal(t0, t1)
        assert np.array_equal(g0, g1)
        assert np.array_equal(l0, l1)


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


_RULES = [(p, ()) for p in PRESETS] + [
    ("scopa", ("capture_compulsory=false",)),
    ("escoba", ("opening_fifteen_to=first_player", "primiera=escoba_sevens",
                "four_sevens_point=true")),
    ("escoba", ("opening_fifteen_to=first_player", "players=4")),
]  # fmt: skip


@pytest.mark.parametrize(("preset", "overrides"), _RULES)
def test_fused_loop_written_out_and_in_steps_give_the_same_hands(
    preset: str, overrides: tuple[str, ...]
) -> None:
    rules = Rules.make(preset, overrides=list(overrides))
    r = rules.to_array()
    kernel = K.fused_kernel(r)
    for pol in (K.POLICY_RANDOM, K.POLICY_GREEDY, K.POLICY_EXPERT):
        pols = np.array([pol, K.POLICY_RANDOM, pol, K.POLICY_GREEDY], np.int64)
        hands = 30 if pol == K.POLICY_EXPERT else 200
        for mode in (K.MODE_SELFPLAY, K.MODE_HANDS, K.MODE_MATCHES):
            got = []
            for run in (kernel, KF.fused_hands_steps):
                points = np.zeros((0, 4) if mode == K.MODE_MATCHES else (hands, 4), np.int64)
                cols = np.zeros((K.N_ROW_COLS, 64 * 4 if mode == K.MODE_MATCHES else hands),
                                np.int32)  # fmt: skip
                units = 3 if mode == K.MODE_MATCHES else hands
                done = run(r, pols, 11 + pol, 5, units, mode, points, cols)
                got.append((tuple(done), points, cols))
            (d0, p0, c0), (d1, p1, c1) = got
            assert d0 == d1 and d0[1] > 0
            assert np.array_equal(p0, p1)
            assert np.array_equal(c0, c1)
