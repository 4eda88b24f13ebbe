"""The Cirulla kernel policies (RULES.md §10; issue 42): ``choose_play_cirulla`` for
random, greedy and the expert, and ``play_out_cirulla``, on the step kernels.

Random draws one of the listed plays uniformly (the same draw as ``choose_play``);
greedy and the expert take a best play by their values (``play_values_cirulla``), ties
by reservoir draws; the expert reads the hands shown by declarations and declares by
its rule (``EXPERT_DECLARES``, measured in benchmarks/bench_declare.py)."""

from __future__ import annotations

import numpy as np
import pytest
from engine.test_crosscheck_cirulla import IDS, VARIANTS, Kernel, position, rules_of, vector

from scopa_sim import CardSet
from scopa_sim import _engine as K
from scopa_sim._engine import policy_cirulla as KC

P = CardSet.parse
POLICIES = [K.POLICY_RANDOM, K.POLICY_GREEDY, K.POLICY_EXPERT]


def deal(rules_vec: np.ndarray, seed: int, dealer: int = 0) -> np.ndarray:
    """A Cirulla hand dealt from ``seed``'s deal stream, as the simulations deal it."""
    rng = np.zeros(K.RNG_WORDS, dtype=np.uint64)
    K.reseed(rng, np.uint64(seed))
    deck = np.empty(40, dtype=np.int64)
    voids = np.empty(8, dtype=np.int64)
    n = K.shuffle_deal_cirulla(rules_vec, rng, deck, voids)
    state = np.zeros(K.N_STATE, dtype=np.int64)
    K.start_hand_cirulla(state, rules_vec, deck, dealer, n)
    return state


def values(state: np.ndarray, r: np.ndarray, policy: int, kern: Kernel, n: int) -> list[int]:
    out = np.empty(n, dtype=np.int64)
    K.play_values_cirulla(
        state, r, policy, KC.EXPERT_DECLARES, kern.card, kern.take, kern.meta, n, out,
        np.empty(K.EXPERT_SCRATCH), np.empty(K.MAX_PLAYS, dtype=np.int64),
        np.empty(K.MAX_PLAYS, dtype=np.int64), np.empty(K.SCRATCH, dtype=np.int64),
    )  # fmt: skip
    return [int(x) for x in out]


@pytest.mark.parametrize(("preset", "overrides"), VARIANTS, ids=IDS)
def test_play_out_is_the_step_loop_with_the_same_draws(preset: str, overrides: dict) -> None:
    """``play_out_cirulla`` plays whole hands for every policy, each play legal and
    chosen as ``choose_play_cirulla`` chooses it from the same generator."""
    rules = rules_of(preset, overrides)
    r = vector(rules)
    n_seats = rules.players
    for seed in range(3):
        for pol in POLICIES:
            policies = np.full(4, pol, dtype=np.int64)
            policies[1] = K.POLICY_RANDOM if pol != K.POLICY_RANDOM else K.POLICY_EXPERT
            state = deal(r, seed, seed % n_seats)
            twin = state.copy()
            rng = K.new_rng(np.uint64(1000 + seed))
            kern = Kernel()
            logs = [np.zeros(K.MAX_PLAYS, dtype=np.int64) for _ in range(3)]
            made = K.play_out_cirulla(
                state, r, policies, rng, kern.card, kern.take, kern.meta, kern.scratch, *logs
            )
            assert state[K.S_DONE] == 1 and made == rules.total_plays
            rng2 = K.new_rng(np.uint64(1000 + seed))
            k2 = Kernel()
            for i in range(made):
                legal = k2.plays(twin, r)
                n = len(legal)
                j = K.choose_play_cirulla(twin, r, policies[twin[K.S_TURN]], rng2, k2.card,
                                          k2.take, k2.meta, n)  # fmt: skip
                assert legal[j] == (logs[0][i], logs[1][i], logs[2][i])
                K.apply_play_cirulla(twin, r, *legal[j])
            assert (twin == state).all()


def test_random_draws_uniformly_among_the_listed_plays() -> None:
    r = vector(rules_of("cirulla", {"matta": "play"}))
    kern = Kernel()
    state = position(r, P("7H 2S 5C"), P("3D 4C JS"))
    n = len(kern.plays(state, r))
    rng = K.new_rng(np.uint64(7))
    want = K.rand_below(K.new_rng(np.uint64(7)), n)
    assert K.choose_play_cirulla(state, r, K.POLICY_RANDOM, rng, kern.card, kern.take,
                                 kern.meta, n) == want  # fmt: skip
    counts = np.zeros(n, dtype=int)
    for _ in range(4000):
        counts[K.choose_play_cirulla(state, r, K.POLICY_RANDOM, rng, kern.card, kern.take,
                                     kern.meta, n)] += 1  # fmt: skip
    assert counts.min() > 4000 / n * 0.7


