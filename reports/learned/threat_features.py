"""Do features of the next seat's reply help the learned network fit its labels?

A diagnostic of the results page (section "Imitating `best`'s decisions", the paragraph
on the reply's features), not part of the package. It adds 20 sparse features to the
samples of ``python -m scopa_sim.experiments.train`` (Scopa, 2 players), at 310..329
in place of the evidence block (which is dropped), computed from each row's own
features (the seat's information after its play):

* ``310 + v - 1``: a card of value ``v`` could capture from the table after the play,
  and a card of value ``v`` is unseen (not in the seat's hand, on the table or in a pile);
* ``320 + v - 1``: that capture would take the whole table (a scopa), and such a card is
  unseen;

then fits a model with the shipped fit's settings (``fit --seed 3 --hidden 64 --epochs 6
--lr 0.01 --l2 1e-5 --max-plays 30``) and prints its loss by pass; ``loss`` prints the
centred loss (``sgd_pass``'s) of models on held-out samples, each on its own features::

    python reports/learned/threat_features.py fit OUT.npy DATA.npz [DATA.npz ...]
    python reports/learned/threat_features.py loss HELD.npz MODEL.npy [MODEL.npy ...]
"""

from __future__ import annotations

import sys
import time

import numpy as np

from scopa_sim._engine import learned as KL
from scopa_sim._engine.layout import VALUE, VALUE_MASK
from scopa_sim.bots import learned as BL
from scopa_sim.errors import ScopaError
from scopa_sim.sim.training import load_model, load_samples, plays_made

#: The sparse size of a model that reads the 20 features.
SPARSE = KL.N_SPARSE_BASE + 20
_EMPTY = 1 << 20  # sorts after every feature


def _block(idx: np.ndarray, offset: int) -> np.ndarray:
    """Per row, the 40-card mask of the one-hot block at ``offset``."""
    mask = np.zeros(idx.shape[0], np.int64)
    for j in range(idx.shape[1]):
        c = idx[:, j]
        inside = (c >= offset) & (c < offset + 40)
        mask |= np.where(inside, np.left_shift(1, np.where(inside, c - offset, 0)), 0)
    return mask


def _sorted(x: np.ndarray) -> np.ndarray:
    """The rows' features ascending, the empty slots (-1) last."""
    o = np.sort(np.where(x < 0, _EMPTY, x), axis=1)
    return np.where(o == _EMPTY, -1, o)


def base(s: BL.Samples) -> BL.Samples:
    """The samples with the shipped layout's features only (the evidence dropped)."""
    x = np.where(s.idx >= KL.N_SPARSE_BASE, -1, s.idx.astype(np.int64))
    k = (x >= 0).sum(axis=1)
    return BL.Samples(_sorted(x).astype(s.idx.dtype), k.astype(s.k.dtype), s.dense, s.y, s.starts)


def with_reply(s: BL.Samples, chunk: int = 400_000) -> BL.Samples:
    """The samples in the shipped layout plus the 20 features of the next seat's reply."""
    b = base(s)
    idx = b.idx.astype(np.int64)
    k = b.k.astype(np.int64)
    for a in range(0, idx.shape[0], chunk):
        x = idx[a : a + chunk]
        kk = k[a : a + chunk]
        seen = np.zeros(x.shape[0], np.int64)
        for off in (KL.F_HAND, KL.F_TABLE, KL.F_MINE, KL.F_NEXT, KL.F_OTHERS):
            seen |= _block(x, off)
        table = _block(x, KL.F_TABLE)
        unseen = ((1 << 40) - 1) & ~seen
        reach = np.ones(x.shape[0], np.int64)  # subset sums of the table, bit s: sum s
        total = np.zeros(x.shape[0], np.int64)
        for c in range(40):
            on = ((table >> c) & 1).astype(bool)
            reach = np.where(on, (reach | (reach << VALUE[c])) & 0xFFFF, reach)
            total += np.where(on, VALUE[c], 0)
        single = (table & (table - 1)) == 0
        rows = np.arange(x.shape[0])
        for v in range(1, 11):  # ascending features: every capture bit, then every scopa bit
            held = (unseen & VALUE_MASK[v]) != 0
            captures = ((reach >> v) & 1).astype(bool) & (table != 0)
            on = captures & held
            x[rows[on], kk[on]] = KL.N_SPARSE_BASE + v - 1
            kk += on
        for v in range(1, 11):
            held = (unseen & VALUE_MASK[v]) != 0
            match = (table & VALUE_MASK[v]) != 0
            on = (total == v) & (table != 0) & (~match | single) & held
            x[rows[on], kk[on]] = KL.N_SPARSE_BASE + 10 + v - 1
            kk += on
    return BL.Samples(idx.astype(s.idx.dtype), k.astype(s.k.dtype), s.dense, s.y, s.starts)


