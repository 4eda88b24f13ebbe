"""Beliefs over the hidden cards: what the other seats hold, given what a seat has seen.

Every search here used to draw the hidden cards uniformly, although the other seats'
plays say a lot about them: a player who lays a card while holding a capture it would
have made, or who leaves the settebello on the table, tells you what it lacks.  A
:class:`Belief` weighs every possible current hand of each other seat by the
likelihood of that seat's observed plays under a model of its play
(:class:`BeliefModel`, a mixture of *channels*: random, greedy and the expert policy
softened to a temperature), with the seat's type (the channel) inferred from its plays
at the same time.  Earlier deal rounds were played with hands now known, so they are
evidence about the type alone; the current round's plays are evidence about the cards.
The kernels are in :mod:`scopa_sim._engine.belief`; the search bots draw their worlds from a
belief with the policy parameter ``belief=`` (:data:`BELIEFS`).

Models (:data:`MODELS`):

* ``uniform`` -- no model: today's uniform draw;
* ``expert`` -- the other seats play like the expert policy, softened: softmax of its
  play values at temperature :data:`EXPERT_TAU` points with a floor of
  :data:`EXPERT_EPS` uniform; both fitted by maximum likelihood to the plays of the
  documented best bot, ``ismcts:iterations=1000,horizon=4,c=1``, in self-play
  (``python -m scopa_sim.experiments.belief --parts fit``);
* ``fit`` -- a posterior over a family (random; greedy; the expert exactly; the expert
  at the fitted temperature; the expert at temperature 1), updated from every observed
  play of the seat: a random player comes out as random, so its plays move the belief
  little (a wrong model is not exploited against us), and a greedy one is recognised.
* ``robust`` -- ``fit``'s family with *flat* types (:class:`Channel`): random play, and a
  share ``uniform`` (:data:`ROBUST_UNIFORM` by default) of the "plays like a strong
  search" type, are types whose plays say nothing about the hand: a seat recognised as
  one of them gets uniform worlds.  The weight moves with the seat's own plays (the
  type posterior, from every play of the hand): against a greedy or expert player the
  belief keeps ``fit``'s inference, against a strong searcher or a random player it
  falls back towards the uniform draw the plain search makes (:func:`robust_model`).

Only what the seat has seen is read: the positions before each play of the hand as it
saw them (:class:`Observations`, canonical worlds of its information sets), the plays,
and its view now; moving hidden cards between hidden places (sizes kept) leaves a
belief unchanged.  The history is the :class:`~scopa_sim.game.state.HandState`'s pushed
plays; a position built without them (``from_position``) has no evidence, and its
belief is uniform.

    >>> b = belief(state, "fit")
    >>> b.holdings(1)[:3]        # most likely hands of seat 1, with probabilities
    >>> b.type_posterior(1)      # how seat 1 seems to play
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from scopa_sim import _engine as K
from scopa_sim._engine import belief as KB
from scopa_sim._engine import determinize as KD
from scopa_sim.errors import PolicyError
from scopa_sim.game.cards import CardSet, card_name
from scopa_sim.game.infoset import InfoSet
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import HandState
from scopa_sim.game.worlds import deal_hidden, particle_hands, quiet_hands

#: The expert channel's temperature (points) and uniform floor of ``belief=expert``:
#: the maximum-likelihood point of the grid of ``python -m scopa_sim.experiments.belief`` (part
#: fit) on the 19,321 decisions with a choice of 800 hands of
#: ``ismcts:iterations=1000,horizon=4,c=1`` self-play in 2-player scopa (seed 2028):
#: -0.566 nats per decision, against -0.908 for uniform play and -0.623 at tau=0.25.
EXPERT_TAU = 0.05
EXPERT_EPS = 0.2

_KINDS = {"random": KB.KIND_RANDOM, "greedy": KB.KIND_GREEDY, "expert": KB.KIND_EXPERT}
_METHODS = {
    KB.METHOD_UNIFORM: "uniform",
    KB.METHOD_EXACT: "exact",
    KB.METHOD_JOINT: "joint",
    KB.METHOD_MCMC: "mcmc",
}
_NO_PARTS = np.empty((0, 4), dtype=np.int64)
_NO_CUM = np.empty(0, dtype=np.float64)


@dataclass(frozen=True)
class Channel:
    """One model of a seat's play: ``kind`` (``random``, ``greedy`` or ``expert``), a
    softmax temperature ``tau`` in points of the kind's play values (0: uniform over
    the best plays, the bots' own rule) and a uniform floor ``eps`` (the probability of
    any legal play is at least ``eps / n``).  ``random`` takes neither."""

    kind: str
    tau: float = 0.0
    eps: float = 0.0
    #: A flat type: its plays count for the type posterior, but given it the seat's hand
    #: is uniform over the hands its plays leave legal (:mod:`scopa_sim._engine.belief`).
    flat: bool = False

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise PolicyError(f"unknown play model {self.kind!r}; allowed: {', '.join(_KINDS)}")
        if not (0.0 <= self.tau < math.inf) or not 0.0 <= self.eps <= 1.0:
            raise PolicyError(f"play model {self.kind}: need tau >= 0 and 0 <= eps <= 1")
        if self.kind == "random" and (self.tau or self.eps):
            raise PolicyError("the random play model takes no tau or eps")
        if self.kind != "random" and self.tau == 0.0 and self.eps == 0.0:
            # one unexpected play would rule out the true hand
            raise PolicyError(f"play model {self.kind} with tau=0 needs eps > 0")

    @property
    def label(self) -> str:
        """The channel's name: its kind and parameters, and whether its hands are flat."""
        text = (
            "random" if self.kind == "random" else f"{self.kind}(tau={self.tau:g},eps={self.eps:g})"
        )
        return text + (", uniform hands" if self.flat else "")

    @property
    def plays(self) -> tuple[str, float, float]:
        """The play model alone (kind, tau, eps), flat or not."""
        return self.kind, self.tau, self.eps


