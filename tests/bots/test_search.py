"""Strategy search: solver against brute force, rollouts, PIMC and ISMCTS, bots."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from scopa_sim import CardSet, Play, Rules
from scopa_sim import _engine as K
from scopa_sim._engine import ismcts as KI
from scopa_sim._engine import solver as KSO
from scopa_sim._engine import values as KV
from scopa_sim.bots.base import KernelBot
from scopa_sim.bots.registry import PolicyError, make_bot
from scopa_sim.bots.search import ISMCTSBot, PIMCBot, SolverBot, move_seed, play_deal
from scopa_sim.game.infoset import InfoSet
from scopa_sim.game.state import HandState

P = CardSet.parse


def margin(state: HandState, side: int) -> int:
    """Final points of ``side`` minus the best other side's."""
    pts = [int(x) for x in state.score_array()[:, K.I_TOTAL]]
    return pts[side] - max(p for s, p in enumerate(pts) if s != side)


def brute(state: HandState, root_side: int) -> int:
    """Plain minimax over HandState: the root side maximises its margin, every other side
    minimises it (exact for two sides, the paranoid value for more)."""
    if state.is_over:
        return margin(state, root_side)
    mine = state.rules.side_of(state.turn) == root_side
    best = -math.inf if mine else math.inf
    for p in list(state.legal_plays):
        state._push_unchecked(p)
        v = brute(state, root_side)
        state.pop()
        best = max(best, v) if mine else min(best, v)
    return int(best)


def endgame(rules: Rules, rnd: random.Random, left: int) -> HandState:
    state = HandState.deal(rules, dealer=rnd.randrange(rules.players), seed=rnd.randrange(2**32))
    while state.plays_left > left:
        state.push(rnd.choice(list(state.legal_plays)))
    return state


CASES = [
    ("scopa", (2, 3, 4, 5, 6, 8), 4),
    ("scopa-3", (3, 5, 6), 3),
    ("scopa-4", (4, 6), 3),
    ("scopa-4-solo", (4, 5), 3),
    ("asso-piglia-tutto", (4, 6), 3),
    ("scopa-corsa", (4, 6), 3),
    ("scopone-scientifico", (4, 6), 2),
    ("scopa-15", (4, 6), 3),
    ("escoba", (4, 6), 3),
]


@pytest.mark.parametrize(("preset", "lefts", "reps"), CASES)
def test_solver_equals_brute_force(preset: str, lefts: tuple[int, ...], reps: int) -> None:
    rules = Rules.make(preset)
    rnd = random.Random(preset)
    solver = SolverBot()
    for left in lefts:
        for _ in range(reps):
            state = endgame(rules, rnd, left)
            side = rules.side_of(state.turn)
            stats = solver.analyse(state, 0)
            assert len(stats) == len(state.legal_plays)
            for s in stats:
                state._push_unchecked(s.play)
                expected = brute(state, side)
                state.pop()
                assert s.mean == expected, (preset, left, str(s.play), state)


def test_depth_limited_solver_reaches_exact_values() -> None:
    """With depth >= plays left the depth limit never bites; shallower, values move."""
    rules = Rules.make("scopa")
    state = endgame(rules, random.Random(3), 6)
    exact = [s.mean for s in SolverBot().analyse(state, 0)]
    assert [s.mean for s in SolverBot(depth=6).analyse(state, 0)] == exact
    shallow = SolverBot(depth=1).analyse(state, 0)
    assert all(math.isfinite(s.mean) for s in shallow)


def test_estimate_counts_what_is_decided() -> None:
    rules = Rules.make("scopa")
    r = rules.to_array()
    state = HandState.from_position(
        rules,
        hands=[P("AC"), P("AH")],
        table=P(""),
        piles=[P("7D 7C 7H 7S 6D 5D 4D 3D 2D JD QD KC KH KS QC QH QS JC JH JS"), P("AD 2C")],
        turn=0,
        strict=False,
    )
    work = np.zeros(16)
    # side 0 holds > half the cards, > half the denari, the settebello and the primiera
    assert KV.estimate(state._vec, r, 0, False, work) == pytest.approx(4.0)
    assert KV.estimate(state._vec, r, 1, False, work) == pytest.approx(-4.0)


