"""Matches: hands dealt in turn until a side reaches the target (RULES.md §6).

Randomness is derived from (run seed, match, hand): the deck of hand ``h`` of
match ``m`` is shuffled from its own stream (so variants and policies sharing a
seed see the same decks), and the plays draw from a second stream.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from scopa_sim import _engine as K
from scopa_sim._engine import learned as KL
from scopa_sim._engine import learned_cirulla as KLC
from scopa_sim.bots.learned_weights import seat_model
from scopa_sim.bots.registry import PolicySpec
from scopa_sim.errors import MatchError, RulesError
from scopa_sim.game.cards import Card
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import HandState, check_match_totals, score_points

#: Stream numbers of :func:`_engine.streams.derive_seed` (those of the jitted loops).
STREAM_DEAL = K.STREAM_DEAL
STREAM_PLAY = K.STREAM_PLAY
STREAM_DEALER = K.STREAM_DEALER
STREAM_BOT = 1000  # + plays made: the seed a search bot gets for each decision
MAX_HANDS_PER_MATCH = K.MAX_HANDS_PER_MATCH


@dataclass(frozen=True)
class HandLog:
    """Everything that happened in one hand, enough to write its game record."""

    match: int
    hand: int
    dealer: int
    deck: tuple[Card, ...]  # accepted deck order, in the canonical dealing layout
    plays: tuple[tuple[int, Card, int], ...]  # (seat, card, take mask)
    score: tuple[tuple[int, ...], ...]  # [side][item] in SCORE_ITEMS order
    piles: tuple[int, ...]  # captured masks per side, remainder included
    totals_before: tuple[int, ...]
    totals_after: tuple[int, ...]
    winner: int | None
    redeals: int = 0
    #: Cirulla (RULES.md §10): each play's kernel word (:attr:`Play.meta`: the value named
    #: for the matta, the declaration's points), in play order; empty in every other game.
    metas: tuple[int, ...] = ()
    #: Cirulla: the first tables (card masks) of the deals voided before the accepted one.
    voids: tuple[int, ...] = ()


def first_dealer(seed: int, match: int, players: int) -> int:
    """The first dealer (a seat of ``players``) of match ``match`` of a run of ``seed``,
    drawn from the match's own stream."""
    rng = K.new_rng(K.derive_seed(seed, match, 0, STREAM_DEALER))
    return int(K.rand_below(rng, players))


def bot_seed(seed: int, match: int, hand: int, plays_made: int) -> int:
    """The seed a bot gets for its decision after ``plays_made`` plays of hand ``hand`` of
    match ``match`` of a run of ``seed`` (as :class:`HandPlayer` gives it)."""
    return int(K.derive_seed(seed, match, hand, STREAM_BOT + plays_made)) & (2**63 - 1)


def hand_deck(rules: Rules, seed: int, match: int, hand: int) -> tuple[Card, ...]:
    """The deck order hand ``hand`` of match ``match`` is dealt from (its own stream, as
    :class:`HandPlayer` shuffles it, redeals included), in the canonical dealing layout."""
    deck = np.empty(40, dtype=np.int64)
    rng = K.new_rng(K.derive_seed(seed, match, hand, STREAM_DEAL))
    K.shuffle_deal(rules.to_array(), rng, deck)
    return tuple(int(c) for c in deck[: rules.deck])


def cirulla_deal(
    rules: Rules, seed: int, match: int, hand: int
) -> tuple[tuple[Card, ...], tuple[int, ...]]:
    """Cirulla (RULES.md §10): the deck order hand ``hand`` of match ``match`` is dealt
    from and the first tables (card masks) of the deals voided before it, drawn as
    :class:`HandPlayer` draws them (the deck shuffled again while the first table is
    void)."""
    deck = np.zeros(40, dtype=np.int64)
    voids = np.zeros(8, dtype=np.int64)
    seed_ = K.derive_seed(seed, match, hand, STREAM_DEAL)
    count = int(K.shuffle_deal_cirulla(rules.loop_array(), K.new_rng(seed_), deck, voids))
    if count > len(voids):  # more void deals than the buffer holds: the same draws again
        voids = np.zeros(count, dtype=np.int64)
        K.shuffle_deal_cirulla(rules.loop_array(), K.new_rng(seed_), deck, voids)
    return tuple(int(c) for c in deck[: rules.deck]), tuple(int(t) for t in voids[:count])


