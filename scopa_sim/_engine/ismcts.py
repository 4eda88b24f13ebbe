"""Single-observer ISMCTS (:func:`ismcts_run`): a tree of plays searched over sampled
worlds of the root seat's information set, with rollouts by a kernel policy, optional
belief particles for the worlds and play models for the other seats' replies.

The tree is a pool of int64 rows (``T_*`` columns), one node per play.  Rewards are
hand margins (or match-objective values, or heuristic leaf values at a horizon: see
:mod:`.values`) scaled by :data:`REWARD_SCALE`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .bits import ctz, popcount
from .capture import (
    BIG_TABLE,
    BIG_TABLE15,
    packed_of,
    play_on_table,
    remainder_side,
    value_sum,
)
from .deals import deal_round_cards
from .determinize import pick_weighted, unit_draw
from .layout import (
    DENARI,
    I_TOTAL,
    MAX_PLAYS,
    N_ITEMS,
    N_STATE,
    N_WORK,
    POLICY_EXPERT,
    POLICY_GREEDY,
    POLICY_LEARNED,
    R_ACE_SWEEP,
    R_ACE_SWEEP_SCOPA,
    R_CAPTURE_FIFTEEN,
    R_CAPTURE_HAND,
    R_CAPTURE_OPTIONAL,
    R_DECK,
    R_HAND_SIZE,
    R_LAST_PLAY_SCOPA,
    R_PLAYERS,
    R_REMAINDER_DEALER,
    R_SIDES,
    R_SUM_FEWEST,
    R_TEAMS,
    R_TOTAL_PLAYS,
    S_DEALER,
    S_DECK,
    S_DECK_SIZE,
    S_HANDS,
    S_LAST_CAPTURER,
    S_PILES,
    S_PLAYS,
    S_SCOPE,
    S_STOCK,
    S_TABLE,
    S_TURN,
    SCRATCH,
    W_HANDS,
    W_PILES,
    W_SCOPE,
)
from .learned import MAX_ACTIVE, N_DENSE, hidden_width, learned_value
from .pipeline import STEPS
from .plays import card_plays, count_hand, nth_play, play_value, seat_view, take_at
from .policy import (
    EXPERT_FIX,
    EXPERT_SCRATCH,
    expert_flags,
)
from .scoring import score_into
from .solver import FULL_DEPTH, MAX_PLY
from .step import legal_plays
from .streams import GOLDEN, below, mix64
from .values import INF, LEAF_EXPERT, end_value, estimate_sides, expert_margin, leaf_value

# play models of the other seats (the belief's channels, :mod:`.belief`; ``reply`` of ISMCTS)
KIND_RANDOM = 0  # uniform over the distinct legal plays
KIND_GREEDY = 1  # the greedy heuristic's values
KIND_EXPERT = 2  # the expert policy's values
KIND_SEARCH = 3  # ISMCTS's reply only: a seat that plays like the search itself (UCB1)

#: ``leaf`` of :func:`ismcts_run` beside :data:`.values.LEAF_ESTIMATE` and
#: :data:`.values.LEAF_EXPERT`: the learned model's one-ply value (:func:`_learned_leaf`).
LEAF_LEARNED = 2

#: Columns of the root prior of :func:`ismcts_run` (``prior``, float rows): a root play's
#: card and take and its value in points (:func:`_root_step_prior`).
P_CARD = 0
P_TAKE = 1
P_VALUE = 2


# ISMCTS tree pool columns (int64; one row per node, a node being a play)
T_CARD = 0
T_TAKE = 1
T_CHILD = 2  # first child, -1: none
T_NEXT = 3  # next sibling, -1: none
T_VISITS = 4
T_AVAIL = 5  # iterations in which the play was legal when its parent was passed
T_SUM = 6  # sum of the backed-up hand margins (points, for the side that made the play)
T_SQ = 7  # sum of their squares
T_COLS = 8


#: ISMCTS reward = hand point margin * REWARD_SCALE.  Hand margins mostly lie within
#: +-4 points, so scaled rewards mostly lie within +-1 and UCB's exploration constant
#: works around the usual 0.7 (= 1/sqrt(2) for rewards of unit range).
REWARD_SCALE = 0.25


# The ISMCTS kernel plays each iteration on locals, as the engine's fused self-play
# loop does (:func:`.fused.fused_hands`): the table's subset counts by
# value sum are kept packed (``GROW``/``SHRINK``) so a card's number of captures is
# a few bit operations, only the chosen play is built, and no array crosses a call in
# the hot loop.  Packed counts are read only for tables of at most 6 cards, where every
# count is below 32 whatever the position (the sets of cards with one value sum form an
# antichain, so there are at most C(6, 3) = 20 of them); larger tables, which a root
# given by hand may hold, fall back to listing the captures (:func:`.capture.list_captures`).
# The packed value itself stays exact through any sequence of joins and leaves (the
# multipliers are inverse modulo 2**55), so it is right again once the table shrinks.

#: Slots of ISMCTS's cache of a modelled seat's expert play values at a tree node (they
#: depend on the node and the seat's hand only), and the most plays a slot keeps.
CACHE = 1 << 12
CACHE_W = 32

#: Fixed-point unit of the tree's sums when rollouts stop at a horizon (heuristic values).
EST_UNIT = 1 << 10

#: Log of one iteration (tests): plays made, the world's hands and stock order, the
#: final margins, then (card, take, number of legal plays) per play.
L_MADE = 0
L_HANDS = 1
L_STOCK_LEN = 5
L_STOCK = 6
L_MARGINS = 46
L_PLAYS = 50
L_SIZE = L_PLAYS + 3 * 64


@njit(cache=True)
def ismcts_init(root, tree):
    """Make the pool hold the root alone; return the node count (1)."""
    for j in range(T_COLS):
        tree[0, j] = 0
    tree[0, T_CARD] = -1
    tree[0, T_CHILD] = -1
    tree[0, T_NEXT] = -1
    return 1


@njit(cache=True, inline="always")
def _add_child(tree, node, new, card, take):
    """Make row ``new`` of the pool an unvisited child ``(card, take)`` of ``node``, first
    in its list of children (the expansion by UCB1 and by a modelled reply); return it."""
    tree[new, T_CARD] = card
    tree[new, T_TAKE] = take
    tree[new, T_CHILD] = -1
    tree[new, T_NEXT] = tree[node, T_CHILD]
    tree[new, T_VISITS] = 0
    tree[new, T_AVAIL] = 1
    tree[new, T_SUM] = 0
    tree[new, T_SQ] = 0
    tree[node, T_CHILD] = new
    return new


def ismcts_run(root, rules, tree, count, iterations, c, policy, horizon, rng, log, leaf=0, eq=None,
               parts=None, cum=None, reply=None, model=None, prior=None,
               prior_visits=0.0):  # fmt: skip
    """Run ``iterations`` of single-observer ISMCTS from ``root`` (the seat to play's
    information set, any world of it) on the node pool ``tree`` (``T_*`` columns)
    holding ``count`` nodes; return the new count.

    Each iteration: a new determinization for the root seat (the cards it cannot see
    shuffled and dealt to the other hands by their sizes, the rest is the stock);
    selection from the root among the children legal in this world, by UCB1 with
    availability counts (mean reward + c * sqrt(ln(availability) / visits)), until a
    node has an untried legal play; expansion of one of them chosen at random (unless
    the pool is full); a rollout with the engine's ``policy`` (``POLICY_RANDOM``:
    uniform over the distinct legal plays; ``POLICY_GREEDY``: the greedy heuristic,
    ``POLICY_EXPERT``: the expert policy, ties at random) for every seat; the final
    hand margins backed up, each node getting the margin of the side that made its play
    (for three or four sides, that side's points minus the best other side's).
    Rewards are margins scaled by ``REWARD_SCALE``.  Availability of every legal child
    is counted at each node passed; a child is legal in a world exactly when its card is
    in the hand of the seat to play (and, for a lay under ``capture_rule=hand`` with
    compulsory captures, no card captures), since the table at a node is the same in
    every world.  The capture rule is the rules' (RULES.md §4, or §9's fifteen rule:
    compiled separately, :func:`_ismcts_run15`).

    With ``horizon < FULL_DEPTH`` a rollout stops after ``horizon`` plays (0: at the
    position of the node just expanded) and that position is valued by the heuristic
    ``leaf`` (``LEAF_ESTIMATE``: :func:`estimate`; ``LEAF_EXPERT``: the expert policy's
    evaluation, :func:`expert_leaf`; scope so far included) instead of the final score; rewards, and
    so the sums in the tree, are then in units of ``1 / EST_UNIT`` points (rounded).
    The default, full rollouts, keeps integer margins.

    With ``eq`` (two sides, :data:`EQ_GAINS` layout) rewards are the match objective's:
    the table's value of the points each side scored in the hand (:func:`end_value`),
    or at a horizon of the points estimated by :func:`estimate` (:func:`leaf_value`);
    side 1 gets the negation of side 0's.  Sums are then in units of ``1 / EST_UNIT``.

    With belief particles ``parts``/``cum`` (:mod:`.belief`; none: the uniform
    draw above) each iteration's world takes the other hands from a particle drawn by
    its weight where the particle holds them (``parts[p, s] >= 0``), and deals the
    cards left uniformly to the other hands and the stock.

    With ``reply = (kinds, taus, eps, post, rollouts)`` (play models, the :data:`KIND_*` channels of
    a belief with ``post[s, m]`` the posterior that seat ``s`` plays like channel ``m``;
    None: every seat by the tree's UCB1 and the rollout ``policy``) each iteration draws
    a channel per seat of the other sides from ``post``, and those seats' plays, in the
    tree and in the rollout, follow it: with probability ``eps[m]`` uniform over the
    legal plays, else (``KIND_RANDOM``: uniform) the best by the greedy or expert values
    (ties uniform) at ``taus[m] = 0``, or a softmax of those values (points) at
    temperature ``taus[m]``, as :func:`.belief.decision_loglik` scores them
    (``KIND_SEARCH``: the seat plays like this search, by UCB1 and ``policy``).  In the
    tree such a play follows (or, untried, expands) its child; in the rollouts (with
    ``rollouts`` true; else those seats roll out by ``policy`` too) it is played; the
    root's side still chooses by UCB1 and the rollout ``policy``.

    With the learned policy's ``model`` (:mod:`.learned`; None: none) the search can use
    it three ways: ``policy = POLICY_LEARNED`` rolls out by the model's best play (ties
    uniform; the model alone, without the learned policy's exact endgame);
    ``leaf = LEAF_LEARNED`` values the position at the horizon by the expert's evaluation
    of the piles (scope included) plus the model's value of the best play of the seat to
    play there (its expected change in points, the next seat's reply included); and
    ``prior`` (rows of ``P_*`` columns: each legal root play and its value in points, at
    least one row) with ``prior_visits > 0`` gives each root play ``prior_visits``
    virtual visits at that value in UCB1's mean, so the model's preference decides the
    root's choice while the play has few visits of its own (:func:`_root_step_prior`).

    ``rng`` (a generator state array, see :func:`.streams.new_rng`) carries the random stream across
    calls in its counter, so a run split into chunks gives the same tree.  With ``log``
    of ``L_SIZE`` entries the last iteration's world and plays are written there (``L_*``
    layout); pass an empty array otherwise.
    """
    kernel = _ismcts_run15 if rules[R_CAPTURE_FIFTEEN] else _ismcts_run_scopa
    rkinds, rtaus, reps, rpost, rroll = _NO_REPLY if reply is None else reply
    # ``float(c)``: one compiled signature whether ``c`` came as ``c=1`` or ``c=0.7`` (an
    # int would compile the whole loop a second time, about 40 s).
    return kernel(
        root, rules, tree, count, iterations, float(c), policy, horizon, rng, log, leaf,
        _NO_EQ if eq is None else eq,
        _NO_PARTS if parts is None else parts, _NO_CUM if cum is None else cum,
        rkinds, rtaus, reps, rpost, rroll,
        _NO_MODEL if model is None else model, _NO_PRIOR if prior is None else prior,
        float(prior_visits),
    )  # fmt: skip


@njit(cache=True)
def root_prior(root, rules, model, out):
    """The root prior of :func:`ismcts_run` at ``root`` (the seat to play's information
    set): each legal play's row in ``out`` (``P_*`` columns, at least ``MAX_PLAYS`` rows),
    its value the expert's evaluation of the seat's side's piles (scope included,
    :func:`.values.expert_margin`) plus the model's value of the play (points); return
    the number of rows."""
    bc = np.empty(MAX_PLAYS, dtype=np.int64)
    bt = np.empty(MAX_PLAYS, dtype=np.int64)
    n = legal_plays(root, rules, bc, bt, np.empty(SCRATCH, dtype=np.int64))
    idx = np.empty(MAX_ACTIVE, dtype=np.int64)
    dense = np.empty(N_DENSE)
    acc = np.empty(max(1, hidden_width(model)))
    xs = np.empty(EXPERT_SCRATCH)
    turn = root[S_TURN]
    side = (turn & 1) if rules[R_TEAMS] else turn
    base = expert_margin(rules, root, S_PILES, root, S_SCOPE, side, True)
    for i in range(n):
        out[i, P_CARD] = bc[i]
        out[i, P_TAKE] = bt[i]
        out[i, P_VALUE] = base + learned_value(root, rules, model, bc[i], bt[i], idx, dense, acc,
                                               xs)  # fmt: skip
    return n


#: No match objective, no belief: the empty arrays :func:`ismcts_run` passes for them.
_NO_EQ = np.empty(0)
_NO_PARTS = np.empty((0, 4), dtype=np.int64)
_NO_CUM = np.empty(0)
_NO_REPLY = (np.empty(0, dtype=np.int64), np.empty(0), np.empty(0), np.empty((4, 0)), False)
#: No learned model, no root prior.
_NO_MODEL = np.empty(0)
_NO_PRIOR = np.empty((0, 3))


@njit(cache=True, nogil=True, pipeline_class=STEPS)
def _ismcts_run_scopa(root, rules, tree, count, iterations, c, policy, horizon, rng, log, leaf,
                      eq, parts, cum, rkinds, rtaus, reps, rpost, rroll, lmodel, prior,
                      pvis):  # fmt: skip
    """:func:`ismcts_run` under Scopa's capture rule."""
    return _ismcts(root, rules, tree, count, iterations, c, policy, horizon, rng, log, leaf,
                   eq, parts, cum, rkinds, rtaus, reps, rpost, rroll, False,
                   (lmodel, prior, pvis))  # fmt: skip


