"""The learned policy's face: its model vectors, the features of a position's plays, the
harness that plays and samples hands with it, and the bot that plays it.

The kernels live in :mod:`scopa_sim._engine.learned` (the features, the forward pass, the
choice, the harness, one pass of training) and, under Cirulla's rules (RULES.md §10, with
their own features and model layout), :mod:`scopa_sim._engine.learned_cirulla`; this
module gives them to the layers above (the training programme in
:mod:`scopa_sim.experiments.train`) on plain numpy arrays.
A model is a float64 vector (:func:`new_model`); its digest (:func:`model_digest`) names
its weights.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from scopa_sim import _engine as K
from scopa_sim._engine import learned as KL
from scopa_sim._engine import learned_cirulla as KLC
from scopa_sim.errors import InputError
from scopa_sim.game.infoset import InfoSet
from scopa_sim.game.play import Play
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import HandState
from scopa_sim.stats.estimate import Estimate

from .base import KERNEL_CODES, Bot, PlayStats, _mask63

__all__ = [
    "EVIDENCE_RHO",
    "EXACT",
    "F_PLAYS",
    "LEARNED",
    "LOSS_CENTRED",
    "LOSS_SOFTMAX",
    "MAX_ACTIVE",
    "MAX_WORLDS",
    "N_DENSE",
    "N_DENSE_CIRULLA",
    "N_SPARSE",
    "N_SPARSE_EVIDENCE",
    "LearnedBot",
    "Samples",
    "is_cirulla_model",
    "kind_of",
    "layout_of",
    "model_digest",
    "model_size",
    "new_model",
    "paired_margin",
    "play_features",
    "play_hands",
    "rollout_samples",
    "sgd_pass",
    "worlds_kind",
]

LEARNED = KL.LEARNED
EXACT = KL.EXACT
LOSS_CENTRED = KL.LOSS_CENTRED
LOSS_SOFTMAX = KL.LOSS_SOFTMAX
MAX_ACTIVE = KL.MAX_ACTIVE
F_PLAYS = KL.F_PLAYS
N_DENSE = KL.N_DENSE
#: The dense features' count of Cirulla's layout (:mod:`scopa_sim._engine.learned_cirulla`).
N_DENSE_CIRULLA = KLC.N_DENSE
#: The sparse features of the shipped models (the layout :func:`layout_of` names).
N_SPARSE = KL.N_SPARSE_BASE
#: The sparse features with the next seat's evidence (``new_model(evidence=True)``).
N_SPARSE_EVIDENCE = KL.N_SPARSE
#: The most worlds of ``learned:worlds=`` (:func:`worlds_kind`).
MAX_WORLDS = KL.MAX_WORLDS
#: The weight of a world per card of the other hands that their evidence marks
#: (:func:`rollout_samples`' ``rho``), fixed before any fit from the ``evidence``
#: diagnostic (``experiments.train evidence --hands 20000 --seed 5``): a marked value is
#: in the next seat's hand 0.0586 of the time against the uniform prior's 0.1115, and
#: 0.0586 / 0.1115 = 0.526, rounded to 0.53.
EVIDENCE_RHO = 0.53


def new_model(hidden: int, seed: int, cirulla: bool = False, evidence: bool = False) -> np.ndarray:
    """A model of hidden width ``hidden`` (0: linear) that plays as the expert until
    trained (:func:`scopa_sim._engine.learned.new_model`), its first layer drawn from
    ``seed``; with ``cirulla``, a model of Cirulla's layout
    (:func:`scopa_sim._engine.learned_cirulla.new_model_cirulla`); with ``evidence``, a
    Scopa model that also reads the next seat's evidence (:data:`N_SPARSE_EVIDENCE`
    sparse features; played right only by the harness kernels and the bots, whose step
    kernels keep the evidence, not by the fused loops or the searches).

    Raises:
        ValueError: ``hidden`` below 0, or ``evidence`` with ``cirulla``.
    """
    if hidden < 0:
        raise ValueError(f"hidden must be >= 0, got {hidden}")
    if cirulla:
        if evidence:
            raise ValueError("Cirulla's models have no evidence features")
        return KLC.new_model_cirulla(hidden, seed)
    return KL.new_model(hidden, seed, sparse=N_SPARSE_EVIDENCE if evidence else N_SPARSE)


def is_cirulla_model(model: np.ndarray) -> bool:
    """Whether ``model`` is a model vector of Cirulla's layout (its version)."""
    return model.shape[0] > KL.M_VERSION and int(model[KL.M_VERSION]) == KLC.VERSION


