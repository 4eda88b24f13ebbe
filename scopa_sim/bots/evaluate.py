"""The evaluator shared by ``review`` and ``advise``: every legal play of a decision valued
on common sampled worlds, so that best-minus-chosen is a paired difference.

For a decision of seat ``s`` the evaluator draws ``worlds`` worlds from ``s``'s
information set (:class:`~scopa_sim.game.infoset.InfoSet`: its hand, the table, the piles,
scope and the sizes of the other hands and of the stock -- never the true hidden
cards), makes each legal play in *each* of these worlds and finishes the hand there:
the ``rollout`` policy (a jitted kernel policy, ``greedy`` by default) plays every
seat, and once the rest of the hand is an open endgame (two sides, stock empty, at
most two hands left, so every seat knows every card -- the last round of a 2-player
hand) the exact solver plays it out perfectly.  A play's value in a world is the
deciding side's final hand margin (its points minus the other side's, or minus the
best other side's with three or four sides), scope already made included; its value
is the mean over the worlds.

All plays of a decision see the same worlds and, in a given world, the same rollout
random stream, so the loss of a play (best mean minus its mean) is the mean of paired
per-world differences, and its 95% interval (normal approximation over worlds) is
much narrower than the two plays' own intervals.  When the information set is a
single world (the last round of a 2-player hand) one world is used and the values are
the exact solver's: a loss there is exact (its interval has zero width).

The worlds come from a stream derived from the seed *and* a hash of the information
set, so the same position (as the deciding seat knows it) and seed always give the
same numbers -- in ``review``, in ``advise --policy eval`` and here -- and different
decisions of one review see independent worlds.

The evaluator plays too (:class:`EvalBot`, policy ``eval:worlds=256,rollout=greedy,
exact=1``): it chooses the play of best mean.

    >>> ev = Evaluator()
    >>> e = ev.evaluate(state, seed=0)
    >>> e.plays[e.best], e.loss(e.plays.index(some_play))
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import math
from dataclasses import dataclass, field

import numpy as np

from scopa_sim import _engine as K
from scopa_sim._engine import determinize as KD
from scopa_sim._engine import evaluator as KE
from scopa_sim._engine import learned_cirulla as KLC
from scopa_sim.bots.base import Bot, PlayStats, exact_estimate, normal_estimate
from scopa_sim.bots.learned_weights import LEARNED_POLICY, load_weights
from scopa_sim.errors import PolicyError
from scopa_sim.game.play import Play
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import HandState, score_points
from scopa_sim.game.worlds import deal_hidden
from scopa_sim.stats.estimate import Estimate

#: Worlds per decision by default (the speed target: a 2-player hand in under 2 s).
DEFAULT_WORLDS = 256
#: Rollout policy by default.  ``expert`` (``rollout=expert``) costs about 1.6 times as
#: much per hand reviewed and, measured so far, gains little as the evaluator's rollout
#: (README, "Game review"); the labels' thresholds are calibrated for the default and
#: are to be measured again with ``python -m scopa_sim.experiments.review --rollout`` if it changes.
DEFAULT_ROLLOUT = "greedy"
#: Random deals behind the prior (the expected margin before a hand's first deal).
PRIOR_WORLDS = 4096
#: Seed of the prior's deals (fixed: the prior belongs to the rules and the evaluator).
PRIOR_SEED = 20261201
#: :meth:`Evaluator.position_values` views: no hand known, or every hand known.
PUBLIC = -1
DEALT = -2
#: Transposition-table entries shared by a decision's endgame solves (a power of two).
TT_SIZE = 1 << 16


def rollout_codes() -> dict[str, int]:
    """Kernel policies a rollout may use, by name."""
    return {
        "random": K.POLICY_RANDOM,
        "greedy": K.POLICY_GREEDY,
        "expert": K.POLICY_EXPERT,
        "learned": K.POLICY_LEARNED,
    }


def rollout_model(rules: Rules, rollout: str) -> np.ndarray:
    """The model vector the evaluator's kernels take for the rollout policy ``rollout``:
    the learned policy's weights for ``rules`` (:func:`.learned_weights.load_weights`)
    when it is ``learned``, else the empty vector.

    Raises:
        PolicyError, FileError: as :func:`.learned_weights.load_weights`.
    """
    return load_weights(rules) if rollout == LEARNED_POLICY else K.NO_MODEL


def _mask63(x: int) -> int:
    return int(x) & (2**63 - 1)


def _stream(seed: int, vec: np.ndarray, seat: int) -> int:
    """The kernel seed of one evaluation: the run seed mixed with a hash of the
    information set (its canonical world vector and the observing seat). The vector's
    Cirulla slots (``N_STATE_BASE`` to ``N_STATE_HASHED``) count only when one is set, so
    every other game's streams are those of the vector of before RULES.md §10; the
    evidence slots (from ``N_STATE_HASHED`` on, public) do not count."""
    extra = vec[K.N_STATE_BASE : K.N_STATE_HASHED]
    data = vec[: K.N_STATE_BASE].tobytes() + (extra.tobytes() if extra.any() else b"")
    digest = hashlib.blake2b(data + seat.to_bytes(2, "little", signed=True), digest_size=8)
    h = int.from_bytes(digest.digest(), "little")
    return _mask63(K.derive_seed(_mask63(seed), 15, h & 0xFFFFFFFF, h >> 32))


@dataclass(frozen=True, eq=False)
class Evaluation:
    """Every legal play of one decision valued on common worlds.

    ``values[w, i]`` is the deciding side's final hand margin after play ``i`` in world
    ``w``; ``exact`` says the information set was one world solved exactly.
    """

    plays: tuple[Play, ...]
    values: np.ndarray
    seat: int
    side: int
    exact: bool
    seed: int

    @property
    def worlds(self) -> int:
        """The common worlds the plays were valued on."""
        return int(self.values.shape[0])

    @functools.cached_property
    def means(self) -> np.ndarray:
        """Each play's mean value over the worlds (legal-play order)."""
        return self.values.mean(axis=0)

    @property
    def best(self) -> int:
        """Index of the play of best mean value (the first such in legal-play order)."""
        return int(np.argmax(self.means))

    def index(self, play: Play) -> int:
        """Index of ``play`` among :attr:`plays`; raises ValueError if it is not legal."""
        return self.plays.index(play)

    def loss(self, i: int) -> Estimate:
        """Points lost by play ``i``: the best play's mean minus its mean, with a 95%
        normal interval from the per-world paired differences (method ``"exact"``, zero
        width, when exact; not estimated, NaN bounds, from fewer than
        :data:`~scopa_sim.stats.inference.MIN_SAMPLES` worlds); ``n`` the worlds.

        Raises:
            IndexError: ``i`` is not the index of a legal play.
        """
        d = self.values[:, self.best] - self.values[:, i]
        mean = float(d.mean())
        w = d.shape[0]
        if self.exact:
            return exact_estimate(mean, w)
        return normal_estimate(mean, float(d.std(ddof=1)) if w > 1 else math.nan, w)

    @property
    def random_loss(self) -> float:
        """Expected points lost by a uniformly random legal play here (the accuracy's
        reference): best mean minus the mean of all plays' means."""
        m = self.means
        return float(m.max() - m.mean())

    def play_stats(self) -> list[PlayStats]:
        """Each play's mean value with its own 95% interval over worlds, best first (ties
        keep legal-play order), in the form the other bots give."""
        w = self.worlds
        out = []
        for i, p in enumerate(self.plays):
            mean = float(self.means[i])
            if self.exact:
                out.append(PlayStats(p, exact_estimate(mean, w), False, exact=True))
                continue
            sd = float(self.values[:, i].std(ddof=1)) if w > 1 else math.nan
            out.append(PlayStats(p, normal_estimate(mean, sd, w), False))
        order = sorted(range(len(out)), key=lambda i: (-self.means[i], i))
        ranked = [out[i] for i in order]
        ranked[0] = dataclasses.replace(ranked[0], chosen=True)
        return ranked


