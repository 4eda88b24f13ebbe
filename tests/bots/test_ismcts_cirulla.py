"""ISMCTS on Cirulla (RULES.md §10): legal plays only (the matta's named value and the
declaration chosen with the play), deterministic for a seed, blind to the cards its seat
cannot see, its worlds keeping the shown hands and what a quiet first play says, and in a
one-world endgame the Cirulla solver's choice."""

from __future__ import annotations

import random

import numpy as np
import pytest
from helpers.positions import played

from scopa_sim import Rules
from scopa_sim import _engine as K
from scopa_sim._engine import ismcts as KI
from scopa_sim._engine import ismcts_cirulla as KIC
from scopa_sim._engine import solver as KSO
from scopa_sim.bots.registry import PolicySpec
from scopa_sim.bots.search import ISMCTSBot, SolverBot, _hidden_seats
from scopa_sim.game.state import HandState
from scopa_sim.game.worlds import deal_hidden

GAMES = [
    ("cirulla", {}),
    ("cirulla", {"matta": "play"}),
    ("cirulla", {"declare": "auto"}),
    ("cirulla", {"capture_compulsory": False}),
    ("cirulla-3", {"matta": "play"}),
    ("cirulla-4", {}),
]


@pytest.mark.parametrize(("preset", "overrides"), GAMES)
def test_ismcts_plays_legal_cirulla_plays_and_values_every_one(preset, overrides) -> None:
    """The root's children are the seat's legal plays, each with its named value and its
    declaration (its hand is the same in every world), and every one is visited."""
    rules = Rules.make(preset, overrides)
    bot = ISMCTSBot(iterations=400, rollout="greedy")
    for seed in range(4):
        state = played(rules, seed, 2 * seed + 1)
        if state.is_over:
            continue
        stats = bot.analyse(state, seed)
        assert sorted(map(str, (s.play for s in stats))) == sorted(map(str, state.legal_plays))
        assert all(s.n > 0 for s in stats) and stats[0].chosen
        assert state.is_legal(bot.choose(state, seed))


def test_declarations_and_the_named_value_are_decisions() -> None:
    """Under ``declare=choice`` with ``matta=play`` the tree holds a qualifying hand's plays
    declared and quiet, and the matta's plays with their named values."""
    rules = Rules.make("cirulla", {"matta": "play"})
    for seed in range(200):
        state = HandState.deal(rules, seed=seed)
        plays = state.legal_plays
        if any(p.declaration for p in plays) and any(p.value for p in plays):
            stats = ISMCTSBot(iterations=300).analyse(state, 1)
            got = {str(s.play) for s in stats}
            assert any("+" in p for p in got) and any("=" in p for p in got)
            assert got == {str(p) for p in plays}
            return
    pytest.fail("no hand with the matta and a declaration in 200 deals")


@pytest.mark.parametrize("rollout", ["random", "greedy", "expert"])
def test_the_search_is_deterministic_for_a_seed(rollout: str) -> None:
    rules = Rules.make("cirulla-3", {"matta": "play"})
    state = played(rules, 3, 4)
    a = ISMCTSBot(iterations=300, rollout=rollout).analyse(state, 9)
    b = ISMCTSBot(iterations=300, rollout=rollout).analyse(state, 9)
    assert a == b
    other = ISMCTSBot(iterations=300, rollout=rollout).analyse(state, 10)
    assert other != a


def test_a_run_in_chunks_grows_the_same_tree() -> None:
    """The random stream is carried across calls: 3 x 100 iterations is 300."""
    rules = Rules.make("cirulla")
    state = played(rules, 2, 3)
    whole, n = ISMCTSBot(iterations=300).tree(state, 4)
    hidden = _hidden_seats(state)  # the other seat, unless it has shown its hand
    root = deal_hidden(state, hidden, None)
    tree = np.empty_like(whole)
    count = KI.ismcts_init(root, tree)
    rng = K.new_rng(K.derive_seed(4, 6, 0, 0))
    quiet = np.full(4, -1, dtype=np.int64)
    mask = sum(1 << s for s in hidden)
    for _ in range(3):
        count = KIC.ismcts_run_cirulla(root, rules._packed, tree, count, 100, 0.7,
                                       K.POLICY_RANDOM, KSO.FULL_DEPTH, rng, mask, quiet,
                                       KIC.NO_LEARNED)  # fmt: skip
    assert count == n and np.array_equal(tree[:count], whole[:n])


def test_the_tree_reads_only_what_its_seat_knows() -> None:
    """Two deals that differ only in cards the seat cannot see (the other hand and the
    stock) give the same analysis."""
    rules = Rules.make("cirulla", {"matta": "play"})
    state = played(rules, 5, 3)
    hidden = [1 - state.turn]
    for w in range(3):
        vec = deal_hidden(state, hidden, np.random.default_rng(w))
        other = HandState(rules, vec)
        assert other.hand(hidden[0]) != state.hand(hidden[0]) or other.stock != state.stock
        bot = ISMCTSBot(iterations=300, rollout="expert")
        assert bot.analyse(other, 3) == bot.analyse(state, 3)


