"""The learned policy under Cirulla's rules (RULES.md §10): the features of what a seat
knows after a Cirulla play, the model over them, its choice among the legal plays, and
the harness kernels that play, sample and train it, beside :mod:`.learned` (whose
Scopa features, model layout and kernels are unchanged).

A Cirulla play is ``(card, take, meta)`` (:data:`.step.META_VALUE`: the matta's named
value and the declaration's points). Its features are Scopa's (:func:`.learned.play_features`'
blocks, at the same offsets and with the same meaning, the kind of play read with the
named value) followed by Cirulla's own:

* :data:`F_VALUE` (11): the value named for the matta (0: the play names none);
* :data:`F_DECLARE` (3): the play's declaration (none, 3 points, 10 points);
* :data:`F_SHOWN` (40): the cards of the other seats' hands shown by their declarations;
* :data:`F_NEXT_SHOWN` (2): whether the next seat's hand is shown;
* :data:`F_GRANDE` (16): the grande's cards (JD, QD, KD) in this side's pile after the
  play (0-3) by those in the other sides' piles (0-3);
* :data:`F_PICCOLA` (11) and :data:`F_PICCOLA_NEXT` (11): the run of denari from the ace
  in this side's pile after the play and in the next seat's side's;
* :data:`F_OPENING` (3): the scope of the opening count (0, 1 or 2);

and, as dense inputs, Scopa's four with the expert's Cirulla values
(:func:`.policy_cirulla.expert_play_value_cirulla`, declaring as the ``expert`` policy
does, and :func:`.policy_cirulla.expert_eval_cirulla`) and :data:`D_DECLARED`, the
declared points' lead after the play (tenths). The model vector has :mod:`.learned`'s
form (``M_*`` header, then the weights) with :data:`VERSION` and these sizes; a Scopa
model is refused here and a Cirulla model there.

:func:`choose_learned_cirulla` is the kernel policy ``learned`` under Cirulla's rules (the
exact solver's best play, :func:`.solver_cirulla.solve_root_cirulla`, where the seat's
information set is one world); the fused loop and the step paths call it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import ctz, popcount
from .capture import value_sum
from .determinize import _seen_first
from .layout import (
    ACES,
    DENARI,
    GRANDE,
    I_TOTAL,
    MATTA_PLAY,
    MAX_PLAYS,
    N_ITEMS_CIRULLA,
    N_STATE,
    POLICY_LEARNED,
    R_ACE_SWEEP,
    R_ACE_SWEEP_SCOPA,
    R_DECK,
    R_LAST_PLAY_SCOPA,
    R_MATCH_PRIORITY,
    R_MATTA,
    R_PICCOLA_MAX,
    R_PLAYERS,
    R_SIDES,
    R_SUM_FEWEST,
    R_TEAMS,
    R_TOTAL_PLAYS,
    S_DECK_SIZE,
    S_DECLARED,
    S_DONE,
    S_HANDS,
    S_OPENING_SCOPE,
    S_PLAYS,
    S_SCOPE,
    S_SHOWN,
    S_STOCK,
    S_TABLE,
    S_TURN,
    SCRATCH,
    VALUE,
)
from .learned import (
    D_EVAL,
    D_EXPERT,
    D_SCOPE,
    D_TSUM,
    EXACT,
    EXACT_TT,
    F_CARD,
    F_DEALER,
    F_HAND,
    F_KIND,
    F_KN,
    F_LAST,
    F_MINE,
    F_NEXT,
    F_OTHERS,
    F_PLAYS,
    F_SCOPE,
    F_TABLE,
    KIND_LAY,
    KIND_MANY,
    KIND_ONE,
    KIND_SCOPA,
    LEARNED,
    M_DENSE,
    M_HEAD,
    M_HIDDEN,
    M_SPARSE,
    M_VERSION,
    MAX_ACTIVE,
    best_index,
    exact_table,
    model_forward,
    model_offsets,
)
from .policy import EXPERT_SCRATCH, REL_ME, expert_flags
from .policy_cirulla import EXPERT_DECLARES, expert_eval_cirulla, expert_play_value_cirulla
from .solver import FULL_DEPTH, N_INFO, V_SALT, V_TT_MASK
from .solver_cirulla import solve_root_cirulla
from .step import (
    META_DECLARATION,
    META_VALUE,
    apply_play_cirulla,
    choose_cirulla,
    cirulla_view,
    legal_plays_cirulla,
    score_state_cirulla,
    start_hand_cirulla,
)
from .streams import RNG_WORDS, derive_seed, rand_below, reseed, shuffle_deal_cirulla

__all__ = [
    "D_DECLARED",
    "F_DECLARE",
    "F_GRANDE",
    "F_NEXT_SHOWN",
    "F_OPENING",
    "F_PICCOLA",
    "F_PICCOLA_NEXT",
    "F_SHOWN",
    "F_VALUE",
    "N_DENSE",
    "N_SPARSE",
    "VERSION",
    "choose_learned_cirulla",
    "determinize_cirulla",
    "harness_choice_cirulla",
    "learned_choice_cirulla",
    "learned_scratch_cirulla",
    "learned_value_cirulla",
    "model_size_cirulla",
    "new_model_cirulla",
    "one_world_cirulla",
    "play_features_cirulla",
    "play_hands_cirulla",
    "play_out_model_cirulla",
    "rollout_samples_cirulla",
    "state_features_cirulla",
]

# --------------------------------------------------------------------------- features
# Sparse: Scopa's blocks (0 .. 309, :mod:`.learned`), then Cirulla's.
F_VALUE = 310  # 11: the matta's named value (0: none named)
F_DECLARE = 321  # 3: the play's declaration: none, 3 points, 10 points
F_SHOWN = 324  # 40: the cards of the other seats' shown hands
F_NEXT_SHOWN = 364  # 2: whether the next seat's hand is shown
F_GRANDE = 366  # 16: 4 * (grande cards of this side) + (grande cards of the others)
F_PICCOLA = 382  # 11: this side's run of denari from the ace (0-10)
F_PICCOLA_NEXT = 393  # 11: the next seat's side's run
F_OPENING = 404  # 3: the opening count's scope (0, 1, 2)
N_SPARSE = 407

# Dense: Scopa's four (D_EXPERT, D_EVAL, D_SCOPE, D_TSUM), then
D_DECLARED = 4  # the declared points' lead (this side's less the next side's), / 10
N_DENSE = 5

#: The Cirulla model vector's layout version (:mod:`.learned`'s is 1).
VERSION = 2


def model_size_cirulla(hidden: int) -> int:
    """The length of a Cirulla model vector of hidden width ``hidden``."""
    return M_HEAD + N_SPARSE + N_DENSE + 1 + hidden * (N_SPARSE + N_DENSE + 2)


def new_model_cirulla(hidden: int, seed: int, scale: float = 0.05) -> np.ndarray:
    """A Cirulla model vector of hidden width ``hidden`` that plays as the expert until
    trained (as :func:`.learned.new_model`: ``skip[D_EXPERT] = 1``, the first layer drawn
    from a normal of sd ``scale`` seeded by ``seed``, ``b1`` at 0.1, ``w2`` at 0)."""
    m = np.zeros(model_size_cirulla(hidden))
    m[M_VERSION] = VERSION
    m[M_SPARSE] = N_SPARSE
    m[M_DENSE] = N_DENSE
    m[M_HIDDEN] = hidden
    o = model_offsets(m)
    m[o[1] + D_EXPERT] = 1.0
    if hidden:
        g = np.random.default_rng(seed)
        m[o[3] : o[5]] = g.normal(0.0, scale, o[5] - o[3])
        m[o[5] : o[6]] = 0.1
    return m


@njit(cache=True, inline="always")
def _bits(mask, at, idx, k):
    """Append the set bits of ``mask``, offset by ``at``, to ``idx`` from ``k``; return k."""
    m = mask
    while m:
        idx[k] = at + ctz(m)
        m &= m - 1
        k += 1
    return k


@njit(cache=True, inline="always")
def _run(pile):
    """The run of denari from the ace in ``pile`` (0-10)."""
    return ctz(~(pile & DENARI))


@njit(cache=True)
def play_features_cirulla(state, rules, card, take, meta, idx, dense, xs, bt, bm, sc):
    """The features of the Cirulla play ``(card, take, meta)`` (legal) for the seat to
    play in ``state``, read from what it knows (:func:`.step.cirulla_view`: the other
    hands by their size, but those shown by a declaration): the active sparse features to
    ``idx`` (returns their number), the dense ones to ``dense``. Scratch: ``xs``
    (``EXPERT_SCRATCH``), ``bt``/``bm`` (``MAX_PLAYS``), ``sc`` (``SCRATCH``)."""
    turn = state[S_TURN]
    players = rules[R_PLAYERS]
    teams = rules[R_TEAMS] != 0
    table = state[S_TABLE]
    pm, po, others, unseen, kn, lc_rel, d_rel = cirulla_view(state, rules)
    hand = state[S_HANDS + turn]
    plays = state[S_PLAYS]
    total = rules[R_TOTAL_PLAYS]
    xflags = expert_flags(rules)
    most = rules[R_PICCOLA_MAX]
    named = rules[R_MATTA] == MATTA_PLAY
    value = meta & META_VALUE
    points = (meta >> META_DECLARATION) & 15
    cval = value if value else VALUE[card]
    xv = expert_play_value_cirulla(
        card, take, cval, points, table, pm, po, others, unseen, kn, plays, total, lc_rel,
        d_rel, rules[R_DECK], xflags, most, rules[R_MATCH_PRIORITY] != 0,
        rules[R_SUM_FEWEST] != 0, named, EXPERT_DECLARES, xs, bt, bm, sc,
    )  # fmt: skip
    nxt = turn + 1 if turn + 1 < players else 0
    side = turn & 1 if teams else turn
    opp = nxt & 1 if teams else nxt
    lead = state[S_SCOPE + side] - state[S_SCOPE + opp]
    declared = state[S_DECLARED + side] + points - state[S_DECLARED + opp]
    bit = np.int64(1) << card
    kind = KIND_LAY
    if take:
        table2 = table & ~take
        pm2 = pm | take | bit
        lc2 = REL_ME
        kind = KIND_ONE if (take & (take - 1)) == 0 else KIND_MANY
        last = plays + 1 == total
        if table2 == 0 and (rules[R_LAST_PLAY_SCOPA] or not last):
            sweep = rules[R_ACE_SWEEP] != 0 and cval == 1 and (table & ACES) == 0
            if rules[R_ACE_SWEEP_SCOPA] or not sweep:
                kind = KIND_SCOPA
                lead += 1
    else:
        table2 = table | bit
        pm2 = pm
        lc2 = lc_rel
    shown = np.int64(0)
    flags = state[S_SHOWN]
    for s in range(players):
        if s != turn and (flags >> s) & 1:
            shown |= state[S_HANDS + s]
    k = 0
    k = _bits(hand & ~bit, F_HAND, idx, k)
    k = _bits(table2, F_TABLE, idx, k)
    k = _bits(pm2, F_MINE, idx, k)
    k = _bits(po, F_NEXT, idx, k)
    k = _bits(others, F_OTHERS, idx, k)
    k = _bits(shown, F_SHOWN, idx, k)
    idx[k] = F_CARD + card
    idx[k + 1] = F_PLAYS + min(plays + 1, 39)
    idx[k + 2] = F_KN + min(kn, 10)
    idx[k + 3] = F_LAST + lc2
    idx[k + 4] = F_DEALER + d_rel
    idx[k + 5] = F_SCOPE + 3 + max(-3, min(3, lead))
    idx[k + 6] = F_KIND + kind
    idx[k + 7] = F_VALUE + value
    idx[k + 8] = F_DECLARE + (0 if points == 0 else (1 if points < 10 else 2))
    idx[k + 9] = F_NEXT_SHOWN + ((flags >> nxt) & 1)
    idx[k + 10] = F_GRANDE + 4 * popcount(pm2 & GRANDE) + popcount((po | others) & GRANDE)
    idx[k + 11] = F_PICCOLA + _run(pm2)
    idx[k + 12] = F_PICCOLA_NEXT + _run(po)
    idx[k + 13] = F_OPENING + min(state[S_OPENING_SCOPE], 2)
    k += 14
    dense[D_EXPERT] = xv
    dense[D_EVAL] = expert_eval_cirulla(pm2, po, others, rules[R_DECK], xflags, most)
    dense[D_SCOPE] = lead
    dense[D_TSUM] = value_sum(table2) / 10.0
    dense[D_DECLARED] = declared / 10.0
    return k


@njit(cache=True)
def learned_scratch_cirulla(model):
    """The scratch of :func:`choose_learned_cirulla` for ``model`` (the empty vector where
    no seat plays ``learned``): ``(idx, dense, acc, xs, bt, bm, sc, vals, tt)``, made
    once per loop."""
    h = np.int64(1)
    if model.shape[0] > M_HIDDEN:
        h = max(h, np.int64(model[M_HIDDEN]))
    return (
        np.empty(MAX_ACTIVE, dtype=np.int64),
        np.empty(N_DENSE),
        np.empty(h),
        np.empty(EXPERT_SCRATCH),
        np.empty(MAX_PLAYS, dtype=np.int64),
        np.empty(MAX_PLAYS, dtype=np.int64),
        np.empty(SCRATCH, dtype=np.int64),
        np.empty(MAX_PLAYS, dtype=np.int64),
        exact_table(EXACT_TT if model.shape[0] else 1),
    )


@njit(cache=True)
def learned_value_cirulla(state, rules, model, card, take, meta, ls):
    """The model's value of the Cirulla play ``(card, take, meta)`` for the seat to play
    in ``state`` (points; larger is better); ``ls``: :func:`learned_scratch_cirulla`."""
    idx, dense, acc, xs, bt, bm, sc, _, _ = ls
    k = play_features_cirulla(state, rules, card, take, meta, idx, dense, xs, bt, bm, sc)
    return model_forward(model, idx, k, dense, acc)


@njit(cache=True)
def learned_choice_cirulla(state, rules, model, rng, bc, bt, bm, n, ls):
    """Index of the play the model values most among the ``n`` legal Cirulla plays in the
    buffers, ties broken uniformly by reservoir draws from ``rng`` (one play: a draw): the
    model alone, without the exact endgame (ISMCTS's rollouts, the learned policy's play
    where its information set is not one world); ``ls``: :func:`learned_scratch_cirulla`."""
    if n <= 1:
        return rand_below(rng, n)
    best = learned_value_cirulla(state, rules, model, bc[0], bt[0], bm[0], ls)
    count = 1
    pick = 0
    for i in range(1, n):
        x = learned_value_cirulla(state, rules, model, bc[i], bt[i], bm[i], ls)
        if x > best:
            best = x
            count = 1
            pick = i
        elif x == best:
            count += 1
            if rand_below(rng, count) == 0:
                pick = i
    return pick


@njit(cache=True)
def one_world_cirulla(state, rules):
    """Whether the information set of the seat to play in the Cirulla ``state`` is one
    world: the stock is empty and at most one other seat holds cards it has not shown."""
    if state[S_STOCK] < state[S_DECK_SIZE]:
        return False
    holding = 0
    shown = state[S_SHOWN]
    for s in range(rules[R_PLAYERS]):
        if s != state[S_TURN] and state[S_HANDS + s] and not (shown >> s) & 1:
            holding += 1
    return holding <= 1


@njit(cache=True)
def _exact_choice(state, rules, rng, bc, bt, bm, n, tt):
    """The index among the ``n`` plays in the buffers of the exact solver's best play at
    the Cirulla ``state`` (one world), ties by reservoir draws from ``rng``."""
    tk, tv, tm = tt
    tk[:] = 0
    info = np.zeros(N_INFO, dtype=np.int64)
    info[V_TT_MASK] = tk.shape[0] - 1
    info[V_SALT] = 1
    vals = np.empty(n)
    sc = np.empty(n, dtype=np.int64)
    st = np.empty(n, dtype=np.int64)
    sm = np.empty(n, dtype=np.int64)
    m = solve_root_cirulla(state, rules, FULL_DEPTH, tk, tv, tm, info, sc, st, sm, vals)
    pick = best_index(vals, m, rng)
    for i in range(n):
        if bc[i] == sc[pick] and bt[i] == st[pick] and bm[i] == sm[pick]:
            return i
    return 0


@njit(cache=True)
def _choose(state, rules, kind, model, rng, bc, bt, bm, n, ls):
    """The play of a seat of ``kind`` (:data:`.learned.LEARNED` or a ``POLICY_*`` code,
    plus :data:`.learned.EXACT` for the exact endgame) among the ``n`` Cirulla plays."""
    if kind >= EXACT:
        kind -= EXACT
        if n > 1 and one_world_cirulla(state, rules):
            return _exact_choice(state, rules, rng, bc, bt, bm, n, ls[8])
    if kind == LEARNED:
        return learned_choice_cirulla(state, rules, model, rng, bc, bt, bm, n, ls)
    _, _, _, xs, bt2, bm2, sc, vals, _ = ls
    return choose_cirulla(state, rules, kind, rng, bc, bt, bm, n, EXPERT_DECLARES, vals, xs,
                          bt2, bm2, sc)  # fmt: skip


@njit(cache=True)
def choose_learned_cirulla(state, rules, policy, model, rng, bc, bt, bm, n, ls):
    """Index of the play a seat of kernel policy ``policy`` makes among the ``n`` legal
    Cirulla plays in the buffers: with :data:`.layout.POLICY_LEARNED`, the exact
    solver's best play where the seat's information set is one world
    (:func:`one_world_cirulla`), else the best play by ``model``, ties by reservoir draws
    from ``rng``; any other code, :func:`.step.choose_cirulla` with the expert's
    declarations (the same draws). ``ls``: :func:`learned_scratch_cirulla`."""
    if policy == POLICY_LEARNED:
        return _choose(state, rules, LEARNED + EXACT, model, rng, bc, bt, bm, n, ls)
    return _choose(state, rules, policy, model, rng, bc, bt, bm, n, ls)


@njit(cache=True)
def harness_choice_cirulla(state, rules, kind, model, rng, bc, bt, bm, n):
    """The index of the play a seat of ``kind`` (as :func:`play_hands_cirulla` takes it)
    makes among the ``n`` legal Cirulla plays in the buffers, scratch made here."""
    return _choose(state, rules, kind, model, rng, bc, bt, bm, n, learned_scratch_cirulla(model))


@njit(cache=True)
def state_features_cirulla(state, rules, cards, takes, metas, n, out_idx, out_k, out_dense):
    """The features (:func:`play_features_cirulla`) of the ``n`` Cirulla plays for the
    seat to play in ``state``: row ``i`` of ``out_idx`` (padded with -1), ``out_k`` and
    ``out_dense``."""
    ls = learned_scratch_cirulla(np.empty(0))
    idx, dense, _, xs, bt, bm, sc, _, _ = ls
    for i in range(n):
        k = play_features_cirulla(state, rules, cards[i], takes[i], metas[i], idx, dense, xs,
                                  bt, bm, sc)  # fmt: skip
        for j in range(MAX_ACTIVE):
            out_idx[i, j] = idx[j] if j < k else -1
        out_k[i] = k
        for d in range(N_DENSE):
            out_dense[i, d] = dense[d]


@njit(cache=True)
def play_out_model_cirulla(state, rules, policies, model, rng, buf_card, buf_take, buf_meta,
                           scratch, log_card, log_take, log_meta):  # fmt: skip
    """:func:`.step.play_out_cirulla` with ``learned`` seats (:func:`choose_learned_cirulla`
    playing ``model``): the Cirulla hand in ``state`` played to its end, one policy code
    per seat, each play logged at its index; returns the number of plays made. The other
    policies draw as in :func:`.step.play_out_cirulla`."""
    ls = learned_scratch_cirulla(model)
    made = 0
    while not state[S_DONE]:
        n = legal_plays_cirulla(state, rules, buf_card, buf_take, buf_meta, scratch)
        i = choose_learned_cirulla(state, rules, policies[state[S_TURN]], model, rng, buf_card,
                                   buf_take, buf_meta, n, ls)  # fmt: skip
        k = state[S_PLAYS]
        log_card[k] = buf_card[i]
        log_take[k] = buf_take[i]
        log_meta[k] = buf_meta[i]
        apply_play_cirulla(state, rules, buf_card[i], buf_take[i], buf_meta[i])
        made += 1
    return made


# --------------------------------------------------------------------------- harness
@njit(cache=True)
def determinize_cirulla(state, rules, seat, rng, out):
    """A world consistent with what ``seat`` knows in the Cirulla ``state``, into
    ``out``: the cards it cannot see (the other hands but those shown by a declaration,
    and the stock) dealt uniformly at random to those hands (keeping their sizes) and to
    the stock (keeping its size)."""
    for i in range(N_STATE):
        out[i] = state[i]
    n = rules[R_PLAYERS]
    size = state[S_DECK_SIZE]
    shown = state[S_SHOWN]
    unseen = np.int64(0)
    for s in range(n):
        if s != seat and not (shown >> s) & 1:
            unseen |= state[S_HANDS + s]
    unseen, pos = _seen_first(state, size, unseen, out)
    start = pos
    m = unseen
    while m:
        out[pos] = ctz(m)
        m &= m - 1
        pos += 1
    for i in range(pos - start - 1, 0, -1):
        j = rand_below(rng, i + 1)
        t = out[start + i]
        out[start + i] = out[start + j]
        out[start + j] = t
    for s in range(n):
        if s != seat and not (shown >> s) & 1:
            h = np.int64(0)
            for _ in range(popcount(state[S_HANDS + s])):
                h |= np.int64(1) << out[start]
                start += 1
            out[S_HANDS + s] = h


@njit(cache=True)
def _margin(state, rules, seat, items):
    """The finished Cirulla hand's margin for ``seat``'s side: its points less the best
    other side's."""
    score_state_cirulla(state, rules, items)
    side = seat & 1 if rules[R_TEAMS] else seat
    best = -(1 << 30)
    for s in range(rules[R_SIDES]):
        if s != side and items[s, I_TOTAL] > best:
            best = items[s, I_TOTAL]
    return items[side, I_TOTAL] - best


