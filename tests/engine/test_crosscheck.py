"""The numba engine against the plain-Python reference (tests/reference.py), on many
random positions and whole hands, for several rule sets."""

from __future__ import annotations

import random

import numpy as np
import pytest
import reference as ref  # tests/ is on sys.path (pyproject: pythonpath)
from hypothesis import given, settings
from hypothesis import strategies as st

from scopa_sim import CardSet, Play, Rules
from scopa_sim import _engine as K
from scopa_sim.game.state import HandState, score_dicts

RULESETS = [
    ("scopa", ()),
    ("asso-piglia-tutto", ()),
    ("scopa-corsa", ()),
    ("scopa", ("sum_capture=fewest",)),
    ("scopone", ()),
    ("scopone-scientifico", ()),
    ("scopa-3", ()),
    ("scopa-4-solo", ()),
    ("scopa-36", ()),
    ("asso-piglia-tutto", ("ace_sweep_scopa=false", "last_play_scopa=true")),
    ("scopa", ("remainder_to=dealer", "re_bello=true", "capture_rule=hand")),
    ("scopone-scientifico", ("napola_scoring=fixed3", "primiera=sevens", "re_bello=true")),
    ("scopa-3", ("hand_size=1", "table_cards=1", "sum_capture=fewest")),
    # RULES.md §9: the fifteen rule, free lays and the opening take
    ("scopa-15", ()),
    ("escoba", ()),
    ("escoba", ("players=4",)),
    ("escoba", ("players=3", "table_cards=1", "sum_capture=fewest")),
    ("scopa-15", ("sum_capture=fewest", "capture_rule=hand", "remainder_to=dealer")),
    ("scopa", ("capture_compulsory=false",)),
    ("scopa-3", ("capture_compulsory=false", "capture_rule=hand", "sum_capture=fewest")),
    ("scopa-15", ("sum_capture=fewest", "capture_rule=hand", "opening_fifteen=true")),
    # the Escoba readings (issue 25): the opening to the first player, the setenta as
    # most sevens, the four-sevens point
    ("escoba", ("opening_fifteen_to=first_player",)),
    ("escoba", ("opening_fifteen_to=first_player", "players=4")),
    ("escoba", ("opening_fifteen_to=first_player", "players=3", "sum_capture=fewest")),
    ("escoba", ("primiera=escoba_sevens", "four_sevens_point=true")),
    ("scopa", ("primiera=escoba_sevens", "four_sevens_point=true")),
    ("scopa-4-solo", ("primiera=escoba_sevens", "four_sevens_point=true")),
]
IDS = [" ".join((p, *o)) for p, o in RULESETS]

SEEDS = st.integers(min_value=0, max_value=2**63 - 1)
HANDS = settings(max_examples=60, deadline=None)


def make(preset: str, overrides: tuple[str, ...]) -> Rules:
    return Rules.make(preset, list(overrides))


def as_pairs(plays: object) -> set[tuple[int, frozenset[int]]]:
    return {(p.card, frozenset(p.taken)) for p in plays}  # type: ignore[attr-defined]


def pick(legal: list[tuple[int, frozenset[int]]], table: frozenset[int], rng: random.Random) -> int:
    """Mostly random, but take sweeps when offered so that scope happen often."""
    sweeps = [i for i, (_, take) in enumerate(legal) if take and take == table]
    if sweeps and rng.random() < 0.8:
        return rng.choice(sweeps)
    return rng.randrange(len(legal))


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "overrides"), RULESETS, ids=IDS)
@HANDS
@given(seed=SEEDS)
def test_every_decision_matches_the_reference(
    preset: str, overrides: tuple[str, ...], seed: int
) -> None:
    rules = make(preset, overrides)
    rd = rules.as_dict()
    rng = random.Random(seed)
    state = HandState.deal(rules, dealer=seed % rules.players, seed=seed)
    scopa_count = list(state.scope)  # the opening take's (RULES.md §9), else none
    taken, opening_scope = ref.opening_take(state.table | state.opening, rd)
    assert (CardSet(taken), sum(scopa_count)) == (state.opening, opening_scope)
    while not state.is_over:
        seat = state.turn
        table = frozenset(state.table)
        expected = ref.legal_plays(state.hand(seat), table, rd)
        assert as_pairs(state.legal_plays) == set(expected)
        assert len(state.legal_plays) == len(expected)
        card, take = expected[pick(expected, table, rng)]
        last = state.plays_left == 1
        res = state.push(Play(card, CardSet(take).mask))
        assert res.seat == seat and res.last == last
        assert res.capture == bool(take)
        assert res.scopa == ref.is_scopa(card, take, table, rd, last)
        assert res.ace_sweep == ref.is_ace_sweep(card, take, table, rd)
        scopa_count[ref.side_of(seat, rd)] += res.scopa
    assert state.scope == scopa_count
    piles = [set(p) for p in state.piles]
    assert state.score() == ref.score_hand(piles, state.scope, rd)


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "overrides"), RULESETS, ids=IDS)
@HANDS
@given(seed=SEEDS)
def test_whole_hands_match_the_reference(
    preset: str, overrides: tuple[str, ...], seed: int
) -> None:
    rules = make(preset, overrides)
    rd = rules.as_dict()
    rng = random.Random(seed)
    deck = ref.shuffled_deck(rd, rng)
    dealer = rng.randrange(rules.players)
    state = HandState.deal(rules, dealer=dealer, deck=deck)

    def choose(legal: list[tuple[int, frozenset[int]]], info: dict) -> int:
        assert state.turn == info["seat"]
        assert state.table == CardSet(info["table"])
        assert state.hand(info["seat"]) == CardSet(info["hand"])
        assert as_pairs(state.legal_plays) == set(legal)
        i = pick(legal, info["table"], rng)
        card, take = legal[i]
        state.push(Play(card, CardSet(take).mask))
        return i

    result = ref.play_hand(rd, deck, dealer, choose)
    assert state.is_over
    assert [set(p) for p in state.piles] == result["piles"]
    assert state.scope == result["scope"]
    assert state.last_capturer == result["last_capturer"]
    assert state.score() == result["score"]
    assert [(p.card, frozenset(p.taken)) for p in state.history] == [
        (card, take) for _, card, take in result["plays"]
    ]


