"""Screen model architectures for ``learned`` against the labels' expectation.

The label policy's measurement (``label_ceiling.py``) found the limit of ``learned`` in
its model: a network of one hidden layer stays about 0.012 (points squared, per play)
from the labels' expectation whatever the labels' noise and the layer's width.  This
script fits other models on the same rollout data and measures each one's error on the
decisions a ``label_ceiling.py --decompose --save`` run kept (labels of ``big`` worlds
standing for the expectation), paired against the first arm::

    python reports/learned/arch_screen.py --decisions DEC.npz --data A.npz [B.npz ...]
        --arm one:64 --arm two:64x32 --arm one:64+t [--epochs 6 --lr 0.01 --seed 3]
        [--take N] [--json OUT]

An arm ``one:H`` is the shipped model (one hidden layer of width ``H``, fitted by the
package's ``fit``, the shipped recipe); ``two:HxK`` adds a second hidden layer of width
``K`` between the first and the output (fitted by this script's descent: the same
centred loss, order, steps and decay); ``+t`` adds the tactics block, computed from each
row's features (what a reply, and the seat's own next play, could capture or sweep on
the table the play leaves: :func:`tactics`); ``one:H+c`` counts the close decisions
twice in the loss (:func:`close_decisions`, the gap ``--gap``); ``--out-dir`` keeps the
fitted one-layer models, for ``train compare``; ``file:PATH`` measures a model file as it
is (the shipped weights: ``file:scopa_sim/bots/weights/scopa.npy``).  The data are
``rollouts`` files of the Scopa preset; only decisions of at most 30 plays are fitted
(``--max-plays 30``), the first ``N`` of them with ``--take N``.

The error of an arm is :func:`scopa_sim.sim.training.label_errors`' ``model_error_big``; the paired
difference from the first arm, per play, with a 95% normal interval over the decisions.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from scopa_sim._engine import learned as KL
from scopa_sim._engine.bits import popcount
from scopa_sim._engine.capture import subset_sums, value_sum
from scopa_sim._engine.layout import ACES, R_ACE_SWEEP, R_CAPTURE_FIFTEEN, VALUE_MASK
from scopa_sim.bots import learned as BL
from scopa_sim.errors import FileError
from scopa_sim.game.rules import Rules
from scopa_sim.sim.training import fit, label_errors, load_model, load_samples, plays_made

# The kernels below compile at each run and are not cached (see label_ceiling.py).

#: The tactics block, after the base features (a model of it reads N_BASE + N_TACTICS).
N_BASE = KL.N_SPARSE_BASE
T_UNSEEN = N_BASE  # 50: per value v, the unseen cards of value v: 5 * (v - 1) + count
T_RCAP = N_BASE + 50  # 10: a card of value v (bit v - 1) would capture on the table left
T_RSWEEP = N_BASE + 60  # 10: ... would take it all
T_NSWEEP = N_BASE + 70  # 8: how many unseen cards would take it all (7 and more: 7)
T_NCAP = N_BASE + 78  # 16: how many unseen cards would capture on it (15 and more: 15)
T_MCAP = N_BASE + 94  # 10: a value of the seat's hand after the play that would capture
T_MSWEEP = N_BASE + 104  # 10: ... that would take it all
N_TACTICS = 114
WIDTH = 128  # room for a row's features with the tactics


@njit
def tactics(rules, idx, k, out):
    """The row's base features ``idx[:k]`` (those below :data:`N_BASE`, ascending) then
    its tactics block, to ``out``; returns their number.  The block reads the table
    after the play (``F_TABLE``), the seat's hand after it (``F_HAND``) and the unseen
    cards (none of the hand, the table or a pile): by value, the unseen cards; whether a
    card of that value would capture on the table (an equal card or a subset of that
    sum; under the fifteen rule, a subset of ``15 - v``; Scopa's ace sweep where the rules
    have it) or take it all; how many unseen cards would; which of the seat's values
    would."""
    hand = np.int64(0)
    table = np.int64(0)
    seen = np.int64(0)
    n = 0
    for j in range(k):
        f = idx[j]
        if f >= N_BASE:
            break
        out[n] = f
        n += 1
        if f < KL.F_TABLE:
            hand |= np.int64(1) << (f - KL.F_HAND)
        elif f < KL.F_MINE:
            table |= np.int64(1) << (f - KL.F_TABLE)
        elif f < KL.F_CARD:
            seen |= np.int64(1) << ((f - KL.F_MINE) % 40)
    unseen = ((np.int64(1) << 40) - 1) & ~(hand | table | seen)
    fifteen = rules[R_CAPTURE_FIFTEEN] != 0
    ace = not fifteen and rules[R_ACE_SWEEP] != 0 and table != 0 and (table & ACES) == 0
    reach = subset_sums(table)
    tot = value_sum(table)
    cap = 0
    sweep = 0
    ncap = 0
    nsw = 0
    mine = 0
    for v in range(1, 11):
        u = popcount(unseen & VALUE_MASK[v])
        out[n] = T_UNSEEN + 5 * (v - 1) + min(u, 4)
        n += 1
        if hand & VALUE_MASK[v]:
            mine |= 1 << (v - 1)
        if table == 0:
            continue
        if v == 1 and ace:
            c, w = True, True
        elif fifteen:
            c, w = (reach >> (15 - v)) & 1 != 0, tot == 15 - v
        elif table & VALUE_MASK[v]:
            same = table & VALUE_MASK[v]
            c, w = True, same == table and (same & (same - 1)) == 0
        else:
            c, w = (reach >> v) & 1 != 0, tot == v
        if c:
            cap |= 1 << (v - 1)
            ncap += u
        if w:
            sweep |= 1 << (v - 1)
            nsw += u
    n = KL._bits(cap, T_RCAP, out, n)
    n = KL._bits(sweep, T_RSWEEP, out, n)
    out[n] = T_NSWEEP + min(nsw, 7)
    out[n + 1] = T_NCAP + min(ncap, 15)
    n = KL._bits(cap & mine, T_MCAP, out, n + 2)
    return KL._bits(sweep & mine, T_MSWEEP, out, n)


@njit
def rows_features(rules, idx, k, with_tactics, out, out_k):
    """Each row's features for an arm: the base ones (the evidence dropped) and, with
    ``with_tactics``, :func:`tactics` (``out`` then :data:`WIDTH` wide); ``out`` padded
    with -1."""
    row = np.empty(WIDTH, dtype=np.int64)
    for r in range(idx.shape[0]):
        for j in range(out.shape[1]):
            out[r, j] = -1
        if with_tactics:
            for j in range(k[r]):
                row[j] = idx[r, j]
            n = tactics(rules, row, k[r], out[r])
        else:
            n = 0
            for j in range(k[r]):
                if idx[r, j] < N_BASE:
                    out[r, n] = idx[r, j]
                    n += 1
        out_k[r] = n


@dataclass
class Net:
    """A model: the package's vector (``base``: its direct path, its first layer and its
    output weights) and, for a second hidden layer of ``K`` units (``K = 0``: none, the
    package's model), ``w2`` (H x K), ``b2`` (K) and ``w3`` (K): the output is then
    ``b + lin + skip . dense + w3 . relu(z2)``, ``z2 = b2 + relu(z1) w2``, the package's
    output weights unused."""

    base: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    w3: np.ndarray


def new_net(sparse: int, hidden: int, second: int, seed: int) -> Net:
    """A net that plays as the expert (``w3`` zero), its first layer drawn as the
    package's (:func:`scopa_sim._engine.learned.new_model`, written for ``sparse``
    features), the second from a normal of sd ``sqrt(2 / hidden)``, ``b2`` at 0.1."""
    if sparse == N_BASE:
        base = KL.new_model(hidden, seed)
    else:  # new_model's draws, for more sparse features than the layouts it makes
        base = np.zeros(KL.model_size(hidden, sparse))
        base[KL.M_VERSION], base[KL.M_SPARSE], base[KL.M_DENSE] = KL.VERSION, sparse, KL.N_DENSE
        base[KL.M_HIDDEN] = hidden
        o = KL.model_offsets(base)
        base[o[1] + KL.D_EXPERT] = 1.0
        g0 = np.random.default_rng(seed)
        base[o[3] : o[5]] = g0.normal(0.0, 0.05, o[5] - o[3])
        base[o[5] : o[6]] = 0.1
    g = np.random.default_rng([seed, 2])
    w2 = g.normal(0.0, np.sqrt(2.0 / hidden), (hidden, second))
    return Net(base, w2, np.full(second, 0.1), np.zeros(second))


@njit
def _forward(model, w2, b2, w3, idx, k, dense, z1, z2):
    """The net's output for the features ``idx[:k]`` and ``dense``: the package's model
    (:func:`scopa_sim._engine.learned.model_forward`, which leaves the first layer's
    pre-activations in ``z1``) and, with a second layer (``w3`` not empty), its units
    (pre-activations left in ``z2``; the package's output weights are then zero, never
    trained)."""
    out = KL.model_forward(model, idx, k, dense, z1)
    kk = w3.shape[0]
    if kk == 0:
        return out
    for v in range(kk):
        z2[v] = b2[v]
    for u in range(np.int64(model[KL.M_HIDDEN])):
        if z1[u] > 0.0:
            for v in range(kk):
                z2[v] += z1[u] * w2[u, v]
    for v in range(kk):
        if z2[v] > 0.0:
            out += w3[v] * z2[v]
    return out


@njit
def net_values(model, w2, b2, w3, idx, k, dense, out):
    """``out[r]``: the net's value of row ``r``."""
    z1 = np.empty(max(1, np.int64(model[KL.M_HIDDEN])))
    z2 = np.empty(max(1, w3.shape[0]))
    for r in range(idx.shape[0]):
        out[r] = _forward(model, w2, b2, w3, idx[r], k[r], dense[r], z1, z2)