@njit(cache=True)
def _deal(state, rules, seed, hand, deck, rng, voids):
    """Deal hand ``hand`` of a harness run seeded ``seed`` under Cirulla's rules (streams
    ``(seed, 9, hand, 0)``, the void deals included; dealer ``hand % players``) and start
    its play stream ``(seed, 9, hand, 1)``."""
    reseed(rng, derive_seed(seed, 9, hand, 0))
    v = shuffle_deal_cirulla(rules, rng, deck, voids)
    start_hand_cirulla(state, rules, deck, hand % rules[R_PLAYERS], v)
    reseed(rng, derive_seed(seed, 9, hand, 1))


@njit(cache=True)
def play_hands_cirulla(rules, kinds, models, seed, first, count, out_points):
    """:func:`.learned.play_hands` under Cirulla's rules: hands ``first .. first + count -
    1`` of a run seeded ``seed``, one kind per seat (``kinds``: :data:`.learned.LEARNED`
    playing ``models[seat]``, or a ``POLICY_*`` code, plus :data:`.learned.EXACT`); each
    side's points to ``out_points[hand - first, side]``. The seats' kinds exchanged, the
    deals are the same."""
    state = np.zeros(N_STATE, dtype=np.int64)
    deck = np.zeros(40, dtype=np.int64)
    voids = np.zeros(8, dtype=np.int64)
    rng = np.zeros(RNG_WORDS, dtype=np.uint64)
    bc = np.empty(MAX_PLAYS, dtype=np.int64)
    bt = np.empty(MAX_PLAYS, dtype=np.int64)
    bm = np.empty(MAX_PLAYS, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    ls = learned_scratch_cirulla(models[0])
    items = np.zeros((4, N_ITEMS_CIRULLA), dtype=np.int64)
    for h in range(first, first + count):
        _deal(state, rules, seed, h, deck, rng, voids)
        while not state[S_DONE]:
            n = legal_plays_cirulla(state, rules, bc, bt, bm, sc)
            seat = state[S_TURN]
            i = _choose(state, rules, kinds[seat], models[seat], rng, bc, bt, bm, n, ls)
            apply_play_cirulla(state, rules, bc[i], bt[i], bm[i])
        score_state_cirulla(state, rules, items)
        for s in range(rules[R_SIDES]):
            out_points[h - first, s] = items[s, I_TOTAL]


@njit(cache=True)
def _play_to_end(state, rules, kinds, models, rng, bc, bt, bm, sc, ls):
    """Play the Cirulla hand in ``state`` to its end, one kind per seat."""
    while not state[S_DONE]:
        n = legal_plays_cirulla(state, rules, bc, bt, bm, sc)
        seat = state[S_TURN]
        i = _choose(state, rules, kinds[seat], models[seat], rng, bc, bt, bm, n, ls)
        apply_play_cirulla(state, rules, bc[i], bt[i], bm[i])


@njit(cache=True)
def rollout_samples_cirulla(rules, kinds, models, cont, seed, first, count, rate, worlds,
                            out_idx, out_k, out_dense, out_y, out_group):  # fmt: skip
    """:func:`.learned.rollout_samples` under Cirulla's rules (the same streams, sampling
    and targets; the worlds by :func:`determinize_cirulla`, the features by
    :func:`play_features_cirulla`). Returns ``(hands done, rows written, groups)``."""
    cap = out_y.shape[0]
    state = np.zeros(N_STATE, dtype=np.int64)
    st2 = np.zeros(N_STATE, dtype=np.int64)
    deck = np.zeros(40, dtype=np.int64)
    voids = np.zeros(8, dtype=np.int64)
    rng = np.zeros(RNG_WORDS, dtype=np.uint64)
    rng2 = np.zeros(RNG_WORDS, dtype=np.uint64)
    pick_rng = np.zeros(RNG_WORDS, dtype=np.uint64)
    bc = np.empty(MAX_PLAYS, dtype=np.int64)
    bt = np.empty(MAX_PLAYS, dtype=np.int64)
    bm = np.empty(MAX_PLAYS, dtype=np.int64)
    bc2 = np.empty(MAX_PLAYS, dtype=np.int64)
    bt2 = np.empty(MAX_PLAYS, dtype=np.int64)
    bm2 = np.empty(MAX_PLAYS, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    ls = learned_scratch_cirulla(models[0])
    idx, dense, _, xs, xbt, xbm, xsc, _, _ = ls
    items = np.zeros((4, N_ITEMS_CIRULLA), dtype=np.int64)
    rows = 0
    groups = 0
    for h in range(first, first + count):
        if rows + 40 * 64 > cap:
            return h - first, rows, groups
        _deal(state, rules, seed, h, deck, rng, voids)
        reseed(pick_rng, derive_seed(seed, 10, h, 0))
        while not state[S_DONE]:
            n = legal_plays_cirulla(state, rules, bc, bt, bm, sc)
            seat = state[S_TURN]
            solved = kinds[seat] >= EXACT and one_world_cirulla(state, rules)
            sample = rand_below(pick_rng, 1 << 30) < rate * (1 << 30)
            if n > 1 and sample and not solved and rows + n <= cap:
                for i in range(n):
                    k = play_features_cirulla(state, rules, bc[i], bt[i], bm[i], idx, dense, xs,
                                              xbt, xbm, xsc)  # fmt: skip
                    for j in range(MAX_ACTIVE):
                        out_idx[rows, j] = idx[j] if j < k else -1
                    out_k[rows] = k
                    for d in range(N_DENSE):
                        out_dense[rows, d] = dense[d]
                    total = 0.0
                    for w in range(max(worlds, 1)):
                        if worlds:
                            reseed(rng2, derive_seed(seed, 12, h, state[S_PLAYS] * 4096 + w))
                            determinize_cirulla(state, rules, seat, rng2, st2)
                        else:
                            for j in range(N_STATE):
                                st2[j] = state[j]
                        apply_play_cirulla(st2, rules, bc[i], bt[i], bm[i])
                        reseed(rng2, derive_seed(seed, 11, h, state[S_PLAYS] * 4096 + w))
                        _play_to_end(st2, rules, cont, models, rng2, bc2, bt2, bm2, sc, ls)
                        total += _margin(st2, rules, seat, items)
                    out_y[rows] = total / max(worlds, 1)
                    out_group[rows] = groups
                    rows += 1
                groups += 1
            i = _choose(state, rules, kinds[seat], models[seat], rng, bc, bt, bm, n, ls)
            apply_play_cirulla(state, rules, bc[i], bt[i], bm[i])
    return count, rows, groups
