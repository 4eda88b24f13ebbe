"""Numba kernels of the strategy search: determinization, an alpha-beta solver, ISMCTS.

Everything here works on the engine's int64 state vector (``S_*`` layout of
:mod:`scopa_sim._kernels`) and calls the engine kernels for legal plays, applying a
play and scoring, so the search follows the rules exactly.  The Python API is in
:mod:`scopa_sim.search` and :mod:`scopa_sim.infoset`.

Values are hand point margins.  For two sides (two players, or four in teams) the
margin of a side is its points minus the other side's; for three or four sides it is
its points minus the best other side's.

Caching: numba's on-disk cache of a function that calls kernels of another module is
keyed on this file only, so a change to ``_kernels.py`` would leave stale machine code
here.  :func:`_drop_stale_cache` therefore records a hash of ``_kernels.py`` next to
the cache and removes this module's cache files when it changes.
"""

from __future__ import annotations

import hashlib
import math
import os
from pathlib import Path

import numpy as np
from numba import njit

from . import _kernels as K
from ._kernels import ctz, popcount


def _drop_stale_cache() -> None:
    """Remove this module's numba cache files when ``_kernels.py`` changed since they
    were written (numba only checks this file's own time stamp)."""
    here = Path(__file__).resolve()
    try:
        stamp = hashlib.sha1(here.with_name("_kernels.py").read_bytes()).hexdigest()
        base = os.environ.get("NUMBA_CACHE_DIR")
        cache = Path(base) if base else here.parent / "__pycache__"
        dirs = [cache] if not base else [p.parent for p in cache.rglob("_search.*.nbi")] or [cache]
        for d in dirs:
            mark = d / "_search.kernels-stamp"
            old = mark.read_text() if mark.exists() else ""
            if old != stamp:
                for f in d.glob("_search.*.nb[ic]"):
                    f.unlink(missing_ok=True)
                d.mkdir(parents=True, exist_ok=True)
                mark.write_text(stamp)
    except OSError:  # pragma: no cover - read-only install: numba falls back as usual
        pass


_drop_stale_cache()

# --------------------------------------------------------------------------- constants
S_HANDS = K.S_HANDS
S_TABLE = K.S_TABLE
S_PILES = K.S_PILES
S_SCOPE = K.S_SCOPE
S_LAST_CAPTURER = K.S_LAST_CAPTURER
S_TURN = K.S_TURN
S_STOCK = K.S_STOCK
S_PLAYS = K.S_PLAYS
S_DEALER = K.S_DEALER
S_DONE = K.S_DONE
S_DECK_SIZE = K.S_DECK_SIZE
S_DECK = K.S_DECK
N_STATE = K.N_STATE
R_PLAYERS = K.R_PLAYERS
R_TEAMS = K.R_TEAMS
R_HAND_SIZE = K.R_HAND_SIZE
R_CAPTURE_HAND = K.R_CAPTURE_HAND
R_SUM_FEWEST = K.R_SUM_FEWEST
R_ACE_SWEEP = K.R_ACE_SWEEP
R_ACE_SWEEP_SCOPA = K.R_ACE_SWEEP_SCOPA
R_LAST_PLAY_SCOPA = K.R_LAST_PLAY_SCOPA
R_REMAINDER_DEALER = K.R_REMAINDER_DEALER
S_REACH = K.S_REACH
VALUE = K.VALUE
VALUE_MASK = K.VALUE_MASK
R_SIDES = K.R_SIDES
R_TOTAL_PLAYS = K.R_TOTAL_PLAYS
R_PRIMIERA_SEVENS = K.R_PRIMIERA_SEVENS
R_RE_BELLO = K.R_RE_BELLO
R_NAPOLA = K.R_NAPOLA
R_NAPOLA_FIXED3 = K.R_NAPOLA_FIXED3
I_TOTAL = K.I_TOTAL
N_ITEMS = K.N_ITEMS
F_SCOPA = K.F_SCOPA
MAX_PLAYS = K.MAX_PLAYS
SCRATCH = K.SCRATCH
DENARI = K.DENARI
ACES = K.ACES
SETTEBELLO_BIT = K.SETTEBELLO_BIT
RE_BELLO_BIT = K.RE_BELLO_BIT
PRIM_BEST = K.PRIM_BEST

#: Depth that means "search to the end of the hand".
FULL_DEPTH = 1000
#: Plies of the solver's stacks: a hand never has more plays left than this.
MAX_PLY = 41
INF = 1e9

# solver info vector
V_NODES = 0  # nodes visited
V_ROOT_SIDE = 1  # the deciding side (paranoid mode)
V_PARANOID = 2  # 1: three or four sides, paranoid values
V_SALT = 3  # mixed into every key (one per world)
V_TT_MASK = 4  # table size - 1
N_INFO = 5