@njit
def net_pass(model, w2, b2, w3, idx, ks, dense, y, starts, order, lr, l2):
    """One pass of descent of the centred loss over the decisions ``order``, as
    :func:`scopa_sim._engine.learned.sgd_pass` does it for one hidden layer (the same
    step, decay and order), back through the second layer; returns the mean loss per
    row before each update."""
    lin, skip, bo, w1, wd, b1, _, h = KL.model_offsets(model)
    nd = bo - skip
    kk = w3.shape[0]
    most = 0
    for g in range(starts.shape[0] - 1):
        most = max(most, starts[g + 1] - starts[g])
    z1 = np.zeros((most, h))
    z2 = np.zeros((most, kk))
    f = np.zeros(most)
    dz2 = np.zeros(kk)
    loss = 0.0
    units = 0
    for o in range(order.shape[0]):
        g = order[o]
        r0 = starts[g]
        n = starts[g + 1] - r0
        if n < 2:
            continue
        fm = 0.0
        ym = 0.0
        for r in range(n):
            f[r] = _forward(model, w2, b2, w3, idx[r0 + r], ks[r0 + r], dense[r0 + r], z1[r],
                            z2[r])  # fmt: skip
            fm += f[r]
            ym += y[r0 + r]
        fm /= n
        ym /= n
        for r in range(n):
            row = r0 + r
            e = (f[r] - fm) - (y[row] - ym)
            loss += 0.5 * e * e
            step = lr * e
            for j in range(ks[row]):
                a = lin + idx[row, j]
                model[a] -= step + lr * l2 * model[a]
            for d in range(nd):
                model[skip + d] -= step * dense[row, d]
            for v in range(kk):
                dz2[v] = 0.0
                if z2[r, v] > 0.0:
                    dz2[v] = step * w3[v]
                    w3[v] -= step * z2[r, v] + lr * l2 * w3[v]
                b2[v] -= dz2[v]
            for u in range(h):
                if z1[r, u] <= 0.0:
                    continue
                gu = 0.0
                for v in range(kk):
                    gu += w2[u, v] * dz2[v]
                    w2[u, v] -= z1[r, u] * dz2[v]
                model[b1 + u] -= gu
                for j in range(ks[row]):
                    a = w1 + idx[row, j] * h + u
                    model[a] -= gu + lr * l2 * model[a]
                for d in range(nd):
                    model[wd + d * h + u] -= gu * dense[row, d]
        units += n
    return loss / max(units, 1)


