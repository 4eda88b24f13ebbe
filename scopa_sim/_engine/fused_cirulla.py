"""The jitted self-play loop of Cirulla (RULES.md §10): many hands, or matches to the
target, with kernel policies, in one call, writing the rows of :mod:`.fused`'s layout
plus Cirulla's items.

Each hand is dealt, played and scored as by the Cirulla step kernels
(:func:`.streams.shuffle_deal_cirulla` with its void deals, :func:`.step.start_hand_cirulla`
with the opening count, :func:`.step.legal_plays_cirulla`, :func:`.step.choose_cirulla`,
:func:`.step.apply_play_cirulla`, :func:`.step.score_state_cirulla`), from the streams and
dealers of :func:`.fused.fused_hands` (its bookkeeping of units, :func:`.fused.unit_start`
and :func:`.fused.unit_end`), inside one loop that keeps its buffers. The deal, the
random seats' plays and the scoring are written out in the loop (:func:`_deal`,
:func:`_random_play`, :func:`_apply`, :func:`.scoring.items_with_cirulla`: faster), the
other decisions made by the step kernels on the same state vector. The random plays
keep the position's hot part in locals (the table, its one-word packed counts updated
card by card as cards come and go, the seat to play, the plays, the stock's position and
the last capturer) beside the state vector, which they keep up to date for the step
kernels but for its subset-sum bitset (set before each of their decisions); after one
of those the locals are read back. The tests replay every row through the step path with
the same draws.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import ctz, popcount
from .capture import (
    BIG_TABLE4,
    GROW4,
    SHRINK4,
    lane4,
    opening_count,
    packed4_of,
    remainder_side,
    sum_take4,
    table_reach,
)
from .deals import deal_round_cards
from .fused import kernel_model, unit_end, unit_start
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
    DECLARE_CHOICE,
    DECLARE_OFF,
    I_DECLARATIONS,
    I_GRANDE,
    I_PICCOLA,
    I_TOTAL,
    KINGS,
    MATTA_BIT,
    MATTA_CARD,
    MATTA_DECLARE,
    MATTA_NONE,
    MATTA_PLAY,
    MAX_PLAYS,
    MODE_HANDS,
    MODE_MATCHES,
    N_ITEMS,
    N_ITEMS_CIRULLA,
    N_ROW_COLS,
    N_RULES,
    N_STATE,
    POLICY_LEARNED,
    POLICY_RANDOM,
    PRIMIERA_CLASSIC,
    R_ACE_SWEEP,
    R_ACE_SWEEP_SCOPA,
    R_ACES_REDEAL,
    R_CAPTURE_HAND,
    R_CAPTURE_OPTIONAL,
    R_CIRULLA,
    R_DECK,
    R_DECLARE,
    R_FOUR_SEVENS,
    R_HAND_SIZE,
    R_KINGS_REDEAL,
    R_LAST_PLAY_SCOPA,
    R_MATCH_PRIORITY,
    R_MATTA,
    R_MISSING_ZERO,
    R_NAPOLA,
    R_NAPOLA_FIXED3,
    R_OPENING_COUNT,
    R_PICCOLA_MAX,
    R_PLAYERS,
    R_PRIMIERA_SEVENS,
    R_RE_BELLO,
    R_REMAINDER_DEALER,
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
    STREAM_PLAY,
    VALUE,
    VALUE_MASK,
    deck_cards,
)
from .learned_cirulla import choose_learned_cirulla, learned_scratch_cirulla
from .pipeline import STEPS
from .policy import EXPERT_SCRATCH
from .policy_cirulla import EXPERT_DECLARES
from .scoring import (
    all_denari_wins,
    items_with_cirulla,
    match_winner,
    scoring_options,
    side_stats,
)
from .step import (
    META_DECLARATION,
    apply_play_cirulla,
    choose_cirulla,
    legal_plays_cirulla,
)
from .streams import (
    RNG_WORDS,
    draw,
    fisher_yates,
    rand_below,
    seed_finish,
)

__all__ = [
    "CIRULLA_ITEMS",
    "C_CIRULLA",
    "N_ROW_COLS_CIRULLA",
    "PLAIN_RULES",
    "cirulla_kernel",
    "fused_hands_cirulla",
    "fused_hands_cirulla_2p",
    "fused_rows_cirulla",
    "is_cirulla",
    "is_plain_cirulla",
]

#: A Cirulla row's extra columns, after the others (``out[C_CIRULLA + 3 * side + k,
#: row]``): the side's grande, piccola and declared points (``CIRULLA_ITEMS`` order).
C_CIRULLA = N_ROW_COLS
CIRULLA_ITEMS = (I_GRANDE, I_PICCOLA, I_DECLARATIONS)
N_ROW_COLS_CIRULLA = C_CIRULLA + 4 * len(CIRULLA_ITEMS)


@njit(cache=True, inline="always")
def _card_info(v, table, p, sweep, priority):
    """The captures of a card of value ``v`` under Cirulla's rule (as
    :func:`.capture.add_captures_cirulla` lists them) counted from the table's one-word
    packed counts ``p`` (exact up to ``BIG_TABLE4`` cards; ``sweep``: an ace sweeps this
    table), packed in 21 bits: all of them (k, bits 0-9), the matches (a,
    bits 10-12) and the sums of two or more cards (b, bits 13-20), the rest being
    fifteens. Without ``sum_capture=fewest``."""
    # selects rather than branches (an empty table has no lanes but the empty sum's)
    a = popcount(table & VALUE_MASK[v])
    sums = lane4(p, v) - a
    b = 0 if (a != 0) & priority else sums
    k = a + b + lane4(p, 15 - v)
    info = k | (a << 10) | (b << 13)
    return np.int64(1) if (v == 1) & sweep else np.int64(info)  # the ace sweep alone


@njit(cache=True, inline="always")
def _declaration_of(u1, u2, u3, joker):
    """:func:`.capture.declaration_points` of three cards worth ``u1``, ``u2`` and ``u3``
    (with ``joker``, the third is the wild matta, ``u3`` unread): 10 for three of a kind
    (the matta making any pair one), else 3 when the values add up to 9 or less (the
    matta counting 1), else 0."""
    if u1 == u2 and (joker or u2 == u3):
        return 10
    return 3 if u1 + u2 + (1 if joker else u3) <= 9 else 0


#: A card index past any card of a hand (the loop's hands hold at most three cards), OR-ed
#: into a mask before ``ctz`` so that an empty one gives a valid index.
_PAST = np.int64(1) << 39


@njit(cache=True, inline="always")
def _pick(x0, x1, x2, m1, m2):
    """``x2`` where the mask ``m2`` is all ones, else ``x1`` where ``m1`` is, else ``x0``:
    a choice by bit masks, with no branch (the masks are 0 or -1)."""
    x = x0 ^ ((x0 ^ x1) & m1)
    return x ^ ((x ^ x2) & m2)


@njit(cache=True, inline="always")
def _random_play(hand, table, p, z, spare, ace_rule, priority, capture_hand, optional, declare,
                 wild):  # fmt: skip
    """A uniform draw among the Cirulla plays of ``hand`` at ``table`` in
    :func:`.step.legal_plays_cirulla`'s order, with the same draw from the play stream
    ``(z, spare)`` (``rand_below`` of their number), the plays counted per card from the
    one-word packed counts ``p`` and only the chosen one built; return ``(card, take,
    meta, z, spare)``. For hands of at most three cards (Cirulla's), tables of at most
    ``BIG_TABLE4`` cards, without ``sum_capture=fewest`` and the matta played with a
    named value (the caller checks).

    The three cards are written out (no loop over the hand). The drawn card, its counts
    and value, and the equal card a match takes are chosen by bit masks, without a branch
    (1.03 times as fast as the branches the compiler made of the selects: their outcome
    is the random draw's, a coin flip for the predictor); a set adding up (a fifth of the
    plays) is ranked behind a branch, and applying the play (:func:`_apply`) is left to
    branches, whose branch-free form measured slower. A hand that may declare (a few
    plays in a hundred) draws behind a branch too, which keeps the declaration's choice
    off the other plays' path (1.04 times as fast as its selects; its points computed
    without a branch measured 1.05 times slower)."""
    sweep = ace_rule and table != 0 and (table & ACES) == 0
    # the cards, lowest first; an absent one (``has*`` false) counts nothing
    c0 = ctz(hand | _PAST)
    h1 = hand & (hand - 1)
    c1 = ctz(h1 | _PAST)
    h2 = h1 & (h1 - 1)
    c2 = ctz(h2 | _PAST)
    has0 = hand != 0
    has1 = h1 != 0
    has2 = h2 != 0
    v0 = VALUE[c0]
    v1 = VALUE[c1]
    v2 = VALUE[c2]
    i0 = _card_info(v0, table, p, sweep, priority)
    i1 = _card_info(v1, table, p, sweep, priority)
    i2 = _card_info(v2, table, p, sweep, priority)
    k0 = (i0 & 1023) if has0 else 0
    k1 = (i1 & 1023) if has1 else 0
    k2 = (i2 & 1023) if has2 else 0
    captures = k0 + k1 + k2
    lay_ok = optional or not (capture_hand and captures)
    # each card's plays: its captures, then its lay (with free lays, or when it has no
    # capture and a lay is allowed: not under capture_rule=hand once some card captures)
    n0 = np.int64(k0 + (1 if optional or (k0 == 0 and lay_ok) else 0)) if has0 else np.int64(0)
    n1 = np.int64(k1 + (1 if optional or (k1 == 0 and lay_ok) else 0)) if has1 else np.int64(0)
    n2 = np.int64(k2 + (1 if optional or (k2 == 0 and lay_ok) else 0)) if has2 else np.int64(0)
    total = n0 + n1 + n2
    points = 0
    if declare != DECLARE_OFF and has2:  # three cards (the most a hand holds)
        if wild and (hand & MATTA_BIT) != 0:  # the two other cards' values
            ua = v1 if c0 == MATTA_CARD else v0
            ub = v1 if c2 == MATTA_CARD else v2
            points = _declaration_of(ua, ub, 0, True)
        else:  # the values read above
            points = _declaration_of(v0, v1, v2, False)
    meta = np.int64(0)
    if points:  # a hand that may declare (rare): by choice, each play declared or not
        n = total if declare == DECLARE_AUTO else total * 2
        z, spare, r = draw(z, spare, n)
        if declare == DECLARE_AUTO or r >= total:
            meta = np.int64(points) << META_DECLARATION
            if r >= total:
                r -= total
    else:
        z, spare, r = draw(z, spare, total)
    # the card of the r-th play: the last one whose plays start at or before r (a card
    # without plays shares its start with the next one), chosen by masks (no branch)
    s1 = n0
    s2 = n0 + n1
    m1 = -np.int64(has1 and s1 <= r)
    m2 = -np.int64(has2 and s2 <= r)
    card = _pick(c0, c1, c2, m1, m2)
    r -= _pick(0, s1, s2, m1, m2)
    info = _pick(i0, i1, i2, m1, m2)
    v = _pick(v0, v1, v2, m1, m2)
    k = info & 1023
    a = (info >> 10) & 7
    b = (info >> 13) & 255
    # its r-th play: the ace sweep, the r-th equal card on the table (r < a), a set adding
    # up to v, then one adding up to 15 - v, else (r = k) its lay
    same = table & VALUE_MASK[np.uint64(v)]
    drop1 = -np.int64(r >= 1)
    drop2 = -np.int64(r >= 2)
    same &= (same - 1) | ~drop1
    same &= (same - 1) | ~drop2
    swept = (v == 1) & sweep
    take = same & -same
    take = take ^ ((take ^ table) & -np.int64(swept))
    if (r < k) & (r >= a) & (not swept):
        sums = r < a + b  # the sets of 2 or more worth v come before those worth 15 - v
        take = sum_take4(table, p, v if sums else 15 - v, r - a if sums else r - a - b)
    take &= -np.int64(r < k)
    return card, take, meta, z, spare


@njit(cache=True, inline="always")
def _apply(state, turn, side, hand, table, p, lc, card, take, meta, plays, pos, ncards,
           players, ace_rule, ace_scopa, lps, total, table_cards, hand_size, remainder_dealer,
           dealer_side):  # fmt: skip
    """:func:`.step.apply_play_cirulla` written out for the loop's random plays (the seat
    ``turn`` of side ``side`` plays ``card`` from ``hand`` on ``table``, whose one-word
    packed counts ``p`` follow the cards that come and go; ``lc``: the last capturer), a
    new deal from ``pos`` as there and the hand's end as :func:`.step.next_round` (the
    remainder to its side, the hand done); the state vector is kept but for its
    subset-sum bitset ``S_REACH``, which the loop sets before any other decision.
    Returns ``(table, p, lc, turn, plays, pos, ended)``. The tests hold the loop's
    rows equal to the step kernels'."""
    bit = np.int64(1) << card
    points = (meta >> META_DECLARATION) & 15
    if points:
        state[np.uint64(S_DECLARED + side)] += points
        state[S_SHOWN] |= 1 << turn
    state[np.uint64(S_HANDS + turn)] = hand ^ bit
    plays += 1
    state[S_PLAYS] = plays
    if take:
        left = table & ~take
        state[np.uint64(S_PILES + side)] |= take | bit
        lc = side
        state[S_LAST_CAPTURER] = side
        if left == 0:
            p = np.int64(1)
            if lps or plays != total:
                value = meta & 15
                value = value if value else VALUE[card]
                sweep = ace_rule and value == 1 and (table & ACES) == 0
                if ace_scopa or not sweep:
                    state[np.uint64(S_SCOPE + side)] += 1
        else:  # each card taken leaves the packed counts
            m = take
            while m:
                p = p * SHRINK4[VALUE[ctz(m)]]
                m &= m - 1
        table = left
    else:  # the card laid joins them
        table |= bit
        p = p * GROW4[VALUE[card]]
    state[S_TABLE] = table
    turn += 1
    turn = 0 if turn >= players else turn
    state[S_TURN] = turn
    ended = False
    if plays + table_cards == pos:  # every hand is empty: deal, or end the hand
        state[S_SHOWN] = 0
        if pos < ncards:
            first = state[S_DEALER] + 1
            first = 0 if first >= players else first
            pos, _ = deal_round_cards(state, S_DECK, pos, ncards, hand_size, players, first,
                                      state, S_HANDS)  # fmt: skip
            state[S_STOCK] = pos
        else:
            if table:
                owner = remainder_side(remainder_dealer, dealer_side, lc)
                if owner >= 0:
                    state[S_PILES + owner] |= table
            state[S_TABLE] = 0
            state[S_REACH] = 1
            state[S_DONE] = 1
            ended = True
    return table, p, lc, turn, plays, pos, ended