# transposition-table entry flags
TT_EXACT = 1
TT_LOWER = 2
TT_UPPER = 3

# solver frame columns (float frames / int frames)
X_ALPHA = 0
X_BETA = 1
X_ALPHA0 = 2
X_BEST = 3
X_G = 4  # scope scored by the play being searched (two sides)
X_SIGN = 5  # +1: same team to play after it, -1: the other
X_DEPTH = 0
X_K = 1  # position in the play order
X_N = 2  # number of plays
X_BI = 3  # index of the best play so far
X_KEY = 4
X_COLS = 6

# ISMCTS node pool columns (int64) and statistics columns (float64)
N_PARENT = 0
N_CARD = 1
N_TAKE = 2
N_CHILD = 3  # first child, -1: none
N_NEXT = 4  # next sibling, -1: none
N_SIDE = 5  # side that made the play into this node
N_COLS = 6
T_VISITS = 0
T_AVAIL = 1
T_SUM = 2  # sum of scaled rewards
T_SQ = 3  # sum of squared scaled rewards
T_COLS = 4

#: ISMCTS reward = hand point margin * REWARD_SCALE.  Hand margins mostly lie within
#: +-4 points, so scaled rewards mostly lie within +-1 and UCB's exploration constant
#: works around the usual 0.7 (= 1/sqrt(2) for rewards of unit range).
REWARD_SCALE = 0.25


# --------------------------------------------------------------------------- determinization
@njit(cache=True)
def _redeal(state, rules, seat, rng, out, shuffle):
    """Copy ``state`` to ``out`` with the cards ``seat`` cannot see dealt anew.

    The unseen cards are those of the other hands and of the stock.  They are laid at
    the end of the deck order (shuffled when ``shuffle``, else in card order), the
    other hands take theirs from the front of that run in seat order by their current
    sizes, and the rest is the stock.  Cards already seen are written before them in
    card order, so ``out`` holds no trace of how the true deal went.
    """
    for i in range(N_STATE):
        out[i] = state[i]
    n = rules[R_PLAYERS]
    size = state[S_DECK_SIZE]
    unseen = np.int64(0)
    for s in range(n):
        if s != seat:
            unseen |= state[S_HANDS + s]
    for i in range(state[S_STOCK], size):
        unseen |= np.int64(1) << state[S_DECK + i]
    everything = np.int64(0)
    for i in range(size):
        everything |= np.int64(1) << state[S_DECK + i]
    pos = S_DECK
    m = everything & ~unseen
    while m:
        out[pos] = ctz(m)
        m &= m - 1
        pos += 1
    start = pos
    m = unseen
    while m:
        out[pos] = ctz(m)
        m &= m - 1
        pos += 1
    if shuffle:
        for i in range(pos - start - 1, 0, -1):
            j = K.rand_below(rng, i + 1)
            t = out[start + i]
            out[start + i] = out[start + j]
            out[start + j] = t
    for s in range(n):
        if s != seat:
            h = np.int64(0)
            for _ in range(popcount(state[S_HANDS + s])):
                h |= np.int64(1) << out[start]
                start += 1
            out[S_HANDS + s] = h


@njit(cache=True)
def determinize(state, rules, seat, rng, out_state):
    """A world consistent with what ``seat`` knows, into ``out_state``: the cards it
    cannot see (other hands and stock) dealt uniformly at random to the other hands
    (keeping their sizes) and to the stock (keeping its size)."""
    _redeal(state, rules, seat, rng, out_state, True)


@njit(cache=True)
def canonical_world(state, rules, seat, out_state):
    """The one world of ``seat``'s information set with the unseen cards in card order:
    a state that depends only on what ``seat`` knows (used as the root of searches)."""
    _redeal(state, rules, seat, np.zeros(1, dtype=np.uint64), out_state, False)


# --------------------------------------------------------------------------- evaluation
@njit(cache=True)
def _margins(state, rules, score, out):
    """``out[side]``: that side's final points minus the best other side's."""
    K.score_state(state, rules, score)
    ns = rules[R_SIDES]
    for s in range(ns):
        best = -1000
        for t in range(ns):
            if t != s and score[t, I_TOTAL] > best:
                best = score[t, I_TOTAL]
        out[s] = score[s, I_TOTAL] - best


@njit(cache=True)
def _lead(x, s, ns, decided, k):
    """Credit in [0, 1] for side ``s`` leading an item worth one point: 1 if decided
    (``x[s] > decided``), else its lead over the best other side divided by ``k``."""
    if x[s] > decided:
        return 1.0
    best = -1.0
    for t in range(ns):
        if t != s and x[t] > best:
            best = x[t]
    return min(1.0, max(0.0, (x[s] - best) / k))