@dataclass(frozen=True)
class Evaluator:
    """The review evaluator (see the module docstring); frozen configuration.

    ``worlds``: worlds per decision; ``rollout``: the kernel policy that finishes each
    world; ``exact``: solve open endgames exactly (two-sided games only).
    """

    worlds: int = DEFAULT_WORLDS
    rollout: str = DEFAULT_ROLLOUT
    exact: bool = True
    _tt: tuple[np.ndarray, np.ndarray, np.ndarray] = field(
        default=None, init=False, repr=False, compare=False, hash=False
    )  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if isinstance(self.worlds, bool) or not isinstance(self.worlds, int) or self.worlds < 1:
            raise PolicyError(f"evaluator worlds must be an integer >= 1, got {self.worlds!r}")
        codes = rollout_codes()
        if self.rollout not in codes:
            raise PolicyError(
                f"evaluator rollout {self.rollout!r}: expected one of {', '.join(codes)}"
            )
        tt = (
            np.zeros(TT_SIZE, dtype=np.int64),
            np.zeros(TT_SIZE, dtype=np.float64),
            np.zeros(TT_SIZE, dtype=np.int64),
        )
        object.__setattr__(self, "_tt", tt)

    @property
    def name(self) -> str:
        """The policy text of this evaluator (``eval:worlds=256,rollout=greedy,exact=1``)."""
        return f"eval:worlds={self.worlds},rollout={self.rollout},exact={int(self.exact)}"

    def __str__(self) -> str:
        return self.name

    # -- kernel calls -------------------------------------------------------------------
    def _run(
        self,
        vec: np.ndarray,
        rules: Rules,
        seat: int,
        seed: int,
        plays: list[Play],
        worlds: int | None = None,
    ) -> np.ndarray:
        """``values[w, i, side]`` of :func:`scopa_sim._engine.evaluator.eval_values`."""
        r = rules.to_array()
        model = rollout_model(rules, self.rollout)
        tk, tv, tm = self._tt
        tk.fill(0)  # results never depend on earlier calls
        n = len(plays)
        w = self.worlds if worlds is None else worlds
        cards = np.array([p.card for p in plays] or [0], dtype=np.int64)
        takes = np.array([p.take for p in plays] or [0], dtype=np.int64)
        out = np.zeros((w, max(n, 1), 4), dtype=np.float64)
        code = rollout_codes()[self.rollout]
        used = int(
            KE.eval_values(
                vec, r, seat, w, code, model, seed, self.exact, tk, tv, tm, cards, takes, n, out
            )
        )
        return out[:used]

    def evaluate(self, state: HandState, seed: int) -> Evaluation:
        """Value every legal play of the seat to move from its information set only (in
        Cirulla, RULES.md §10, by :func:`evaluate_cirulla`)."""
        if state.is_over:
            raise ValueError("the hand is over: there is no decision to evaluate")
        if state.rules.capture_mode == "cirulla":
            return evaluate_cirulla(state, seed, self.worlds, self.rollout)
        seat = state.turn
        vec = np.empty(K.N_STATE, dtype=np.int64)
        KD.canonical_world(state._vec, state._r, seat, vec)
        plays = HandState(state.rules, vec.copy()).legal_plays
        played = list(plays)
        kseed = _stream(seed, vec, seat)
        side = int(K.side_of(state._r, seat))
        out = self._run(vec, state.rules, seat, kseed, played)
        exact = bool(self.exact and state.rules.sides == 2 and KD.single_world(vec, state._r, seat))
        values = out[:, : len(played), side].copy()
        return Evaluation(tuple(played), values, seat, side, exact, kseed)

    def position_values(
        self, state: HandState, view: int, seed: int, worlds: int | None = None
    ) -> np.ndarray:
        """Each side's final margin per world (``[w, side]``) for the position as it
        stands, the hand finished as a decision's worlds are.  ``view`` says what is
        known: a seat (that seat's information set), :data:`PUBLIC` (no hand known, as
        just before a deal) or :data:`DEALT` (every hand known, only the stock's order
        unknown: what the deals have decided so far, used for luck).  ``worlds``
        overrides the evaluator's number of worlds."""
        if state.is_over:
            return final_margins(state)[None, :]
        if state.rules.capture_mode == "cirulla":
            if not (view in (DEALT, PUBLIC) or 0 <= view < state.players):
                raise ValueError(f"view must be a seat, PUBLIC or DEALT, got {view!r}")
            w = self.worlds if worlds is None else worlds
            kseed = _stream(seed, cirulla_world(state, view, None), view)
            out = _cirulla_margins(state, view, kseed, w, [], self.rollout)
            return out[:, 0, : state.rules.sides].copy()
        if view == DEALT:
            vec = state.with_sorted_stock()._vec
        elif view == PUBLIC or 0 <= view < state.players:
            vec = np.empty(K.N_STATE, dtype=np.int64)
            KD.canonical_world(state._vec, state._r, view, vec)
        else:
            raise ValueError(f"view must be a seat, PUBLIC or DEALT, got {view!r}")
        out = self._run(vec, state.rules, view, _stream(seed, vec, view), [], worlds)
        return out[:, 0, : state.rules.sides].copy()

    def prior(self, rules: Rules, dealer: int) -> np.ndarray:
        """Each side's expected final margin before the first deal of a hand dealt by
        ``dealer``: the evaluator's own play over :data:`PRIOR_WORLDS` random deals."""
        return _prior(rules, dealer, self.rollout, self.exact).copy()