@njit(cache=True, inline="always")
def _deal(state, rules, deck, canon, ncards, dealer, z, players, teams, table_cards, hand_size,
          kings_rule, aces_rule, counting, wild):  # fmt: skip
    """:func:`.streams.shuffle_deal_cirulla` (``deck[:ncards]``, the state vector's deck
    order ``state[S_DECK:]``, shuffled in place from ``canon`` by the deal stream's
    counter ``z`` again while the table is void: two aces with
    ``aces_rule``, three kings with ``kings_rule``) then :func:`.step.start_hand_cirulla`
    (``counting``: ``opening_count``; ``wild``: the matta counts in it), written out in
    the loop but for the table's subset-sum bitset ``S_REACH``, which the loop sets before
    a decision of the step kernels; returns the number of void deals. The tests hold the
    rows equal."""
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
    for i in range(S_DECK):  # the state cleared but for the deck order just shuffled
        state[i] = 0
    for i in range(S_DECK + ncards, N_STATE):
        state[i] = 0
    state[S_DECK_SIZE] = ncards
    state[S_TABLE] = t
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
    return _fused_hands_cirulla(rules, policies, seed, first_unit, count, mode, out_points,
                                out_cols, model, False)  # fmt: skip


@njit(cache=True, nogil=True, pipeline_class=STEPS)
def fused_hands_cirulla_2p(rules, policies, seed, first_unit, count, mode, out_points, out_cols,
                           model):  # fmt: skip
    """:func:`fused_hands_cirulla` for the rules :func:`is_plain_cirulla` accepts (the
    ``cirulla`` preset's options wherever the loop branches on one), those options
    compiled in as constants (faster: benchmarks/results/cirulla-speed.json); the same
    results."""
    return _fused_hands_cirulla(rules, policies, seed, first_unit, count, mode, out_points,
                                out_cols, model, True)  # fmt: skip