@njit(cache=True)
def estimate(state, rules, side, with_scope, work):
    """Heuristic margin of ``side`` (its estimated points minus the best other side's)
    from the piles, for depth-limited search.

    Per side: settebello and re bello held; the napola run held; cards and denari: 1 if
    more than half of those in play are already held, else the lead over the best
    other side / 8 (cards) or / 3 (denari), clipped to [0, 1]; primiera: the lead in
    the classic sum over suits (missing suits 0) / 20, or with ``primiera=sevens`` in
    sevens then sixes (7s count 4, 6s 1) / 4, clipped to [0, 1]; plus the scope so far
    with ``with_scope`` (two-side searches add scope along the path instead).
    ``work`` holds at least 16 float64.
    """
    ns = rules[R_SIDES]
    cards = 0
    den = 0
    for s in range(ns):
        p = state[S_PILES + s]
        cards += popcount(p)
        den += popcount(p & DENARI)
    left = state[S_TABLE]
    for s in range(rules[R_PLAYERS]):
        left |= state[S_HANDS + s]
    for i in range(state[S_STOCK], state[S_DECK_SIZE]):
        left |= np.int64(1) << state[S_DECK + i]
    cards += popcount(left)
    den += popcount(left & DENARI)
    sevens = rules[R_PRIMIERA_SEVENS] != 0
    for s in range(ns):
        p = state[S_PILES + s]
        work[s] = popcount(p)
        work[4 + s] = popcount(p & DENARI)
        if sevens:
            work[8 + s] = 4 * popcount(p & (ACES << 6)) + popcount(p & (ACES << 5))
        else:
            t = 0
            for u in range(4):
                t += PRIM_BEST[(p >> (10 * u)) & 1023]
            work[8 + s] = t
    for s in range(ns):
        p = state[S_PILES + s]
        e = 0.0
        if p & SETTEBELLO_BIT:
            e += 1.0
        if rules[R_RE_BELLO] and p & RE_BELLO_BIT:
            e += 1.0
        if rules[R_NAPOLA] and (p & 7) == 7:
            e += 3.0 if rules[R_NAPOLA_FIXED3] else ctz(~(p & DENARI))
        e += _lead(work[0:4], s, ns, cards / 2, 8.0)
        e += _lead(work[4:8], s, ns, den / 2, 3.0)
        e += _lead(work[8:12], s, ns, 1e9, 4.0 if sevens else 20.0)
        if with_scope:
            e += state[S_SCOPE + s]
        work[12 + s] = e
    best = -1e9
    for t in range(ns):
        if t != side and work[12 + t] > best:
            best = work[12 + t]
    return work[12 + side] - best


# --------------------------------------------------------------------------- solver
@njit(cache=True)
def _pile_key(pile, sevens):
    """What of a pile can still matter to the final score: its size, its denari (settebello,
    re bello, napola, denari count, denari primiera) and per other suit the best primiera
    value (classic) or the count of each rank A..7 (sevens)."""
    f = popcount(pile) | ((pile & DENARI) << 6)
    if sevens:
        for k in range(7):
            f |= np.int64(popcount(pile & (ACES << k) & ~DENARI)) << (16 + 2 * k)
    else:
        for u in range(1, 4):
            f |= PRIM_BEST[(pile >> (10 * u)) & 1023] << (11 + 5 * u)
    return f


@njit(cache=True)
def _hash(h, x):
    return K.mix64(h ^ np.uint64(x))


@njit(cache=True)
def _key(state, rules, info):
    """Transposition key (never 0) of everything that decides the rest of the hand's value:
    hands, table, stock position (the deck order is fixed within one world, whose salt is
    mixed in), the score-relevant part of each pile, the last capturer and the seat to
    play; in paranoid mode also the scope counts, since values there include them."""
    h = np.uint64(info[V_SALT])
    for s in range(rules[R_PLAYERS]):
        h = _hash(h, state[S_HANDS + s])
    h = _hash(h, state[S_TABLE])
    h = _hash(h, state[S_STOCK] | (state[S_TURN] << 8) | ((state[S_LAST_CAPTURER] + 1) << 12))
    sevens = rules[R_PRIMIERA_SEVENS] != 0
    paranoid = info[V_PARANOID] != 0
    for s in range(rules[R_SIDES]):
        h = _hash(h, _pile_key(state[S_PILES + s], sevens))
        if paranoid:
            h = _hash(h, state[S_SCOPE + s])
    return np.int64(h >> np.uint64(1)) | 1


