"""Single-observer ISMCTS on Cirulla (RULES.md §10): :func:`ismcts_run_cirulla`, the tree of
:mod:`.ismcts` (its node pool, UCB1 with availability counts and back-up) over Cirulla's
plays, each iteration played on a whole state vector by the Cirulla step kernels.

A Cirulla play is ``(card, take, meta)`` (:func:`.step.legal_plays_cirulla`: the matta's
named value and the declaration are part of the play), so a tree node keys its play by
:func:`play_code` (the card and its ``meta``) in the ``T_CARD`` column and its take in
``T_TAKE``: declaring, keeping quiet and the value named for the matta are decisions the
tree searches as it searches captures. A child is legal in an iteration's world when the
world's legal plays list it (the hand to play, and whether it qualifies to declare, differ
between worlds; the table at a node does not).

Each iteration's world deals again the cards the root seat cannot see (the stock and the
hands of the ``hidden`` seats; a hand shown by a declaration, ``S_SHOWN``, is known and
kept), each hand keeping its size, drawn again while a seat that played this deal's first
card without declaring under ``declare=auto`` would have held a hand that qualifies
(``quiet``; as :func:`scopa_sim.game.worlds.deal_hidden` does for PIMC's worlds). Rollouts
play the Cirulla step policies (:func:`.step.choose_cirulla`: random, greedy or expert, the
expert declaring by :data:`.policy_cirulla.EXPERT_DECLARES`). Rewards are the hand's
Cirulla point margins (:func:`.step.score_state_cirulla`: scope, declarations, grande,
piccola and cappotto counted), scaled by :data:`REWARD_SCALE_CIRULLA`; at a horizon the
position is valued as the Cirulla solver values a depth limit
(:func:`.values.estimate` plus the declared points). With the match objective (an ``eq``
table, two sides) rewards are the solver's match values instead
(:func:`.solver_cirulla.match_static_cirulla`), side 1's the negation of side 0's.

The learned policy's Cirulla model (:mod:`.learned_cirulla`) serves as on Scopa
(:func:`.ismcts.ismcts_run`), through the run's argument ``lp = (model, prior,
prior_visits)`` (:data:`NO_LEARNED`: none): ``policy = POLICY_LEARNED`` rolls out by
the model's best play (:func:`.learned_cirulla.learned_choice_cirulla`); ``leaf =
LEAF_LEARNED`` values a horizon by :func:`_anchored_values`, the expert's Cirulla
evaluation of the piles with the scope and the declared points
(:func:`.values_cirulla.expert_leaf_cirulla`, ``leaf=expert``'s value)
plus the model's value of the best play of the seat to play there, put on the level of the
expert's play values (:func:`anchored_plays`); ``prior`` rows
(:func:`root_prior_cirulla`) with ``prior_visits > 0`` give the root's plays virtual visits
at their prior value in UCB1's mean (:func:`_prior_child`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import ctz, popcount
from .capture import declaration_points
from .determinize import pick_weighted, uniform
from .ismcts import (
    _NO_REPLY,
    EST_UNIT,
    KIND_EXPERT,
    KIND_RANDOM,
    KIND_SEARCH,
    LEAF_LEARNED,
    P_CARD,
    P_TAKE,
    P_VALUE,
    T_AVAIL,
    T_CARD,
    T_CHILD,
    T_NEXT,
    T_TAKE,
    ucb1_child,
    ucb1_prior,
)
from .ismcts import _add_child as add_child
from .ismcts import _back_up as back_up
from .ismcts import _draw_channels as draw_channels
from .ismcts import _follow as follow
from .ismcts import _model_choice as model_choice
from .layout import (
    I_TOTAL,
    MATTA_NONE,
    MAX_PLAYS,
    N_ITEMS_CIRULLA,
    N_STATE,
    POLICY_EXPERT,
    POLICY_GREEDY,
    POLICY_LEARNED,
    R_MATTA,
    R_PLAYERS,
    R_SIDES,
    R_TEAMS,
    S_DECK,
    S_DECK_SIZE,
    S_DECLARED,
    S_DONE,
    S_HANDS,
    S_STOCK,
    S_TURN,
    SCRATCH,
    side_of,
)
from .learned import D_EXPERT
from .learned_cirulla import learned_choice_cirulla, learned_scratch_cirulla, learned_value_cirulla
from .policy import EXPERT_FIX, EXPERT_SCRATCH
from .policy_cirulla import EXPERT_DECLARES
from .solver import FULL_DEPTH, MAX_PLY
from .solver_cirulla import match_static_cirulla
from .step import (
    apply_play_cirulla,
    choose_cirulla,
    legal_plays_cirulla,
    play_values_cirulla,
    score_state_cirulla,
)
from .streams import rand_below
from .values import INF, LEAF_ESTIMATE, LEAF_EXPERT, estimate
from .values_cirulla import expert_leaf_cirulla

__all__ = [
    "CODE_SHIFT",
    "NO_LEARNED",
    "QUIET_TRIES",
    "REWARD_SCALE_CIRULLA",
    "anchored_plays",
    "ismcts_run_cirulla",
    "play_code",
    "root_prior_cirulla",
]

#: Where a play's ``meta`` starts in its tree key (:func:`play_code`): cards are below 64.
CODE_SHIFT = 6
#: ISMCTS's reward on Cirulla = hand point margin * REWARD_SCALE_CIRULLA. Cirulla's margins
#: spread about 2.7 times Scopa's (a standard deviation near 8 points a hand under random
#: and expert self-play, against 3: declarations, grande, piccola), and against the
#: expert the search gains from more exploration than on Scopa, so the scale is smaller
#: than :data:`.ismcts.REWARD_SCALE` by more than that spread: the default ``c = 0.7``
#: explores as ``c = 1.4`` would at a scale of 0.1 (docs/guide/search.md, Cirulla).
REWARD_SCALE_CIRULLA = 0.05
#: The draws of a world before one is kept that breaks a ``quiet`` constraint (as
#: :func:`scopa_sim.game.worlds.deal_hidden`).
QUIET_TRIES = 1000
#: :func:`ismcts_run_cirulla`'s ``lp`` without the learned model: no model, no root prior,
#: no virtual visits.
NO_LEARNED = (np.empty(0), np.empty((0, 3)), 0.0)


@njit(cache=True, inline="always")
def play_code(card, meta):
    """The key of a Cirulla play ``(card, ·, meta)`` in the tree's ``T_CARD`` column: the
    card in the low :data:`CODE_SHIFT` bits, its ``meta`` above."""
    return card | (meta << CODE_SHIFT)


@njit(cache=True, inline="always")
def _draw_world(w, root, players, base, pool, npool, hidden, sizes, quiet, wild, deck, rng,
                fixed, taken):  # fmt: skip
    """An iteration's world in ``w``: ``root`` with the unseen cards ``base[:npool]`` (in
    card order, so that a world depends on the stream only and a run split into chunks
    draws the same worlds) but those of ``taken`` shuffled into ``pool`` and dealt to the
    ``hidden`` seats (a bit a seat) by their ``sizes``, the rest to the stock; a hidden
    seat with a ``fixed`` hand (``>= 0``: a belief particle's, :func:`_particle`, whose
    cards are ``taken``) holds it. Shuffled again (up to :data:`QUIET_TRIES` draws) while
    a seat dealt here with a ``quiet`` constraint (its cards played this deal, ``>= 0``)
    would have held a hand that qualifies to declare (a belief's hands already respect
    it: a quiet play with a hand that qualifies is not legal). The deck order is the
    cards dealt before (in card order, from the ``deck`` mask), then the stock."""
    for i in range(N_STATE):
        w[i] = root[i]
    left = 0
    for i in range(npool):
        if not (taken >> base[i]) & 1:
            pool[left] = base[i]
            left += 1
    npool = left
    at = 0
    for _try in range(QUIET_TRIES):
        for i in range(npool - 1, 0, -1):
            j = rand_below(rng, i + 1)
            t = pool[i]
            pool[i] = pool[j]
            pool[j] = t
        at = 0
        ok = True
        for s in range(players):
            if (hidden >> s) & 1 and fixed[s] >= 0:
                w[S_HANDS + s] = fixed[s]
            elif (hidden >> s) & 1:
                h = np.int64(0)
                for _i in range(sizes[s]):
                    h |= np.int64(1) << pool[at]
                    at += 1
                w[S_HANDS + s] = h
                if quiet[s] >= 0 and declaration_points(h | quiet[s], wild):
                    ok = False
        if ok:
            break
    stock = np.int64(0)
    for i in range(at, npool):
        stock |= np.int64(1) << pool[i]
    pos = S_DECK
    m = deck & ~stock
    while m:
        w[pos] = ctz(m)
        m &= m - 1
        pos += 1
    for i in range(at, npool):
        w[pos] = pool[i]
        pos += 1


@njit(cache=True, inline="always")
def _particle(parts, cum, hidden, players, rng, fixed):
    """A belief particle drawn by its cumulative weight ``cum`` (:mod:`.belief`): each
    ``hidden`` seat's hand in it into ``fixed`` (-1: dealt uniformly); return the cards
    they hold. No particles: every hand dealt uniformly, the stream untouched."""
    taken = np.int64(0)
    for s in range(4):
        fixed[s] = -1
    if parts.shape[0] == 0:
        return taken
    p = pick_weighted(cum, 0, cum.shape[0], uniform(rng))
    for s in range(players):
        if (hidden >> s) & 1 and parts[p, s] >= 0:
            fixed[s] = parts[p, s]
            taken |= parts[p, s]
    return taken


@njit(cache=True)
def _model_pick(w, rules, kind, tau, eps, n, bc, bt, bm, iv, fv, idx, xs, bt2, bm2, sc, rng):
    """A modelled seat's play among the ``n`` legal Cirulla plays in the buffers (its
    index), by its channel (``reply=``): with probability ``eps`` (always for
    ``KIND_RANDOM``) uniform, else a softmax at temperature ``tau`` (points) of greedy's
    or the expert's play values (:func:`.step.play_values_cirulla`), or with ``tau = 0``
    uniform among the best: the play model the belief weighs the seat's plays by
    (:func:`.belief.decision_loglik_cirulla`)."""
    if n <= 1:
        return 0
    at_random = kind == KIND_RANDOM
    if not at_random and eps > 0.0:
        at_random = uniform(rng) < eps
    if at_random:
        return rand_below(rng, n)
    expert = kind == KIND_EXPERT
    play_values_cirulla(w, rules, POLICY_EXPERT if expert else POLICY_GREEDY, EXPERT_DECLARES,
                        bc, bt, bm, n, iv, xs, bt2, bm2, sc)  # fmt: skip
    for i in range(n):
        fv[i] = iv[i] / EXPERT_FIX if expert else float(iv[i])
        idx[i] = i
    i, _, z = model_choice(fv, idx, idx, n, tau, rng[0])
    rng[0] = z
    return i


@njit(cache=True, inline="always")
def _tree_step(tree, node, count, side, n, bc, bt, bm, slot, cn, path, plen, c, scale, rng,
               prior, pvis):  # fmt: skip
    """A step down the tree for the seat to play among the world's ``n`` legal plays
    (``bc``/``bt``/``bm``): the availability of each child among them counted; then one
    untried play expanded, chosen at random (unless the pool is full), which leaves the
    tree, or with every legal play tried the child of best UCB1 value followed
    (:func:`.ismcts.ucb1_child`; with ``pvis > 0``, the root's, :func:`_prior_child` over
    the ``prior`` rows); return ``(i, node, count, plen, in_tree)``, ``i`` the play's
    index in the buffers."""
    for i in range(n):
        slot[i] = -1
    compat = 0
    ch = tree[node, T_CHILD]
    while ch >= 0:
        code = tree[ch, T_CARD]
        take = tree[ch, T_TAKE]
        for i in range(n):
            if slot[i] < 0 and bt[i] == take and play_code(bc[i], bm[i]) == code:
                slot[i] = ch
                tree[ch, T_AVAIL] += 1
                cn[compat] = ch
                compat += 1
                break
        ch = tree[ch, T_NEXT]
    if compat < n:  # expand one untried play, chosen at random
        r = rand_below(rng, n - compat)
        pick = 0
        for i in range(n):
            if slot[i] < 0:
                if r == 0:
                    pick = i
                    break
                r -= 1
        if count < tree.shape[0]:
            node = add_child(tree, node, count, play_code(bc[pick], bm[pick]), bt[pick])
            count += 1
            path[plen] = node
            path[plen + 1] = side
            plen += 2
        return pick, node, count, plen, False
    if pvis > 0.0:
        node = _prior_child(tree, cn, compat, c, scale, prior, pvis)
    else:
        node = ucb1_child(tree, cn, compat, c, scale)
    pick = 0
    for i in range(n):
        if slot[i] == node:
            pick = i
            break
    path[plen] = node
    path[plen + 1] = side
    plen += 2
    return pick, node, count, plen, True


@njit(cache=True, inline="always")
def _prior_child(tree, cn, compat, c, scale, prior, pvis):
    """:func:`.ismcts.ucb1_child` with a root prior (:func:`.ismcts.ucb1_prior`, the
    rewards scaled by ``REWARD_SCALE_CIRULLA``); return the child of best value, the first
    of equal values."""
    best = -INF
    node = cn[0]
    for q in range(compat):
        ch = cn[q]
        val = ucb1_prior(tree, ch, c, scale, prior, pvis, REWARD_SCALE_CIRULLA)
        if val > best:
            best = val
            node = ch
    return node


@njit(cache=True)
def anchored_plays(state, rules, model, ls, bc, bt, bm, n, out):
    """The model's values of the ``n`` Cirulla plays in the buffers for the seat to play in
    ``state``, anchored, into ``out[:n]`` (points); return the best (0 without a play).
    The model learns only the differences between a decision's plays (its loss is
    centred per decision), so its level drifts by several points between positions; its
    values are put on the level of the expert's play values
    (:func:`.policy_cirulla.expert_play_value_cirulla`, the expected change in points):
    the expert's mean over the plays plus the model's difference from its own mean."""
    if n == 0:
        return 0.0
    fm = 0.0
    xm = 0.0
    for i in range(n):
        out[i] = learned_value_cirulla(state, rules, model, bc[i], bt[i], bm[i], ls)
        fm += out[i]
        xm += ls[1][D_EXPERT]
    shift = (xm - fm) / n
    best = -INF
    for i in range(n):
        out[i] += shift
        best = max(best, out[i])
    return best


@njit(cache=True)
def root_prior_cirulla(root, rules, model, out):
    """The root prior of :func:`ismcts_run_cirulla` at ``root`` (a world of the seat to
    play's information set; the model reads what the seat knows): each legal play's row in
    ``out`` (``P_*`` columns, at least ``MAX_PLAYS`` rows; ``P_CARD`` holds its
    :func:`play_code`), its value: :func:`.values_cirulla.expert_leaf_cirulla` of the seat's
    side plus the model's anchored value of the play (:func:`anchored_plays`, points);
    return the number of rows."""
    ls = learned_scratch_cirulla(model)
    bc = np.empty(MAX_PLAYS, dtype=np.int64)
    bt = np.empty(MAX_PLAYS, dtype=np.int64)
    bm = np.empty(MAX_PLAYS, dtype=np.int64)
    vals = np.empty(MAX_PLAYS)
    n = legal_plays_cirulla(root, rules, bc, bt, bm, np.empty(SCRATCH, dtype=np.int64))
    anchored_plays(root, rules, model, ls, bc, bt, bm, n, vals)
    base = expert_leaf_cirulla(root, rules, side_of(rules, root[S_TURN]))
    for i in range(n):
        out[i, P_CARD] = play_code(bc[i], bm[i])
        out[i, P_TAKE] = bt[i]
        out[i, P_VALUE] = base + vals[i]
    return n


@njit(cache=True, inline="always")
def _anchored_values(w, rules, model, ls, unit, margins, bc, bt, bm, sc, fv):
    """The learned leaf (``leaf = LEAF_LEARNED``) of the position ``w`` where a rollout
    stopped, into ``margins`` (units of ``1 / unit`` points): the side to play there gets
    its :func:`.values_cirulla.expert_leaf_cirulla` plus the model's anchored value of its best play
    (:func:`anchored_plays`; none: 0), every other side its own anchor less that value
    (as :func:`.ismcts._learned_leaf` on Scopa); ``fv``: ``MAX_PLAYS`` floats of scratch."""
    n = legal_plays_cirulla(w, rules, bc, bt, bm, sc)
    gain = anchored_plays(w, rules, model, ls, bc, bt, bm, n, fv)
    side = side_of(rules, w[S_TURN])
    for s in range(rules[R_SIDES]):
        e = expert_leaf_cirulla(w, rules, s)
        margins[s] = np.int64(round((e + gain if s == side else e - gain) * unit))


@njit(cache=True, inline="always")
def _rewards(w, rules, cut, unit, score, work, margins, eq, leaf):
    """An iteration's reward of each side into ``margins`` (units of ``1 / unit``
    points): its Cirulla points minus the best other side's, from the finished hand's
    score or at a horizon (``cut``) from :func:`.values.estimate` plus the declared
    points; with the match objective (``eq`` not empty) side 0's match value
    (:func:`.solver_cirulla.match_static_cirulla`) and its negation for side 1; at a
    horizon with ``leaf`` ``LEAF_EXPERT``, each side's
    :func:`.values_cirulla.expert_leaf_cirulla` margin."""
    if eq.shape[0] > 0:
        v = match_static_cirulla(w, rules, score, work[4:], not cut, eq)
        margins[0] = np.int64(round(v * unit))
        margins[1] = -margins[0]
        return
    ns = rules[R_SIDES]
    if cut and leaf == LEAF_EXPERT:
        for s in range(ns):
            margins[s] = np.int64(round(expert_leaf_cirulla(w, rules, s) * unit))
        return
    totals = work[:4]
    if cut:
        est = work[4:]
        estimate(w, rules, 0, True, est)
        for s in range(ns):
            totals[s] = est[12 + s] + w[S_DECLARED + s]
    else:
        score_state_cirulla(w, rules, score)
        for s in range(ns):
            totals[s] = float(score[s, I_TOTAL])
    for s in range(ns):
        best = -INF
        for t in range(ns):
            if t != s and totals[t] > best:
                best = totals[t]
        margins[s] = np.int64(round((totals[s] - best) * unit))


@njit(cache=True, nogil=True)
def ismcts_run_cirulla(root, rules, tree, count, iterations, c, policy, horizon, rng, hidden,
                       quiet, lp, leaf=LEAF_ESTIMATE, eq=None, parts=None, cum=None,
                       reply=None):  # fmt: skip
    """Run ``iterations`` of single-observer ISMCTS on a Cirulla position from ``root``
    (the seat to play's information set: a world of it whose unseen cards, the stock and
    the hands of the ``hidden`` seats, a bit a seat, are dealt again every iteration) on
    the node pool ``tree`` (:mod:`.ismcts`'s ``T_*`` columns) holding ``count`` nodes;
    return the new count.

    Each iteration: a world (see the module; ``quiet[s] >= 0``: the cards seat ``s``
    played this deal without declaring under ``declare=auto``, -1: no constraint);
    selection from the root among the children legal in this world by UCB1 with
    availability counts, until a node has an untried legal play; its expansion (one
    chosen at random, unless the pool is full); a rollout by the Cirulla step policy
    ``policy`` (``POLICY_*``) for every seat; each side's margin backed up, each node
    getting its side's. With ``horizon < FULL_DEPTH`` a rollout stops ``horizon`` plays
    past the tree and the position is valued as the Cirulla solver's depth limit
    (``leaf``: ``LEAF_ESTIMATE``, or ``LEAF_EXPERT`` the expert's evaluation of the piles,
    :func:`.values_cirulla.expert_leaf_cirulla`); the
    tree's sums are then in units of ``1 / EST_UNIT`` points (else whole points). With
    ``eq`` (two sides; None or empty: margins) the rewards are the match objective's
    (see the module), in units of ``1 / EST_UNIT`` points with or without a horizon.
    ``rng`` (:func:`.streams.new_rng`) carries the random stream across calls, so a run
    split into chunks gives the same tree.

    ``lp = (model, prior, prior_visits)``: the learned policy's Cirulla model (the
    empty vector: none; :data:`NO_LEARNED` for none of it) as the rollouts' policy with
    ``policy = POLICY_LEARNED`` (the model's best play, ties at random, without the
    learned policy's exact endgame), as the horizon's value with ``leaf = LEAF_LEARNED``
    (:func:`_anchored_values`; not with ``eq``) and as a root prior, ``prior`` rows
    (:func:`root_prior_cirulla`) with ``prior_visits > 0`` virtual visits each
    (:func:`_prior_child`).

    With belief particles ``parts``/``cum`` (:mod:`.belief`, its Cirulla evidence; None:
    the uniform draw above) each iteration's world takes the hidden hands from a
    particle drawn by its weight where the particle holds them, the cards left dealt as
    above. With ``reply = (kinds, taus, eps, post, rollouts)`` the seats of the other
    sides play by a channel drawn per iteration from ``post``, in the tree (their play's
    child followed, or expanded) and with ``rollouts`` in the rollout, as
    :func:`.ismcts.ismcts_run` does on Scopa (:func:`_model_pick`; ``KIND_SEARCH``: the
    seat plays like this search, by UCB1 and ``policy``)."""
    players = rules[R_PLAYERS]
    bparts = np.empty((0, 4), dtype=np.int64) if parts is None else parts
    bcum = np.empty(0) if cum is None else cum
    rkinds, rtaus, reps, rpost, rroll = _NO_REPLY if reply is None else reply
    nrc = rkinds.shape[0]
    chans = np.zeros(4, dtype=np.int64)
    fixed = np.full(4, -1, dtype=np.int64)
    root_side = side_of(rules, root[S_TURN])
    fv2 = np.empty(MAX_PLAYS)
    idx = np.empty(MAX_PLAYS, dtype=np.int64)
    wild = rules[R_MATTA] != MATTA_NONE
    eqt = np.empty(0) if eq is None else eq
    unit = 1 if horizon >= FULL_DEPTH and eqt.shape[0] == 0 else EST_UNIT
    scale = REWARD_SCALE_CIRULLA / unit
    # the unseen cards (card order) and the hidden hands' sizes
    base = np.empty(40, dtype=np.int64)
    pool = np.empty(40, dtype=np.int64)
    sizes = np.zeros(4, dtype=np.int64)
    unseen = np.int64(0)
    for i in range(root[S_STOCK], root[S_DECK_SIZE]):
        unseen |= np.int64(1) << root[S_DECK + i]
    for s in range(players):
        if (hidden >> s) & 1:
            unseen |= root[S_HANDS + s]
            sizes[s] = popcount(root[S_HANDS + s])
    npool = 0
    m = unseen
    while m:
        base[npool] = ctz(m)
        m &= m - 1
        npool += 1
    deck = np.int64(0)
    for i in range(root[S_DECK_SIZE]):
        deck |= np.int64(1) << root[S_DECK + i]
    w = np.empty(N_STATE, dtype=np.int64)
    bc = np.empty(MAX_PLAYS, dtype=np.int64)
    bt = np.empty(MAX_PLAYS, dtype=np.int64)
    bm = np.empty(MAX_PLAYS, dtype=np.int64)
    slot = np.empty(MAX_PLAYS, dtype=np.int64)
    cn = np.empty(MAX_PLAYS, dtype=np.int64)
    vals = np.empty(MAX_PLAYS, dtype=np.int64)
    xs = np.empty(EXPERT_SCRATCH)
    bt2 = np.empty(MAX_PLAYS, dtype=np.int64)
    bm2 = np.empty(MAX_PLAYS, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    path = np.empty(2 * MAX_PLY, dtype=np.int64)  # node, side that made its play
    score = np.zeros((4, N_ITEMS_CIRULLA), dtype=np.int64)
    work = np.zeros(24, dtype=np.float64)
    margins = np.zeros(4, dtype=np.int64)
    lmodel, prior, pvis = lp  # the learned model, the root prior, its visits
    ls = learned_scratch_cirulla(lmodel)
    fv = np.empty(MAX_PLAYS)
    for _ in range(iterations):
        taken = _particle(bparts, bcum, hidden, players, rng, fixed)
        _draw_world(w, root, players, base, pool, npool, hidden, sizes, quiet, wild, deck, rng,
                    fixed, taken)  # fmt: skip
        if nrc:  # each seat of another side: its channel for this iteration
            rng[0] = draw_channels(chans, rpost, nrc, players, rules[R_TEAMS] != 0, root_side,
                                   rng[0])  # fmt: skip
        node = 0
        plen = 0
        in_tree = True
        rolled = 0
        cut = False
        while not w[S_DONE]:
            if not in_tree and rolled >= horizon:
                cut = True
                break
            n = legal_plays_cirulla(w, rules, bc, bt, bm, sc)
            if n == 0:  # only in hand-made positions: nothing to play
                break
            side = side_of(rules, w[S_TURN])
            kind = rkinds[chans[w[S_TURN]]] if nrc else KIND_SEARCH
            if side != root_side and kind != KIND_SEARCH and (in_tree or rroll):
                mc = chans[w[S_TURN]]
                i = _model_pick(w, rules, kind, rtaus[mc], reps[mc], n, bc, bt, bm, vals, fv2,
                                idx, xs, bt2, bm2, sc, rng)  # fmt: skip
                if in_tree:
                    node, count, plen, in_tree = follow(tree, node, count,
                                                        play_code(bc[i], bm[i]), bt[i], path,
                                                        plen, side)  # fmt: skip
                else:
                    rolled += 1
            elif in_tree:
                i, node, count, plen, in_tree = _tree_step(
                    tree, node, count, side, n, bc, bt, bm, slot, cn, path, plen, c, scale, rng,
                    prior, pvis if node == 0 else 0.0,
                )  # fmt: skip
            elif policy == POLICY_LEARNED:
                rolled += 1
                i = learned_choice_cirulla(w, rules, lmodel, rng, bc, bt, bm, n, ls)
            else:
                rolled += 1
                i = choose_cirulla(w, rules, policy, rng, bc, bt, bm, n, EXPERT_DECLARES, vals,
                                   xs, bt2, bm2, sc)  # fmt: skip
            apply_play_cirulla(w, rules, bc[i], bt[i], bm[i])
        if cut and leaf == LEAF_LEARNED and eqt.shape[0] == 0:  # the model's leaf
            _anchored_values(w, rules, lmodel, ls, unit, margins, bc, bt, bm, sc, fv)
        else:
            _rewards(w, rules, cut, unit, score, work, margins, eqt, leaf)
        back_up(tree, path, plen, margins)
    return count