def layout_of(rules: Rules) -> tuple[int, int, int]:
    """The model layout ``rules`` are played with: ``(version, sparse, dense)`` features,
    Cirulla's (:mod:`scopa_sim._engine.learned_cirulla`) or Scopa's."""
    if rules.cirulla:
        return KLC.VERSION, KLC.N_SPARSE, KLC.N_DENSE
    return KL.VERSION, KL.N_SPARSE_BASE, KL.N_DENSE


def model_size(rules: Rules, hidden: int) -> int:
    """The length of a model vector of hidden width ``hidden`` for ``rules``' layout."""
    return KLC.model_size_cirulla(hidden) if rules.cirulla else KL.model_size(hidden)


def model_digest(model: np.ndarray) -> str:
    """The SHA-256 of a model vector's bytes (little-endian float64), hex."""
    return hashlib.sha256(np.ascontiguousarray(model, dtype="<f8").tobytes()).hexdigest()


def kind_of(policy: str) -> int:
    """A seat's kind in the harness: ``learned`` (:data:`LEARNED`) or a kernel policy's
    code, plus :data:`EXACT` when the name ends in ``+exact`` (the exact solver's play
    where the seat's information set is one world); ``learned:worlds=K`` is ``learned``
    with the exact endgame and the determinized exact search of ``K`` worlds in the
    round before the last (:func:`worlds_kind`).

    Raises:
        ValueError: another name, or ``worlds`` outside [0, MAX_WORLDS].
    """
    if policy.startswith("learned:"):
        key, _, value = policy.partition(":")[2].partition("=")
        if key != "worlds" or not value.isdecimal():
            raise ValueError(f"a harness seat's learned parameter is worlds=K: {policy!r}")
        return worlds_kind(int(value))
    name, plus, rest = policy.partition("+")
    extra = EXACT if plus and rest == "exact" else 0
    if plus and not extra:
        raise ValueError(f"a harness seat's modifier is +exact: {policy!r}")
    if name == "learned":
        return LEARNED + extra
    if name not in KERNEL_CODES:
        raise ValueError(f"a harness seat plays one of {', '.join(KERNEL_CODES)}: {policy!r}")
    return KERNEL_CODES[name] + extra


def worlds_kind(worlds: int) -> int:
    """The harness kind of ``learned:worlds=worlds``: the model with the exact endgame
    and, in the round before the last of a 2-player hand, the determinized exact search
    of ``worlds`` worlds (:func:`scopa_sim._engine.learned.worlds_choice`; 0: none).

    Raises:
        ValueError: ``worlds`` outside [0, MAX_WORLDS].
    """
    if not 0 <= worlds <= KL.MAX_WORLDS:
        raise ValueError(f"worlds must be in [0, {KL.MAX_WORLDS}], got {worlds}")
    return LEARNED + EXACT + KL.WORLDS_UNIT * worlds


def _models(model: np.ndarray | None, players: int, cirulla: bool = False) -> np.ndarray:
    """The per-seat model rows the harness kernels take (one row: a model is shared)."""
    m = new_model(0, 0, cirulla) if model is None else np.ascontiguousarray(model, np.float64)
    return np.ascontiguousarray(np.broadcast_to(m, (players, m.shape[0])))


