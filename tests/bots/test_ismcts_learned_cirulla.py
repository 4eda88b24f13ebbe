"""ISMCTS on Cirulla with the learned policy's model (issue 41 item 4, issue 42 item 3):
``rollout=learned``, ``leaf=learned`` and ``prior=learned`` play legal Cirulla plays
(the matta's named value and the declaration with them), the same for a seed, differ from
the plain search where they should, read the model on its Cirulla weights; what the
search still does not do on Cirulla stays refused in one line."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.positions import played

from scopa_sim import Rules
from scopa_sim import _engine as K
from scopa_sim._engine import ismcts_cirulla as KIC
from scopa_sim._engine import learned_cirulla as KLC
from scopa_sim._engine import values_cirulla as KVC
from scopa_sim.bots import learned_weights as W
from scopa_sim.bots.learned_weights import load_weights
from scopa_sim.bots.registry import PolicySpec
from scopa_sim.errors import PolicyError, RulesError
from scopa_sim.game.state import HandState
from scopa_sim.game.worlds import deal_hidden
from scopa_sim.sim.match import check_cirulla_policies

BASE = "ismcts:iterations=120"
SETTINGS = {
    "rollout": f"{BASE},rollout=learned",
    "leaf": f"{BASE},horizon=2,leaf=learned",
    "prior": f"{BASE},prior=learned,prior_visits=20",
}
#: the plain search each setting is compared with: the same but for the model
PLAIN = {"rollout": BASE, "leaf": f"{BASE},horizon=2", "prior": BASE}
GAMES = [("cirulla", {}), ("cirulla", {"matta": "play"}), ("cirulla-3", {}), ("cirulla-4", {})]


def _positions(preset: str, overrides: dict[str, object]) -> list[HandState]:
    """A few positions of random play early and late in hands, more than one play each."""
    rules = Rules.make(preset, overrides)
    out = [played(rules, seed, 3 * seed + 1) for seed in range(6)]
    return [s for s in out if not s.is_over and len(s.legal_plays) > 1][:3]


@pytest.mark.parametrize(("preset", "overrides"), GAMES)
@pytest.mark.parametrize("kind", sorted(SETTINGS))
def test_each_use_of_the_model_plays_legal_moves_deterministically(preset, overrides, kind):
    """Every root child is a legal play, every iteration is backed up at the root, and the
    choice is the same for the same seed."""
    text = SETTINGS[kind]
    for state in _positions(preset, overrides):
        bot = PolicySpec.parse(text).bot()
        bot.prepare(state.rules)
        stats = bot.analyse(state, 11)
        assert sorted(map(str, (s.play for s in stats))) == sorted(map(str, state.legal_plays))
        assert sum(s.n for s in stats) == 120
        play = bot.choose(state, 11)
        assert state.is_legal(play)
        again = PolicySpec.parse(text).bot().analyse(state, 11)
        assert [(str(s.play), s.n, s.mean) for s in again] == [
            (str(s.play), s.n, s.mean) for s in stats
        ]


@pytest.mark.parametrize("kind", sorted(SETTINGS))
def test_each_use_of_the_model_changes_the_search(kind: str) -> None:
    """The model's rollouts, leaf and prior change the tree the plain search grows from the
    same seed (visits or values of the root's plays)."""
    differ = 0
    for state in _positions("cirulla", {}):
        a = PolicySpec.parse(SETTINGS[kind]).bot().analyse(state, 5)
        b = PolicySpec.parse(PLAIN[kind]).bot().analyse(state, 5)
        differ += [(str(s.play), s.n, s.mean) for s in a] != [(str(s.play), s.n, s.mean) for s in b]
    assert differ == len(_positions("cirulla", {}))


def test_a_heavy_prior_makes_the_root_follow_the_model() -> None:
    """With a million virtual visits a play and little exploration the root's choice is the
    model's best play: the learned policy's away from its exact endgame."""
    learned = PolicySpec.parse("learned").bot()
    text = "ismcts:iterations=200,c=0.01,prior=learned,prior_visits=1000000"
    rules = Rules.make("cirulla", {"matta": "play"})
    states = [played(rules, seed, 2 * seed) for seed in range(10)]
    states = [s for s in states if not s.is_over and len(s.legal_plays) > 1 and s.stock][:5]
    assert states
    for state in states:
        assert PolicySpec.parse(text).bot().choose(state, 4) == learned.choose(state, 4)


def test_the_root_prior_is_the_anchor_plus_the_models_anchored_value() -> None:
    """Each legal play's prior row: its tree key, its take, and the anchor of the seat's
    side plus the model's value of the play (what the learned policy reads) moved to the
    level of the expert's play values: the same shift for every play, the rows' mean the
    anchor plus the expert's mean."""
    rules = Rules.make("cirulla", {"matta": "play"})
    state = next(s for s in (played(rules, x, 6) for x in range(20)) if len(s.legal_plays) > 2)
    model = load_weights(rules)
    root = deal_hidden(state, [1 - state.turn], None)
    rows = np.empty((K.MAX_PLAYS, 3))
    n = int(KIC.root_prior_cirulla(root, rules._packed, model, rows))
    assert n == len(state.legal_plays) > 1
    ls = KLC.learned_scratch_cirulla(model)
    base = KVC.expert_leaf_cirulla(root, rules._packed, state.turn)
    shifts, expert = [], []
    for i, p in enumerate(state.legal_plays):
        row = rows[i]
        assert int(row[0]) == p.card | (p.meta << KIC.CODE_SHIFT) and int(row[1]) == p.take
        value = KLC.learned_value_cirulla(root, rules._packed, model, p.card, p.take, p.meta, ls)
        expert.append(ls[1][0])  # the dense input D_EXPERT: the expert's value of the play
        shifts.append(row[2] - base - value)
    assert shifts == pytest.approx([shifts[0]] * n)
    assert rows[:n, 2].mean() == pytest.approx(base + np.mean(expert))


@pytest.mark.parametrize(
    "text",
    [
        "ismcts:iterations=50,rollout=learned,belief=expert",
        "ismcts:iterations=50,horizon=2,leaf=learned,prior=learned,belief=robust",
    ],
)
def test_the_model_plays_beside_a_belief_on_cirulla(text: str) -> None:
    """A belief (its models weigh plays by Cirulla's play values) plays with the model as
    without it."""
    state = played(Rules.make("cirulla"), 1, 2)
    play = PolicySpec.parse(text).bot().choose(state, 1)
    assert play in state.legal_plays


def test_the_match_checks_let_the_model_and_a_belief_through() -> None:
    check_cirulla_policies([PolicySpec.parse(t) for t in SETTINGS.values()])
    check_cirulla_policies([PolicySpec.parse("ismcts:belief=expert,rollout=learned")])
    with pytest.raises(RulesError, match="does not play capture_mode=cirulla"):
        check_cirulla_policies([PolicySpec.parse("eval")])


@pytest.mark.parametrize("kind", sorted(SETTINGS))
def test_a_preset_without_weights_is_one_line_naming_the_training(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    without = {k: e for k, e in W.manifest().items() if k != "cirulla-3"}
    monkeypatch.setattr(W, "manifest", lambda directory=W.WEIGHTS_DIR: without)
    bot = PolicySpec.parse(SETTINGS[kind]).bot()
    with pytest.raises(PolicyError) as e:
        bot.prepare(Rules.make("cirulla-3"))
    assert "scopa-sim train --preset cirulla-3" in str(e.value) and "\n" not in str(e.value)