def cirulla_world(state: HandState, seat: int, gen: np.random.Generator | None) -> np.ndarray:
    """A Cirulla state vector (RULES.md §10) of one world of ``seat``'s information set
    (:func:`scopa_sim.game.worlds.deal_hidden`): the cards it cannot see (the hands of
    the other seats that have not declared in this deal, and the stock) dealt again; the
    hands shown by a declaration stay. ``seat`` may also be :data:`PUBLIC` (no hand known
    but the shown ones) or :data:`DEALT` (every hand known: only the stock's order is
    drawn). ``gen`` None: the canonical world (the hidden cards in card order), whose hash
    seeds the evaluation."""
    shown = set(state.shown)
    hidden = (
        [] if seat == DEALT else [s for s in range(state.players) if s != seat and s not in shown]
    )
    return deal_hidden(state, hidden, gen)


def play_out_cirulla(
    state: np.ndarray,
    r: np.ndarray,
    codes: np.ndarray,
    model: np.ndarray,
    rng: np.ndarray,
    *bufs: np.ndarray,
) -> int:
    """The Cirulla hand in ``state`` played to its end by the kernel policies ``codes``
    drawing from ``rng``: :func:`scopa_sim._engine.step.play_out_cirulla`, or, where
    ``model`` is the learned policy's weights (not empty),
    :func:`scopa_sim._engine.learned_cirulla.play_out_model_cirulla` (the other policies
    draw the same). ``bufs``: the play buffers, scratch and logs they take (cards, takes,
    metas, scratch, logged cards, takes, metas). Returns the plays made."""
    if model.shape[0]:
        return int(KLC.play_out_model_cirulla(state, r, codes, model, rng, *bufs))
    return int(K.play_out_cirulla(state, r, codes, rng, *bufs))


