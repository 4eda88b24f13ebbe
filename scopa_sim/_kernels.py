"""Numba kernels of the rules engine: masks in, masks out.

Everything here works on plain int64 arrays so that it compiles once and is
cached (``cache=True``).  Kernels that call each other live in this one module
because numba's cache does not track changes across files.  The Python API in
:mod:`scopa_sim.state` validates input and wraps these.

Layouts
-------
* rules vector (``R_*`` indices), built by :func:`pack_rules`;
* hand state vector (``S_*`` indices): hand masks per seat, table mask, pile
  masks and scope counts per side, last capturer, seat to play, stock position,
  plays made, dealer, done flag and the deck order;
* a play is ``(card, take_mask)``; ``take_mask == 0`` is a lay.

Self-play
---------
:func:`fused_hands` (behind :func:`selfplay_hands`) does not call the state kernels: it
fuses shuffling, dealing, playing and scoring into one loop over locals (see the "fused
self-play" section), with the same random draws and results as the state kernels.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import njit
from numba.core import types
from numba.extending import intrinsic

# --------------------------------------------------------------------------- layouts
R_PLAYERS = 0
R_TEAMS = 1
R_DECK = 2
R_HAND_SIZE = 3
R_TABLE_CARDS = 4
R_KINGS_REDEAL = 5
R_CAPTURE_HAND = 6
R_SUM_FEWEST = 7
R_REMAINDER_DEALER = 8
R_ACE_SWEEP = 9
R_ACE_SWEEP_SCOPA = 10
R_LAST_PLAY_SCOPA = 11
R_PRIMIERA_SEVENS = 12
R_MISSING_ZERO = 13
R_RE_BELLO = 14
R_NAPOLA = 15
R_NAPOLA_FIXED3 = 16
R_ALL_DENARI_WINS = 17
R_TARGET = 18
R_SIDES = 19
R_DECK_MASK = 20
R_TOTAL_PLAYS = 21
R_CAPTURE_FIFTEEN = 22  # 1: capture_mode=fifteen
R_CAPTURE_OPTIONAL = 23  # 1: capture_compulsory=false
R_OPENING_FIFTEEN = 24  # 1: opening_fifteen=true
N_RULES = 25

S_HANDS = 0  # 4 seats
S_TABLE = 4
S_PILES = 5  # 4 sides
S_SCOPE = 9  # 4 sides
S_LAST_CAPTURER = 13  # side, or -1
S_TURN = 14
S_STOCK = 15  # index in the deck order of the next card to deal
S_PLAYS = 16
S_DEALER = 17
S_DONE = 18
S_DECK_SIZE = 19
S_DECK = 20  # 40 slots
S_REACH = 60  # bit s set: some subset of the table has values summing to s (s <= 10)
N_STATE = 61

# score items, in record order
I_SCOPE = 0
I_CARDS = 1
I_DENARI = 2
I_SETTEBELLO = 3
I_PRIMIERA = 4
I_RE_BELLO = 5
I_NAPOLA = 6
I_TOTAL = 7
N_ITEMS = 8

# apply_play result flags
F_CAPTURE = 1
F_SCOPA = 2
F_ACE_SWEEP = 4
F_LAST = 8

POLICY_RANDOM = 0
POLICY_GREEDY = 1
POLICY_EXPERT = 2

#: Capacity of a legal-play buffer: more than the largest possible count.
MAX_PLAYS = 16384
#: Size of the scratch array the capture search needs.
SCRATCH = 128

FULL_DECK = (1 << 40) - 1
DENARI = (1 << 10) - 1
KINGS = (1 << 9) | (1 << 19) | (1 << 29) | (1 << 39)
TWOS = (1 << 1) | (1 << 11) | (1 << 21) | (1 << 31)
SETTEBELLO_BIT = 1 << 6
RE_BELLO_BIT = 1 << 9

#: The four aces; ``ACES << (v - 1)`` is the four cards of capture value v.
ACES = 1 | (1 << 10) | (1 << 20) | (1 << 30)
_PRIM = (16, 12, 13, 14, 15, 18, 21, 10, 10, 10)
#: PRIM_BEST[b]: best primiera value among the ranks set in the 10-bit suit mask b (0: none).
PRIM_BEST = np.zeros(1024, dtype=np.int64)
for _b in range(1, 1024):
    PRIM_BEST[_b] = max(_PRIM[r] for r in range(10) if _b >> r & 1)


#: Capture value (1..10) of each card index.
VALUE = np.array([c % 10 + 1 for c in range(40)], dtype=np.int64)
#: VALUE_MASK[v]: the four cards of capture value v (v = 1..10; index 0 is empty).
VALUE_MASK = np.array([0] + [ACES << (v - 1) for v in range(1, 11)], dtype=np.int64)
SEVENS = ACES << 6
SIXES = ACES << 5

# Column layout of the hand rows of fused_hands, one row per hand stored
# column-major: ``out[C_*, row]`` (see scopa_sim.dataset.kernel_columns).
C_MATCH = 0
C_HAND = 1
C_DEALER = 2
C_FIRST = 3
C_REDEALS = 4
C_PLAYS = 5
C_ITEMS = 6  # 4 sides x N_ITEMS
C_STATS = C_ITEMS + 4 * N_ITEMS  # 4 sides x 4: captured, denari, primiera value, sevens
C_TOTALS = C_STATS + 16  # 4 sides: match totals after the hand
C_WINNER = C_TOTALS + 4
N_ROW_COLS = C_WINNER + 1

#: Stream numbers (the last argument of :func:`derive_seed`): a hand's deck, its plays,
#: and a match's first dealer.
STREAM_DEAL = 0
STREAM_PLAY = 1
STREAM_DEALER = 2
#: A match that has not ended after this many hands is an error.
MAX_HANDS_PER_MATCH = 10000

# What a unit of fused_hands is (see there).
MODE_SELFPLAY = 0
MODE_HANDS = 1
MODE_MATCHES = 2

# Work-array layout of the fused self-play kernel (:func:`selfplay_hands`).
W_HANDS = 0  # 4 seats
W_PILES = 4  # 4 sides
W_SCOPE = 8  # 4 sides
N_WORK = 16


# --------------------------------------------------------------------------- bit intrinsics
_NO_JIT = getattr(numba.config, "DISABLE_JIT", False)
if _NO_JIT:  # pragma: no cover - plain-Python fallbacks for coverage runs

    def popcount(x):
        return int(x).bit_count()

    def ctz(x):
        return (int(x) & -int(x)).bit_length() - 1

else:

    @intrinsic
    def popcount(typingctx, src):
        """Number of set bits (LLVM ctpop)."""
        if not isinstance(src, types.Integer):
            return None

        def codegen(context, builder, signature, args):
            return builder.ctpop(args[0])

        return src(src), codegen

    @intrinsic
    def ctz(typingctx, src):
        """Index of the lowest set bit (LLVM cttz); the argument must be non-zero."""
        if not isinstance(src, types.Integer):
            return None

        def codegen(context, builder, signature, args):
            return builder.cttz(args[0], context.get_constant(types.boolean, True))

        return src(src), codegen


# --------------------------------------------------------------------------- rules
def pack_rules(
    players: int,
    teams: int,
    deck: int,
    hand_size: int,
    table_cards: int,
    kings_redeal: int,
    capture_hand: int,
    sum_fewest: int,
    remainder_dealer: int,
    ace_sweep: int,
    ace_sweep_scopa: int,
    last_play_scopa: int,
    primiera_sevens: int,
    missing_zero: int,
    re_bello: int,
    napola: int,
    napola_fixed3: int,
    all_denari_wins: int,
    target: int,
    capture_fifteen: int = 0,
    capture_optional: int = 0,
    opening_fifteen: int = 0,
) -> np.ndarray:
    """Pack already validated options into the kernels' rules vector."""
    r = np.zeros(N_RULES, dtype=np.int64)
    r[R_PLAYERS] = players
    r[R_TEAMS] = teams
    r[R_DECK] = deck
    r[R_HAND_SIZE] = hand_size
    r[R_TABLE_CARDS] = table_cards
    r[R_KINGS_REDEAL] = kings_redeal
    r[R_CAPTURE_HAND] = capture_hand
    r[R_SUM_FEWEST] = sum_fewest
    r[R_REMAINDER_DEALER] = remainder_dealer
    r[R_ACE_SWEEP] = ace_sweep
    r[R_ACE_SWEEP_SCOPA] = ace_sweep_scopa
    r[R_LAST_PLAY_SCOPA] = last_play_scopa
    r[R_PRIMIERA_SEVENS] = primiera_sevens
    r[R_MISSING_ZERO] = missing_zero
    r[R_RE_BELLO] = re_bello
    r[R_NAPOLA] = napola
    r[R_NAPOLA_FIXED3] = napola_fixed3
    r[R_ALL_DENARI_WINS] = all_denari_wins
    r[R_TARGET] = target
    r[R_SIDES] = 2 if teams else players
    r[R_DECK_MASK] = FULL_DECK if deck == 40 else FULL_DECK & ~TWOS
    r[R_TOTAL_PLAYS] = deck - table_cards
    r[R_CAPTURE_FIFTEEN] = capture_fifteen
    r[R_CAPTURE_OPTIONAL] = capture_optional
    r[R_OPENING_FIFTEEN] = opening_fifteen
    return r


@njit(cache=True)
def side_of(rules, seat):
    """Side of a seat: seat % 2 with teams, else the seat."""
    if rules[R_TEAMS]:
        return seat & 1
    return seat


