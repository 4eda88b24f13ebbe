"""The Cirulla step kernels (RULES.md §10: ``legal_plays_cirulla``, ``apply_play_cirulla``,
``start_hand_cirulla``, ``score_state_cirulla``, the void deals) against the plain-Python
reference (tests/reference.py): every decision of random hands, arbitrary positions, the
golden counts of helpers/golden.py, the opening count, the scoring and the match's end.

The Python layer (``HandState``, ``Play``, records) does not play Cirulla yet: these tests
drive the kernels on the state vector directly, from the rules' packed vector (which
``Rules.to_array`` still refuses to every other caller)."""

from __future__ import annotations

import random

import numpy as np
import pytest
import reference as ref  # tests/ is on sys.path (pyproject: pythonpath)
from helpers.golden import GOLDEN_CIRULLA, GOLDEN_CIRULLA_RULES
from hypothesis import given, settings
from hypothesis import strategies as st

from scopa_sim import CardSet, Play, Rules, RulesError
from scopa_sim import _engine as K
from scopa_sim._engine.streams import _shuffle_deal
from scopa_sim.game.infoset import InfoSet
from scopa_sim.game.state import HandState

P = CardSet.parse

#: The Cirulla rule sets checked here, as presets with overrides (the reference's keys).
VARIANTS: list[tuple[str, dict]] = [
    ("cirulla", {}),
    ("cirulla", {"matta": "play"}),
    ("cirulla", {"cirulla_match_priority": False, "sum_capture": "fewest"}),
    ("cirulla", {"matta": "play", "ace_sweep_scopa": False, "capture_rule": "hand"}),
    ("cirulla", {"declare": "auto", "matta": "none", "piccola_max": 7}),
    ("cirulla", {"ace_sweep": False, "opening_count": False, "last_play_scopa": True}),
    ("cirulla", {"capture_compulsory": False, "matta": "play", "remainder_to": "dealer"}),
    ("cirulla-3", {"matta": "play", "declare": "auto", "piccola_max": 5}),
    ("cirulla-3", {"sum_capture": "fewest", "kings_redeal": True, "re_bello": True}),
    ("cirulla-4", {}),
    ("cirulla-4", {"matta": "play", "cirulla_match_priority": False, "four_sevens_point": True}),
    ("cirulla-4", {"declare": "off", "primiera": "sevens", "cappotto": False}),
]
IDS = [" ".join([p, *(f"{k}={v}" for k, v in o.items())]) for p, o in VARIANTS]


def rules_of(preset: str, overrides: dict) -> Rules:
    return Rules.make(preset, overrides)


def vector(rules: Rules) -> np.ndarray:
    """The kernels' rules vector of a Cirulla rule set (what ``to_array`` refuses to the
    callers that do not play Cirulla yet)."""
    return rules._packed


class Kernel:
    """Buffers for the Cirulla step kernels."""

    def __init__(self) -> None:
        self.card = np.empty(K.MAX_PLAYS, dtype=np.int64)
        self.take = np.empty(K.MAX_PLAYS, dtype=np.int64)
        self.meta = np.empty(K.MAX_PLAYS, dtype=np.int64)
        self.scratch = np.empty(K.SCRATCH, dtype=np.int64)

    def plays(self, state: np.ndarray, r: np.ndarray) -> list[tuple[int, int, int]]:
        n = K.legal_plays_cirulla(state, r, self.card, self.take, self.meta, self.scratch)
        return [(int(self.card[i]), int(self.take[i]), int(self.meta[i])) for i in range(n)]


def as_ref(play: tuple[int, int, int]) -> ref.CirullaPlay:
    """A kernel play ``(card, take, meta)`` as the reference's record."""
    card, take, meta = play
    value = meta & K.META_VALUE
    points = meta >> K.META_DECLARATION
    return ref.CirullaPlay(card, frozenset(CardSet(take)), value or None, points or None)


