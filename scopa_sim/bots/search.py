"""Search bots: PIMC, ISMCTS and a perfect-information solver, behind one small API.

Every bot has ``choose(state, seed) -> Play`` and ``analyse(state, seed) ->
list[PlayStats]`` (best first).  ``state`` is the true :class:`HandState`; the fair bots
build the :class:`InfoSet` of the seat to play and search only from it, so they never
read the hidden cards.  :class:`SolverBot` is the exception: it sees everything and is
meant as a reference (an upper bound), not as a player.

Values are the deciding side's final point margin for the hand: its points minus the
other side's (two sides) or minus the best other side's (three or four sides).  With
``objective=match`` (two sides) they are its probability of winning the match after the
hand instead, from the match totals before it (:attr:`HandState.match_totals`), the
target and the next dealer, expressed in points (:mod:`scopa_sim.bots.objective`).

    >>> bot = scopa_sim.bots.registry.make_bot("ismcts", {"iterations": "1000"})
    >>> play = bot.choose(state, seed=1)

:func:`play_deal` plays one hand with a bot per seat (for tournaments and benchmarks).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import ClassVar

import numpy as np

from scopa_sim import _engine as K
from scopa_sim._engine import determinize as KD
from scopa_sim._engine import ismcts as KI
from scopa_sim._engine import ismcts_cirulla as KIC
from scopa_sim._engine import pimc as KP
from scopa_sim._engine import solver as KSO
from scopa_sim._engine import solver_cirulla as KSC
from scopa_sim._engine import values as KV
from scopa_sim.bots.base import Bot, PlayStats, _mask63, _rank, _stats, exact_estimate
from scopa_sim.bots.belief import (
    SEARCH_CHANNEL,
    Belief,
    BeliefModel,
    Observations,
    compute_belief,
    get_model,
    robust_model,
)
from scopa_sim.bots.learned_weights import load_weights
from scopa_sim.bots.objective import MATCH_LEAVES, OBJECTIVES, HandRewards, MatchObjective
from scopa_sim.game.infoset import InfoSet
from scopa_sim.game.play import Play
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import HandState
from scopa_sim.game.worlds import deal_hidden, particle_hands, quiet_hands
from scopa_sim.stats.estimate import Estimate

#: Transposition-table entries of the solver (a power of two).
TT_SIZE = 1 << 18
_NO_LOG = np.empty(0, dtype=np.int64)
_NO_PARTS = np.empty((0, 4), dtype=np.int64)
#: No match objective (the margin's): the kernels' ``eq`` when belief arrays follow it.
_NO_EQ = np.empty(0, dtype=np.float64)
_NO_CUM = np.empty(0, dtype=np.float64)


class _SolverMixin:
    """A transposition table kept between calls (cleared at each call, so results never
    depend on earlier calls)."""

    def _tables(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        tt = getattr(self, "_tt", None)
        if tt is None:
            tt = (
                np.zeros(TT_SIZE, dtype=np.int64),
                np.zeros(TT_SIZE, dtype=np.float64),
                np.zeros(TT_SIZE, dtype=np.int64),
            )
            self._tt = tt
        else:
            tt[0].fill(0)
        return tt


class _BeliefMixin:
    """Worlds drawn from a belief (:mod:`scopa_sim.bots.belief`) instead of uniformly, computed
    once per decision from the seat's observations; ``belief=uniform`` draws exactly as
    before the option existed.  ``last_belief`` is the belief of the last decision
    searched (None with ``uniform``)."""

    belief: str = "uniform"
    last_belief: Belief | None = None
    _model: BeliefModel | None = None

    def _set_belief(self, belief: str, uniform: float | None = None) -> str:
        """Set the belief up (``uniform``: the flat share of ``belief=robust``, see
        :func:`scopa_sim.bots.belief.robust_model`); return its part of the bot's name."""
        if uniform is not None and belief != "robust":
            raise ValueError("uniform= is the weight of belief=robust: give that too")
        self._model = robust_model(uniform) if uniform is not None else get_model(belief)
        self.belief = belief
        self.last_belief = None
        if belief == "uniform":
            return ""
        return f",belief={belief}" + ("" if uniform is None else f",uniform={uniform:g}")

    def _worlds_from(self, state: HandState, seed: int) -> tuple[np.ndarray, np.ndarray]:
        """The particles and cumulative weights the search kernels draw worlds from."""
        if self.belief == "uniform":
            return _NO_PARTS, _NO_CUM
        b = compute_belief(Observations(state), self._model, seed)
        self.last_belief = b
        return b.parts, b.cum