@dataclass(frozen=True)
class BeliefModel:
    """A mixture of channels with prior weights; per seat, the posterior over the
    channels and the hands is computed jointly.  ``cap``: the largest number of
    (candidate hand x decision x (hand size + 1)) a seat is enumerated with (2-player
    hands: at most 1,488, always exact); several
    enumerated seats give ``particles`` joint particles by rejection; beyond ``cap``
    a Metropolis chain (``burn`` swaps, then a particle every ``thin``) gives
    ``chain`` particles (each swap costs two seats' likelihoods: the chain is kept
    short, so that a 10-card hand's belief stays cheap)."""

    name: str
    channels: tuple[Channel, ...]
    prior: tuple[float, ...]
    cap: int = 5_000
    particles: int = 512
    chain: int = 64
    burn: int = 64
    thin: int = 2
    _arrays: dict = field(default_factory=dict, compare=False, repr=False, hash=False)

    def __post_init__(self) -> None:
        if not self.channels or len(self.prior) != len(self.channels):
            raise PolicyError(f"belief model {self.name}: one prior weight per channel")
        if any(not p > 0 for p in self.prior):
            raise PolicyError(f"belief model {self.name}: prior weights must be > 0")
        if min(self.cap, self.particles, self.chain, self.thin) < 1 or self.burn < 0:
            raise PolicyError(
                f"belief model {self.name}: cap, particles, chain, thin >= 1, burn >= 0"
            )

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The kernel's inputs: kinds, taus, eps, log prior (normalised), flat flags."""
        if not self._arrays:
            total = sum(self.prior)
            self._arrays["a"] = (
                np.array([_KINDS[c.kind] for c in self.channels], dtype=np.int64),
                np.array([c.tau for c in self.channels], dtype=np.float64),
                np.array([c.eps for c in self.channels], dtype=np.float64),
                np.log(np.array(self.prior, dtype=np.float64) / total),
                np.array([int(c.flat) for c in self.channels], dtype=np.int64),
            )
        return self._arrays["a"]


#: The channel of ``belief=expert``, fitted to the documented best bot's own plays: in
#: ISMCTS's ``reply=tree|model`` a seat that plays like it is searched as the bot searches
#: itself, by UCB1 (see :class:`scopa_sim.bots.search.ISMCTSBot`).
SEARCH_CHANNEL = Channel("expert", EXPERT_TAU, EXPERT_EPS)

