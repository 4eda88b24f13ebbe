"""The learned policy's kernels: the features of what a seat knows after a play, a small
model over them evaluated in numba, its choice among the legal plays, and the kernels
that play, sample and train it.

The evaluator values a play by the seat's information state *after* it (a one-ply
lookahead): its hand and the table after the play, the piles of its side, of the next
seat's side and of any further sides, the card played, the kind of play (a lay, a capture
of one card or of several, a scopa), the plays made, the next seat's hand size, the last
capturer and the dealer relative to its side, the scope lead; and, as dense inputs, the
expert's own value of the play (:func:`.policy.expert_play_value`), the expert's
evaluation of the piles after it, the scope lead and the table's value sum.  The model
learns a correction over the expert: its output is a play's value in points, the best
play the one of the largest value.

The model is one float64 vector (``M_*`` header, then the weights), passed as an
argument to every kernel that uses it (never a numba global, which the on-disk cache
would keep stale):

* ``out = b2 + sum(lin[i] for i in active) + skip . dense + w2 . relu(h)``,
* ``h = b1 + sum(W1[i] for i in active) + Wd . dense``,

``active`` being the set bits of the sparse features (:data:`N_SPARSE` of them, at most
:data:`MAX_ACTIVE` set), ``dense`` the :data:`N_DENSE` dense ones and ``H =
model[M_HIDDEN]`` the hidden width (0: a linear model).  The first layer is a sum of the
rows of the set bits, so a forward pass costs about ``active x H`` additions.

The harness kernels (:func:`play_hands`, :func:`rollout_samples`) play whole hands
through the step kernels (:mod:`.step`) with one kind per seat: a kernel policy code
(``POLICY_*``) or :data:`LEARNED`; :func:`sgd_pass` trains a model on grouped targets.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import ctz
from .capture import value_sum
from .determinize import determinize, evidence_world
from .layout import (
    ACES,
    I_TOTAL,
    MAX_PLAYS,
    N_ITEMS,
    N_STATE,
    POLICY_LEARNED,
    R_ACE_SWEEP,
    R_ACE_SWEEP_SCOPA,
    R_CAPTURE_FIFTEEN,
    R_DECK,
    R_DECK_MASK,
    R_HAND_SIZE,
    R_LAST_PLAY_SCOPA,
    R_PLAYERS,
    R_SIDES,
    R_TEAMS,
    R_TOTAL_PLAYS,
    S_DEALER,
    S_DECK_SIZE,
    S_DONE,
    S_EVIDENCE,
    S_HANDS,
    S_LAST_CAPTURER,
    S_PILES,
    S_PLAYS,
    S_SCOPE,
    S_STOCK,
    S_TABLE,
    S_TURN,
    SCRATCH,
    VALUE,
)
from .policy import (
    EXPERT_SCRATCH,
    REL_ME,
    expert_eval,
    expert_flags,
    expert_play_value,
    expert_play_value15,
    expert_view,
)
from .solver import FULL_DEPTH, N_INFO, V_SALT, V_TT_MASK, solve_root, solve_world, workspace
from .step import apply_play, choose_play, legal_plays, score_state, start_hand
from .streams import RNG_WORDS, derive_seed, rand_below, reseed, shuffle_deal

__all__ = [
    "D_EVAL",
    "D_EXPERT",
    "D_SCOPE",
    "D_TSUM",
    "EXACT",
    "EXACT_TT",
    "F_CARD",
    "F_DEALER",
    "F_EVIDENCE",
    "F_HAND",
    "F_KIND",
    "F_KN",
    "F_LAST",
    "F_MINE",
    "F_NEXT",
    "F_OTHERS",
    "F_PLAYS",
    "F_SCOPE",
    "F_TABLE",
    "KIND_LAY",
    "KIND_MANY",
    "KIND_ONE",
    "KIND_SCOPA",
    "LEARNED",
    "LOSS_CENTRED",
    "LOSS_SOFTMAX",
    "MAX_ACTIVE",
    "MAX_WORLDS",
    "M_DENSE",
    "M_HEAD",
    "M_HIDDEN",
    "M_SPARSE",
    "M_VERSION",
    "N_DENSE",
    "N_SPARSE",
    "N_SPARSE_BASE",
    "VERSION",
    "WORLDS_MIX",
    "WORLDS_UNIT",
    "best_index",
    "choose_learned",
    "exact_table",
    "harness_choice",
    "hidden_width",
    "last_deal_left",
    "learned_choice",
    "learned_value",
    "model_forward",
    "model_offsets",
    "model_size",
    "new_model",
    "one_world",
    "play_features",
    "play_hands",
    "play_label",
    "play_out_model",
    "rollout_samples",
    "sgd_pass",
    "state_features",
    "worlds_choice",
]

# --------------------------------------------------------------------------- features
# Sparse features: blocks of one-hot bits, each at its offset.
F_HAND = 0  # 40: the seat's hand after the play
F_TABLE = 40  # 40: the table after the play
F_MINE = 80  # 40: its side's pile after the play
F_NEXT = 120  # 40: the next seat's side's pile
F_OTHERS = 160  # 40: the piles of any further sides
F_CARD = 200  # 40: the card played
F_PLAYS = 240  # 40: plays made, this one included (39 and more: 39)
F_KN = 280  # 11: the next seat's hand size (its next deal's when it is empty)
F_LAST = 291  # 4: the last capturer after the play, relative (REL_*)
F_DEALER = 295  # 4: the dealer's side, relative (REL_*)
F_SCOPE = 299  # 7: the scope lead (this side's less the next side's) after it, -3..3
F_KIND = 306  # 4: KIND_* of the play
#: The sparse features of the shipped models (every preset's weights): a model reads the
#: features below its header's ``M_SPARSE`` only (:func:`model_forward`).
N_SPARSE_BASE = 310
F_EVIDENCE = 310  # 10: the next seat's evidence (S_EVIDENCE), bit v - 1: value v
N_SPARSE = 320
#: The most sparse bits a play sets (each card is in one of the hand, the table and the
#: piles, plus the card played, the seven single-bit blocks and the 10 evidence bits).
MAX_ACTIVE = 64

KIND_LAY = 0
KIND_ONE = 1  # a capture of one card
KIND_MANY = 2  # a capture of several cards (a sum, or an ace sweep)
KIND_SCOPA = 3  # a capture that scores a scopa

# Dense features.
D_EXPERT = 0  # the expert's value of the play, points
D_EVAL = 1  # the expert's evaluation of the piles after the play, points
D_SCOPE = 2  # the scope lead after the play
D_TSUM = 3  # the table's value sum after the play, / 10
N_DENSE = 4

# --------------------------------------------------------------------------- model vector
M_VERSION = 0  # the layout's version (VERSION)
M_SPARSE = 1  # N_SPARSE the model was made for
M_DENSE = 2  # N_DENSE the model was made for
M_HIDDEN = 3  # the hidden width H (0: linear)
M_HEAD = 4
#: The model vector's layout version (a model of another version is refused).
VERSION = 1

#: A seat's kind in the harness kernels: the learned model (else a ``POLICY_*`` code); the
#: kernel policy code of ``learned`` (:data:`.layout.POLICY_LEARNED`) is this kind played
#: with :data:`EXACT`.
LEARNED = POLICY_LEARNED
#: Added to a seat's kind: where its information set is one world (the stock is empty
#: and at most one other seat holds cards), it plays the exact solver's best play
#: (:func:`.solver.solve_root`, ties by reservoir draws) instead.
EXACT = 16
#: The size of the harness's transposition table for the exact endgame.
EXACT_TT = 1 << 12
#: A seat's kind carries ``worlds`` (the determinized search one round earlier,
#: :func:`worlds_choice`) as ``worlds * WORLDS_UNIT`` added to it, with :data:`EXACT`.
WORLDS_UNIT = 32
#: The most worlds of that search (``learned:worlds=``).
MAX_WORLDS = 64
#: The weight of the worlds' mean exact value in that search's value of a play, the
#: model's value taking the rest (chosen on the harness's run 555: reports/learned).
WORLDS_MIX = 0.5


def model_size(hidden: int, sparse: int = N_SPARSE_BASE) -> int:
    """The length of a model vector of hidden width ``hidden`` reading the first
    ``sparse`` sparse features (:data:`N_SPARSE_BASE`, or :data:`N_SPARSE` with the
    evidence)."""
    return M_HEAD + sparse + N_DENSE + 1 + hidden * (sparse + N_DENSE + 2)


def new_model(
    hidden: int, seed: int, scale: float = 0.05, sparse: int = N_SPARSE_BASE
) -> np.ndarray:
    """A model vector of hidden width ``hidden`` reading the first ``sparse`` sparse
    features (:data:`N_SPARSE_BASE`, the shipped models' layout, or :data:`N_SPARSE`,
    with the evidence block :data:`F_EVIDENCE`): the expert's value passed through
    (``skip[D_EXPERT] = 1``, every other linear weight 0) and, with ``hidden > 0``, the
    first layer drawn from a normal of sd ``scale`` (seeded by ``seed``), ``b1`` at 0.1
    and ``w2`` at 0: the new model plays as the expert.

    Raises:
        ValueError: ``sparse`` neither of the two."""
    if sparse not in (N_SPARSE_BASE, N_SPARSE):
        raise ValueError(f"a Scopa model reads {N_SPARSE_BASE} or {N_SPARSE} sparse features")
    m = np.zeros(model_size(hidden, sparse))
    m[M_VERSION] = VERSION
    m[M_SPARSE] = sparse
    m[M_DENSE] = N_DENSE
    m[M_HIDDEN] = hidden
    o = model_offsets(m)
    m[o[1] + D_EXPERT] = 1.0
    if hidden:
        g = np.random.default_rng(seed)
        m[o[3] : o[5]] = g.normal(0.0, scale, o[5] - o[3])
        m[o[5] : o[6]] = 0.1
    return m


@njit(cache=True)
def model_offsets(model):
    """Where each part of ``model`` starts: ``(lin, skip, b2, W1, Wd, b1, w2, H)``, by the
    sizes its header gives (``M_SPARSE``, ``M_DENSE``, ``M_HIDDEN``): a Scopa model's and a
    Cirulla model's (:mod:`.learned_cirulla`) alike; its dense inputs are ``b2 - skip``."""
    h = np.int64(model[M_HIDDEN])
    ns = np.int64(model[M_SPARSE])
    nd = np.int64(model[M_DENSE])
    lin = M_HEAD
    skip = lin + ns
    b2 = skip + nd
    w1 = b2 + 1
    wd = w1 + ns * h
    b1 = wd + nd * h
    w2 = b1 + h
    return lin, skip, b2, w1, wd, b1, w2, h