def hand_log(
    state: HandState,
    *,
    match: int,
    hand: int,
    dealer: int,
    deck: tuple[Card, ...],
    plays: tuple[tuple[int, Card, int], ...],
    totals_before: Sequence[int],
    metas: tuple[int, ...] = (),
    voids: tuple[int, ...] = (),
) -> HandLog:
    """The :class:`HandLog` of a finished hand played decision by decision (``state``
    after its ``plays``, dealt by ``dealer`` from ``deck``): its score, piles, the totals
    after it and the match's winner, if it is won. In Cirulla, ``metas`` are the plays'
    :attr:`~scopa_sim.game.play.Play.meta` words and ``voids`` the void deals' first
    tables (:func:`cirulla_deal`); empty in every other game."""
    rules = state.rules
    score = state.score_array()
    after = tuple(int(t) + p for t, p in zip(totals_before, score_points(score), strict=True))
    piles = tuple(p.mask for p in state.piles)
    return HandLog(
        match=match,
        hand=hand,
        dealer=dealer,
        deck=deck,
        plays=plays,
        score=tuple(tuple(int(x) for x in score[s]) for s in range(rules.sides)),
        piles=piles,
        totals_before=tuple(int(t) for t in totals_before),
        totals_after=after,
        winner=match_winner(rules, after, piles),
        metas=tuple(metas),
        voids=tuple(voids),
    )


def match_winner(rules: Rules, totals: Sequence[int], piles: Sequence[int]) -> int | None:
    """The side that wins after a hand with these totals and final piles, or None (the
    jitted loops' rule, :func:`scopa_sim._engine.scoring.match_winner`)."""
    n = len(totals)
    winner = K.match_winner(
        tuple(int(totals[s]) if s < n else 0 for s in range(4)),
        tuple(int(piles[s]) if s < n else 0 for s in range(4)),
        n,
        rules.target,
        all_denari_wins(rules),
    )
    return None if winner < 0 else int(winner)


def all_denari_wins(rules: Rules) -> bool:
    """Whether a side holding the ten denari wins the match at once: ``napola_all_denari_wins``
    (with ``napola``), or Cirulla's ``cappotto`` (RULES.md §10)."""
    if rules.capture_mode == "cirulla":
        return rules.cappotto
    return rules.napola and rules.napola_all_denari_wins


@dataclass(frozen=True)
class HandPlay:
    """One hand as played: deck order, plays and final state (before match bookkeeping);
    in Cirulla also each play's kernel word and the void deals' tables (:class:`HandLog`)."""

    deck: tuple[Card, ...]
    redeals: int
    plays: tuple[tuple[int, Card, int], ...]
    score: tuple[tuple[int, ...], ...]
    piles: tuple[int, ...]
    metas: tuple[int, ...] = ()
    voids: tuple[int, ...] = ()