@pytest.mark.slow
@pytest.mark.parametrize(
    "overrides",
    [
        (),
        ("sum_capture=fewest",),
        ("ace_sweep=true",),
        ("capture_rule=hand",),
        ("deck=36",),
        ("capture_compulsory=false",),
        ("capture_mode=fifteen",),
        ("capture_mode=fifteen", "capture_compulsory=false", "sum_capture=fewest"),
    ],
    ids=str,
)
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_legal_plays_on_arbitrary_positions(
    overrides: tuple[str, ...], data: st.DataObject
) -> None:
    """Positions no game reaches too: up to 10 cards in hand and up to 30 on the table."""
    rules = make("scopa", overrides)
    rd = rules.as_dict()
    deck = data.draw(st.permutations(ref.make_deck(rd)))
    n_hand = data.draw(st.integers(1, 10))
    n_table = data.draw(st.integers(0, min(30, len(deck) - 2 * n_hand + 1)))
    hand, table = deck[:n_hand], deck[n_hand : n_hand + n_table]
    # seat 1 has played this round already, so it holds one card fewer (a reachable shape)
    other = deck[n_hand + n_table : n_hand + n_table + n_hand - 1]
    state = HandState.from_position(
        rules, hands=[CardSet(hand), CardSet(other)], table=CardSet(table), turn=0
    )
    assert as_pairs(state.legal_plays) == set(ref.legal_plays(hand, table, rd))


SCORING_RULES = [
    ("scopa", ()),
    ("scopa-3", ()),
    ("scopa-4-solo", ()),
    ("scopa-4-solo", ("primiera=sevens",)),
    ("scopa-corsa", ()),
    ("scopa-36", ("primiera_missing_suit=zero",)),
    ("scopone-scientifico", ("re_bello=true",)),
    ("scopone-scientifico", ("napola_scoring=fixed3",)),
    ("scopa", ("primiera=escoba_sevens", "four_sevens_point=true")),
    ("scopa-3", ("primiera=escoba_sevens",)),
    ("scopa-4-solo", ("primiera=escoba_sevens", "four_sevens_point=true")),
    ("scopa-4", ("four_sevens_point=true", "primiera=sevens")),
]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("preset", "overrides"), SCORING_RULES, ids=[str(r) for r in SCORING_RULES]
)
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_scoring_of_arbitrary_piles(
    preset: str, overrides: tuple[str, ...], data: st.DataObject
) -> None:
    """Any split of any subset of the deck between the sides, scored by the kernel."""
    rules = make(preset, overrides)
    rd = rules.as_dict()
    ns = rules.sides
    cards = data.draw(st.lists(st.sampled_from(ref.make_deck(rd)), unique=True))
    owners = data.draw(st.lists(st.integers(0, ns - 1), min_size=len(cards), max_size=len(cards)))
    scope = data.draw(st.lists(st.integers(0, 5), min_size=ns, max_size=ns))
    piles: list[set[int]] = [set() for _ in range(ns)]
    for c, s in zip(cards, owners, strict=True):
        piles[s].add(c)
    masks = np.zeros(4, dtype=np.int64)
    counts = np.zeros(4, dtype=np.int64)
    for s in range(ns):
        masks[s] = CardSet(piles[s]).mask
        counts[s] = scope[s]
    out = np.zeros((4, K.N_ITEMS), dtype=np.int64)
    K.score_piles(rules.to_array(), masks, counts, out)
    got = score_dicts(rules, out[:ns])
    assert got == ref.score_hand(piles, scope, rd)


