"""The Cirulla loop (``fused_hands_cirulla``, issue 42) against the step path: every
policy, several Cirulla rule sets, hands and matches: the same rows as dealing, playing
and scoring each hand with the step kernels from the same streams, with the match's
bookkeeping (the target, the cappotto, the rotating dealer) done here in Python."""

from __future__ import annotations

import numpy as np
import pytest
from engine.test_crosscheck_cirulla import Kernel, rules_of, vector

from scopa_sim import _engine as K
from scopa_sim._engine import learned_cirulla as KLC

CASES = [
    ("cirulla", {}),
    ("cirulla", {"matta": "play", "capture_rule": "hand"}),
    ("cirulla", {"declare": "auto", "kings_redeal": True, "cirulla_match_priority": False}),
    ("cirulla-3", {"matta": "play", "sum_capture": "fewest"}),
    ("cirulla-4", {"capture_compulsory": False, "remainder_to": "dealer"}),
    ("cirulla", {"ace_sweep_scopa": False, "last_play_scopa": True}),
    # the scoring options the preset's loop compiles in (PLAIN_SCORING), here read
    ("cirulla", {"primiera": "sevens", "re_bello": True, "four_sevens_point": True}),
    ("cirulla", {"primiera_missing_suit": "zero", "piccola_max": 7}),
]
IDS = [" ".join([p, *(f"{k}={v}" for k, v in o.items())]) for p, o in CASES]
POLICIES = {"random": 0, "greedy": 1, "expert": 2, "mixed": -1}


def codes(name: str, players: int) -> np.ndarray:
    if name == "mixed":
        return np.array([2, 0, 1, 0][:players] + [0] * (4 - players), dtype=np.int64)
    return np.full(4, POLICIES[name], dtype=np.int64)


def step_hand(r: np.ndarray, pol: np.ndarray, seed: int, unit: int, hand: int, dealer: int,
              model: np.ndarray | None = None):  # fmt: skip
    """One hand through the step kernels: ``(state, score, voids)``; with ``model``, the
    learned seats' step path (``play_out_model_cirulla``)."""
    rng = K.new_rng(int(K.derive_seed(seed, unit, hand, K.STREAM_DEAL)))
    deck = np.empty(40, dtype=np.int64)
    voids = K.shuffle_deal_cirulla(r, rng, deck, np.empty(0, dtype=np.int64))
    state = np.zeros(K.N_STATE, dtype=np.int64)
    K.start_hand_cirulla(state, r, deck, dealer, voids)
    rng = K.new_rng(int(K.derive_seed(seed, unit, hand, K.STREAM_PLAY)))
    kern = Kernel()
    logs = [np.zeros(K.MAX_PLAYS, dtype=np.int64) for _ in range(3)]
    bufs = (kern.card, kern.take, kern.meta, kern.scratch, *logs)
    if model is None:
        K.play_out_cirulla(state, r, pol, rng, *bufs)
    else:
        KLC.play_out_model_cirulla(state, r, pol, model, rng, *bufs)
    score = np.zeros((4, K.N_ITEMS_CIRULLA), dtype=np.int64)
    K.score_state_cirulla(state, r, score)
    return state, score, voids


def row_of(state, score, voids, ns, match, hand, dealer, players, totals, winner) -> list[int]:
    """The row the loop should write (``N_ROW_COLS_CIRULLA`` columns)."""
    row = [0] * K.N_ROW_COLS_CIRULLA
    row[K.C_MATCH], row[K.C_HAND], row[K.C_DEALER] = match, hand, dealer
    row[K.C_FIRST] = (dealer + 1) % players
    row[K.C_REDEALS], row[K.C_PLAYS] = voids, int(state[K.S_PLAYS])
    for s in range(ns):
        for k in range(K.N_ITEMS):
            row[K.C_ITEMS + s * K.N_ITEMS + k] = int(score[s, k])
        pile = int(state[K.S_PILES + s])
        stats = K.side_stats(np.int64(pile))
        for k in range(4):
            row[K.C_STATS + 4 * s + k] = int(stats[k])
        row[K.C_TOTALS + s] = totals[s]
        for k, item in enumerate(K.CIRULLA_ITEMS):
            row[K.C_CIRULLA + 3 * s + k] = int(score[s, item])
    row[K.C_WINNER] = winner
    return row


