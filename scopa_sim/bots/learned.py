"""The learned policy's face: its model vectors, the features of a position's plays, the
harness that plays and samples hands with it, and the bot that plays it.

The kernels live in :mod:`scopa_sim._engine.learned` (the features, the forward pass, the
choice, the harness, one pass of training); this module gives them to the layers above
(the training programme in :mod:`scopa_sim.experiments.train`) on plain numpy arrays.
A model is a float64 vector (:func:`new_model`); its digest (:func:`model_digest`) names
its weights.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from scopa_sim import _engine as K
from scopa_sim._engine import learned as KL
from scopa_sim.game.infoset import InfoSet
from scopa_sim.game.play import Play
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import HandState
from scopa_sim.stats.estimate import Estimate

from .base import KERNEL_CODES, Bot, PlayStats, _mask63

__all__ = [
    "EXACT",
    "F_PLAYS",
    "LEARNED",
    "LOSS_CENTRED",
    "LOSS_SOFTMAX",
    "MAX_ACTIVE",
    "N_DENSE",
    "N_SPARSE",
    "LearnedBot",
    "Samples",
    "kind_of",
    "model_digest",
    "new_model",
    "paired_margin",
    "play_features",
    "play_hands",
    "rollout_samples",
    "sgd_pass",
]

LEARNED = KL.LEARNED
EXACT = KL.EXACT
LOSS_CENTRED = KL.LOSS_CENTRED
LOSS_SOFTMAX = KL.LOSS_SOFTMAX
MAX_ACTIVE = KL.MAX_ACTIVE
F_PLAYS = KL.F_PLAYS
N_DENSE = KL.N_DENSE
N_SPARSE = KL.N_SPARSE


def new_model(hidden: int, seed: int) -> np.ndarray:
    """A model of hidden width ``hidden`` (0: linear) that plays as the expert until
    trained (:func:`scopa_sim._engine.learned.new_model`), its first layer drawn from
    ``seed``.

    Raises:
        ValueError: ``hidden`` below 0.
    """
    if hidden < 0:
        raise ValueError(f"hidden must be >= 0, got {hidden}")
    return KL.new_model(hidden, seed)


def model_digest(model: np.ndarray) -> str:
    """The SHA-256 of a model vector's bytes (little-endian float64), hex."""
    return hashlib.sha256(np.ascontiguousarray(model, dtype="<f8").tobytes()).hexdigest()


def kind_of(policy: str) -> int:
    """A seat's kind in the harness: ``learned`` (:data:`LEARNED`) or a kernel policy's
    code, plus :data:`EXACT` when the name ends in ``+exact`` (the exact solver's play
    where the seat's information set is one world).

    Raises:
        ValueError: another name.
    """
    name, plus, rest = policy.partition("+")
    extra = EXACT if plus and rest == "exact" else 0
    if plus and not extra:
        raise ValueError(f"a harness seat's modifier is +exact: {policy!r}")
    if name == "learned":
        return LEARNED + extra
    if name not in KERNEL_CODES:
        raise ValueError(f"a harness seat plays one of {', '.join(KERNEL_CODES)}: {policy!r}")
    return KERNEL_CODES[name] + extra


def _models(model: np.ndarray | None, players: int) -> np.ndarray:
    """The per-seat model rows the harness kernels take (one row: a model is shared)."""
    m = new_model(0, 0) if model is None else np.ascontiguousarray(model, dtype=np.float64)
    return np.ascontiguousarray(np.broadcast_to(m, (players, m.shape[0])))


def play_hands(
    rules: Rules, kinds: list[int], model: np.ndarray | None, seed: int, first: int, count: int
) -> np.ndarray:
    """The points of each side (``[hand, side]``) of hands ``first .. first + count - 1``
    of the harness run ``seed``, one kind per seat (:func:`kind_of`), the ``learned``
    seats playing ``model`` (:func:`scopa_sim._engine.learned.play_hands`)."""
    out = np.zeros((count, 4), dtype=np.int64)
    ks = np.array(kinds, dtype=np.int64)
    KL.play_hands(rules.to_array(), ks, _models(model, rules.players), seed, first, count, out)
    return out[:, : rules.sides]