#: ``fit``'s family: random, greedy, the expert exactly, the searcher's fitted channel and
#: the expert at temperature 1.
FIT_CHANNELS = (
    Channel("random"),
    Channel("greedy", 0.0, 0.02),
    Channel("expert", 0.0, 0.02),
    SEARCH_CHANNEL,
    Channel("expert", 1.0, 0.05),
)

#: The default share of the "plays like a strong search" type whose hand ``robust`` takes
#: as uniform (the ``uniform=`` policy parameter).
ROBUST_UNIFORM = 0.5


def robust_model(uniform: float = ROBUST_UNIFORM) -> BeliefModel:
    """``fit``'s family made hard to exploit: random play is a flat type (its plays say
    nothing about its hand), and the searcher's channel is split into an informative
    type of prior ``1 - uniform`` and a flat one of prior ``uniform`` (each of the
    other types has prior 1).  ``uniform`` in [0, 1]; 0 keeps the searcher's inference
    (only random play flat), 1 gives a seat that plays like a search uniform worlds.
    The name is ``robust`` at the default weight, ``robust(uniform=W)`` otherwise.

    Raises:
        PolicyError: ``uniform`` is not a number in [0, 1].
    """
    if not (isinstance(uniform, int | float) and 0.0 <= uniform <= 1.0):
        raise PolicyError(f"belief weight uniform={uniform!r}: need a number in [0, 1]")
    name = "robust" if uniform == ROBUST_UNIFORM else f"robust(uniform={uniform:g})"
    _, greedy, exact, search, warm = FIT_CHANNELS
    channels = [Channel("random", flat=True), greedy, exact]
    prior = [1.0, 1.0, 1.0]
    if uniform < 1.0:
        channels.append(search)
        prior.append(1.0 - uniform)
    if uniform > 0.0:
        channels.append(Channel(search.kind, search.tau, search.eps, flat=True))
        prior.append(uniform)
    channels.append(warm)
    prior.append(1.0)
    return BeliefModel(name, tuple(channels), tuple(prior))


#: Belief models by the name the ``belief=`` policy parameter takes (None: uniform).
MODELS: dict[str, BeliefModel | None] = {
    "uniform": None,
    "expert": BeliefModel("expert", (SEARCH_CHANNEL,), (1.0,)),
    "fit": BeliefModel("fit", FIT_CHANNELS, (1.0,) * len(FIT_CHANNELS)),
    "robust": robust_model(),
}
#: The values of the ``belief=`` policy parameter.
BELIEFS: tuple[str, ...] = tuple(MODELS)
#: The models a belief can be shown under (``advise --belief``, ``review --belief``): every
#: model but ``uniform``.
SHOWN_BELIEFS: tuple[str, ...] = tuple(n for n, m in MODELS.items() if m is not None)


def get_model(name: str | BeliefModel | None) -> BeliefModel | None:
    """A belief model by name (or as given); raises :class:`PolicyError` naming the
    allowed names.

    Raises:
        PolicyError: an unknown model name.
    """
    if name is None or isinstance(name, BeliefModel):
        return name
    if name not in MODELS:
        raise PolicyError(f"unknown belief {name!r}; allowed: {', '.join(BELIEFS)}")
    return MODELS[name]