def replay_world(state: HandState, log: np.ndarray) -> HandState:
    """The world of a logged ISMCTS iteration (it keeps the root seat's knowledge) after
    its plays, replayed through HandState.push (which checks legality) with the logged
    numbers of legal plays checked."""
    rules = state.rules
    vec = InfoSet(state).vector.copy()
    for s in range(rules.players):
        vec[K.S_HANDS + s] = log[KI.L_HANDS + s]
    stock = int(vec[K.S_STOCK])
    assert log[KI.L_STOCK_LEN] == vec[K.S_DECK_SIZE] - stock
    for i in range(int(log[KI.L_STOCK_LEN])):
        vec[K.S_DECK + stock + i] = log[KI.L_STOCK + i]
    world = HandState(rules, vec)
    assert world.hand(state.turn) == state.hand(state.turn)
    assert sorted(len(world.hand(s)) for s in range(rules.players)) == sorted(
        len(state.hand(s)) for s in range(rules.players)
    )
    for k in range(int(log[KI.L_MADE])):
        legal = list(world.legal_plays)
        assert len(legal) == log[KI.L_PLAYS + 3 * k + 2]
        world.push(Play(int(log[KI.L_PLAYS + 3 * k]), int(log[KI.L_PLAYS + 3 * k + 1])))
    return world


def fresh_search(
    rules: Rules, rnd: random.Random
) -> tuple[HandState, np.ndarray, np.ndarray, int, np.ndarray]:
    """A random endgame and a fresh ISMCTS tree at it: (state, root information set,
    tree, node count, random stream)."""
    state = endgame(rules, rnd, rnd.randrange(1, rules.deck - rules.table_cards + 1))
    root = InfoSet(state).vector
    tree = np.empty((200, KI.T_COLS), dtype=np.int64)
    count = KI.ismcts_init(root, tree)
    rng = K.new_rng(rnd.randrange(2**32))
    return state, root, tree, count, rng


def replay_logged_iteration(
    state: HandState, log: np.ndarray, cut: bool = False, leaf: int = KV.LEAF_ESTIMATE
) -> None:
    """Rebuild the world of an ISMCTS iteration from its log and replay its plays through
    HandState.push (which checks legality): same legal play counts, same margins.  With
    ``cut`` the iteration may stop before the end of the hand (``horizon``); its margins
    are then the heuristic estimate of the position reached, in units of 1 / EST_UNIT."""
    rules = state.rules
    world = replay_world(state, log)
    unit = KI.EST_UNIT if cut else 1
    if not world.is_over:
        assert cut
        work = np.zeros(16)
        for side in range(rules.sides):
            if leaf == KV.LEAF_EXPERT:
                e = KV.expert_leaf(world._vec, world._r, side, True)
            else:
                e = KV.estimate(world._vec, world._r, side, True, work)
            assert log[KI.L_MARGINS + side] == round(e * unit)
        return
    for side in range(rules.sides):
        assert log[KI.L_MARGINS + side] == margin(world, side) * unit


@pytest.mark.parametrize(
    "preset",
    [
        "scopa", "scopa-3", "scopone", "asso-piglia-tutto", "scopa-corsa",
        "scopone-scientifico", "scopa-15", "escoba",
    ],
)  # fmt: skip
def test_ismcts_iterations_play_legal_hands_and_score_right(preset: str) -> None:
    """Every play of logged ISMCTS iterations (tree and rollout) is
    legal in the iteration's world (random, greedy and expert rollouts), the world keeps
    the root seat's knowledge, and the
    backed-up margins are the hand's."""
    rules = Rules.make(preset)
    r = rules.to_array()
    rnd = random.Random(preset)
    log = np.zeros(KI.L_SIZE, dtype=np.int64)
    for trial in range(12):
        state, root, tree, count, rng = fresh_search(rules, rnd)
        policy = (K.POLICY_RANDOM, K.POLICY_GREEDY, K.POLICY_EXPERT)[trial % 3]
        for _ in range(8):
            count = KI.ismcts_run(root, r, tree, count, 1, 0.7, policy, KSO.FULL_DEPTH, rng, log)
            replay_logged_iteration(state, log)
        assert tree[0, KI.T_VISITS] == 8