@pytest.mark.parametrize("preset", ["scopa", "scopa-3", "scopone", "asso-piglia-tutto"])
@settings(max_examples=10, deadline=None)
@given(seed=SEEDS)
def test_selfplay_kernel_matches_the_python_api(preset: str, seed: int) -> None:
    """selfplay_hands with random policies equals the same hands replayed through HandState:
    hand h is dealt from derive_seed(seed, 0, h, 0) by dealer h % players and played with
    the stream derive_seed(seed, 0, h, 1), one rand_below per decision."""
    rules = Rules.make(preset)
    r = rules.to_array()
    count = 4
    points = np.zeros((count, 4), dtype=np.int64)
    policies = np.full(4, K.POLICY_RANDOM, dtype=np.int64)
    K.selfplay_hands(r, policies, seed, count, points)
    order = np.empty(40, dtype=np.int64)
    for h in range(count):
        rng = K.new_rng(K.derive_seed(seed, 0, h, 0))
        K.shuffle_deal(r, rng, order)
        state = HandState.deal(rules, dealer=h % rules.players, deck=order[: rules.deck].tolist())
        if h == 0:
            fresh = HandState.deal(rules, dealer=0, seed=seed)
            assert fresh.table == state.table and fresh.hands == state.hands
        rng = K.new_rng(K.derive_seed(seed, 0, h, 1))
        while not state.is_over:
            plays = list(state.legal_plays)
            state.push(plays[K.rand_below(rng, len(plays))])
        totals = [s["total"] for s in state.score()]
        assert points[h, : rules.sides].tolist() == totals


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "overrides"), RULESETS, ids=IDS)
@settings(max_examples=15, deadline=None)
@given(seed=SEEDS, mix=st.lists(st.sampled_from([0, 1, 2]), min_size=4, max_size=4))
def test_fused_selfplay_matches_the_step_kernels(
    preset: str, overrides: tuple[str, ...], seed: int, mix: list[int]
) -> None:
    """selfplay_hands (the fused fast path) gives the points of start_hand + play_out +
    score_state (the kernels under HandState) on the same streams, for any mix of the
    random, greedy and expert policies."""
    rules = make(preset, overrides)
    r = rules.to_array()
    policies = np.array(mix, dtype=np.int64)
    count = 200
    points = np.zeros((count, 4), dtype=np.int64)
    K.selfplay_hands(r, policies, seed, count, points)
    deck = np.empty(40, dtype=np.int64)
    state = np.zeros(K.N_STATE, dtype=np.int64)
    buf_card = np.empty(K.MAX_PLAYS, dtype=np.int64)
    buf_take = np.empty(K.MAX_PLAYS, dtype=np.int64)
    scratch = np.empty(K.SCRATCH, dtype=np.int64)
    log = np.empty((2, 40), dtype=np.int64)
    score = np.zeros((4, K.N_ITEMS), dtype=np.int64)
    for h in range(count):
        rng = K.new_rng(K.derive_seed(seed, 0, h, 0))
        K.shuffle_deal(r, rng, deck)
        K.start_hand(state, r, deck, h % rules.players)
        rng = K.new_rng(K.derive_seed(seed, 0, h, 1))
        K.play_out(state, r, policies, rng, buf_card, buf_take, scratch, log[0], log[1])
        K.score_state(state, r, score)
        assert points[h, : rules.sides].tolist() == score[: rules.sides, K.I_TOTAL].tolist()


@pytest.mark.parametrize(
    ("preset", "overrides"),
    [
        ("scopa", ("napola=true", "last_play_scopa=true")),
        ("scopa-36", ()),
        ("scopa-15", ()),
        ("escoba", ()),
        ("escoba", ("deck=36", "remainder_to=dealer")),
    ],
)
def test_two_player_fast_path_equals_the_general_kernel(
    preset: str, overrides: tuple[str, ...]
) -> None:
    """fused_hands_2p (options folded to constants) and fused_hands give the same rows;
    under the fifteen rule fused_hands15_2p and fused_hands15."""
    rules = make(preset, overrides)
    r = rules.to_array()
    fifteen = rules.capture_mode == "fifteen"
    general, fast = (
        (K.fused_hands15, K.fused_hands15_2p) if fifteen else (K.fused_hands, K.fused_hands_2p)
    )
    assert K.fused_kernel(r) is fast
    policies = np.array([K.POLICY_RANDOM, K.POLICY_GREEDY, 0, 0], dtype=np.int64)
    out = []
    for kernel in (general, fast):
        points = np.zeros((300, 4), dtype=np.int64)
        cols = np.zeros((K.N_ROW_COLS, 300), dtype=np.int32)
        kernel(r, policies, K.NO_MODEL, 11, 50, 300, K.MODE_HANDS, points, cols)
        out.append((points, cols))
    assert (out[0][0] == out[1][0]).all() and (out[0][1] == out[1][1]).all()
    assert K.fused_kernel(make("asso-piglia-tutto", ()).to_array()) is K.fused_hands
    assert K.fused_kernel(make("scopa-3", ()).to_array()) is K.fused_hands
    free = make("scopa", ("capture_compulsory=false",)).to_array()
    assert K.fused_kernel(free) is K.fused_hands
    assert K.fused_kernel(make("escoba", ("players=4",)).to_array()) is K.fused_hands15


