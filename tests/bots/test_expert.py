"""The ``expert`` policy: legal plays only, the seat's information set only, deterministic
per seed, and its expectation over the next seat's hands exact (checked against
enumerating every hand).  The fused loop against the step kernels with expert seats is
``tests/engine/test_crosscheck.py::test_fused_selfplay_matches_the_step_kernels`` (any mix of
random, greedy and expert, every rule set there)."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from scopa_sim import CardSet, Rules
from scopa_sim import _engine as K
from scopa_sim.bots.base import KernelBot
from scopa_sim.bots.registry import PolicyError, PolicySpec, make_bot
from scopa_sim.game.state import HandState

P = CardSet.parse
PRESETS = [
    "scopa",
    "scopa-3",
    "scopa-4",
    "scopa-4-solo",
    "asso-piglia-tutto",
    "scopa-36",
    "scopa-corsa",
    "scopone",
    "scopone-scientifico",
    "scopa-15",
    "escoba",
]


def choose(state: HandState, seed: int) -> tuple[int, int]:
    """The expert's choice on the true state vector (as the fused loop sees it)."""
    bc = np.empty(K.MAX_PLAYS, dtype=np.int64)
    bt = np.empty(K.MAX_PLAYS, dtype=np.int64)
    n = K.legal_plays(state._vec, state._r, bc, bt, np.empty(K.SCRATCH, dtype=np.int64))
    rng = K.new_rng(seed)
    i = int(K.choose_play(state._vec, state._r, K.POLICY_EXPERT, rng, bc, bt, n))
    assert 0 <= i < n
    return int(bc[i]), int(bt[i])


def random_position(rules: Rules, rnd: random.Random) -> HandState:
    state = HandState.deal(rules, dealer=rnd.randrange(rules.players), seed=rnd.randrange(2**32))
    for _ in range(rnd.randrange(state.plays_left)):
        state.push(rnd.choice(list(state.legal_plays)))
    return state


def test_expert_is_a_registered_kernel_policy() -> None:
    spec = PolicySpec.parse("expert")
    assert spec.is_kernel and spec.code == K.POLICY_EXPERT
    assert isinstance(make_bot("expert"), KernelBot)
    with pytest.raises(PolicyError, match="takes no parameters"):
        PolicySpec.parse("expert:depth=3")
    with pytest.raises(PolicyError, match="rollout"):
        PolicySpec.parse("ismcts:rollout=smart")
    with pytest.raises(PolicyError, match="leaf"):
        PolicySpec.parse("pimc:leaf=smart")
    assert PolicySpec.parse("ismcts:rollout=expert").bot().name.endswith("rollout=expert")
    assert PolicySpec.parse("ismcts:horizon=4,leaf=expert").bot().name.endswith("leaf=expert")
    with pytest.raises(PolicyError, match="horizon"):
        PolicySpec.parse("ismcts:leaf=expert")
    assert "leaf=expert" in PolicySpec.parse("pimc:leaf=expert").bot().name


@pytest.mark.parametrize("preset", PRESETS)
def test_expert_plays_legal_moves_and_is_deterministic(preset: str) -> None:
    rules = Rules.make(preset)
    rnd = random.Random(preset)
    bot = KernelBot("expert")
    for _ in range(40):
        state = random_position(rules, rnd)
        seed = rnd.randrange(2**32)
        play = bot.choose(state, seed)
        assert play in state.legal_plays
        assert bot.choose(state, seed) == play
        assert choose(state, seed) == choose(state, seed)


@pytest.mark.parametrize("preset", PRESETS)
def test_expert_reads_only_its_information_set(preset: str) -> None:
    """Cards the seat cannot see moved between the other hands and the stock (sizes
    kept): the same choice, on the true state as the fused loop reads it."""
    rules = Rules.make(preset)
    rnd = random.Random(preset + "info")
    changed = 0
    for _ in range(40):
        state = random_position(rules, rnd)
        seat = state.turn
        hidden = [c for s in range(rules.players) if s != seat for c in state.hand(s)]
        hidden += state.stock
        if len(hidden) < 2:
            continue
        rnd.shuffle(hidden)
        vec = state._vec.copy()
        pos = 0
        for s in range(rules.players):
            if s != seat:
                n = len(state.hand(s))
                vec[K.S_HANDS + s] = sum(1 << c for c in hidden[pos : pos + n])
                pos += n
        stock = int(vec[K.S_STOCK])
        for i, c in enumerate(hidden[pos:]):
            vec[K.S_DECK + stock + i] = c
        other = HandState(rules, vec)
        changed += other.hands != state.hands
        for seed in (1, 2):
            assert choose(other, seed) == choose(state, seed)
    assert changed > 20


