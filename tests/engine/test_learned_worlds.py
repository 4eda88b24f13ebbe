"""``learned:worlds=K``: the determinized exact search of the round before the last
(:func:`scopa_sim._engine.learned.worlds_choice`), its kernel codes in the fused loop,
the bot and the harness, and its parameter."""

from __future__ import annotations

import numpy as np
import pytest

from scopa_sim import Rules
from scopa_sim import _engine as K
from scopa_sim._engine import learned as KL
from scopa_sim._engine.determinize import determinize
from scopa_sim._engine.solver import FULL_DEPTH, N_INFO, V_TT_MASK, solve_root
from scopa_sim.bots import learned as BL
from scopa_sim.bots.base import KernelBot
from scopa_sim.bots.learned_weights import WEIGHTS_DIR
from scopa_sim.bots.registry import PolicySpec
from scopa_sim.errors import PolicyError
from scopa_sim.game.infoset import InfoSet
from scopa_sim.game.state import HandState


def _round_before_last(seed: int) -> HandState:
    """A ``scopa`` hand played by ``greedy`` (first legal plays) to the first decision of
    more than one play with exactly one deal left in the stock."""
    rules = Rules.make("scopa")
    state = HandState.deal(rules, seed=seed)
    while True:
        vec = InfoSet(state).vector
        if KL.last_deal_left(vec, state._r) and len(state.legal_plays) > 1:
            return state
        state.push(state.legal_plays[0])


def _buffers(vec: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    bc = np.empty(K.MAX_PLAYS, dtype=np.int64)
    bt = np.empty(K.MAX_PLAYS, dtype=np.int64)
    n = int(K.legal_plays(vec, r, bc, bt, np.empty(K.SCRATCH, dtype=np.int64)))
    return bc, bt, n


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
@pytest.mark.parametrize("worlds", [1, 3])
def test_worlds_choice_is_the_blend_of_the_solvers_mean_and_the_model(
    seed: int, worlds: int
) -> None:
    """The search's play is the argmax of ``WORLDS_MIX`` x the mean exact value of each
    play over the worlds it draws (each world solved by :func:`solve_root`, recomputed
    here from the same draws) + the rest x the model's value; with a model of constant
    value (all weights 0) it is the solver's best play in the one drawn world."""
    state = _round_before_last(seed)
    vec, r = InfoSet(state).vector, state._r
    bc, bt, n = _buffers(vec, r)
    shipped = np.load(WEIGHTS_DIR / "scopa.npy")
    flat = KL.new_model(0, 0)
    flat[KL.model_offsets(flat)[1] + KL.D_EXPERT] = 0.0
    for model in (shipped, flat):
        rng = K.new_rng(77)
        draws = rng.copy()
        total = np.zeros(n)
        world = np.empty(K.N_STATE, dtype=np.int64)
        for _ in range(worlds):
            determinize(vec, r, int(vec[K.S_TURN]), draws, world)
            tt = KL.exact_table(1 << 12)
            info = np.zeros(N_INFO, dtype=np.int64)
            info[V_TT_MASK] = (1 << 12) - 1
            sc, st, vals = np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n)
            m = solve_root(world, r, FULL_DEPTH, *tt, info, sc, st, vals)
            assert m == n and np.array_equal(sc, bc[:n]) and np.array_equal(st, bt[:n])
            total += vals
        acc = np.empty(max(1, KL.hidden_width(model)))
        idx, dense = np.empty(KL.MAX_ACTIVE, np.int64), np.empty(KL.N_DENSE)
        xs = np.empty(K.EXPERT_SCRATCH)
        lv = np.array(
            [KL.learned_value(vec, r, model, bc[i], bt[i], idx, dense, acc, xs) for i in range(n)]
        )
        blend = KL.WORLDS_MIX * total / worlds + (1.0 - KL.WORLDS_MIX) * lv
        best = np.flatnonzero(blend == blend.max())
        kind = BL.worlds_kind(worlds)
        got = int(KL.harness_choice(vec, r, kind, model, rng, bc, bt, n))
        assert got in best
        if model is flat and worlds == 1:
            assert got in np.flatnonzero(total == total.max())