def play_hands(
    rules: Rules, kinds: list[int], model: np.ndarray | None, seed: int, first: int, count: int
) -> np.ndarray:
    """The points of each side (``[hand, side]``) of hands ``first .. first + count - 1``
    of the harness run ``seed``, one kind per seat (:func:`kind_of`), the ``learned``
    seats playing ``model`` (:func:`scopa_sim._engine.learned.play_hands`, or under
    Cirulla's rules :func:`scopa_sim._engine.learned_cirulla.play_hands_cirulla`)."""
    out = np.zeros((count, 4), dtype=np.int64)
    ks = np.array(kinds, dtype=np.int64)
    models = _models(model, rules.players, rules.cirulla)
    if rules.cirulla:
        KLC.play_hands_cirulla(rules.loop_array(), ks, models, seed, first, count, out)
    else:
        KL.play_hands(rules.to_array(), ks, models, seed, first, count, out)
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
    def empty(cls, rows: int, dense: int = N_DENSE) -> Samples:
        """Room for ``rows`` rows of ``dense`` dense features (``starts`` to be set)."""
        return cls(
            np.empty((rows, MAX_ACTIVE), dtype=np.int16),
            np.empty(rows, dtype=np.int64),
            np.empty((rows, dense)),
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
    rho: float = 1.0,
) -> Samples:
    """Samples of hands ``first .. first + count - 1`` played by ``kinds``: at a share
    ``rate`` of the decisions, each play's target is the hand's final margin for the
    deciding seat when the kinds ``cont`` finish it, in the true deal (``worlds = 0``)
    or averaged over ``worlds`` worlds consistent with the seat's information
    (:func:`scopa_sim._engine.learned.rollout_samples`, under Cirulla's rules
    :func:`scopa_sim._engine.learned_cirulla.rollout_samples_cirulla`, called again from
    the first hand not done when its rows run out: the hands are independent).  ``rho``
    (Scopa's rules, ``worlds > 0``): each world weighed by ``rho`` to the number of cards
    of the other hands whose value their seat's evidence marks
    (:func:`scopa_sim._engine.determinize.evidence_world`; 1: the uniform worlds,
    :data:`EVIDENCE_RHO`: the belief measured by the ``evidence`` diagnostic).

    Raises:
        InputError: ``rho`` outside [0, 1], or below 1 under Cirulla's rules or with
            ``worlds = 0``."""
    if not 0.0 <= rho <= 1.0:
        raise InputError(f"rho must be in [0, 1], got {rho}")
    if rho < 1.0 and (rules.cirulla or worlds == 0):
        raise InputError("evidence-weighted worlds need Scopa's rules and worlds > 0")
    models = _models(model, rules.players, rules.cirulla)
    ks, cs = np.array(kinds, dtype=np.int64), np.array(cont, dtype=np.int64)
    r = rules.loop_array() if rules.cirulla else rules.to_array()
    parts: list[Samples] = []
    at, end = first, first + count
    while at < end:
        left = end - at
        cap = int(left * 40 * rate * 4) + 40 * 64 + 1
        s = Samples.empty(cap, layout_of(rules)[2])
        group = np.empty(cap, dtype=np.int64)
        out = (s.idx, s.k, s.dense, s.y, group)
        if rules.cirulla:
            got = KLC.rollout_samples_cirulla(r, ks, models, cs, seed, at, left, rate, worlds, *out)
        else:
            got = KL.rollout_samples(r, ks, models, cs, seed, at, left, rate, worlds, rho, *out)
        done, rows, groups = got
        starts = np.searchsorted(group[:rows], np.arange(groups + 1)).astype(np.int64)
        parts.append(Samples(s.idx[:rows], s.k[:rows], s.dense[:rows], s.y[:rows], starts))
        at += done
    return parts[0] if len(parts) == 1 else Samples.join(parts)