@njit(cache=True, inline="always")
def _fused_hands_cirulla(rules, policies, seed, first_unit, count, mode, out_points, out_cols,
                         model, plain):  # fmt: skip
    """The body of :func:`fused_hands_cirulla`, inlined into each entry point so that with
    ``plain`` (the rules are :data:`PLAIN_RULES`' values, :func:`is_plain_cirulla`) those
    options fold to constants and their branches drop out."""
    players = 2 if plain else rules[R_PLAYERS]
    ns = 2 if plain else rules[R_SIDES]
    state = np.zeros(N_STATE, dtype=np.int64)
    deck = state[S_DECK : S_DECK + 40]  # shuffled in place: the state vector's deck order
    canon = np.empty(40, dtype=np.int64)
    ncards = deck_cards(rules, canon)
    ncards = 40 if plain else ncards
    kings_rule = False if plain else rules[R_KINGS_REDEAL] != 0
    aces_rule = True if plain else rules[R_ACES_REDEAL] != 0
    counting = True if plain else rules[R_OPENING_COUNT] != 0
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
    ace_rule = True if plain else rules[R_ACE_SWEEP] != 0
    ace_scopa = True if plain else rules[R_ACE_SWEEP_SCOPA] != 0
    lps = False if plain else rules[R_LAST_PLAY_SCOPA] != 0
    teams = False if plain else rules[R_TEAMS] != 0
    total = 36 if plain else rules[R_TOTAL_PLAYS]
    table_cards = 4 if plain else rules[R_TABLE_CARDS]
    hand_size = 3 if plain else rules[R_HAND_SIZE]
    priority = True if plain else rules[R_MATCH_PRIORITY] != 0
    capture_hand = False if plain else rules[R_CAPTURE_HAND] != 0
    optional = False if plain else rules[R_CAPTURE_OPTIONAL] != 0
    declare = DECLARE_CHOICE if plain else rules[R_DECLARE]
    wild = True if plain else rules[R_MATTA] != MATTA_NONE
    named = False if plain else rules[R_MATTA] == MATTA_PLAY
    fewest = False if plain else rules[R_SUM_FEWEST] != 0
    remainder_dealer = False if plain else rules[R_REMAINDER_DEALER] != 0
    scoring = PLAIN_SCORING if plain else scoring_options(rules)
    most = PLAIN_PICCOLA_MAX if plain else rules[R_PICCOLA_MAX]
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
        full, dealer, prefix = unit_start(
            seed, first_unit, done, hand_no, row, cap, mode, players, dealer, totals
        )
        if full:
            return done, row
        redeals = _deal(
            state, rules, deck, canon, ncards, dealer, seed_finish(prefix, STREAM_DEAL), players,
            teams, table_cards, hand_size, kings_rule, aces_rule, counting, wild,
        )  # fmt: skip
        z = seed_finish(prefix, STREAM_PLAY)  # the play stream, (z, spare) as in rng
        spare = np.uint64(0)
        # the position's hot part in locals: the table and its packed counts, the seat to
        # play, the plays made and the stock's position (the state vector kept as well)
        table = state[S_TABLE]
        p = packed4_of(table)
        turn = state[S_TURN]
        plays = np.int64(0)
        pos = state[S_STOCK]
        lc = state[S_LAST_CAPTURER]
        dealer_side = dealer & 1 if teams else dealer
        while True:
            hand = state[np.uint64(S_HANDS + turn)]
            pol = policies[np.uint64(turn)]
            if (
                pol == POLICY_RANDOM
                and not fewest
                and not (named and hand & MATTA_BIT)
                and popcount(table) <= BIG_TABLE4
            ):
                card, take, meta, z, spare = _random_play(
                    hand, table, p, z, spare, ace_rule, priority, capture_hand, optional,
                    declare, wild,
                )  # fmt: skip
                side = turn & 1 if teams else turn
                table, p, lc, turn, plays, pos, ended = _apply(
                    state, turn, side, hand, table, p, lc, card, take, meta, plays, pos,
                    ncards, players, ace_rule, ace_scopa, lps, total, table_cards, hand_size,
                    remainder_dealer, dealer_side,
                )  # fmt: skip
                if ended:
                    break
                continue
            state[S_REACH] = table_reach(table, True)
            n = legal_plays_cirulla(state, rules, bc, btk, bmt, sc)
            rng[0] = z
            rng[1] = spare
            if pol == POLICY_RANDOM:
                i = rand_below(rng, n)
            elif policies[turn] == POLICY_LEARNED:
                i = choose_learned_cirulla(state, rules, POLICY_LEARNED, model, rng, bc, btk, bmt,
                                           n, ls)  # fmt: skip
            else:
                i = choose_cirulla(state, rules, pol, rng, bc, btk, bmt, n,
                                   EXPERT_DECLARES, vals, xs, bt, bm, sc)  # fmt: skip
            z = rng[0]
            spare = rng[1]
            apply_play_cirulla(state, rules, bc[i], btk[i], bmt[i])
            if state[S_DONE]:
                break
            table = state[S_TABLE]
            p = packed4_of(table)
            turn = state[S_TURN]
            plays = state[S_PLAYS]
            pos = state[S_STOCK]
            lc = state[S_LAST_CAPTURER]
        items_with_cirulla(scoring, most, state, S_PILES, state, S_SCOPE, state, S_DECLARED, it)
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
        done, hand_no, dealer = unit_end(mode, winner, done, hand_no, dealer, players)
    return count, row