@dataclass
class Samples:
    """Training samples grouped by decision: row ``i`` is a play, its active sparse
    features ``idx[i, :k[i]]`` and dense ones ``dense[i]``, its target ``y[i]``; decision
    ``g`` holds rows ``starts[g] .. starts[g + 1] - 1``."""

    idx: np.ndarray
    k: np.ndarray
    dense: np.ndarray
    y: np.ndarray
    starts: np.ndarray

    @property
    def decisions(self) -> int:
        """The number of decisions."""
        return int(self.starts.shape[0] - 1)

    @classmethod
    def empty(cls, rows: int) -> Samples:
        """Room for ``rows`` rows (``starts`` to be set)."""
        return cls(
            np.empty((rows, MAX_ACTIVE), dtype=np.int16),
            np.empty(rows, dtype=np.int64),
            np.empty((rows, N_DENSE)),
            np.empty(rows),
            np.zeros(1, dtype=np.int64),
        )

    def take(self, decisions: np.ndarray) -> Samples:
        """The samples of the given decisions, in that order."""
        lo, hi = self.starts[decisions], self.starts[decisions + 1]
        rows = np.concatenate([np.arange(a, b) for a, b in zip(lo, hi, strict=True)])
        starts = np.concatenate([[0], np.cumsum(hi - lo)]).astype(np.int64)
        return Samples(self.idx[rows], self.k[rows], self.dense[rows], self.y[rows], starts)

    @classmethod
    def join(cls, parts: list[Samples]) -> Samples:
        """The decisions of ``parts`` one after the other."""
        starts = [np.zeros(1, dtype=np.int64)]
        at = 0
        for p in parts:
            starts.append(p.starts[1:] + at)
            at += int(p.starts[-1])
        return cls(
            np.concatenate([p.idx for p in parts]),
            np.concatenate([p.k for p in parts]),
            np.concatenate([p.dense for p in parts]),
            np.concatenate([p.y for p in parts]),
            np.concatenate(starts),
        )


def rollout_samples(
    rules: Rules,
    kinds: list[int],
    cont: list[int],
    model: np.ndarray | None,
    seed: int,
    first: int,
    count: int,
    rate: float,
    worlds: int,
) -> Samples:
    """Samples of hands ``first .. first + count - 1`` played by ``kinds``: at a share
    ``rate`` of the decisions, each play's target is the hand's final margin for the
    deciding seat when the kinds ``cont`` finish it, in the true deal (``worlds = 0``)
    or averaged over ``worlds`` worlds consistent with the seat's information
    (:func:`scopa_sim._engine.learned.rollout_samples`, called again from the first hand
    not done when its rows run out: the hands are independent)."""
    models = _models(model, rules.players)
    ks, cs = np.array(kinds, dtype=np.int64), np.array(cont, dtype=np.int64)
    parts: list[Samples] = []
    at, end = first, first + count
    while at < end:
        left = end - at
        cap = int(left * 40 * rate * 4) + 40 * 64 + 1
        s = Samples.empty(cap)
        group = np.empty(cap, dtype=np.int64)
        done, rows, groups = KL.rollout_samples(
            rules.to_array(), ks, models, cs, seed, at, left, rate, worlds, s.idx, s.k,
            s.dense, s.y, group,
        )  # fmt: skip
        starts = np.searchsorted(group[:rows], np.arange(groups + 1)).astype(np.int64)
        parts.append(Samples(s.idx[:rows], s.k[:rows], s.dense[:rows], s.y[:rows], starts))
        at += done
    return parts[0] if len(parts) == 1 else Samples.join(parts)