def position(r: np.ndarray, hand: CardSet, table: CardSet) -> np.ndarray:
    """A state with seat 0 to play ``hand`` on ``table`` (the rest is not read)."""
    state = np.zeros(K.N_STATE, dtype=np.int64)
    state[K.S_HANDS] = hand.mask
    state[K.S_TABLE] = table.mask
    state[K.S_REACH] = K.table_reach(np.int64(table.mask), True)
    state[K.S_LAST_CAPTURER] = -1
    state[K.S_DECK_SIZE] = 40
    state[K.S_STOCK] = 40
    return state


def legal_set(rules: Rules, hand: CardSet, table: CardSet) -> list[ref.CirullaPlay]:
    return [as_ref(p) for p in Kernel().plays(position(vector(rules), hand, table), vector(rules))]


# --------------------------------------------------------------------------- legal plays
def test_golden_columns_are_the_references() -> None:
    for cols in GOLDEN_CIRULLA_RULES:
        assert Rules.from_dict(ref.cirulla_rules(**cols)) == Rules.make("cirulla", cols)


@pytest.mark.parametrize(("hand", "table", "counts"), GOLDEN_CIRULLA)
def test_golden_cirulla_counts_on_the_kernels(hand: str, table: str, counts: tuple[int, ...]):
    """Perft-style: the kernels' number of distinct legal plays in fixed Cirulla
    positions, the counts of helpers/golden.py, and the very plays of the reference."""
    for cols, count in zip(GOLDEN_CIRULLA_RULES, counts, strict=True):
        rules = Rules.make("cirulla", cols)
        got = legal_set(rules, P(hand), P(table))
        assert len(got) == count, (hand, table, cols)
        assert len(set(got)) == count  # no play twice
        want = ref.legal_plays(P(hand), P(table), rules.complete_dict())
        assert set(got) == set(want), (hand, table, cols)


@pytest.mark.parametrize(("preset", "overrides"), VARIANTS, ids=IDS)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_legal_plays_on_arbitrary_positions(preset: str, overrides: dict, data: st.DataObject):
    """Positions no game reaches too (up to 6 cards in hand, 14 on the table): the same
    plays as the reference, each once."""
    rules = rules_of(preset, overrides)
    rd = rules.complete_dict()
    deck = data.draw(st.permutations(ref.make_deck(rd)))
    n_hand = data.draw(st.integers(1, 6))
    n_table = data.draw(st.integers(0, 14))
    if data.draw(st.booleans()) and ref.MATTA not in deck[:n_hand]:  # hold the matta often
        deck.remove(ref.MATTA)
        deck.insert(0, ref.MATTA)
    hand, table = CardSet(deck[:n_hand]), CardSet(deck[n_hand : n_hand + n_table])
    got = legal_set(rules, hand, table)
    assert len(set(got)) == len(got)
    assert set(got) == set(ref.legal_plays(hand, table, rd))