@pytest.mark.parametrize(
    ("preset", "overrides"),
    [
        ("scopa", ()),
        ("scopone", ()),
        ("scopa-3", ()),
        ("scopa-15", ()),
        ("escoba", ("players=4",)),
        ("scopa", ("capture_compulsory=false",)),
    ],
)
def test_fused_loop_with_learned_seats_equals_the_step_kernels(
    preset: str, overrides: tuple[str, ...]
) -> None:
    """Seats playing ``learned`` in the fused loop (each decision through a state vector
    and :func:`~scopa_sim._engine.learned.choose_learned`) play the hands the step
    kernels play (:func:`~scopa_sim._engine.learned.play_out_model`, under
    :func:`~scopa_sim._engine.rows.step_rows`) on the same streams, beside seats of the
    other policies: the same rows, in runs of hands and of matches."""
    from scopa_sim._engine import learned as KL
    from scopa_sim.bots.learned_weights import WEIGHTS_DIR

    model = np.load(WEIGHTS_DIR / "scopa.npy")
    rules = make(preset, overrides)
    r = rules.to_array()
    codes = [K.POLICY_LEARNED, K.POLICY_EXPERT, K.POLICY_GREEDY, K.POLICY_LEARNED]
    policies = np.array(codes[: rules.players] + [0] * (4 - rules.players), dtype=np.int64)
    count = 40
    fused = np.zeros((K.N_ROW_COLS, count), dtype=np.int32)
    K.fused_rows(r, policies, 5, False, 7, count, fused, model=model)
    steps = np.zeros((K.N_ROW_COLS, count), dtype=np.int32)
    ident = np.arange(rules.deck, dtype=np.int64)
    K.step_rows(r, policies, model, np.uint64(5), 7, count, ident, False, steps)
    assert np.array_equal(fused, steps)
    # a match through the step kernels, hand by hand, as the fused loop's matches mode
    cols = np.zeros((K.N_ROW_COLS, 64), dtype=np.int32)
    done, rows = K.fused_rows(r, policies, 9, True, 3, 1, cols, model=model)
    assert done == 1
    state = np.zeros(K.N_STATE, dtype=np.int64)
    deck = np.empty(40, dtype=np.int64)
    bufs = [np.empty(K.MAX_PLAYS, np.int64), np.empty(K.MAX_PLAYS, np.int64)]
    scratch = np.empty(K.SCRATCH, dtype=np.int64)
    log = np.empty((2, 40), dtype=np.int64)
    score = np.zeros((4, K.N_ITEMS), dtype=np.int64)
    for h in range(rows):
        rng = K.new_rng(K.derive_seed(9, 3, h, K.STREAM_DEAL))
        K.shuffle_deal(r, rng, deck)
        K.start_hand(state, r, deck, int(cols[K.C_DEALER, h]))
        rng = K.new_rng(K.derive_seed(9, 3, h, K.STREAM_PLAY))
        KL.play_out_model(state, r, policies, model, rng, *bufs, scratch, log[0], log[1])
        K.score_state(state, r, score)
        for s in range(rules.sides):
            assert cols[K.C_ITEMS + s * K.N_ITEMS + K.I_TOTAL, h] == score[s, K.I_TOTAL]


def test_learned_seats_need_a_model() -> None:
    """The fused loop's wrappers refuse a seat playing ``learned`` without its model
    (the loop would read weights that are not there)."""
    r = make("scopa", ()).to_array()
    policies = np.array([K.POLICY_LEARNED, K.POLICY_EXPERT, 0, 0], dtype=np.int64)
    with pytest.raises(ValueError, match="learned policy"):
        K.selfplay_hands(r, policies, 1, 2, np.zeros((2, 4), dtype=np.int64))
    with pytest.raises(ValueError, match="learned policy"):
        K.fused_rows(r, policies, 1, False, 0, 2, np.zeros((K.N_ROW_COLS, 2), np.int32))