@dataclass(frozen=True)
class Arm:
    """An arm: ``hidden`` units in the first layer, ``second`` in the second (0: none,
    the package's model), ``tactics`` the block :func:`tactics` read too, ``close`` the
    close decisions visited twice a pass; or ``path``, a model file measured as it is."""

    name: str
    hidden: int
    second: int
    tactics: bool
    path: str = ""
    close: bool = False

    @classmethod
    def parse(cls, spec: str) -> Arm:
        """``one:H``, ``two:HxK``, either with ``+t``, ``one:H`` with ``+c``; or
        ``file:PATH``, a model file of the package (the shipped weights' layout) measured
        as it is, not fitted.

        Raises:
            ValueError: another spelling, or a width below 1."""
        if spec.startswith("file:"):
            return cls(spec, 0, 0, False, spec[5:])
        if spec.startswith("one:") and spec.endswith("+c"):
            h = cls.parse(spec[:-2]).hidden
            return cls(spec, h, 0, False, "", True)
        body, t = (spec[:-2], True) if spec.endswith("+t") else (spec, False)
        kind, _, sizes = body.partition(":")
        try:
            if kind == "one":
                h, k = int(sizes), 0
            elif kind == "two":
                a, b = sizes.split("x")
                h, k = int(a), int(b)
            else:
                raise ValueError
        except ValueError:
            raise ValueError(
                f"--arm {spec!r}: one of one:H, two:HxK, each with +t, one:H+c, file:PATH"
            ) from None
        if h < 1 or (kind == "two" and k < 1):
            raise ValueError(f"--arm {spec!r}: widths of at least 1")
        return cls(spec, h, k, t)


