"""What every bot is: the :class:`Bot` interface, the statistics of a candidate play, and
the engine's jitted policies as bots.

A bot picks a play for the seat to move in a :class:`~scopa_sim.game.state.HandState`
(``choose``) and can show every legal play with its statistics (``analyse``). The search
bots (:mod:`scopa_sim.bots.search`) and the evaluator (:mod:`scopa_sim.bots.evaluate`)
build on this module; the policy registry (:mod:`scopa_sim.bots.registry`) names them.
"""

from __future__ import annotations

import dataclasses
import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from scopa_sim import _engine as K
from scopa_sim._engine import learned as KL
from scopa_sim._engine import learned_cirulla as KLC
from scopa_sim.errors import PolicyError
from scopa_sim.game.infoset import InfoSet
from scopa_sim.game.play import Play
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import HandState
from scopa_sim.stats.estimate import Estimate
from scopa_sim.stats.inference import MIN_SAMPLES

from .learned_weights import load_weights

#: The policies jitted into the playout loops, by name: their kernel codes.
KERNEL_CODES: dict[str, int] = {
    "random": K.POLICY_RANDOM,
    "greedy": K.POLICY_GREEDY,
    "expert": K.POLICY_EXPERT,
    "learned": K.POLICY_LEARNED,
}

#: ``learned:worlds=K``: the most worlds, and the unit that adds them to the kernel code.
MAX_WORLDS = KL.MAX_WORLDS
WORLDS_UNIT = KL.WORLDS_UNIT

#: z of a two-sided 95% normal interval.
Z95 = 1.959963984540054


def interval(mean: float, sd: float, n: int) -> tuple[float, float]:
    """The 95% normal interval of a mean of ``n`` samples of standard deviation ``sd``;
    ``(nan, nan)`` -- not estimated -- from fewer than :data:`MIN_SAMPLES` samples."""
    if n < MIN_SAMPLES or not math.isfinite(sd):
        return math.nan, math.nan
    half = Z95 * sd / math.sqrt(n)
    return mean - half, mean + half


def normal_estimate(mean: float, sd: float, n: int) -> Estimate:
    """The mean of ``n`` samples of standard deviation ``sd`` as an :class:`Estimate` with
    its 95% normal interval (method ``"normal"``; NaN bounds, not estimated, from fewer
    than :data:`MIN_SAMPLES` samples)."""
    low, high = interval(mean, sd, n)
    return Estimate(mean, low, high, n, "normal", sd)


def exact_estimate(value: float, n: int = 1) -> Estimate:
    """An exact value as an :class:`Estimate` (an interval of no width, method
    ``"exact"``)."""
    return Estimate(value, value, value, n, "exact")


@dataclass(frozen=True)
class PlayStats:
    """One candidate play as a bot saw it: ``margin``, the deciding side's mean final
    margin with its 95% interval and ``n`` samples (ISMCTS visits or PIMC worlds), and
    whether it was ``chosen``.  ``exact``: the value is exact (a solve of a position whose
    information set is one world: the interval has no width); an interval from fewer
    than :data:`MIN_SAMPLES` samples is not estimated (NaN bounds, :attr:`estimated`
    False)."""

    play: Play
    margin: Estimate
    chosen: bool
    exact: bool = False

    @property
    def mean(self) -> float:
        """The mean margin (``margin.estimate``; NaN when the bot gives no values)."""
        return self.margin.estimate

    @property
    def n(self) -> int:
        """The samples behind the mean (``margin.n``)."""
        return self.margin.n

    @property
    def estimated(self) -> bool:
        """Whether the play has an interval (exact, or from enough samples)."""
        return self.margin.estimated


def _mask63(x: int) -> int:
    return int(x) & (2**63 - 1)


def _stats(play: Play, n: int, mean: float, var: float) -> PlayStats:
    return PlayStats(play, normal_estimate(mean, math.sqrt(var), n), False)


def _rank(stats: list[PlayStats], key: Callable[[PlayStats], tuple[float, ...]]) -> list[PlayStats]:
    """Sort best first (stable: ties keep legal-play order) and mark the first chosen."""
    ranked = sorted(stats, key=key)
    if ranked:
        first = ranked[0]
        ranked[0] = dataclasses.replace(first, chosen=True)
    return ranked


class Bot(ABC):
    """A player: picks a play for the seat to move in a :class:`HandState`."""

    name: str = "bot"
    #: Whether the bot reads the hidden cards (the ``solver``): its answer is then the
    #: value of one layout of them, which :func:`scopa_sim.bots.advise.advise` names.
    perfect_information: bool = False

    def prepare(self, rules: Rules) -> None:  # noqa: B027 - a hook, optional by design
        """Check that this bot can play under ``rules`` and load what it needs for them
        (the match-equity table of ``objective=match``) before its first decision; a
        :class:`~scopa_sim.errors.ScopaError` if it cannot. Nothing to do by default."""

    @abstractmethod
    def analyse(self, state: HandState, seed: int) -> list[PlayStats]:
        """Every legal play with its statistics, best first (the chosen one first)."""

    def choose(self, state: HandState, seed: int) -> Play:
        """The play this bot makes; deterministic for a given state and seed.  A forced
        play (the only legal one) is made without searching: every bot would make it."""
        if state.is_over:
            raise ValueError("the hand is over: nothing to choose")
        legal = state.legal_plays
        if len(legal) == 1:
            return legal[0]
        return self.analyse(state, seed)[0].play

    def __repr__(self) -> str:
        return self.name