@pytest.mark.parametrize("preset", ["scopa", "escoba"])
def test_fused_two_player_fast_path_equals_general_kernel_with_expert(preset: str) -> None:
    r = Rules.make(preset).to_array()
    policies = np.array([K.POLICY_EXPERT, K.POLICY_GREEDY, 0, 0], dtype=np.int64)
    rows = []
    kernels = (
        (K.fused_hands15, K.fused_hands15_2p)
        if preset == "escoba"
        else (K.fused_hands, K.fused_hands_2p)
    )
    for kernel in kernels:
        cols = np.zeros((K.N_ROW_COLS, 200), dtype=np.int32)
        kernel(r, policies, K.NO_MODEL, 5, 0, 200, K.MODE_HANDS, np.empty((0, 4), np.int64), cols)
        rows.append(cols)
    assert np.array_equal(rows[0], rows[1])


@pytest.mark.parametrize("preset", ["scopa", "scopa-15", "escoba"])
def test_reply_expectation_is_exact(preset: str) -> None:
    """The expected best reply equals the mean over every hand the next seat may hold."""
    rules = Rules.make(preset)
    rnd = random.Random(3)
    flags = K.expert_flags(rules.to_array())
    scratch = np.empty(K.EXPERT_SCRATCH)
    checked = 0
    while checked < 25:
        state = random_position(rules, rnd)
        if state.plays_left < 6:
            continue
        seat, nxt = state.turn, 1 - state.turn
        vec = state._vec
        pm, po = int(vec[K.S_PILES + seat]), int(vec[K.S_PILES + nxt])
        hand, table = state.hand(seat).mask, state.table.mask
        unseen = rules.to_array()[K.R_DECK_MASK] & ~(hand | table | pm | po)
        kn = len(state.hand(nxt)) or 3
        u = [c for c in range(40) if unseen >> c & 1]
        args = (state.plays_made, rules.deck - rules.table_cards, 0, 0, rules.deck, flags)
        fifteen = rules.capture_mode == "fifteen"
        play_value = K.expert_play_value15 if fifteen else K.expert_play_value
        reply_value = K.reply_value15 if fifteen else K.reply_value
        for play in state.legal_plays:
            bit = 1 << play.card
            left = table & ~play.take if play.take else table | bit
            if left.bit_count() > K.BIG_TABLE15:
                continue  # no reply priced there (see expert_play_value)
            tail = (*args, False, scratch)  # no follow-up: the reply alone
            alone = play_value(play.card, play.take, hand, table, pm, po, 0, unseen, 0, *tail)
            full = play_value(play.card, play.take, hand, table, pm, po, 0, unseen, kn, *tail)
            pm2 = pm | play.take | bit if play.take else pm
            e0 = K.expert_eval(pm2, po, 0, rules.deck, flags)
            lo, hi = K.packed_of(left, fifteen)
            final = state.plays_made + 2 == rules.deck - rules.table_cards
            lc = 1 if play.take else 0
            r = {
                c: reply_value(
                    c, left, lo, hi, pm2, po, 0, rules.deck, flags, final, lc, 0, e0, 0, 0
                )
                for c in u
            }
            subsets = list(itertools.combinations(u, min(kn, len(u))))
            brute = sum(max(r[c] for c in s) for s in subsets) / len(subsets)
            assert alone - full == pytest.approx(brute, abs=1e-9)
        checked += 1


def test_expert_takes_a_scopa_and_the_settebello() -> None:
    rules = Rules.make("scopa")
    s = HandState.from_position(
        rules, hands=[P("7D 4C KS"), P("2C 3C 5S")], table=P("5H 2S"), turn=0, dealer=1,
        stock=P("AS 6S 7S").cards(), strict=False,
    )  # fmt: skip
    assert str(KernelBot("expert").choose(s, 1)) == "7D x 5H 2S"


def test_expert_beats_greedy_in_the_fused_loop() -> None:
    """A smoke test of strength (the benchmark measures it properly): over 2,000 paired,
    seat-swapped deals expert is well ahead of greedy in 2-player scopa."""
    r = Rules.make("scopa").to_array()
    n = 2000
    a = np.zeros((n, 4), np.int64)
    b = np.zeros((n, 4), np.int64)
    K.selfplay_hands(r, np.array([2, 1, 0, 0], np.int64), 99, n, a)
    K.selfplay_hands(r, np.array([1, 2, 0, 0], np.int64), 99, n, b)
    d = ((a[:, 0] - a[:, 1]) + (b[:, 1] - b[:, 0])) / 2
    half = 1.96 * d.std(ddof=1) / np.sqrt(n)
    assert d.mean() - half > 0.6