def rows_are_step_hands(rules, pol: np.ndarray, seed: int, first: int, n: int) -> np.ndarray:
    """Assert that the loop's rows of the hands ``first .. first + n - 1`` (``seed``) are
    those of the step path; return the rows."""
    r = vector(rules)
    out = np.zeros((K.N_ROW_COLS_CIRULLA, n), dtype=np.int32)
    assert K.fused_rows_cirulla(r, pol, seed, False, first, n, out) == (n, n)
    for i in range(n):
        u = first + i
        dealer = u % rules.players
        state, score, voids = step_hand(r, pol, seed, u, 0, dealer)
        totals = [int(score[s, K.I_TOTAL]) for s in range(rules.sides)]
        want = row_of(state, score, voids, rules.sides, i, 0, dealer, rules.players, totals, -1)
        assert out[:, i].tolist() == want, i
    return out


@pytest.mark.parametrize("policy", list(POLICIES))
@pytest.mark.parametrize(("preset", "overrides"), CASES, ids=IDS)
def test_hands_are_the_step_paths(preset: str, overrides: dict, policy: str) -> None:
    rules = rules_of(preset, overrides)
    r = vector(rules)
    pol = codes(policy, rules.players)
    n = 12
    out = rows_are_step_hands(rules, pol, 5, 30, n)
    points = np.zeros((n, 4), dtype=np.int64)
    none = np.empty((0, 0), np.int32)
    K.fused_hands_cirulla(r, pol, 5, 30, n, K.MODE_HANDS, points, none, K.NO_MODEL)
    items = out[K.C_ITEMS + K.I_TOTAL : K.C_STATS : K.N_ITEMS]
    assert (items[: rules.sides] == points[:, : rules.sides].T).all()


@pytest.mark.parametrize(
    "overrides", [{}, {"ace_sweep_scopa": False}, {"last_play_scopa": True}], ids=str
)
def test_many_random_hands_are_the_step_paths(overrides: dict) -> None:
    """300 hands of random play (its plays written out in the loop: the scopas of a lone
    card taken or an ace sweep, with and without ace_sweep_scopa and last_play_scopa)
    give the step path's rows."""
    out = rows_are_step_hands(rules_of("cirulla", overrides), codes("random", 2), 9, 0, 300)
    assert out[K.C_ITEMS + K.I_SCOPE : K.C_STATS : K.N_ITEMS].sum() > 500  # scopas


@pytest.mark.parametrize("policy", ["random", "mixed"])
@pytest.mark.parametrize(("preset", "overrides"), CASES[:4], ids=IDS[:4])
def test_matches_are_the_step_paths(preset: str, overrides: dict, policy: str) -> None:
    """Matches to the target (51), the cappotto ending one at once, the dealer rotating
    from the drawn first dealer."""
    rules = rules_of(preset, overrides | {"target": 21} if preset != "cirulla" else overrides)
    r = vector(rules)
    pol = codes(policy, rules.players)
    out = np.zeros((K.N_ROW_COLS_CIRULLA, 400), dtype=np.int32)
    units, rows = K.fused_rows_cirulla(r, pol, 9, True, 2, 3, out)
    assert units == 3
    want = []
    for m in range(3):
        u = 2 + m
        g = int(K.GOLDEN)
        dealer = int(K.below(np.uint64((int(K.derive_seed(9, u, 0, K.STREAM_DEALER)) + g) % 2**64),
                             rules.players))  # fmt: skip
        totals = [0] * rules.sides
        hand = 0
        while True:
            state, score, voids = step_hand(r, pol, 9, u, hand, dealer)
            for s in range(rules.sides):
                totals[s] += int(score[s, K.I_TOTAL])
            piles = [int(state[K.S_PILES + s]) for s in range(rules.sides)]
            winner = -1
            full = [s for s in range(rules.sides) if piles[s] & K.DENARI == K.DENARI]
            if rules.cappotto and full:
                winner = full[0]
            elif max(totals) >= rules.target and totals.count(max(totals)) == 1:
                winner = totals.index(max(totals))
            want.append(row_of(state, score, voids, rules.sides, m, hand, dealer,
                               rules.players, totals, winner))  # fmt: skip
            if winner >= 0:
                break
            hand += 1
            dealer = (dealer + 1) % rules.players
    assert rows == len(want)
    assert out[:, :rows].T.tolist() == want