# --------------------------------------------------------------------------- whole hands
def play_hand(rules: Rules, deck: list[int], dealer: int, rng: random.Random) -> None:
    """Play a hand dealt from ``deck`` with the kernels and the reference, the same random
    choices: at every decision the same legal plays; at the end the same opening, piles,
    scope, last capturer, declarations and score."""
    rd = rules.complete_dict()
    r = vector(rules)
    kern = Kernel()
    state = np.zeros(K.N_STATE, dtype=np.int64)
    K.start_hand_cirulla(state, r, np.array(deck, dtype=np.int64), dealer, 0)

    def choose(legal: list[ref.CirullaPlay], info: dict) -> int:
        assert state[K.S_TURN] == info["seat"]
        assert CardSet(int(state[K.S_TABLE])) == CardSet(info["table"])
        assert int(state[K.S_REACH]) == K.table_reach(np.int64(state[K.S_TABLE]), True)
        mine = kern.plays(state, r)
        assert len(mine) == len(legal) == len(set(map(as_ref, mine)))
        assert set(map(as_ref, mine)) == set(legal)
        shown = [s for s in range(rules.players) if state[K.S_SHOWN] >> s & 1]
        assert shown == sorted(info["shown"])
        assert list(state[K.S_DECLARED : K.S_DECLARED + rules.sides]) == info["declared"]
        sweeps = [i for i, p in enumerate(legal) if p.take and p.take == info["table"]]
        i = rng.choice(sweeps) if sweeps and rng.random() < 0.7 else rng.randrange(len(legal))
        pick = next(p for p in mine if as_ref(p) == legal[i])
        K.apply_play_cirulla(state, r, *pick)
        return i

    result = ref.play_hand(rd, deck, dealer, choose)
    assert state[K.S_DONE] == 1
    ns = rules.sides
    assert CardSet(int(state[K.S_OPENING])) == CardSet(result["opening"])
    assert state[K.S_OPENING_SCOPE] == result["opening_scope"]
    assert [set(CardSet(int(p))) for p in state[K.S_PILES : K.S_PILES + ns]] == result["piles"]
    assert list(state[K.S_SCOPE : K.S_SCOPE + ns]) == result["scope"]
    last = int(state[K.S_LAST_CAPTURER])
    assert (None if last < 0 else last) == result["last_capturer"]
    assert list(state[K.S_DECLARED : K.S_DECLARED + ns]) == result["declared"]
    assert scores(state, r, ns) == result["score"]
    assert state[K.S_SHOWN] == 0


def scores(state: np.ndarray, r: np.ndarray, ns: int) -> list[dict[str, int]]:
    """The kernels' score of the hand as the reference's dicts."""
    out = np.zeros((4, K.N_ITEMS_CIRULLA), dtype=np.int64)
    K.score_state_cirulla(state, r, out)
    keys = {
        "scope": K.I_SCOPE, "cards": K.I_CARDS, "denari": K.I_DENARI,
        "settebello": K.I_SETTEBELLO, "primiera": K.I_PRIMIERA, "re_bello": K.I_RE_BELLO,
        "napola": K.I_NAPOLA, "four_sevens": K.I_FOUR_SEVENS, "grande": K.I_GRANDE,
        "piccola": K.I_PICCOLA, "declarations": K.I_DECLARATIONS, "total": K.I_TOTAL,
    }  # fmt: skip
    rd = {"four_sevens_point": bool(r[K.R_FOUR_SEVENS]), "capture_mode": "cirulla"}
    names = [*ref.score_keys(rd), "total"]
    return [{k: int(out[s, keys[k]]) for k in names} for s in range(ns)]


@pytest.mark.parametrize(("preset", "overrides"), VARIANTS, ids=IDS)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**63 - 1))
def test_every_decision_matches_the_reference(preset: str, overrides: dict, seed: int) -> None:
    rules = rules_of(preset, overrides)
    rng = random.Random(seed)
    deck = ref.make_deck(rules.complete_dict())
    rng.shuffle(deck)
    play_hand(rules, deck, rng.randrange(rules.players), rng)


#: Opening tables (RULES.md worked example 14 and the wild matta): the scope each gives
#: with the matta wild (``matta`` not ``none``) and without.
OPENINGS = [
    ("AD 7H 4S 3C", 1, 1),  # 15, the matta counted as a 7
    ("KD KC 5S 5H", 2, 2),  # 30
    ("7H KC 5S 5H", 2, 0),  # 20 + the matta as a 10: 30
    ("7H 2C 3S 4H", 1, 0),  # 9 + the matta as a 6: 15
    ("7H KC KS KH", 0, 0),  # 30 already: the matta can't make it
    ("7H AC 2S QH", 1, 0),  # 11 + 4
    ("JD QC KS AH", 0, 0),
]