class _ObjectiveMixin:
    """The objective of a search bot: ``margin`` (the hand's point margin, the default)
    or ``match`` (the probability of winning the match, in points; ``equity`` names the
    table's model policy or file, see :class:`scopa_sim.bots.objective.MatchObjective`)."""

    _match: MatchObjective | None = None
    _close: float = 0.0

    def _objective(
        self,
        objective: str,
        equity: str | None,
        match_leaf: str = "normal",
        match_close: float = 0.0,
    ) -> str:
        """Set the objective up; return its part of the bot's name.  ``match_leaf`` is the
        match objective's model of an unfinished hand at a depth limit or horizon:
        ``normal`` (the default) or ``calibrated`` (fitted on self-play, see
        :func:`scopa_sim.bots.objective.fit_leaf`).  ``match_close`` = ``x`` > 0 plays for the
        match only in hands whose match equity before the hand lies in [x, 1 - x] (a
        close match), for the margin in the others (0, the default: in every hand)."""
        if not 0.0 <= match_close < 0.5:
            raise ValueError(f"match_close must be in [0, 0.5), got {match_close!r}")
        self._close = match_close
        if objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
        if match_leaf not in MATCH_LEAVES:
            raise ValueError(
                f"match_leaf must be one of {', '.join(MATCH_LEAVES)}, got {match_leaf!r}"
            )
        self.objective = objective
        if objective == "margin":
            if equity is not None:
                raise ValueError("equity= is the table of objective=match: give that too")
            if match_leaf != "normal" or match_close:
                raise ValueError(
                    "match_leaf= and match_close= are objective=match's: give that too"
                )
            self._match = None
            return ""
        self._match = MatchObjective("expert" if equity is None else equity, match_leaf)
        return (
            ",objective=match"
            + ("" if equity is None else f",equity={equity}")
            + ("" if match_leaf == "normal" else f",match_leaf={match_leaf}")
            + (f",match_close={match_close:g}" if match_close else "")
        )

    def prepare(self, rules: Rules) -> None:
        """Load the match objective's equity table for ``rules`` before the first decision.

        Raises:
            EquityError: the rules have other than two sides, or the table does not fit
                them.
        """
        if self._match is not None:
            self._match.table(rules)

    def win_probability(self, state: HandState, value: float) -> float | None:
        """The match-win probability of the side to play that a value of this bot at
        ``state`` stands for (None under the margin objective)."""
        hr = self._rewards(state)
        return None if hr is None else hr.probability(value, state.rules.side_of(state.turn))

    def _rewards(self, state: HandState | InfoSet) -> HandRewards | None:
        """The match objective's rewards for this hand (None: margins, also in a hand that
        ``match_close`` leaves to the margin)."""
        if self._match is None:
            return None
        hr = self._match.rewards(state.rules, state.match_totals, state.dealer)
        if self._close and not self._close <= hr.w0 <= 1.0 - self._close:
            return None
        return hr

    def _eq(self, state: HandState | InfoSet) -> np.ndarray | None:
        """The match objective's table for this hand (None: margins)."""
        hr = self._rewards(state)
        return None if hr is None else hr.eq


class PIMCBot(_BeliefMixin, _SolverMixin, _ObjectiveMixin, Bot):
    """Perfect-information Monte Carlo ("determinized search").

    Draws ``worlds`` worlds from the information set of the seat to play, solves each
    with the alpha-beta solver -- exactly when at most ``exact_below`` cards are left to
    play, else ``depth`` plies deep with a heuristic leaf value (``leaf=estimate``:
    :func:`scopa_sim._engine.values.estimate`; ``leaf=expert``: the expert policy's evaluation
    of the piles, :func:`scopa_sim._engine.values.expert_leaf`) -- and picks the play of best
    mean value over the worlds.  The 95% interval is over worlds (normal approximation).
    ``belief=expert`` or ``fit`` draws the worlds from that belief over the other hands
    (:mod:`scopa_sim.bots.belief`) instead of uniformly (``uniform``, the default).
    ``objective=match`` values hands by the match they leave (``leaf=estimate`` only;
    on Cirulla too, by Cirulla's table and leaf calibration). On Cirulla
    ``leaf=expert`` is :func:`scopa_sim._engine.values_cirulla.expert_leaf_cirulla`.
    """

    LEAVES: ClassVar[dict[str, int]] = {"estimate": KV.LEAF_ESTIMATE, "expert": KV.LEAF_EXPERT}

    def __init__(
        self,
        worlds: int = 12,
        depth: int = 5,
        exact_below: int = 8,
        leaf: str = "estimate",
        belief: str = "uniform",
        objective: str = "margin",
        equity: str | None = None,
        match_leaf: str = "normal",
        match_close: float = 0.0,
        uniform: float | None = None,
    ) -> None:
        if worlds < 1 or depth < 1 or exact_below < 0:
            raise ValueError("worlds and depth must be >= 1, exact_below >= 0")
        if leaf not in self.LEAVES:
            raise ValueError(f"leaf must be one of {', '.join(self.LEAVES)}, got {leaf!r}")
        belief_name = self._set_belief(belief, uniform)
        _match_leaf(objective, leaf)
        self.worlds, self.depth, self.exact_below, self.leaf = worlds, depth, exact_below, leaf
        self.name = (
            f"pimc:worlds={worlds},depth={depth},exact_below={exact_below}"
            + (f",leaf={leaf}" if leaf != "estimate" else "")
            + belief_name
            + self._objective(objective, equity, match_leaf, match_close)
        )

    def values(self, state: HandState, seed: int) -> tuple[list[Play], np.ndarray]:
        """The legal plays and their values per world (``[world, play]``)."""
        if state.rules.capture_mode == "cirulla":
            return self._values_cirulla(state, seed)
        info = InfoSet(state)
        tk, tv, tm = self._tables()
        vals = np.zeros((self.worlds, K.MAX_PLAYS), dtype=np.float64)
        bc = np.empty(K.MAX_PLAYS, dtype=np.int64)
        bt = np.empty(K.MAX_PLAYS, dtype=np.int64)
        parts, cum = self._worlds_from(state, seed)
        args = (
            info.vector,
            state._r,
            self.worlds,
            self.depth,
            self.exact_below,
            _mask63(seed),
            tk,
            tv,
            tm,
            bc,
            bt,
            vals,
            self.LEAVES[self.leaf],
        )
        eq = self._eq(info)
        if self.belief != "uniform":
            n = int(KP.pimc_values(*args, _NO_EQ if eq is None else eq, parts, cum))
        else:
            n = int(KP.pimc_values(*args) if eq is None else KP.pimc_values(*args, eq))
        return [Play(int(bc[i]), int(bt[i])) for i in range(n)], vals[:, :n]

    def _values_cirulla(self, state: HandState, seed: int) -> tuple[list[Play], np.ndarray]:
        """:meth:`values` of a Cirulla position (RULES.md §10): each world deals again the
        cards the seat cannot see but the hands shown by declarations
        (:func:`scopa_sim.game.worlds.deal_hidden`, from the stream ``derive_seed(seed, 3,
        w, 0)``) and is solved by :func:`scopa_sim._engine.solver_cirulla.solve_world_cirulla`,
        the matta's named value and the declaration chosen with the play (for the match
        with ``objective=match``: Cirulla's table). With a belief, each world's hidden
        hands come from a particle drawn by its weight from the same stream where the
        particle holds them (:func:`scopa_sim.game.worlds.particle_hands`)."""
        parts, cum = self._worlds_from(state, seed)
        eq = self._eq(state)
        vec, r = state._vec, state.rules._packed
        hidden = _hidden_seats(state)
        tk, tv, tm = self._tables()
        info = np.zeros(KSO.N_INFO, dtype=np.int64)
        info[KSO.V_TT_MASK] = TT_SIZE - 1
        info[KSO.V_LEAF] = self.LEAVES[self.leaf]
        ws = KSC.workspace_cirulla(vec, r)
        left = state.rules.total_plays - state.plays_made
        depth = KSO.FULL_DEPTH if left <= self.exact_below else self.depth
        vals = np.zeros((self.worlds, K.MAX_PLAYS), dtype=np.float64)
        root = _mask63(seed)
        n = 0
        for w in range(self.worlds):
            gen = np.random.default_rng(int(K.derive_seed(root, 3, w, 0)))
            world = deal_hidden(state, hidden, gen, particle_hands(parts, cum, gen))
            info[KSO.V_SALT] = int(K.derive_seed(root, 4, w, 0)) >> 1
            e = _NO_EQ if eq is None else eq
            n = int(KSC.solve_world_cirulla(world, r, depth, tk, tv, tm, info, ws, vals[w], e))
        plays = [
            Play.from_meta(int(ws[1][0, i]), int(ws[2][0, i]), int(ws[3][0, i])) for i in range(n)
        ]
        return plays, vals[:, :n]

    def analyse(self, state: HandState, seed: int) -> list[PlayStats]:
        """Every legal play valued over sampled worlds of the hidden cards, best first (95%
        intervals over worlds).
        """
        plays, vals = self.values(state, seed)
        w = self.worlds
        stats = [
            _stats(
                p,
                w,
                float(vals[:, i].mean()),
                float(vals[:, i].var(ddof=1)) if w > 1 else 0.0,
            )
            for i, p in enumerate(plays)
        ]
        order = {s.play: i for i, s in enumerate(stats)}
        return _rank(stats, lambda s: (-s.mean, order[s.play]))