@njit(cache=True)
def hidden_width(model):
    """The hidden width of ``model`` (0 for a linear model, or for the empty vector that
    stands for no model)."""
    return np.int64(model[M_HIDDEN]) if model.shape[0] > M_HIDDEN else np.int64(0)


@njit(cache=True)
def model_forward(model, idx, k, dense, acc):
    """The model's output for the ``k`` active sparse features ``idx[:k]`` and the dense
    ones ``dense`` (a Scopa or a Cirulla model: :func:`model_offsets`); the hidden
    layer's pre-activations are left in ``acc[:H]``. Features at or above the model's
    sparse size (its header's ``M_SPARSE``: the evidence, to a model of
    :data:`N_SPARSE_BASE`) are not read, so a model gives the same outputs on the
    features of a later layout that only adds blocks at the end."""
    lin, skip, b2, w1, wd, b1, w2, h = model_offsets(model)
    nd = b2 - skip
    k = _known(idx, k, skip - lin)
    out = model[b2]
    for j in range(k):
        out += model[lin + idx[j]]
    for d in range(nd):
        out += model[skip + d] * dense[d]
    if h:
        for u in range(h):
            acc[u] = model[b1 + u]
        for j in range(k):
            row = w1 + idx[j] * h
            for u in range(h):
                acc[u] += model[row + u]
        for d in range(nd):
            x = dense[d]
            row = wd + d * h
            for u in range(h):
                acc[u] += model[row + u] * x
        for u in range(h):
            if acc[u] > 0.0:
                out += model[w2 + u] * acc[u]
    return out


