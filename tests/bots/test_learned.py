"""The learned policy's kernels: the features against a plain-Python reading of the
position, the forward pass against numpy, the harness and the sampling kernels
deterministic per seed, a pass of training lowering its loss, and the bot."""

from __future__ import annotations

import hashlib
import random
from itertools import combinations

import numpy as np
import pytest

from scopa_sim import Rules
from scopa_sim import _engine as K
from scopa_sim._engine import learned as KL
from scopa_sim._engine.determinize import EVIDENCE_TRIES, determinize, evidence_world, marked_cards
from scopa_sim.bots import learned as BL
from scopa_sim.errors import InputError
from scopa_sim.game.infoset import InfoSet
from scopa_sim.game.state import HandState

#: Rows and digest of :func:`_rollout_digest` on commit bd296d6 (before --evidence-worlds).
BASE_ROLLOUTS = (1019, "19379e9247544dcf")
PRESETS = ["scopa", "scopa-3", "scopa-4", "scopone", "asso-piglia-tutto", "scopa-15", "escoba"]


def _mask(cards: object) -> int:
    return sum(1 << int(c) for c in cards)  # type: ignore[attr-defined]


def _capture_values(rules: Rules, table: list[int]) -> int:
    """The values that would capture on ``table`` (non-empty), bit ``v - 1`` for value
    ``v``, by enumerating its subsets: a set adding up to ``v`` (or to ``15 - v`` under
    the fifteen rule), and the ace where the ace sweep takes a table without aces."""
    values = [c % 10 + 1 for c in table]
    sums = {sum(sub) for r in range(1, len(values) + 1) for sub in combinations(values, r)}
    if rules.capture_mode == "fifteen":
        return sum(1 << (v - 1) for v in range(1, 11) if 15 - v in sums)
    out = sum(1 << (v - 1) for v in range(1, 11) if v in sums)
    if rules.ace_sweep and 1 not in values:
        out |= 1
    return out


def _evidence_positions(preset: str, count: int, seed: int) -> list[tuple[HandState, list[int]]]:
    """Positions of random play (every plays count of a hand, several hands), each with
    each seat's evidence read from the plays in plain Python: the values that would
    have captured where the seat laid a card on a non-empty table, since its last deal."""
    rules = Rules.make(preset)
    g = random.Random(seed)
    out: list[tuple[HandState, list[int]]] = []
    while len(out) < count:
        s = HandState.deal(rules, dealer=g.randrange(rules.players), seed=g.randrange(2**40))
        evidence = [0] * rules.players
        while not s.is_over:
            out.append((s.clone(), list(evidence)))
            play = g.choice(list(s.legal_plays))
            held = sum(len(h) for h in s.hands)
            if not play.take and len(s.table):
                evidence[s.turn] |= _capture_values(rules, [int(c) for c in s.table])
            s.push(play)
            if sum(len(h) for h in s.hands) > held - 1:  # a new deal
                evidence = [0] * rules.players
    return out[:count]


def _positions(preset: str, count: int, seed: int) -> list[HandState]:
    """Positions of random play (every plays count of a hand, several hands)."""
    return [s for s, _ in _evidence_positions(preset, count, seed)]