def test_worlds_keep_shown_hands_and_quiet_first_plays() -> None:
    """Every world deals the hidden seats hands of their sizes from the unseen cards, the
    rest to the stock; a shown hand stays; a seat marked quiet never holds, with the
    cards it played, a hand that qualifies (``declare=auto``)."""
    rules = Rules.make("cirulla-3", {"declare": "auto"})
    root = HandState.deal(rules, seed=8)._vec.copy()
    seat = int(root[K.S_TURN])
    shown, quiet_seat = (seat + 1) % 3, (seat + 2) % 3
    hidden = 1 << quiet_seat
    quiet = np.full(4, -1, dtype=np.int64)
    quiet[quiet_seat] = 0  # no card played yet: its three cards do not qualify
    lo, hi = int(root[K.S_STOCK]), int(root[K.S_DECK_SIZE])
    unseen = int(root[K.S_HANDS + quiet_seat])
    for c in root[K.S_DECK + lo : K.S_DECK + hi]:
        unseen |= 1 << int(c)
    deck = 0
    for c in root[K.S_DECK : K.S_DECK + hi]:
        deck |= 1 << int(c)
    base = np.array(sorted(c for c in range(40) if unseen >> c & 1), dtype=np.int64)
    pool = np.empty_like(base)
    sizes = np.array([3, 3, 3, 0], dtype=np.int64)
    w = np.empty(K.N_STATE, dtype=np.int64)
    rng = K.new_rng(1)
    stocks = set()
    free = np.full(4, -1, dtype=np.int64)  # no belief particle: every hidden hand dealt
    for _ in range(300):
        KIC._draw_world(w, root, 3, base, pool, len(base), hidden, sizes, quiet, True, deck, rng,
                        free, 0)  # fmt: skip
        hand = int(w[K.S_HANDS + quiet_seat])
        stock = [int(c) for c in w[K.S_DECK + lo : K.S_DECK + hi]]
        assert w[K.S_HANDS + shown] == root[K.S_HANDS + shown]
        assert w[K.S_HANDS + seat] == root[K.S_HANDS + seat]
        assert hand.bit_count() == 3 and not K.declaration_points(hand, True)
        assert hand | sum(1 << c for c in stock) == unseen and not hand & sum(1 << c for c in stock)
        assert sorted(int(c) for c in w[K.S_DECK : K.S_DECK + hi]) == sorted(
            int(c) for c in root[K.S_DECK : K.S_DECK + hi]
        )
        stocks.add(tuple(stock))
    assert len(stocks) > 250


def one_world_endgames(rules: Rules, count: int):
    """Positions of two-player hands whose information set is one world (the stock played
    out) with at least two plays to choose from."""
    found = 0
    for seed in range(200):
        state = HandState.deal(rules, seed=seed)
        rng = random.Random(seed)
        while not state.is_over and (state.stock or len(state.hand(state.turn)) < 2):
            state.push(rng.choice(state.legal_plays))
        if not state.is_over and len(state.legal_plays) > 1:
            yield seed, state
            found += 1
            if found == count:
                return


@pytest.mark.parametrize("overrides", [{}, {"matta": "play"}, {"declare": "auto"}])
def test_in_a_one_world_endgame_ismcts_chooses_as_the_solver(overrides) -> None:
    """At many iterations the most visited play is one of the solver's best, and
    ``exact=1`` returns the solver's values."""
    rules = Rules.make("cirulla", overrides)
    for seed, state in one_world_endgames(rules, 4):
        solved = SolverBot().analyse(state, 0)
        best = max(s.mean for s in solved)
        got = ISMCTSBot(iterations=20_000).analyse(state, seed)
        assert got[0].play in [s.play for s in solved if s.mean == best]
        assert got[0].mean == pytest.approx(best, abs=0.25)
        exact = ISMCTSBot(exact=1).analyse(state, seed)
        assert all(s.exact for s in exact)
        assert {s.play: s.mean for s in exact} == {s.play: s.mean for s in solved}
        # a belief changes nothing in one world: the solve is exact
        believed = ISMCTSBot(exact=1, belief="expert").analyse(state, seed)
        assert {s.play: s.mean for s in believed} == {s.play: s.mean for s in solved}


def test_a_horizon_values_leaves_as_the_cirulla_solver_does() -> None:
    """``horizon=`` stops rollouts and values the position by the estimate plus the
    declared points: values in points, legal plays only."""
    rules = Rules.make("cirulla-4")
    state = played(rules, 1, 5)
    stats = ISMCTSBot(iterations=300, horizon=2).analyse(state, 1)
    assert sorted(map(str, (s.play for s in stats))) == sorted(map(str, state.legal_plays))
    assert all(abs(s.mean) < 40 for s in stats)


@pytest.mark.parametrize(
    "policy",
    [
        "ismcts:iterations=60,belief=expert",
        "ismcts:iterations=60,belief=robust,horizon=3,leaf=expert",
        "ismcts:iterations=60,belief=fit,reply=model",
    ],
)
def test_ismcts_with_a_belief_values_every_legal_cirulla_play(policy: str) -> None:
    """A belief (and reply=) on Cirulla: every legal play valued, the same tree again
    from the same seed."""
    state = played(Rules.make("cirulla"), 3, 4)
    bot = PolicySpec.parse(policy).bot()
    stats = bot.analyse(state, 1)
    assert sorted(map(str, (s.play for s in stats))) == sorted(map(str, state.legal_plays))
    assert [(s.play, s.n) for s in stats] == [(s.play, s.n) for s in bot.analyse(state, 1)]


def test_ismcts_beats_random_on_cirulla_deals() -> None:
    """A sanity check of the whole path: a few hands of ISMCTS against random."""
    from scopa_sim.bots.search import play_deal

    rules = Rules.make("cirulla")
    bots = [ISMCTSBot(iterations=200, rollout="greedy"), PolicySpec.parse("random").bot()]
    margin = 0
    for deal in range(6):
        a = play_deal(rules, bots, deal, dealer=deal % 2)
        b = play_deal(rules, bots[::-1], deal, dealer=deal % 2)
        margin += (a[0] - a[1]) + (b[1] - b[0])
    assert margin > 0