#: The rules vector's entries (index, value) that :func:`fused_hands_cirulla_2p` compiles
#: in: the ``cirulla`` preset's values of the options the loop branches on (two players
#: without teams, the 40-card deck, 4 table cards and hands of 3, no kings' redeal, the
#: aces' void deal and the opening count, the ace sweep scoring a scopa, no last-play
#: scopa, the matches' priority, compulsory captures of any set by the card played, the
#: matta declared, declarations by choice, the remainder to the last capturer) and of
#: the scoring options (no re bello, napola or four sevens' point, the classic primiera,
#: which a side missing a suit cannot win, the piccola up to 6).
PLAIN_RULES = (
    (R_PLAYERS, 2),
    (R_SIDES, 2),
    (R_TEAMS, 0),
    (R_DECK, 40),
    (R_TOTAL_PLAYS, 36),
    (R_TABLE_CARDS, 4),
    (R_HAND_SIZE, 3),
    (R_KINGS_REDEAL, 0),
    (R_ACES_REDEAL, 1),
    (R_OPENING_COUNT, 1),
    (R_ACE_SWEEP, 1),
    (R_ACE_SWEEP_SCOPA, 1),
    (R_LAST_PLAY_SCOPA, 0),
    (R_MATCH_PRIORITY, 1),
    (R_CAPTURE_HAND, 0),
    (R_CAPTURE_OPTIONAL, 0),
    (R_SUM_FEWEST, 0),
    (R_MATTA, MATTA_DECLARE),
    (R_DECLARE, DECLARE_CHOICE),
    (R_REMAINDER_DEALER, 0),
    (R_RE_BELLO, 0),
    (R_NAPOLA, 0),
    (R_NAPOLA_FIXED3, 0),
    (R_FOUR_SEVENS, 0),
    (R_PRIMIERA_SEVENS, PRIMIERA_CLASSIC),
    (R_MISSING_ZERO, 0),
    (R_PICCOLA_MAX, 6),
)