class HandPlayer:
    """Plays hands of a run with one policy per seat.

    Kernel policies only: the whole hand runs in the jitted playout loop. With a
    search policy at any seat, the hand is played decision by decision with bots
    (kernel policies then play through their bot form). Either way the deck of
    hand ``h`` of match ``m`` comes from the stream ``(seed, m, h, STREAM_DEAL)``; with
    ``swapped`` it is then dealt with the seats' cards exchanged (its duplicate deal).
    Bots see the match totals before the hand (``play``'s ``totals``), as players do.
    """

    def __init__(
        self, rules: Rules, policies: Sequence[PolicySpec], seed: int, swapped: bool = False
    ) -> None:
        self.rules, self.seed = rules, seed
        #: deal each hand's deck with the seats' cards exchanged (:mod:`scopa_sim.sim.duplicate`)
        self._perm = None
        if swapped:
            from scopa_sim.sim.duplicate import swap_permutation

            self._perm = swap_permutation(rules)
        self._cirulla = rules.capture_mode == "cirulla"
        if self._cirulla:
            check_cirulla_policies(policies, swapped)
        self._r = rules._packed if self._cirulla else rules.to_array()
        self.kernel = all(p.is_kernel for p in policies)
        self._codes = np.zeros(4, dtype=np.int64)
        self._bots = [] if self.kernel else [p.bot() for p in policies]
        for bot in self._bots:
            bot.prepare(rules)  # e.g. a match-equity table that does not fit these rules
        self._model = K.NO_MODEL  # the learned policy's weights, where a seat plays it
        if self.kernel:
            self._codes[: len(policies)] = [p.code for p in policies]
            self._model = seat_model(rules, [p.name for p in policies])
        self._state = np.zeros(K.N_STATE, dtype=np.int64)
        self._deck = np.empty(40, dtype=np.int64)
        self._buf_card = np.empty(K.MAX_PLAYS, dtype=np.int64)
        self._buf_take = np.empty(K.MAX_PLAYS, dtype=np.int64)
        self._scratch = np.empty(K.SCRATCH, dtype=np.int64)
        self._log_card = np.empty(40, dtype=np.int64)
        self._log_take = np.empty(40, dtype=np.int64)
        self._hand = HandState(rules, self._state)  # a face on the kernels' state

    def play(
        self, match: int, hand: int, dealer: int, totals: Sequence[int] | None = None
    ) -> HandPlay:
        """Hand ``hand`` of match ``match`` dealt by seat ``dealer``, the sides' match points
        being ``totals`` before it (default 0 each)."""
        if self._cirulla:
            return self._play_cirulla(match, hand, dealer, totals)
        rules, r = self.rules, self._r
        rng = K.new_rng(K.derive_seed(self.seed, match, hand, STREAM_DEAL))
        redeals = int(K.shuffle_deal(r, rng, self._deck))
        if self._perm is not None:
            self._deck[: rules.deck] = self._deck[self._perm]
        deck = tuple(int(c) for c in self._deck[: rules.deck])
        if self.kernel:
            state = self._state
            K.start_hand(state, r, self._deck, dealer)
            rng = K.new_rng(K.derive_seed(self.seed, match, hand, STREAM_PLAY))
            bufs = (self._buf_card, self._buf_take, self._scratch, self._log_card, self._log_take)
            if self._model.shape[0]:  # a seat plays learned
                made = KL.play_out_model(state, r, self._codes, self._model, rng, *bufs)
            else:
                made = K.play_out(state, r, self._codes, rng, *bufs)
            n = rules.players
            plays = tuple(
                ((dealer + 1 + i) % n, int(self._log_card[i]), int(self._log_take[i]))
                for i in range(int(made))
            )
            piles = self._hand.pile_masks
            score = self._hand.score_array()
        else:
            hs = HandState.deal(rules, dealer=dealer, deck=deck, match_totals=totals)
            logged = []
            while not hs.is_over:
                seat = hs.turn
                play = self._bots[seat].choose(hs, bot_seed(self.seed, match, hand, hs.plays_made))
                hs.push(play)
                logged.append((seat, play.card, play.take))
            plays = tuple(logged)
            piles = tuple(p.mask for p in hs.piles)
            score = hs.score_array()
        return HandPlay(
            deck=deck,
            redeals=redeals,
            plays=plays,
            score=tuple(tuple(int(x) for x in score[s]) for s in range(rules.sides)),
            piles=piles,
        )

    def _play_cirulla(
        self, match: int, hand: int, dealer: int, totals: Sequence[int] | None = None
    ) -> HandPlay:
        """:meth:`play` under Cirulla's rules (RULES.md §10) on its step kernels: the deck
        shuffled again while the first table is void (the void tables kept), the opening
        count, then the hand played out by the seats' kernel policies
        (:func:`scopa_sim._engine.step.play_out_cirulla`, with a ``learned`` seat
        :func:`scopa_sim._engine.learned_cirulla.play_out_model_cirulla`) drawing from the
        stream ``(seed, match, hand, STREAM_PLAY)``, or, when a seat searches, by the seats' bots
        (:func:`_bots_play_cirulla`)."""
        rules, r = self.rules, self._r
        seed = K.derive_seed(self.seed, match, hand, STREAM_DEAL)
        voids = np.zeros(8, dtype=np.int64)
        count = int(K.shuffle_deal_cirulla(r, K.new_rng(seed), self._deck, voids))
        if count > len(voids):  # more void deals than the buffer holds: the same draws again
            voids = np.zeros(count, dtype=np.int64)
            K.shuffle_deal_cirulla(r, K.new_rng(seed), self._deck, voids)
        deck = tuple(int(c) for c in self._deck[: rules.deck])
        state = self._state
        K.start_hand_cirulla(state, r, self._deck, dealer, count)
        if not self.kernel:
            hs = HandState(rules, state.copy(), match_totals=totals)
            plays, metas = self._bots_play_cirulla(hs, match, hand)
            score = hs.score_array()
            return HandPlay(
                deck=deck,
                redeals=count,
                plays=plays,
                score=tuple(tuple(int(x) for x in score[s]) for s in range(rules.sides)),
                piles=hs.pile_masks,
                metas=metas,
                voids=tuple(int(t) for t in voids[:count]),
            )
        rng = K.new_rng(K.derive_seed(self.seed, match, hand, STREAM_PLAY))
        log_meta = np.empty(40, dtype=np.int64)
        bufs = (self._buf_card, self._buf_take, np.empty(K.MAX_PLAYS, dtype=np.int64),
                self._scratch, self._log_card, self._log_take, log_meta)  # fmt: skip
        if self._model.shape[0]:  # a seat plays learned
            made = KLC.play_out_model_cirulla(state, r, self._codes, self._model, rng, *bufs)
        else:
            made = K.play_out_cirulla(state, r, self._codes, rng, *bufs)
        n = rules.players
        plays = tuple(
            ((dealer + 1 + i) % n, int(self._log_card[i]), int(self._log_take[i]))
            for i in range(int(made))
        )
        score = self._hand.score_array()
        return HandPlay(
            deck=deck,
            redeals=count,
            plays=plays,
            score=tuple(tuple(int(x) for x in score[s]) for s in range(rules.sides)),
            piles=self._hand.pile_masks,
            metas=tuple(int(m) for m in log_meta[:made]),
            voids=tuple(int(t) for t in voids[:count]),
        )

    def _bots_play_cirulla(
        self, hs: HandState, match: int, hand: int
    ) -> tuple[tuple[tuple[int, int, int], ...], tuple[int, ...]]:
        """Play the Cirulla hand ``hs`` out with the seats' bots (each decision seeded by
        :func:`bot_seed`); return the plays ``(seat, card, take)`` and their metas."""
        plays, metas = [], []
        while not hs.is_over:
            seat = hs.turn
            play = self._bots[seat].choose(hs, bot_seed(self.seed, match, hand, hs.plays_made))
            hs.push(play)
            plays.append((seat, play.card, play.take))
            metas.append(play.meta)
        return tuple(plays), tuple(metas)