class SolverBot(_SolverMixin, _ObjectiveMixin, Bot):
    """Perfect-information solver -- a cheat, for reference only.

    It reads the *true* state, hidden cards and stock order included, and plays the
    best play for that exact world (alpha-beta, exact to the end of the hand when
    ``depth`` is None; three or four sides by the paranoid reduction).  Use it to bound
    what any fair bot could reach, or on open endgames; an exact solve early in a hand
    can take very long, so give ``depth`` there.  ``objective=match`` values hands by the
    match they leave.
    """

    perfect_information = True

    def __init__(
        self,
        depth: int | None = None,
        objective: str = "margin",
        equity: str | None = None,
        match_leaf: str = "normal",
        match_close: float = 0.0,
    ) -> None:
        if depth is not None and depth < 1:
            raise ValueError("depth must be >= 1 or None")
        self.depth = depth
        params = ("" if depth is None else f",depth={depth}") + self._objective(
            objective, equity, match_leaf, match_close
        )
        self.name = "solver" + (":" + params[1:] if params else "")
        self.nodes = 0

    def analyse(self, state: HandState, seed: int) -> list[PlayStats]:
        """Every legal play valued by the solver on the true layout of the hidden cards, best
        first: exact when the seat's information set is that one world, else one sample (no
        interval).
        """
        if state.rules.capture_mode == "cirulla":
            return self._analyse_cirulla(state)
        tk, tv, tm = self._tables()
        info = np.zeros(KSO.N_INFO, dtype=np.int64)
        info[KSO.V_TT_MASK] = TT_SIZE - 1
        info[KSO.V_SALT] = 1
        bc = np.empty(K.MAX_PLAYS, dtype=np.int64)
        bt = np.empty(K.MAX_PLAYS, dtype=np.int64)
        vals = np.empty(K.MAX_PLAYS, dtype=np.float64)
        depth = KSO.FULL_DEPTH if self.depth is None else self.depth
        args = (state._vec, state._r, depth, tk, tv, tm, info, bc, bt, vals)
        eq = self._eq(state)
        n = int(KSO.solve_root(*args) if eq is None else KSO.solve_root(*args, eq))
        self.nodes = int(info[KSO.V_NODES])
        # The values are exact for this one layout of the hidden cards; they are the
        # seat's values only when its information set is that one world (and the solve
        # is not cut at a depth).  Otherwise one layout is one sample: no interval.
        exact = self.depth is None and bool(KD.single_world(state._vec, state._r, state.turn))
        stats = []
        for i in range(n):
            v = float(vals[i])
            value = exact_estimate(v) if exact else Estimate(v, math.nan, math.nan, 1, "one layout")
            stats.append(PlayStats(Play(int(bc[i]), int(bt[i])), value, False, exact))
        return _rank(stats, lambda s: (-s.mean,))

    def _analyse_cirulla(self, state: HandState) -> list[PlayStats]:
        """:meth:`analyse` of a Cirulla position (RULES.md §10) by
        :func:`scopa_sim._engine.solver_cirulla.solve_root_cirulla` (with ``objective=match``
        by Cirulla's table): exact when the search is not cut and the seat knows the one
        layout (two players, the stock played out)."""
        eq = self._eq(state)
        tk, tv, tm = self._tables()
        info = np.zeros(KSO.N_INFO, dtype=np.int64)
        info[KSO.V_TT_MASK] = TT_SIZE - 1
        info[KSO.V_SALT] = 1
        bc, bt, bm = (np.empty(K.MAX_PLAYS, dtype=np.int64) for _ in range(3))
        vals = np.empty(K.MAX_PLAYS, dtype=np.float64)
        depth = KSO.FULL_DEPTH if self.depth is None else self.depth
        r = state.rules._packed
        args = (state._vec, r, depth, tk, tv, tm, info, bc, bt, bm, vals)
        n = int(KSC.solve_root_cirulla(*args) if eq is None else KSC.solve_root_cirulla(*args, eq))
        self.nodes = int(info[KSO.V_NODES])
        exact = self.depth is None and state.players == 2 and not state.stock
        stats = []
        for i in range(n):
            v = float(vals[i])
            value = exact_estimate(v) if exact else Estimate(v, math.nan, math.nan, 1, "one layout")
            play = Play.from_meta(int(bc[i]), int(bt[i]), int(bm[i]))
            stats.append(PlayStats(play, value, False, exact))
        return _rank(stats, lambda s: (-s.mean,))


