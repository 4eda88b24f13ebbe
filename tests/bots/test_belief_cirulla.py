"""The belief models on Cirulla (RULES.md §10): a seat's plays weighed by Cirulla's legal
plays (the matta's named value, the fifteens, the ace sweep, the declarations) and play
values, a hand shown by a declaration known, and the searches drawing their worlds from
the belief."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pytest
from helpers.belief import brute_force, cirulla_channel_prob
from helpers.positions import played

from scopa_sim import CardSet, Rules
from scopa_sim import _engine as K
from scopa_sim._engine import policy_cirulla as KPC
from scopa_sim._engine import step as KS
from scopa_sim._engine.policy import EXPERT_FIX, EXPERT_SCRATCH
from scopa_sim.bots.belief import (
    MODELS,
    BeliefModel,
    Channel,
    belief,
    describe_belief,
    play_log_likelihoods,
    robust_model,
)
from scopa_sim.bots.registry import PolicySpec
from scopa_sim.game.cards import card_name
from scopa_sim.game.worlds import quiet_hands


def _quiet_opening(rules: Rules) -> tuple[int, object]:
    """A hand dealt by seat 0 after seat 1's first play, made without declaring: the
    first seed that gives one."""
    for seed in range(200):
        state = played(rules, seed, 1)
        if state.turn == 0 and not state.shown and state.history[0].declaration == 0:
            return seed, state
    raise AssertionError("no quiet opening play in 200 seeds")


def test_a_quiet_play_under_declare_auto_rules_out_every_hand_that_qualifies() -> None:
    """Hard evidence: under ``declare=auto`` a hand that qualifies declares with any play,
    so a quiet first play is not legal with it, and the belief gives it weight 0; every
    other hand keeps a weight above 0 (the expert channel's floor), the truth among them."""
    rules = Rules.make("cirulla", {"declare": "auto"})
    _, state = _quiet_opening(rules)
    b = belief(state, "expert")
    assert b.method == "exact" and b.seats == [1]
    played_card = 1 << state.history[0].card
    got = {h.mask: p for h, p in b.holdings(1)}
    k = len(state.hand(1))
    assert len(got) == math.comb(len(b.unseen), k)
    qualify = 0
    for combo in combinations(b.unseen.cards(), k):
        mask = CardSet(list(combo)).mask
        if K.declaration_points(mask | played_card, True):
            qualify += 1
            assert got[mask] == 0.0, CardSet(mask)
        else:
            assert got[mask] > 0.0, CardSet(mask)
    assert qualify > 0
    assert b.probability({1: state.hand(1)}) > 0.0


@pytest.mark.parametrize("overrides", [{}, {"matta": "play"}, {"declare": "auto"}])
def test_the_expert_channel_is_a_softmax_of_the_cirulla_play_values(overrides) -> None:
    """One decision's likelihood under an expert channel equals a plain-Python softmax of
    the Cirulla expert's play values (:func:`scopa_sim._engine.step.play_values_cirulla`,
    declaring as the expert does) with its uniform floor, for every legal play; an
    illegal play is -inf in every channel."""
    rules = Rules.make("cirulla", overrides)
    r = rules.loop_array()
    channels = [Channel("expert", 0.7, 0.1), Channel("expert", 0.0, 0.2), Channel("random")]
    checked = 0
    for seed in range(12):
        state = played(rules, seed, 3 + seed % 5)
        if state.is_over:
            continue
        bc, bt, bm, bt2, bm2, iv = (np.empty(K.MAX_PLAYS, dtype=np.int64) for _ in range(6))
        sc = np.empty(K.SCRATCH, dtype=np.int64)
        n = int(KS.legal_plays_cirulla(state._vec, r, bc, bt, bm, sc))
        KS.play_values_cirulla(state._vec, r, K.POLICY_EXPERT, KPC.EXPERT_DECLARES, bc, bt, bm,
                               n, iv, np.empty(EXPERT_SCRATCH), bt2, bm2, sc)  # fmt: skip
        v = [int(iv[i]) / EXPERT_FIX for i in range(n)]
        top = max(v)
        soft = [math.exp((x - top) / 0.7) for x in v]
        ties = v.count(top)
        assert n == len(state.legal_plays)
        for i in range(n):
            out, m = play_log_likelihoods(state, int(bc[i]), int(bt[i]), channels, int(bm[i]))
            assert m == n
            want = [
                math.log(0.1 / n + 0.9 * soft[i] / sum(soft)),
                math.log(0.2 / n + 0.8 * ((1.0 / ties) if v[i] == top else 0.0)),
                -math.log(n),
            ]
            assert list(out) == pytest.approx(want, abs=1e-12)
            checked += 1
        # a play of a card the seat does not hold is illegal in every channel
        card = next(c for c in range(40) if not (state.hand(state.turn).mask >> c) & 1)
        out, _ = play_log_likelihoods(state, card, 0, channels)
        assert all(x == -math.inf for x in out)
    assert checked > 20


@pytest.mark.parametrize(
    ("preset", "overrides"),
    [("cirulla", {}), ("cirulla", {"matta": "play"}), ("cirulla", {"declare": "auto"}),
     ("cirulla-3", {}), ("cirulla-4", {})],
)  # fmt: skip
def test_beliefs_keep_the_information_set_and_never_rule_out_the_truth(preset, overrides) -> None:
    """At positions of random hands: the particles give the weighed seats hands of their
    sizes from the unseen cards (no shown hand among them), disjoint; an exact belief
    never gives the true hand weight 0; weights add up to 1."""
    rules = Rules.make(preset, overrides)
    exact = 0
    for seed in range(10):
        state = played(rules, seed, 2 + 3 * (seed % 4))
        if state.is_over:
            continue
        for model in ("fit", "robust"):
            b = belief(state, model, seed=seed)
            assert b.cum.shape[0] == 0 or b.cum[-1] == 1.0
            assert not set(b.seats) & set(state.shown)
            for p in range(b.parts.shape[0]):
                used = 0
                for s in b.seats:
                    h = int(b.parts[p, s])
                    if h < 0:
                        continue
                    assert h & ~b.unseen.mask == 0 and h & used == 0
                    assert h.bit_count() == len(state.hand(s))
                    used |= h
            if b.method == "exact":
                exact += 1
                truth = {s: state.hand(s) for s in b.seats}
                assert b.probability(truth) > 0.0
    assert exact > 0


def test_a_hand_shown_by_a_declaration_is_known() -> None:
    """A seat that declared has its hand shown: the belief does not weigh it, lists it as
    held for sure, leaves its cards out of the unseen ones, and its worlds keep it."""
    rules = Rules.make("cirulla", {"declare": "auto"})
    for seed in range(300):
        state = played(rules, seed, 1)
        if state.turn == 0 and state.shown == [1] and state.hand(1):
            break
    else:
        raise AssertionError("no declaration in 300 seeds")
    b = belief(state, "fit")
    assert 1 not in b.seats and b.holdings(1) == [(state.hand(1), 1.0)]
    assert not b.unseen.mask & state.hand(1).mask
    assert b.card_probabilities(1) == {card_name(c): 1.0 for c in state.hand(1)}
    world = b.sample(3)
    assert world.hand(1) == state.hand(1)
    assert any("shown by its declaration" in line for line in describe_belief(b))


@pytest.mark.parametrize("preset", ["cirulla", "cirulla-3", "cirulla-4"])
def test_best_and_a_belief_pimc_choose_legal_plays_on_cirulla(preset: str) -> None:
    """``best`` (belief=robust, reply=weak) and PIMC with a belief play Cirulla: a legal
    play at each of a few positions, the same again from the same seed."""
    rules = Rules.make(preset)
    bots = [PolicySpec.parse("best").bot(), PolicySpec.parse("pimc:worlds=3,belief=fit").bot()]
    for seed in (1, 2):
        state = played(rules, seed, 4 + seed)
        for bot in bots:
            play = bot.choose(state, seed)
            assert play in state.legal_plays and play == bot.choose(state, seed)


@pytest.mark.parametrize("preset", ["cirulla-3", "cirulla-4"])
def test_sampled_worlds_keep_what_a_quiet_play_says(preset: str) -> None:
    """Under ``declare=auto`` a seat that played this deal's first card without declaring
    held a hand that does not qualify: every world a belief samples respects it, for the
    seats the particles hold and for those they deal uniformly (the Metropolis chain's
    flat share, and the uniform belief's every seat), as the searches' worlds do (before
    the fix, those uniform seats were dealt qualifying hands)."""
    rules = Rules.make(preset, {"declare": "auto"})
    wild = rules.matta != "none"
    robust = robust_model()  # cap=1: always the chain, a flat share of its particles
    chain = BeliefModel("robust-chain", robust.channels, robust.prior, cap=1)
    checked = flat = 0
    for seed in range(40):
        state = played(rules, seed, 2 + seed % 3)
        if state.is_over or state.turn != 0:
            continue
        hidden = [s for s in range(1, state.players) if s not in state.shown]
        quiet = quiet_hands(state, hidden)
        if not quiet:
            continue
        for model in (chain, None):
            b = belief(state, model, seed=seed)
            assert b.method == ("uniform" if model is None else "mcmc")
            flat += any(b.flat_share(s) > 0 for s in quiet)
            for k in range(60):
                world = b.sample(k)
                assert world.hand(0) == state.hand(0)
                for s, m in quiet.items():
                    h = world.hand(s).mask
                    assert h.bit_count() == len(state.hand(s)) and not h & ~b.unseen.mask
                    assert not K.declaration_points(h | m, wild), (seed, s, CardSet(h))
                checked += 1
    assert checked > 200 and flat > 5


@pytest.mark.parametrize("overrides", [{}, {"matta": "play"}, {"declare": "auto"}])
def test_exact_cirulla_belief_matches_brute_force(overrides) -> None:
    """Every candidate hand's probability and the channel posterior of the exact Cirulla
    belief equal a plain-Python enumeration (:func:`helpers.belief.brute_force`) that
    replays the hand in each world where the other seat holds the candidate and
    multiplies the probabilities of all its plays, computed afresh from the engine's
    Cirulla legal plays and play values (:func:`helpers.belief.cirulla_channel_prob`),
    at random positions from seeds: plays of the matta with ``matta=play`` and quiet
    first plays under ``declare=auto`` among them."""
    rules = Rules.make("cirulla", overrides)
    matta = CardSet.parse("7H").mask.bit_length() - 1
    checked = mattas = quiet = 0
    # random hands at plays 18..26; the last three have seat 1 play the matta this deal
    cases = [(seed, 18 + seed % 9) for seed in range(24)] + [(0, 26), (18, 26), (20, 26)]
    for seed, plays in cases:
        state = played(rules, seed, plays)
        if state.is_over or 1 in state.shown or not state.hand(1):
            continue
        for model in ("fit", "expert"):
            b = belief(state, model, seat=0)
            if b.method != "exact":
                continue
            probs, post = brute_force(state, 0, MODELS[model], cirulla_channel_prob)
            got = {h.mask: p for h, p in b.holdings(1)}
            assert len(got) == math.comb(len(b.unseen), len(state.hand(1)))
            for mask, p in got.items():
                assert p == pytest.approx(probs.get(mask, 0.0), abs=1e-9), (seed, CardSet(mask))
            assert list(b.type_posterior(1).values()) == pytest.approx(post, abs=1e-9)
            assert b.probability({1: state.hand(1)}) > 0.0
            checked += 1
        # the evidence about the hand held now: this deal's plays of seat 1
        deal = int(state._vec[K.S_STOCK])
        now = [p for v, p in state._stack if v[K.S_TURN] == 1 and v[K.S_STOCK] == deal]
        mattas += any(p.card == matta and p.meta for p in now)
        quiet += bool(quiet_hands(state, [1]))
    assert checked >= 20
    assert mattas if overrides.get("matta") == "play" else True
    assert quiet if overrides.get("declare") == "auto" else True