#: The policies that play Cirulla (RULES.md §10) so far: the kernel policies (``learned``
#: included, on its Cirulla weights), PIMC, ISMCTS and the solver.
CIRULLA_POLICIES = ("random", "greedy", "expert", "learned", "pimc", "ismcts", "solver")


def check_cirulla_policies(policies: Sequence[PolicySpec], swapped: bool = False) -> None:
    """Cirulla's hands (RULES.md §10) are played by :data:`CIRULLA_POLICIES` (the searches
    with every parameter: the belief models, ``reply=`` and ``best`` included), dealt as
    shuffled (not ``swapped``).

    Raises:
        RulesError: another policy, ``learned`` with parameters, or swapped deals, in
            one line.
    """
    for p in policies:
        if p.name not in CIRULLA_POLICIES:
            raise RulesError(
                f"policy {p.name!r} does not play capture_mode=cirulla yet; allowed: "
                + ", ".join(CIRULLA_POLICIES)
            )
        if p.name == "learned" and p.params:
            raise RulesError(
                f"policy {p}: learned plays capture_mode=cirulla without parameters "
                "(worlds= searches Scopa's rules only)"
            )
    if swapped:
        raise RulesError("capture_mode=cirulla is not dealt as duplicate deals yet")


def start_totals(rules: Rules, start: Sequence[int] | None) -> list[int]:
    """The totals a match starts from: 0 for each side, or ``start``, checked (one total a
    side, each below the target); :class:`MatchError` otherwise.

    Raises:
        MatchError: not one total a side, or a total at or above the target.
    """
    try:  # one count of points >= 0 a side, as for any hand's match totals
        totals = check_match_totals(rules, start)
    except ValueError:
        totals = None
    if totals is None or max(totals) >= rules.target:
        raise MatchError(
            f"starting totals {list(start or ())}: give {rules.sides} totals, each from 0 to "
            f"{rules.target - 1} (a side at {rules.target} or more has reached the target)"
        )
    return list(totals)