class ISMCTSBot(_BeliefMixin, _ObjectiveMixin, Bot):
    """Single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012).

    One tree over the plays seen from the information set of the seat to play; every
    iteration deals a new world from it, descends by UCB1 with availability counts among
    the plays legal in that world, expands one untried play, finishes the hand with the
    engine's ``rollout`` policy (``random``, the default, ``greedy`` or ``expert``) and
    backs up the
    final point margins, scaled by :data:`scopa_sim._engine.ismcts.REWARD_SCALE`, each node
    taking the margin of the side that made its play.  The most visited play is chosen.

    With ``exact=1``, a position whose information set is a single world (the stock is
    empty and at most one other seat holds cards, e.g. the last round of a 2-player
    hand) is solved exactly by the alpha-beta solver instead (``n`` = 1 per play).

    With ``horizon=h`` a rollout stops ``h`` plays past the tree and the position it
    reached is valued by a heuristic (``leaf=estimate``, the default:
    :func:`scopa_sim._engine.values.estimate`; ``leaf=expert``: the expert policy's evaluation,
    :func:`scopa_sim._engine.values.expert_leaf`; piles, scope so far) instead of being played
    out: cheaper and less noisy (``benchmarks/bench_search.py`` measures it against
    PIMC at equal time per move).  Without ``horizon`` (the default) the search is
    exactly as before the option existed.

    With ``belief=expert`` or ``fit`` every iteration's world is drawn from that belief
    over the other hands (:mod:`scopa_sim.bots.belief`, computed once per decision) instead
    of uniformly (``uniform``, the default).  With such a belief, ``reply=model`` also
    plays the other sides' seats by its play model (an opponent model in the tree): each
    iteration draws each such seat's channel from its posterior (random, greedy, or the
    expert at the channel's temperature) and that seat's plays, in the tree and in the
    rollout, follow it, so a seat recognised as random is played as random, not as a
    best responder; the root's side still searches by UCB1 (``reply=uct``, the default:
    every seat by UCB1 and the rollout policy, as before the option existed).
    ``reply=weak`` is ``tree`` for the weak types only (random and greedy play): a seat
    whose channel is the expert's, at any temperature, is searched by UCB1, so a strong
    or expert-like opponent is searched as by ``reply=uct`` and the tree needs no
    expert values (the model's cost), while a random or greedy one is still played by
    its model.
    ``uct_floor=x`` in [0, 1] (with ``reply=tree|model|weak``) tempers that model: each
    iteration searches each such seat by UCB1 with probability at least ``x`` (the
    posterior is mixed with the "plays like this search" channel at weight ``x``), so a
    model that a strong opponent does not follow costs at most a share ``1 - x`` of
    the iterations.
    ``reply_min=x`` in [0, 1] (with ``reply=tree|model|weak``) plays a seat by a type's
    model only where the seat's posterior on that type is at least ``x``; the share of a
    less likely type is searched by UCB1.  Early in a hand every type keeps its prior
    share (a fifth each under ``robust``), so ``reply=weak`` alone plays a strong
    opponent as random or greedy in about a third of the iterations; with
    ``reply_min=0.5`` a seat is played as weak only once its plays have made that type
    the more likely half (how often that happens against ``greedy`` and against the
    searches of the round robin: ``python -m scopa_sim.experiments.reply_min``).
    ``reply_gate=x`` in [0, 1] (with ``reply=tree|model|weak``, instead of ``reply_min``)
    is ``reply_min=x`` that also falls back all the way: at a decision where no other
    side's seat has a posterior on a modelled type that reaches ``x``, the search is the
    one without ``reply=`` (the same kernel call, the same random numbers), so against
    players who never look weak enough the bot makes exactly the plays of ``reply=uct``
    at the same budget.
    With ``objective=match`` the backed-up rewards are the match objective's values of
    the hand (in points, on the scale of margins, see :mod:`scopa_sim.bots.objective`; at a
    horizon the estimated points are valued so, ``leaf=estimate`` only).

    The learned policy's model (the shipped weights of the rules,
    :func:`scopa_sim.bots.learned_weights.load_weights`) serves three ways.
    ``rollout=learned`` plays the rollouts by the model's best play (ties at random; the
    model alone, without the learned policy's exact endgame). ``leaf=learned`` (with
    ``horizon=``) values the position where a rollout stops by the expert's evaluation of
    the piles, scope included (as ``leaf=expert``), plus the model's value of the best
    play of the seat to play there: the change in points it expects from its play, the
    next seat's reply included (the other sides get their evaluation less that value).
    ``prior=learned,prior_visits=N`` (N > 0, 10 when not given) gives each root play N
    virtual visits at its prior value, the root side's evaluation plus the model's value
    of the play, in UCB1's mean: the model steers the root while a play has few visits of
    its own and the search's own values take over as they grow (the visits that choose
    the play are the real ones). Each is refused with ``objective=match`` (the model's
    values are hand points), and under rules without trained weights.

    Budget: ``iterations``, or ``ms`` milliseconds when given (then results depend on
    machine speed; with ``iterations`` they are deterministic per seed).

    Cirulla (RULES.md §10) is searched by
    :func:`scopa_sim._engine.ismcts_cirulla.ismcts_run_cirulla`: a play is the card, its
    take, the matta's named value and the declaration; every iteration's world keeps the
    hands shown by declarations and, under ``declare=auto``, deals a seat that played
    without declaring a hand that does not qualify; rollouts by Cirulla's policies; values
    are Cirulla's hand margins, or with ``objective=match`` the match values of Cirulla's
    table. ``iterations``, ``ms``, ``c``, ``rollout``, ``exact``, ``horizon``, ``leaf=expert``
    (:func:`scopa_sim._engine.values_cirulla.expert_leaf_cirulla`), the match objective,
    and the learned model on its Cirulla weights (``rollout=learned``, ``leaf=learned``,
    ``prior``, ``prior_visits``: ``leaf=learned`` and the prior anchor the model's values at
    the expert's Cirulla evaluation of the piles, grande and piccola included, plus the
    scope and declared points, the model's differences between plays put on the level of
    the expert's play values, :func:`scopa_sim._engine.ismcts_cirulla.anchored_plays`)
    apply, and so do ``belief=`` (the belief weighs a seat's plays by Cirulla's legal
    plays and play values, the hands shown by declarations known:
    :func:`scopa_sim._engine.belief.decision_loglik_cirulla`) and ``reply=`` (the other
    sides' seats played by Cirulla's play models), so ``best`` plays Cirulla.
    """

    CHUNK = 128
    EXACT_TT = 1 << 14
    #: ``reply=``: how the tree plays the other sides' seats (see the class docstring).
    REPLIES = ("uct", "tree", "model", "weak")
    ROLLOUTS: ClassVar[dict[str, int]] = {
        "random": K.POLICY_RANDOM,
        "greedy": K.POLICY_GREEDY,
        "expert": K.POLICY_EXPERT,
        "learned": K.POLICY_LEARNED,
    }
    #: ``leaf=``: PIMC's leaves and the learned model's (:data:`.ismcts.LEAF_LEARNED`).
    LEAVES: ClassVar[dict[str, int]] = {**PIMCBot.LEAVES, "learned": KI.LEAF_LEARNED}
    #: ``prior=``: none, or the learned model's values of the root's plays.
    PRIORS = ("none", "learned")
    #: ``prior_visits=`` when ``prior=learned`` is given without it.
    PRIOR_VISITS = 10.0

    def __init__(
        self,
        iterations: int = 1000,
        c: float = 0.7,
        rollout: str = "random",
        ms: float | None = None,
        exact: int = 0,
        horizon: int | None = None,
        leaf: str = "estimate",
        belief: str = "uniform",
        objective: str = "margin",
        equity: str | None = None,
        match_leaf: str = "normal",
        match_close: float = 0.0,
        reply: str = "uct",
        uniform: float | None = None,
        uct_floor: float = 0.0,
        reply_min: float = 0.0,
        reply_gate: float = 0.0,
        prior: str = "none",
        prior_visits: float | None = None,
    ) -> None:
        belief_name = self._set_belief(belief, uniform)
        if reply not in self.REPLIES:
            raise ValueError(f"reply must be one of {', '.join(self.REPLIES)}, got {reply!r}")
        if reply != "uct" and belief == "uniform":
            raise ValueError(
                f"reply={reply} plays the other seats by a belief's model: give belief="
            )
        used = "sets when the opponent model of reply=tree|model|weak is used"
        for key, weight, what in (
            ("uct_floor", uct_floor, "tempers the opponent model of reply=tree|model|weak"),
            ("reply_min", reply_min, used),
            ("reply_gate", reply_gate, used),
        ):
            if not 0.0 <= weight <= 1.0:
                raise ValueError(f"{key} must be a weight in [0, 1], got {weight!r}")
            if weight and reply == "uct":
                raise ValueError(f"{key}= {what}: give that")
        if reply_gate and reply_min:
            raise ValueError("reply_gate= is reply_min= with an exact fallback: give one of them")
        self.reply = reply
        self.uct_floor = uct_floor
        self.reply_min = reply_min
        self.reply_gate = reply_gate
        if iterations < 1 or c < 0 or (ms is not None and ms <= 0):
            raise ValueError("iterations must be >= 1, c >= 0, ms > 0")
        if exact not in (0, 1):
            raise ValueError(f"exact must be 0 or 1, got {exact!r}")
        if rollout not in self.ROLLOUTS:
            raise ValueError(f"rollout must be one of {', '.join(self.ROLLOUTS)}, got {rollout!r}")
        if horizon is not None and not 0 <= horizon < KSO.FULL_DEPTH:
            raise ValueError(f"horizon must be in [0, {KSO.FULL_DEPTH}), got {horizon!r}")
        if leaf not in self.LEAVES:
            raise ValueError(f"leaf must be one of {', '.join(self.LEAVES)}, got {leaf!r}")
        if leaf != "estimate" and horizon is None:
            raise ValueError("leaf= values the position where a rollout stops: give horizon= too")
        _match_leaf(objective, leaf)
        self.leaf = leaf
        self._leaf = self.LEAVES[leaf]
        self.prior, self.prior_visits = self._check_prior(prior, prior_visits, objective)
        self._weights: np.ndarray | None = None  # the learned weights of ``_weights_rules``
        self._weights_rules: Rules | None = None
        self.iterations, self.c, self.rollout, self.ms = iterations, c, rollout, ms
        self.exact, self.horizon = exact, horizon
        self._horizon = KSO.FULL_DEPTH if horizon is None else horizon
        suffix = self._objective(objective, equity, match_leaf, match_close)
        #: the tree's sums are in units of 1 / _unit points
        self._unit = 1 if horizon is None and self._match is None else KI.EST_UNIT
        self._policy = self.ROLLOUTS[rollout]
        budget = f"ms={ms:g}" if ms is not None else f"iterations={iterations}"
        self.name = (
            f"ismcts:{budget},c={c:g},rollout={rollout}"
            + (f",exact={exact}" if exact else "")
            + (f",horizon={horizon}" if horizon is not None else "")
            + (f",leaf={leaf}" if leaf != "estimate" else "")
            + belief_name
            + (f",reply={reply}" if reply != "uct" else "")
            + (f",uct_floor={uct_floor:g}" if uct_floor else "")
            + (f",reply_min={reply_min:g}" if reply_min else "")
            + (f",reply_gate={reply_gate:g}" if reply_gate else "")
            + (f",prior={prior},prior_visits={self.prior_visits:g}" if prior != "none" else "")
            + suffix
        )
        self.last_iterations = 0

    @classmethod
    def _check_prior(cls, prior: str, visits: float | None, objective: str) -> tuple[str, float]:
        """``prior=`` and ``prior_visits=`` checked: the prior and its virtual visits (0
        without a prior)."""
        if prior not in cls.PRIORS:
            raise ValueError(f"prior must be one of {', '.join(cls.PRIORS)}, got {prior!r}")
        if prior == "none":
            if visits is not None:
                raise ValueError("prior_visits= weighs the root prior: give prior=learned too")
            return prior, 0.0
        if objective != "margin":
            raise ValueError("prior=learned values plays in hand points: use objective=margin")
        visits = cls.PRIOR_VISITS if visits is None else visits
        if not 0 < visits <= 1e6:
            raise ValueError(f"prior_visits must be in (0, 1e6], got {visits!r}")
        return prior, float(visits)

    @property
    def uses_model(self) -> bool:
        """Whether the search plays the learned policy's model (a rollout, leaf or prior)."""
        return "learned" in (self.rollout, self.leaf, self.prior)

    def prepare(self, rules: Rules) -> None:
        """Load what the search needs for ``rules`` before its first decision: the match
        objective's equity table, the learned model's weights.

        Raises:
            EquityError: the match objective's table does not fit the rules.
            PolicyError: the learned model under rules without weights.
            FileError: their file is missing or corrupt.
        """
        super().prepare(rules)
        if self.uses_model:
            load_weights(rules)

    def _learned_args(self, state: HandState, info: InfoSet) -> dict[str, object]:
        """The learned model's keyword arguments of
        :func:`scopa_sim._engine.ismcts.ismcts_run` (none when the search does not use it):
        the model, and with ``prior=learned`` each legal root play's value, the expert's
        evaluation of the root side's piles (scope included) plus the model's value of the
        play (points)."""
        if not self.uses_model:
            return {}
        if self._weights_rules is not state.rules:  # looked up once per rules object
            self._weights, self._weights_rules = load_weights(state.rules), state.rules
        model = self._weights
        if self.prior == "none":
            return {"model": model}
        prior = np.empty((K.MAX_PLAYS, 3))
        n = int(KI.root_prior(info.vector, state._r, model, prior))
        prior = prior[:n]
        return {"model": model, "prior": prior, "prior_visits": self.prior_visits}

    def tree(self, state: HandState, seed: int) -> tuple[np.ndarray, int]:
        """Build the search tree: the node pool (``T_*`` columns of
        :mod:`scopa_sim._engine.ismcts`) and its node count."""
        if state.rules.capture_mode == "cirulla":
            return self._tree_cirulla(state, seed)
        info = InfoSet(state)
        root, r = info.vector, state._r
        rng = K.new_rng(K.derive_seed(_mask63(seed), 6, 0, 0))
        eq = self._eq(info)
        self._set_unit(eq)
        args = self._belief_args(
            state, seed, eq, (self.c, self._policy, self._horizon, rng, _NO_LOG, self._leaf)
        )
        kw = self._learned_args(state, info)
        return self._grow(root, lambda t, n, k: int(KI.ismcts_run(root, r, t, n, k, *args, **kw)))

    def _tree_cirulla(self, state: HandState, seed: int) -> tuple[np.ndarray, int]:
        """:meth:`tree` of a Cirulla position (RULES.md §10) by
        :func:`scopa_sim._engine.ismcts_cirulla.ismcts_run_cirulla`: the root is the seat's
        canonical world (:func:`scopa_sim.game.worlds.deal_hidden` without a generator), every
        iteration deals again the stock and the hands not shown by a declaration, keeping
        what a quiet first play says under ``declare=auto``
        (:func:`scopa_sim.game.worlds.quiet_hands`); with a belief, from its particles
        (its Cirulla evidence: :func:`scopa_sim._engine.belief.decision_loglik_cirulla`),
        and with ``reply=`` the other sides' seats played by its channels, as on Scopa."""
        eq = self._eq(state)
        self._set_unit(eq)
        hidden = _hidden_seats(state)
        root, r = deal_hidden(state, hidden, None), state.rules._packed
        quiet = np.full(4, -1, dtype=np.int64)
        for s, m in quiet_hands(state, hidden).items():
            quiet[s] = m
        mask = sum(1 << s for s in hidden)
        rng = K.new_rng(K.derive_seed(_mask63(seed), 6, 0, 0))
        lp = self._learned_cirulla(state, root)
        args = self._belief_args(
            state, seed, eq, (float(self.c), self._policy, self._horizon, rng, mask, quiet, lp,
                              self._leaf)
        )  # fmt: skip
        return self._grow(
            root, lambda t, n, k: int(KIC.ismcts_run_cirulla(root, r, t, n, k, *args))
        )

    def _belief_args(
        self, state: HandState, seed: int, eq: np.ndarray | None, args: tuple[object, ...]
    ) -> tuple[object, ...]:
        """The run's positional arguments ``args`` followed by what the kernels
        (:func:`scopa_sim._engine.ismcts.ismcts_run`,
        :func:`scopa_sim._engine.ismcts_cirulla.ismcts_run_cirulla`) take after them: the
        match table ``eq`` (None: the margin's), then with a belief its particles and with
        ``reply=`` its play models (this decision's belief, :meth:`_worlds_from`)."""
        parts, cum = self._worlds_from(state, seed)
        models = self._reply_models() if self.reply != "uct" else None
        if models is not None:
            return (*args, _NO_EQ if eq is None else eq, parts, cum, models)
        if self.belief != "uniform":
            return (*args, _NO_EQ if eq is None else eq, parts, cum)
        return args if eq is None else (*args, eq)

    def _learned_cirulla(
        self, state: HandState, root: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, float]:
        """The learned model's argument ``lp`` of
        :func:`scopa_sim._engine.ismcts_cirulla.ismcts_run_cirulla` (its ``NO_LEARNED``
        when the search does not use it): the rules' Cirulla weights, with
        ``prior=learned`` each legal root play's value
        (:func:`scopa_sim._engine.ismcts_cirulla.root_prior_cirulla`) and the virtual
        visits."""
        if not self.uses_model:
            return KIC.NO_LEARNED
        if self._weights_rules is not state.rules:  # looked up once per rules object
            self._weights, self._weights_rules = load_weights(state.rules), state.rules
        model = self._weights
        assert model is not None
        prior = KIC.NO_LEARNED[1]
        if self.prior != "none":
            rows = np.empty((K.MAX_PLAYS, 3))
            prior = rows[: int(KIC.root_prior_cirulla(root, state.rules._packed, model, rows))]
        return model, prior, float(self.prior_visits)

    def _set_unit(self, eq: np.ndarray | None) -> None:
        """The unit of this decision's tree sums (``1 / _unit`` points): whole points for
        full rollouts valued by margins, ``EST_UNIT`` at a horizon or with the match
        objective; decided per decision, as ``match_close`` leaves some hands to the
        margin (their full rollouts then in whole points)."""
        self._unit = 1 if self._horizon >= KSO.FULL_DEPTH and eq is None else KI.EST_UNIT

    def _grow(
        self, root: np.ndarray, run: Callable[[np.ndarray, int, int], int]
    ) -> tuple[np.ndarray, int]:
        """A new tree at ``root`` grown by ``run(tree, count, iterations) -> count`` for the
        budget: ``iterations`` in one call, or chunks of :attr:`CHUNK` until ``ms`` have
        passed (the pool doubled as needed); return the pool and its node count."""
        cap = (self.iterations if self.ms is None else 4096) + 1
        tree = np.empty((cap, KI.T_COLS), dtype=np.int64)
        count = int(KI.ismcts_init(root, tree))
        if self.ms is None:
            count = run(tree, count, self.iterations)
            self.last_iterations = self.iterations
            return tree, count
        end = time.perf_counter() + self.ms / 1000.0
        done = 0
        while True:
            if count + self.CHUNK > tree.shape[0]:
                tree = np.concatenate([tree, np.empty_like(tree)])
            count = run(tree, count, self.CHUNK)
            done += self.CHUNK
            if time.perf_counter() >= end:
                break
        self.last_iterations = done
        return tree, count

    def _reply_models(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, bool] | None:
        """``reply=tree|model``: the belief's channels, each seat's posterior over them and
        whether the rollouts follow them too, as
        :func:`scopa_sim._engine.ismcts.ismcts_run` takes them (the last decision's belief);
        None where ``reply_gate`` closes: no seat of another side has a modelled type at
        least that likely (the kernel models those seats only)."""
        b = self.last_belief
        assert b is not None and b.model is not None  # reply=model needs a belief model
        kinds, taus, eps, _, _ = b.model.arrays()
        # the channel fitted to this search's own plays stands for a seat that plays
        # like it (flat or not): that seat is searched as in reply=uct (UCB1), not
        # replayed as an expert
        kinds = kinds.copy()
        for i, ch in enumerate(b.model.channels):
            # reply=weak: only the weak types (random, greedy) are played by their model;
            # an expert-like seat is searched by UCB1 (cheap: no expert values in the tree)
            if ch.plays == SEARCH_CHANNEL.plays or (self.reply == "weak" and ch.kind == "expert"):
                kinds[i] = KI.KIND_SEARCH
        post = np.array(b.post, dtype=np.float64)
        search = int(np.flatnonzero(kinds == KI.KIND_SEARCH)[0])
        least = self.reply_min or self.reply_gate
        if least:
            # a type less likely than reply_min (reply_gate) is not trusted: its share is
            # searched
            modelled = kinds != KI.KIND_SEARCH
            unsure = (post < least) & modelled[None, :]
            post[:, search] += np.where(unsure, post, 0.0).sum(axis=1)
            post[unsure] = 0.0
            rules = b.observations.rules
            others = [s for s in range(rules.players) if rules.side_of(s) != rules.side_of(b.seat)]
            if self.reply_gate and not post[np.ix_(others, modelled)].any():
                return None
        if self.uct_floor:
            # a share uct_floor of each seat's replies is searched by UCB1 whatever its
            # posterior: a wrong model of a strong player costs at most the rest
            post = post * (1.0 - self.uct_floor)
            post[:, search] += self.uct_floor
        return kinds, taus, eps, post, self.reply == "model"

    def _solve_known(self, info: InfoSet) -> list[PlayStats]:
        """Exact values when the information set is one world (see :meth:`analyse`)."""
        tt = getattr(self, "_tt", None)
        if tt is None:
            size = self.EXACT_TT
            tt = self._tt = (np.zeros(size, np.int64), np.zeros(size), np.zeros(size, np.int64))
        else:
            tt[0].fill(0)
        meta = np.zeros(KSO.N_INFO, dtype=np.int64)
        meta[KSO.V_TT_MASK] = tt[0].shape[0] - 1
        meta[KSO.V_SALT] = 1
        bc = np.empty(K.MAX_PLAYS, dtype=np.int64)
        bt = np.empty(K.MAX_PLAYS, dtype=np.int64)
        vals = np.empty(K.MAX_PLAYS, dtype=np.float64)
        tk, tv, tm = tt
        args = (info.vector, info._r, KSO.FULL_DEPTH, tk, tv, tm, meta, bc, bt, vals)
        eq = self._eq(info)
        n = int(KSO.solve_root(*args) if eq is None else KSO.solve_root(*args, eq))
        stats = []
        for i in range(n):
            v = float(vals[i])
            stats.append(PlayStats(Play(int(bc[i]), int(bt[i])), exact_estimate(v), False, True))
        return _rank(stats, lambda s: (-s.mean, s.play.card, s.play.take))

    def analyse(self, state: HandState, seed: int) -> list[PlayStats]:
        """Every legal play at the root of the search tree, most visited first, with its mean value
        and 95% interval over its visits (solved exactly with ``exact=1`` when the information
        set is one world).
        """
        cirulla = state.rules.capture_mode == "cirulla"
        if self.exact and cirulla:
            hidden = [s for s in _hidden_seats(state) if state.hand(s)]
            if not state.stock and len(hidden) <= 1:
                return self._solve_known_cirulla(state)
        elif self.exact:
            info = InfoSet(state)
            others = [n for s, n in enumerate(info.hand_sizes) if s != info.seat and n]
            if info.stock_size == 0 and len(others) <= 1:
                return self._solve_known(info)
        tree, _ = self.tree(state, seed)
        out: list[PlayStats] = []
        ch = int(tree[0, KI.T_CHILD])
        while ch >= 0:
            n = int(tree[ch, KI.T_VISITS])
            code, take = int(tree[ch, KI.T_CARD]), int(tree[ch, KI.T_TAKE])
            if cirulla:  # the card and its meta (the named value, the declaration)
                play = Play.from_meta(code & 63, take, code >> KIC.CODE_SHIFT)
            else:
                play = Play(code, take)
            if n:
                total, sq = float(tree[ch, KI.T_SUM]), float(tree[ch, KI.T_SQ])
                if self._unit != 1:
                    total, sq = total / self._unit, sq / self._unit**2
                mean = total / n
                var = max(0.0, (sq - n * mean * mean) / (n - 1)) if n > 1 else 0.0
                out.append(_stats(play, n, mean, var))
            else:
                out.append(
                    PlayStats(play, Estimate(math.nan, math.nan, math.nan, 0, "normal"), False)
                )
            ch = int(tree[ch, KI.T_NEXT])
        # children are linked newest first; rank by visits, then mean, then play order
        # (Cirulla: a declared play after its quiet twin, a smaller named value first)
        return _rank(
            out,
            lambda s: (
                -s.n,
                -(s.mean if s.n else -math.inf),
                s.play.card,
                s.play.take,
                s.play.meta,
            ),
        )

    def _solve_known_cirulla(self, state: HandState) -> list[PlayStats]:
        """:meth:`_solve_known` of a Cirulla position (RULES.md §10) whose information set
        is one world (the stock played out, at most one hand not seen or shown): that
        world solved by :func:`scopa_sim._engine.solver_cirulla.solve_root_cirulla`."""
        world = deal_hidden(state, _hidden_seats(state), None)
        size = self.EXACT_TT
        tk, tv, tm = np.zeros(size, np.int64), np.zeros(size), np.zeros(size, np.int64)
        info = np.zeros(KSO.N_INFO, dtype=np.int64)
        info[KSO.V_TT_MASK] = size - 1
        info[KSO.V_SALT] = 1
        bc, bt, bm = (np.empty(K.MAX_PLAYS, dtype=np.int64) for _ in range(3))
        vals = np.empty(K.MAX_PLAYS, dtype=np.float64)
        args = (world, state.rules._packed, KSO.FULL_DEPTH, tk, tv, tm, info, bc, bt, bm, vals)
        eq = self._eq(state)
        n = int(KSC.solve_root_cirulla(*args) if eq is None else KSC.solve_root_cirulla(*args, eq))
        stats = [
            PlayStats(
                Play.from_meta(int(bc[i]), int(bt[i]), int(bm[i])),
                exact_estimate(float(vals[i])),
                False,
                True,
            )
            for i in range(n)
        ]
        return _rank(stats, lambda s: (-s.mean, s.play.card, s.play.take, s.play.meta))


