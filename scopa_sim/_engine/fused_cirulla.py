"""The jitted self-play loop of Cirulla (RULES.md §10): many hands, or matches to the
target, with kernel policies, in one call, writing the rows of :mod:`.fused`'s layout
plus Cirulla's items.

Each hand is dealt, played and scored as by the Cirulla step kernels
(:func:`.streams.shuffle_deal_cirulla` with its void deals, :func:`.step.start_hand_cirulla`
with the opening count, :func:`.step.legal_plays_cirulla`, :func:`.step.choose_cirulla`,
:func:`.step.apply_play_cirulla`, :func:`.step.score_state_cirulla`), from the streams and
dealers of :func:`.fused.fused_hands`, inside one loop that keeps its buffers. The deal
and the random seats' plays are written out in the loop (:func:`_deal`,
:func:`_random_play`, :func:`_apply`: faster), the other decisions made by the step
kernels on the same state vector; the tests replay every row through the step path with
the same draws.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import ctz, popcount
from .capture import (
    BIG_TABLE15,
    lane,
    opening_count,
    packed_of,
    sum_take15,
    table_reach,
)
from .deals import deal_round_cards
from .fused import kernel_model
from .layout import (
    ACES,
    C_DEALER,
    C_FIRST,
    C_HAND,
    C_ITEMS,
    C_MATCH,
    C_PLAYS,
    C_REDEALS,
    C_STATS,
    C_TOTALS,
    C_WINNER,
    DECLARE_AUTO,
    DECLARE_OFF,
    I_DECLARATIONS,
    I_GRANDE,
    I_PICCOLA,
    I_TOTAL,
    KINGS,
    MATTA_BIT,
    MATTA_NONE,
    MATTA_PLAY,
    MAX_HANDS_PER_MATCH,
    MAX_PLAYS,
    MODE_HANDS,
    MODE_MATCHES,
    MODE_SELFPLAY,
    N_ITEMS,
    N_ITEMS_CIRULLA,
    N_ROW_COLS,
    N_STATE,
    POLICY_LEARNED,
    POLICY_RANDOM,
    R_ACE_SWEEP,
    R_ACE_SWEEP_SCOPA,
    R_ACES_REDEAL,
    R_CAPTURE_HAND,
    R_CAPTURE_OPTIONAL,
    R_CIRULLA,
    R_DECLARE,
    R_HAND_SIZE,
    R_KINGS_REDEAL,
    R_LAST_PLAY_SCOPA,
    R_MATCH_PRIORITY,
    R_MATTA,
    R_OPENING_COUNT,
    R_PLAYERS,
    R_SIDES,
    R_SUM_FEWEST,
    R_TABLE_CARDS,
    R_TARGET,
    R_TEAMS,
    R_TOTAL_PLAYS,
    S_DEALER,
    S_DECK,
    S_DECK_SIZE,
    S_DECLARED,
    S_DONE,
    S_HANDS,
    S_LAST_CAPTURER,
    S_OPENING,
    S_OPENING_SCOPE,
    S_PILES,
    S_PLAYS,
    S_REACH,
    S_SCOPE,
    S_SHOWN,
    S_STOCK,
    S_TABLE,
    S_TURN,
    S_VOIDS,
    SCRATCH,
    STREAM_DEAL,
    STREAM_DEALER,
    STREAM_PLAY,
    VALUE,
    VALUE_MASK,
    deck_cards,
)
from .learned_cirulla import choose_learned_cirulla, learned_scratch_cirulla
from .pipeline import STEPS
from .policy import EXPERT_SCRATCH
from .policy_cirulla import EXPERT_DECLARES
from .scoring import all_denari_wins, match_winner, side_stats
from .step import (
    META_DECLARATION,
    apply_play_cirulla,
    choose_cirulla,
    legal_plays_cirulla,
    next_round,
    score_state_cirulla,
)
from .streams import (
    GOLDEN,
    RNG_WORDS,
    below,
    derive_seed,
    draw,
    fisher_yates,
    rand_below,
    seed_finish,
    seed_prefix,
)

__all__ = [
    "CIRULLA_ITEMS",
    "C_CIRULLA",
    "N_ROW_COLS_CIRULLA",
    "fused_hands_cirulla",
    "fused_rows_cirulla",
    "is_cirulla",
]

#: A Cirulla row's extra columns, after the others (``out[C_CIRULLA + 3 * side + k,
#: row]``): the side's grande, piccola and declared points (``CIRULLA_ITEMS`` order).
C_CIRULLA = N_ROW_COLS
CIRULLA_ITEMS = (I_GRANDE, I_PICCOLA, I_DECLARATIONS)
N_ROW_COLS_CIRULLA = C_CIRULLA + 4 * len(CIRULLA_ITEMS)


@njit(cache=True, inline="always")
def _card_count(v, table, lo, hi, sweep, priority):
    """The captures of a card of value ``v`` under Cirulla's rule (as
    :func:`.capture.add_captures_cirulla` lists them) counted from the table's two-word
    packed counts ``(lo, hi)`` (exact up to ``BIG_TABLE15`` cards; ``sweep``: an ace
    sweeps this table): ``(k, a, b)``, all of them, the matches (a) and the sums (b), the
    rest being fifteens (c). Without ``sum_capture=fewest``."""
    # selects rather than branches (an empty table has no lanes but the empty sum's)
    a = popcount(table & VALUE_MASK[v])
    sums = lane(lo, hi, v, True) - a
    b = 0 if (a != 0 and priority) else sums
    k = a + b + lane(lo, hi, 15 - v, True)
    swept = v == 1 and sweep
    return (1 if swept else k), (0 if swept else a), (0 if swept else b)


@njit(cache=True, inline="always")
def _declaration(hand, wild):
    """:func:`.capture.declaration_points` of a hand, computed from its three cards' ranks
    (0 for another size): 10 for three of a kind (two and the matta, with ``wild``), else
    3 when the values add up to 9 or less (the matta counting 1), else 0."""
    if popcount(hand) != 3:
        return 0
    joker = wild and (hand & MATTA_BIT) != 0
    others = hand & ~MATTA_BIT if joker else hand
    r1 = ctz(others) % 10
    m = others & (others - 1)
    r2 = ctz(m) % 10
    if joker:
        if r1 == r2:
            return 10
        return 3 if r1 + r2 + 3 <= 9 else 0
    r3 = ctz(m & (m - 1)) % 10
    if r1 == r2 and r2 == r3:
        return 10
    return 3 if r1 + r2 + r3 + 3 <= 9 else 0


@njit(cache=True, inline="always")
def _random_play(hand, table, lo, hi, z, spare, ace_rule, priority, capture_hand, optional,
                 declare, wild):  # fmt: skip
    """A uniform draw among the Cirulla plays of ``hand`` at ``table`` in
    :func:`.step.legal_plays_cirulla`'s order, with the same draw from the play stream
    ``(z, spare)`` (``rand_below`` of their number), the plays counted per card from the
    packed counts ``(lo, hi)`` and only the chosen one built; return ``(card, take, meta,
    z, spare)``. For tables of at most ``BIG_TABLE15`` cards, without ``sum_capture=fewest``
    and the matta played with a named value (the caller checks)."""
    sweep = ace_rule and table != 0 and (table & ACES) == 0
    captures = 0
    lays = 0
    counts = np.int64(0)  # each card's (k, a, b), 21 bits a card (a hand holds 3 cards)
    shift = 0
    m = hand
    while m:
        c = ctz(m)
        m &= m - 1
        k, a, b = _card_count(VALUE[c], table, lo, hi, sweep, priority)
        counts |= np.int64(k | (a << 10) | (b << 13)) << shift
        shift += 21
        captures += k
        lays += k == 0
    lay_ok = optional or not (capture_hand and captures)
    n0 = captures + (popcount(hand) if optional else (lays if lay_ok else 0))
    points = 0
    if declare != DECLARE_OFF:
        points = _declaration(hand, wild)
    n = n0 * 2 if points and declare != DECLARE_AUTO else n0
    z, spare, r = draw(z, spare, n)
    meta = np.int64(0)
    if points and (declare == DECLARE_AUTO or r >= n0):
        meta = np.int64(points) << META_DECLARATION
        if r >= n0:
            r -= n0
    # the card of the r-th play: the last one whose plays start at or before r (selects,
    # not branches; a card without plays shares its start with the next one)
    m = hand
    card = ctz(hand)
    start = np.int64(0)
    first_r = np.int64(0)
    info = counts
    while m:
        c = ctz(m)
        m &= m - 1
        here = start <= r
        card = c if here else card
        first_r = start if here else first_r
        info = counts if here else info
        k = counts & 1023
        start += k + 1 if optional else (k if k else (1 if lay_ok else 0))
        counts >>= 21
    r -= first_r
    take = np.int64(0)
    k = info & 1023
    if r < k:
        v = VALUE[card]
        a = (info >> 10) & 7
        b = (info >> 13) & 255
        if v == 1 and sweep:
            take = table
        elif r < a:
            same = table & VALUE_MASK[v]
            for _ in range(r):
                same &= same - 1
            take = same & -same
        elif r < a + b:  # the sets of 2 or more come before the cards worth v
            take = sum_take15(table, lo, hi, v, r - a)
        else:
            take = sum_take15(table, lo, hi, 15 - v, r - a - b)
    return card, take, meta, z, spare


@njit(cache=True, inline="always")
def _apply(state, rules, turn, side, hand, table, card, take, meta, players, ace_rule,
           ace_scopa, lps, total, table_cards, hand_size):  # fmt: skip
    """:func:`.step.apply_play_cirulla` written out for the loop's random plays (the seat
    ``turn`` of side ``side`` plays ``card`` from ``hand`` on ``table``), without the
    table's subset-sum bitset ``S_REACH``, which the loop sets before any other decision;
    a new deal and the hand's end by :func:`.step.next_round` as there. The tests hold
    the loop's rows equal to the step kernels'."""
    bit = np.int64(1) << card
    points = (meta >> META_DECLARATION) & 15
    if points:
        state[S_DECLARED + side] += points
        state[S_SHOWN] |= 1 << turn
    state[S_HANDS + turn] = hand ^ bit
    plays = state[S_PLAYS] + 1
    state[S_PLAYS] = plays
    if take:
        left = table & ~take
        state[S_TABLE] = left
        state[S_PILES + side] |= take | bit
        state[S_LAST_CAPTURER] = side
        if left == 0 and (lps or plays != total):
            value = meta & 15
            value = value if value else VALUE[card]
            sweep = ace_rule and value == 1 and (table & ACES) == 0
            if ace_scopa or not sweep:
                state[S_SCOPE + side] += 1
    else:
        state[S_TABLE] = table | bit
    turn += 1
    state[S_TURN] = 0 if turn >= players else turn
    stock = state[S_STOCK]
    if plays + table_cards == stock:  # every hand is empty: deal, or end the hand
        state[S_SHOWN] = 0
        if stock < state[S_DECK_SIZE]:
            first = state[S_DEALER] + 1
            first = 0 if first >= players else first
            size = state[S_DECK_SIZE]
            pos, _ = deal_round_cards(state, S_DECK, stock, size, hand_size, players, first,
                                      state, S_HANDS)  # fmt: skip
            state[S_STOCK] = pos
        else:
            next_round(state, rules)


@njit(cache=True, inline="always")
def _deal(state, rules, deck, canon, ncards, dealer, z, players, teams, table_cards, hand_size,
          kings_rule, aces_rule, counting, wild):  # fmt: skip
    """:func:`.streams.shuffle_deal_cirulla` (``deck[:ncards]`` shuffled from ``canon`` by
    the deal stream's counter ``z`` again while the table is void: two aces with
    ``aces_rule``, three kings with ``kings_rule``) then :func:`.step.start_hand_cirulla`
    (``counting``: ``opening_count``; ``wild``: the matta counts in it), written out in
    the loop; returns the number of void deals. The tests hold the rows equal."""
    redeals = 0
    while True:
        for i in range(ncards):
            deck[i] = canon[i]
        z = fisher_yates(deck, ncards, z)
        t = np.int64(0)
        for i in range(table_cards):
            t |= np.int64(1) << deck[i]
        if not (
            (kings_rule and popcount(t & KINGS) >= 3) or (aces_rule and popcount(t & ACES) >= 2)
        ):
            break
        redeals += 1
    for i in range(N_STATE):
        state[i] = 0
    for i in range(ncards):
        state[S_DECK + i] = deck[i]
    state[S_DECK_SIZE] = ncards
    state[S_TABLE] = t
    state[S_REACH] = table_reach(t, True)
    state[S_STOCK] = table_cards
    state[S_DEALER] = dealer
    state[S_LAST_CAPTURER] = -1
    state[S_VOIDS] = redeals
    if counting:
        taken, scope = opening_count(t, wild)
        if taken:
            side = dealer & 1 if teams else dealer
            state[S_OPENING] = taken
            state[S_OPENING_SCOPE] = scope
            state[S_PILES + side] = taken
            state[S_SCOPE + side] = scope
            state[S_LAST_CAPTURER] = side
            state[S_TABLE] = 0
            state[S_REACH] = 1
    first = dealer + 1 if dealer + 1 < players else 0
    state[S_TURN] = first
    pos, _ = deal_round_cards(state, S_DECK, table_cards, ncards, hand_size, players, first,
                              state, S_HANDS)  # fmt: skip
    state[S_STOCK] = pos
    return redeals


@njit(cache=True, nogil=True, pipeline_class=STEPS)
def fused_hands_cirulla(rules, policies, seed, first_unit, count, mode, out_points, out_cols,
                        model):  # fmt: skip
    """:func:`.fused.fused_hands` under Cirulla's rules: units ``first_unit .. first_unit +
    count - 1`` (hands, or matches to the target with ``MODE_MATCHES``) played with the
    kernel policies ``policies`` (one code a seat), the same streams, dealers and stop
    rule; return ``(units done, rows written)``. Each side's points go to
    ``out_points[row, side]`` (unless it has no rows), the hand's row to ``out_cols[:,
    row]`` (unless it has no columns; :data:`N_ROW_COLS_CIRULLA` columns): the columns of
    :func:`.fused.fused_hands` (``C_REDEALS`` counts the void deals, the total counts
    Cirulla's items) and the grande, piccola and declarations at :data:`C_CIRULLA`. A
    cappotto (``cappotto``) ends the match. ``model``: the learned policy's model vector
    (:mod:`.learned_cirulla`; the empty vector where no seat plays ``POLICY_LEARNED``),
    whose seats play :func:`.learned_cirulla.choose_learned_cirulla`. Raises
    ``ValueError`` when a match outgrows ``out_cols`` past ``MAX_HANDS_PER_MATCH``."""
    g = GOLDEN
    players = rules[R_PLAYERS]
    ns = rules[R_SIDES]
    deck = np.empty(40, dtype=np.int64)
    canon = np.empty(40, dtype=np.int64)
    ncards = deck_cards(rules, canon)
    kings_rule = rules[R_KINGS_REDEAL] != 0
    aces_rule = rules[R_ACES_REDEAL] != 0
    counting = rules[R_OPENING_COUNT] != 0
    state = np.zeros(N_STATE, dtype=np.int64)
    rng = np.zeros(RNG_WORDS, dtype=np.uint64)
    bc = np.empty(MAX_PLAYS, dtype=np.int64)
    btk = np.empty(MAX_PLAYS, dtype=np.int64)
    bmt = np.empty(MAX_PLAYS, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    vals = np.empty(MAX_PLAYS, dtype=np.int64)
    xs = np.empty(EXPERT_SCRATCH)
    bt = np.empty(MAX_PLAYS, dtype=np.int64)
    bm = np.empty(MAX_PLAYS, dtype=np.int64)
    it = np.zeros((4, N_ITEMS_CIRULLA), dtype=np.int64)
    ls = learned_scratch_cirulla(model)
    ace_rule = rules[R_ACE_SWEEP] != 0
    ace_scopa = rules[R_ACE_SWEEP_SCOPA] != 0
    lps = rules[R_LAST_PLAY_SCOPA] != 0
    teams = rules[R_TEAMS] != 0
    total = rules[R_TOTAL_PLAYS]
    table_cards = rules[R_TABLE_CARDS]
    hand_size = rules[R_HAND_SIZE]
    priority = rules[R_MATCH_PRIORITY] != 0
    capture_hand = rules[R_CAPTURE_HAND] != 0
    optional = rules[R_CAPTURE_OPTIONAL] != 0
    declare = rules[R_DECLARE]
    wild = rules[R_MATTA] != MATTA_NONE
    named = rules[R_MATTA] == MATTA_PLAY
    fewest = rules[R_SUM_FEWEST] != 0
    keep_points = out_points.shape[0] > 0
    keep_rows = out_cols.shape[1] > 0
    cappotto = all_denari_wins(rules)
    target = rules[R_TARGET]
    totals = np.zeros(4, dtype=np.int64)
    cap = out_cols.shape[1]
    done = 0
    hand_no = 0
    row = 0
    dealer = 0
    while done < count:
        unit = first_unit + done
        if hand_no == 0:
            if mode == MODE_MATCHES:
                if row + 64 > cap:  # a match of more hands than that is astronomically rare
                    return done, row
                dealer = below(derive_seed(seed, unit, 0, STREAM_DEALER) + g, players)
                for s in range(4):
                    totals[s] = 0
            else:
                dealer = unit % players
        elif hand_no == MAX_HANDS_PER_MATCH or row == cap:
            raise ValueError("fused_hands_cirulla: a match did not end within the output buffer")
        if mode == MODE_SELFPLAY:
            prefix = seed_prefix(seed, 0, unit)
        else:
            prefix = seed_prefix(seed, unit, hand_no)
        redeals = _deal(
            state, rules, deck, canon, ncards, dealer, seed_finish(prefix, STREAM_DEAL), players,
            teams, table_cards, hand_size, kings_rule, aces_rule, counting, wild,
        )  # fmt: skip
        z = seed_finish(prefix, STREAM_PLAY)  # the play stream, (z, spare) as in rng
        spare = np.uint64(0)
        while not state[S_DONE]:
            turn = state[S_TURN]
            hand = state[S_HANDS + turn]
            table = state[S_TABLE]
            if (
                policies[turn] == POLICY_RANDOM
                and not fewest
                and not (named and hand & MATTA_BIT)
                and popcount(table) <= BIG_TABLE15
            ):
                lo, hi = packed_of(table, True)
                card, take, meta, z, spare = _random_play(
                    hand, table, lo, hi, z, spare, ace_rule, priority, capture_hand, optional,
                    declare, wild,
                )  # fmt: skip
                side = turn & 1 if teams else turn
                _apply(state, rules, turn, side, hand, table, card, take, meta, players,
                       ace_rule, ace_scopa, lps, total, table_cards, hand_size)  # fmt: skip
                continue
            state[S_REACH] = table_reach(table, True)
            n = legal_plays_cirulla(state, rules, bc, btk, bmt, sc)
            rng[0] = z
            rng[1] = spare
            if policies[turn] == POLICY_RANDOM:
                i = rand_below(rng, n)
            elif policies[turn] == POLICY_LEARNED:
                i = choose_learned_cirulla(state, rules, POLICY_LEARNED, model, rng, bc, btk, bmt,
                                           n, ls)  # fmt: skip
            else:
                i = choose_cirulla(state, rules, policies[turn], rng, bc, btk, bmt, n,
                                   EXPERT_DECLARES, vals, xs, bt, bm, sc)  # fmt: skip
            z = rng[0]
            spare = rng[1]
            apply_play_cirulla(state, rules, bc[i], btk[i], bmt[i])
        score_state_cirulla(state, rules, it)
        winner = -1
        if mode == MODE_MATCHES:
            for s in range(ns):
                totals[s] += it[s, I_TOTAL]
            winner = match_winner(
                (totals[0], totals[1], totals[2], totals[3]),
                (state[S_PILES], state[S_PILES + 1], state[S_PILES + 2], state[S_PILES + 3]),
                ns, target, cappotto,
            )  # fmt: skip
        else:
            for s in range(ns):
                totals[s] = it[s, I_TOTAL]
        if keep_points:
            for s in range(ns):
                out_points[row, s] = it[s, I_TOTAL]
        if keep_rows:
            first = dealer + 1 if dealer + 1 < players else 0
            out_cols[C_MATCH, row] = done
            out_cols[C_HAND, row] = hand_no
            out_cols[C_DEALER, row] = dealer
            out_cols[C_FIRST, row] = first
            out_cols[C_REDEALS, row] = redeals
            out_cols[C_PLAYS, row] = state[S_PLAYS]
            for s in range(ns):
                for k in range(N_ITEMS):
                    out_cols[C_ITEMS + s * N_ITEMS + k, row] = it[s, k]
                stats = side_stats(state[S_PILES + s])
                for k in range(4):
                    out_cols[C_STATS + 4 * s + k, row] = stats[k]
                out_cols[C_TOTALS + s, row] = totals[s]
                for k in range(3):
                    out_cols[C_CIRULLA + 3 * s + k, row] = it[s, I_GRANDE + k]
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


def is_cirulla(rules):
    """Whether the rules vector ``rules`` is one of Cirulla's (``capture_mode=cirulla``,
    RULES.md §10), whose rows :func:`fused_rows_cirulla` makes."""
    return bool(rules[R_CIRULLA])


def fused_rows_cirulla(rules, policies, seed, by_match, first_unit, n_units, out, model=None):
    """:func:`.fused.fused_rows` under Cirulla's rules: the rows of ``n_units`` hands, or
    whole matches when ``by_match``, from ``first_unit`` on, into ``out[C_*, row]``
    (:data:`N_ROW_COLS_CIRULLA` rows, C-contiguous); return (units done, rows written).
    ``model``: the learned policy's model vector, needed where a seat plays it
    (:func:`.fused.kernel_model`)."""
    if not out.flags.c_contiguous:  # one compiled signature: 'A' would compile it again
        raise TypeError("fused_rows_cirulla writes into a C-contiguous array only")
    mode = MODE_MATCHES if by_match else MODE_HANDS
    none = np.empty((0, 4), np.int64)
    m = kernel_model(policies, model)
    return fused_hands_cirulla(rules, policies, seed, first_unit, n_units, mode, none, out, m)