@njit(cache=True, nogil=True, pipeline_class=STEPS)
def _ismcts_run15(root, rules, tree, count, iterations, c, policy, horizon, rng, log, leaf,
                  eq, parts, cum, rkinds, rtaus, reps, rpost, rroll, lmodel, prior,
                  pvis):  # fmt: skip
    """:func:`ismcts_run` under the fifteen rule (capture_mode=fifteen)."""
    return _ismcts(root, rules, tree, count, iterations, c, policy, horizon, rng, log, leaf,
                   eq, parts, cum, rkinds, rtaus, reps, rpost, rroll, True,
                   (lmodel, prior, pvis))  # fmt: skip


@njit(cache=True, inline="always")
def _draw_unseen(u, pool, unseen, seat, players, sizes, bparts, bcum, nu, z):
    """The unseen cards ``u[:nu]`` laid out for an iteration's world (the other hands in
    seat order by their ``sizes``, then the stock): shuffled, or from a belief particle
    drawn by its weight (``bparts``/``bcum``: the hands it holds, the cards left
    shuffled to the rest); return the stream's counter."""
    nparts = bparts.shape[0]
    if nparts:  # from the belief: u laid out as the hands in seat order, then stock
        z += GOLDEN
        pi = pick_weighted(bcum, 0, nparts, unit_draw(z))
        taken = np.int64(0)
        for s in range(players):
            if s != seat and bparts[pi, s] >= 0:
                taken |= bparts[pi, s]
        npool = 0
        m = unseen & ~taken
        while m:
            pool[npool] = ctz(m)
            m &= m - 1
            npool += 1
        for i in range(npool - 1, 0, -1):
            z += GOLDEN
            j = below(z, i + 1)
            t = pool[i]
            pool[i] = pool[j]
            pool[j] = t
        q = 0
        pos = 0
        for s in range(players):
            if s == seat:
                continue
            if bparts[pi, s] >= 0:
                m = bparts[pi, s]
                while m:
                    u[pos] = ctz(m)
                    m &= m - 1
                    pos += 1
            else:
                for _i in range(sizes[s]):
                    u[pos] = pool[q]
                    q += 1
                    pos += 1
        while q < npool:
            u[pos] = pool[q]
            q += 1
            pos += 1
    else:
        for i in range(nu - 1, 0, -1):
            z += GOLDEN
            j = below(z, i + 1)
            t = u[i]
            u[i] = u[j]
            u[j] = t
    return z


