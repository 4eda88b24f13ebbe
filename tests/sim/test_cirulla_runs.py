"""Cirulla's runs played by the searches (issue 42, the study's part E): each row holds the
hand as the bots played it, its grande, piccola and declarations included; their deals
are dealt again as they were played (card values)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

from scopa_sim import _engine as K
from scopa_sim.bots.registry import seat_policies
from scopa_sim.data.run import SimConfig, open_run
from scopa_sim.errors import ScopaError
from scopa_sim.game.rules import Rules
from scopa_sim.sim.deals import redeal
from scopa_sim.sim.executors import local_executor
from scopa_sim.sim.match import HandPlayer
from scopa_sim.sim.simulate import simulate

POLICY = "pimc:worlds=2,depth=2"
ITEMS = ("scope", "cards", "denari", "settebello", "primiera", "re_bello", "napola")


def test_a_pimc_run_of_cirulla_holds_each_hand_as_played(tmp_path: Path) -> None:
    rules = Rules.make("cirulla")
    config = SimConfig.make("cirulla", rules, seat_policies([POLICY], 2), "hands", 3, 5)
    simulate(tmp_path / "run", config, local_executor(1))
    rows = pl.read_parquet(tmp_path / "run" / "shards" / "*.parquet").sort("match")
    player = HandPlayer(rules, seat_policies([POLICY], 2), 5)
    for unit in range(3):
        score = player.play(unit, 0, unit % 2).score
        row = rows.row(unit, named=True)
        for side in range(2):
            items = dict(zip((*ITEMS, "four_sevens", "points", "grande", "piccola",
                              "declarations"), score[side], strict=True))  # fmt: skip
            for item, value in items.items():
                if item != "four_sevens":
                    assert row[f"s{side}_{item}"] == value, (unit, side, item)


def test_a_cirulla_row_from_python_has_the_cirulla_columns() -> None:
    score = [[0] * K.N_ITEMS_CIRULLA, [0] * K.N_ITEMS_CIRULLA]
    score[1][K.I_GRANDE], score[1][K.I_PICCOLA], score[1][K.I_DECLARATIONS] = 5, 4, 3
    score[1][K.I_TOTAL] = 12
    row = K.hand_row(match=0, hand=0, dealer=0, players=2, redeals=0, plays=36, score=score,
                     piles=[0, 0], totals=[0, 12], winner=None)  # fmt: skip
    assert row.shape == (K.N_ROW_COLS_CIRULLA,)
    assert list(row[K.C_CIRULLA + 3 : K.C_CIRULLA + 6]) == [5, 4, 3]
    plain = K.hand_row(match=0, hand=0, dealer=0, players=2, redeals=0, plays=36,
                       score=[[0] * K.N_ITEMS] * 2, piles=[0, 0], totals=[0, 0],
                       winner=None)  # fmt: skip
    assert plain.shape == (K.N_ROW_COLS,)


def test_cirulla_deals_are_dealt_again_as_played(tmp_path: Path) -> None:
    rules = Rules.make("cirulla")
    config = SimConfig.make("cirulla", rules, seat_policies(["greedy"], 2), "hands", 40, 3)
    simulate(tmp_path / "run", config, local_executor(1))
    run = open_run(tmp_path / "run")
    m = np.arange(40)
    deals = redeal(run.config, m, np.zeros(40, dtype=np.int64), m % 2)
    player = HandPlayer(rules, seat_policies(["greedy"], 2), 3)
    for unit in range(40):
        deck = player.play(unit, 0, unit % 2).deck
        assert deals.table[unit] == sum(1 << c for c in deck[:4])
        hands = deals.hands[unit, 0]  # the first deal: three cards to each seat
        assert [bin(int(h)).count("1") for h in hands] == [3, 3]
        assert int(hands[0]) | int(hands[1]) == sum(1 << c for c in deck[4:10])


@pytest.mark.parametrize(
    ("policy", "deal", "words"),
    [("eval", "plain", "does not play capture_mode=cirulla"),
     (POLICY, "swapped", "plain deals only")],
)  # fmt: skip
def test_what_cirulla_runs_do_not_take_is_refused_before_any_work(
    tmp_path: Path, policy: str, deal: str, words: str
) -> None:
    rules = Rules.make("cirulla")
    with pytest.raises(ScopaError) as e:
        config = SimConfig.make("cirulla", rules, seat_policies([policy], 2), "hands", 2, 1,
                                deal=deal)  # fmt: skip
        simulate(tmp_path / "run", config, local_executor(1))
    assert words in str(e.value) and "\n" not in str(e.value)
    assert not (tmp_path / "run").exists()