@pytest.mark.parametrize("preset", ["scopa", "scopa-3", "scopone", "asso-piglia-tutto", "escoba"])
def test_ismcts_horizon_cuts_rollouts_and_values_them_by_the_estimate(preset: str) -> None:
    """horizon=h: a fresh tree's first iteration makes the expansion play and h rollout
    plays (fewer if the hand ends), then backs up the heuristic leaf value (estimate or
    the expert's evaluation) of the position reached (scope included); later iterations
    too stop h plays past the tree."""
    rules = Rules.make(preset)
    r = rules.to_array()
    rnd = random.Random(preset + "h")
    log = np.zeros(KI.L_SIZE, dtype=np.int64)
    cut = 0
    for trial in range(12):
        state, root, tree, count, rng = fresh_search(rules, rnd)
        horizon = trial % 4
        leaf = (trial // 2) % 2  # LEAF_ESTIMATE or LEAF_EXPERT
        for it in range(8):
            count = KI.ismcts_run(root, r, tree, count, 1, 0.7, trial % 3, horizon, rng, log, leaf)
            replay_logged_iteration(state, log, cut=True, leaf=leaf)
            made = int(log[KI.L_MADE])
            assert made <= it + 1 + horizon
            if it == 0:
                assert made == min(1 + horizon, state.plays_left)
            cut += made < state.plays_left
    assert cut > 50


def test_default_ismcts_is_unchanged() -> None:
    """Golden values of the default ISMCTS (full rollouts), recorded before ``horizon``
    existed: new options must leave the default search bit-identical."""
    state = HandState.deal(Rules.make("scopa"), seed=21)
    got = [(str(x.play), x.n, x.mean) for x in ISMCTSBot(iterations=300).analyse(state, 5)]
    assert got == [("2D", 174, -0.39080459770114945), ("5S", 64, -1.125),
                   ("4C", 62, -1.1451612903225807)]  # fmt: skip
    rnd = random.Random(4)
    state = HandState.deal(Rules.make("scopone"), seed=8)
    for _ in range(13):
        state.push(rnd.choice(list(state.legal_plays)))
    bot = ISMCTSBot(iterations=200, rollout="greedy")
    got = [(str(x.play), x.n, x.mean) for x in bot.analyse(state, 6)]
    assert got == [
        ("JS x 5D 3H", 135, -2.362962962962963), ("KS", 20, -3.3),
        ("6H", 19, -3.3157894736842106), ("4D", 12, -3.8333333333333335), ("2C", 8, -4.125),
        ("KC", 6, -4.5),
    ]  # fmt: skip


def test_ismcts_on_a_big_table() -> None:
    """Tables of more than 6 cards take the exact (unpacked) capture counts."""
    rules = Rules.make("scopa")
    state = HandState.from_position(
        rules,
        hands=[P("7H JD 5C"), P("QS JC 5H")],
        table=P("AC AD AH AS 2C 2D 2H 2S 3C"),
        piles=[P(""), P("")],
        turn=0,
        strict=False,
    )
    root = InfoSet(state).vector
    log = np.zeros(KI.L_SIZE, dtype=np.int64)
    tree = np.empty((100, KI.T_COLS), dtype=np.int64)
    count = KI.ismcts_init(root, tree)
    rng = K.new_rng(3)
    for i in range(20):
        count = KI.ismcts_run(
            root, rules.to_array(), tree, count, 1, 0.7, i % 2, KSO.FULL_DEPTH, rng, log
        )
        replay_logged_iteration(state, log)


def scopa_position() -> HandState:
    """Seat 0 can sweep 3S 4C with 7H (a scopa) or take 4C with 4D."""
    return HandState.from_position(
        Rules.make("scopa"),
        hands=[P("7H 4D KC"), P("QS JC 5H")],
        table=P("3S 4C"),
        piles=[P("AD 2D 6C 6H"), P("AC 2C 5C")],
        stock=P("AH 2H 3H 4H 5S 6S").cards(),
        turn=0,
    )


def settebello_position() -> HandState:
    """Seat 1 to play: 7S takes the settebello, else QH or AC is laid and the other side,
    holding two of the unseen cards, may take it with a 7 or 2 + 5C."""
    return HandState.from_position(
        Rules.make("scopa"),
        hands=[P("7H 2S"), P("7S AC QH")],
        table=P("7D 5C"),
        piles=[P("2D 6C 6H"), P("KC 2C 5S")],
        stock=P("7C 2H 3H 4C 5H 6S").cards(),
        turn=1,
    )


@pytest.mark.parametrize(
    ("rollout", "horizon"), [("random", None), ("greedy", None), ("random", 4), ("random", 0)]
)
def test_ismcts_takes_the_obvious_scopa_and_settebello(rollout: str, horizon: int | None) -> None:
    bot = ISMCTSBot(iterations=400, rollout=rollout, horizon=horizon)
    assert bot.choose(scopa_position(), 1) == Play.parse("7H x 3S 4C")
    assert bot.choose(settebello_position(), 1) == Play.parse("7S x 7D")
    assert PIMCBot(worlds=6).choose(scopa_position(), 1) == Play.parse("7H x 3S 4C")


def test_bots_are_deterministic_per_seed() -> None:
    rules = Rules.make("scopa")
    state = HandState.deal(rules, seed=21)
    bots = (ISMCTSBot(iterations=300), ISMCTSBot(iterations=300, horizon=4), PIMCBot(worlds=4))
    for bot in (*bots, KernelBot("random")):
        a = bot.analyse(state, 5)
        b = bot.analyse(state, 5)
        assert [(s.play, s.n) for s in a] == [(s.play, s.n) for s in b]
        assert [s.mean for s in a] == pytest.approx([s.mean for s in b], nan_ok=True)
        assert sum(s.chosen for s in a) == 1 and a[0].chosen
    stats = ISMCTSBot(iterations=300).analyse(state, 5)
    assert sum(s.n for s in stats) == 300
    assert stats[0].n == max(s.n for s in stats)
    assert all(s.margin.low <= s.mean <= s.margin.high for s in stats if s.n > 1)
    assert len(PIMCBot(worlds=4).analyse(state, 5)) == len(state.legal_plays)


def test_bots_do_not_read_hidden_cards() -> None:
    """Same information set, different hidden cards: same analysis."""
    rules = Rules.make("scopa")
    kw = dict(table=P("4H 7C"), piles=[P("AD 2D"), P("3C 3H")], turn=0, dealer=1)
    a = HandState.from_position(
        rules, hands=[P("5D QC 6S"), P("KD JS 2C")], stock=P("KC 5S 6H 4S").cards(), **kw
    )
    b = HandState.from_position(
        rules, hands=[P("5D QC 6S"), P("6H 5S KC")], stock=P("2C JS KD 4S").cards(), **kw
    )
    bots = (
        ISMCTSBot(iterations=200),
        ISMCTSBot(iterations=200, horizon=3),
        ISMCTSBot(iterations=100, horizon=3, rollout="expert"),
        PIMCBot(worlds=3),
        PIMCBot(worlds=3, leaf="expert"),
    )
    for bot in bots:
        assert bot.analyse(a, 9) == bot.analyse(b, 9)


def test_ismcts_horizon_reports_points() -> None:
    """With a horizon the tree sums are fixed-point; analyse reports them in points."""
    state = HandState.deal(Rules.make("scopa"), seed=4)
    bot = ISMCTSBot(iterations=300, horizon=2)
    tree, _ = bot.tree(state, 3)
    stats = {s.play: s for s in bot.analyse(state, 3)}
    ch = int(tree[0, KI.T_CHILD])
    while ch >= 0:
        n = int(tree[ch, KI.T_VISITS])
        s = stats[Play(int(tree[ch, KI.T_CARD]), int(tree[ch, KI.T_TAKE]))]
        assert s.n == n
        assert s.mean == pytest.approx(tree[ch, KI.T_SUM] / n / KI.EST_UNIT)
        assert -12 < s.margin.low <= s.mean <= s.margin.high < 12
        ch = int(tree[ch, KI.T_NEXT])
    assert sum(s.n for s in stats.values()) == 300


def test_ismcts_exact_solves_single_world_endgames() -> None:
    """exact=1: once the hidden cards are all in one hand (last round of a 2-player hand)
    the values are the solver's; before that it searches as usual."""
    rules = Rules.make("scopa")
    rnd = random.Random(17)
    for _ in range(5):
        state = endgame(rules, rnd, rnd.randrange(1, 7))
        assert not state.stock
        got = ISMCTSBot(iterations=50, exact=1).analyse(state, 3)
        want = SolverBot().analyse(state, 3)
        assert {(s.play, s.mean) for s in got} == {(s.play, s.mean) for s in want}
        assert got[0].mean == max(s.mean for s in want) and all(s.n == 1 for s in got)
    state = endgame(rules, rnd, 12)
    assert state.stock
    assert sum(s.n for s in ISMCTSBot(iterations=50, exact=1).analyse(state, 3)) == 50


def test_make_bot_validates_parameters() -> None:
    bot = make_bot("ismcts", {"iterations": "50", "c": "0.5", "rollout": "greedy"})
    assert isinstance(bot, ISMCTSBot) and bot.iterations == 50 and bot.rollout == "greedy"
    assert isinstance(make_bot("PIMC", {"worlds": "3", "exact_below": "0"}), PIMCBot)
    assert isinstance(make_bot("solver", {}), SolverBot)
    bot = make_bot("ismcts", {"horizon": "4", "c": "1"})
    assert isinstance(bot, ISMCTSBot) and bot.horizon == 4
    assert bot.name == "ismcts:iterations=1000,c=1,rollout=random,horizon=4"
    assert make_bot("ismcts", {}).name == "ismcts:iterations=1000,c=0.7,rollout=random"
    with pytest.raises(ValueError, match="horizon must be in"):
        ISMCTSBot(horizon=KSO.FULL_DEPTH)
    assert make_bot("greedy").name == "greedy"
    bad = [
        ("ismcts", {"iteration": "5"}, "unknown parameter 'iteration'.*allowed: iterations, c"),
        ("ismcts", {"iterations": "0"}, "iterations='0'.*integer >= 1"),
        ("ismcts", {"c": "-1"}, "c='-1'.*number > 0"),
        ("ismcts", {"rollout": "smart"}, "rollout='smart'.*random, greedy"),
        ("ismcts", {"exact": "2"}, "exact='2'.*one of 0, 1"),
        ("ismcts", {"horizon": "-1"}, "horizon='-1'.*integer >= 0"),
        ("ismcts", {"horizon": "x"}, "horizon='x'.*integer >= 0"),
        ("pimc", {"worlds": "x"}, "worlds='x'"),
        ("random", {"worlds": "3"}, "allowed: none"),
        ("mcts", {}, "unknown bot 'mcts'; bots: random, greedy"),
    ]
    for name, params, msg in bad:
        with pytest.raises(PolicyError, match=msg) as e:
            make_bot(name, params)
        assert "\n" not in str(e.value)


def test_play_deal_and_strength() -> None:
    """ISMCTS at 300 iterations beats random clearly over paired, seat-swapped deals."""
    rules = Rules.make("scopa")
    ismcts, rnd = ISMCTSBot(iterations=300), make_bot("random")
    margins = []
    for d in range(30):
        seed = move_seed(12345, d, 0)
        for seat in (0, 1):
            bots = [rnd, rnd]
            bots[seat] = ismcts
            pts = play_deal(rules, bots, seed, dealer=d % 2)
            margins.append(pts[seat] - pts[1 - seat])
    pairs = np.array(margins, dtype=float).reshape(-1, 2).mean(axis=1)
    mean = pairs.mean()
    half = 1.96 * pairs.std(ddof=1) / math.sqrt(len(pairs))
    assert mean - half > 0.5, (mean, half)
    assert play_deal(rules, [rnd, rnd], 1, 0) == play_deal(rules, [rnd, rnd], 1, 0)
    with pytest.raises(ValueError, match="need 2 bots"):
        play_deal(rules, [rnd], 1)
