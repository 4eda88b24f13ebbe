"""Search on Cirulla (RULES.md §10): the solver's values against a brute force over the
plain-Python reference (tests/reference.py) on small endgames, the matta's named value
and the declaration chosen as parts of a play."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest
import reference as ref  # tests/ is on sys.path (pyproject: pythonpath)

from scopa_sim import CardSet, Rules
from scopa_sim import _engine as K
from scopa_sim._engine import solver as KSO
from scopa_sim._engine import solver_cirulla as KSC
from scopa_sim.bots.search import PIMCBot
from scopa_sim.game.state import HandState


def as_ref(card: int, take: int, meta: int) -> ref.CirullaPlay:
    """A kernel play ``(card, take, meta)`` as the reference's record."""
    value = meta & K.META_VALUE
    points = meta >> K.META_DECLARATION
    return ref.CirullaPlay(card, frozenset(CardSet(take)), value or None, points or None)


def brute(state: ref.HandState, root: int) -> float:
    """The exact minimax margin of side ``root`` at the reference's ``state``: its final
    total minus the best other side's, the other sides together minimising it (the
    solver's paranoid reduction with three or four sides)."""

    def go(s: ref.HandState) -> float:
        if s.finished:
            tot = [sc["total"] for sc in s.result()["score"]]
            return tot[root] - max(t for i, t in enumerate(tot) if i != root)
        mine = ref.side_of(s.seat, s.rules) == root
        vals = []
        for p in s.legal():
            c = copy.deepcopy(s)
            c.play(p.card, p.take, check=False, value=p.value, declaration=p.declaration)
            vals.append(go(c))
        return max(vals) if mine else min(vals)

    return go(state)


def endgame(rules: Rules, seed: int, left: int):
    """The reference's and the kernels' states of a hand played at random (the same plays)
    until ``left`` plays are left."""
    rd = rules.complete_dict()
    full = ref.full_rules(rd)
    r = rules._packed
    rng = random.Random(seed)
    deck = ref.make_deck(full)
    rng.shuffle(deck)
    dealer = rng.randrange(rules.players)
    table, deals = ref.deal_layout(full, deck, dealer)
    rs = ref.HandState(full, dealer, table, deals[0], deals[1:])
    rs.take_opening()
    ks = np.zeros(K.N_STATE, dtype=np.int64)
    K.start_hand_cirulla(ks, r, np.array(deck, dtype=np.int64), dealer, 0)
    bc, bt, bm = (np.empty(K.MAX_PLAYS, dtype=np.int64) for _ in range(3))
    sc = np.empty(K.SCRATCH, dtype=np.int64)
    while int(rules.total_plays) - int(ks[K.S_PLAYS]) > left:
        n = K.legal_plays_cirulla(ks, r, bc, bt, bm, sc)
        i = rng.randrange(n)
        p = as_ref(int(bc[i]), int(bt[i]), int(bm[i]))
        K.apply_play_cirulla(ks, r, bc[i], bt[i], bm[i])
        rs.play(p.card, p.take, check=False, value=p.value, declaration=p.declaration)
    return rs, ks


def solve(ks: np.ndarray, r: np.ndarray, depth: int = KSO.FULL_DEPTH):
    tt = (np.zeros(1 << 14, np.int64), np.zeros(1 << 14, np.float64), np.zeros(1 << 14, np.int64))
    info = np.zeros(KSO.N_INFO, dtype=np.int64)
    info[KSO.V_TT_MASK] = (1 << 14) - 1
    info[KSO.V_SALT] = 7
    bc, bt, bm = (np.empty(K.MAX_PLAYS, dtype=np.int64) for _ in range(3))
    vals = np.empty(K.MAX_PLAYS, dtype=np.float64)
    n = KSC.solve_root_cirulla(ks, r, depth, *tt, info, bc, bt, bm, vals)
    return {as_ref(int(bc[i]), int(bt[i]), int(bm[i])): float(vals[i]) for i in range(n)}