@njit(cache=True, inline="always")
def _draw_channels(chans, rpost, nrc, players, teams, root_side, z):
    """Each modelled seat's channel for this iteration (``chans``), drawn by its
    posterior ``rpost``; return the stream's counter."""
    for s in range(players):
        if ((s & 1) if teams else s) != root_side:
            z += GOLDEN
            x = unit_draw(z)
            acc = 0.0
            chans[s] = nrc - 1
            for k in range(nrc):
                acc += rpost[s, k]
                if x < acc:
                    chans[s] = k
                    break
    return z


@njit(cache=True, inline="always")
def _lay_world(w, u, nu, root, seat, players, ns, sizes, log, logging):
    """An iteration's world in the work array ``w``: the root seat's hand, the other
    hands from the front of the unseen cards ``u`` by their sizes, the root's piles and
    scope (logged with ``logging``); return ``(pos, inhand)``: the stock's start in
    ``u`` and the cards in hand."""
    pos = 0
    inhand = 0
    for s in range(players):
        if s == seat:
            h = root[S_HANDS + s]
        else:
            h = np.int64(0)
            for _i in range(sizes[s]):
                h |= np.int64(1) << u[pos]
                pos += 1
        w[W_HANDS + s] = h
        inhand += sizes[s]
    for s in range(ns):
        w[W_PILES + s] = root[S_PILES + s]
        w[W_SCOPE + s] = root[S_SCOPE + s]
    if logging:
        for s in range(4):
            log[L_HANDS + s] = w[W_HANDS + s]
        log[L_STOCK_LEN] = nu - pos
        for i in range(pos, nu):
            log[L_STOCK + i - pos] = u[i]
    return pos, inhand


@njit(cache=True, inline="always")
def _deal_next(w, u, pos, nu, hand_size, players, dealer):
    """The next round's deal of an iteration's world: ``hand_size`` cards (fewer when
    the stock runs short) from ``u[pos:]`` to each seat after the dealer; return ``(pos,
    inhand)``, ``inhand`` = 0 when the stock is used up (the hand is over). Dealt by
    :func:`.deals.deal_round_cards`."""
    first = dealer + 1
    if first >= players:
        first -= players
    pos, k = deal_round_cards(u, 0, pos, nu, hand_size, players, first, w, W_HANDS)
    return pos, players * k