def _hidden_seats(state: HandState) -> list[int]:
    """The seats whose hands the seat to play cannot see in a Cirulla position (RULES.md
    §10): every other seat but those that have shown their hands by declaring."""
    shown = set(state.shown)
    return [s for s in range(state.players) if s != state.turn and s not in shown]


def _match_leaf(objective: str, leaf: str) -> None:
    """The match objective values a depth limit by each side's estimated points, which
    ``leaf=expert`` (a margin) does not give."""
    if objective == "match" and leaf != "estimate":
        raise ValueError("objective=match values leaves by estimated points: use leaf=estimate")


# --------------------------------------------------------------------------- playing
def move_seed(deck_seed: int, plays_made: int, seat: int) -> int:
    """The seed a bot gets for one move of a deal (independent streams per move)."""
    return _mask63(K.derive_seed(_mask63(deck_seed), 7, plays_made, seat))


def deal_seed(seed: int, deal: int) -> int:
    """The deck seed of deal ``deal`` of a run seeded ``seed`` played hand by hand with
    :func:`play_deal` (a stream of its own for each deal, ``deal >= 0``)."""
    return _mask63(K.derive_seed(seed, 8, deal, 0))


def play_deal(
    rules: Rules, bots_by_seat: Sequence[Bot], deck_seed: int, dealer: int = 0
) -> list[int]:
    """Play one hand dealt from ``deck_seed`` (as :meth:`HandState.deal`) with one bot per
    seat; return the points of each side.  Each move's seed is :func:`move_seed`.

    Args:
        rules: the rules of the hand.
        bots_by_seat: one bot a seat.
        deck_seed: the seed of the deck.
        dealer: the dealer's seat.
    """
    if len(bots_by_seat) != rules.players:
        raise ValueError(f"need {rules.players} bots, got {len(bots_by_seat)}")
    state = HandState.deal(rules, dealer=dealer, seed=deck_seed)
    while not state.is_over:
        seat = state.turn
        play = bots_by_seat[seat].choose(state, move_seed(deck_seed, state.plays_made, seat))
        state.push(play)
    return state.points