@njit(cache=True)
def _team(rules, info, state):
    """The "team" of the seat to play: its side with two sides, else 1 for the deciding
    side and 0 for the coalition of the others (paranoid reduction)."""
    side = K.side_of(rules, state[S_TURN])
    if info[V_PARANOID]:
        return 1 if side == info[V_ROOT_SIDE] else 0
    return side


@njit(cache=True)
def _static(state, rules, info, score, margins, work, exact):
    """Value of a finished (``exact``) or depth-limited position for the seat to play: the
    rest of the hand's margin (two sides: scope already scored left out) or, paranoid,
    the deciding side's whole margin, negated for the coalition."""
    side = K.side_of(rules, state[S_TURN])
    if info[V_PARANOID]:
        root = info[V_ROOT_SIDE]
        if exact:
            _margins(state, rules, score, margins)
            v = float(margins[root])
        else:
            v = estimate(state, rules, root, True, work)
        return v if side == root else -v
    if exact:
        _margins(state, rules, score, margins)
        v = float(margins[side])
        other = 1 - side
        return v - (state[S_SCOPE + side] - state[S_SCOPE + other])
    return estimate(state, rules, side, False, work)


@njit(cache=True)
def _order(state, rules, bc, bt, n, order, first):
    """Fill ``order[:n]`` with play indices: ``first`` (the table's best play), then by
    descending greedy value (insertion sort; play counts are small)."""
    for i in range(n):
        v = K.greedy_value(state, rules, bc[i], bt[i])
        if i == first:
            v += 1 << 30
        j = i
        while j > 0 and (order[j - 1] >> 32) < v:
            order[j] = order[j - 1]
            j -= 1
        order[j] = (v << 32) | i
    for i in range(n):
        order[i] &= 0xFFFFFFFF


@njit(cache=True)
def _play(st, rules, info, ply, card, take):
    """Copy ``st[ply]`` to ``st[ply + 1]`` and make the play there; return the scope it
    scored (two sides only: paranoid values count scope at the end) and +1 when the
    same team is to play next, -1 when the other one is."""
    s = st[ply]
    child = st[ply + 1]
    for i in range(N_STATE):
        child[i] = s[i]
    flags = K.apply_play(child, rules, card, take)
    g = 0.0
    if not info[V_PARANOID] and flags & F_SCOPA:
        g = 1.0
    same = _team(rules, info, child) == _team(rules, info, s)
    return g, 1.0 if same else -1.0


