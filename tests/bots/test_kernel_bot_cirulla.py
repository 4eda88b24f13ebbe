"""The kernel policies as bots on Cirulla positions (RULES.md §10): ``KernelBot`` picks
with the Cirulla policies (``choose_play_cirulla``), the named value and the declaration
part of its play; the search bots still refuse Cirulla in one line."""

from __future__ import annotations

import numpy as np
import pytest

from scopa_sim import Rules
from scopa_sim import _engine as K
from scopa_sim.bots.registry import PolicySpec
from scopa_sim.game.play import Play
from scopa_sim.game.state import HandState

RULE_SETS = [
    ("cirulla", {}),
    ("cirulla", {"matta": "play", "declare": "auto"}),
    ("cirulla-3", {"matta": "play", "cirulla_match_priority": False}),
    ("cirulla-4", {"capture_rule": "hand"}),
]


@pytest.mark.parametrize(("preset", "overrides"), RULE_SETS)
@pytest.mark.parametrize("policy", ["random", "greedy", "expert"])
def test_kernel_bots_play_whole_cirulla_hands(preset: str, overrides: dict, policy: str) -> None:
    """Every chosen play is legal, ranked first among every legal play, and is the
    policy's own pick on the same state and stream; the same seed, the same hand."""
    rules = Rules.make(preset, overrides)
    bot = PolicySpec.parse(policy).bot()
    plays = []
    for _ in range(2):
        state = HandState.deal(rules, dealer=1, seed=9)
        made = []
        while not state.is_over:
            ranked = bot.analyse(state, 100 + state.plays_made)
            assert ranked[0].chosen and not any(p.chosen for p in ranked[1:])
            assert sorted(p.play for p in ranked) == sorted(state.legal_plays)
            assert all(p.n == 0 and p.mean != p.mean for p in ranked)  # no values: NaN
            pick = bot.choose(state, 100 + state.plays_made)
            if len(state.legal_plays) > 1:
                assert pick == ranked[0].play == _kernel_pick(state, policy, 100 + state.plays_made)
            state.push(pick)
            made.append(pick)
        plays.append(made)
    assert plays[0] == plays[1]


def _kernel_pick(state: HandState, policy: str, seed: int) -> Play:
    """``choose_play_cirulla``'s pick on the state, from the stream KernelBot draws on."""
    vec, r = state._vec.copy(), state.rules._packed
    bc, bt, bm = (np.empty(K.MAX_PLAYS, dtype=np.int64) for _ in range(3))
    n = K.legal_plays_cirulla(vec, r, bc, bt, bm, np.empty(K.SCRATCH, dtype=np.int64))
    rng = K.new_rng(K.derive_seed(seed, 5, 0, 0))
    code = {"random": K.POLICY_RANDOM, "greedy": K.POLICY_GREEDY, "expert": K.POLICY_EXPERT}
    i = int(K.choose_play_cirulla(vec, r, code[policy], rng, bc, bt, bm, n))
    return Play.from_meta(int(bc[i]), int(bt[i]), int(bm[i]))


@pytest.mark.parametrize("policy", ["ismcts:iterations=50,belief=expert", "pimc:belief=fit"])
def test_search_bots_with_a_belief_play_cirulla(policy: str) -> None:
    """A belief (no evidence yet at the deal: the uniform draw) plays a legal play."""
    state = HandState.deal(Rules.make("cirulla"), seed=3)
    assert PolicySpec.parse(policy).bot().choose(state, 1) in state.legal_plays