@njit(cache=True)
def deck_cards(rules, out):
    """Write the deck's cards in canonical order into ``out``; return how many."""
    m = rules[R_DECK_MASK]
    n = 0
    while m:
        out[n] = ctz(m)
        m &= m - 1
        n += 1
    return n


# --------------------------------------------------------------------------- randomness
@njit(cache=True)
def mix64(z):
    """SplitMix64 finaliser: a bijective, well-mixing hash of a uint64."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


#: SplitMix64's increment (the golden ratio in 64 bits): a stream's counter advances by
#: it before each output.
GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def _seed_prefix(seed, a, b):
    """The part of :func:`derive_seed` that does not depend on ``c``."""
    z = mix64(np.uint64(seed) + GOLDEN)
    z = mix64(z ^ np.uint64(a))
    return mix64(z ^ np.uint64(b) ^ np.uint64(0x632BE59BD9B4E019))


@njit(cache=True)
def derive_seed(seed, a, b, c):
    """A stream seed from (run seed, a, b, c); distinct inputs give independent streams."""
    return _seed_finish(_seed_prefix(seed, a, b), c)


@njit(cache=True, inline="always")
def _seed_finish(prefix, c):
    """The rest of :func:`derive_seed` from its ``prefix`` (:func:`_seed_prefix`)."""
    return mix64(prefix ^ np.uint64(c) ^ np.uint64(0x8CB92BA72F3D8DD7))


#: Words of a generator state array (make one with :func:`new_rng`): the SplitMix64
#: counter, and the unused low half of its last output with bit 32 set (0 when there is
#: none), so that each output gives two 32-bit draws (:func:`rand_below`). The deal's
#: shuffle (:func:`shuffle_deal`) uses whole outputs, two draws each, and only the counter.
RNG_WORDS = 2
_LOW32 = np.uint64(0xFFFFFFFF)
_SPARE = np.uint64(1 << 32)


def new_rng(seed: int = 0) -> np.ndarray:
    """A generator state array (see ``RNG_WORDS``) at ``seed`` (0 .. 2**64 - 1), with no
    draw spare. Plain Python: a jitted function typed for a small seed (int64) would
    reject the seeds of 2**63 and more that :func:`derive_seed` gives half the time."""
    return np.array([seed, 0], dtype=np.uint64)


@njit(cache=True)
def reseed(rng, seed):
    """Restart the generator ``rng`` at ``seed`` (dropping any spare draw), in jitted code."""
    rng[0] = np.uint64(seed)
    rng[1] = np.uint64(0)


@njit(cache=True)
def _below(z, n):
    """The first draw of the generator state ``z`` already advanced: uniform in [0, n)."""
    return np.int64(((mix64(z) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, inline="always")
def _draw(z, spare, n):
    """A uniform draw in [0, n) by multiply-shift (bias below n / 2**32) from the
    generator (``z``, ``spare``): the spare low half of the last output when there is
    one, else the high half of the next output, whose low half is kept spare; return
    (z, spare, draw). Half the hashing of one output per draw."""
    if spare:
        x = spare & _LOW32
        spare = np.uint64(0)
    else:
        z += GOLDEN
        y = mix64(z)
        x = y >> np.uint64(32)
        spare = (y & _LOW32) | _SPARE
    return z, spare, np.int64((x * np.uint64(n)) >> np.uint64(32))


@njit(cache=True)
def rand_below(rng, n):
    """Uniform integer in [0, n) from the generator state array ``rng`` (see
    :func:`_draw`). The first draw from ``new_rng(seed)`` is ``_below(seed + golden, n)``,
    as before generator 3; the next ones differ."""
    if rng.shape[0] < RNG_WORDS:
        raise ValueError("rand_below: the generator state needs RNG_WORDS words")
    z, spare, r = _draw(rng[0], rng[1], n)
    rng[0] = z
    rng[1] = spare
    return r


@njit(cache=True, inline="always")
def _fisher_yates(deck, n, z):
    """Fisher-Yates shuffle of ``deck[:n]`` from the generator state ``z``; return the new
    state. Each SplitMix64 output gives two draws, its high and its low 32 bits (each by
    multiply-shift, bias below n / 2**32), which halves the hashing of a deal."""
    i = n - 1
    while i > 0:
        z += GOLDEN
        x = mix64(z)
        j = np.int64(((x >> np.uint64(32)) * np.uint64(i + 1)) >> np.uint64(32))
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t
        i -= 1
        if i > 0:
            j = np.int64(((x & _LOW32) * np.uint64(i + 1)) >> np.uint64(32))
            t = deck[i]
            deck[i] = deck[j]
            deck[j] = t
            i -= 1
    return z


@njit(cache=True)
def _shuffle_deal(rules, z, deck):
    """:func:`shuffle_deal` on the generator state ``z``; return (new state, reshuffles)."""
    redeals = 0
    while True:
        n = deck_cards(rules, deck)
        z = _fisher_yates(deck, n, z)
        if not rules[R_KINGS_REDEAL]:
            return z, redeals
        kings = 0
        for i in range(rules[R_TABLE_CARDS]):
            kings += (KINGS >> deck[i]) & 1
        if kings < 3:
            return z, redeals
        redeals += 1


@njit(cache=True)
def shuffle_deal(rules, rng, deck):
    """Shuffle the deck into ``deck`` until the deal is acceptable (kings redeal); return
    the number of reshuffles."""
    z, redeals = _shuffle_deal(rules, rng[0], deck)
    rng[0] = z
    return redeals


# --------------------------------------------------------------------------- dealing
@njit(cache=True)
def deal_round(state, rules):
    """Deal the next round from the stock, starting with the first player."""
    n = rules[R_PLAYERS]
    left = state[S_DECK_SIZE] - state[S_STOCK]
    k = rules[R_HAND_SIZE]
    if left < n * k:
        k = left // n
    pos = state[S_STOCK]
    seat = state[S_DEALER] + 1
    for _ in range(n):
        if seat >= n:
            seat -= n
        m = np.int64(0)
        for _i in range(k):
            m |= np.int64(1) << state[S_DECK + pos]
            pos += 1
        state[S_HANDS + seat] = m
        seat += 1
    state[S_STOCK] = pos


@njit(cache=True)
def start_hand(state, rules, deck, dealer):
    """Reset ``state`` to the start of a hand dealt from the deck order ``deck``."""
    for i in range(N_STATE):
        state[i] = 0
    size = rules[R_DECK]
    for i in range(size):
        state[S_DECK + i] = deck[i]
    state[S_DECK_SIZE] = size
    t = np.int64(0)
    for i in range(rules[R_TABLE_CARDS]):
        t |= np.int64(1) << deck[i]
    state[S_TABLE] = t
    state[S_REACH] = table_reach(t)
    state[S_STOCK] = rules[R_TABLE_CARDS]
    state[S_DEALER] = dealer
    state[S_LAST_CAPTURER] = -1
    turn = dealer + 1
    state[S_TURN] = 0 if turn >= rules[R_PLAYERS] else turn
    deal_round(state, rules)


# --------------------------------------------------------------------------- legal plays
@njit(cache=True)
def sum_captures(table, v, fewest, out_take, n, scratch):
    """Append to ``out_take[n:]`` every set of >= 2 table cards whose values add to ``v``
    (only the smallest sets with ``fewest``); return the new count.

    The sets come in depth-first order over the candidates sorted by (value, card).
    ``scratch`` holds at least ``SCRATCH`` int64 (candidates, their values, the stack).
    """
    k = 0
    for val in range(1, v):  # ascending values, so the search can prune
        m = table & VALUE_MASK[val]
        while m:
            scratch[k] = ctz(m)
            scratch[40 + k] = val
            m &= m - 1
            k += 1
    start = n
    best = 99
    depth = 0
    i = 0
    s = 0
    cur = np.int64(0)
    while True:
        if i < k and s + scratch[40 + i] <= v:
            scratch[80 + depth] = i
            depth += 1
            s += scratch[40 + i]
            cur |= np.int64(1) << scratch[i]
            if s == v:
                if depth >= 2 and (not fewest or depth <= best):
                    if fewest and depth < best:
                        best = depth
                        n = start
                    out_take[n] = cur
                    n += 1
                depth -= 1
                j = scratch[80 + depth]
                s -= scratch[40 + j]
                cur ^= np.int64(1) << scratch[j]
                i = j + 1
            else:
                i += 1
        else:
            if depth == 0:
                break
            depth -= 1
            j = scratch[80 + depth]
            s -= scratch[40 + j]
            cur ^= np.int64(1) << scratch[j]
            i = j + 1
    return n


@njit(cache=True)
def table_reach(table):
    """Subset sums (up to 10) of the table's values as a bitset; bit 0 is the empty set."""
    reach = np.int64(1)
    m = table
    while m:
        reach |= reach << VALUE[ctz(m)]
        m &= m - 1
    return reach & 2047


