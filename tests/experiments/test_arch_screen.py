"""The architecture screen of ``reports/learned/arch_screen.py``: its tactics block against a
plain-Python reading of the position, its forward pass against the package's, its
descent against numerical gradients, and its bad input."""

from __future__ import annotations

import random
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from helpers.scripts import load_script

from scopa_sim._engine import learned as KL
from scopa_sim.bots import learned as BL
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import HandState

SCRIPT = Path(__file__).resolve().parents[2] / "reports" / "learned" / "arch_screen.py"


@pytest.fixture(scope="module")
def scr():
    return load_script(SCRIPT)


def _positions(preset: str, count: int, seed: int) -> list[HandState]:
    rules = Rules.make(preset)
    g = random.Random(seed)
    out: list[HandState] = []
    while len(out) < count:
        s = HandState.deal(rules, dealer=g.randrange(rules.players), seed=g.randrange(2**40))
        while not s.is_over and len(out) < count:
            out.append(s.clone())
            s.push(g.choice(list(s.legal_plays)))
    return out


def _mask(cards: object) -> int:
    return sum(1 << int(c) for c in cards)  # type: ignore[attr-defined]


def _plain_tactics(scr, rules: Rules, hand: int, table: int, unseen: int) -> set[int]:
    """The tactics block read in plain Python from the hand and the table after the play
    and the unseen cards, by enumerating the table's subsets."""
    values = [c % 10 + 1 for c in range(40) if table >> c & 1]
    sums = {sum(s) for r in range(1, len(values) + 1) for s in combinations(values, r)}
    fifteen = rules.capture_mode == "fifteen"
    cap = sweep = 0
    for v in range(1, 11):
        if not values:
            break
        if v == 1 and not fifteen and rules.ace_sweep and 1 not in values:
            c = w = True
        elif fifteen:
            c, w = 15 - v in sums, sum(values) == 15 - v
        elif v in values:
            c, w = True, values == [v]
        else:
            c, w = v in sums, sum(values) == v
        cap |= c << (v - 1)
        sweep |= w << (v - 1)
    count = [sum(1 for c in range(40) if unseen >> c & 1 and c % 10 + 1 == v) for v in range(11)]
    mine = {c % 10 + 1 for c in range(40) if hand >> c & 1}
    bit = lambda m, v: m >> (v - 1) & 1  # noqa: E731
    out = {scr.T_UNSEEN + 5 * (v - 1) + count[v] for v in range(1, 11)}
    out |= {scr.T_RCAP + v - 1 for v in range(1, 11) if bit(cap, v)}
    out |= {scr.T_RSWEEP + v - 1 for v in range(1, 11) if bit(sweep, v)}
    out.add(scr.T_NSWEEP + min(7, sum(count[v] for v in range(1, 11) if bit(sweep, v))))
    out.add(scr.T_NCAP + min(15, sum(count[v] for v in range(1, 11) if bit(cap, v))))
    out |= {scr.T_MCAP + v - 1 for v in mine if bit(cap, v)}
    out |= {scr.T_MSWEEP + v - 1 for v in mine if bit(sweep, v)}
    return out


@pytest.mark.parametrize("preset", ["scopa", "scopa-15", "asso-piglia-tutto"])
def test_tactics_match_a_plain_reading(scr, preset: str) -> None:
    rules = Rules.make(preset)
    seen_sweep = 0
    for state in _positions(preset, 150, 4):
        plays = list(state.legal_plays)
        idx, k, _ = BL.play_features(state, plays)
        hand = _mask(state.hands[state.turn])
        table = _mask(state.table)
        piles = 0
        for p in state.piles:
            piles |= _mask(p)
        unseen = ((1 << 40) - 1) & ~(hand | table | piles)
        for i, p in enumerate(plays):
            out = np.empty(scr.WIDTH, dtype=np.int64)
            n = scr.tactics(state._r, idx[i].astype(np.int64), k[i], out)
            base = [f for f in idx[i, : k[i]].tolist() if f < scr.N_BASE]
            after = table & ~p.take if p.take else table | 1 << p.card
            want = _plain_tactics(scr, rules, hand & ~(1 << p.card), after, unseen)
            assert out[: len(base)].tolist() == base
            assert set(out[len(base) : n].tolist()) == want and n == len(base) + len(want)
            assert out[:n].tolist() == sorted(out[:n].tolist())
            seen_sweep += any(scr.T_RSWEEP <= f < scr.T_NSWEEP for f in want)
    assert seen_sweep > 5


def test_one_layer_forward_is_the_package_model(scr) -> None:
    g = np.random.default_rng(1)
    model = BL.new_model(8, 2)
    model[KL.M_HEAD :] = g.normal(0.0, 0.3, model.shape[0] - KL.M_HEAD)
    empty = scr.Net(model, np.zeros((8, 0)), np.zeros(0), np.zeros(0))
    for state in _positions("scopa", 20, 5):
        plays = list(state.legal_plays)
        raw, raw_k, dense = BL.play_features(state, plays)
        idx = np.empty((len(plays), scr.WIDTH), dtype=np.int64)
        k = np.empty(len(plays), dtype=np.int64)
        scr.rows_features(state._r, raw.astype(np.int64), raw_k, False, idx, k)
        assert (idx < scr.N_BASE).all() and (raw_k >= k).all()
        out = np.empty(len(plays))
        scr.net_values(empty.base, empty.w2, empty.b2, empty.w3, idx, k, dense, out)
        acc = np.empty(8)
        for i in range(len(plays)):
            want = KL.model_forward(model, raw[i].astype(np.int64), raw_k[i], dense[i], acc)
            assert out[i] == pytest.approx(want, rel=1e-12)