def close_decisions(s: BL.Samples, gap: float) -> np.ndarray:
    """The decisions whose two largest targets differ by less than ``gap`` points: the
    close ones, where the choice of play turns on small differences."""
    g = np.repeat(np.arange(s.decisions), np.diff(s.starts))
    order = np.lexsort((-s.y, g))  # per decision, the targets from the largest
    top = s.y[order[s.starts[:-1]]]
    second = s.y[order[s.starts[:-1] + 1]]
    return np.flatnonzero(top - second < gap).astype(np.int64)


def train(arm: Arm, rules: np.ndarray, s: BL.Samples, epochs: int, lr: float, l2: float,
          seed: int, gap: float = 0.25) -> tuple[Net, list[float]]:  # fmt: skip
    """The arm's model (a fitted arm, not ``file:``) trained on the samples ``s``: the
    package's ``fit`` for one layer without tactics, the shipped recipe; else fit's passes
    through the package's descent, or this script's with a second layer; with ``close``,
    each pass visiting the close decisions (:func:`close_decisions` of ``gap``) twice.
    Returns it and each pass's loss."""
    width = WIDTH if arm.tactics else s.idx.shape[1]  # int16, as the samples: 2 bytes a slot
    idx = np.empty((s.idx.shape[0], width), dtype=np.int16)
    k = np.empty(s.idx.shape[0], dtype=np.int64)
    rows_features(rules, s.idx, s.k, arm.tactics, idx, k)
    if arm.second == 0 and not arm.tactics and not arm.close:
        model, curve = fit(BL.Samples(idx, k, s.dense, s.y, s.starts), arm.hidden, epochs, lr,
                           l2, seed)  # fmt: skip
        return Net(model, np.zeros((arm.hidden, 0)), np.zeros(0), np.zeros(0)), curve
    # fit's passes (the order drawn from seed, the step halved each pass), with the close
    # decisions visited twice (+c), through the package's descent or, with a second
    # layer, through net_pass
    net = new_net(N_BASE + (N_TACTICS if arm.tactics else 0), arm.hidden, arm.second, seed)
    visits = np.arange(s.decisions, dtype=np.int64)
    if arm.close:
        visits = np.concatenate([visits, close_decisions(s, gap)])
    g = np.random.default_rng(seed)
    curve = []
    for e in range(epochs):
        order = g.permutation(visits)
        step = lr * 0.5**e
        if arm.second:
            loss = net_pass(net.base, net.w2, net.b2, net.w3, idx, k, s.dense, s.y, s.starts,
                            order, step, l2)  # fmt: skip
        else:
            loss = KL.sgd_pass(net.base, idx, k, s.dense, s.y, s.starts, order, step, l2,
                               KL.LOSS_CENTRED, 1.0)  # fmt: skip
        curve.append(float(loss))
    return net, curve


def values(arm: Arm, net: Net, rules: np.ndarray, states: np.ndarray,
           plays: np.ndarray) -> np.ndarray:  # fmt: skip
    """The arm's value of each kept play (``plays[r]`` at ``states[r]``)."""
    n = states.shape[0]
    raw = np.empty((n, KL.MAX_ACTIVE), dtype=np.int16)
    raw_k = np.empty(n, dtype=np.int64)
    dense = np.empty((n, KL.N_DENSE))
    one_idx = np.empty((1, KL.MAX_ACTIVE), dtype=np.int16)
    one_k, one_d = np.empty(1, dtype=np.int64), np.empty((1, KL.N_DENSE))
    for r in range(n):
        KL.state_features(states[r], rules, plays[r, :1].copy(), plays[r, 1:].copy(), 1,
                          one_idx, one_k, one_d)  # fmt: skip
        raw[r], raw_k[r], dense[r] = one_idx[0], one_k[0], one_d[0]
    idx = np.empty((n, WIDTH), dtype=np.int64)
    k = np.empty(n, dtype=np.int64)
    rows_features(rules, raw.astype(np.int64), raw_k, arm.tactics, idx, k)
    out = np.empty(n)
    net_values(net.base, net.w2, net.b2, net.w3, idx, k, dense, out)
    return out