@njit(cache=True, inline="always")
def _known(idx, k, ns):
    """How many of the ``k`` ascending features ``idx[:k]`` lie below ``ns``."""
    while k > 0 and idx[k - 1] >= ns:
        k -= 1
    return k


@njit(cache=True, inline="always")
def _bits(mask, at, idx, k):
    """Append the set bits of ``mask``, offset by ``at``, to ``idx`` from ``k``; return k."""
    m = mask
    while m:
        idx[k] = at + ctz(m)
        m &= m - 1
        k += 1
    return k


@njit(cache=True)
def play_features(state, rules, card, take, idx, dense, xs):
    """The features of playing ``card`` taking ``take`` (legal) for the seat to play in
    ``state``, read from its information set only (the other hands by their size, the
    next seat's evidence ``S_EVIDENCE`` while it holds cards): the active sparse
    features to ``idx`` in ascending order (returns their number), the dense ones to
    ``dense``; ``xs``: the expert's scratch (``EXPERT_SCRATCH``)."""
    turn = state[S_TURN]
    players = rules[R_PLAYERS]
    teams = rules[R_TEAMS] != 0
    table = state[S_TABLE]
    pm, po, others, unseen, kn, lc_rel, d_rel = expert_view(
        state, S_HANDS, S_PILES, turn, players, teams, rules[R_SIDES], table,
        rules[R_DECK_MASK], state[S_DECK_SIZE] - state[S_STOCK], rules[R_HAND_SIZE],
        state[S_LAST_CAPTURER], state[S_DEALER],
    )  # fmt: skip
    hand = state[S_HANDS + turn]
    plays = state[S_PLAYS]
    total = rules[R_TOTAL_PLAYS]
    xflags = expert_flags(rules)
    if rules[R_CAPTURE_FIFTEEN]:
        xv = expert_play_value15(
            card, take, hand, table, pm, po, others, unseen, kn, plays, total, lc_rel,
            d_rel, rules[R_DECK], xflags, players == 2, xs,
        )  # fmt: skip
    else:
        xv = expert_play_value(
            card, take, hand, table, pm, po, others, unseen, kn, plays, total, lc_rel,
            d_rel, rules[R_DECK], xflags, players == 2, xs,
        )  # fmt: skip
    nxt = turn + 1 if turn + 1 < players else 0
    side = turn & 1 if teams else turn
    opp = nxt & 1 if teams else nxt
    lead = state[S_SCOPE + side] - state[S_SCOPE + opp]
    bit = np.int64(1) << card
    kind = KIND_LAY
    if take:
        table2 = table & ~take
        pm2 = pm | take | bit
        lc2 = REL_ME
        kind = KIND_ONE if (take & (take - 1)) == 0 else KIND_MANY
        last = plays + 1 == total
        if table2 == 0 and (rules[R_LAST_PLAY_SCOPA] or not last):
            sweep = rules[R_ACE_SWEEP] != 0 and VALUE[card] == 1 and (table & ACES) == 0
            if rules[R_ACE_SWEEP_SCOPA] or not sweep:
                kind = KIND_SCOPA
                lead += 1
    else:
        table2 = table | bit
        pm2 = pm
        lc2 = lc_rel
    k = 0
    k = _bits(hand & ~bit, F_HAND, idx, k)
    k = _bits(table2, F_TABLE, idx, k)
    k = _bits(pm2, F_MINE, idx, k)
    k = _bits(po, F_NEXT, idx, k)
    k = _bits(others, F_OTHERS, idx, k)
    idx[k] = F_CARD + card
    idx[k + 1] = F_PLAYS + min(plays + 1, 39)
    idx[k + 2] = F_KN + min(kn, 10)
    idx[k + 3] = F_LAST + lc2
    idx[k + 4] = F_DEALER + d_rel
    idx[k + 5] = F_SCOPE + 3 + max(-3, min(3, lead))
    idx[k + 6] = F_KIND + kind
    k += 7
    if state[S_HANDS + nxt]:  # else the next seat's reply is from a new deal's hand
        k = _bits(state[S_EVIDENCE + nxt], F_EVIDENCE, idx, k)
    dense[D_EXPERT] = xv
    dense[D_EVAL] = expert_eval(pm2, po, others, rules[R_DECK], xflags)
    dense[D_SCOPE] = lead
    dense[D_TSUM] = value_sum(table2) / 10.0
    return k