@njit(cache=True)
def _negamax(
    rules, st, bc, bt, sc, order, fl, fi, tt_key, tt_val, tt_meta, info, score, margins,
    work, ply0, depth0, alpha0, beta0,
):  # fmt: skip
    """Fail-soft alpha-beta negamax with a transposition table: the value of ``st[ply0]``
    for the seat to play (see :func:`_static`), searched ``depth0`` plies within
    (alpha0, beta0).

    Iterative, on explicit per-ply frames (``fl``: float64, ``fi``: int64, ``X_*``
    columns), because numba's cache crashes on recursive functions (numba #6061).  A
    table entry keeps the value, its bound type, the remaining depth it was searched
    to and the index of the best play (legal plays come in a fixed order), tried first
    next time.
    """
    ply = ply0
    fl[ply, X_ALPHA] = alpha0
    fl[ply, X_BETA] = beta0
    fi[ply, X_DEPTH] = depth0
    mask = info[V_TT_MASK]
    while True:
        # ---- enter the node at ply
        info[V_NODES] += 1
        s = st[ply]
        depth = fi[ply, X_DEPTH]
        alpha = fl[ply, X_ALPHA]
        beta = fl[ply, X_BETA]
        done = True
        value = 0.0
        if s[S_DONE]:
            value = _static(s, rules, info, score, margins, work, True)
        elif depth <= 0:
            value = _static(s, rules, info, score, margins, work, False)
        else:
            key = _key(s, rules, info)
            slot = key & mask
            first = -1
            hit = False
            if tt_key[slot] == key:
                meta = tt_meta[slot]  # flag (2 bits) | depth (16 bits) << 2 | best index << 18
                first = meta >> 18
                if ((meta >> 2) & 0xFFFF) >= depth:
                    value = tt_val[slot]
                    flag = meta & 3
                    hit = (
                        flag == TT_EXACT
                        or (flag == TT_LOWER and value >= beta)
                        or (flag == TT_UPPER and value <= alpha)
                    )
            if not hit:
                n = K.legal_plays(s, rules, bc[ply], bt[ply], sc)
                if n == 0:  # only in hand-made positions: nothing to play
                    value = _static(s, rules, info, score, margins, work, False)
                else:
                    _order(s, rules, bc[ply], bt[ply], n, order[ply], first)
                    fi[ply, X_K] = 0
                    fi[ply, X_N] = n
                    fi[ply, X_BI] = order[ply, 0]
                    fi[ply, X_KEY] = key
                    fl[ply, X_ALPHA0] = alpha
                    fl[ply, X_BEST] = -INF
                    done = False
        # ---- return values up while nodes are finished
        while done:
            if ply == ply0:
                return value
            ply -= 1
            v = fl[ply, X_G] + fl[ply, X_SIGN] * value
            if v > fl[ply, X_BEST]:
                fl[ply, X_BEST] = v
                fi[ply, X_BI] = order[ply, fi[ply, X_K]]
                if v > fl[ply, X_ALPHA]:
                    fl[ply, X_ALPHA] = v
            fi[ply, X_K] += 1
            if fl[ply, X_ALPHA] >= fl[ply, X_BETA] or fi[ply, X_K] >= fi[ply, X_N]:
                value = fl[ply, X_BEST]
                flag = TT_EXACT
                if value <= fl[ply, X_ALPHA0]:
                    flag = TT_UPPER
                elif value >= fl[ply, X_BETA]:
                    flag = TT_LOWER
                key = fi[ply, X_KEY]
                slot = key & mask
                tt_key[slot] = key
                tt_val[slot] = value
                tt_meta[slot] = flag | (min(fi[ply, X_DEPTH], 0xFFFF) << 2) | (fi[ply, X_BI] << 18)
            else:
                done = False
        # ---- descend into the next play
        i = order[ply, fi[ply, X_K]]
        g, sign = _play(st, rules, info, ply, bc[ply, i], bt[ply, i])
        fl[ply, X_G] = g
        fl[ply, X_SIGN] = sign
        a = fl[ply, X_ALPHA]
        b = fl[ply, X_BETA]
        fi[ply + 1, X_DEPTH] = fi[ply, X_DEPTH] - 1
        if sign > 0:
            fl[ply + 1, X_ALPHA] = a - g
            fl[ply + 1, X_BETA] = b - g
        else:
            fl[ply + 1, X_ALPHA] = g - b
            fl[ply + 1, X_BETA] = g - a
        ply += 1