def test_worlds_zero_plays_as_learned_and_the_search_stays_in_its_round() -> None:
    """``worlds_kind(0)`` is ``learned`` with the exact endgame; away from the round before
    the last (the first decision of a hand) the search's kind plays as ``learned``."""
    assert BL.worlds_kind(0) == BL.LEARNED + BL.EXACT
    model = np.load(WEIGHTS_DIR / "scopa.npy")
    state = HandState.deal(Rules.make("scopa"), seed=5)
    vec, r = InfoSet(state).vector, state._r
    bc, bt, n = _buffers(vec, r)
    a = KL.harness_choice(vec, r, BL.worlds_kind(8), model, K.new_rng(3), bc, bt, n)
    b = KL.harness_choice(vec, r, BL.worlds_kind(0), model, K.new_rng(3), bc, bt, n)
    assert a == b


def test_the_bot_and_the_kernel_choose_alike() -> None:
    """``KernelBot('learned', worlds=K)`` (the information set's canonical world) and the
    kernel policy code ``POLICY_LEARNED + K * WORLDS_UNIT`` on the true state choose the
    same play from the same generator: the worlds drawn depend only on what the seat
    knows."""
    model = np.load(WEIGHTS_DIR / "scopa.npy")
    for seed in (1, 2, 3):
        state = _round_before_last(seed)
        vec, r = state._vec.copy(), state._r
        bc, bt, n = _buffers(vec, r)
        code = K.POLICY_LEARNED + 4 * KL.WORLDS_UNIT
        idx, dense = np.empty(KL.MAX_ACTIVE, np.int64), np.empty(KL.N_DENSE)
        acc, xs = np.empty(KL.hidden_width(model)), np.empty(K.EXPERT_SCRATCH)
        tt = KL.exact_table(KL.EXACT_TT)
        rng = K.new_rng(K.derive_seed(9, 5, 0, 0))
        i = KL.choose_learned(vec, r, code, model, rng, bc, bt, n, idx, dense, acc, xs, tt)
        bot = KernelBot("learned", worlds=4)
        bot.prepare(state.rules)
        chosen = bot.analyse(state, 9)[0].play
        assert (chosen.card, chosen.take) == (int(bc[i]), int(bt[i]))


def test_fused_loop_with_worlds_equals_the_step_kernels() -> None:
    """The fused loop's ``learned:worlds=4`` seats play the hands the step kernels play
    (:func:`~scopa_sim._engine.learned.play_out_model`, through :func:`step_rows`)."""
    model = np.load(WEIGHTS_DIR / "scopa.npy")
    r = Rules.make("scopa").to_array()
    code = K.POLICY_LEARNED + 4 * KL.WORLDS_UNIT
    policies = np.array([code, K.POLICY_EXPERT, 0, 0], dtype=np.int64)
    count = 30
    fused = np.zeros((K.N_ROW_COLS, count), dtype=np.int32)
    K.fused_rows(r, policies, 5, False, 7, count, fused, model=model)
    steps = np.zeros((K.N_ROW_COLS, count), dtype=np.int32)
    ident = np.arange(40, dtype=np.int64)
    K.step_rows(r, policies, model, np.uint64(5), 7, count, ident, False, steps)
    assert np.array_equal(fused, steps)
    plain = np.zeros((K.N_ROW_COLS, count), dtype=np.int32)
    base = np.array([K.POLICY_LEARNED, K.POLICY_EXPERT, 0, 0], dtype=np.int64)
    K.fused_rows(r, base, 5, False, 7, count, plain, model=model)
    assert not np.array_equal(fused, plain)  # the search plays other hands


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("learned:worlds=65", "expected an integer in [0, 64]"),
        ("learned:worlds=-1", "expected an integer in [0, 64]"),
        ("learned:worlds=x", "expected an integer in [0, 64]"),
        ("learned:exact=1", "unknown parameter 'exact'"),
        ("expert:worlds=2", "takes no parameters"),
    ],
)
def test_the_worlds_parameter_is_checked(text: str, says: str) -> None:
    with pytest.raises(PolicyError, match=says.replace("[", r"\[").replace("]", r"\]")):
        PolicySpec.parse(text)


def test_the_worlds_parameter_gives_the_kernel_code() -> None:
    assert PolicySpec.parse("learned:worlds=12").code == K.POLICY_LEARNED + 12 * KL.WORLDS_UNIT
    assert PolicySpec.parse("learned:worlds=0").code == K.POLICY_LEARNED
    assert PolicySpec.parse("learned").code == K.POLICY_LEARNED
    assert BL.kind_of("learned:worlds=3") == BL.worlds_kind(3)
    with pytest.raises(ValueError, match="worlds"):
        BL.kind_of("learned:worlds=99")