@njit(cache=True)
def learned_value(state, rules, model, card, take, idx, dense, acc, xs):
    """The model's value of playing ``card`` taking ``take`` for the seat to play in
    ``state`` (points; larger is better); ``idx`` (``MAX_ACTIVE``), ``dense``
    (``N_DENSE``), ``acc`` (the hidden width) and ``xs`` (``EXPERT_SCRATCH``): scratch."""
    k = play_features(state, rules, card, take, idx, dense, xs)
    return model_forward(model, idx, k, dense, acc)


@njit(cache=True)
def learned_choice(state, rules, model, rng, buf_card, buf_take, n, idx, dense, acc, xs):
    """Index of the play the model values most among the ``n`` legal plays in the
    buffers, ties broken uniformly by reservoir draws from ``rng`` (one play: a draw,
    as :func:`.step.choose_play` makes); scratch as :func:`learned_value`."""
    if n <= 1:
        return rand_below(rng, n)
    best = learned_value(state, rules, model, buf_card[0], buf_take[0], idx, dense, acc, xs)
    count = 1
    pick = 0
    for i in range(1, n):
        x = learned_value(state, rules, model, buf_card[i], buf_take[i], idx, dense, acc, xs)
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
def state_features(state, rules, cards, takes, n, out_idx, out_k, out_dense):
    """The features (:func:`play_features`) of the ``n`` plays ``cards``/``takes`` for the
    seat to play in ``state``: row ``i`` of ``out_idx`` (padded with -1), ``out_k`` and
    ``out_dense``."""
    xs = np.empty(EXPERT_SCRATCH)
    idx = np.empty(MAX_ACTIVE, dtype=np.int64)
    dense = np.empty(N_DENSE)
    for i in range(n):
        k = play_features(state, rules, cards[i], takes[i], idx, dense, xs)
        for j in range(MAX_ACTIVE):
            out_idx[i, j] = idx[j] if j < k else -1
        out_k[i] = k
        for d in range(N_DENSE):
            out_dense[i, d] = dense[d]


# --------------------------------------------------------------------------- harness
@njit(cache=True)
def one_world(state, rules):
    """Whether the information set of the seat to play in ``state`` is one world: the
    stock is empty and at most one other seat holds cards."""
    if state[S_STOCK] < state[S_DECK_SIZE]:
        return False
    holding = 0
    for s in range(rules[R_PLAYERS]):
        if s != state[S_TURN] and state[S_HANDS + s]:
            holding += 1
    return holding <= 1


@njit(cache=True)
def _exact_choice(state, rules, rng, bc, bt, n, tt):
    """The index among the ``n`` plays in the buffers of the exact solver's best play at
    ``state`` (its information set one world), ties by reservoir draws from ``rng``;
    ``tt``: the transposition table ``(keys, values, meta)``, cleared here."""
    tk, tv, tm = tt
    tk[:] = 0
    info = np.zeros(N_INFO, dtype=np.int64)
    info[V_TT_MASK] = tk.shape[0] - 1
    info[V_SALT] = 1
    vals = np.empty(n)
    sc = np.empty(n, dtype=np.int64)
    st = np.empty(n, dtype=np.int64)
    m = solve_root(state, rules, FULL_DEPTH, tk, tv, tm, info, sc, st, vals)
    if m == 0:
        return 0
    pick = best_index(vals, m, rng)
    for i in range(n):
        if bc[i] == sc[pick] and bt[i] == st[pick]:
            return i
    return 0