@njit(cache=True)
def _workspace(state, rules):
    """Search stacks sized for the rest of the hand at ``state``: states, play buffers,
    play orders and frames.

    A play buffer holds at most hand size * (C(T, T // 2) + 1) plays, T bounding the
    table size (table now plus every card left to play): the sets of table cards with
    one value sum form an antichain (one inside another would add a zero), so Sperner's
    theorem bounds their number.  Small endgames so get small buffers.
    """
    left = rules[R_TOTAL_PLAYS] - state[S_PLAYS]
    plies = left + 2
    t = popcount(state[S_TABLE]) + left
    sperner = 1
    for i in range(t // 2):
        sperner = sperner * (t - i) // (i + 1)
        if sperner > MAX_PLAYS:
            break
    hand = 0
    for s in range(rules[R_PLAYERS]):
        hand = max(hand, popcount(state[S_HANDS + s]))
    cap = min(MAX_PLAYS, max(hand, rules[R_HAND_SIZE]) * (max(sperner, 4) + 1))
    st = np.empty((plies + 1, N_STATE), dtype=np.int64)
    bc = np.empty((plies, cap), dtype=np.int64)
    bt = np.empty((plies, cap), dtype=np.int64)
    order = np.empty((plies, cap), dtype=np.int64)
    fl = np.zeros((plies + 1, X_COLS), dtype=np.float64)
    fi = np.zeros((plies + 1, X_COLS), dtype=np.int64)
    return st, bc, bt, order, fl, fi


@njit(cache=True)
def _solve(state, rules, depth, tt_key, tt_val, tt_meta, info, ws, out_val):
    """:func:`solve_root` on a given workspace, for the plays already in ``bc[0]``, ``bt[0]``
    (``n`` of them, returned)."""
    st, bc, bt, order, fl, fi = ws
    sc = np.empty(SCRATCH, dtype=np.int64)
    score = np.zeros((4, N_ITEMS), dtype=np.int64)
    margins = np.zeros(4, dtype=np.int64)
    work = np.zeros(16, dtype=np.float64)
    ns = rules[R_SIDES]
    side = K.side_of(rules, state[S_TURN])
    info[V_PARANOID] = 1 if ns > 2 else 0
    info[V_ROOT_SIDE] = side
    for i in range(N_STATE):
        st[0, i] = state[i]
    n = K.legal_plays(state, rules, bc[0], bt[0], sc)
    now = 0.0
    if ns == 2:
        now = float(state[S_SCOPE + side] - state[S_SCOPE + 1 - side])
    for i in range(n):
        g, sign = _play(st, rules, info, 0, bc[0, i], bt[0, i])
        v = sign * _negamax(
            rules, st, bc, bt, sc, order, fl, fi, tt_key, tt_val, tt_meta, info, score,
            margins, work, 1, depth - 1, -INF, INF,
        )  # fmt: skip
        out_val[i] = now + g + v
    return n


@njit(cache=True)
def solve_root(state, rules, depth, tt_key, tt_val, tt_meta, info, out_card, out_take, out_val):
    """Exact (``depth >= FULL_DEPTH``) or depth-limited value of every legal play at
    ``state`` for the side to play, as the hand's final point margin.

    Two sides: own points minus the other side's, by exact negamax.  Three or four
    sides: the paranoid reduction -- the deciding side maximises its points minus the
    best other side's and all other sides play together to minimise that.  Beyond
    ``depth`` plies positions are valued by :func:`estimate`.  The stock's order is
    part of the state, so deals are deterministic and the search crosses them.

    Writes the plays (in :func:`legal_plays` order) and values to the ``out_*`` arrays
    and returns their number.  The caller sets ``info[V_TT_MASK]`` (table size - 1, a
    power of two less one) and ``info[V_SALT]`` (mixed into every key, so tables can be
    shared between worlds without clearing); the node count is added to
    ``info[V_NODES]``.
    """
    ws = _workspace(state, rules)
    n = _solve(state, rules, depth, tt_key, tt_val, tt_meta, info, ws, out_val)
    bc = ws[1]
    bt = ws[2]
    for i in range(n):
        out_card[i] = bc[0, i]
        out_take[i] = bt[0, i]
    return n


@njit(cache=True)
def pimc_values(
    state, rules, worlds, depth, exact_below, seed, tt_key, tt_val, tt_meta, out_card,
    out_take, out_val,
):  # fmt: skip
    """Perfect-information Monte Carlo: ``out_val[w, i]`` is the value of legal play ``i``
    (see :func:`solve_root`) in world ``w``, a determinization of ``state`` for the seat
    to play drawn from the stream ``derive_seed(seed, 3, w, 0)``.  Each world is solved
    exactly when at most ``exact_below`` cards are left to play, else to ``depth`` plies
    with the heuristic leaf value.  Returns the number of plays."""
    seat = state[S_TURN]
    world = np.empty(N_STATE, dtype=np.int64)
    rng = np.zeros(1, dtype=np.uint64)
    info = np.zeros(N_INFO, dtype=np.int64)
    info[V_TT_MASK] = tt_key.shape[0] - 1
    ws = _workspace(state, rules)
    bc = ws[1]
    bt = ws[2]
    vals = np.empty(MAX_PLAYS, dtype=np.float64)
    left = rules[R_TOTAL_PLAYS] - state[S_PLAYS]
    d = FULL_DEPTH if left <= exact_below else depth
    n = 0
    for w in range(worlds):
        rng[0] = K.derive_seed(seed, 3, w, 0)
        determinize(state, rules, seat, rng, world)
        info[V_SALT] = np.int64(K.derive_seed(seed, 4, w, 0) >> np.uint64(1))
        n = _solve(world, rules, d, tt_key, tt_val, tt_meta, info, ws, vals)
        for i in range(n):
            out_val[w, i] = vals[i]
            out_card[i] = bc[0, i]
            out_take[i] = bt[0, i]
    return n


# --------------------------------------------------------------------------- rollouts
#: Subset counts by value sum packed 5 bits per sum 0..10 (the polynomial prod(1 + x**v)
#: over the table cards at x = 2**5): a card joining multiplies by GROW[v].  Exact while
#: every count is below 32, which holds for tables of up to 6 cards (at most C(6, 3) = 20
#: subsets share a sum); larger tables use :func:`_subset_counts`.
LANES = (1 << 55) - 1
GROW = np.array([0] + [1 + (1 << (5 * v)) for v in range(1, 11)], dtype=np.int64)


@njit(cache=True)
def _subset_counts(table, cnt):
    """``cnt[s]``: number of subsets of the table whose values add up to s (s = 0..10)."""
    for i in range(11):
        cnt[i] = 0
    cnt[0] = 1
    m = table
    while m:
        u = VALUE[ctz(m)]
        m &= m - 1
        i = 10
        while i >= u:
            cnt[i] += cnt[i - u]
            i -= 1


@njit(cache=True)
def rollout_random(st, rules, rng, cnt, bt, sc, log, logging):
    """Finish the hand in ``st`` with uniformly random plays (the engine's ``random``
    policy: uniform over the distinct legal plays) for every seat; return the plays made.

    The same distribution as :func:`scopa_sim._kernels.play_out` with ``POLICY_RANDOM``
    (not the same random stream), but about five times faster: the number of plays of
    each card is counted from the table's subset-sum counts (packed, or in ``cnt``: 11
    int64, for tables of more than 6 cards) and only
    the chosen play is built; the play is applied in place and no array crosses a call
    but for dealing and for listing the sum captures of the chosen card.  Not for
    ``sum_capture=fewest`` (use ``play_out``).  ``st[S_REACH]`` is left stale: the state
    is only fit for scoring afterwards.  With ``logging``, play k's card, take and the
    number of legal plays go to ``log[3k:3k + 3]``.
    """
    players = rules[R_PLAYERS]
    total = rules[R_TOTAL_PLAYS]
    teams = rules[R_TEAMS] != 0
    capture_hand = rules[R_CAPTURE_HAND] != 0
    ace_rule = rules[R_ACE_SWEEP] != 0
    ace_scopa = rules[R_ACE_SWEEP_SCOPA] != 0
    lps = rules[R_LAST_PLAY_SCOPA] != 0
    made = 0
    while not st[S_DONE]:
        turn = st[S_TURN]
        hand = st[S_HANDS + turn]
        table = st[S_TABLE]
        big = popcount(table) > 6
        packed = np.int64(1)
        if big:
            _subset_counts(table, cnt)
        else:
            m = table
            while m:
                packed = (packed * GROW[VALUE[ctz(m)]]) & LANES
                m &= m - 1
        sweep = ace_rule and table != 0 and (table & ACES) == 0
        caps = 0
        lays = 0
        m = hand
        while m:
            c = ctz(m)
            m &= m - 1
            v = VALUE[c]
            same = table & VALUE_MASK[v]
            if v == 1 and sweep:
                k = 1
            elif same:
                k = popcount(same)
            else:
                k = cnt[v] if big else (packed >> (5 * v)) & 31
            caps += k
            lays += k == 0
        keep_lays = not (capture_hand and caps > 0)
        n = caps + (lays if keep_lays else 0)
        r = K.rand_below(rng, n)
        card = 0
        m = hand
        while m:
            card = ctz(m)
            m &= m - 1
            v = VALUE[card]
            same = table & VALUE_MASK[v]
            if v == 1 and sweep:
                k = 1
            elif same:
                k = popcount(same)
            else:
                k = cnt[v] if big else (packed >> (5 * v)) & 31
                if k == 0 and keep_lays:
                    k = 1
            if r < k:
                break
            r -= k
        v = VALUE[card]
        same = table & VALUE_MASK[v]
        swept = False
        if v == 1 and sweep:
            take = table
            swept = True
        elif same:
            for _ in range(r):
                same &= same - 1
            take = same & -same
        elif cnt[v] if big else (packed >> (5 * v)) & 31:
            K.sum_captures(table, v, 0, bt, 0, sc)
            take = bt[r]
        else:
            take = np.int64(0)
        if logging:
            log[3 * made] = card
            log[3 * made + 1] = take
            log[3 * made + 2] = n
        made += 1
        bit = np.int64(1) << card
        side = (turn & 1) if teams else turn
        st[S_HANDS + turn] = hand ^ bit
        plays = st[S_PLAYS] + 1
        st[S_PLAYS] = plays
        if take:
            left = table & ~take
            st[S_TABLE] = left
            st[S_PILES + side] |= take | bit
            st[S_LAST_CAPTURER] = side
            if left == 0 and (lps or plays != total) and (ace_scopa or not swept):
                st[S_SCOPE + side] += 1
        else:
            st[S_TABLE] = table | bit
        turn += 1
        st[S_TURN] = 0 if turn >= players else turn
        empty = True
        for i in range(players):
            if st[S_HANDS + i]:
                empty = False
        if empty:
            K.next_round(st, rules)
    return made


# --------------------------------------------------------------------------- ISMCTS
@njit(cache=True)
def ismcts_init(root, nodes, stats):
    """Make the pool hold the root alone; return the node count (1)."""
    for j in range(N_COLS):
        nodes[0, j] = -1
    nodes[0, N_SIDE] = -1
    for j in range(T_COLS):
        stats[0, j] = 0.0
    return 1


@njit(cache=True)
def ismcts_run(root, rules, nodes, stats, count, iterations, c, policy, rng):
    """Run ``iterations`` of single-observer ISMCTS from ``root`` (the seat to play's
    information set, any world of it) on the node pool ``nodes``/``stats`` holding
    ``count`` nodes; return the new count.

    Each iteration: a new determinization for the root seat; selection from the root
    among the children compatible with this world's legal plays, by UCB1 with
    availability counts (mean reward + c * sqrt(ln(availability) / visits)), until a
    node has an untried legal play; expansion of one of them chosen at random (unless
    the pool is full); a rollout with the engine's ``policy`` for every seat
    (``POLICY_RANDOM`` by :func:`rollout_random`, the same distribution, faster, except
    with ``sum_capture=fewest``; ``POLICY_GREEDY`` by :func:`scopa_sim._kernels.play_out`);
    the final margins (scaled by ``REWARD_SCALE``) backed up, each node getting the
    margin of the side that made the play into it (for three or four sides, that side's
    points minus the best other side's).  Availability of every compatible child is
    counted at each node passed.  ``rng`` (one uint64) carries the random stream across
    calls, so a run split into chunks gives the same tree.
    """
    cap = nodes.shape[0]
    seat = root[S_TURN]
    st = np.empty(N_STATE, dtype=np.int64)
    bc = np.empty(MAX_PLAYS, dtype=np.int64)
    bt = np.empty(MAX_PLAYS, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    seen = np.zeros(MAX_PLAYS, dtype=np.int64)
    lc = np.empty(64, dtype=np.int64)
    lt = np.empty(64, dtype=np.int64)
    cnt = np.empty(11, dtype=np.int64)
    pol = np.full(4, policy, dtype=np.int64)
    fast = policy == K.POLICY_RANDOM and rules[R_SUM_FEWEST] == 0
    score = np.zeros((4, N_ITEMS), dtype=np.int64)
    margins = np.zeros(4, dtype=np.int64)
    for _ in range(iterations):
        determinize(root, rules, seat, rng, st)
        node = 0
        while not st[S_DONE]:
            n = K.legal_plays(st, rules, bc, bt, sc)
            for i in range(n):
                seen[i] = 0
            ch = nodes[node, N_CHILD]
            while ch >= 0:  # count availability of the compatible children
                card = nodes[ch, N_CARD]
                take = nodes[ch, N_TAKE]
                for i in range(n):
                    if bc[i] == card and bt[i] == take:
                        seen[i] = 1
                        stats[ch, T_AVAIL] += 1.0
                        break
                ch = nodes[ch, N_NEXT]
            untried = 0
            for i in range(n):
                untried += 1 - seen[i]
            side = K.side_of(rules, st[S_TURN])
            if untried:
                r = K.rand_below(rng, untried)
                pick = 0
                for i in range(n):
                    if seen[i] == 0:
                        if r == 0:
                            pick = i
                            break
                        r -= 1
                if count < cap:
                    new = count
                    count += 1
                    nodes[new, N_PARENT] = node
                    nodes[new, N_CARD] = bc[pick]
                    nodes[new, N_TAKE] = bt[pick]
                    nodes[new, N_CHILD] = -1
                    nodes[new, N_NEXT] = nodes[node, N_CHILD]
                    nodes[new, N_SIDE] = side
                    nodes[node, N_CHILD] = new
                    stats[new, T_VISITS] = 0.0
                    stats[new, T_AVAIL] = 1.0
                    stats[new, T_SUM] = 0.0
                    stats[new, T_SQ] = 0.0
                    node = new
                K.apply_play(st, rules, bc[pick], bt[pick])
                break
            best = -INF
            pick = -1
            ch = nodes[node, N_CHILD]
            while ch >= 0:
                card = nodes[ch, N_CARD]
                take = nodes[ch, N_TAKE]
                ok = False
                for i in range(n):
                    if bc[i] == card and bt[i] == take:
                        ok = True
                        break
                if ok:
                    v = stats[ch, T_VISITS]
                    u = stats[ch, T_SUM] / v + c * math.sqrt(math.log(stats[ch, T_AVAIL]) / v)
                    if u > best:
                        best = u
                        pick = ch
                ch = nodes[ch, N_NEXT]
            node = pick
            K.apply_play(st, rules, nodes[pick, N_CARD], nodes[pick, N_TAKE])
        if not st[S_DONE]:
            if fast:
                rollout_random(st, rules, rng, cnt, bt, sc, lc, False)
            else:
                K.play_out(st, rules, pol, rng, bc, bt, sc, lc, lt)
        _margins(st, rules, score, margins)
        while node > 0:
            side = nodes[node, N_SIDE]
            rew = margins[side] * REWARD_SCALE
            stats[node, T_VISITS] += 1.0
            stats[node, T_SUM] += rew
            stats[node, T_SQ] += rew * rew
            node = nodes[node, N_PARENT]
        stats[0, T_VISITS] += 1.0
    return count