@njit(cache=True, inline="always")
def _play_model(rkinds, rtaus, reps, chans, nrc, turn, side, root_side, in_tree, rroll,
                greedy, expert, z):  # fmt: skip
    """How the seat to play chooses: a modelled seat (another side's, in the tree or with
    ``rroll`` in the rollout, its channel not ``KIND_SEARCH``) by its channel (greedy,
    expert, or uniform: always, or by its ``eps`` draw), else by the rollout policy;
    return ``(modelled, p_greedy, p_expert, p_random, tau, z)``."""
    # the seat's play model: a modelled seat's channel, else the rollout policy
    modelled = (
        nrc > 0 and side != root_side and (in_tree or rroll) and rkinds[chans[turn]] != KIND_SEARCH
    )
    p_greedy = greedy
    p_expert = expert
    p_random = False
    tau = 0.0
    if modelled:
        mc = chans[turn]
        p_greedy = rkinds[mc] == KIND_GREEDY
        p_expert = rkinds[mc] == KIND_EXPERT
        tau = rtaus[mc]
        p_random = rkinds[mc] == KIND_RANDOM
        if not p_random and reps[mc] > 0.0:
            z += GOLDEN
            p_random = unit_draw(z) < reps[mc]
    return modelled, p_greedy, p_expert, p_random, tau, z


@njit(cache=True, inline="always")
def _tree_step(tree, node, count, hand, side, lay_ok, n, nh, hc, kk, big, table, packed,
               packed_hi, sweep_aces, fewest, fifteen, optional, bt, sc, cc, ct, cn, path, plen,
               c, scale, z):  # fmt: skip
    """A step down the tree for a seat choosing by UCB1: the availability of each child
    legal in this world counted; then one untried legal play expanded, chosen at random
    (unless the pool is full), which leaves the tree, or with every legal play tried the
    child of best UCB1 value followed; return ``(card, take, node, count, plen,
    in_tree, z)``.

    The untried play is found by walking the plays in the engine's order and stopping
    at it, as the fused loop does, rather than listing them all first
    (:func:`.plays.list_plays`), which is slower at short horizons, where a node is
    expanded in nearly every iteration (docs/results/benchmarks.md, "Engine design
    choices")."""
    card = -1
    take = np.int64(0)
    in_tree = True
    cap = tree.shape[0]
    # children legal in this world: count their availability
    compat = 0
    ch = tree[node, T_CHILD]
    while ch >= 0:
        x = tree[ch, T_CARD]
        if (hand >> x) & 1 and (lay_ok or tree[ch, T_TAKE] != 0):
            tree[ch, T_AVAIL] += 1
            cc[compat] = x
            ct[compat] = tree[ch, T_TAKE]
            cn[compat] = ch
            compat += 1
        ch = tree[ch, T_NEXT]
    if compat < n:  # expand one untried play, chosen at random
        z += GOLDEN
        r = below(z, n - compat)
        for i in range(nh):  # the plays in the engine's order, walked up to the r-th untried
            x, k, p = card_plays(i, hc, kk, lay_ok, optional, big, table, sweep_aces, fewest,
                                 fifteen, bt, sc)  # fmt: skip
            for j in range(p):
                t = take_at(x, j, k, big, table, packed, packed_hi, sweep_aces, fewest, fifteen,
                            bt)  # fmt: skip
                tried = False
                for q in range(compat):
                    if cc[q] == x and ct[q] == t:
                        tried = True
                        break
                if not tried:
                    if r == 0:
                        card = x
                        take = t
                        break
                    r -= 1
            if card >= 0:
                break
        in_tree = False
        if count < cap:
            node = _add_child(tree, node, count, card, take)
            count += 1
            path[plen] = node
            path[plen + 1] = side
            plen += 2
    else:  # every legal play tried: UCB1 among them
        node = ucb1_child(tree, cn, compat, c, scale)
        card = tree[node, T_CARD]
        take = tree[node, T_TAKE]
        path[plen] = node
        path[plen + 1] = side
        plen += 2
    return card, take, node, count, plen, in_tree, z


@njit(cache=True, inline="always")
def ucb1_child(tree, cn, compat, c, scale):
    """The child of best UCB1 value among the ``compat`` children ``cn`` (every one
    visited): mean reward (``scale`` times the mean of ``T_SUM``) plus ``c * sqrt(ln
    availability / visits)``, the first of equal values; return it."""
    best = -INF
    node = cn[0]
    for q in range(compat):
        ch = cn[q]
        v = float(tree[ch, T_VISITS])
        val = scale * tree[ch, T_SUM] / v + c * math.sqrt(math.log(float(tree[ch, T_AVAIL])) / v)
        if val > best:
            best = val
            node = ch
    return node


@njit(cache=True, inline="always")
def prior_row(prior, card, take):
    """The row of the root prior ``prior`` (``P_*`` columns) of the play ``(card, take)``
    (on Cirulla ``card`` is the play's code, :func:`.ismcts_cirulla.play_code`); -1: none."""
    for r in range(prior.shape[0]):
        if np.int64(prior[r, P_CARD]) == card and np.int64(prior[r, P_TAKE]) == take:
            return r
    return -1


@njit(cache=True, inline="always")
def ucb1_prior(tree, ch, c, scale, prior, pvis, unit):
    """UCB1's value of the root's child ``ch`` (visited) with a root prior: its mean taken
    over its visits and ``pvis`` virtual ones at its prior value (its :func:`prior_row`'s
    ``P_VALUE`` in points, times ``unit``, the game's reward scale; a child without a row:
    no virtual visits), ``(scale * T_SUM + virtual sum) / (visits + virtual)``, plus
    ``c * sqrt(ln availability / visits)``."""
    r = prior_row(prior, tree[ch, T_CARD], tree[ch, T_TAKE])
    virt = pvis if r >= 0 else 0.0
    pval = prior[r, P_VALUE] if r >= 0 else 0.0
    v = float(tree[ch, T_VISITS])
    mean = (scale * tree[ch, T_SUM] + virt * unit * pval) / (v + virt)
    return mean + c * math.sqrt(math.log(float(tree[ch, T_AVAIL])) / v)