@njit(cache=True)
def last_deal_left(state, rules):
    """Whether the seat to play in ``state`` decides in the round before the last of a
    2-player hand: the stock holds exactly one more deal (then the cards it cannot see
    are the other seat's hand and that deal)."""
    return rules[R_PLAYERS] == 2 and state[S_DECK_SIZE] - state[S_STOCK] == 2 * rules[R_HAND_SIZE]


@njit(cache=True)
def worlds_choice(state, rules, model, rng, bc, bt, n, worlds, idx, dense, acc, xs, tt):
    """The index among the ``n`` plays in the buffers (:func:`.step.legal_plays` order) of
    the play of the best value: :data:`WORLDS_MIX` times its mean exact value over
    ``worlds`` worlds consistent with what the seat to play knows
    (:func:`.determinize.determinize`, drawn from ``rng``; every play valued on the same
    worlds), each solved to the hand's end by :func:`.solver.solve_world` (the stock's
    order is part of the world), plus the rest times the model's value
    (:func:`learned_value`); ties broken by reservoir draws from ``rng`` as
    :func:`_exact_choice` breaks them.  ``tt``: the transposition table, cleared here
    (one salt per world); ``idx``, ``dense``, ``acc``, ``xs``: the model's scratch."""
    tk, tv, tm = tt
    tk[:] = 0
    info = np.zeros(N_INFO, dtype=np.int64)
    info[V_TT_MASK] = tk.shape[0] - 1
    world = np.empty(N_STATE, dtype=np.int64)
    ws = workspace(state, rules)
    vals = np.empty(ws[1].shape[1])
    total = np.zeros(n)
    seat = state[S_TURN]
    eq = np.empty(0)
    for w in range(worlds):
        determinize(state, rules, seat, rng, world)
        info[V_SALT] = w + 1
        m = solve_world(world, rules, FULL_DEPTH, tk, tv, tm, info, ws, vals, eq)
        for i in range(min(m, n)):
            total[i] += vals[i]
    for i in range(n):
        lv = learned_value(state, rules, model, bc[i], bt[i], idx, dense, acc, xs)
        total[i] = WORLDS_MIX * total[i] / worlds + (1.0 - WORLDS_MIX) * lv
    return best_index(total, n, rng)


@njit(cache=True)
def best_index(vals, n, rng):
    """The index of the largest of ``vals[:n]``, ties broken by reservoir draws from
    ``rng`` (one draw per tie met, as the exact endgame breaks them)."""
    best = -1e300
    count = 0
    pick = 0
    for i in range(n):
        if vals[i] > best:
            best = vals[i]
            count = 1
            pick = i
        elif vals[i] == best:
            count += 1
            if rand_below(rng, count) == 0:
                pick = i
    return pick


@njit(cache=True)
def _choose(state, rules, kind, model, rng, bc, bt, n, idx, dense, acc, xs, tt):
    """The play of a seat of ``kind`` (:data:`LEARNED` or a ``POLICY_*`` code, plus
    :data:`EXACT` for the exact endgame, plus ``worlds *`` :data:`WORLDS_UNIT` for the
    determinized exact search in the round before the last, :func:`worlds_choice`)."""
    if kind >= EXACT:
        worlds = kind // WORLDS_UNIT
        kind = kind % WORLDS_UNIT - EXACT
        if n > 1 and one_world(state, rules):
            return _exact_choice(state, rules, rng, bc, bt, n, tt)
        if n > 1 and worlds and last_deal_left(state, rules):
            return worlds_choice(state, rules, model, rng, bc, bt, n, worlds, idx, dense, acc,
                                 xs, tt)  # fmt: skip
    if kind == LEARNED:
        return learned_choice(state, rules, model, rng, bc, bt, n, idx, dense, acc, xs)
    return choose_play(state, rules, kind, rng, bc, bt, n)


@njit(cache=True)
def exact_table(size):
    """A transposition table of ``size`` entries (a power of 2; :data:`EXACT_TT` for the
    exact endgame, 1 where no seat plays it) for :func:`_exact_choice`."""
    return (
        np.zeros(size, dtype=np.int64),
        np.zeros(size),
        np.zeros(size, dtype=np.int64),
    )


@njit(cache=True)
def _new_tt():
    """A transposition table for :func:`_exact_choice` (:data:`EXACT_TT` entries)."""
    return exact_table(EXACT_TT)


