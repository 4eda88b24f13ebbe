"""Helpers of the belief tests (bots/test_belief.py, bots/test_robust_belief.py): hands
played to a point, the same hand replayed from another deck order, and beliefs by brute
force over every hand the other seat could hold."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from scopa_sim import CardSet, Play, Rules
from scopa_sim import _engine as K
from scopa_sim._engine import policy_cirulla as KPC
from scopa_sim._engine import step as KS
from scopa_sim.bots.belief import BeliefModel, Channel
from scopa_sim.bots.registry import make_bot
from scopa_sim.bots.search import move_seed
from scopa_sim.errors import IllegalPlayError
from scopa_sim.game.state import HandState


def played(rules: Rules, seed: int, plays: int, opponent: str = "expert") -> HandState:
    """A hand dealt from ``seed`` (dealer 0) after ``plays`` plays: seat 0 plays
    ``expert``, the other seats ``opponent``."""
    me, opp = make_bot("expert"), make_bot(opponent)
    s = HandState.deal(rules, dealer=0, seed=seed)
    while s.plays_made < plays:
        bot = me if s.turn == 0 else opp
        s.push(bot.choose(s, move_seed(seed, s.plays_made, s.turn)))
    return s


def first_deck(state: HandState) -> list[int]:
    """The deck order the hand was dealt from (its first pushed position's)."""
    vec = state._stack[0][0]
    return [int(c) for c in vec[K.S_DECK : K.S_DECK + int(vec[K.S_DECK_SIZE])]]


def replay(state: HandState, order: list[int]) -> HandState:
    """The hand's plays again from the deck ``order`` (raises IllegalPlayError if one of
    them is not legal there)."""
    s = HandState.deal(state.rules, dealer=state.dealer, deck=order)
    for p in state.history:
        s.push(p)
    return s


def with_hand(state: HandState, seat: int, hand: CardSet) -> list[int]:
    """The deck order of the world where ``seat`` holds ``hand`` now, the rest of what is
    hidden from the others in the stock, and every earlier card where it was."""
    order = first_deck(state)
    hidden = set(state.hand(seat)) | set(state.stock)
    slots = [i for i, c in enumerate(order) if c in hidden]
    mine = [i for i in slots if order[i] in state.hand(seat)]
    rest = [i for i in slots if i not in mine]
    new = list(order)
    for i, c in zip(mine, sorted(hand), strict=True):
        new[i] = c
    for i, c in zip(rest, sorted(hidden - set(hand)), strict=True):
        new[i] = c
    return new


def channel_prob(s: HandState, play: Play, ch: Channel) -> float:
    """Probability of ``play`` by the seat to play under one channel, computed afresh
    from the engine's value functions."""
    legal = list(s.legal_plays)
    n = len(legal)
    if ch.kind == "random":
        return 1.0 / n
    scratch = np.empty(K.EXPERT_SCRATCH)
    if ch.kind == "expert":
        vals = [
            int(K.expert_value(s._vec, s._r, p.card, p.take, scratch) * K.EXPERT_FIX) / K.EXPERT_FIX
            for p in legal
        ]
    else:
        vals = [float(K.greedy_value(s._vec, s._r, p.card, p.take)) for p in legal]
    return mixed(vals, legal.index(play), ch)


def cirulla_channel_prob(s: HandState, play: Play, ch: Channel) -> float:
    """:func:`channel_prob` on Cirulla (RULES.md §10): the play ``(card, take, meta)``
    among :func:`scopa_sim._engine.step.legal_plays_cirulla`'s plays (0 when it is not one
    of them), weighed by :func:`scopa_sim._engine.step.play_values_cirulla`'s values
    (the expert's in points, declaring by ``EXPERT_DECLARES``, or greedy's)."""
    r = s.rules.loop_array()
    bc, bt, bm, bt2, bm2, iv = (np.empty(K.MAX_PLAYS, dtype=np.int64) for _ in range(6))
    sc = np.empty(K.SCRATCH, dtype=np.int64)
    n = int(KS.legal_plays_cirulla(s._vec, r, bc, bt, bm, sc))
    legal = [(int(bc[i]), int(bt[i]), int(bm[i])) for i in range(n)]
    if (play.card, play.take, play.meta) not in legal:
        return 0.0
    if ch.kind == "random":
        return 1.0 / n
    policy = K.POLICY_EXPERT if ch.kind == "expert" else K.POLICY_GREEDY
    KS.play_values_cirulla(s._vec, r, policy, KPC.EXPERT_DECLARES, bc, bt, bm, n, iv,
                           np.empty(K.EXPERT_SCRATCH), bt2, bm2, sc)  # fmt: skip
    fix = K.EXPERT_FIX if ch.kind == "expert" else 1
    vals = [int(iv[i]) / fix for i in range(n)]
    return mixed(vals, legal.index((play.card, play.take, play.meta)), ch)


def mixed(vals: list[float], i: int, ch: Channel) -> float:
    """A channel's probability of play ``i`` among plays valued ``vals``: its floor
    ``eps`` spread uniformly, the rest a softmax at temperature ``tau`` (uniform among
    the best with ``tau = 0``)."""
    n = len(vals)
    best = max(vals)
    if ch.tau == 0:
        q = 1.0 / vals.count(best) if vals[i] == best else 0.0
    else:
        ws = [math.exp((v - best) / ch.tau) for v in vals]
        q = ws[i] / sum(ws)
    return ch.eps / n + (1 - ch.eps) * q


def brute_force(
    state: HandState,
    seat: int,
    model: BeliefModel,
    prob: Callable[[HandState, Play, Channel], float] = channel_prob,
) -> tuple[dict, list[float]]:
    """P(the other seat holds H now) for every H, and the channel posterior, by replaying
    the hand in every world where it holds H and multiplying the probabilities of all its
    plays by ``prob`` (2 players; :func:`cirulla_channel_prob` on Cirulla)."""
    opp = 1 - seat
    cards = sorted(set(state.hand(opp)) | set(state.stock))
    k = len(state.hand(opp))
    from itertools import combinations

    joint: dict[int, list[float]] = {}
    for combo in combinations(cards, k):
        hand = CardSet(list(combo))
        try:
            world = replay(state, with_hand(state, opp, hand))
        except IllegalPlayError:
            continue  # a play of the history is not legal with this hand
        like = [p for p in model.prior]
        s = HandState.deal(state.rules, dealer=state.dealer, deck=first_deck(world))
        for p in state.history:
            if s.turn == opp:
                chans = zip(like, model.channels, strict=True)
                like = [w * prob(s, p, ch) for w, ch in chans]
            s.push(p)
        joint[hand.mask] = like
    total = sum(sum(v) for v in joint.values())
    probs = {m: sum(v) / total for m, v in joint.items()}
    post = [sum(v[i] for v in joint.values()) / total for i in range(len(model.channels))]
    return probs, post


def swapped(state: HandState, a: int, b: int) -> HandState:
    """The same history dealt with cards ``a`` and ``b`` exchanged."""
    order = first_deck(state)
    i, j = order.index(a), order.index(b)
    order[i], order[j] = order[j], order[i]
    return replay(state, order)