_PLAIN_VECTOR = np.zeros(N_RULES, dtype=np.int64)
_PLAIN_VECTOR[[i for i, _ in PLAIN_RULES]] = [v for _, v in PLAIN_RULES]
#: :func:`.scoring.scoring_options` and ``piccola_max`` of :data:`PLAIN_RULES`: the
#: constants :func:`fused_hands_cirulla_2p` scores with.
PLAIN_SCORING = tuple(scoring_options.py_func(_PLAIN_VECTOR))
PLAIN_PICCOLA_MAX = int(_PLAIN_VECTOR[R_PICCOLA_MAX])


def is_plain_cirulla(rules):
    """Whether the Cirulla rules vector ``rules`` holds every :data:`PLAIN_RULES` value,
    so that :func:`fused_hands_cirulla_2p` plays it."""
    return all(int(rules[i]) == v for i, v in PLAIN_RULES)


def cirulla_kernel(rules):
    """The compiled Cirulla loop for the rules vector ``rules``:
    :func:`fused_hands_cirulla_2p` when :func:`is_plain_cirulla`, else
    :func:`fused_hands_cirulla` (both take the same arguments and give the same
    results)."""
    return fused_hands_cirulla_2p if is_plain_cirulla(rules) else fused_hands_cirulla


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
    kernel = cirulla_kernel(rules)
    return kernel(rules, policies, seed, first_unit, n_units, mode, none, out, m)