@njit(cache=True)
def choose_learned(state, rules, policy, model, rng, bc, bt, n, idx, dense, acc, xs, tt):
    """Index of the play a seat of kernel policy ``policy`` makes among the ``n`` legal
    plays in the buffers: with :data:`.layout.POLICY_LEARNED`, the exact solver's best
    play where the seat's information set is one world (:func:`one_world`), else the
    best play by ``model`` (:func:`learned_choice`), ties by reservoir draws from ``rng``;
    with ``POLICY_LEARNED + worlds *`` :data:`WORLDS_UNIT` (``learned:worlds=``), the
    same but :func:`worlds_choice` in the round before the last of a 2-player hand;
    any other code, :func:`.step.choose_play` (the same draws). Scratch: ``idx``
    (``MAX_ACTIVE``), ``dense`` (``N_DENSE``), ``acc`` (the hidden width, at least 1),
    ``xs`` (``EXPERT_SCRATCH``), ``tt`` (:func:`exact_table`)."""
    if policy % WORLDS_UNIT == POLICY_LEARNED:
        return _choose(state, rules, policy + EXACT, model, rng, bc, bt, n, idx, dense, acc,
                       xs, tt)  # fmt: skip
    return choose_play(state, rules, policy, rng, bc, bt, n)


@njit(cache=True)
def play_out_model(state, rules, policies, model, rng, buf_card, buf_take, scratch, log_card,
                   log_take):  # fmt: skip
    """:func:`.step.play_out` with ``learned`` seats (:func:`choose_learned`, playing
    ``model``; the empty vector where no seat plays it): the hand in ``state`` played to
    its end with one policy code per seat, each play logged at its index; returns the
    number of plays made. The other policies draw as in :func:`.step.play_out`."""
    xs = np.empty(EXPERT_SCRATCH)
    idx = np.empty(MAX_ACTIVE, dtype=np.int64)
    dense = np.empty(N_DENSE)
    acc = np.empty(max(1, hidden_width(model)))
    tt = exact_table(EXACT_TT if model.shape[0] else 1)
    made = 0
    while not state[S_DONE]:
        n = legal_plays(state, rules, buf_card, buf_take, scratch)
        i = choose_learned(state, rules, policies[state[S_TURN]], model, rng, buf_card,
                           buf_take, n, idx, dense, acc, xs, tt)  # fmt: skip
        k = state[S_PLAYS]
        log_card[k] = buf_card[i]
        log_take[k] = buf_take[i]
        apply_play(state, rules, buf_card[i], buf_take[i])
        made += 1
    return made


@njit(cache=True)
def _margin(state, rules, seat, items):
    """The finished hand's margin for ``seat``'s side: its points less the best other
    side's."""
    score_state(state, rules, items)
    ns = rules[R_SIDES]
    side = seat & 1 if rules[R_TEAMS] else seat
    best = -(1 << 30)
    for s in range(ns):
        if s != side and items[s, I_TOTAL] > best:
            best = items[s, I_TOTAL]
    return items[side, I_TOTAL] - best


@njit(cache=True)
def _deal(state, rules, seed, hand, deck, rng):
    """Deal hand ``hand`` of a harness run seeded ``seed`` (streams ``(seed, 9, hand, 0)``,
    dealer ``hand % players``) and start its play stream ``(seed, 9, hand, 1)``."""
    reseed(rng, derive_seed(seed, 9, hand, 0))
    shuffle_deal(rules, rng, deck)
    start_hand(state, rules, deck, hand % rules[R_PLAYERS])
    reseed(rng, derive_seed(seed, 9, hand, 1))