def play_match(
    rules: Rules,
    policies: Sequence[PolicySpec],
    seed: int,
    match: int,
    dealer: int | None = None,
    player: HandPlayer | None = None,
    start: Sequence[int] | None = None,
) -> Iterator[HandLog]:
    """Play match ``match`` of a run to its end, yielding each hand as it is scored;
    ``start`` gives the sides' totals it starts from (default 0 each: a match from a
    given score, e.g. to study play near the target).

    Args:
        rules: the rules of the match.
        policies: one policy a seat.
        seed: the run's seed; with ``match``, it fixes every deal of the match.
        match: the match's number in the run.
        dealer: the first dealer (default: drawn from ``seed`` and ``match``,
            :func:`first_dealer`).
        player: the hand player to reuse (default: one made for ``rules`` and ``policies``).
        start: the sides' totals before the first hand (:func:`start_totals`).

    Raises:
        MatchError: a bad ``start`` (:func:`start_totals`), or the match did not end within
            :data:`MAX_HANDS_PER_MATCH` hands.
    """
    n = rules.players
    totals = start_totals(rules, start)
    player = player or HandPlayer(rules, policies, seed)
    dealer = first_dealer(seed, match, n) if dealer is None else dealer
    for hand in range(MAX_HANDS_PER_MATCH):
        hp = player.play(match, hand, dealer, totals)
        before = tuple(totals)
        totals = [t + p for t, p in zip(totals, score_points(hp.score), strict=True)]
        winner = match_winner(rules, totals, hp.piles)
        yield HandLog(
            match=match,
            hand=hand,
            dealer=dealer,
            deck=hp.deck,
            plays=hp.plays,
            score=hp.score,
            piles=hp.piles,
            totals_before=before,
            totals_after=tuple(totals),
            winner=winner,
            redeals=hp.redeals,
            metas=hp.metas,
            voids=hp.voids,
        )
        if winner is not None:
            return
        dealer = (dealer + 1) % n
    raise MatchError(f"match {match} did not end within {MAX_HANDS_PER_MATCH:,} hands")