@njit(cache=True, inline="always")
def _score_plays(hand, table, packed, packed_hi, sweep_aces, fewest, fifteen, optional, lay_ok,
                 big, hc, kk, nh, bt, sc, w, where, plays, total, lps, size, xflags, xs,
                 p_expert, modelled, pv, pc, pt, z):  # fmt: skip
    """Every legal play scored by greedy's or (``p_expert``) the expert's values, the
    seat's view read once: for a ``modelled`` seat the plays and values kept in
    ``pc``/``pt``/``pv`` (in points) for its channel's choice, else the best play kept,
    ties broken uniformly (walked, not listed first, which is faster);
    return ``(card, take, npv, z)``.  ``where`` is the seat's place for the view (with
    the work array ``w``): ``(turn, players, teams, ns, deck, stock, hand_size,
    last_capturer, dealer)``, ``stock`` the cards left to deal (numbers only, and one
    argument: a call of more than 30 arguments compiles to a star-args call, which
    numba does not inline)."""
    turn, players, teams, ns, deck, stock, hand_size, last_capturer, dealer = where
    card = -1
    take = np.int64(0)
    view = seat_view(w, W_HANDS, W_PILES, turn, hand, table, players, teams, ns, deck, stock,
                     hand_size, last_capturer, dealer, p_expert, fifteen)  # fmt: skip
    table_sum = value_sum(table)
    not_last = plays + 1 < total
    best_v = -(1 << 62)
    ties = 0
    npv = 0
    for i in range(nh):  # the plays in the engine's order (.plays), walked without a list
        x, k, p = card_plays(i, hc, kk, lay_ok, optional, big, table, sweep_aces, fewest,
                             fifteen, bt, sc)  # fmt: skip
        for j in range(p):
            t = take_at(x, j, k, big, table, packed, packed_hi, sweep_aces, fewest, fifteen, bt)
            val = play_value(x, t, hand, table, table_sum, not_last, lps, p_expert, fifteen,
                             view, plays, total, size, xflags, players == 2, xs)  # fmt: skip
            if modelled:  # kept for the choice below
                pv[npv] = val / EXPERT_FIX if p_expert else float(val)
                pc[npv] = x
                pt[npv] = t
                npv += 1
            elif val > best_v:
                best_v = val
                ties = 1
                card = x
                take = t
            elif val == best_v:
                ties += 1
                z += GOLDEN
                if below(z, ties) == 0:  # uniform among the ties
                    card = x
                    take = t
    return card, take, npv, z


@njit(cache=True, inline="always")
def _model_choice(pv, pc, pt, npv, tau, z):
    """A modelled seat's play among the ``npv`` plays valued ``pv`` (cards ``pc``, takes
    ``pt``): a softmax at temperature ``tau`` (points), or with ``tau = 0`` uniform among
    the best; return ``(card, take, z)``."""
    top = pv[0]
    for i in range(1, npv):
        top = max(top, pv[i])
    i = 0
    if tau > 0.0:  # a softmax at temperature tau
        tot = 0.0
        for j in range(npv):
            tot += math.exp((pv[j] - top) / tau)
        z += GOLDEN
        x = unit_draw(z) * tot
        while i < npv - 1:
            x -= math.exp((pv[i] - top) / tau)
            if x < 0.0:
                break
            i += 1
    else:  # uniform among the best
        ties = 0
        for j in range(npv):
            if pv[j] == top:
                ties += 1
        z += GOLDEN
        r = below(z, ties)
        for j in range(npv):
            if pv[j] == top:
                if r == 0:
                    i = j
                    break
                r -= 1
    card = pc[i]
    take = pt[i]
    return card, take, z


@njit(cache=True, inline="always")
def _random_tree_play(hc, kk, nh, n, lay_ok, optional, big, table, packed, packed_hi,
                      sweep_aces, fewest, fifteen, bt, sc, z):  # fmt: skip
    """A uniform play among the ``n`` legal plays, only the chosen one built
    (:func:`.plays.nth_play`); return ``(card, take, z)``."""
    z += GOLDEN
    card, take = nth_play(below(z, n), hc, kk, nh, lay_ok, optional, big, table, packed,
                          packed_hi, sweep_aces, fewest, fifteen, bt, sc)  # fmt: skip
    return card, take, z


@njit(cache=True, inline="always")
def _follow(tree, node, count, card, take, path, plen, side):
    """A modelled seat's play in the tree: follow its child of ``node`` (counting its
    availability), or expand it when untried (unless the pool is full) and leave the
    tree; return ``(node, count, plen, in_tree)``."""
    in_tree = True
    cap = tree.shape[0]
    ch = tree[node, T_CHILD]
    while ch >= 0 and (tree[ch, T_CARD] != card or tree[ch, T_TAKE] != take):
        ch = tree[ch, T_NEXT]
    if ch >= 0:
        tree[ch, T_AVAIL] += 1
        node = ch
        path[plen] = ch
        path[plen + 1] = side
        plen += 2
    else:
        in_tree = False
        if count < cap:
            node = _add_child(tree, node, count, card, take)
            count += 1
            path[plen] = node
            path[plen + 1] = side
            plen += 2
    return node, count, plen, in_tree


@njit(cache=True, inline="always")
def _rewards(rules, w, score, margins, work, eqt, cut, match, leaf, unit, n_cards, n_den,
             total, plays, ns, teams, remainder_dealer, dealer, last_capturer, table):  # fmt: skip
    """An iteration's reward of each side, into ``margins`` (in units of ``1 / unit``
    points): at a horizon (``cut``) the heuristic leaf's (the match objective's
    :func:`.values.leaf_value`, the expert's or :func:`.values.estimate`'s margins), else
    the hand's final margins or (``match``) its value by the match table ``eqt``."""
    if cut and match:
        estimate_sides(rules, w, W_PILES, w, W_SCOPE, n_cards, n_den, True, work)
        s0, s1 = float(w[W_SCOPE]), float(w[W_SCOPE + 1])
        v = leaf_value(eqt, work[12], work[13], s0, s1, total - plays, total)
        margins[0] = np.int64(round(v * unit))
        margins[1] = -margins[0]
    elif cut and leaf == LEAF_EXPERT:
        for s in range(ns):
            e = expert_margin(rules, w, W_PILES, w, W_SCOPE, s, True)
            margins[s] = np.int64(round(e * unit))
    elif cut:
        estimate_sides(rules, w, W_PILES, w, W_SCOPE, n_cards, n_den, True, work)
        for s in range(ns):
            best_e = -INF
            for t2 in range(ns):
                if t2 != s and work[12 + t2] > best_e:
                    best_e = work[12 + t2]
            margins[s] = np.int64(round((work[12 + s] - best_e) * unit))
    else:
        owner = remainder_side(remainder_dealer, (dealer & 1) if teams else dealer, last_capturer)
        if table and owner >= 0:
            w[W_PILES + owner] |= table
        score_into(rules, w, W_PILES, w, W_SCOPE, score)
        if match:
            v = end_value(eqt, score[0, I_TOTAL], score[1, I_TOTAL], w[W_PILES], w[W_PILES + 1])
            margins[0] = np.int64(round(v * unit))
            margins[1] = -margins[0]
        else:
            for s in range(ns):
                best_o = -1000
                for t2 in range(ns):
                    if t2 != s and score[t2, I_TOTAL] > best_o:
                        best_o = score[t2, I_TOTAL]
                margins[s] = (score[s, I_TOTAL] - best_o) * unit