def test_the_loops_declaration_points_are_the_kernels() -> None:
    """The declaration points the loop's random plays read from a three-card hand's values
    (``_declaration_of``: the three values, or with a wild matta the other two) equal
    ``declaration_points`` on every three-card hand, the matta wild or not."""
    from itertools import combinations

    from scopa_sim._engine.fused_cirulla import _declaration_of

    for wild in (False, True):
        for cards in combinations(range(40), 3):
            hand = np.int64(sum(1 << c for c in cards))
            values = [int(K.VALUE[c]) for c in cards if not (wild and c == K.MATTA_CARD)]
            joker = len(values) == 2
            got = _declaration_of(*values, 0, True) if joker else _declaration_of(*values, False)
            assert got == K.declaration_points(hand, wild), (cards, wild)


def learned_model(seed: int = 3) -> np.ndarray:
    """A Cirulla model that does not play as the expert: its output layer drawn too."""
    m = KLC.new_model_cirulla(16, seed)
    m[-16:] = np.random.default_rng(seed).normal(0.0, 0.5, 16)
    return m


@pytest.mark.parametrize(("preset", "overrides"), CASES, ids=IDS)
def test_learned_seats_in_the_loop_are_the_step_paths(preset: str, overrides: dict) -> None:
    """Seats playing ``learned`` in the Cirulla loop (``choose_learned_cirulla``, the
    exact endgame included) play the hands of the step path
    (``play_out_model_cirulla``) from the same streams, beside the other policies; and
    matches too."""
    rules = rules_of(preset, overrides)
    r = vector(rules)
    model = learned_model()
    pol = np.array([3, 2, 1, 3][: rules.players] + [0] * (4 - rules.players), dtype=np.int64)
    n = 10
    out = np.zeros((K.N_ROW_COLS_CIRULLA, n), dtype=np.int32)
    assert K.fused_rows_cirulla(r, pol, 5, False, 30, n, out, model=model) == (n, n)
    for i in range(n):
        u = 30 + i
        dealer = u % rules.players
        state, score, voids = step_hand(r, pol, 5, u, 0, dealer, model)
        totals = [int(score[s, K.I_TOTAL]) for s in range(rules.sides)]
        want = row_of(state, score, voids, rules.sides, i, 0, dealer, rules.players, totals, -1)
        assert out[:, i].tolist() == want, i
    # the learned seats play otherwise than the expert would in their place
    expert = np.where(pol == 3, 2, pol)
    other = np.zeros((K.N_ROW_COLS_CIRULLA, n), dtype=np.int32)
    K.fused_rows_cirulla(r, expert, 5, False, 30, n, other)
    assert (other != out).any()


def test_the_loop_refuses_a_learned_seat_without_its_model() -> None:
    r = vector(rules_of("cirulla", {}))
    pol = np.array([3, 2, 0, 0], dtype=np.int64)
    out = np.zeros((K.N_ROW_COLS_CIRULLA, 2), dtype=np.int32)
    with pytest.raises(ValueError, match="learned policy"):
        K.fused_rows_cirulla(r, pol, 5, False, 0, 2, out)


@pytest.mark.parametrize("policy", list(POLICIES))
def test_the_preset_loop_is_the_general_loop(policy: str) -> None:
    """``fused_hands_cirulla_2p`` (the preset's options compiled in), which
    ``cirulla_kernel`` picks for the preset only, writes the general loop's points and
    rows, hands and matches, for several seeds."""
    rules = rules_of("cirulla", {})
    r = vector(rules)
    assert K.cirulla_kernel(r) is K.fused_hands_cirulla_2p
    for other in (
        {"declare": "auto"}, {"players": 4}, {"matta": "play"}, {"ace_sweep": False},
        {"re_bello": True}, {"primiera": "sevens"}, {"piccola_max": 7},
    ):  # fmt: skip
        assert K.cirulla_kernel(vector(rules_of("cirulla", other))) is K.fused_hands_cirulla
    pol = codes(policy, 2)
    none = np.empty((0, 0), np.int32)
    for seed in (0, 7, 123):
        for mode, n, cap in ((K.MODE_SELFPLAY, 300, 0), (K.MODE_HANDS, 40, 40),
                             (K.MODE_MATCHES, 3, 300)):  # fmt: skip
            got = []
            for kernel in (K.fused_hands_cirulla, K.fused_hands_cirulla_2p):
                points = np.zeros((n if cap == 0 else 0, 4), dtype=np.int64)
                out = np.zeros((K.N_ROW_COLS_CIRULLA, cap), dtype=np.int32) if cap else none
                res = kernel(r, pol, seed, 4, n, mode, points, out, K.NO_MODEL)
                got.append((res, points.tolist(), np.asarray(out).tolist()))
            assert got[0] == got[1], (seed, mode)