ENDGAMES = [
    ("cirulla", {}, 4),
    ("cirulla", {"matta": "play"}, 4),
    ("cirulla", {"declare": "auto", "matta": "play"}, 5),
    ("cirulla", {"capture_compulsory": False}, 4),
    ("cirulla-3", {"matta": "play"}, 4),
    ("cirulla-4", {}, 5),
]


@pytest.mark.parametrize(("preset", "overrides", "left"), ENDGAMES)
@pytest.mark.parametrize("seed", range(4))
def test_solver_values_every_play_as_the_brute_force(preset, overrides, left, seed) -> None:
    rules = Rules.make(preset, overrides)
    rs, ks = endgame(rules, seed, left)
    got = solve(ks, rules._packed)
    root = ref.side_of(rs.seat, rs.rules)
    want = {}
    for p in rs.legal():
        c = copy.deepcopy(rs)
        c.play(p.card, p.take, check=False, value=p.value, declaration=p.declaration)
        want[p] = brute(c, root)
    assert len(got) == len(want)
    assert got == pytest.approx(want)


def test_declaring_and_naming_the_matta_are_decisions() -> None:
    """Under ``declare=choice`` with a qualifying hand each play is listed declared and not,
    and the solver values the declared one higher by the points when nothing else
    changes (the last play of a deal, nothing to gain from hiding)."""
    rules = Rules.make("cirulla", {})
    for seed in range(40):
        _, ks = endgame(rules, seed, rules.total_plays)
        got = solve(ks, rules._packed, depth=1)
        if any(p.declaration for p in got):
            for p, v in got.items():
                if p.declaration:
                    plain = p._replace(declaration=None)
                    assert v - got[plain] == pytest.approx(p.declaration)
            return
    pytest.fail("no qualifying hand in 40 deals")


def test_pimc_on_a_single_world_values_plays_as_the_solver() -> None:
    """Two players, the stock played out: every world is the true one, so each world's
    values are the solver's."""
    rules = Rules.make("cirulla", {"matta": "play"})
    for seed in range(3):
        _, ks = endgame(rules, seed, 5)
        state = HandState(rules, ks.copy())
        plays, vals = PIMCBot(worlds=3).values(state, seed)
        want = solve(ks, rules._packed)
        got = [as_ref(p.card, p.take, p.meta) for p in plays]
        assert set(got) == set(want)
        for w in range(3):
            assert list(vals[w]) == pytest.approx([want[p] for p in got])


def test_pimc_worlds_keep_the_hands_shown_by_declarations(monkeypatch) -> None:
    """After the other seat declared (``declare=auto``), every world PIMC solves deals it
    the hand it showed; the stock is dealt again."""
    import scopa_sim.bots.search as search

    rules = Rules.make("cirulla", {"declare": "auto"})
    seen: list[np.ndarray] = []
    real = search.deal_hidden

    def spy(state, hidden, gen, fixed=None):
        vec = real(state, hidden, gen, fixed)
        seen.append(vec)
        return vec

    monkeypatch.setattr(search, "deal_hidden", spy)
    for seed in range(200):
        state = HandState.deal(rules, seed=seed)
        rng = random.Random(seed)
        while not state.is_over and (not state.shown or state.turn in state.shown):
            state.push(rng.choice(state.legal_plays))
        if state.is_over or not state.shown:
            continue
        other = state.shown[0]
        PIMCBot(worlds=4, depth=1).values(state, seed)
        assert len(seen) == 4
        assert all(v[K.S_HANDS + other] == state.hand(other).mask for v in seen)
        stocks = {
            tuple(v[K.S_DECK + int(v[K.S_STOCK]) : K.S_DECK + int(v[K.S_DECK_SIZE])]) for v in seen
        }
        assert len(stocks) > 1 or int(state._vec[K.S_STOCK]) >= int(state._vec[K.S_DECK_SIZE]) - 1
        return
    pytest.fail("no declaration in 200 deals")