@njit(cache=True, inline="always")
def _root_unseen(root, seat, players, u):
    """The cards ``seat`` cannot see at ``root`` (the other hands and the stock): return
    their mask and number, the cards listed in ``u`` in card order."""
    unseen = np.int64(0)
    for s in range(players):
        if s != seat:
            unseen |= root[S_HANDS + s]
    for i in range(root[S_STOCK], root[S_DECK_SIZE]):
        unseen |= np.int64(1) << root[S_DECK + i]
    nu = 0
    m = unseen
    while m:
        u[nu] = ctz(m)
        m &= m - 1
        nu += 1
    return unseen, nu


@njit(cache=True, inline="always")
def _back_up(tree, path, plen, margins):
    """An iteration's rewards backed up: each node of the ``path`` (node, side that made
    its play) gets a visit and its side's reward ``margins[side]``; the root a visit."""
    for q in range(0, plen, 2):
        ch = path[q]
        x = margins[path[q + 1]]
        tree[ch, T_VISITS] += 1
        tree[ch, T_SUM] += x
        tree[ch, T_SQ] += x * x
    tree[0, T_VISITS] += 1


@njit(cache=True, inline="always")
def _reply_cache(size):
    """ISMCTS's cache of a modelled seat's expert play values (``size`` slots of
    ``CACHE_W`` plays): ``(node, hand, plays, values, cards, takes)``, no slot filled."""
    return (
        np.full(size, -1, dtype=np.int64),
        np.zeros(size, dtype=np.int64),
        np.zeros(size, dtype=np.int64),
        np.empty((size, CACHE_W)),
        np.empty((size, CACHE_W), dtype=np.int64),
        np.empty((size, CACHE_W), dtype=np.int64),
    )


@njit(cache=True, inline="always")
def _learned_scratch(lmodel):
    """The learned model's view of a world (an ``S_*`` state, :func:`_model_state`) and
    its scratch ``(idx, dense, acc, xs)`` for :func:`.learned.learned_value`."""
    st = np.zeros(N_STATE, dtype=np.int64)
    scr = (
        np.empty(MAX_ACTIVE, dtype=np.int64),
        np.empty(N_DENSE),
        np.empty(max(1, hidden_width(lmodel))),
        np.empty(EXPERT_SCRATCH),
    )
    return st, scr


@njit(cache=True, inline="always")
def _model_state(st, w, where, plays, table):
    """Lay an iteration's world out in ``st`` as the state the learned model reads
    (:func:`.learned.play_features`: the seat to play's hand, the table, the piles, the
    scope, the other hands by their sizes): ``where = (turn, players, ns, deck_size,
    stock, last_capturer, dealer)``, ``stock`` the cards left to deal."""
    turn, players, ns, deck_size, stock, last_capturer, dealer = where
    st[S_TURN] = turn
    st[S_TABLE] = table
    st[S_PLAYS] = plays
    st[S_DECK_SIZE] = deck_size
    st[S_STOCK] = deck_size - stock
    st[S_LAST_CAPTURER] = last_capturer
    st[S_DEALER] = dealer
    for s in range(players):
        st[S_HANDS + s] = w[W_HANDS + s]
    for s in range(ns):
        st[S_PILES + s] = w[W_PILES + s]
        st[S_SCOPE + s] = w[W_SCOPE + s]


@njit(cache=True, inline="always")
def _learned_best(st, scr, lmodel, rules, w, where, plays, table, tab, hand, hc, kk, bt, sc, z):
    """The learned model's best play for the seat to play in an iteration's world (its
    hand ``hand``, counted into ``hc``/``kk``; ``tab = (packed, packed_hi, sweep_aces,
    fewest, fifteen, optional, lay_ok, big, nh)``, ``where`` as :func:`_model_state`
    takes it), walked in the engine's order, ties uniform; return ``(card, take, value,
    z)``, ``value`` the model's (points; ``-INF`` without a play)."""
    packed, packed_hi, sweep_aces, fewest, fifteen, optional, lay_ok, big, nh = tab
    idx, dense, acc, xs = scr
    _model_state(st, w, where, plays, table)
    card = -1
    take = np.int64(0)
    best = -INF
    ties = 0
    for i in range(nh):
        x, k, p = card_plays(i, hc, kk, lay_ok, optional, big, table, sweep_aces, fewest,
                             fifteen, bt, sc)  # fmt: skip
        for j in range(p):
            t = take_at(x, j, k, big, table, packed, packed_hi, sweep_aces, fewest, fifteen, bt)
            v = learned_value(st, rules, lmodel, x, t, idx, dense, acc, xs)
            if v > best:
                best = v
                ties = 1
                card = x
                take = t
            elif v == best:
                ties += 1
                z += GOLDEN
                if below(z, ties) == 0:  # uniform among the ties
                    card = x
                    take = t
    return card, take, best, z


@njit(cache=True, inline="always")
def _learned_leaf(rules, w, margins, unit, ns, teams, plays, table, last_capturer, dealer, z,
                  lk):  # fmt: skip
    """The learned leaf (``leaf = LEAF_LEARNED``) of the position where a rollout stopped,
    into ``margins`` (in units of ``1 / unit`` points): the side to play there gets the
    expert's evaluation of the piles (scope included, :func:`.values.expert_margin`) plus
    the model's value of its best play (none: 0), every other side its own evaluation
    less that value; ``lk``: the model, its scratch and the position's facts.  Return the
    stream's counter."""
    (
        st,
        scr,
        lmodel,
        turn,
        players,
        deck_size,
        stock,
        packed,
        packed_hi,
        flags,
        big_table,
        hc,
        kk,
        bt,
        sc,
    ) = lk
    ace_rule, fewest, capture_hand, optional, fifteen = flags
    hand = w[W_HANDS + turn]
    side = (turn & 1) if teams else turn
    sweep_aces, big, nh, n, lay_ok = count_hand(
        hand, table, packed, packed_hi, ace_rule, fewest, capture_hand, optional, fifteen,
        big_table, hc, kk, bt, sc,
    )  # fmt: skip
    gain = 0.0
    if n > 0:
        where = (turn, players, ns, deck_size, stock, last_capturer, dealer)
        tab = (packed, packed_hi, sweep_aces, fewest, fifteen, optional, lay_ok, big, nh)
        _card, _take, gain, z = _learned_best(st, scr, lmodel, rules, w, where, plays, table,
                                              tab, hand, hc, kk, bt, sc, z)  # fmt: skip
    for s in range(ns):
        e = expert_margin(rules, w, W_PILES, w, W_SCOPE, s, True)
        margins[s] = np.int64(round((e + gain if s == side else e - gain) * unit))
    return z