@njit(cache=True)
def play_hands(rules, kinds, models, seed, first, count, out_points):
    """Play hands ``first .. first + count - 1`` of a run seeded ``seed`` with one kind
    per seat (``kinds``: :data:`LEARNED`, playing ``models[seat]``, or a ``POLICY_*``
    code); each side's points to ``out_points[hand - first, side]``.  Hand ``h`` is dealt
    by seat ``h % players`` from streams of its own, so a run with the seats' kinds
    exchanged plays the same deals."""
    state = np.zeros(N_STATE, dtype=np.int64)
    deck = np.zeros(40, dtype=np.int64)
    rng = np.zeros(RNG_WORDS, dtype=np.uint64)
    bc = np.empty(MAX_PLAYS, dtype=np.int64)
    bt = np.empty(MAX_PLAYS, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    xs = np.empty(EXPERT_SCRATCH)
    idx = np.empty(MAX_ACTIVE, dtype=np.int64)
    dense = np.empty(N_DENSE)
    acc = np.empty(max(1, models.shape[1]))
    items = np.zeros((4, N_ITEMS), dtype=np.int64)
    tt = _new_tt()
    for h in range(first, first + count):
        _deal(state, rules, seed, h, deck, rng)
        while not state[S_DONE]:
            n = legal_plays(state, rules, bc, bt, sc)
            seat = state[S_TURN]
            i = _choose(state, rules, kinds[seat], models[seat], rng, bc, bt, n, idx, dense,
                        acc, xs, tt)  # fmt: skip
            apply_play(state, rules, bc[i], bt[i])
        score_state(state, rules, items)
        for s in range(rules[R_SIDES]):
            out_points[h - first, s] = items[s, I_TOTAL]


@njit(cache=True)
def harness_choice(state, rules, kind, model, rng, bc, bt, n):
    """The index of the play a seat of ``kind`` (as :func:`play_hands` takes it) makes
    among the ``n`` legal plays in the buffers, scratch allocated here (for the bots)."""
    xs = np.empty(EXPERT_SCRATCH)
    idx = np.empty(MAX_ACTIVE, dtype=np.int64)
    dense = np.empty(N_DENSE)
    acc = np.empty(max(1, model.shape[0]))
    return _choose(state, rules, kind, model, rng, bc, bt, n, idx, dense, acc, xs, _new_tt())


@njit(cache=True)
def _play_to_end(state, rules, kinds, models, rng, bc, bt, sc, idx, dense, acc, xs, tt):
    """Play the hand in ``state`` to its end, one kind per seat."""
    while not state[S_DONE]:
        n = legal_plays(state, rules, bc, bt, sc)
        seat = state[S_TURN]
        i = _choose(state, rules, kinds[seat], models[seat], rng, bc, bt, n, idx, dense, acc,
                    xs, tt)  # fmt: skip
        apply_play(state, rules, bc[i], bt[i])


@njit(cache=True)
def play_label(state, rules, card, take, cont, models, seed, hand, worlds, rho, st2, rng2, bc2,
               bt2, sc, idx, dense, acc, xs, tt, items):  # fmt: skip
    """The rollout label of playing ``card`` taking ``take`` at ``state`` (hand ``hand`` of
    a run seeded ``seed``): the hand's final margin for the seat to play when the kinds
    ``cont`` (playing ``models``) finish it after the play, in the true deal (``worlds =
    0``) or averaged over ``worlds`` worlds consistent with what the seat knows
    (:func:`.determinize.evidence_world` with ``rho``; 1: the uniform draw), from the
    streams ``(seed, 12, hand, plays * 4096 + world)`` for the worlds and ``(seed, 11,
    ...)`` for the continuations: every play of a decision meets the same worlds and
    draws (common random numbers).  The other arguments are scratch."""
    seat = state[S_TURN]
    total = 0.0
    for w in range(max(worlds, 1)):
        if worlds:
            reseed(rng2, derive_seed(seed, 12, hand, state[S_PLAYS] * 4096 + w))
            evidence_world(state, rules, seat, rng2, st2, rho)
        else:
            for j in range(N_STATE):
                st2[j] = state[j]
        apply_play(st2, rules, card, take)
        reseed(rng2, derive_seed(seed, 11, hand, state[S_PLAYS] * 4096 + w))
        _play_to_end(st2, rules, cont, models, rng2, bc2, bt2, sc, idx, dense, acc, xs, tt)
        total += _margin(st2, rules, seat, items)
    return total / max(worlds, 1)


@njit(cache=True)
def rollout_samples(rules, kinds, models, cont, seed, first, count, rate, worlds, rho,
                    out_idx, out_k, out_dense, out_y, out_group):  # fmt: skip
    """Training samples from hands ``first ..`` of a run seeded ``seed`` played with one
    kind per seat (``kinds``, ``models``, as :func:`play_hands`): at each decision of more
    than one play, with probability ``rate``, every legal play is made in a copy of the
    hand (``worlds = 0``: the true deal; else in each of ``worlds`` worlds consistent with
    what the seat knows, :func:`.determinize.evidence_world`: each world weighed by
    ``rho`` to the number of cards the other seats' evidence marks; ``rho = 1``: the
    uniform draw of :func:`.determinize.determinize`, the same worlds),
    which is played to its end by
    the kinds ``cont`` (the same play stream, derived from the hand, the decision and the
    world, for every play: common random numbers); each play gives a row: its features
    (:func:`state_features`' layout) and ``out_y``, the finished hand's margin for the
    deciding seat (:func:`_margin`; averaged over the worlds: :func:`play_label`);
    ``out_group`` numbers the
    decision.  A decision that the deciding seat's kind solves exactly (:data:`EXACT`)
    gives no sample.  Stops before a hand that might overflow the rows.

    Returns ``(hands done, rows written, groups)``."""
    cap = out_y.shape[0]
    state = np.zeros(N_STATE, dtype=np.int64)
    st2 = np.zeros(N_STATE, dtype=np.int64)
    deck = np.zeros(40, dtype=np.int64)
    rng = np.zeros(RNG_WORDS, dtype=np.uint64)
    rng2 = np.zeros(RNG_WORDS, dtype=np.uint64)
    pick_rng = np.zeros(RNG_WORDS, dtype=np.uint64)
    bc = np.empty(MAX_PLAYS, dtype=np.int64)
    bt = np.empty(MAX_PLAYS, dtype=np.int64)
    bc2 = np.empty(MAX_PLAYS, dtype=np.int64)
    bt2 = np.empty(MAX_PLAYS, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    xs = np.empty(EXPERT_SCRATCH)
    idx = np.empty(MAX_ACTIVE, dtype=np.int64)
    dense = np.empty(N_DENSE)
    acc = np.empty(max(1, models.shape[1]))
    items = np.zeros((4, N_ITEMS), dtype=np.int64)
    tt = _new_tt()
    rows = 0
    groups = 0
    for h in range(first, first + count):
        if rows + 40 * 64 > cap:
            return h - first, rows, groups
        _deal(state, rules, seed, h, deck, rng)
        reseed(pick_rng, derive_seed(seed, 10, h, 0))
        while not state[S_DONE]:
            n = legal_plays(state, rules, bc, bt, sc)
            seat = state[S_TURN]
            solved = kinds[seat] >= EXACT and one_world(state, rules)
            sample = rand_below(pick_rng, 1 << 30) < rate * (1 << 30)
            if n > 1 and sample and not solved and rows + n <= cap:
                for i in range(n):
                    k = play_features(state, rules, bc[i], bt[i], idx, dense, xs)
                    for j in range(MAX_ACTIVE):
                        out_idx[rows, j] = idx[j] if j < k else -1
                    out_k[rows] = k
                    for d in range(N_DENSE):
                        out_dense[rows, d] = dense[d]
                    out_y[rows] = play_label(state, rules, bc[i], bt[i], cont, models, seed, h,
                                             worlds, rho, st2, rng2, bc2, bt2, sc, idx, dense,
                                             acc, xs, tt, items)  # fmt: skip
                    out_group[rows] = groups
                    rows += 1
                groups += 1
            i = _choose(state, rules, kinds[seat], models[seat], rng, bc, bt, n, idx, dense,
                        acc, xs, tt)  # fmt: skip
            apply_play(state, rules, bc[i], bt[i])
    return count, rows, groups


# --------------------------------------------------------------------------- training
#: :func:`sgd_pass`'s losses: squared error of the values centred per decision, or the
#: cross-entropy of the softmax of the values (over ``tau``) against target shares.
LOSS_CENTRED = 0
LOSS_SOFTMAX = 1


@njit(cache=True)
def sgd_pass(model, idx, ks, dense, y, starts, order, lr, l2, loss_kind, tau):
    """One pass of stochastic gradient descent over the decisions in ``order`` (group
    ``g``'s rows are ``starts[g] .. starts[g + 1] - 1``), the model updated in place
    after each decision with step ``lr`` (and an L2 decay ``l2`` of the weights of the
    sparse features it touched and of ``w2``).  The loss of a decision
    (``loss_kind``): :data:`LOSS_CENTRED`, half the squared error of the model's values
    centred on their mean against the targets ``y`` centred on theirs (only the
    differences between a decision's plays are learned); :data:`LOSS_SOFTMAX`, the
    cross-entropy of the softmax of the values divided by ``tau`` against the target
    shares ``y`` (summing to 1 per decision).  A Scopa or a Cirulla model
    (:func:`model_offsets`), which reads and learns only the features below its sparse
    size (:func:`model_forward`).  Returns the mean loss per row (centred) or per
    decision (softmax), before each update."""
    lin, skip, b2, w1, wd, b1, w2, h = model_offsets(model)
    nd = b2 - skip
    most = 0
    for g in range(starts.shape[0] - 1):
        most = max(most, starts[g + 1] - starts[g])
    pre = np.zeros((most, max(1, h)))
    f = np.zeros(most)
    grad = np.zeros(most)
    loss = 0.0
    units = 0
    for o in range(order.shape[0]):
        g = order[o]
        r0 = starts[g]
        n = starts[g + 1] - r0
        if n < 2:
            continue
        for r in range(n):
            f[r] = model_forward(model, idx[r0 + r], ks[r0 + r], dense[r0 + r], pre[r])
        if loss_kind == LOSS_CENTRED:
            fm = 0.0
            ym = 0.0
            for r in range(n):
                fm += f[r]
                ym += y[r0 + r]
            fm /= n
            ym /= n
            for r in range(n):
                e = (f[r] - fm) - (y[r0 + r] - ym)
                loss += 0.5 * e * e
                grad[r] = e
            units += n
        else:
            top = f[0]
            for r in range(1, n):
                top = max(top, f[r])
            z = 0.0
            for r in range(n):
                grad[r] = np.exp((f[r] - top) / tau)
                z += grad[r]
            for r in range(n):
                p = grad[r] / z
                if y[r0 + r] > 0.0:
                    loss -= y[r0 + r] * np.log(max(p, 1e-300))
                grad[r] = (p - y[r0 + r]) / tau
            units += 1
        for r in range(n):
            row = r0 + r
            k = _known(idx[row], ks[row], skip - lin)
            step = lr * grad[r]
            for j in range(k):
                a = lin + idx[row, j]
                model[a] -= step + lr * l2 * model[a]
            for d in range(nd):
                model[skip + d] -= step * dense[row, d]
            for u in range(h):
                if pre[r, u] <= 0.0:
                    continue
                gu = step * model[w2 + u]
                model[w2 + u] -= step * pre[r, u] + lr * l2 * model[w2 + u]
                model[b1 + u] -= gu
                for j in range(k):
                    a = w1 + idx[row, j] * h + u
                    model[a] -= gu + lr * l2 * model[a]
                for d in range(nd):
                    model[wd + d * h + u] -= gu * dense[row, d]
    return loss / max(units, 1)