class Observations:
    """What ``seat`` has seen of a hand: its view of the position before each pushed play
    (``hist[d]``, a canonical world: the unseen cards in card order, a hand shown by a
    Cirulla declaration kept), the plays (``cards``, ``takes``; ``metas``, Cirulla's
    named value and declaration, 0 in other games), and its view now (``root``, its
    canonical world's vector; ``infoset``, its
    :class:`~scopa_sim.game.infoset.InfoSet`, None on Cirulla, which has none; ``shown``,
    the hands shown by Cirulla declarations, by seat; ``quiet``, under Cirulla's
    ``declare=auto`` the other seats whose hands did not qualify, with the cards they
    played this deal, :func:`scopa_sim.game.worlds.quiet_hands`; ``unseen``,
    ``hand_sizes``, ``is_over``).  Built from the true state, it holds nothing of the
    hidden cards."""

    __slots__ = (
        "cards", "hand_sizes", "hist", "infoset", "is_over", "metas", "quiet", "root", "rules",
        "seat", "shown", "takes", "unseen",
    )  # fmt: skip

    def __init__(self, state: HandState, seat: int | None = None) -> None:
        seat = state.turn if seat is None else seat
        if not 0 <= seat < state.players:
            raise ValueError(f"seat must be 0..{state.players - 1}, got {seat}")
        self.rules = state.rules
        self.seat = seat
        r = _kernel_rules(state.rules)
        stack = state._stack
        d = len(stack)
        raw = np.empty((d, K.N_STATE), dtype=np.int64)
        self.cards = np.empty(d, dtype=np.int64)
        self.takes = np.empty(d, dtype=np.int64)
        self.metas = np.empty(d, dtype=np.int64)
        for i, (vec, play) in enumerate(stack):
            raw[i] = vec
            self.cards[i] = play.card
            self.takes[i] = play.take
            self.metas[i] = play.meta
        self.hist = np.empty_like(raw)
        KB.canonical_history(raw, r, seat, self.hist)
        self.hand_sizes = [state.hand(s).mask.bit_count() for s in range(state.players)]
        self.is_over = state.is_over
        if state.rules.cirulla:  # RULES.md §10: the hands shown by declarations are seen
            self.infoset = None
            self.root = np.empty(K.N_STATE, dtype=np.int64)
            KD.canonical_world(state._vec, r, seat, self.root)
            self.shown = {s: state.hand(s) for s in state.shown if s != seat}
            self.quiet = quiet_hands(state, self.hidden)
            unseen = CardSet(state.stock)
            for s in range(state.players):
                if s != seat and s not in self.shown:
                    unseen |= state.hand(s)
            self.unseen = unseen
        else:
            self.infoset = InfoSet(state, seat)
            self.root = self.infoset.vector
            self.shown = {}
            self.unseen = self.infoset.unseen
            self.quiet = {}

    @property
    def plays(self) -> int:
        """The plays observed."""
        return int(self.cards.shape[0])

    @property
    def hidden(self) -> list[int]:
        """The other seats whose hands the seat cannot see (not shown by a declaration)."""
        return [s for s in range(self.rules.players) if s != self.seat and s not in self.shown]