@njit(cache=True, inline="always")
def _root_step_prior(tree, count, hand, side, lay_ok, n, nh, hc, kk, big, table, packed,
                     packed_hi, sweep_aces, fewest, fifteen, optional, bt, sc, cc, ct, cn, path,
                     plen, c, scale, z, prior, pvis):  # fmt: skip
    """The root's step of :func:`_tree_step` with a prior (``pvis > 0``): while a legal
    play is untried, :func:`_tree_step`'s expansion; then UCB1 with each child's mean
    taken over its visits and ``pvis`` virtual ones at its prior value (``prior[:,
    P_VALUE]``, points, scaled as the rewards; a child without a row: no virtual
    visits); return as :func:`_tree_step`."""
    compat = 0
    ch = tree[0, T_CHILD]
    while ch >= 0:
        if (hand >> tree[ch, T_CARD]) & 1 and (lay_ok or tree[ch, T_TAKE] != 0):
            compat += 1
        ch = tree[ch, T_NEXT]
    if compat < n:  # an untried play: expanded as without the prior
        return _tree_step(
            tree, 0, count, hand, side, lay_ok, n, nh, hc, kk, big, table, packed, packed_hi,
            sweep_aces, fewest, fifteen, optional, bt, sc, cc, ct, cn, path, plen, c, scale, z,
        )  # fmt: skip
    best = -INF
    node = 0
    ch = tree[0, T_CHILD]
    while ch >= 0:
        x = tree[ch, T_CARD]
        if (hand >> x) & 1 and (lay_ok or tree[ch, T_TAKE] != 0):
            tree[ch, T_AVAIL] += 1
            val = ucb1_prior(tree, ch, c, scale, prior, pvis, REWARD_SCALE)
            if val > best:
                best = val
                node = ch
        ch = tree[ch, T_NEXT]
    path[plen] = node
    path[plen + 1] = side
    return tree[node, T_CARD], tree[node, T_TAKE], node, count, plen + 2, True, z