@pytest.mark.parametrize("policy", [K.POLICY_GREEDY, K.POLICY_EXPERT])
@pytest.mark.parametrize(("preset", "overrides"), VARIANTS[:4], ids=IDS[:4])
def test_greedy_and_expert_take_a_best_play(policy: int, preset: str, overrides: dict) -> None:
    """The chosen play has the highest value, and every best play gets chosen (ties
    drawn uniformly by the reservoir)."""
    rules = rules_of(preset, overrides)
    r = vector(rules)
    kern = Kernel()
    for seed in range(6):
        state = deal(r, seed)
        n = len(kern.plays(state, r))
        vals = values(state, r, policy, kern, n)
        best = {i for i, v in enumerate(vals) if v == max(vals)}
        rng = K.new_rng(np.uint64(seed))
        picks = {
            K.choose_play_cirulla(state, r, policy, rng, kern.card, kern.take, kern.meta, n)
            for _ in range(60)
        }
        assert picks == best


def test_greedy_values_a_fifteen_as_a_capture_and_the_grande_cards() -> None:
    """A fifteen (5S taking JD and 2C) is valued as any capture, by the cards it takes:
    the JD (a denaro, 3, and a grande card, 4) 7 more than the JS, the table left the
    same."""
    r = vector(rules_of("cirulla", {}))
    kern = Kernel()
    state = position(r, P("5S"), P("JD 2C 4C KS"))
    plays = kern.plays(state, r)
    fifteen = next(i for i, p in enumerate(plays) if CardSet(p[1]) == P("JD 2C"))
    vals = values(state, r, K.POLICY_GREEDY, kern, len(plays))
    state2 = position(r, P("5S"), P("JS 2C 4C KS"))
    plays2 = kern.plays(state2, r)
    other = next(i for i, p in enumerate(plays2) if CardSet(p[1]) == P("JS 2C"))
    vals2 = values(state2, r, K.POLICY_GREEDY, kern, len(plays2))
    assert vals[fifteen] - vals2[other] == 7


def test_declarations_by_rule() -> None:
    """Greedy always declares; the expert declares by :data:`EXPERT_DECLARES`, and the
    rules ``never`` and ``tris`` keep a 3-point hand quiet."""
    assert KC.declare_bonus(3, KC.DECLARE_ALWAYS) == 3.0
    assert KC.declare_bonus(10, KC.DECLARE_TRIS) == 10.0
    assert KC.declare_bonus(3, KC.DECLARE_TRIS) < 0
    assert KC.declare_bonus(10, KC.DECLARE_NEVER) < 0
    assert KC.declare_bonus(0, KC.DECLARE_NEVER) == 0.0
    r = vector(rules_of("cirulla", {}))
    kern = Kernel()
    state = position(r, P("AS 2C 3H"), P("KD KC QS JH"))  # 6: declares 3
    plays = kern.plays(state, r)
    assert len(plays) == 6 and {p[2] >> K.META_DECLARATION for p in plays} == {0, 3}
    for policy in (K.POLICY_GREEDY, K.POLICY_EXPERT):
        rng = K.new_rng(np.uint64(3))
        i = K.choose_play_cirulla(state, r, policy, rng, kern.card, kern.take, kern.meta, 6)
        declared = plays[i][2] >> K.META_DECLARATION
        if policy == K.POLICY_EXPERT and KC.EXPERT_DECLARES == KC.DECLARE_NEVER:
            assert declared == 0
        else:
            assert declared == 3


def test_the_expert_reads_a_shown_hand() -> None:
    """Once the next seat has shown its hand, the expert's view of the unseen cards is
    that hand and the reply its best play from it."""
    r = vector(rules_of("cirulla", {}))
    state = position(r, P("5S 6C"), P("KD 2C"))
    state[K.S_HANDS + 1] = P("4D QC").mask
    state[K.S_STOCK] = 10
    unseen = K.cirulla_view(state, r)[3]
    assert CardSet(int(unseen)).mask != P("4D QC").mask
    state[K.S_SHOWN] = 2
    _, _, _, unseen, kn, _, _ = K.cirulla_view(state, r)
    assert CardSet(int(unseen)) == P("4D QC") and kn == 2


@pytest.mark.slow
def test_greedy_and_expert_beat_random() -> None:
    """Over 300 hands each way the policies' mean margin against random is positive."""
    r = vector(rules_of("cirulla", {}))
    for pol in (K.POLICY_GREEDY, K.POLICY_EXPERT):
        margins = []
        for h in range(300):
            policies = np.array([pol, K.POLICY_RANDOM, 0, 0], dtype=np.int64)
            side = 0
            if h % 2:
                policies[:2] = policies[1::-1]
                side = 1
            state = deal(r, h, h % 2)
            kern = Kernel()
            logs = [np.zeros(K.MAX_PLAYS, dtype=np.int64) for _ in range(3)]
            K.play_out_cirulla(state, r, policies, K.new_rng(np.uint64(h)), kern.card,
                               kern.take, kern.meta, kern.scratch, *logs)  # fmt: skip
            out = np.zeros((4, K.N_ITEMS_CIRULLA), dtype=np.int64)
            K.score_state_cirulla(state, r, out)
            margins.append(out[side, K.I_TOTAL] - out[1 - side, K.I_TOTAL])
        assert np.mean(margins) > 1.0, pol