def play_features(state: HandState, plays: list[Play]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The features of ``plays`` (legal) for the seat to play in ``state``, from its
    information set: ``(idx, k, dense)`` as :class:`Samples` holds them (under Cirulla's
    rules, their features: :func:`scopa_sim._engine.learned_cirulla.play_features_cirulla`,
    which read the seat's view only, so the state itself is given)."""
    n = len(plays)
    idx = np.empty((n, MAX_ACTIVE), dtype=np.int16)
    k = np.empty(n, dtype=np.int64)
    dense = np.empty((n, layout_of(state.rules)[2]))
    cards = np.array([p.card for p in plays], dtype=np.int64)
    takes = np.array([p.take for p in plays], dtype=np.int64)
    if state.rules.cirulla:
        metas = np.array([p.meta for p in plays], dtype=np.int64)
        vec = state._vec.copy()
        KLC.state_features_cirulla(vec, state.rules._packed, cards, takes, metas, n, idx, k,
                                   dense)  # fmt: skip
        return idx, k, dense
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
    in place (:func:`scopa_sim._engine.learned.sgd_pass`, a Scopa or a Cirulla model);
    returns the mean loss."""
    s = samples
    order = order.astype(np.int64)
    return float(KL.sgd_pass(model, s.idx, s.k, s.dense, s.y, s.starts, order, lr, l2, loss, tau))


class LearnedBot(Bot):
    """The learned policy as a bot: each legal play valued by the model from the seat's
    information set, the best chosen (ties: a uniform draw from the move's seed); with
    ``exact``, the exact solver's best play where the information set is one world.
    ``analyse`` gives the model's values as exact estimates (``n`` 1), the chosen play
    first."""

    def __init__(
        self, model: np.ndarray, name: str = "learned", exact: bool = False, worlds: int = 0
    ) -> None:
        """A bot playing ``model`` (a model vector of :func:`new_model`'s layout: Scopa's,
        or Cirulla's for Cirulla's rules), with the exact endgame when ``exact``, and
        with ``worlds`` > 0 (the exact endgame too) the determinized exact search in the
        round before the last of a 2-player hand (:func:`worlds_kind`).

        Raises:
            ValueError: a vector of another layout or length, ``worlds`` out of range.
        """
        m = np.ascontiguousarray(model, dtype=np.float64)
        if (
            m.ndim != 1
            or m.shape[0] < KL.M_HEAD
            or m[KL.M_VERSION] not in (KL.VERSION, KLC.VERSION)
        ):
            raise ValueError("not a learned model vector of this version")
        if is_cirulla_model(m):
            size = KLC.model_size_cirulla(int(m[KL.M_HIDDEN]))
        elif int(m[KL.M_SPARSE]) in (N_SPARSE, N_SPARSE_EVIDENCE):
            size = KL.model_size(int(m[KL.M_HIDDEN]), int(m[KL.M_SPARSE]))
        else:
            raise ValueError("not a learned model vector of this version")
        if m.shape[0] != size:
            raise ValueError("a learned model vector of the wrong length")
        self.model = m
        self.name = name + ("+exact" if exact or worlds else "")
        self.name += f":worlds={worlds}" if worlds else ""
        self._kind = worlds_kind(worlds) if worlds else LEARNED + (EXACT if exact else 0)
        self._acc = np.empty(max(1, int(m[KL.M_HIDDEN])))
        self._idx = np.empty(MAX_ACTIVE, dtype=np.int64)
        self._dense = np.empty(N_DENSE)
        self._xs = np.empty(K.EXPERT_SCRATCH)

    def _check(self, rules: Rules) -> None:
        """Refuse rules of another layout than the model's.

        Raises:
            ValueError: a Scopa model under Cirulla's rules, or the other way round.
        """
        if rules.cirulla != is_cirulla_model(self.model):
            game = "Cirulla" if rules.cirulla else "Scopa"
            raise ValueError(f"this learned model was not made for {game}'s rules")

    def analyse(self, state: HandState, seed: int) -> list[PlayStats]:
        """Every legal play with the model's value, the chosen one first.

        Raises:
            ValueError: the model was made for another game's layout (Scopa, Cirulla).
        """
        self._check(state.rules)
        if state.rules.cirulla:
            return self._analyse_cirulla(state, seed)
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

    def _analyse_cirulla(self, state: HandState, seed: int) -> list[PlayStats]:
        """:meth:`analyse` of a Cirulla position (the Cirulla kernels read the seat's view
        only, shown hands included, so they are given a copy of the state itself)."""
        vec, r = state._vec.copy(), state.rules._packed
        bc, bt, bm = (np.empty(K.MAX_PLAYS, dtype=np.int64) for _ in range(3))
        n = int(K.legal_plays_cirulla(vec, r, bc, bt, bm, np.empty(K.SCRATCH, dtype=np.int64)))
        rng = K.new_rng(K.derive_seed(_mask63(seed), 5, 0, 0))
        pick = int(KLC.harness_choice_cirulla(vec, r, self._kind, self.model, rng, bc, bt, bm, n))
        ls = KLC.learned_scratch_cirulla(self.model)
        out = []
        for i in range(n):
            v = float(KLC.learned_value_cirulla(vec, r, self.model, bc[i], bt[i], bm[i], ls))
            play = Play.from_meta(int(bc[i]), int(bt[i]), int(bm[i]))
            stats = PlayStats(play, Estimate(v, v, v, 1, "exact"), i == pick)
            out.append((i != pick, -v, i, stats))
        return [s for *_, s in sorted(out, key=lambda t: t[:3])]


def paired_margin(points_a_first: np.ndarray, points_a_second: np.ndarray) -> np.ndarray:
    """Per deal pair, the mean margin of the policy that sat at seat 0 in the first run
    and at seat 1 in the second (two sides)."""
    a = points_a_first[:, 0] - points_a_first[:, 1]
    b = points_a_second[:, 1] - points_a_second[:, 0]
    return (a + b) / 2.0