class KernelBot(Bot):
    """The engine's jitted ``random``, ``greedy``, ``expert`` or ``learned`` policy as a
    bot (the seat's information set only).  ``analyse`` has no values: means are NaN,
    ``n`` is 0 (``learned``'s model values only tell its plays apart: they are no
    margins)."""

    def __init__(self, policy: str, worlds: int = 0) -> None:
        """The kernel policy ``policy`` (``random``, ``greedy``, ``expert`` or ``learned``)
        as a bot; ``learned`` plays the shipped weights of the rules it meets
        (:func:`scopa_sim.bots.learned_weights.load_weights`), with ``worlds`` > 0 the
        determinized exact search of ``worlds`` worlds in the round before the last of a
        2-player hand (:func:`scopa_sim._engine.learned.worlds_choice`).

        Raises:
            PolicyError: an unknown kernel policy, ``worlds`` outside [0, MAX_WORLDS] or
                given to another policy than ``learned``.
        """
        code = KERNEL_CODES.get(policy)
        if code is None:
            allowed = ", ".join(KERNEL_CODES)
            raise PolicyError(f"unknown kernel policy {policy!r}; allowed: {allowed}")
        if worlds and code != K.POLICY_LEARNED:
            raise PolicyError(f"policy {policy!r} takes no parameters (got 'worlds')")
        if not 0 <= worlds <= MAX_WORLDS:
            raise PolicyError(f"learned:worlds={worlds}: expected an integer in [0, {MAX_WORLDS}]")
        self.name = policy + (f":worlds={worlds}" if worlds else "")
        self._code = code
        self._worlds = worlds

    def prepare(self, rules: Rules) -> None:
        """Load the weights ``learned`` plays under ``rules`` (other policies need nothing).

        Raises:
            PolicyError: ``learned`` under rules without weights (no preset, or untrained).
            FileError: their file is missing or corrupt.
        """
        if self._code == K.POLICY_LEARNED:
            load_weights(rules)

    def _pick(self, state: HandState, vec: np.ndarray, rng: np.ndarray, bc: np.ndarray,
              bt: np.ndarray, n: int) -> int:  # fmt: skip
        """The index of the play the kernel policy makes among the ``n`` in the buffers."""
        r = state._r
        if self._code == K.POLICY_LEARNED:
            model = load_weights(state.rules)
            kind = KL.LEARNED + KL.EXACT + WORLDS_UNIT * self._worlds
            return int(KL.harness_choice(vec, r, kind, model, rng, bc, bt, n))
        return int(K.choose_play(vec, r, self._code, rng, bc, bt, n))

    def analyse(self, state: HandState, seed: int) -> list[PlayStats]:
        """Every legal play, the one the kernel policy picks first (chosen); no values: NaN means,
        ``n`` 0. Cirulla's positions (RULES.md §10) are played by the Cirulla policies
        (:func:`scopa_sim._engine.step.choose_play_cirulla`), with the named value and the
        declaration as part of the play.
        """
        if state.rules.capture_mode == "cirulla":
            if self._worlds:
                raise PolicyError(f"policy {self.name}: worlds= searches Scopa's rules only")
            return self._analyse_cirulla(state, seed)
        info = InfoSet(state)
        vec, r = info.vector, state._r
        bc = np.empty(K.MAX_PLAYS, dtype=np.int64)
        bt = np.empty(K.MAX_PLAYS, dtype=np.int64)
        n = K.legal_plays(vec, r, bc, bt, np.empty(K.SCRATCH, dtype=np.int64))
        rng = K.new_rng(K.derive_seed(_mask63(seed), 5, 0, 0))
        pick = self._pick(state, vec, rng, bc, bt, n)
        nan = math.nan
        out = [
            PlayStats(Play(int(bc[i]), int(bt[i])), Estimate(nan, nan, nan, 0, "none"), i == pick)
            for i in range(n)
        ]
        return sorted(out, key=lambda s: not s.chosen)

    def _analyse_cirulla(self, state: HandState, seed: int) -> list[PlayStats]:
        """:meth:`analyse` of a Cirulla position. The Cirulla policies read the seat's view
        only (its hand, the table, the piles, the hand sizes and the hands shown by a
        declaration), so they are given a copy of the state itself (an :class:`InfoSet`
        does not keep the shown hands)."""
        vec, r = state._vec.copy(), state.rules._packed
        bc, bt, bm = (np.empty(K.MAX_PLAYS, dtype=np.int64) for _ in range(3))
        n = K.legal_plays_cirulla(vec, r, bc, bt, bm, np.empty(K.SCRATCH, dtype=np.int64))
        rng = K.new_rng(K.derive_seed(_mask63(seed), 5, 0, 0))
        if self._code == K.POLICY_LEARNED:
            model = load_weights(state.rules)
            kind = KL.LEARNED + KL.EXACT
            pick = int(KLC.harness_choice_cirulla(vec, r, kind, model, rng, bc, bt, bm, n))
        else:
            pick = int(K.choose_play_cirulla(vec, r, self._code, rng, bc, bt, bm, n))
        nan = math.nan
        out = [
            PlayStats(
                Play.from_meta(int(bc[i]), int(bt[i]), int(bm[i])),
                Estimate(nan, nan, nan, 0, "none"),
                i == pick,
            )
            for i in range(n)
        ]
        return sorted(out, key=lambda s: not s.chosen)