def _expected(
    state: HandState, card: int, take: int, evidence: list[int]
) -> tuple[set[int], list[float]]:
    """The features of a play read from the state's public faces and the seats'
    ``evidence`` (:func:`_evidence_positions`), in plain Python."""
    rules = state.rules
    seat = state.turn
    n = rules.players
    nxt = (seat + 1) % n
    side, opp = rules.side_of(seat), rules.side_of(nxt)
    piles = [_mask(p) for p in state.piles]
    pm, po = piles[side], piles[opp]
    others = 0
    for s in range(rules.sides):
        if s not in (side, opp):
            others |= piles[s]
    hand = _mask(state.hands[seat])
    table = _mask(state.table)
    bit = 1 << card
    lead = state.scope[side] - state.scope[opp]

    def rel(s: int | None) -> int:
        if s is None:
            return K.REL_NONE
        return K.REL_ME if s == side else K.REL_NEXT if s == opp else K.REL_OTHER

    lc = rel(state.last_capturer)
    if take:
        after = table & ~take
        pm2 = pm | take | bit
        lc = K.REL_ME
        kind = KL.KIND_ONE if bin(take).count("1") == 1 else KL.KIND_MANY
        child = state.clone()
        before = child.scope[side]
        child.push(next(p for p in state.legal_plays if p.card == card and p.take == take))
        if child.scope[side] > before:
            kind = KL.KIND_SCOPA
            lead += 1
    else:
        after, pm2, kind = table | bit, pm, KL.KIND_LAY
    kn = len(state.hands[nxt])
    stock = len(state.stock)
    if kn == 0 and stock:
        kn = min(rules.hand_size, stock // n)
    bits = {KL.F_HAND + c for c in range(40) if (hand & ~bit) >> c & 1}
    bits |= {KL.F_TABLE + c for c in range(40) if after >> c & 1}
    bits |= {KL.F_MINE + c for c in range(40) if pm2 >> c & 1}
    bits |= {KL.F_NEXT + c for c in range(40) if po >> c & 1}
    bits |= {KL.F_OTHERS + c for c in range(40) if others >> c & 1}
    bits |= {
        KL.F_CARD + card,
        KL.F_PLAYS + min(state.plays_made + 1, 39),
        KL.F_KN + min(kn, 10),
        KL.F_LAST + lc,
        KL.F_DEALER + rel(rules.side_of(state.dealer)),
        KL.F_SCOPE + 3 + max(-3, min(3, lead)),
        KL.F_KIND + kind,
    }
    if state.hands[nxt]:
        bits |= {KL.F_EVIDENCE + b for b in range(10) if evidence[nxt] >> b & 1}
    xs = np.empty(K.EXPERT_SCRATCH)
    vec = state._vec
    xv = float(K.expert_value(vec, state._r, card, take, xs))
    ev = float(K.expert_eval(pm2, po, others, rules.deck, K.expert_flags(state._r)))
    tsum = sum(c % 10 + 1 for c in range(40) if after >> c & 1) / 10.0
    return bits, [xv, ev, float(lead), tsum]


@pytest.mark.parametrize("preset", PRESETS)
def test_features_match_a_plain_reading_of_the_position(preset: str) -> None:
    seen = 0
    for state, evidence in _evidence_positions(preset, 120, 7):
        seen += any(evidence)
        assert [int(state._vec[K.S_EVIDENCE + s]) for s in range(len(evidence))] == evidence
        plays = list(state.legal_plays)
        idx, k, dense = BL.play_features(state, plays)
        for i, p in enumerate(plays):
            bits, want = _expected(state, p.card, p.take, evidence)
            got = idx[i, : k[i]].tolist()
            assert len(got) == len(set(got)) and set(got) == bits, (state, p)
            assert all(v == -1 for v in idx[i, k[i] :])
            assert dense[i].tolist() == pytest.approx(want)
    assert seen > 10


def test_features_read_the_information_set_only() -> None:
    """Two worlds that differ only in the cards the seat cannot see give the same
    features."""
    rules = Rules.make("scopa")
    for state in _positions("scopa", 20, 3):
        if state.plays_made < 2:
            continue
        world = state._vec.copy()
        rng = K.new_rng(5)
        determinize(state._vec, state._r, state.turn, rng, world)
        other = HandState(rules, world)
        plays = list(state.legal_plays)
        for a, b in zip(BL.play_features(state, plays), BL.play_features(other, plays),
                        strict=True):  # fmt: skip
            assert np.array_equal(a, b)


def _numpy_forward(model: np.ndarray, bits: list[int], dense: np.ndarray) -> float:
    h = int(model[KL.M_HIDDEN])
    ns, nd = int(model[KL.M_SPARSE]), KL.N_DENSE
    bits = [b for b in bits if b < ns]  # the features the model does not read
    at = KL.M_HEAD
    lin = model[at : at + ns]
    at += ns
    skip = model[at : at + nd]
    at += nd
    b2 = model[at]
    at += 1
    w1 = model[at : at + ns * h].reshape(ns, h)
    at += ns * h
    wd = model[at : at + nd * h].reshape(nd, h)
    at += nd * h
    b1 = model[at : at + h]
    at += h
    w2 = model[at : at + h]
    x = np.zeros(ns)
    x[bits] = 1.0
    hidden = np.maximum(0.0, b1 + x @ w1 + dense @ wd)
    return float(b2 + x @ lin + dense @ skip + hidden @ w2)


@pytest.mark.parametrize(("hidden", "evidence"), [(0, False), (1, False), (8, False), (8, True)])
def test_forward_pass_matches_numpy(hidden: int, evidence: bool) -> None:
    """A model reads the sparse features below its own size only: a model of the shipped
    layout ignores the evidence."""
    g = np.random.default_rng(hidden)
    model = BL.new_model(hidden, 3, evidence=evidence)
    model[KL.M_HEAD :] = g.normal(0.0, 0.3, model.shape[0] - KL.M_HEAD)
    sparse = KL.N_SPARSE if evidence else KL.N_SPARSE_BASE
    assert model.shape[0] == KL.model_size(hidden, sparse) and model[KL.M_SPARSE] == sparse
    acc = np.empty(max(1, hidden))
    for state in _positions("scopa", 30, 11):
        plays = list(state.legal_plays)
        idx, k, dense = BL.play_features(state, plays)
        for i in range(len(plays)):
            got = KL.model_forward(model, idx[i], k[i], dense[i], acc)
            assert got == pytest.approx(_numpy_forward(model, idx[i, : k[i]].tolist(), dense[i]))


def test_a_new_model_values_plays_as_the_expert() -> None:
    model = BL.new_model(16, 1)
    for state in _positions("scopa", 30, 2):
        plays = list(state.legal_plays)
        _, _, dense = BL.play_features(state, plays)
        stats = BL.LearnedBot(model).analyse(state, 1)
        values = {(s.play.card, s.play.take): s.mean for s in stats}
        for p, d in zip(plays, dense, strict=True):
            assert values[(p.card, p.take)] == pytest.approx(d[KL.D_EXPERT])
        assert stats[0].chosen and stats[0].mean == max(values.values())


def test_the_bot_refuses_a_vector_of_another_layout() -> None:
    with pytest.raises(ValueError, match="wrong length"):
        BL.LearnedBot(BL.new_model(4, 1)[:-1])
    bad = BL.new_model(0, 1)
    bad[KL.M_VERSION] = 99
    with pytest.raises(ValueError, match="version"):
        BL.LearnedBot(bad)


@pytest.mark.parametrize("preset", ["scopa", "scopa-4", "escoba"])
def test_the_harness_deals_the_same_hands_whatever_the_seats_play(preset: str) -> None:
    """Seat-swapped runs play the same deals; a run is deterministic per seed; the points
    are those of finished hands."""
    rules = Rules.make(preset)
    model = BL.new_model(4, 2)
    ex, rnd = BL.kind_of("expert"), BL.kind_of("random")
    n = rules.players
    a = BL.play_hands(rules, [BL.LEARNED] + [ex] * (n - 1), model, 9, 0, 40)
    b = BL.play_hands(rules, [BL.LEARNED] + [ex] * (n - 1), model, 9, 0, 40)
    assert np.array_equal(a, b)
    c = BL.play_hands(rules, [rnd] * n, model, 9, 10, 30)
    d = BL.play_hands(rules, [rnd] * n, model, 9, 0, 40)
    assert np.array_equal(c, d[10:])  # hand h's deal and plays are its own
    assert a.shape == (40, rules.sides) and (a >= 0).all()


def test_rollout_samples_are_grouped_and_reproducible() -> None:
    rules = Rules.make("scopa")
    ex = [BL.kind_of("expert")] * 2
    for worlds in (0, 3):
        s = BL.rollout_samples(rules, ex, ex, None, 4, 0, 30, 0.5, worlds)
        t = BL.rollout_samples(rules, ex, ex, None, 4, 0, 30, 0.5, worlds)
        assert s.decisions > 50
        for x, y in ((s.idx, t.idx), (s.y, t.y), (s.starts, t.starts), (s.dense, t.dense)):
            assert np.array_equal(x, y)
        sizes = np.diff(s.starts)
        assert (sizes >= 2).all() and s.starts[-1] == s.y.shape[0]
        assert (np.abs(s.y) <= 20).all()
        if worlds == 0:  # one deal: whole margins
            assert np.array_equal(s.y, np.round(s.y))


def _rollout_digest(rho: float) -> tuple[int, str]:
    """The rows and a digest of small 8-world rollouts with the exact endgame."""
    rules = Rules.make("scopa")
    ex = [BL.kind_of("expert") + BL.EXACT] * 2
    s = BL.rollout_samples(rules, ex, ex, None, 4, 0, 40, 0.5, 8, rho)
    h = hashlib.sha256()
    for a in (s.idx, s.k, s.dense, s.y, s.starts):
        h.update(np.ascontiguousarray(a).tobytes())
    return s.y.shape[0], h.hexdigest()[:16]


def test_evidence_worlds_of_rho_one_are_the_uniform_worlds() -> None:
    """rho = 1: every world is determinize's, so the rollouts are those of the code
    before the option (:data:`BASE_ROLLOUTS`); rho < 1 changes them, reproducibly."""
    rules = Rules.make("scopa")
    for state, _ in _evidence_positions("scopa", 60, 7):
        a, b = state._vec.copy(), state._vec.copy()
        determinize(state._vec, state._r, state.turn, K.new_rng(3), a)
        evidence_world(state._vec, state._r, state.turn, K.new_rng(3), b, 1.0)
        assert np.array_equal(a, b)
    assert _rollout_digest(1.0) == BASE_ROLLOUTS
    weighed = _rollout_digest(BL.EVIDENCE_RHO)
    assert weighed[1] != BASE_ROLLOUTS[1] and weighed == _rollout_digest(BL.EVIDENCE_RHO)
    with pytest.raises(InputError, match="rho"):
        BL.rollout_samples(rules, [0, 0], [0, 0], None, 4, 0, 2, 0.5, 8, 1.5)
    with pytest.raises(InputError, match="worlds"):
        BL.rollout_samples(rules, [0, 0], [0, 0], None, 4, 0, 2, 0.5, 0, 0.5)
    with pytest.raises(InputError, match="Scopa"):
        BL.rollout_samples(Rules.make("cirulla"), [0, 0], [0, 0], None, 4, 0, 2, 0.5, 8, 0.5)


def test_evidence_worlds_of_rho_zero_avoid_the_marked_values() -> None:
    """rho = 0: every world drawn holds no card of a value the other seat's evidence
    marks, in the positions where a plain enumeration of the other hand finds such
    worlds often enough for the capped rejection (share p, (1 - p) ** 63 < 1e-9)."""
    checked = 0
    for state, ev in _evidence_positions("scopa", 400, 8):
        other = 1 - state.turn
        size = len(state.hands[other])
        if not ev[other] or not size:
            continue
        assert state.evidence[other] == ev[other]
        hands = list(combinations(list(InfoSet(state).unseen), size))
        clean = sum(all(not ev[other] >> (int(c) % 10) & 1 for c in h) for h in hands)
        if clean == 0 or (1 - clean / len(hands)) ** (EVIDENCE_TRIES - 1) > 1e-9:
            continue
        for seed in range(20):
            world = state._vec.copy()
            evidence_world(state._vec, state._r, state.turn, K.new_rng(seed), world, 0.0)
            assert marked_cards(world, state.turn) == 0
            assert world[K.S_HANDS + state.turn] == state._vec[K.S_HANDS + state.turn]
        checked += 1
    assert checked > 20


def test_a_training_pass_lowers_the_loss_of_a_learnable_target() -> None:
    """Targets made by a hidden model: passes of training approach them."""
    rules = Rules.make("scopa")
    ex = [BL.kind_of("expert")] * 2
    s = BL.rollout_samples(rules, ex, ex, None, 5, 0, 200, 1.0, 0)
    truth = BL.new_model(0, 0)
    truth[KL.M_HEAD : KL.M_HEAD + KL.N_SPARSE_BASE] = np.random.default_rng(1).normal(
        0, 0.5, KL.N_SPARSE_BASE
    )
    acc = np.empty(1)
    s.y = np.array([KL.model_forward(truth, s.idx[i], s.k[i], s.dense[i], acc)
                    for i in range(s.y.shape[0])])  # fmt: skip
    for hidden, kind in ((0, BL.LOSS_CENTRED), (8, BL.LOSS_CENTRED)):
        model = BL.new_model(hidden, 1)
        order = np.arange(s.decisions)
        losses = [BL.sgd_pass(model, s, order, 0.05, 0.0, kind) for _ in range(6)]
        assert losses[-1] < 0.5 * losses[0]
    shares = s.y.copy()
    for g in range(s.decisions):
        lo, hi = s.starts[g], s.starts[g + 1]
        shares[lo:hi] = np.exp(s.y[lo:hi]) / np.exp(s.y[lo:hi]).sum()
    s.y = shares
    model = BL.new_model(0, 1)
    order = np.arange(s.decisions)
    losses = [BL.sgd_pass(model, s, order, 0.05, 0.0, BL.LOSS_SOFTMAX, 1.0) for _ in range(6)]
    assert losses[-1] < losses[0]


def test_a_model_of_the_shipped_layout_learns_nothing_from_the_evidence() -> None:
    """Trained on samples with the evidence features or without them, a model of the
    shipped layout is the same; a model with the evidence learns their weights."""
    rules = Rules.make("scopa")
    ex = [BL.kind_of("expert")] * 2
    s = BL.rollout_samples(rules, ex, ex, None, 6, 0, 100, 1.0, 0)
    assert (s.idx >= KL.F_EVIDENCE).any()
    known = (s.idx >= 0).sum(axis=1) - (s.idx >= KL.F_EVIDENCE).sum(axis=1)
    bare = BL.Samples(s.idx, known, s.dense, s.y, s.starts)
    order = np.arange(s.decisions)
    a, b, c = BL.new_model(4, 1), BL.new_model(4, 1), BL.new_model(4, 1, evidence=True)
    for m, samples in ((a, s), (b, bare), (c, s)):
        BL.sgd_pass(m, samples, order, 0.05, 1e-4)
    assert np.array_equal(a, b)
    lin = KL.M_HEAD + KL.F_EVIDENCE
    assert a.shape[0] == KL.model_size(4) and np.abs(c[lin : lin + 10]).sum() > 0
    BL.LearnedBot(c).analyse(_positions("scopa", 1, 1)[0], 1)
    with pytest.raises(ValueError, match="Cirulla"):
        BL.new_model(4, 1, cirulla=True, evidence=True)


@pytest.mark.parametrize("preset", ["scopa", "scopa-4", "scopa-3"])
def test_one_world_is_an_empty_stock_with_one_other_hand_at_most(preset: str) -> None:
    for state in _positions(preset, 120, 4):
        others = [s for s in range(state.rules.players) if s != state.turn and state.hands[s]]
        want = not state.stock and len(others) <= 1
        assert bool(KL.one_world(state._vec, state._r)) == want


def test_the_exact_endgame_plays_a_best_play_of_the_solver() -> None:
    from scopa_sim._engine import solver as KSO

    seen = 0
    for state in _positions("scopa", 400, 6):
        vec, r = state._vec, state._r
        if not KL.one_world(vec, r) or len(state.legal_plays) < 2:
            continue
        seen += 1
        n = len(state.legal_plays)
        bc = np.empty(K.MAX_PLAYS, dtype=np.int64)
        bt = np.empty(K.MAX_PLAYS, dtype=np.int64)
        assert K.legal_plays(vec, r, bc, bt, np.empty(K.SCRATCH, dtype=np.int64)) == n
        tk, tv, tm = np.zeros(1 << 12, np.int64), np.zeros(1 << 12), np.zeros(1 << 12, np.int64)
        info = np.zeros(KSO.N_INFO, dtype=np.int64)
        info[KSO.V_TT_MASK] = (1 << 12) - 1
        info[KSO.V_SALT] = 1
        sc, st, vals = np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n)
        KSO.solve_root(vec, r, KSO.FULL_DEPTH, tk, tv, tm, info, sc, st, vals)
        value = {(int(c), int(t)): float(v) for c, t, v in zip(sc, st, vals, strict=True)}
        for kind in (BL.kind_of("expert+exact"), BL.kind_of("learned+exact")):
            i = KL.harness_choice(vec, r, kind, BL.new_model(2, 1), K.new_rng(3), bc, bt, n)
            assert value[(int(bc[i]), int(bt[i]))] == max(value.values())
    assert seen > 20


def test_harness_kinds_by_name() -> None:
    assert BL.kind_of("expert+exact") == K.POLICY_EXPERT + BL.EXACT
    assert BL.kind_of("learned") == BL.LEARNED
    with pytest.raises(ValueError, match="exact"):
        BL.kind_of("expert+deep")
    with pytest.raises(ValueError, match="harness seat plays"):
        BL.kind_of("ismcts")
    assert BL.LearnedBot(BL.new_model(0, 0), exact=True).name == "learned+exact"