def new_model(hidden: int, seed: int, scale: float = 0.05) -> np.ndarray:
    """:func:`scopa_sim._engine.learned.new_model` for :data:`SPARSE` features."""
    m = np.zeros(KL.model_size(hidden, SPARSE))
    m[KL.M_VERSION], m[KL.M_SPARSE], m[KL.M_DENSE], m[KL.M_HIDDEN] = (
        KL.VERSION, SPARSE, KL.N_DENSE, hidden,
    )  # fmt: skip
    o = KL.model_offsets(m)
    m[o[1] + KL.D_EXPERT] = 1.0
    m[o[3] : o[5]] = np.random.default_rng(seed).normal(0.0, scale, o[5] - o[3])
    m[o[5] : o[6]] = 0.1
    return m


def centred_loss(model: np.ndarray, s: BL.Samples) -> float:
    """The mean centred loss per row of ``model`` on ``s`` (decisions of two plays or more)."""
    acc = np.empty(max(1, int(model[KL.M_HIDDEN])))
    f = np.array(
        [KL.model_forward(model, s.idx[r], s.k[r], s.dense[r], acc) for r in range(len(s.k))]
    )
    total, n = 0.0, 0
    for a, b in zip(s.starts[:-1], s.starts[1:], strict=True):
        if b - a >= 2:
            e = (f[a:b] - f[a:b].mean()) - (s.y[a:b] - s.y[a:b].mean())
            total += 0.5 * float(e @ e)
            n += b - a
    return total / n


def _before_last(paths: list[str]) -> BL.Samples:
    s = load_samples(paths)
    return s.take(np.flatnonzero(plays_made(s) <= 30))


def main(argv: list[str]) -> None:
    if len(argv) >= 3 and argv[0] == "fit":
        s = with_reply(_before_last(argv[2:]))
        m, g = new_model(64, 3), np.random.default_rng(3)
        t = time.process_time()
        curve = [
            BL.sgd_pass(m, s, g.permutation(s.decisions), 0.01 * 0.5**e, 1e-5) for e in range(6)
        ]
        np.save(argv[1], m)
        print(f"{s.decisions} decisions, loss by pass {[round(x, 5) for x in curve]}, "
              f"{time.process_time() - t:.1f} s CPU")  # fmt: skip
    elif len(argv) >= 3 and argv[0] == "loss":
        s = _before_last([argv[1]])
        for path in argv[2:]:
            m = load_model(path)
            if (
                len(m) <= KL.M_HEAD
                or int(m[KL.M_VERSION]) != KL.VERSION
                or int(m[KL.M_SPARSE]) not in (KL.N_SPARSE_BASE, SPARSE)
            ):
                sys.exit(f"threat_features.py: {path}: not a Scopa model of 310 or 330 inputs")
            own = with_reply(s) if int(m[KL.M_SPARSE]) == SPARSE else base(s)
            print(
                f"{path}: held-out centred loss {centred_loss(m, own):.6f}, {s.decisions} decisions"
            )
    else:
        sys.exit("usage: threat_features.py fit OUT.npy DATA.npz ... | loss HELD.npz MODEL.npy ...")


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except (ScopaError, OSError, ValueError) as e:  # a file missing or not what it should be
        sys.exit(f"threat_features.py: {e}")
