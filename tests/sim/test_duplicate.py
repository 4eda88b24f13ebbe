"""Duplicate deals (the seats' cards exchanged), swapped runs, and control variates."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner
from scopa_sim_cli.main import cli

from scopa_sim import _engine as K
from scopa_sim.analysis import variance as V
from scopa_sim.bots.registry import PolicySpec, seat_policies
from scopa_sim.data.run import SimConfig
from scopa_sim.errors import SimulationError
from scopa_sim.game.rules import KERNEL_PRESETS, Rules
from scopa_sim.sim.duplicate import swap_permutation, swapped_deck, swapped_rows
from scopa_sim.sim.match import HandPlayer
from scopa_sim.sim.shards import _bot_rows, compute_rows


def _codes(policy: str, players: int) -> np.ndarray:
    code = PolicySpec.parse(policy).code
    return np.array([code] * players + [0] * (4 - players), dtype=np.int64)


@pytest.mark.parametrize("preset", list(KERNEL_PRESETS))
def test_unswapped_step_rows_are_the_fused_rows(preset: str) -> None:
    r = Rules.make(preset)
    for policy in ("random", "expert"):
        codes = _codes(policy, r.players)
        mine = swapped_rows(r, codes, 11, 40, 60, swap=False)
        fused = np.zeros((K.N_ROW_COLS, 60), dtype=np.int32)
        K.fused_rows(r.to_array(), codes, 11, False, 40, 60, fused)
        assert np.array_equal(mine, fused)


@pytest.mark.parametrize("preset", ["scopa", "scopa-36", "scopa-3", "scopone-scientifico"])
def test_swap_gives_each_position_the_next_ones_cards(preset: str) -> None:
    r = Rules.make(preset)
    perm = swap_permutation(r)
    assert sorted(perm) == list(range(r.deck))
    deck = tuple(range(r.deck))  # card i at deck position i (only positions matter here)
    a, b = (np.zeros(K.N_STATE, dtype=np.int64) for _ in range(2))
    dealer = 1 % r.players
    K.start_hand(a, r.to_array(), np.array(deck, dtype=np.int64), dealer)
    K.start_hand(b, r.to_array(), np.array(swapped_deck(r, deck), dtype=np.int64), dealer)
    n = r.players
    assert a[K.S_TABLE] == b[K.S_TABLE]
    for p in range(n):  # position p (0 = first player) gets what position p + 1 had
        seat, nxt = (dealer + 1 + p) % n, (dealer + 2 + p) % n
        assert b[K.S_HANDS + seat] == a[K.S_HANDS + nxt]
    if n == 2:
        assert np.array_equal(perm[perm], np.arange(r.deck))  # exchanging twice: the deal


def test_swapped_run_rows_agree_between_kernel_and_hand_player() -> None:
    r = Rules.make("scopa")
    cfg = SimConfig.make("scopa", r, seat_policies(["greedy"], 2), "hands", 30, 4, deal="swapped")
    fast = compute_rows(cfg, 10, 20)
    slow = _bot_rows(cfg, [PolicySpec.parse("greedy")] * 2, 10, 20)  # HandPlayer, swapped
    assert np.array_equal(fast, slow)
    plain = compute_rows(SimConfig.make("scopa", r, seat_policies(["greedy"], 2), "hands", 30, 4),
                         10, 20)  # fmt: skip
    assert not np.array_equal(plain, fast)
    hp = HandPlayer(r, [PolicySpec.parse("greedy")] * 2, 4, swapped=True)
    assert hp.play(12, 0, 0).deck == swapped_deck(r, HandPlayer(r, [], 4).play(12, 0, 0).deck)


def test_deal_is_part_of_the_run_identity_only_when_swapped() -> None:
    r = Rules.make("scopa")
    plain = SimConfig.make("scopa", r, seat_policies(["random"], 2), "hands", 10, 1)
    swapped = SimConfig.make("scopa", r, seat_policies(["random"], 2), "hands", 10, 1,
                             deal="swapped")  # fmt: skip
    assert "deal" not in plain.data_key() and swapped.data_key()["deal"] == "swapped"
    assert plain.run_id != swapped.run_id
    assert SimConfig.from_json(swapped.to_json()) == swapped
    with pytest.raises(SimulationError, match="runs of hands only"):
        SimConfig.make("scopa", r, seat_policies(["random"], 2), "matches", 10, 1, deal="swapped")
    with pytest.raises(SimulationError, match="deal must be"):
        SimConfig.make("scopa", r, seat_policies(["random"], 2), "hands", 10, 1, deal="mixed")


def test_simulate_cli_deal_option(tmp_path) -> None:
    runner = CliRunner()
    res = runner.invoke(cli, ["simulate", "--matches", "5", "--deal", "swapped", "--out",
                              str(tmp_path / "m")])  # fmt: skip
    assert res.exit_code != 0 and "swapped deals are for runs of hands only" in res.output
    res = runner.invoke(cli, ["simulate", "--hands", "50", "--deal", "swapped", "-q", "--out",
                              str(tmp_path / "h")])  # fmt: skip
    assert res.exit_code == 0, res.output
    from scopa_sim.data.run import open_run

    run = open_run(tmp_path / "h")
    assert run.config.deal == "swapped" and "--deal swapped" in run.command()


@pytest.mark.parametrize("preset", ["scopa", "scopone", "scopa-3"])
def test_deal_features_are_counted_from_the_run_decks(preset: str) -> None:
    r = Rules.make(preset)
    f = V.deal_features(r, 9, 100, 8)
    role = V.receiver_roles(r)
    player = HandPlayer(r, [], 9)
    for i in range(8):
        u = 100 + i
        deck = player.play(u, 0, u % r.players).deck  # the deck of hand u of a --hands run
        for k, (_, mask) in enumerate(V.FEATURES):
            want = sum(int(role[j]) * ((mask >> c) & 1) for j, c in enumerate(deck))
            assert f[i, k] == want
    if r.players == 2:  # a duplicate deal has the opposite features
        perm = swap_permutation(r)
        assert np.array_equal(role[perm], -role)


def test_feature_masks_are_the_kernels_card_groups() -> None:
    want = [K.SEVENS, K.DENARI, K.SETTEBELLO_BIT, K.SIXES, K.ACES, K.KINGS]
    assert [m for _, m in V.FEATURES] == [int(x) for x in want]


def test_the_row_columns_are_the_kernels() -> None:
    from scopa_sim.data.dataset import kernel_columns

    assert len(kernel_columns()) == K.N_ROW_COLS


def test_control_variates_and_duplicates_estimators() -> None:
    rng = np.random.default_rng(0)
    f = rng.integers(-3, 4, size=(5000, 2))
    y = 0.3 + 2 * f[:, 0] - f[:, 1] + rng.normal(0, 1, 5000)
    cv = V.control_variates(y, f)
    assert cv.factor > 5 and abs(cv.estimate.estimate - 0.3) < 4 * cv.estimate.se
    noise = rng.normal(0, 1, 5000)
    dup = V.duplicates(0.3 + noise, 0.3 - noise + rng.normal(0, 0.1, 5000))
    assert dup.factor > 20 and dup.estimate.n == 5000
    ind = V.duplicates(rng.normal(0, 1, 5000), rng.normal(0, 1, 5000))
    assert 0.9 < ind.factor < 1.1
    assert np.isnan(V.control_variates(y[:4], f[:4]).factor)


def _old_blocks(rules: Rules) -> list[tuple[int, int]]:
    """The deals' ``(start, k)`` as the dealing rule states them (hand_size cards each, a
    short last deal of ``left // players``): the reference of the tests below."""
    n, pos, out = rules.players, rules.table_cards, []
    while pos < rules.deck:
        left = rules.deck - pos
        k = rules.hand_size if left >= n * rules.hand_size else left // n
        if k == 0:
            break
        out.append((pos, k))
        pos += n * k
    return out


@pytest.mark.parametrize("preset", sorted(KERNEL_PRESETS))
def test_the_deal_order_is_the_dealing_rule(preset: str) -> None:
    rules = Rules.make(preset)
    n = rules.players
    blocks = _old_blocks(rules)
    assert rules.deal_sizes == tuple(k for _, k in blocks)
    want = [-1] * rules.table_cards
    for r, (_, k) in enumerate(blocks):
        want += [r * n + p for p in range(n) for _ in range(k)]
    assert list(rules.deal_order) == want + [-2] * (rules.deck - len(want))
    perm = np.arange(rules.deck)
    for pos, k in blocks:
        for p in range(n):
            src = pos + ((p + 1) % n) * k
            perm[pos + p * k : pos + (p + 1) * k] = np.arange(src, src + k)
    assert np.array_equal(swap_permutation(rules), perm)