@dataclass(frozen=True, eq=False)
class Belief:
    """A seat's belief: weighted particles over the other seats' current hands (see
    :mod:`scopa_sim._engine.belief`), the posterior over each seat's play channels, and the
    method (``uniform``: no evidence; ``exact``: every candidate weighed; ``joint``,
    ``mcmc``: sampled particles)."""

    observations: Observations
    model: BeliefModel | None
    parts: np.ndarray
    cum: np.ndarray
    post: np.ndarray
    method: str

    @property
    def seat(self) -> int:
        """The seat whose belief this is (the one that observed)."""
        return self.observations.seat

    @cached_property
    def weights(self) -> np.ndarray:
        """The particles' probabilities."""
        return np.diff(self.cum, prepend=0.0)

    @property
    def seats(self) -> list[int]:
        """The seats whose hands the belief weighs (the others' are uniform)."""
        if not self.parts.shape[0]:
            return []
        return [s for s in range(self.observations.rules.players) if self.parts[0, s] >= 0]

    @cached_property
    def unseen(self) -> CardSet:
        """The cards the seat cannot see: the other hands (but those shown by a Cirulla
        declaration) and the stock."""
        return self.observations.unseen

    def hand_size(self, seat: int) -> int:
        """How many cards ``seat`` holds."""
        return self.observations.hand_sizes[seat]

    def holdings(self, seat: int, top: int | None = None) -> list[tuple[CardSet, float]]:
        """The hands ``seat`` may hold with their probabilities, most likely first (ties
        in card order); ``top`` limits the list.  A seat the belief does not weigh gets
        every hand of its size at the uniform probability."""
        if seat == self.seat or not 0 <= seat < self.observations.rules.players:
            raise ValueError(f"seat {seat} is not one of the other seats")
        if seat in self.observations.shown:  # a Cirulla declaration showed it
            return [(self.observations.shown[seat], 1.0)]
        if seat not in self.seats:
            k = self.hand_size(seat)
            cards = self.unseen.cards()
            n = math.comb(len(cards), k)
            out: list[tuple[CardSet, float]] = []
            # combinations in card order; only as many as asked for
            from itertools import combinations, islice

            for combo in islice(combinations(cards, k), top):
                out.append((CardSet(list(combo)), 1.0 / n))
            return out
        masks = self.parts[:, seat]
        flat = masks < 0  # particles whose hand is drawn uniformly (a flat type's share)
        uniq, inv = np.unique(masks[~flat], return_inverse=True)
        uniform = self.flat_share(seat) / math.comb(len(self.unseen), self.hand_size(seat))
        probs = np.bincount(inv, weights=self.weights[~flat], minlength=uniq.size) + uniform
        order = sorted(range(uniq.size), key=lambda i: (-probs[i], CardSet(int(uniq[i])).cards()))
        if top is not None:
            order = order[:top]
        return [(CardSet(int(uniq[i])), float(probs[i])) for i in order]

    def card_probabilities(self, seat: int) -> dict[str, float]:
        """For each card ``seat`` may hold (the unseen cards, in card order), the
        probability that it is in ``seat``'s hand: the hand's size over the unseen cards'
        number for a seat the belief does not weigh, else the particles' weight holding
        it.  The probabilities add up to the hand's size."""
        if seat == self.seat or not 0 <= seat < self.observations.rules.players:
            raise ValueError(f"seat {seat} is not one of the other seats")
        if seat in self.observations.shown:  # a Cirulla declaration showed it
            return {card_name(c): 1.0 for c in self.observations.shown[seat].cards()}
        cards = self.unseen.cards()
        if seat not in self.seats:
            p = self.hand_size(seat) / len(cards) if cards else 0.0
            return {card_name(c): p for c in cards}
        masks = self.parts[:, seat]
        flat = self.flat_share(seat) * self.hand_size(seat) / len(cards)
        held = (masks >= 0)[:, None] & ((masks[:, None] >> np.array(cards)) & 1 == 1)
        return {
            card_name(c): float(self.weights[held[:, i]].sum()) + flat for i, c in enumerate(cards)
        }

    def flat_share(self, seat: int) -> float:
        """The weight of the particles that draw ``seat``'s hand uniformly (a flat type's
        share of the Metropolis chain's particles, see :func:`robust_model`; 0 otherwise)."""
        if seat not in self.seats:
            return 0.0
        return float(self.weights[self.parts[:, seat] < 0].sum())

    def probability(self, hands: Mapping[int, CardSet]) -> float:
        """The probability of the weighed seats holding ``hands`` (exact with method
        ``exact``; the particles' frequency otherwise, a particle whose hand for a seat is
        drawn uniformly counting with that draw's probability)."""
        seats = self.seats
        if not seats:
            return self.uniform_probability(hands)
        parts = self.parts[:, seats]
        want = np.array([hands[s].mask for s in seats], dtype=np.int64)
        flat = parts < 0  # a hand drawn uniformly from the cards the others leave
        ok = ((parts == want) | flat).all(axis=1)
        p = np.where(ok, self.weights, 0.0)
        if flat.any():
            sizes = [self.hand_size(s) for s in seats]
            for i in np.flatnonzero(ok & flat.any(axis=1)):
                left = len(self.unseen) - sum(
                    k for k, f in zip(sizes, flat[i], strict=True) if not f
                )
                for k, f in zip(sizes, flat[i], strict=True):
                    if f:
                        p[i] /= math.comb(left, k)
                        left -= k
        return float(p.sum())

    def uniform_probability(self, hands: Mapping[int, CardSet]) -> float:
        """The probability of the weighed seats (all other seats when none is weighed)
        holding ``hands`` under the uniform draw."""
        obs = self.observations
        seats = self.seats or [
            s for s in range(obs.rules.players) if s != self.seat and s not in obs.shown
        ]
        left = len(self.unseen)
        p = 1.0
        for s in seats:
            k = self.hand_size(s)
            p /= math.comb(left, k)
            left -= k
        return p

    def log2_gain(self, truth: HandState) -> float:
        """log2 of the probability of the true hands of the weighed seats under this
        belief minus under the uniform draw (bits gained; 0 with no evidence, -inf
        when the belief rules the truth out)."""
        hands = {s: truth.hand(s) for s in range(truth.players) if s != self.seat}
        if not self.seats:
            return 0.0
        p = self.probability(hands)
        return math.log2(p) - math.log2(self.uniform_probability(hands)) if p > 0 else -math.inf

    def type_posterior(self, seat: int) -> dict[str, float]:
        """Posterior probability of each channel for ``seat`` (its prior when no model)."""
        if self.model is None:
            return {}
        return {c.label: float(self.post[seat, i]) for i, c in enumerate(self.model.channels)}

    def kernel_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """``(parts, cum)`` for :func:`scopa_sim._engine.determinize.draw_world` and the
        searches."""
        return self.parts, self.cum

    def sample(self, rng: np.random.Generator | int) -> HandState:
        """A world drawn from this belief (a full :class:`HandState`): a particle drawn by
        its weight, the hands it holds kept, the cards left dealt uniformly to the other
        hands and the stock. On Cirulla (RULES.md §10) as the searches' worlds
        (:func:`scopa_sim.game.worlds.deal_hidden`): a hand shown by a declaration kept, and
        a seat dealt here that kept quiet under ``declare=auto`` (``observations.quiet``)
        dealt again while its hand would qualify."""
        seed = int(rng.integers(0, 2**63 - 1)) if isinstance(rng, np.random.Generator) else rng
        obs = self.observations
        if obs.rules.cirulla:
            gen = np.random.default_rng(int(K.derive_seed(int(seed), 9, self.seat, 1)))
            fixed = particle_hands(self.parts, self.cum, gen)
            root = HandState(obs.rules, obs.root)
            return HandState(obs.rules, deal_hidden(root, obs.hidden, gen, fixed, obs.quiet))
        g = K.new_rng(K.derive_seed(int(seed), 9, self.seat, 1))
        vec = np.empty(K.N_STATE, dtype=np.int64)
        KD.draw_world(obs.root, _kernel_rules(obs.rules), self.seat, g, vec, self.parts, self.cum)
        return HandState(obs.rules, vec)