def evaluate_cirulla(state: HandState, seed: int, worlds: int, rollout: str) -> Evaluation:
    """:meth:`Evaluator.evaluate` of a Cirulla decision (RULES.md §10): every legal play
    (named value and declaration included) valued on ``worlds`` common worlds of the
    deciding seat's information set (:func:`cirulla_world`: the shown hands known), each
    finished by the kernel policy ``rollout`` at every seat
    (:func:`play_out_cirulla`) from the same stream in a world.
    Cirulla has no exact solver: the values are estimates, never ``exact``."""
    seat = state.turn
    plays = list(state.legal_plays)
    kseed = _stream(seed, cirulla_world(state, seat, None), seat)
    values = _cirulla_margins(state, seat, kseed, worlds, plays, rollout)
    side = state.rules.side_of(seat)
    return Evaluation(tuple(plays), values[:, :, side].copy(), seat, side, False, kseed)


def _cirulla_margins(
    state: HandState, view: int, kseed: int, worlds: int, plays: list[Play], rollout: str
) -> np.ndarray:
    """``out[w, i, side]``: each side's final hand margin after play ``i`` (none: the
    position as it stands, slot 0) in world ``w`` of ``view``'s information set
    (:func:`cirulla_world`, drawn from ``derive_seed(kseed, 12, w, 0)``), finished by
    the kernel policy ``rollout`` from the stream ``derive_seed(kseed, 13, w, 0)``."""
    rules = state.rules
    r = rules._packed
    codes = np.full(4, rollout_codes()[rollout], dtype=np.int64)
    model = rollout_model(rules, rollout)
    bc, bt, bm = (np.empty(K.MAX_PLAYS, dtype=np.int64) for _ in range(3))
    scratch = np.empty(K.SCRATCH, dtype=np.int64)
    lc, lt, lm = (np.empty(40, dtype=np.int64) for _ in range(3))
    score = np.zeros((4, K.N_ITEMS_CIRULLA), dtype=np.int64)
    sides = rules.sides
    out = np.zeros((worlds, max(len(plays), 1), 4), dtype=np.float64)
    for w in range(worlds):
        gen = np.random.default_rng(_mask63(K.derive_seed(kseed, 12, w, 0)))
        world = cirulla_world(state, view, gen)
        for i in range(max(len(plays), 1)):
            cur = world.copy()
            if plays:
                p = plays[i]
                K.apply_play_cirulla(cur, r, p.card, p.take, p.meta)
            roll = K.new_rng(K.derive_seed(kseed, 13, w, 0))
            play_out_cirulla(cur, r, codes, model, roll, bc, bt, bm, scratch, lc, lt, lm)
            score.fill(0)
            K.score_state_cirulla(cur, r, score)
            totals = np.array(score_points(score[:sides]))
            for s in range(sides):
                out[w, i, s] = totals[s] - max(np.delete(totals, s))
    return out