def main(argv: list[str] | None = None) -> int:
    """Fit each arm and print its error against the labels' expectation."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--decisions", required=True, metavar="DEC.npz")
    ap.add_argument("--data", required=True, nargs="+", metavar="ROLLOUTS.npz")
    ap.add_argument("--arm", required=True, action="append")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--l2", type=float, default=1e-5)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--take", type=int, default=0, metavar="N", help="the first N decisions only")
    ap.add_argument("--gap", type=float, default=0.25, help="+c: a close decision's gap")
    ap.add_argument("--out-dir", type=Path, help="keep each fitted one-layer model here (.npy)")
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    try:
        arms = [Arm.parse(x) for x in a.arm]
        files = {arm.path: load_model(arm.path) for arm in arms if arm.path}
        for arm in arms:
            if arm.path and int(files[arm.path][KL.M_SPARSE]) != N_BASE:
                raise ValueError(f"--arm {arm.name}: a model of the shipped layout")
    except (ValueError, FileError) as e:
        ap.error(str(e))
    if a.epochs < 1 or a.lr <= 0 or a.l2 < 0 or a.take < 0 or a.gap <= 0:
        ap.error("--epochs at least 1, --lr and --gap above 0, --l2 and --take at least 0")
    rules = Rules.make("scopa").to_array()
    try:
        with np.load(a.decisions) as z:
            x, states, plays = z["x"].copy(), z["states"], z["plays"]
            worlds, big = int(z["worlds"]), int(z["big"])
    except (OSError, KeyError, ValueError) as e:
        ap.error(f"--decisions {a.decisions}: not a file of label_ceiling.py --save ({e})")
    try:
        s = load_samples(list(a.data))
    except (FileError, ValueError) as e:
        ap.error(f"--data: {e}")
    s = s.take(np.flatnonzero(plays_made(s) <= 30))
    if a.take:
        s = s.take(np.arange(min(a.take, s.decisions)))
    g = x[:, 0].astype(np.int64)
    cnt = np.bincount(g)
    w = x[:, 3] - (np.bincount(g, x[:, 3]) / cnt)[g]
    results, first = [], None
    for arm in arms:
        t = time.thread_time()
        if arm.path:
            model = files[arm.path]
            h = int(model[KL.M_HIDDEN])
            net, curve = Net(model, np.zeros((h, 0)), np.zeros(0), np.zeros(0)), []
        else:
            net, curve = train(arm, rules, s, a.epochs, a.lr, a.l2, a.seed, a.gap)
        cpu = time.thread_time() - t
        if a.out_dir and curve and arm.second == 0 and not arm.tactics:
            a.out_dir.mkdir(parents=True, exist_ok=True)
            np.save(a.out_dir / f"{arm.name.replace(':', '-')}.npy", net.base)
        x[:, 4] = values(arm, net, rules, states, plays)
        res = label_errors(x, worlds, big)
        f = x[:, 4] - (np.bincount(g, x[:, 4]) / cnt)[g]
        per = np.bincount(g, (f - w) ** 2)
        row = {"arm": arm.name, "decisions": s.decisions, "loss": curve,
               "fit_cpu_seconds": round(cpu, 1), "model_error_big": res["model_error_big"],
               "model_error_big_ci": res["model_error_big_ci"]}  # fmt: skip
        if first is None:
            first = per
        else:
            d = per - first
            m = d.sum() / cnt.sum()
            half = 1.96 * np.sqrt(len(d)) * np.std(d - cnt * m) / cnt.sum()
            row["less_first"], row["less_first_ci"] = m, [m - half, m + half]
        results.append(row)
        ci = row.get("less_first_ci")
        print(f"{arm.name:>12}: error {res['model_error_big']:.5f} "
              f"[{res['model_error_big_ci'][0]:.5f}, {res['model_error_big_ci'][1]:.5f}]"
              + (f", less the first {row['less_first']:+.5f} [{ci[0]:+.5f}, {ci[1]:+.5f}]"
                 if ci else "")
              + (f", loss {curve[-1]:.5f}, fit {cpu:.0f} s CPU" if curve else ""))  # fmt: skip
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(results, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