@pytest.mark.parametrize(("table", "wild", "plain"), OPENINGS)
@pytest.mark.parametrize("dealer", [0, 1])
def test_whole_hands_from_an_opening_count(table: str, wild: int, plain: int, dealer: int):
    rng = random.Random(f"{table}{dealer}")
    for overrides, scope in [({}, wild), ({"matta": "none"}, plain), ({"matta": "play"}, wild),
                             ({"opening_count": False}, 0)]:  # fmt: skip
        rules = Rules.make("cirulla", overrides)
        first = P(table).cards()
        rest = [c for c in range(40) if c not in first]
        rng.shuffle(rest)
        deck = [*first, *rest]
        state = np.zeros(K.N_STATE, dtype=np.int64)
        K.start_hand_cirulla(state, vector(rules), np.array(deck, dtype=np.int64), dealer, 0)
        assert state[K.S_OPENING_SCOPE] == scope
        assert ref.opening_take(P(table), rules.complete_dict())[1] == scope
        play_hand(rules, deck, dealer, rng)


# --------------------------------------------------------------------------- the kernels' pieces
def test_declaration_points_are_the_references() -> None:
    for hand in [*map(P, ["2S 3D 4C", "2S 3D 5C", "7H 2S 5C", "7H 4C 4S", "6C 6D 6S",
                          "7H 7S 7C", "7H AS KS", "AS 2S", "AS 2S 3S 4S"])]:  # fmt: skip
        for matta in ("declare", "play", "none"):
            want = ref.declaration_points(hand, ref.cirulla_rules(matta=matta))
            assert K.declaration_points(np.int64(hand.mask), matta != "none") == want


def test_void_deals_redeal_with_the_same_draws() -> None:
    """The Cirulla shuffle: the draws of the kings' shuffle, once more for each table with
    two or more aces (``aces_redeal``) or three kings (``kings_redeal``); the voided
    tables in order; and the very draws of the other games' shuffle when nothing voids."""
    deck = np.empty(40, dtype=np.int64)
    other = np.empty(40, dtype=np.int64)
    voids = np.zeros(16, dtype=np.int64)
    seen = 0
    plain = Rules.make("scopa", ["kings_redeal=false"]).to_array()  # no void deals
    for overrides in ({}, {"kings_redeal": True}, {"aces_redeal": False}):
        r = vector(Rules.make("cirulla", overrides))
        for seed in range(300):
            rng = K.new_rng(seed)
            n = K.shuffle_deal_cirulla(r, rng, deck, voids)
            table = CardSet(deck[:4].tolist())
            rd = ref.cirulla_rules(**overrides)
            assert not ref.redeal_needed(table, rd)
            for t in voids[:n]:
                assert ref.redeal_needed(CardSet(int(t)), rd)
            seen += n
            z = K.new_rng(seed)[0]
            for _ in range(n + 1):  # the draws of each shuffle, in turn
                z, _r = _shuffle_deal(plain, z, other)
                z = np.uint64(z)  # the generator state's type, as the kernels keep it
            assert list(other) == list(deck) and z == rng[0]
    assert seen > 30
    r = Rules.make("scopa").to_array()  # kings only: the other games' shuffle, draw for draw
    for seed in range(100):
        a, b = K.new_rng(seed), K.new_rng(seed)
        assert K.shuffle_deal_cirulla(r, a, deck, voids) == K.shuffle_deal(r, b, other)
        assert list(deck) == list(other) and a[0] == b[0]


def test_cappotto_and_the_match_winner() -> None:
    """A side with the ten denari wins at once under ``cappotto`` (the all-denari branch
    of ``match_winner``), whatever the totals; without it the totals decide."""
    denari = np.int64((1 << 10) - 1)
    piles = (np.int64(0), denari, np.int64(0), np.int64(0))
    for cappotto in (True, False):
        r = vector(Rules.make("cirulla", {"cappotto": cappotto}))
        flag = K.all_denari_wins(r)
        assert flag == cappotto
        assert K.match_winner((60, 10, 0, 0), piles, 2, 51, flag) == (1 if cappotto else 0)
    assert not K.all_denari_wins(Rules.make("scopone-scientifico").to_array())
    r = Rules.make("scopone-scientifico", ["napola_all_denari_wins=true"]).to_array()
    assert K.all_denari_wins(r)