def compute_belief(obs: Observations, model: str | BeliefModel | None, seed: int = 0) -> Belief:
    """The belief of ``obs.seat`` under ``model`` (a name of :data:`MODELS` or a
    :class:`BeliefModel`); ``seed`` drives the sampled methods only (``joint``,
    ``mcmc``): the same observations, model and seed give the same belief."""
    m = get_model(model)
    nm = 1 if m is None else len(m.channels)
    if m is None or obs.is_over:
        post = np.full((4, nm), 1.0 / nm)
        return Belief(obs, m, _NO_PARTS, _NO_CUM, post, "uniform")
    kinds, taus, eps, logprior, flat = m.arrays()
    parts, cum, post, method = KB.compute(
        obs.root, _kernel_rules(obs.rules), obs.seat, obs.hist, obs.cards, obs.takes, obs.metas,
        kinds, taus, eps, logprior, m.cap, m.particles, m.chain, m.burn, m.thin,
        np.uint64(K.derive_seed(int(seed) & (2**63 - 1), 16, obs.plays, obs.seat)), flat,
    )  # fmt: skip
    return Belief(obs, m, parts, cum, post, _METHODS[int(method)])


def _kernel_rules(rules: Rules) -> np.ndarray:
    """The rules' vector the belief kernels read (Cirulla's, RULES.md §10, included)."""
    return rules.loop_array() if rules.cirulla else rules.to_array()