@njit(cache=True, inline="always")
def _ismcts(root, rules, tree, count, iterations, c, policy, horizon, rng, log, leaf, eqt,
            bparts, bcum, rkinds, rtaus, reps, rpost, rroll, fifteen, lp):  # fmt: skip
    """The body of :func:`ismcts_run`, the capture rule chosen by ``fifteen``; ``eqt`` the
    match objective's table (empty: margins), ``bparts``/``bcum`` the belief's particles
    (none: the uniform draw), ``rkinds``/``rtaus``/``reps``/``rpost`` the other sides'
    play models (no channels: UCB1 and the rollout policy for every seat), followed in the
    rollouts too when ``rroll``; ``lp``: the learned model, the root prior, its visits.

    In named steps: draw a world, the channels and lay it out; then down the tree and on
    in the rollout: deal, count the plays, the seat's play model, a tree step (UCB1 or an
    expansion), a play scored by greedy, the expert or the learned model, a model's choice
    or a random play, follow the tree, apply; last the rewards, backed up.  Compiled with
    :data:`.pipeline.STEPS`, so that the arrays the steps take add no reference counting to
    the loop (docs/results/benchmarks.md, "Engine design choices")."""
    nrc = rkinds.shape[0]
    chans = np.zeros(4, dtype=np.int64)  # this iteration's channel of each modelled seat
    pv = np.empty(MAX_PLAYS)  # a softmax reply's play values, cards and takes
    pc = np.empty(MAX_PLAYS, dtype=np.int64)
    pt = np.empty(MAX_PLAYS, dtype=np.int64)
    c_node, c_hand, c_n, c_val, c_card, c_take = _reply_cache(CACHE if nrc else 1)  # replies'
    z = rng[0]
    logging = log.shape[0] >= L_SIZE
    players = rules[R_PLAYERS]
    teams = rules[R_TEAMS] != 0
    ns = rules[R_SIDES]
    hand_size = rules[R_HAND_SIZE]
    total = rules[R_TOTAL_PLAYS]
    fewest = rules[R_SUM_FEWEST] != 0
    capture_hand = rules[R_CAPTURE_HAND] != 0
    optional = rules[R_CAPTURE_OPTIONAL] != 0
    ace_rule = rules[R_ACE_SWEEP] != 0
    ace_scopa = rules[R_ACE_SWEEP_SCOPA] != 0
    lps = rules[R_LAST_PLAY_SCOPA] != 0
    remainder_dealer = rules[R_REMAINDER_DEALER] != 0
    greedy = policy == POLICY_GREEDY
    expert = policy == POLICY_EXPERT
    xflags = expert_flags(rules)
    xs = np.empty(EXPERT_SCRATCH)
    size = rules[R_DECK]
    seat = root[S_TURN]
    root_side = (seat & 1) if teams else seat
    dealer = root[S_DEALER]
    # the cards the root seat cannot see, and the other hands' sizes
    u = np.empty(40, dtype=np.int64)
    pool = np.empty(40, dtype=np.int64)
    unseen, nu = _root_unseen(root, seat, players, u)
    root_table = root[S_TABLE]
    root_packed, root_hi = packed_of(root_table, fifteen)
    big_table = BIG_TABLE15 if fifteen else BIG_TABLE
    w = np.zeros(N_WORK, dtype=np.int64)  # hands, piles, scope (W_* layout)
    sizes = np.zeros(4, dtype=np.int64)
    for s in range(players):
        sizes[s] = popcount(root[S_HANDS + s])
    hc = np.empty(16, dtype=np.int64)  # cards of the hand to play
    kk = np.empty(16, dtype=np.int64)  # their numbers of captures
    cc = np.empty(MAX_PLAYS, dtype=np.int64)  # legal children's plays
    ct = np.empty(MAX_PLAYS, dtype=np.int64)
    cn = np.empty(MAX_PLAYS, dtype=np.int64)
    bt = np.empty(MAX_PLAYS, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    path = np.empty(2 * MAX_PLY, dtype=np.int64)  # node, side that made its play
    score = np.zeros((4, N_ITEMS), dtype=np.int64)
    margins = np.zeros(4, dtype=np.int64)
    match = eqt.shape[0] > 0
    unit = 1 if horizon >= FULL_DEPTH and not match else EST_UNIT
    scale = REWARD_SCALE / unit
    deck = np.int64(0)
    for i in range(root[S_DECK_SIZE]):
        deck |= np.int64(1) << root[S_DECK + i]
    n_cards = popcount(deck)
    n_den = popcount(deck & DENARI)
    work = np.zeros(16, dtype=np.float64)
    lmodel, prior, pvis = lp  # the learned model, the root prior and its weight
    lst, lscr = _learned_scratch(lmodel)  # the model's view of a world, its scratch
    for _ in range(iterations):
        # ---------------------------------------------------------------- determinize
        z = _draw_unseen(u, pool, unseen, seat, players, sizes, bparts, bcum, nu, z)
        if nrc:  # each modelled seat's channel for this iteration, by its posterior
            z = _draw_channels(chans, rpost, nrc, players, teams, root_side, z)
        pos, inhand = _lay_world(w, u, nu, root, seat, players, ns, sizes, log, logging)
        table = root_table
        packed = root_packed
        packed_hi = root_hi
        last_capturer = root[S_LAST_CAPTURER]
        turn = seat
        plays = root[S_PLAYS]
        node = 0
        plen = 0
        in_tree = True
        made = 0
        rolled = 0  # rollout plays made
        cut = False  # the rollout stopped at the horizon
        while True:
            if inhand == 0:  # deal the next round, or end the hand
                pos, inhand = _deal_next(w, u, pos, nu, hand_size, players, dealer)
                if inhand == 0:
                    break
            if not in_tree and rolled >= horizon:
                cut = True
                break
            hand = w[W_HANDS + turn]
            side = (turn & 1) if teams else turn
            # ------------------------------------------------------------ count plays
            sweep_aces, big, nh, n, lay_ok = count_hand(
                hand, table, packed, packed_hi, ace_rule, fewest, capture_hand, optional,
                fifteen, big_table, hc, kk, bt, sc,
            )  # fmt: skip
            if n == 0:  # only in hand-made positions: nothing to play
                break
            card = -1
            take = np.int64(0)
            if not in_tree:
                rolled += 1
            modelled, p_greedy, p_expert, p_random, tau, z = _play_model(
                rkinds, rtaus, reps, chans, nrc, turn, side, root_side, in_tree, rroll, greedy,
                expert, z,
            )  # fmt: skip
            if in_tree and not modelled and node == 0 and pvis > 0.0:  # the root, its prior
                card, take, node, count, plen, in_tree, z = _root_step_prior(
                    tree, count, hand, side, lay_ok, n, nh, hc, kk, big, table, packed,
                    packed_hi, sweep_aces, fewest, fifteen, optional, bt, sc, cc, ct, cn, path,
                    plen, c, scale, z, prior, pvis,
                )  # fmt: skip
            elif in_tree and not modelled:
                card, take, node, count, plen, in_tree, z = _tree_step(
                    tree, node, count, hand, side, lay_ok, n, nh, hc, kk, big, table, packed,
                    packed_hi, sweep_aces, fewest, fifteen, optional, bt, sc, cc, ct, cn, path,
                    plen, c, scale, z,
                )  # fmt: skip
            elif (p_greedy or p_expert) and n > 1 and not p_random:
                hit = np.int64(-1)
                slot = np.int64(0)
                cached = modelled and in_tree and p_expert
                if cached:  # the same node and hand: the same expert values
                    slot = np.int64(mix64(np.uint64(hand * 1000003 + node)) & np.uint64(CACHE - 1))
                    if c_node[slot] == node and c_hand[slot] == hand:
                        hit = slot
                if hit >= 0:
                    npv = c_n[hit]
                    for i in range(npv):
                        pv[i] = c_val[hit, i]
                        pc[i] = c_card[hit, i]
                        pt[i] = c_take[hit, i]
                else:
                    where = (turn, players, teams, ns, deck, nu - pos, hand_size, last_capturer,
                             dealer)  # fmt: skip
                    card, take, npv, z = _score_plays(
                        hand, table, packed, packed_hi, sweep_aces, fewest, fifteen, optional,
                        lay_ok, big, hc, kk, nh, bt, sc, w, where, plays, total, lps, size,
                        xflags, xs, p_expert, modelled, pv, pc, pt, z,
                    )  # fmt: skip
                    if cached and npv <= CACHE_W:
                        c_node[slot] = node
                        c_hand[slot] = hand
                        c_n[slot] = npv
                        for i in range(npv):
                            c_val[slot, i] = pv[i]
                            c_card[slot, i] = pc[i]
                            c_take[slot, i] = pt[i]
                if modelled:  # the channel's choice among the values kept
                    card, take, z = _model_choice(pv, pc, pt, npv, tau, z)
            elif policy == POLICY_LEARNED and not modelled and n > 1:  # the model's best play
                card, take, _lval, z = _learned_best(lst, lscr, lmodel, rules, w, (turn, players,
                    ns, root[S_DECK_SIZE], nu - pos, last_capturer, dealer), plays, table, (packed,
                    packed_hi, sweep_aces, fewest, fifteen, optional, lay_ok, big, nh), hand, hc,
                    kk, bt, sc, z)  # fmt: skip
            else:
                card, take, z = _random_tree_play(
                    hc, kk, nh, n, lay_ok, optional, big, table, packed, packed_hi, sweep_aces,
                    fewest, fifteen, bt, sc, z,
                )  # fmt: skip
            if in_tree and modelled:  # follow the modelled play's child, or expand it
                node, count, plen, in_tree = _follow(
                    tree, node, count, card, take, path, plen, side
                )
            if logging:
                log[L_PLAYS + 3 * made] = card
                log[L_PLAYS + 3 * made + 1] = take
                log[L_PLAYS + 3 * made + 2] = n
            made += 1
            # ------------------------------------------------------------ apply the play
            bit = np.int64(1) << card
            w[W_HANDS + turn] = hand ^ bit
            plays += 1
            inhand -= 1
            table, packed, packed_hi, pile, last_capturer, scopa = play_on_table(
                table, packed, packed_hi, w[W_PILES + side], last_capturer, side, card, take,
                sweep_aces, ace_rule, plays == total, lps, ace_scopa, fifteen,
            )  # fmt: skip
            w[W_PILES + side] = pile
            w[W_SCOPE + side] += scopa
            turn += 1
            if turn >= players:
                turn = 0
        # ---------------------------------------------------------------- score, back up
        _rewards(
            rules, w, score, margins, work, eqt, cut, match, leaf, unit, n_cards, n_den, total,
            plays, ns, teams, remainder_dealer, dealer, last_capturer, table,
        )  # fmt: skip
        if cut and leaf == LEAF_LEARNED:  # the model's leaf instead of the heuristic's
            z = _learned_leaf(rules, w, margins, unit, ns, teams, plays, table, last_capturer,
                dealer, z, (lst, lscr, lmodel, turn, players, root[S_DECK_SIZE], nu - pos, packed,
                packed_hi, (ace_rule, fewest, capture_hand, optional, fifteen), big_table, hc,
                kk, bt, sc))  # fmt: skip
        if logging:
            log[L_MADE] = made
            for s in range(4):
                log[L_MARGINS + s] = margins[s]
        _back_up(tree, path, plen, margins)
    rng[0] = z
    return count