@njit(cache=True)
def legal_plays(state, rules, out_card, out_take, scratch):
    """Write every distinct legal play of the seat to play; return their number.

    Per card: the ace sweep, else one play per table card of equal value, else
    (only when the table's subset-sum bitset says it is possible) the sum
    captures, else a lay; then ``capture_rule=hand`` drops lays when any card
    can capture.
    """
    hand = state[S_HANDS + state[S_TURN]]
    table = state[S_TABLE]
    reach = state[S_REACH]
    ace_sweep = rules[R_ACE_SWEEP] != 0 and table != 0 and (table & ACES) == 0
    n = 0
    lays = 0
    m = hand
    while m:
        c = ctz(m)
        m &= m - 1
        v = VALUE[c]
        same = table & VALUE_MASK[v]
        if v == 1 and ace_sweep:
            out_card[n] = c
            out_take[n] = table
            n += 1
        elif same:
            while same:
                out_card[n] = c
                out_take[n] = same & -same
                same &= same - 1
                n += 1
        elif (reach >> v) & 1:
            n0 = n
            n = sum_captures(table, v, rules[R_SUM_FEWEST], out_take, n, scratch)
            for i in range(n0, n):
                out_card[i] = c
        else:
            out_card[n] = c
            out_take[n] = 0
            n += 1
            lays += 1
    if lays and rules[R_CAPTURE_HAND] and lays < n:
        k = 0
        for i in range(n):
            if out_take[i] != 0:
                out_card[k] = out_card[i]
                out_take[k] = out_take[i]
                k += 1
        n = k
    return n


@njit(cache=True)
def is_legal(state, rules, card, take, buf_card, buf_take, scratch):
    """Whether ``(card, take)`` is a legal play now."""
    n = legal_plays(state, rules, buf_card, buf_take, scratch)
    found = False
    for i in range(n):
        if buf_card[i] == card and buf_take[i] == take:
            found = True
            break
    return found


# --------------------------------------------------------------------------- applying
@njit(cache=True)
def apply_play(state, rules, card, take):
    """Play ``card`` taking ``take`` (assumed legal); deal and close the hand as needed.

    Returns ``F_*`` flags describing what happened.
    """
    seat = state[S_TURN]
    side = side_of(rules, seat)
    bit = np.int64(1) << card
    table = state[S_TABLE]
    state[S_HANDS + seat] &= ~bit
    state[S_PLAYS] += 1
    last = state[S_PLAYS] == rules[R_TOTAL_PLAYS]
    flags = 0
    if last:
        flags |= F_LAST
    if take:
        flags |= F_CAPTURE
        left = table & ~take
        state[S_TABLE] = left
        state[S_REACH] = table_reach(left)
        state[S_PILES + side] |= take | bit
        state[S_LAST_CAPTURER] = side
        ace_sweep = (
            rules[R_ACE_SWEEP] != 0 and VALUE[card] == 1 and take == table and not (table & ACES)
        )
        if ace_sweep:
            flags |= F_ACE_SWEEP
        if (
            left == 0
            and (rules[R_LAST_PLAY_SCOPA] or not last)
            and (rules[R_ACE_SWEEP_SCOPA] or not ace_sweep)
        ):
            state[S_SCOPE + side] += 1
            flags |= F_SCOPA
    else:
        state[S_TABLE] = table | bit
        reach = state[S_REACH]
        state[S_REACH] = (reach | (reach << VALUE[card])) & 2047
    n = rules[R_PLAYERS]
    turn = seat + 1
    state[S_TURN] = 0 if turn >= n else turn
    empty = True
    for s in range(n):
        if state[S_HANDS + s]:
            empty = False
            break
    if empty:
        next_round(state, rules)
    return flags


@njit(cache=True)
def next_round(state, rules):
    """Once every hand is empty: deal the next round, or end the hand (the table's
    remainder to the last capturer's side, or to the dealer's, never a scopa)."""
    if state[S_STOCK] < state[S_DECK_SIZE]:
        deal_round(state, rules)
        return
    rest = state[S_TABLE]
    if rest:
        if rules[R_REMAINDER_DEALER]:
            state[S_PILES + side_of(rules, state[S_DEALER])] |= rest
        elif state[S_LAST_CAPTURER] >= 0:
            state[S_PILES + state[S_LAST_CAPTURER]] |= rest
    state[S_TABLE] = 0
    state[S_REACH] = 1
    state[S_DONE] = 1


# --------------------------------------------------------------------------- scoring
@njit(cache=True)
def primiera_classic(pile, missing_zero):
    """Classic primiera of a pile; -1 when a suit is missing and it cannot compete."""
    total = 0
    for s in range(4):
        best = PRIM_BEST[(pile >> (10 * s)) & 1023]
        if best == 0 and not missing_zero:
            return -1
        total += best
    return total


@njit(cache=True)
def _score_into(rules, piles, po, scope, so, out):
    """:func:`score_piles` on ``piles[po:po + sides]`` and ``scope[so:so + sides]``.

    Allocation-free: ``out[:, I_TOTAL]`` serves as scratch until the totals are written.
    """
    ns = rules[R_SIDES]
    for s in range(ns):
        for i in range(N_ITEMS):
            out[s, i] = 0
        out[s, I_SCOPE] = scope[so + s]
    # cards, then denari: strict majority
    for item in range(I_CARDS, I_DENARI + 1):
        mask = FULL_DECK if item == I_CARDS else DENARI
        top = popcount(piles[po] & mask)
        best = 0
        tie = False
        for s in range(1, ns):
            x = popcount(piles[po + s] & mask)
            if x > top:
                top = x
                best = s
                tie = False
            elif x == top:
                tie = True
        if not tie:
            out[best, item] = 1
    for s in range(ns):
        p = piles[po + s]
        if p & SETTEBELLO_BIT:
            out[s, I_SETTEBELLO] = 1
        if rules[R_RE_BELLO] and p & RE_BELLO_BIT:
            out[s, I_RE_BELLO] = 1
        if rules[R_NAPOLA] and (p & 7) == 7:
            if rules[R_NAPOLA_FIXED3]:
                out[s, I_NAPOLA] = 3
            else:
                out[s, I_NAPOLA] = ctz(~(p & DENARI))
    if rules[R_PRIMIERA_SEVENS]:
        alive = (1 << ns) - 1
        for k in range(7):
            rm = ACES << (6 - k)  # sevens, then sixes, ... aces
            top = -1
            for s in range(ns):
                if (alive >> s) & 1:
                    c = popcount(piles[po + s] & rm)
                    out[s, I_TOTAL] = c
                    if c > top:
                        top = c
            count = 0
            w = -1
            for s in range(ns):
                if (alive >> s) & 1:
                    if out[s, I_TOTAL] != top:
                        alive &= ~(1 << s)
                    else:
                        count += 1
                        w = s
            if count == 1:
                out[w, I_PRIMIERA] = 1
                break
    else:
        mz = rules[R_MISSING_ZERO]
        top = primiera_classic(piles[po], mz)
        best = 0
        tie = False
        for s in range(1, ns):
            x = primiera_classic(piles[po + s], mz)
            if x > top:
                top = x
                best = s
                tie = False
            elif x == top:
                tie = True
        if not tie and top >= 0:
            out[best, I_PRIMIERA] = 1
    for s in range(ns):
        t = 0
        for i in range(I_TOTAL):
            t += out[s, i]
        out[s, I_TOTAL] = t


@njit(cache=True)
def score_piles(rules, piles, scope, out):
    """Score a finished hand: ``out[side, item]`` for the ``I_*`` items."""
    _score_into(rules, piles, 0, scope, 0, out)


@njit(cache=True)
def score_state(state, rules, out):
    """Score the hand held in ``state`` (normally finished)."""
    _score_into(rules, state, S_PILES, state, S_SCOPE, out)


# --------------------------------------------------------------------------- policies
@njit(cache=True, inline="always")
def _greedy_score(table, table_sum, not_last, last_play_scopa, card, take):
    """:func:`greedy_value` from the table, the sum of its values and whether the play is
    not the last of the hand."""
    bit = np.int64(1) << card
    if take:
        got = take | bit
        score = (
            2 * popcount(got)
            + 3 * popcount(got & DENARI)
            + 5 * popcount(got & SEVENS)
            + 2 * popcount(got & SIXES)
            + popcount(got & ACES)
        )
        if got & SETTEBELLO_BIT:
            score += 20
        left = table & ~take
        if left == 0:
            if not_last or last_play_scopa:
                score += 40
            return score
        # A legal capture takes cards worth the played card's value, or the whole table.
        left_sum = table_sum - VALUE[card]
    else:
        score = 0
        if bit & SEVENS:
            score -= 3
        if bit & SETTEBELLO_BIT:
            score -= 6
        if bit & DENARI:
            score -= 1
        left = table | bit
        left_sum = table_sum + VALUE[card]
    if not_last:
        if left_sum <= 10:
            score -= 30
        if left & SETTEBELLO_BIT:
            score -= 8
    return score


@njit(cache=True)
def greedy_value(state, rules, card, take):
    """Heuristic worth of a play for the side making it (higher is better).

    Values (in half points): cards taken, denari, the settebello, primiera cards
    (sevens, sixes, aces), a scopa; minus the risk of leaving a table the next
    player could sweep (value sum <= 10) and of exposing sevens or the settebello.
    """
    bit = np.int64(1) << card
    table = state[S_TABLE]
    score = 0
    if take:
        got = take | bit
        score += 2 * popcount(got)
        score += 3 * popcount(got & DENARI)
        if got & SETTEBELLO_BIT:
            score += 20
        score += 5 * popcount(got & (ACES << 6)) + 2 * popcount(got & (ACES << 5))
        score += popcount(got & ACES)
        left = table & ~take
        if left == 0 and (state[S_PLAYS] + 1 < rules[R_TOTAL_PLAYS] or rules[R_LAST_PLAY_SCOPA]):
            score += 40
    else:
        left = table | bit
        score -= 3 * ((bit & (ACES << 6)) != 0) + 6 * ((bit & SETTEBELLO_BIT) != 0)
        score -= (bit & DENARI) != 0
    if left and state[S_PLAYS] + 1 < rules[R_TOTAL_PLAYS]:
        total = 0
        m = left
        while m:
            total += ctz(m) % 10 + 1
            m &= m - 1
        if total <= 10:
            score -= 30
        if left & SETTEBELLO_BIT:
            score -= 8
    return score


