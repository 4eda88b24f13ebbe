"""The game review's evaluator (:mod:`scopa_sim.bots.evaluate`): every legal play of a
decision valued in the same sampled worlds, each world finished by a rollout policy
and, once the position is open (two sides, stock empty, at most two hands left: every
seat then knows every card), by the exact solver (:mod:`.solver`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .determinize import determinize, shuffle_stock, single_world
from .layout import (
    MAX_PLAYS,
    N_ITEMS,
    N_STATE,
    R_PLAYERS,
    R_SIDES,
    S_DECK_SIZE,
    S_DONE,
    S_HANDS,
    S_STOCK,
    S_TURN,
    SCRATCH,
    side_of,
)
from .learned import EXACT_TT, MAX_ACTIVE, N_DENSE, choose_learned, exact_table, hidden_width
from .policy import EXPERT_SCRATCH
from .solver import FULL_DEPTH, N_INFO, V_SALT, V_TT_MASK, solve_world, workspace
from .step import apply_play, legal_plays, start_hand
from .streams import RNG_WORDS, derive_seed, reseed, shuffle_deal
from .values import INF, hand_margins


@njit(cache=True)
def _buffers(tt_key):
    """The evaluator's buffers: plays, captures' scratch, play values, scores, margins
    and the solver's search info (its transposition table's mask set, salt 1)."""
    bc = np.empty(MAX_PLAYS, dtype=np.int64)
    bt = np.empty(MAX_PLAYS, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    vals = np.empty(MAX_PLAYS, dtype=np.float64)
    score = np.zeros((4, N_ITEMS), dtype=np.int64)
    margins = np.zeros(4, dtype=np.int64)
    info = np.zeros(N_INFO, dtype=np.int64)
    info[V_TT_MASK] = tt_key.shape[0] - 1
    info[V_SALT] = 1
    return bc, bt, sc, vals, score, margins, info


@njit(cache=True)
def _learned_scratch(model):
    """The scratch of :func:`.learned.choose_learned` for rollouts playing ``model`` (the
    empty vector: none plays ``learned``): ``(idx, dense, acc, xs, tt)``."""
    return (
        np.empty(MAX_ACTIVE, dtype=np.int64),
        np.empty(N_DENSE),
        np.empty(max(1, hidden_width(model))),
        np.empty(EXPERT_SCRATCH),
        exact_table(EXACT_TT if model.shape[0] else 1),
    )


@njit(cache=True)
def open_endgame(state, rules):
    """True when the rest of the hand is a perfect-information game: two sides, the
    stock empty and at most two seats holding cards (each then sees the other's hand)."""
    if rules[R_SIDES] != 2 or state[S_STOCK] < state[S_DECK_SIZE]:
        return False
    holders = 0
    for s in range(rules[R_PLAYERS]):
        if state[S_HANDS + s]:
            holders += 1
    return holders <= 2


@njit(cache=True)
def _eval_finish(cur, rules, policy, model, lsc, rng, exact, bc, bt, sc, score, margins, tt_key,
                 tt_val, tt_meta, info, ws, vals, out):  # fmt: skip
    """Finish the hand in the world ``cur`` (changed in place) and write each side's final
    margin to ``out[side]``: ``policy`` plays every seat (``learned`` playing ``model``,
    its scratch ``lsc`` of :func:`_learned_scratch`) until, with ``exact``, the rest is an
    :func:`open_endgame`, which the solver values exactly (both sides playing it
    perfectly)."""
    idx, dense, acc, xs, ltt = lsc
    ns = rules[R_SIDES]
    margin = np.empty(0)  # the margin objective
    while not cur[S_DONE]:
        if exact and open_endgame(cur, rules):
            n = solve_world(cur, rules, FULL_DEPTH, tt_key, tt_val, tt_meta, info, ws, vals, margin)
            best = -INF
            for i in range(n):
                if vals[i] > best:
                    best = vals[i]
            mover = side_of(rules, cur[S_TURN])
            out[mover] = best
            out[1 - mover] = -best
            return
        n = legal_plays(cur, rules, bc, bt, sc)
        i = choose_learned(cur, rules, policy, model, rng, bc, bt, n, idx, dense, acc, xs, ltt)
        apply_play(cur, rules, bc[i], bt[i])
    hand_margins(cur, rules, score, margins)
    for s in range(ns):
        out[s] = float(margins[s])


@njit(cache=True, nogil=True)
def eval_values(state, rules, seat, worlds, policy, model, seed, exact, tt_key, tt_val, tt_meta,
                cards, takes, n, out_val):  # fmt: skip
    """The review evaluator's values: ``out_val[w, i, side]`` is side ``side``'s final
    hand margin after play ``i`` (``cards[i]``, ``takes[i]``; with ``n`` = 0, the
    position as it stands, slot 0) in world ``w``, finished by :func:`_eval_finish`
    (the rollout policy ``policy``; ``model``: the learned policy's model vector, the
    empty vector unless ``policy`` is ``POLICY_LEARNED``).

    The worlds are determinizations of ``state`` for ``seat`` (-1: every hand unknown,
    as before a deal; -2: only the stock unknown, see :func:`shuffle_stock`) from the
    streams ``derive_seed(seed, 12, w, 0)``; every play is valued in the same worlds,
    and its rollout in world ``w`` draws from the same stream ``derive_seed(seed, 13, w,
    0)``, so differences between plays are paired.  When the information set is a
    single world (two sides, and ``exact``) only one world is used.  The transposition
    table is shared by every world (open endgames have no hidden order left, so an
    entry means the same in all of them); the caller clears it.  Returns the number of
    worlds used.
    """
    ws = workspace(state, rules)
    bc, bt, sc, vals, score, margins, info = _buffers(tt_key)
    lsc = _learned_scratch(model)
    world = np.empty(N_STATE, dtype=np.int64)
    cur = np.empty(N_STATE, dtype=np.int64)
    rng = np.zeros(RNG_WORDS, dtype=np.uint64)
    roll = np.zeros(RNG_WORDS, dtype=np.uint64)
    used = worlds
    if (
        exact
        and rules[R_SIDES] == 2
        and (
            single_world(state, rules, seat) if seat >= -1 else state[S_STOCK] >= state[S_DECK_SIZE]
        )
    ):
        used = 1
    for w in range(used):
        reseed(rng, derive_seed(seed, 12, w, 0))
        if seat >= -1:
            determinize(state, rules, seat, rng, world)
        else:
            shuffle_stock(state, rng, world)
        for i in range(max(n, 1)):
            for j in range(N_STATE):
                cur[j] = world[j]
            if n > 0:
                apply_play(cur, rules, cards[i], takes[i])
            reseed(roll, derive_seed(seed, 13, w, 0))
            _eval_finish(cur, rules, policy, model, lsc, roll, exact, bc, bt, sc, score,
                         margins, tt_key, tt_val, tt_meta, info, ws, vals,
                         out_val[w, i])  # fmt: skip
    return used


@njit(cache=True, nogil=True)
def eval_prior(rules, dealer, worlds, policy, model, seed, exact, tt_key, tt_val, tt_meta,
               out_val):  # fmt: skip
    """Each side's final margin (``out_val[w, side]``) in ``worlds`` hands dealt at random
    by ``dealer`` (deck from ``derive_seed(seed, 14, w, 0)``, kings redeals included) and
    finished as in :func:`eval_values` (``model`` as there): the evaluator's expected
    margins before a hand's first deal."""
    deck = np.empty(40, dtype=np.int64)
    cur = np.empty(N_STATE, dtype=np.int64)
    rng = np.zeros(RNG_WORDS, dtype=np.uint64)
    roll = np.zeros(RNG_WORDS, dtype=np.uint64)
    reseed(rng, derive_seed(seed, 14, 0, 0))
    shuffle_deal(rules, rng, deck)
    start_hand(cur, rules, deck, dealer)
    ws = workspace(cur, rules)
    bc, bt, sc, vals, score, margins, info = _buffers(tt_key)
    lsc = _learned_scratch(model)
    for w in range(worlds):
        reseed(rng, derive_seed(seed, 14, w, 0))
        shuffle_deal(rules, rng, deck)
        start_hand(cur, rules, deck, dealer)
        reseed(roll, derive_seed(seed, 13, w, 0))
        _eval_finish(cur, rules, policy, model, lsc, roll, exact, bc, bt, sc, score, margins,
                     tt_key, tt_val, tt_meta, info, ws, vals, out_val[w])  # fmt: skip