# --------------------------------------------------------------------------- HandState
def as_play(p: ref.CirullaPlay) -> Play:
    """The reference's play as a :class:`Play`."""
    return Play(p.card, CardSet(p.take).mask, p.value or 0, p.declaration or 0)


@pytest.mark.parametrize(("preset", "overrides"), VARIANTS[::2], ids=IDS[::2])
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**63 - 1))
def test_hand_state_plays_cirulla_as_the_reference(preset: str, overrides: dict, seed: int):
    """:class:`HandState` on the Cirulla step kernels: the reference's legal plays as
    :class:`Play` (named value, declaration), pushed one by one; then the same opening,
    piles, scope, declarations, shown seats and score, items in the record's order."""
    rules = rules_of(preset, overrides)
    rd = rules.complete_dict()
    rng = random.Random(seed)
    deck = ref.make_deck(rd)
    rng.shuffle(deck)
    dealer = rng.randrange(rules.players)
    state = HandState.deal(rules, dealer=dealer, deck=deck)

    def choose(legal: list[ref.CirullaPlay], info: dict) -> int:
        assert set(state.legal_plays) == {as_play(p) for p in legal}
        assert len(state.legal_plays) == len(legal)
        assert state.shown == sorted(info["shown"]) and state.declared == info["declared"]
        i = rng.randrange(len(legal))
        assert state.push(str(as_play(legal[i]))).play == as_play(legal[i])  # via its text
        return i

    result = ref.play_hand(rd, deck, dealer, choose)
    assert state.is_over and state.opening == CardSet(result["opening"])
    assert state.opening_scope == result["opening_scope"]
    assert [set(p) for p in state.piles] == result["piles"] and state.scope == result["scope"]
    assert state.declared == result["declared"]
    assert state.score() == result["score"]
    assert [list(d) for d in state.score()] == [list(d) for d in result["score"]]
    assert state.points == [d["total"] for d in result["score"]]


def test_hand_state_deals_cirulla_from_a_seed_with_its_void_deals() -> None:
    rules = Rules.make("cirulla", {"kings_redeal": True})
    counted = 0
    for seed in range(60):
        state = HandState.deal(rules, seed=seed)
        table = state.opening or state.table
        assert not ref.redeal_needed(table, rules.complete_dict())
        counted += state.voids
        assert state.voids >= 0 and state.plays_made == 0
    assert counted > 0


def test_a_cirulla_state_is_refused_by_every_other_kernel_in_one_line() -> None:
    """The bots, searches and information sets read the state's ``_r``: a Cirulla state
    has none, so they refuse it (one line) rather than play another game."""
    state = HandState.deal(Rules.make("cirulla"), seed=3)
    with pytest.raises(RulesError, match="capture_mode=cirulla is not played") as info:
        state._r  # noqa: B018 - the access is the test
    assert "\n" not in str(info.value)
    # an information set (the bots that play Cirulla deal its worlds themselves:
    # tests/bots/test_kernel_bot_cirulla.py, tests/bots/test_ismcts_cirulla.py)
    with pytest.raises(RulesError):
        InfoSet(state)
    with pytest.raises(AttributeError):
        state.nothing  # noqa: B018
    scopa = Rules.make("scopa")
    assert HandState.deal(scopa, seed=3)._r is scopa.to_array()  # other games: as before


def test_hand_state_from_position_reads_the_fifteens() -> None:
    """A position's subset sums reach 14 under Cirulla (its fifteens), as the kernels'."""
    rules = Rules.make("cirulla")
    state = HandState.from_position(
        rules, hands=[P("5S KH"), CardSet()], table=P("7C 3D 5H"), strict=False
    )
    want = ref.legal_plays(P("5S KH"), P("7C 3D 5H"), rules.complete_dict())
    assert set(state.legal_plays) == {as_play(p) for p in want}