@njit(cache=True)
def choose_play(state, rules, policy, rng, buf_card, buf_take, n):
    """Index of the play chosen by ``policy`` among the ``n`` legal plays in the buffers."""
    if policy == POLICY_EXPERT and n > 1:
        scratch = np.empty(EXPERT_SCRATCH)
        best_x = -(1 << 62)
        count = 0
        pick = 0
        for i in range(n):
            x = _fixed(expert_value(state, rules, buf_card[i], buf_take[i], scratch))
            if x > best_x:
                best_x = x
                count = 1
                pick = i
            elif x == best_x:
                count += 1
                if rand_below(rng, count) == 0:  # reservoir: uniform among the ties
                    pick = i
        return pick
    if policy == POLICY_GREEDY and n > 1:
        best = -(1 << 40)
        count = 0
        pick = 0
        for i in range(n):
            v = greedy_value(state, rules, buf_card[i], buf_take[i])
            if v > best:
                best = v
                count = 1
                pick = i
            elif v == best:
                count += 1
                if rand_below(rng, count) == 0:  # reservoir: uniform among the ties
                    pick = i
        return pick
    return rand_below(rng, n)


# --------------------------------------------------------------------------- playouts
@njit(cache=True)
def play_out(state, rules, policies, rng, buf_card, buf_take, scratch, log_card, log_take):
    """Play the hand in ``state`` to its end with one policy code per seat.

    Each play is written to ``log_card``/``log_take`` at its index; returns the
    number of plays made from the starting state.
    """
    made = 0
    while not state[S_DONE]:
        n = legal_plays(state, rules, buf_card, buf_take, scratch)
        i = choose_play(state, rules, policies[state[S_TURN]], rng, buf_card, buf_take, n)
        k = state[S_PLAYS]
        log_card[k] = buf_card[i]
        log_take[k] = buf_take[i]
        apply_play(state, rules, buf_card[i], buf_take[i])
        made += 1
    return made


# --------------------------------------------------------------------------- fused self-play
# The fused kernel keeps, for the table, the number of its subsets with each value sum
# s = 0..10 packed in one int64, 5 bits per sum ("lanes"): the coefficients of the
# polynomial prod(1 + x**value) over the table cards, evaluated at x = 2**5.  A card
# joining the table multiplies it by (1 + x**v), a card leaving by the inverse series
# 1 - x**v + x**2v - ... (mod x**11); both are one wrapping integer multiply and a mask,
# exact as long as every true count fits its lane.  They do in any position reached by
# play from a deal: only the (at most 4) cards dealt to the table can repeat a value, a
# laid card's value is neither on the table nor a subset sum of it (else it would have
# to capture), and an exhaustive search of the tables so reachable (allowing any card to
# leave at any time) gives at most 26 subsets for any sum.  The count of sum captures of
# a card of value v with no equal card on the table is then simply lane v.
LANE_BITS = 5
LANES = (1 << (11 * LANE_BITS)) - 1


def _wrap64(x: int) -> int:
    x %= 1 << 64
    return x - (1 << 64) if x >= 1 << 63 else x


