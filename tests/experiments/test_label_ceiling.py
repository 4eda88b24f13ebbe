"""The label policy of ``reports/learned/label_ceiling.py``: its labels are the training
data's, and its games are reproducible."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers.scripts import load_script

from scopa_sim._engine import learned as KL
from scopa_sim._engine.layout import MAX_PLAYS, N_ITEMS, N_STATE, S_DONE, S_TURN, SCRATCH
from scopa_sim._engine.policy import EXPERT_SCRATCH
from scopa_sim._engine.step import apply_play, legal_plays
from scopa_sim._engine.streams import RNG_WORDS
from scopa_sim.bots import learned as BL
from scopa_sim.game.rules import Rules

SCRIPT = Path(__file__).resolve().parents[2] / "reports" / "learned" / "label_ceiling.py"


@pytest.fixture(scope="module")
def lc():
    return load_script(SCRIPT)


def _models() -> np.ndarray:
    m = BL.new_model(0, 0)
    return np.ascontiguousarray(np.broadcast_to(m, (2, m.shape[0])))


def test_labels_are_the_rollout_samples_labels(lc):
    """Every decision of a hand: the script's labels equal ``rollout_samples``' targets
    (``--worlds 3 --exact``, every decision sampled), decision by decision."""
    rules = Rules.make("scopa")
    r = rules.to_array()
    ex = BL.kind_of("expert+exact")
    seed, worlds = 5, 3
    s = BL.rollout_samples(rules, [ex, ex], [ex, ex], None, seed, 0, 2, 1.0, worlds)
    models = _models()
    cont = np.array([ex, ex], dtype=np.int64)
    state, st2 = np.zeros(N_STATE, dtype=np.int64), np.zeros(N_STATE, dtype=np.int64)
    deck = np.zeros(40, dtype=np.int64)
    rng, rng2 = np.zeros(RNG_WORDS, dtype=np.uint64), np.zeros(RNG_WORDS, dtype=np.uint64)
    bc, bt, bc2, bt2 = (np.empty(MAX_PLAYS, dtype=np.int64) for _ in range(4))
    sc = np.empty(SCRATCH, dtype=np.int64)
    xs, dense = np.empty(EXPERT_SCRATCH), np.empty(KL.N_DENSE)
    idx, acc = np.empty(KL.MAX_ACTIVE, dtype=np.int64), np.empty(1)
    items, tt, out = np.zeros((4, N_ITEMS), dtype=np.int64), KL._new_tt(), np.empty(MAX_PLAYS)
    g = 0
    for h in range(2):
        KL._deal(state, r, seed, h, deck, rng)
        while not state[S_DONE]:
            n = legal_plays(state, r, bc, bt, sc)
            if n > 1 and not KL.one_world(state, r):
                lc.labels(state, r, cont, models, worlds, seed, h, bc, bt, n, st2, rng2, bc2,
                          bt2, sc, idx, dense, acc, xs, tt, items, out)  # fmt: skip
                a, b = s.starts[g], s.starts[g + 1]
                assert b - a == n
                np.testing.assert_array_equal(out[:n], s.y[a:b])
                g += 1
            i = KL._choose(state, r, ex, models[state[S_TURN]], rng, bc, bt, n, idx, dense,
                           acc, xs, tt)  # fmt: skip
            apply_play(state, r, bc[i], bt[i])
    assert g == s.decisions > 10


def test_label_policy_games_are_reproducible_and_differ_from_the_opponent(lc):
    """The same deals give the same points; the label policy plays otherwise than its
    opponent (its hands are not the opponent's self-play)."""
    rules = Rules.make("scopa")
    ex = BL.kind_of("expert+exact")
    models = _models()
    cont = np.array([ex, ex], dtype=np.int64)
    kinds = np.array([lc.LABEL, ex], dtype=np.int64)

    def run() -> np.ndarray:
        out = np.zeros((6, 4), dtype=np.int64)
        lc.label_hands(rules.to_array(), kinds, cont, models, 2, 9, 0, 6, out)
        return out[:, :2]

    first = run()
    np.testing.assert_array_equal(first, run())
    assert (first.sum(axis=1) > 0).all()
    base = BL.play_hands(rules, [ex, ex], None, 9, 0, 6)
    assert not np.array_equal(first, base)


def test_bad_input_is_one_line(lc, capsys):
    with pytest.raises(SystemExit) as e:
        lc.main(["--worlds", "0", "--pairs", "1", "--seed", "1"])
    assert e.value.code == 2
    assert "--worlds and --pairs must be at least 1" in capsys.readouterr().err


def test_a_screen_of_the_saved_decisions_gives_the_decomposition(lc, tmp_path, capsys):
    """``--decompose --save`` then ``--screen`` of the same model: the same figures
    (the labels kept, the model's values computed again from the kept states); another
    model changes the model's figures only; a file that is not one: a one-line error."""
    rules = Rules.make("scopa")
    ex = BL.kind_of("expert+exact")
    cont = np.array([ex, ex], dtype=np.int64)
    model = BL.new_model(4, 1)
    model[KL.M_HEAD :] += np.random.default_rng(2).normal(0.0, 0.05, model.shape[0] - KL.M_HEAD)
    path = tmp_path / "d.npz"
    full = lc.decompose(rules, model, ex, cont, 2, 4, 11, 2, str(path))
    assert full == lc.screen(rules, str(path), model)
    other = lc.screen(rules, str(path), BL.new_model(0, 0))
    assert other["model_error"] != full["model_error"]
    for key in ("noise", "expert_error", "big_error", "zero_error"):
        assert other[key] == full[key]
    (tmp_path / "bad.npz").write_bytes(b"not a file of --save")
    with pytest.raises(SystemExit) as e:
        lc.main(["--screen", str(tmp_path / "bad.npz")])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "not a file of --decompose --save" in err


def test_a_missing_model_is_one_line(lc, capsys):
    with pytest.raises(SystemExit) as e:
        lc.main(["--screen", "x.npz", "--model", "no-such-model.npy"])
    assert e.value.code == 2
    assert "--model: no such file" in capsys.readouterr().err.strip().splitlines()[-1]