def play_log_likelihoods(
    state: HandState, card: int, take: int, channels: Sequence[Channel], meta: int = 0
) -> tuple[np.ndarray, int]:
    """How likely each channel makes a play, the mover's hand known: the play model's
    likelihood that the belief's evidence is weighed by, one decision at a time.

    Args:
        state: the position, the seat to play holding its true hand.
        card: the card played.
        take: the mask of the cards it takes.
        channels: the play models (:class:`Channel`: kind, ``tau``, ``eps``).
        meta: on Cirulla (RULES.md §10), the play's named value and declaration
            (:attr:`scopa_sim.game.play.Play.meta`; Cirulla's legal plays and play values
            weigh it); not read in other games.

    Returns:
        The natural log-probability of the play under each channel (``-inf`` in every
        channel if the play is not legal), and the number of legal plays.
    """
    kinds = np.array([_KINDS[c.kind] for c in channels], dtype=np.int64)
    taus = np.array([float(c.tau) for c in channels])
    eps = np.array([float(c.eps) for c in channels])
    out = np.empty(len(channels))
    r = _kernel_rules(state.rules)
    bc, bt, sc, xs, vx, vg = KB._workspace()
    if state.rules.cirulla:
        cw = KB.cirulla_workspace(np.zeros(1, dtype=np.int64))
        n = KB.decision_loglik_cirulla(state._vec, r, int(card), int(take), int(meta), kinds,
                                       taus, eps, out, bc, bt, sc, xs, vx, vg, cw)  # fmt: skip
    else:
        n = KB.decision_loglik(state._vec, r, int(card), int(take), kinds, taus, eps, out, bc,
                               bt, sc, xs, vx, vg)  # fmt: skip
    return out, int(n)


def belief(
    state: HandState,
    model: str | BeliefModel | None = "fit",
    seat: int | None = None,
    seed: int = 0,
) -> Belief:
    """The belief of ``seat`` (default: the seat to play) about the other hands of
    ``state`` (its pushed plays are the evidence), under ``model``."""
    return compute_belief(Observations(state, seat), model, seed)


def describe_belief(b: Belief, top: int = 5) -> list[str]:
    """Text lines: per other seat, its most likely hands with probabilities (against the
    uniform one) and how it seems to play."""
    lines = []
    rules = b.observations.rules
    for s in range(rules.players):
        if s == b.seat or not b.hand_size(s):
            continue
        k = b.hand_size(s)
        cards = f"{k} card" + ("s" if k != 1 else "")
        if s in b.observations.shown:
            held = b.observations.shown[s]
            lines.append(f"seat {s} ({cards}): shown by its declaration, [{held}]")
            continue
        uni = 1.0 / math.comb(len(b.unseen), k)
        if s not in b.seats:
            lines.append(f"seat {s} ({cards}): no evidence this round, every hand {uni:.2%}")
            continue
        shown = ", ".join(f"[{h}] {p:.1%}" for h, p in b.holdings(s, top))
        lines.append(f"seat {s} ({cards}, uniform {uni:.2%} each): {shown}")
        post = b.type_posterior(s)
        if len(post) > 1:
            best = sorted(post.items(), key=lambda kv: -kv[1])[:3]
            lines.append("  plays like " + ", ".join(f"{name} {p:.0%}" for name, p in best))
    if not lines:
        lines.append("no other seat holds cards")
    return lines


def belief_json(b: Belief, top: int = 10) -> dict[str, Any]:
    """The belief as ``advise --belief --json`` prints it (and the notebook API's
    :func:`scopa_sim.advise` returns it): per other seat holding cards, its most likely
    hands (``top``), each unseen card's probability of being in it, and the posterior
    over the model's channels."""
    seats = {}
    for s in range(b.observations.rules.players):
        if s == b.seat or not b.hand_size(s):
            continue
        seats[str(s)] = {
            "cards": b.hand_size(s),
            "weighed": s in b.seats,
            "holdings": [{"hand": str(h), "p": p} for h, p in b.holdings(s, top)],
            "card_probabilities": b.card_probabilities(s),
            "plays_like": b.type_posterior(s),
        }
    return {
        "model": b.model.name if b.model else "uniform",
        "method": b.method,
        "plays_seen": b.observations.plays,
        "seats": seats,
    }


__all__ = [
    "BELIEFS",
    "FIT_CHANNELS",
    "MODELS",
    "ROBUST_UNIFORM",
    "SEARCH_CHANNEL",
    "SHOWN_BELIEFS",
    "Belief",
    "BeliefModel",
    "Channel",
    "Observations",
    "belief",
    "belief_json",
    "compute_belief",
    "describe_belief",
    "get_model",
    "robust_model",
]