def play_features(state: HandState, plays: list[Play]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The features of ``plays`` (legal) for the seat to play in ``state``, from its
    information set: ``(idx, k, dense)`` as :class:`Samples` holds them."""
    n = len(plays)
    idx = np.empty((n, MAX_ACTIVE), dtype=np.int16)
    k = np.empty(n, dtype=np.int64)
    dense = np.empty((n, N_DENSE))
    cards = np.array([p.card for p in plays], dtype=np.int64)
    takes = np.array([p.take for p in plays], dtype=np.int64)
    KL.state_features(InfoSet(state).vector, state._r, cards, takes, n, idx, k, dense)
    return idx, k, dense


def sgd_pass(
    model: np.ndarray,
    samples: Samples,
    order: np.ndarray,
    lr: float,
    l2: float,
    loss: int = LOSS_CENTRED,
    tau: float = 1.0,
) -> float:
    """One pass of training over the decisions ``order`` of ``samples``, ``model`` updated
    in place (:func:`scopa_sim._engine.learned.sgd_pass`); returns the mean loss."""
    s = samples
    order = order.astype(np.int64)
    return float(KL.sgd_pass(model, s.idx, s.k, s.dense, s.y, s.starts, order, lr, l2, loss, tau))


class LearnedBot(Bot):
    """The learned policy as a bot: each legal play valued by the model from the seat's
    information set, the best chosen (ties: a uniform draw from the move's seed); with
    ``exact``, the exact solver's best play where the information set is one world.
    ``analyse`` gives the model's values as exact estimates (``n`` 1), the chosen play
    first."""

    def __init__(self, model: np.ndarray, name: str = "learned", exact: bool = False) -> None:
        """A bot playing ``model`` (a model vector of :func:`new_model`'s layout), with the
        exact endgame when ``exact``.

        Raises:
            ValueError: a vector of another layout or length.
        """
        m = np.ascontiguousarray(model, dtype=np.float64)
        if m.ndim != 1 or m.shape[0] < KL.M_HEAD or m[KL.M_VERSION] != KL.VERSION:
            raise ValueError("not a learned model vector of this version")
        if m.shape[0] != KL.model_size(int(m[KL.M_HIDDEN])):
            raise ValueError("a learned model vector of the wrong length")
        self.model = m
        self.name = name + ("+exact" if exact else "")
        self._kind = LEARNED + (EXACT if exact else 0)
        self._acc = np.empty(max(1, int(m[KL.M_HIDDEN])))
        self._idx = np.empty(MAX_ACTIVE, dtype=np.int64)
        self._dense = np.empty(N_DENSE)
        self._xs = np.empty(K.EXPERT_SCRATCH)

    def analyse(self, state: HandState, seed: int) -> list[PlayStats]:
        """Every legal play with the model's value, the chosen one first."""
        info = InfoSet(state)
        vec, r = info.vector, state._r
        bc = np.empty(K.MAX_PLAYS, dtype=np.int64)
        bt = np.empty(K.MAX_PLAYS, dtype=np.int64)
        n = int(K.legal_plays(vec, r, bc, bt, np.empty(K.SCRATCH, dtype=np.int64)))
        rng = K.new_rng(K.derive_seed(_mask63(seed), 5, 0, 0))
        pick = int(KL.harness_choice(vec, r, self._kind, self.model, rng, bc, bt, n))
        out = []
        for i in range(n):
            v = float(KL.learned_value(vec, r, self.model, bc[i], bt[i], self._idx, self._dense,
                                       self._acc, self._xs))  # fmt: skip
            out.append(
                (
                    i != pick,
                    -v,
                    i,
                    PlayStats(
                        Play(int(bc[i]), int(bt[i])), Estimate(v, v, v, 1, "exact"), i == pick
                    ),
                )
            )
        return [s for *_, s in sorted(out, key=lambda t: t[:3])]


def paired_margin(points_a_first: np.ndarray, points_a_second: np.ndarray) -> np.ndarray:
    """Per deal pair, the mean margin of the policy that sat at seat 0 in the first run
    and at seat 1 in the second (two sides)."""
    a = points_a_first[:, 0] - points_a_first[:, 1]
    b = points_a_second[:, 1] - points_a_second[:, 0]
    return (a + b) / 2.0