#: GROW[v]: multiplier of the packed subset counts for a card of value v joining the table.
GROW = np.array([0] + [1 + (1 << (LANE_BITS * v)) for v in range(1, 11)], dtype=np.int64)
#: SHRINK[v]: multiplier for a card of value v leaving the table (inverse of GROW[v]).
SHRINK = np.array(
    [0]
    + [
        _wrap64(sum((-1) ** k << (LANE_BITS * v * k) for k in range(10 // v + 1)))
        for v in range(1, 11)
    ],
    dtype=np.int64,
)
#: GROW then SHRINK by card: ``GROW_SHRINK[card + 64 * leaving]`` (one load, not two).
GROW_SHRINK = np.array(
    [GROW[c % 10 + 1] if c < 40 else 0 for c in range(64)]
    + [SHRINK[c % 10 + 1] if c < 40 else 0 for c in range(64)],
    dtype=np.int64,
)
#: SAME_MASK[card]: the cards of the same value.
SAME_MASK = np.array([ACES << (c % 10) for c in range(40)], dtype=np.int64)
#: LANE_SHIFT[card]: shift of its value's lane in the packed counts.
LANE_SHIFT = np.array([LANE_BITS * (c % 10 + 1) for c in range(40)], dtype=np.int64)
#: Bit of each card in a table mask ordered by (value, card): bit 4 * rank + suit.
BY_VALUE_BIT = np.array([1 << (4 * (c % 10) + c // 10) for c in range(40)], dtype=np.int64)
#: LOWER_VALUES[v]: the cards of value below v.
LOWER_VALUES = np.array(
    [sum(ACES << (u - 1) for u in range(1, v)) for v in range(11)], dtype=np.int64
)
#: The card of each bit of such a mask.
BY_VALUE_CARD = np.array([10 * (i % 4) + i // 4 for i in range(40)], dtype=np.int64)


@njit(cache=True, inline="always")
def _value_sum(cards):
    """Sum of the capture values of a card mask (branch-free)."""
    total = 0
    for v in range(1, 11):
        total += v * popcount(cards & VALUE_MASK[v])
    return total


@njit(cache=True)
def _sum_take(table, packed, v, r):
    """The ``r``-th (from 0) set of >= 2 table cards with values adding to ``v``, in the
    order of :func:`sum_captures`, from the table and its packed subset counts (no table
    card may have value ``v``).

    The order is lexicographic over candidates sorted by (value, card); the sets that go
    on with a candidate are counted from the packed counts of the candidates after it.
    """
    by_value = np.int64(0)
    m = table & LOWER_VALUES[v]
    while m:
        by_value |= BY_VALUE_BIT[ctz(m)]
        m &= m - 1
    cand = by_value
    t = v
    take = np.int64(0)
    while cand:
        i = ctz(cand)
        cand &= cand - 1
        u = (i >> 2) + 1
        packed = (packed * SHRINK[u]) & LANES  # the candidates after this one
        with_it = 1 if u == t else (packed >> (LANE_BITS * (t - u))) & 31
        if r < with_it:
            take |= np.int64(1) << BY_VALUE_CARD[i]
            t -= u
            if t == 0:
                break
        else:
            r -= with_it
    return take


@njit(cache=True)
def _fewest_sums(table, packed, v):
    """Number of smallest sum captures of a card of value ``v`` and their size."""
    n = (packed >> (LANE_BITS * v)) & 31
    best = 99
    count = 0
    for r in range(n):
        size = popcount(_sum_take(table, packed, v, r))
        if size < best:
            best = size
            count = 0
        if size == best:
            count += 1
    return count, best


@njit(cache=True)
def _fewest_take(table, packed, v, r, size):
    """The ``r``-th (from 0) of the sum captures of ``size`` cards (see :func:`_sum_take`)."""
    i = 0
    while True:
        t = _sum_take(table, packed, v, i)
        if popcount(t) == size:
            if r == 0:
                return t
            r -= 1
        i += 1


@njit(cache=True, inline="always")
def _card_captures(card, table, packed, sweep_aces):
    """Number of distinct captures of ``card`` (0: it can only be laid) with
    ``sum_capture=any``, from the table, its packed subset counts and ``sweep_aces``
    (``ACES`` when an ace would sweep the table, else 0); branch-free."""
    same = table & SAME_MASK[card]
    sums = (packed >> LANE_SHIFT[card]) & 31
    return popcount(same) + sums * (same == 0) + ((sweep_aces >> card) & 1)


@njit(cache=True, inline="always")
def _is_capture(card, table, packed, sweep_aces):
    """Whether ``card`` can capture (see :func:`_card_captures`)."""
    return (
        ((table & SAME_MASK[card]) != 0)
        | (((packed >> LANE_SHIFT[card]) & 31) != 0)
        | (((sweep_aces >> card) & 1) != 0)
    )


@njit(cache=True)
def _card_captures_fewest(card, table, packed, sweep_aces):
    """:func:`_card_captures` with ``sum_capture=fewest``."""
    v = VALUE[card]
    if (sweep_aces >> card) & 1:
        return 1
    same = table & VALUE_MASK[v]
    if same:
        return popcount(same)
    if (packed >> (LANE_BITS * v)) & 31:
        return _fewest_sums(table, packed, v)[0]
    return 0


# --------------------------------------------------------------------------- expert policy
# ``expert`` scores each legal play by the change it makes to a static evaluation of the
# piles (in expected hand points), minus the expected best reply of the next seat, whose
# hidden cards are a uniform draw from the cards this seat has not seen.  Both parts are
# exact in what they count: the reply is the expectation of the maximum over the next
# seat's hand (a hypergeometric draw), computed from the sorted reply values of every
# unseen card.  The evaluation prices each score item still open by a binomial model of
# the cards not yet captured (each goes to either side with probability 1/2): the card
# and denari majorities, primiera by sevens then sixes; settebello, re bello and scope
# count one point each.  Only the seat's information set is read: its hand, the table,
# the piles, and the number of cards in the next seat's hand.


def _binomial_margin(rem_max: int, d_max: int) -> np.ndarray:
    """``out[d + d_max, rem]``: P(win) - P(lose) of a strict majority when a side leads by
    ``d`` and each of ``rem`` remaining cards goes to either side with probability 1/2."""
    out = np.zeros((2 * d_max + 1, rem_max + 1))
    for rem in range(rem_max + 1):
        p = np.array([math.comb(rem, x) for x in range(rem + 1)], dtype=float) / 2.0**rem
        for d in range(-d_max, d_max + 1):
            margin = d + 2 * np.arange(rem + 1) - rem  # final lead for X cards won
            out[d + d_max, rem] = p[margin > 0].sum() - p[margin < 0].sum()
    return out


def _primiera_margin() -> np.ndarray:
    """``out[d7 + 4, r7, d6 + 4, r6]``: P(win) - P(lose) of primiera decided by sevens,
    then sixes, with ``d`` the lead and ``r`` the cards of that rank not yet captured."""
    out = np.zeros((9, 5, 9, 5))

    def split(d: int, r: int) -> tuple[float, float, float]:
        p = [math.comb(r, x) / 2.0**r for x in range(r + 1)]
        win = sum(q for x, q in enumerate(p) if d + 2 * x - r > 0)
        tie = sum(q for x, q in enumerate(p) if d + 2 * x - r == 0)
        return win, tie, 1.0 - win - tie

    for d7 in range(-4, 5):
        for r7 in range(5):
            w7, t7, l7 = split(d7, r7)
            for d6 in range(-4, 5):
                for r6 in range(5):
                    w6, _, l6 = split(d6, r6)
                    out[d7 + 4, r7, d6 + 4, r6] = w7 - l7 + t7 * (w6 - l6)
    return out


#: Margin of the card majority, by lead (+40) and cards not yet captured.
EXPERT_CARDS = _binomial_margin(40, 40)
#: Margin of the denari majority, by lead (+10) and denari not yet captured.
EXPERT_DENARI = _binomial_margin(10, 10)
#: Margin of primiera, by the lead in sevens and in sixes and those not yet captured.
EXPERT_PRIMIERA = _primiera_margin()
#: BINOM[n, k] = C(n, k) as a float, for the hypergeometric draw of a hand.
BINOM = np.array([[math.comb(n, k) for k in range(41)] for n in range(41)], dtype=np.float64)
#: Size of the ``scratch`` array the expert's play value needs.
EXPERT_SCRATCH = 48

# Expert option bits (``xflags``), from the rules vector once per hand.
X_LPS = 1
X_ACE_RULE = 2
X_ACE_SCOPA = 4
X_FEWEST = 8
X_RE_BELLO = 16
X_NAPOLA = 32
X_NAPOLA_FIXED3 = 64
X_REMAINDER_DEALER = 128

# Relative sides (``lc``, ``dealer_rel``): nobody, this seat's side, the next seat's, another.
REL_NONE = 0
REL_ME = 1
REL_NEXT = 2
REL_OTHER = 3


def expert_flags(rules) -> int:
    """The expert's option bits for a rules vector (also used by the kernels)."""
    return _expert_flags(rules)


@njit(cache=True)
def _expert_flags(rules):
    x = 0
    if rules[R_LAST_PLAY_SCOPA]:
        x |= X_LPS
    if rules[R_ACE_SWEEP]:
        x |= X_ACE_RULE
    if rules[R_ACE_SWEEP_SCOPA]:
        x |= X_ACE_SCOPA
    if rules[R_SUM_FEWEST]:
        x |= X_FEWEST
    if rules[R_RE_BELLO]:
        x |= X_RE_BELLO
    if rules[R_NAPOLA]:
        x |= X_NAPOLA
    if rules[R_NAPOLA_FIXED3]:
        x |= X_NAPOLA_FIXED3
    if rules[R_REMAINDER_DEALER]:
        x |= X_REMAINDER_DEALER
    return x


@njit(cache=True, inline="always")
def _napola_worth(a, b, fixed3):
    """Expected napola of pile ``a`` against pile ``b``: its score once it holds A, 2, 3
    of denari, a share of 3 points while ``b`` holds none of them, else 0."""
    if (a & 7) == 7:
        return 3.0 if fixed3 else float(ctz(~(a & DENARI)))
    if b & 7:
        return 0.0
    return 0.5 * popcount(a & 7)


@njit(cache=True)
def expert_eval(pm, po, others, ndeck, xflags):
    """Static worth of the piles in expected hand points for the side holding ``pm``
    against the side holding ``po`` (``others``: the piles of any further sides)."""
    gone = pm | po | others
    rem = ndeck - popcount(gone)
    v = EXPERT_CARDS[popcount(pm) - popcount(po) + 40, rem]
    rd = 10 - popcount(gone & DENARI)
    v += EXPERT_DENARI[popcount(pm & DENARI) - popcount(po & DENARI) + 10, rd]
    d7 = popcount(pm & SEVENS) - popcount(po & SEVENS) + 4
    d6 = popcount(pm & SIXES) - popcount(po & SIXES) + 4
    v += EXPERT_PRIMIERA[d7, 4 - popcount(gone & SEVENS), d6, 4 - popcount(gone & SIXES)]
    v += ((pm >> 6) & 1) - ((po >> 6) & 1)  # settebello
    if xflags & X_RE_BELLO:
        v += ((pm >> 9) & 1) - ((po >> 9) & 1)
    if xflags & X_NAPOLA:
        fixed3 = (xflags & X_NAPOLA_FIXED3) != 0
        v += _napola_worth(pm, po | others, fixed3) - _napola_worth(po, pm | others, fixed3)
    return v


@njit(cache=True, inline="always")
def _packed_counts(table):
    """The table's packed subset counts (see ``GROW``) computed from scratch."""
    packed = np.int64(1)
    m = table
    while m:
        packed = (packed * GROW[VALUE[ctz(m)]]) & LANES
        m &= m - 1
    return packed


@njit(cache=True)
def _follow_value(h2, tbl, packed, pm, po, others, ndeck, xflags, last, e0):
    """This side's best gain from one card of its known hand ``h2`` played on ``tbl``
    (whose packed subset counts are ``packed``; no further reply), ``e0`` being the
    evaluation of the piles ``pm``/``po`` before it; ``last``: that play is the hand's
    last, so a capture also takes the table's remainder."""
    if h2 == 0:
        return 0.0
    lps = (xflags & X_LPS) != 0
    best = 0.0
    m = h2
    while m:
        c = ctz(m)
        m &= m - 1
        v = VALUE[c]
        cbit = np.int64(1) << c
        if (xflags & X_ACE_RULE) and v == 1 and tbl != 0 and (tbl & ACES) == 0:
            r = expert_eval(pm | tbl | cbit, po, others, ndeck, xflags) - e0
            if (lps or not last) and (xflags & X_ACE_SCOPA):
                r += 1.0
            if r > best:
                best = r
            continue
        same = tbl & VALUE_MASK[v]
        n = popcount(same) if same else (packed >> (LANE_BITS * v)) & 31
        fsize = 0
        if n and not same and (xflags & X_FEWEST):
            fsize = _fewest_sums(tbl, packed, v)[1]
        for j in range(n):
            if same:
                t = same & -same
                same &= same - 1
            else:
                t = _sum_take(tbl, packed, v, j)
                if fsize and popcount(t) != fsize:
                    continue
            rest = tbl & ~t
            got = t | cbit
            if last and not (xflags & X_REMAINDER_DEALER):
                got |= rest
            r = expert_eval(pm | got, po, others, ndeck, xflags) - e0
            if rest == 0 and (lps or not last):
                r += 1.0
            if r > best:
                best = r
    return best


@njit(cache=True)
def _reply_value(
    c, left, packed, pm, po, others, ndeck, xflags, final, lc, dealer_rel, e0, h2, follow,
):  # fmt: skip
    """The next seat's best gain (in its side's expected points, i.e. this side's loss)
    when it holds card ``c`` and the table is ``left``; ``final``: its play is the hand's
    last, so the table's remainder goes to the last capturer (``lc``) or the dealer."""
    v = VALUE[c]
    cbit = np.int64(1) << c
    lps = (xflags & X_LPS) != 0
    if (xflags & X_ACE_RULE) and v == 1 and left != 0 and (left & ACES) == 0:
        got = left | cbit
        scopa = (lps or not final) and (xflags & X_ACE_SCOPA) != 0
        return e0 - expert_eval(pm, po | got, others, ndeck, xflags) + (1.0 if scopa else 0.0)
    same = left & VALUE_MASK[v]
    remainder_dealer = (xflags & X_REMAINDER_DEALER) != 0
    if same or (packed >> (LANE_BITS * v)) & 31:
        n = popcount(same) if same else (packed >> (LANE_BITS * v)) & 31
        fsize = 0
        if not same and (xflags & X_FEWEST):
            fsize = _fewest_sums(left, packed, v)[1]
        best = -1e9
        for j in range(n):
            if same:
                t = same & -same
                same &= same - 1
            else:
                t = _sum_take(left, packed, v, j)
                if fsize and popcount(t) != fsize:
                    continue
            rest = left & ~t
            got = t | cbit
            mine = pm
            scopa = rest == 0 and (lps or not final)
            if final and rest:
                if remainder_dealer:
                    if dealer_rel == REL_NEXT:
                        got |= rest
                    elif dealer_rel == REL_ME:
                        mine = pm | rest
                else:
                    got |= rest
            e1 = expert_eval(mine, po | got, others, ndeck, xflags)
            r = e0 - e1 + (1.0 if scopa else 0.0)
            if follow and not final:
                if rest == 0:
                    p2 = np.int64(1)
                else:
                    p2 = packed
                    m = t
                    while m:
                        p2 = (p2 * SHRINK[VALUE[ctz(m)]]) & LANES
                        m &= m - 1
                r -= _follow_value(
                    h2, rest, p2, pm, po | got, others, ndeck, xflags, follow == 2, e1
                )
            if r > best:
                best = r
        return best
    if not final:
        if follow:
            return -_follow_value(
                h2, left | cbit, (packed * GROW[v]) & LANES, pm, po, others, ndeck, xflags,
                follow == 2, e0,
            )  # fmt: skip
        return 0.0
    rest = left | cbit  # a lay on the last play: the table goes to the remainder's owner
    owner = dealer_rel if remainder_dealer else lc
    if owner == REL_NEXT:
        return e0 - expert_eval(pm, po | rest, others, ndeck, xflags)
    if owner == REL_ME:
        return e0 - expert_eval(pm | rest, po, others, ndeck, xflags)
    return 0.0


@njit(cache=True)
def expert_play_value(
    card, take, hand, table, pm, po, others, unseen, kn, plays, total, lc, dealer_rel,
    ndeck, xflags, two_seats, scratch,
):  # fmt: skip
    """Worth of playing ``card`` taking ``take`` for the side to play, in expected hand
    points: the evaluation's change plus any scopa, minus the expected best reply of the
    next seat holding ``kn`` cards drawn from ``unseen`` (none on the hand's last play).

    ``pm``/``po``/``others``: the piles of this side, of the next seat's side and of any
    further sides; ``plays``: plays made so far of ``total``; ``lc``/``dealer_rel``: the
    last capturer's and the dealer's side relative to this one (``REL_*``).
    """
    bit = np.int64(1) << card
    lps = (xflags & X_LPS) != 0
    e_before = expert_eval(pm, po, others, ndeck, xflags)
    last = plays + 1 == total
    if take:
        left = table & ~take
        pm = pm | take | bit
        lc = REL_ME
        value = expert_eval(pm, po, others, ndeck, xflags) - e_before
        if left == 0 and (lps or not last):
            sweep = (xflags & X_ACE_RULE) != 0 and VALUE[card] == 1 and (table & ACES) == 0
            if (xflags & X_ACE_SCOPA) or not sweep:
                value += 1.0
    else:
        left = table | bit
        value = 0.0
    e0 = expert_eval(pm, po, others, ndeck, xflags)
    if last:  # the remainder goes to its owner, and nobody replies
        if left:
            owner = dealer_rel if xflags & X_REMAINDER_DEALER else lc
            if owner == REL_ME:
                value += expert_eval(pm | left, po, others, ndeck, xflags) - e0
            elif owner == REL_NEXT:
                value += expert_eval(pm, po | left, others, ndeck, xflags) - e0
        return value
    if kn <= 0:
        return value
    final = plays + 2 == total
    packed = _packed_counts(left)
    # With two players this seat plays again right after the reply, with the rest of
    # its hand (known): 1 = a follow-up, 2 = one that is the hand's last play.
    h2 = hand & ~bit
    follow = 0
    if two_seats and h2:
        follow = 2 if plays + 3 == total else 1
    # reply values by unseen card class (a value's denaro apart), sorted descending
    k = 0
    u = 0
    for v in range(1, 11):
        cards = unseen & VALUE_MASK[v]
        if not cards:
            continue
        plain = cards & ~DENARI
        den = cards & DENARI
        for part in (plain, den):
            if part:
                r = _reply_value(
                    ctz(part), left, packed, pm, po, others, ndeck, xflags, final, lc,
                    dealer_rel, e0, h2, follow,
                )  # fmt: skip
                cnt = popcount(part)
                u += cnt
                i = k
                while i > 0 and scratch[i - 1] < r:  # insertion: keep descending order
                    scratch[i] = scratch[i - 1]
                    scratch[24 + i] = scratch[24 + i - 1]
                    i -= 1
                scratch[i] = r
                scratch[24 + i] = cnt
                k += 1
    if kn > u:
        kn = u
    # E[max] over a uniform kn-subset: class i holds the best card drawn with probability
    # (C(u - above, kn) - C(u - above - n_i, kn)) / C(u, kn).
    expect = 0.0
    above = 0
    for i in range(k):
        cnt = int(scratch[24 + i])
        expect += scratch[i] * (BINOM[u - above, kn] - BINOM[u - above - cnt, kn])
        above += cnt
    return value - expect / BINOM[u, kn]


#: The expert's play values are compared in fixed point (units of 2**-24 points), so
#: that the playout loops share one integer comparison with greedy's scores.
EXPERT_FIX = float(1 << 24)


@njit(cache=True, inline="always")
def _fixed(x):
    """An expert play value in fixed point (truncated toward zero)."""
    return np.int64(x * EXPERT_FIX)


@njit(cache=True)
def expert_value(state, rules, card, take, scratch):
    """:func:`expert_play_value` of a play for the seat to play in ``state``, read from
    its information set only (other hands by their size)."""
    players = rules[R_PLAYERS]
    seat = state[S_TURN]
    side = side_of(rules, seat)
    nxt = seat + 1 if seat + 1 < players else 0
    opp = side_of(rules, nxt)
    pm = state[S_PILES + side]
    po = state[S_PILES + opp]
    others = np.int64(0)
    for s in range(rules[R_SIDES]):
        if s != side and s != opp:
            others |= state[S_PILES + s]
    hand = state[S_HANDS + seat]
    table = state[S_TABLE]
    unseen = rules[R_DECK_MASK] & ~(hand | table | pm | po | others)
    kn = popcount(state[S_HANDS + nxt])
    if kn == 0 and state[S_STOCK] < state[S_DECK_SIZE]:
        left = state[S_DECK_SIZE] - state[S_STOCK]
        kn = rules[R_HAND_SIZE]
        if left < players * kn:
            kn = left // players
    return expert_play_value(
        card, take, hand, table, pm, po, others, unseen, kn, state[S_PLAYS],
        rules[R_TOTAL_PLAYS], _rel_side(state[S_LAST_CAPTURER], side, opp),
        _rel_side(side_of(rules, state[S_DEALER]), side, opp),
        rules[R_DECK], _expert_flags(rules), players == 2, scratch,
    )  # fmt: skip


@njit(cache=True, inline="always")
def _rel_side(s, me, opp):
    """A side relative to this seat's (``REL_*``); -1 is nobody."""
    if s < 0:
        return REL_NONE
    if s == me:
        return REL_ME
    if s == opp:
        return REL_NEXT
    return REL_OTHER


def selfplay_hands(rules, policies, seed, count, out_points):
    """Play ``count`` independent hands (dealer = hand index mod players); write each
    side's points to ``out_points[hand, side]``. Deal and play streams are derived from
    (seed, hand) so results do not depend on how work is split (see :func:`fused_hands`).
    """
    fused_kernel(rules)(
        rules, policies, seed, 0, count, MODE_SELFPLAY, out_points, np.empty((0, 0), np.int32)
    )


def fused_kernel(rules):
    """The compiled :func:`fused_hands` for a rules vector: the two-player fast path
    :func:`fused_hands_2p` when it applies, else the general kernel."""
    plain_2p = (
        rules[R_PLAYERS] == 2
        and not rules[R_TEAMS]
        and not rules[R_ACE_SWEEP]
        and not rules[R_SUM_FEWEST]
        and not rules[R_CAPTURE_HAND]
    )
    return fused_hands_2p if plain_2p else fused_hands


@njit(cache=True, nogil=True)
def fused_hands(rules, policies, seed, first_unit, count, mode, out_points, out_cols):
    """Units ``first_unit .. first_unit + count - 1`` played with kernel policies; return
    (units done, rows written). A unit is a hand, or with ``mode=MODE_MATCHES`` a match
    to the target. Each side's points go to ``out_points[row, side]`` (unless it has no
    rows) and the hand's row (``C_*`` columns) to ``out_cols[:, row]`` (unless it
    has no columns; ``C_MATCH`` holds the unit's offset in this call). With matches the
    call stops early, before a unit that could overflow ``out_cols``.

    Streams and dealers: with ``MODE_SELFPLAY`` hand ``h`` deals from ``derive_seed(seed,
    0, h, 0)`` and plays from ``(seed, 0, h, 1)``, dealt by seat ``h % players``; with
    ``MODE_HANDS`` it is hand 0 of match ``h`` (streams ``(seed, h, 0, 0 | 1)``), as
    ``simulate --hands`` numbers them; with ``MODE_MATCHES`` hand ``k`` of match ``m``
    uses ``(seed, m, k, 0 | 1)``, the first dealer is drawn from ``(seed, m, 0,
    STREAM_DEALER)`` and the deal then rotates, as in :func:`scopa_sim.match.play_match`.

    Same deals, plays, random draws and results as :func:`shuffle_deal`,
    :func:`start_hand`, :func:`play_out`, :func:`score_state` and the match bookkeeping of
    :func:`scopa_sim.match.play_match`,
    but fused into one loop: the position lives in locals (hands, piles and scope in a
    small work array), the table's subset counts are kept packed and up to date as cards
    come and go (see ``GROW``), a random play is drawn from per-card play counts so only
    the chosen play is ever built, and no array crosses a function call inside the loop
    (each one would cost atomic reference-count updates).  Hot indexing uses unsigned
    indices, which numba does not test for negative wraparound.
    """
    return _fused_hands(
        rules, policies, seed, first_unit, count, mode, out_points, out_cols,
        rules[R_PLAYERS], rules[R_TEAMS] != 0, rules[R_ACE_SWEEP] != 0,
        rules[R_SUM_FEWEST] != 0, rules[R_CAPTURE_HAND] != 0,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def fused_hands_2p(rules, policies, seed, first_unit, count, mode, out_points, out_cols):
    """:func:`fused_hands` for two players without teams, ace sweep, ``sum_capture=fewest``
    or ``capture_rule=hand`` (``scopa``, ``scopa-36`` and most of their variants), with
    those options compiled in as constants: about 6% faster."""
    return _fused_hands(
        rules, policies, seed, first_unit, count, mode, out_points, out_cols,
        2, False, False, False, False,
    )  # fmt: skip


@njit(cache=True, inline="always")
def _fused_hands(
    rules, policies, seed, first_unit, count, mode, out_points, out_cols,
    players, teams, ace_rule, fewest, capture_hand,
):  # fmt: skip
    """The body of :func:`fused_hands`, inlined into each entry point so that the options
    given as arguments (players, teams, ace sweep, sum and capture rules) fold to
    constants where an entry point fixes them."""
    g = GOLDEN
    ns = 2 if teams else players
    size = rules[R_DECK]
    hand_size = rules[R_HAND_SIZE]
    table_cards = rules[R_TABLE_CARDS]
    kings_redeal = rules[R_KINGS_REDEAL] != 0
    total = rules[R_TOTAL_PLAYS]
    ace_scopa = rules[R_ACE_SWEEP_SCOPA] != 0
    lps = rules[R_LAST_PLAY_SCOPA] != 0
    remainder_dealer = rules[R_REMAINDER_DEALER] != 0
    re_bello = rules[R_RE_BELLO] != 0
    napola = rules[R_NAPOLA] != 0
    napola_fixed3 = rules[R_NAPOLA_FIXED3] != 0
    sevens = rules[R_PRIMIERA_SEVENS] != 0
    missing_zero = rules[R_MISSING_ZERO]
    plain_counts = not fewest and not capture_hand
    deck_mask = rules[R_DECK_MASK]
    xflags = _expert_flags(rules)
    xs = np.empty(EXPERT_SCRATCH)
    canon = np.empty(40, dtype=np.int64)
    ncards = deck_cards(rules, canon)
    deck = np.empty(40, dtype=np.int64)
    w = np.zeros(N_WORK, dtype=np.int64)
    it = np.zeros((4, N_ITEMS), dtype=np.int64)
    keep_points = out_points.shape[0] > 0
    keep_rows = out_cols.shape[1] > 0
    all_denari_wins = napola and rules[R_ALL_DENARI_WINS] != 0
    target = rules[R_TARGET]
    totals = np.zeros(4, dtype=np.int64)
    cap = out_cols.shape[1]
    done = 0  # units (hands, or matches) done in this call
    hand_no = 0  # hand of the match
    row = 0
    dealer = 0
    while done < count:
        unit = first_unit + done
        if hand_no == 0:
            if mode == MODE_MATCHES:
                if row + 64 > cap:  # a match of more hands than that is astronomically rare
                    return done, row
                dealer = _below(derive_seed(seed, unit, 0, STREAM_DEALER) + g, players)
                for s in range(4):
                    totals[s] = 0
            else:
                dealer = unit % players
        elif hand_no == MAX_HANDS_PER_MATCH or row == cap:
            raise ValueError("fused_hands: a match did not end within the output buffer")
        redeals = 0
        # the deal and play streams of a hand share their prefix
        if mode == MODE_SELFPLAY:
            prefix = _seed_prefix(seed, 0, unit)
        else:
            prefix = _seed_prefix(seed, unit, hand_no)
        # ---------------------------------------------------------------- shuffle_deal
        z = _seed_finish(prefix, STREAM_DEAL)
        while True:
            for i in range(ncards):
                deck[i] = canon[i]
            z = _fisher_yates(deck, ncards, z)
            if not kings_redeal:
                break
            kings = 0
            for i in range(table_cards):
                kings += (KINGS >> deck[i]) & 1
            if kings < 3:
                break
            redeals += 1
        # ---------------------------------------------------------------- start_hand
        z = _seed_finish(prefix, STREAM_PLAY)
        spare = np.uint64(0)
        for i in range(W_SCOPE + 4):
            w[i] = 0
        table = np.int64(0)
        packed = np.int64(1)
        for i in range(table_cards):
            c = deck[i]
            table |= np.int64(1) << c
            packed = (packed * GROW[VALUE[c]]) & LANES
        pos = table_cards
        first = dealer + 1
        if first == players:
            first = 0
        turn = first
        plays = 0
        last_capturer = -1
        # ---------------------------------------------------------------- play_out
        while True:
            if plays + table_cards == pos:  # every hand is empty
                if pos == size:
                    break
                k = hand_size
                if size - pos < players * k:
                    k = (size - pos) // players
                seat = first
                for _ in range(players):
                    m = np.int64(0)
                    for _i in range(k):
                        m |= np.int64(1) << deck[np.uint64(pos)]
                        pos += 1
                    w[W_HANDS + seat] = m
                    seat += 1
                    if seat == players:
                        seat = 0
            hand = w[np.uint64(W_HANDS + turn)]
            # Plays per card: an ace sweep, one per equal card, the sum captures, or a
            # lay (none left with capture_rule=hand once any card captures).  The play
            # counts (at most 26) are kept 5 bits per card in ``counts``.
            sweep_aces = ACES if ace_rule and table != 0 and (table & ACES) == 0 else 0
            n = np.int64(0)
            counts = np.int64(0)
            shift = 0
            lay_ok = True
            m = hand
            # ``rare``: the cards whose captures are ace sweeps or sum captures (one
            # bit test after the draw, rather than a branch on whether the card has an
            # equal on the table, which is a coin flip)
            rare = np.int64(0)
            one = (hand & (hand - 1)) == 0  # a single card: no loops
            if plain_counts and one:
                c = ctz(hand)
                k = _card_captures(c, table, packed, sweep_aces)
                rare = np.int64((k != 0) & ((table & SAME_MASK[c]) == 0)) << c
                n = k + (k == 0)
            elif plain_counts:
                while m:
                    c = ctz(m)
                    m &= m - 1
                    k = _card_captures(c, table, packed, sweep_aces)
                    rare |= np.int64((k != 0) & ((table & SAME_MASK[c]) == 0)) << c
                    k += k == 0  # a lay
                    counts |= k << shift
                    shift += 5
                    n += k
            else:
                captures = np.int64(0)
                while m:
                    c = ctz(m)
                    m &= m - 1
                    if fewest:
                        k = _card_captures_fewest(c, table, packed, sweep_aces)
                    else:
                        k = _card_captures(c, table, packed, sweep_aces)
                    rare |= np.int64((k != 0) & ((table & SAME_MASK[c]) == 0)) << c
                    captures += k
                    k += k == 0
                    counts |= k << shift
                    shift += 5
                    n += k
                lay_ok = not (capture_hand and captures)
                if not lay_ok and captures < n:  # drop the lays
                    n = captures
                    m = hand
                    shift = 0
                    while m:
                        c = ctz(m)
                        m &= m - 1
                        k = (counts >> shift) & 31
                        if k == 1 and not _is_capture(c, table, packed, sweep_aces):
                            counts ^= np.int64(1) << shift
                        shift += 5
            # ------------------------------------------------------------ choose
            card = 0
            take = np.int64(0)
            pol = policies[np.uint64(turn)]
            if pol != POLICY_RANDOM and n > 1:  # greedy or expert: score every play
                expert = pol == POLICY_EXPERT
                not_last = plays + 1 < total
                table_sum = _value_sum(table)
                # the expert's view: piles, unseen cards, the next seat's hand size
                pm = np.int64(0)
                po = np.int64(0)
                others = np.int64(0)
                unseen = np.int64(0)
                kn = 0
                lc_rel = 0
                d_rel = 0
                if expert:
                    nxt = turn + 1 if turn + 1 < players else 0
                    xside = turn & 1 if teams else turn
                    xopp = nxt & 1 if teams else nxt
                    pm = w[np.uint64(W_PILES + xside)]
                    po = w[np.uint64(W_PILES + xopp)]
                    for s in range(ns):
                        if s != xside and s != xopp:
                            others |= w[np.uint64(W_PILES + s)]
                    unseen = deck_mask & ~(hand | table | pm | po | others)
                    kn = popcount(w[np.uint64(W_HANDS + nxt)])
                    if kn == 0 and pos < size:
                        kn = hand_size
                        if size - pos < players * kn:
                            kn = (size - pos) // players
                    lc_rel = _rel_side(last_capturer, xside, xopp)
                    d_rel = _rel_side(dealer & 1 if teams else dealer, xside, xopp)
                best = -(1 << 62)
                ties = 0
                m = hand
                while m:
                    c = ctz(m)
                    m &= m - 1
                    v = VALUE[c]
                    same = table & VALUE_MASK[v]
                    sums = (packed >> (LANE_BITS * v)) & 31
                    fsize = 0
                    if (sweep_aces >> c) & 1:
                        k = 1
                    elif same:
                        k = popcount(same)
                    elif sums:
                        k = sums
                        if fewest:
                            fsize = _fewest_sums(table, packed, v)[1]
                    else:
                        k = 1 if lay_ok else 0
                    for j in range(k):
                        if (sweep_aces >> c) & 1:
                            t = table
                        elif same:
                            t = same & -same
                            same &= same - 1
                        elif sums:
                            t = _sum_take(table, packed, v, j)
                            if fewest and popcount(t) != fsize:
                                continue
                        else:
                            t = np.int64(0)
                        if expert:
                            val = _fixed(expert_play_value(
                                c, t, hand, table, pm, po, others, unseen, kn, plays, total,
                                lc_rel, d_rel, size, xflags, players == 2, xs,
                            ))  # fmt: skip
                        else:
                            val = _greedy_score(table, table_sum, not_last, lps, c, t)
                        if val > best:
                            best = val
                            ties = 1
                            card = c
                            take = t
                        elif val == best:
                            ties += 1
                            z, spare, d = _draw(z, spare, ties)
                            if d == 0:  # reservoir: uniform among the ties
                                card = c
                                take = t
            else:
                z, spare, r = _draw(z, spare, n)
                # The card of the r-th play: the last one whose plays start at or before
                # r (a card with no plays shares its start with the next one).  No
                # data-dependent branches.
                start = np.int64(0)
                first_r = np.int64(0)
                m = np.int64(0) if one else hand
                card = ctz(hand)
                # Its equal cards on the table are chosen along with it, not looked up
                # after: 1.5% faster.  Each card's is computed in a statement of its own:
                # inside the conditional expression it measured 15% slower.
                same = table & SAME_MASK[card]
                while m:
                    c = ctz(m)
                    m &= m - 1
                    here = start <= r
                    same_c = table & SAME_MASK[c]
                    card = c if here else card
                    same = same_c if here else same
                    first_r = start if here else first_r
                    start += counts & 31
                    counts >>= 5
                r -= first_r
                v = VALUE[card]
                if (rare >> card) & 1:  # an ace sweep or a sum capture
                    if (sweep_aces >> card) & 1:
                        take = table
                    elif fewest:
                        fsize = _fewest_sums(table, packed, v)[1]
                        take = _fewest_take(table, packed, v, r, fsize)
                    else:
                        take = _sum_take(table, packed, v, r)
                else:  # a match (the r-th equal card) or a lay (take 0)
                    for _ in range(r):
                        same &= same - 1
                    take = same & -same
            # ------------------------------------------------------------ apply_play
            bit = np.int64(1) << card
            w[np.uint64(W_HANDS + turn)] = hand ^ bit
            plays += 1
            side = turn & 1 if teams else turn
            if take & (take - 1):  # several cards taken: a sum capture or an ace sweep
                left = table & ~take
                w[np.uint64(W_PILES + side)] |= take | bit
                last_capturer = side
                if left == 0:
                    packed = np.int64(1)
                    if lps or plays != total:
                        ace_sweep = (sweep_aces >> card) & 1
                        if ace_scopa or not ace_sweep:
                            w[np.uint64(W_SCOPE + side)] += 1
                else:
                    m = take
                    while m:
                        c = ctz(m)
                        m &= m - 1
                        packed = (packed * SHRINK[VALUE[c]]) & LANES
                table = left
            else:  # a lay or a one-card capture, without data-dependent branches
                captured = take != 0
                x = take if captured else bit  # the card that leaves or joins the table
                table ^= x
                # The subset counts' factor, by card.  Without ace sweeps the card taken
                # has the played card's value, so the played card's factors serve, and
                # the loop's critical path no longer finds the card taken (a ctz) nor its
                # value (a load): about 5% faster.
                by = ctz(x) if ace_rule else card
                packed = (packed * GROW_SHRINK[np.uint64(by + 64 * captured)]) & LANES
                w[np.uint64(W_PILES + side)] |= (take | bit) * captured
                last_capturer = side if captured else last_capturer
                # A capture that empties the table (tested as one integer, so that the
                # branch is on the rare event and not on whether the card captured); a
                # lone card taken by an ace sweep scores only with ace_sweep_scopa.
                if (table | (take == 0)) == 0 and (
                    (lps or plays != total) and (ace_scopa or not (sweep_aces >> card) & 1)
                ):
                    w[np.uint64(W_SCOPE + side)] += 1
            turn += 1
            if turn == players:
                turn = 0
        if table:
            if remainder_dealer:
                w[W_PILES + (dealer & 1 if teams else dealer)] |= table
            elif last_capturer >= 0:
                w[W_PILES + last_capturer] |= table
        # ---------------------------------------------------------------- score_piles
        # The rules of _score_into, written out on the work array: calling it once per
        # hand measured 12% slower (710k against 805k random hands/s on one core), and
        # inlining it (inline="always", sides as an argument) 7% slower on the two-player
        # fast path (888 against 824 ns per hand), where these loops fold to constants.
        for s in range(ns):
            p = w[W_PILES + s]
            it[s, I_SCOPE] = w[W_SCOPE + s]
            it[s, I_CARDS] = 0
            it[s, I_DENARI] = 0
            it[s, I_SETTEBELLO] = (p >> 6) & 1  # SETTEBELLO_BIT
            it[s, I_PRIMIERA] = 0
            it[s, I_RE_BELLO] = (p >> 9) & 1 if re_bello else 0  # RE_BELLO_BIT
            nap = 0
            if napola and (p & 7) == 7:
                nap = 3 if napola_fixed3 else ctz(~(p & DENARI))
            it[s, I_NAPOLA] = nap
        for k, mask in ((I_CARDS, FULL_DECK), (I_DENARI, DENARI)):  # strict majority
            top = popcount(w[W_PILES] & mask)
            best = 0
            tie = False
            for s in range(1, ns):
                x = popcount(w[W_PILES + s] & mask)
                if x > top:
                    top = x
                    best = s
                    tie = False
                elif x == top:
                    tie = True
            if not tie:
                it[best, k] = 1
        if sevens:
            alive = (1 << ns) - 1
            for k in range(7):
                rm = ACES << (6 - k)  # sevens, then sixes, ... aces
                top = -1
                for s in range(ns):
                    if (alive >> s) & 1:
                        top = max(top, popcount(w[W_PILES + s] & rm))
                for s in range(ns):
                    if (alive >> s) & 1 and popcount(w[W_PILES + s] & rm) != top:
                        alive &= ~(1 << s)
                if alive & (alive - 1) == 0:
                    it[ctz(alive), I_PRIMIERA] = 1
                    break
        else:
            top = primiera_classic(w[W_PILES], missing_zero)
            best = 0
            tie = False
            for s in range(1, ns):
                x = primiera_classic(w[W_PILES + s], missing_zero)
                if x > top:
                    top = x
                    best = s
                    tie = False
                elif x == top:
                    tie = True
            if not tie and top >= 0:
                it[best, I_PRIMIERA] = 1
        for s in range(ns):
            pts = 0
            for k in range(I_TOTAL):
                pts += it[s, k]
            it[s, I_TOTAL] = pts
            if keep_points:
                out_points[row, s] = pts
        winner = -1
        if mode == MODE_MATCHES:  # the winner: the all-denari rule, then the target
            top = 0
            all_denari = -1
            for s in range(ns):
                totals[s] += it[s, I_TOTAL]
                top = max(top, totals[s])
                if all_denari_wins and all_denari < 0 and w[W_PILES + s] & DENARI == DENARI:
                    all_denari = s
            if all_denari >= 0:
                winner = all_denari
            elif top >= target:
                for s in range(ns):
                    if totals[s] == top:
                        winner = s if winner == -1 else -2
                winner = max(winner, -1)  # -2: a tie at the top, so play on
        else:
            for s in range(ns):
                totals[s] = it[s, I_TOTAL]
        if keep_rows:  # the hand's row (match: the unit's offset in this call)
            out_cols[C_MATCH, row] = done
            out_cols[C_HAND, row] = hand_no
            out_cols[C_DEALER, row] = dealer
            out_cols[C_FIRST, row] = first
            out_cols[C_REDEALS, row] = redeals
            out_cols[C_PLAYS, row] = plays
            for s in range(ns):
                p = w[W_PILES + s]
                for k in range(N_ITEMS):
                    out_cols[C_ITEMS + s * N_ITEMS + k, row] = it[s, k]
                out_cols[C_STATS + 4 * s, row] = popcount(p)
                out_cols[C_STATS + 4 * s + 1, row] = popcount(p & DENARI)
                out_cols[C_STATS + 4 * s + 2, row] = primiera_classic(p, 1)
                out_cols[C_STATS + 4 * s + 3, row] = popcount(p & SEVENS)
                out_cols[C_TOTALS + s, row] = totals[s]
            out_cols[C_WINNER, row] = winner
        row += 1
        if mode != MODE_MATCHES or winner >= 0:
            done += 1
            hand_no = 0
        else:
            hand_no += 1
            dealer += 1
            if dealer == players:
                dealer = 0
    return count, row


# --------------------------------------------------------------------------- batch simulation


def fused_rows(rules, policies, seed, by_match, first_unit, n_units, out):
    """Rows of ``n_units`` independent hands, or whole matches when ``by_match``, from
    ``first_unit`` on, with kernel policies, into the columns ``out[C_*, row]`` (``C_MATCH``
    holds the unit's offset from ``first_unit``); return (units done, rows written).
    Matches stop early before one that could overflow ``out``. Through the fused playout
    loop of :func:`fused_hands`, with the two-player fast path where it applies."""
    mode = MODE_MATCHES if by_match else MODE_HANDS
    return fused_kernel(rules)(
        rules, policies, seed, first_unit, n_units, mode, np.empty((0, 4), np.int64), out
    )