def _problem(scr):
    """A few decisions of real features, targets a function of them, and a random net of
    two layers (the second's output weights not zero)."""
    rules = Rules.make("scopa")
    ex = [BL.kind_of("expert")] * 2
    s = BL.rollout_samples(rules, ex, ex, None, 3, 0, 4, 1.0, 0)
    idx = np.empty((s.idx.shape[0], scr.WIDTH), dtype=np.int64)
    k = np.empty(s.idx.shape[0], dtype=np.int64)
    scr.rows_features(rules.to_array(), s.idx.astype(np.int64), s.k, True, idx, k)
    net = scr.new_net(scr.N_BASE + scr.N_TACTICS, 6, 4, 1)
    g = np.random.default_rng(3)
    net.w3[:] = g.normal(0.0, 0.5, 4)
    y = s.dense[:, KL.D_EXPERT] + 0.3 * (idx == KL.F_KIND + KL.KIND_LAY).any(axis=1)
    return net, idx, k, s.dense, y, s.starts


def _loss(scr, net, idx, k, dense, y, starts) -> float:
    f = np.empty(y.shape[0])
    scr.net_values(net.base, net.w2, net.b2, net.w3, idx, k, dense, f)
    total = 0.0
    for g in range(starts.shape[0] - 1):
        a, b = starts[g], starts[g + 1]
        e = (f[a:b] - f[a:b].mean()) - (y[a:b] - y[a:b].mean())
        total += 0.5 * (e * e).sum()
    return total


def test_the_descent_follows_the_gradient(scr) -> None:
    """A pass of a tiny step over one decision moves each weight by the step times minus
    the loss's numerical derivative (first order)."""
    net, idx, k, dense, y, starts = _problem(scr)
    g = 1 + int(np.argmax(np.diff(starts)[1:]))  # a decision of several plays
    sel = slice(starts[g], starts[g + 1])
    one = (idx[sel].copy(), k[sel].copy(), dense[sel].copy(), y[sel].copy())
    st = np.array([0, starts[g + 1] - starts[g]], dtype=np.int64)
    eps = 1e-7
    moved = scr.Net(net.base.copy(), net.w2.copy(), net.b2.copy(), net.w3.copy())
    scr.net_pass(moved.base, moved.w2, moved.b2, moved.w3, *one, st, np.zeros(1, dtype=np.int64),
                 eps, 0.0)  # fmt: skip
    lin, skip, _, w1, _, b1, _, h = KL.model_offsets(net.base)
    active = int(one[0][0, 0])
    checks = [("base", skip + KL.D_EXPERT), ("base", lin + active), ("base", b1 + 2),
              ("base", w1 + active * h + 1), ("w3", 0), ("w3", 3), ("b2", 1)]  # fmt: skip
    checks += [("w2", (u, v)) for u in range(6) for v in range(4)]
    tested = 0
    for name, at in checks:
        arr = getattr(net, name)
        step = (getattr(moved, name)[at] - arr[at]) / -eps
        keep = arr[at]
        arr[at] = keep + 1e-6
        up = _loss(scr, net, *one, st)
        arr[at] = keep - 1e-6
        down = _loss(scr, net, *one, st)
        arr[at] = keep
        grad = (up - down) / 2e-6
        assert step == pytest.approx(grad, rel=1e-3, abs=1e-6), (name, at)
        tested += abs(grad) > 1e-4
    assert tested >= 6


def test_passes_lower_the_loss(scr) -> None:
    net, idx, k, dense, y, starts = _problem(scr)
    net.w3[:] = 0.0
    order = np.arange(starts.shape[0] - 1, dtype=np.int64)
    before = _loss(scr, net, idx, k, dense, y, starts)
    for e in range(4):
        scr.net_pass(net.base, net.w2, net.b2, net.w3, idx, k, dense, y, starts, order,
                     0.05 * 0.5**e, 1e-5)  # fmt: skip
    assert _loss(scr, net, idx, k, dense, y, starts) < 0.5 * before


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--arm", "three:4"], "one of one:H, two:HxK"),
        (["--arm", "two:4x0"], "widths of at least 1"),
        (["--arm", "one:8", "--epochs", "0"], "--epochs at least 1"),
        (["--arm", "one:8", "--gap", "0"], "--gap above 0"),
        (["--arm", "two:8x4+c"], "one of one:H"),
        (["--arm", "one:8", "--take", "-1"], "--take at least 0"),
        (["--arm", "file:no-such-model.npy"], "no such file"),
        (["--arm", "one:8"], "not a file of label_ceiling.py --save"),
    ],
)
def test_bad_input_is_one_line(scr, capsys, tmp_path, argv: list[str], message: str) -> None:
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not npz")
    with pytest.raises(SystemExit) as e:
        scr.main(["--decisions", str(bad), "--data", str(bad), *argv])
    assert e.value.code == 2
    assert message in capsys.readouterr().err.strip().splitlines()[-1]


def test_close_decisions_are_those_of_a_small_gap(scr) -> None:
    y = np.array([1.0, 0.9, 0.0, 2.0, 0.5, 0.4, 0.3, 0.0, 3.0])
    starts = np.array([0, 3, 5, 7, 9], dtype=np.int64)
    s = BL.Samples(np.zeros((9, 4), dtype=np.int16), np.zeros(9, dtype=np.int64),
                   np.zeros((9, KL.N_DENSE)), y, starts)  # fmt: skip
    # gaps: 0.1, 1.5, 0.1, 3.0
    assert scr.close_decisions(s, 0.25).tolist() == [0, 2]
    assert scr.close_decisions(s, 2.0).tolist() == [0, 1, 2]
    arm = scr.Arm.parse("one:16+c")
    assert arm.close and arm.hidden == 16 and arm.second == 0 and not arm.tactics
