"""ISMCTS with the learned policy's model (issue 41): ``rollout=learned``, ``leaf=learned``
and ``prior=learned,prior_visits=N`` parse, refuse bad values in one line, play legal
moves deterministically per seed, and read the model as the learned policy does."""

from __future__ import annotations

import random

import numpy as np
import pytest
from click.testing import CliRunner
from scopa_sim_cli.main import cli

from scopa_sim import Rules
from scopa_sim import _engine as K
from scopa_sim._engine import ismcts as KI
from scopa_sim._engine import learned as KL
from scopa_sim._engine.policy import EXPERT_SCRATCH
from scopa_sim.bots.learned_weights import load_weights
from scopa_sim.bots.registry import PolicySpec
from scopa_sim.errors import PolicyError
from scopa_sim.game.state import HandState

BASE = "ismcts:iterations=60,horizon=4,c=1"
SETTINGS = [
    f"{BASE},rollout=learned",
    f"{BASE},leaf=learned",
    f"{BASE},prior=learned,prior_visits=10",
    f"{BASE},belief=robust,reply=weak,rollout=learned,leaf=learned,prior=learned",
]


def _positions(preset: str, count: int, seed: int) -> list[HandState]:
    """Positions of random play, several hands."""
    rules = Rules.make(preset)
    g = random.Random(seed)
    out = []
    while len(out) < count:
        s = HandState.deal(rules, dealer=g.randrange(rules.players), seed=g.randrange(2**40))
        while not s.is_over:
            out.append(s.clone())
            s.push(g.choice(list(s.legal_plays)))
    return out[:count]


def test_the_options_parse_and_name_the_bot() -> None:
    bot = PolicySpec.parse(f"{BASE},prior=learned").bot()
    assert "prior=learned,prior_visits=10" in bot.name  # the default weight, named
    bot = PolicySpec.parse(f"{BASE},rollout=learned,leaf=learned,prior_visits=3,prior=learned")
    name = bot.bot().name
    assert "rollout=learned" in name and "leaf=learned" in name and "prior_visits=3" in name
    assert "prior" not in PolicySpec.parse(BASE).bot().name


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (f"{BASE},prior=model", ["prior", "none, learned"]),
        (f"{BASE},prior=learned,prior_visits=0", ["prior_visits", "> 0"]),
        (f"{BASE},prior=learned,prior_visits=-1", ["prior_visits", "> 0"]),
        (f"{BASE},prior=learned,prior_visits=nan", ["prior_visits", "> 0"]),
        (f"{BASE},prior=learned,prior_visits=2e6", ["prior_visits", "at most"]),
        (f"{BASE},prior_visits=5", ["prior_visits=", "prior=learned"]),
        (f"{BASE},rollout=learnt", ["rollout", "learned"]),
        ("ismcts:iterations=60,leaf=learned", ["leaf=", "horizon="]),
        (f"{BASE},prior=learned,objective=match", ["prior=learned", "objective=margin"]),
        (f"{BASE},leaf=learned,objective=match", ["leaf=estimate"]),
    ],
)
def test_bad_values_are_refused(text: str, words: list[str]) -> None:
    with pytest.raises(PolicyError) as e:
        PolicySpec.parse(text).bot()
    assert all(w in str(e.value) for w in words), str(e.value)


def test_a_bad_value_on_the_command_line_is_one_line_with_status_2() -> None:
    res = CliRunner().invoke(
        cli, ["tournament", "--policy", f"{BASE},prior=learned,prior_visits=0", "--policy",
              "greedy", "--deals", "2"],
    )  # fmt: skip
    assert res.exit_code == 2, res.output
    lines = [x for x in res.output.splitlines() if x.strip()]
    assert "Traceback" not in res.output and "prior_visits" in lines[-1]


@pytest.mark.parametrize("text", SETTINGS)
def test_each_option_plays_legal_moves_deterministically(text: str) -> None:
    for state in _positions("scopa", 60, 3)[::12]:
        bot = PolicySpec.parse(text).bot()
        play = bot.choose(state, 11)
        assert play in state.legal_plays
        assert PolicySpec.parse(text).bot().choose(state, 11) == play
        stats = bot.analyse(state, 11)
        assert sum(s.n for s in stats) == 60  # every iteration backed up at the root


def test_the_options_play_other_presets() -> None:
    for preset in ("scopa-4", "scopa-15"):
        for state in _positions(preset, 40, 5)[::13]:
            bot = PolicySpec.parse(SETTINGS[-1]).bot()
            bot.prepare(state.rules)
            assert bot.choose(state, 2) in state.legal_plays


def test_the_model_reads_a_world_as_it_reads_the_state() -> None:
    """The search lays its worlds out for the model (``_model_state``): the model's values
    of every legal play there are those of the learned policy at the same position."""
    rules = Rules.make("scopa")
    model = load_weights(rules)
    idx = np.empty(KL.MAX_ACTIVE, dtype=np.int64)
    dense, acc = np.empty(KL.N_DENSE), np.empty(max(1, int(KL.hidden_width(model))))
    xs = np.empty(EXPERT_SCRATCH)
    st = np.zeros(K.N_STATE, dtype=np.int64)
    for state in _positions("scopa", 200, 7)[::7]:
        vec, r = state._vec, state._r
        w = np.zeros(K.N_WORK, dtype=np.int64)
        for s in range(rules.players):
            w[K.W_HANDS + s] = vec[K.S_HANDS + s]
        for s in range(rules.sides):
            w[K.W_PILES + s] = vec[K.S_PILES + s]
            w[K.W_SCOPE + s] = vec[K.S_SCOPE + s]
        stock = int(vec[K.S_DECK_SIZE] - vec[K.S_STOCK])
        where = (int(vec[K.S_TURN]), rules.players, rules.sides, int(vec[K.S_DECK_SIZE]), stock,
                 int(vec[K.S_LAST_CAPTURER]), int(vec[K.S_DEALER]))  # fmt: skip
        KI._model_state(st, w, where, int(vec[K.S_PLAYS]), int(vec[K.S_TABLE]))
        for p in state.legal_plays:
            a = KL.learned_value(vec, r, model, p.card, p.take, idx, dense, acc, xs)
            b = KL.learned_value(st, r, model, p.card, p.take, idx, dense, acc, xs)
            assert a == b


def test_a_heavy_prior_makes_the_root_follow_the_model() -> None:
    """With a prior of a million virtual visits and little exploration the root's most
    visited play is the model's best play (the learned policy's, away from its exact
    endgame)."""
    learned = PolicySpec.parse("learned").bot()
    text = "ismcts:iterations=200,horizon=4,c=0.01,prior=learned,prior_visits=1000000"
    agree = 0
    states = [s for s in _positions("scopa", 120, 9) if len(s.legal_plays) > 1][:8]
    for state in states:
        assert PolicySpec.parse(text).bot().choose(state, 4) == learned.choose(state, 4)
        agree += 1
    assert agree == len(states)