def final_margins(state: HandState) -> np.ndarray:
    """Each side's margin in a finished hand: its points minus the best other side's."""
    totals = np.array(state.points, dtype=np.float64)
    return np.array([t - max(np.delete(totals, s)) for s, t in enumerate(totals)])


@functools.lru_cache(maxsize=64)
def _prior(rules: Rules, dealer: int, rollout: str, exact: bool) -> np.ndarray:
    if rules.capture_mode == "cirulla":
        return _prior_cirulla(rules, dealer, rollout)
    tt = (np.zeros(TT_SIZE, np.int64), np.zeros(TT_SIZE), np.zeros(TT_SIZE, np.int64))
    out = np.zeros((PRIOR_WORLDS, 4), dtype=np.float64)
    code = rollout_codes()[rollout]
    model = rollout_model(rules, rollout)
    KE.eval_prior(rules.to_array(), dealer, PRIOR_WORLDS, code, model, PRIOR_SEED, exact, *tt, out)
    return out[:, : rules.sides].mean(axis=0)


def _prior_cirulla(rules: Rules, dealer: int, rollout: str) -> np.ndarray:
    """:func:`_prior` of a Cirulla rule set (RULES.md §10): :data:`PRIOR_WORLDS` hands
    dealt at random (void deals redealt, the opening count), played out by ``rollout``."""
    r = rules._packed
    codes = np.full(4, rollout_codes()[rollout], dtype=np.int64)
    model = rollout_model(rules, rollout)
    deck, cur = np.empty(40, dtype=np.int64), np.empty(K.N_STATE, dtype=np.int64)
    bc, bt, bm = (np.empty(K.MAX_PLAYS, dtype=np.int64) for _ in range(3))
    scratch = np.empty(K.SCRATCH, dtype=np.int64)
    lc, lt, lm = (np.empty(40, dtype=np.int64) for _ in range(3))
    score = np.zeros((4, K.N_ITEMS_CIRULLA), dtype=np.int64)
    out = np.zeros((PRIOR_WORLDS, rules.sides), dtype=np.float64)
    none = np.zeros(0, dtype=np.int64)
    for w in range(PRIOR_WORLDS):
        rng = K.new_rng(K.derive_seed(PRIOR_SEED, 14, w, 0))
        voids = K.shuffle_deal_cirulla(r, rng, deck, none)
        K.start_hand_cirulla(cur, r, deck, dealer, voids)
        roll = K.new_rng(K.derive_seed(PRIOR_SEED, 13, w, 0))
        play_out_cirulla(cur, r, codes, model, roll, bc, bt, bm, scratch, lc, lt, lm)
        score.fill(0)
        K.score_state_cirulla(cur, r, score)
        totals = np.array(score_points(score[: rules.sides]))
        for s in range(rules.sides):
            out[w, s] = totals[s] - max(np.delete(totals, s))
    return out.mean(axis=0)


class EvalBot(Bot):
    """The evaluator as a player (policy ``eval``): the play of best mean value."""

    def __init__(self, worlds: int = DEFAULT_WORLDS, rollout: str = DEFAULT_ROLLOUT,
                 exact: int = 1) -> None:  # fmt: skip
        """The evaluator as a bot: ``worlds`` common worlds, ``rollout`` the policy that
        finishes them, ``exact`` 1 to solve a position of one world exactly.

        Raises:
            PolicyError: ``exact`` is not 0 or 1.
        """
        if exact not in (0, 1):
            raise PolicyError(f"policy 'eval' parameter exact={exact!r}: expected 0 or 1")
        self.evaluator = Evaluator(worlds, rollout, bool(exact))
        self.name = self.evaluator.name

    def prepare(self, rules: Rules) -> None:
        """Load the learned policy's weights for ``rules`` when it plays the rollouts.

        Raises:
            PolicyError, FileError: as :func:`rollout_model`.
        """
        rollout_model(rules, self.evaluator.rollout)

    def analyse(self, state: HandState, seed: int) -> list[PlayStats]:
        """Every legal play valued on common worlds (:meth:`Evaluation.play_stats`), best first."""
        return self.evaluator.evaluate(state, seed).play_stats()


__all__ = ["DEFAULT_ROLLOUT", "DEFAULT_WORLDS", "EvalBot", "Evaluation", "Evaluator"]
