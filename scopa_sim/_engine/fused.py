"""The fused self-play loop: shuffling, dealing, playing and scoring of many hands in
one jitted loop over locals, with the same random draws and results as the step
kernels (:mod:`.step`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import ctz, popcount
from .capture import (
    BIG_TABLE,
    BIG_TABLE15,
    GROW,
    GROW_SHRINK,
    LANES,
    SHRINK,
    capture_count,
    card_captures,
    card_captures_fewest,
    count_captures,
    is_capture,
    nth_capture,
    opening_take,
    packed_of,
    play_on_table,
    remainder_side,
    table_reach,
    take_of_play,
    take_of_play15,
    value_sum,
)
from .deals import deal_round_cards
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
    I_TOTAL,
    KINGS,
    MAX_HANDS_PER_MATCH,
    MAX_PLAYS,
    MODE_HANDS,
    MODE_MATCHES,
    MODE_SELFPLAY,
    N_ITEMS,
    N_STATE,
    N_WORK,
    POLICY_EXPERT,
    POLICY_LEARNED,
    POLICY_RANDOM,
    R_ACE_SWEEP,
    R_ACE_SWEEP_SCOPA,
    R_ALL_DENARI_WINS,
    R_CAPTURE_FIFTEEN,
    R_CAPTURE_HAND,
    R_CAPTURE_OPTIONAL,
    R_DECK,
    R_DECK_MASK,
    R_FOUR_SEVENS,
    R_HAND_SIZE,
    R_KINGS_REDEAL,
    R_LAST_PLAY_SCOPA,
    R_MISSING_ZERO,
    R_NAPOLA,
    R_NAPOLA_FIXED3,
    R_OPENING_FIFTEEN,
    R_OPENING_FIRST,
    R_PLAYERS,
    R_PRIMIERA_SEVENS,
    R_RE_BELLO,
    R_REMAINDER_DEALER,
    R_SUM_FEWEST,
    R_TABLE_CARDS,
    R_TARGET,
    R_TEAMS,
    R_TOTAL_PLAYS,
    S_DEALER,
    S_DECK,
    S_DECK_SIZE,
    S_HANDS,
    S_LAST_CAPTURER,
    S_PILES,
    S_PLAYS,
    S_REACH,
    S_SCOPE,
    S_STOCK,
    S_TABLE,
    S_TURN,
    SAME_MASK,
    SCRATCH,
    STREAM_DEAL,
    STREAM_DEALER,
    STREAM_PLAY,
    VALUE,
    W_HANDS,
    W_PILES,
    W_SCOPE,
    deck_cards,
)
from .learned import (
    EXACT_TT,
    MAX_ACTIVE,
    N_DENSE,
    WORLDS_UNIT,
    choose_learned,
    exact_table,
    hidden_width,
)
from .pipeline import STEPS
from .policy import (
    EXPERT_SCRATCH,
    expert_flags,
    expert_play_value,
    expert_play_value15,
    expert_view,
    greedy_score,
    to_fixed,
)
from .scoring import item_winners, match_winner, side_items, side_stats
from .step import legal_plays
from .streams import (
    GOLDEN,
    RNG_WORDS,
    below,
    derive_seed,
    draw,
    fisher_yates,
    seed_finish,
    seed_prefix,
)

__all__ = [
    "NO_MODEL",
    "fused_hands",
    "fused_hands15",
    "fused_hands15_2p",
    "fused_hands_2p",
    "fused_kernel",
    "fused_rows",
    "kernel_model",
    "selfplay_hands",
]


#: The model argument of the fused loop where no seat plays ``learned``.
NO_MODEL = np.empty(0)


def kernel_model(policies, model):
    """The model vector the fused loop takes for the kernel policy codes ``policies``:
    ``model`` (float64, C-contiguous) when given, else the empty :data:`NO_MODEL`.

    Raises:
        ValueError: a seat plays ``learned`` (``POLICY_LEARNED``) and no model is given.
    """
    if model is None or model.shape[0] == 0:
        if (np.asarray(policies) % WORLDS_UNIT == POLICY_LEARNED).any():
            raise ValueError("a seat plays the learned policy: its model is needed")
        return NO_MODEL
    return np.ascontiguousarray(model, dtype=np.float64)


def selfplay_hands(rules, policies, seed, count, out_points, model=None):
    """Play ``count`` independent hands (dealer = hand index mod players); write each
    side's points to ``out_points[hand, side]``. Deal and play streams are derived from
    (seed, hand) so results do not depend on how work is split (see :func:`fused_hands`).
    ``model``: the learned policy's model vector, needed where a seat plays it
    (:func:`kernel_model`).
    """
    fused_kernel(rules)(
        rules, policies, kernel_model(policies, model), seed, 0, count, MODE_SELFPLAY,
        out_points, np.empty((0, 0), np.int32),
    )  # fmt: skip


def fused_kernel(rules):
    """The compiled :func:`fused_hands` for a rules vector: under Scopa's capture rule the
    two-player fast path :func:`fused_hands_2p` when it applies, else the general
    kernel; under the fifteen rule (RULES.md §9) :func:`fused_hands15_2p` or
    :func:`fused_hands15`, the same loop with that rule compiled in."""
    plain_2p = (
        rules[R_PLAYERS] == 2
        and not rules[R_TEAMS]
        and not rules[R_ACE_SWEEP]
        and not rules[R_SUM_FEWEST]
        and not rules[R_CAPTURE_HAND]
    )
    if rules[R_CAPTURE_FIFTEEN]:
        return fused_hands15_2p if plain_2p else fused_hands15
    return fused_hands_2p if plain_2p and not rules[R_CAPTURE_OPTIONAL] else fused_hands


@njit(cache=True, nogil=True, pipeline_class=STEPS)
def fused_hands(rules, policies, model, seed, first_unit, count, mode, out_points, out_cols):
    """Units ``first_unit .. first_unit + count - 1`` played with kernel policies (one code
    a seat; ``model``: the learned policy's model vector, the empty vector where no seat
    plays ``POLICY_LEARNED``); return (units done, rows written). A unit is a hand, or
    with ``mode=MODE_MATCHES`` a match to the target. Each side's points go to
    ``out_points[row, side]`` (unless it has no rows) and the hand's row (``C_*``
    columns) to ``out_cols[:, row]`` (unless it has no columns; ``C_MATCH`` holds the
    unit's offset in this call). With matches the call stops early, before a unit that
    could overflow ``out_cols``.

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
        rules, policies, model, seed, first_unit, count, mode, out_points, out_cols,
        rules[R_PLAYERS], rules[R_TEAMS] != 0, rules[R_ACE_SWEEP] != 0,
        rules[R_SUM_FEWEST] != 0, rules[R_CAPTURE_HAND] != 0, rules[R_CAPTURE_OPTIONAL] != 0,
        False, False,
    )  # fmt: skip


@njit(cache=True, nogil=True, pipeline_class=STEPS)
def fused_hands_2p(rules, policies, model, seed, first_unit, count, mode, out_points, out_cols):
    """:func:`fused_hands` for two players without teams, ace sweep, ``sum_capture=fewest``,
    ``capture_rule=hand`` or free lays (``scopa``, ``scopa-36`` and most of their
    variants), with those options compiled in as constants (faster: docs/results/
    benchmarks.md, "Engine design choices"); returns what :func:`fused_hands` returns."""
    return _fused_hands(
        rules, policies, model, seed, first_unit, count, mode, out_points, out_cols,
        2, False, False, False, False, False, False, False,
    )  # fmt: skip


@njit(cache=True, nogil=True, pipeline_class=STEPS)
def fused_hands15(rules, policies, model, seed, first_unit, count, mode, out_points, out_cols):
    """:func:`fused_hands` under the fifteen rule (``capture_mode=fifteen``, RULES.md §9)."""
    return _fused_hands(
        rules, policies, model, seed, first_unit, count, mode, out_points, out_cols,
        rules[R_PLAYERS], rules[R_TEAMS] != 0, False, rules[R_SUM_FEWEST] != 0,
        rules[R_CAPTURE_HAND] != 0, rules[R_CAPTURE_OPTIONAL] != 0, True,
        rules[R_OPENING_FIFTEEN] != 0,
    )  # fmt: skip


@njit(cache=True, nogil=True, pipeline_class=STEPS)
def fused_hands15_2p(rules, policies, model, seed, first_unit, count, mode, out_points, out_cols):
    """:func:`fused_hands15` for two players without teams, ``sum_capture=fewest`` or
    ``capture_rule=hand`` (``scopa-15``, ``escoba``), those options compiled in."""
    return _fused_hands(
        rules, policies, model, seed, first_unit, count, mode, out_points, out_cols,
        2, False, False, False, False, rules[R_CAPTURE_OPTIONAL] != 0, True,
        rules[R_OPENING_FIFTEEN] != 0,
    )  # fmt: skip


@njit(cache=True)
def _step_decision(st, rules, policy, model, rng, bc, bt, sc, w, deck, table, turn, plays, pos,
                   dealer, last_capturer, z, spare, idx, dense, acc, xs, tt):  # fmt: skip
    """A decision of the fused loop made by the step kernels, for a table too big for
    the packed subset counts (reachable only with free lays or under the fifteen rule)
    and for every decision of a ``learned`` seat: the position as a state vector ``st``,
    then :func:`.step.legal_plays` and :func:`.learned.choose_learned` (``learned``
    playing ``model``, the others :func:`.step.choose_play`), which list the plays in
    the same order and draw the same numbers from the play stream ``(z, spare)``;
    ``idx``, ``dense``, ``acc``, ``xs``, ``tt``: ``choose_learned``'s scratch; return
    ``(card, take, z, spare)``."""
    for i in range(N_STATE):
        st[i] = 0
    for s in range(4):
        st[S_HANDS + s] = w[W_HANDS + s]
        st[S_PILES + s] = w[W_PILES + s]
        st[S_SCOPE + s] = w[W_SCOPE + s]
    size = rules[R_DECK]
    for i in range(size):
        st[S_DECK + i] = deck[i]
    st[S_TABLE] = table
    st[S_REACH] = table_reach(table, rules[R_CAPTURE_FIFTEEN] != 0)
    st[S_LAST_CAPTURER] = last_capturer
    st[S_TURN] = turn
    st[S_STOCK] = pos
    st[S_PLAYS] = plays
    st[S_DEALER] = dealer
    st[S_DECK_SIZE] = size
    rng[0] = z
    rng[1] = spare
    n = legal_plays(st, rules, bc, bt, sc)
    i = choose_learned(st, rules, policy, model, rng, bc, bt, n, idx, dense, acc, xs, tt)
    return bc[i], bt[i], rng[0], rng[1]


@njit(cache=True, inline="always")
def _shuffle(deck, canon, ncards, z, kings_redeal, table_cards):
    """:func:`.streams.shuffle_deal` in the fused loop: ``deck[:ncards]`` shuffled from
    ``canon`` by the deal stream's counter ``z``, again while the table would get three
    or more kings with ``kings_redeal``; return the counter and the number of redeals."""
    redeals = 0
    while True:
        for i in range(ncards):
            deck[i] = canon[i]
        z = fisher_yates(deck, ncards, z)
        if not kings_redeal:
            break
        kings = 0
        for i in range(table_cards):
            kings += (KINGS >> deck[i]) & 1
        if kings < 3:
            break
        redeals += 1
    return z, redeals


@njit(cache=True, inline="always")
def _start(deck, w, table_cards, dealer, players, teams, fifteen, opening, opening_first):
    """:func:`.step.start_hand` in the fused loop: the work array ``w`` cleared and the
    table laid from ``deck``; return ``(table, packed, packed_hi, pos, first, turn,
    plays, last_capturer)`` (``packed``: the table's subset counts, see ``GROW``;
    ``opening_first``: the first player's side takes the opening, not the dealer's)."""
    for i in range(W_SCOPE + 4):
        w[i] = 0
    table = np.int64(0)
    packed = np.int64(1)
    packed_hi = np.int64(0)  # the fifteen rule's second word
    for i in range(table_cards):
        c = deck[i]
        table |= np.int64(1) << c
        if not fifteen:
            packed = (packed * GROW[VALUE[c]]) & LANES
    if fifteen:
        packed, packed_hi = packed_of(table, True)
    pos = table_cards
    first = dealer + 1
    if first == players:
        first = 0
    turn = first
    plays = 0
    last_capturer = -1
    if opening:  # opening_fifteen: the dealer's (or first player's) side takes 15s
        taken, scope = opening_take(table)
        if taken:
            taker = first if opening_first else dealer
            side = taker & 1 if teams else taker
            w[W_PILES + side] = taken
            w[W_SCOPE + side] = scope
            last_capturer = side
            table = np.int64(0)
            packed = np.int64(1)
            packed_hi = np.int64(0)
    return table, packed, packed_hi, pos, first, turn, plays, last_capturer


@njit(cache=True, inline="always")
def _deal_round(deck, w, pos, size, hand_size, players, first):
    """The next round's deal in the fused loop (:func:`.deals.deal_round_cards`) from
    ``deck[pos:size]`` into the work array's hands, from seat ``first`` on; returns the
    new stock position."""
    pos, _ = deal_round_cards(deck, 0, pos, size, hand_size, players, first, w, W_HANDS)
    return pos


@njit(cache=True, inline="always")
def _count_plays(hand, table, packed, packed_hi, ace_rule, fewest, capture_hand, optional,
                 fifteen, plain_counts, big_table):  # fmt: skip
    """The plays of ``hand`` at ``table`` counted per card, for the fused loop's draw:
    return ``(sweep_aces, big, n, counts, rare, lay_ok, one)``: the aces an ace sweep
    takes, whether the table is too big for the packed counts (the step kernels then
    decide), the number of plays, the per-card counts and ``rare`` bits (below), whether
    a lay is allowed and whether the hand is a single card."""
    # Plays per card: an ace sweep, one per equal card, the sum captures, or a
    # lay (none left with capture_rule=hand once any card captures).  The play
    # counts (at most 26) are kept 5 bits per card in ``counts``.
    sweep_aces = ACES if ace_rule and table != 0 and (table & ACES) == 0 else 0
    big = False
    if fifteen or optional:
        big = popcount(table) > big_table
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
    if big:
        pass  # the step kernels decide, below
    elif fifteen:  # every capture is a set adding up (no "rare" bits needed)
        # The plays per card (at most 228: 227 sets for a table of 11 cards, and
        # the lay) are kept 8 bits per card in ``counts`` for hands of up to 8
        # cards (``rare`` = 1: read them); else found again after the draw.
        captures = np.int64(0)
        while m:
            c = ctz(m)
            m &= m - 1
            k = count_captures(c, table, packed, packed_hi, 0, fewest, True)
            captures += k
            k += 1 if optional or k == 0 else 0
            if shift < 64:  # (a shift by 64 or more is undefined)
                counts |= k << shift
            shift += 8
            n += k
        rare = np.int64(1 if shift <= 64 else 0)
        lay_ok = optional or not (capture_hand and captures)
        if not lay_ok and captures < n:  # drop the lays
            n = captures
            rare = np.int64(0)
    elif plain_counts and one:
        c = ctz(hand)
        k = card_captures(c, table, packed, sweep_aces)
        rare = np.int64((k != 0) & ((table & SAME_MASK[c]) == 0)) << c
        n = k + (k == 0)
    elif plain_counts:
        while m:
            c = ctz(m)
            m &= m - 1
            k = card_captures(c, table, packed, sweep_aces)
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
                k = card_captures_fewest(c, table, packed, sweep_aces)
            else:
                k = card_captures(c, table, packed, sweep_aces)
            rare |= np.int64((k != 0) & ((table & SAME_MASK[c]) == 0)) << c
            captures += k
            k += 1 if optional or k == 0 else 0
            counts |= k << shift
            shift += 5
            n += k
        lay_ok = optional or not (capture_hand and captures)
        if not lay_ok and captures < n:  # drop the lays
            n = captures
            m = hand
            shift = 0
            while m:
                c = ctz(m)
                m &= m - 1
                k = (counts >> shift) & 31
                if k == 1 and not is_capture(c, table, packed, sweep_aces):
                    counts ^= np.int64(1) << shift
                shift += 5
    return sweep_aces, big, n, counts, rare, lay_ok, one


@njit(cache=True, inline="always")
def _best_play(hand, table, packed, packed_hi, sweep_aces, fewest, optional, fifteen, lay_ok,
               expert, w, turn, players, teams, ns, deck_mask, size, pos, hand_size, plays,
               total, last_capturer, dealer, lps, xflags, xs, z, spare):  # fmt: skip
    """Greedy's or (``expert``) the expert's play in the fused loop: every play of
    ``hand`` scored, the best kept, ties broken uniformly by reservoir draws from the
    play stream ``(z, spare)``; return ``(card, take, z, spare)``.

    A step of :func:`_fused_hands`; ``tests/test_twins.py`` holds it equal to the step
    kernels' choice (:func:`.step.choose_play`)."""
    card = 0
    take = np.int64(0)
    not_last = plays + 1 < total
    table_sum = value_sum(table)
    # the expert's view: piles, unseen cards, the next seat's hand size
    pm = np.int64(0)
    po = np.int64(0)
    others = np.int64(0)
    unseen = np.int64(0)
    kn = 0
    lc_rel = 0
    d_rel = 0
    if expert:
        pm, po, others, unseen, kn, lc_rel, d_rel = expert_view(
            w, W_HANDS, W_PILES, turn, players, teams, ns, table, deck_mask,
            size - pos, hand_size, last_capturer, dealer,
        )  # fmt: skip
    seen_not = np.int64(0)  # greedy's unseen cards (the fifteen rule's risk)
    if fifteen and not expert:
        seen = hand | table
        for s in range(ns):
            seen |= w[np.uint64(W_PILES + s)]
        seen_not = deck_mask & ~seen
    best = -(1 << 62)
    ties = 0
    m = hand
    while m:
        c = ctz(m)
        m &= m - 1
        k, fsize, _ = capture_count(c, table, packed, packed_hi, sweep_aces, fewest, fifteen)
        lays = 1 if optional or (k == 0 and lay_ok) else 0
        for j in range(k + lays):
            t = (
                nth_capture(c, j, table, packed, packed_hi, sweep_aces, fsize, fifteen)
                if j < k
                else np.int64(0)
            )
            if t < 0:
                continue
            if expert and fifteen:
                val = to_fixed(expert_play_value15(
                    c, t, hand, table, pm, po, others, unseen, kn, plays, total,
                    lc_rel, d_rel, size, xflags, players == 2, xs,
                ))  # fmt: skip
            elif expert:
                val = to_fixed(expert_play_value(
                    c, t, hand, table, pm, po, others, unseen, kn, plays, total,
                    lc_rel, d_rel, size, xflags, players == 2, xs,
                ))  # fmt: skip
            else:
                val = greedy_score(table, table_sum, not_last, lps, c, t, fifteen, seen_not)
            if val > best:
                best = val
                ties = 1
                card = c
                take = t
            elif val == best:
                ties += 1
                z, spare, d = draw(z, spare, ties)
                if d == 0:  # reservoir: uniform among the ties
                    card = c
                    take = t
    return card, take, z, spare


@njit(cache=True, inline="always")
def _random_play15(hand, table, packed, packed_hi, fewest, optional, lay_ok, n, counts, rare,
                   one, z, spare):  # fmt: skip
    """A uniform play of ``hand`` under the fifteen rule in the fused loop, from the
    counts of :func:`_count_plays` (``rare`` = 1: ``counts`` holds them 8 bits per card;
    else they are counted again); return ``(card, take, z, spare)``."""
    z, spare, r = draw(z, spare, n)
    card = ctz(hand)  # the card of the r-th play, then its take
    if rare:  # from the counts, without data-dependent branches
        start = np.int64(0)
        first_r = np.int64(0)
        m = np.int64(0) if one else hand
        while m:
            c = ctz(m)
            m &= m - 1
            here = start <= r
            card = c if here else card
            first_r = start if here else first_r
            start += counts & 255
            counts >>= 8
        r -= first_r
    else:
        m = hand
        while m:
            card = ctz(m)
            m &= m - 1
            k = count_captures(card, table, packed, packed_hi, 0, fewest, True)
            k += 1 if optional or (k == 0 and lay_ok) else 0
            if r < k:
                break
            r -= k
    take = take_of_play15(card, r, table, packed, packed_hi, fewest)
    return card, take, z, spare


@njit(cache=True, inline="always")
def _random_play(hand, table, packed, sweep_aces, fewest, optional, n, counts, rare, one, z,
                 spare):  # fmt: skip
    """A uniform play of ``hand`` under Scopa's capture rule in the fused loop, from the
    per-card counts and ``rare`` bits of :func:`_count_plays`: the ``r``-th play drawn
    from the play stream ``(z, spare)``, its card found without data-dependent branches
    and only its take built; return ``(card, take, z, spare)``."""
    z, spare, r = draw(z, spare, n)
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
    take = take_of_play(card, r, table, packed, sweep_aces, fewest, rare, same, optional)
    return card, take, z, spare


@njit(cache=True, inline="always")
def _take_several(w, side, table, packed, card, bit, take, sweep_aces, plays, total, lps,
                  ace_scopa):  # fmt: skip
    """The fused loop's capture of several table cards (a sum capture or an ace sweep) by
    ``side``: the cards to its pile, the table's subset counts shrunk (reset when it is
    emptied, a scopa unless it is the hand's last play without ``last_play_scopa`` or an
    ace sweep without ``ace_sweep_scopa``); return ``(table, packed)``."""
    left = table & ~take
    w[np.uint64(W_PILES + side)] |= take | bit
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
    return table, packed


@njit(cache=True, inline="always")
def _finish_hand(w, it, totals, out_points, out_cols, keep_points, keep_rows, row, done, hand_no,
                 dealer, first, redeals, plays, table, last_capturer, mode, ns, teams,
                 remainder_dealer, sevens, missing_zero, re_bello, napola, napola_fixed3, target,
                 all_denari_wins, four_sevens):  # fmt: skip
    """The end of a hand in the fused loop: the table's remainder to its side, the items
    and points of each side (``it``; ``out_points[row]``), the match totals and winner
    with ``MODE_MATCHES`` (else ``totals`` are the hand's points) and the hand's row
    ``out_cols[:, row]``; return the match's winner (-1: none yet, or not a match)."""
    owner = remainder_side(remainder_dealer, dealer & 1 if teams else dealer, last_capturer)
    if table and owner >= 0:
        w[W_PILES + owner] |= table
    # ---------------------------------------------------------------- score_piles
    p0 = w[W_PILES]
    p1 = w[W_PILES + 1]
    p2 = w[W_PILES + 2] if ns > 2 else np.int64(0)
    p3 = w[W_PILES + 3] if ns > 3 else np.int64(0)
    winners = item_winners(p0, p1, p2, p3, ns, sevens, missing_zero)
    for s in range(ns):
        items = side_items(
            s, w[W_PILES + s], w[W_SCOPE + s], winners, re_bello, napola, napola_fixed3,
            four_sevens,
        )  # fmt: skip
        for k in range(N_ITEMS):
            it[s, k] = items[k]
        if keep_points:
            out_points[row, s] = items[I_TOTAL]
    winner = -1
    if mode == MODE_MATCHES:
        for s in range(ns):
            totals[s] += it[s, I_TOTAL]
        winner = match_winner(
            (totals[0], totals[1], totals[2], totals[3]),
            (w[W_PILES], w[W_PILES + 1], w[W_PILES + 2], w[W_PILES + 3]),
            ns, target, all_denari_wins,
        )  # fmt: skip
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
            stats = side_stats(p)
            for k in range(4):
                out_cols[C_STATS + 4 * s + k, row] = stats[k]
            out_cols[C_TOTALS + s, row] = totals[s]
        out_cols[C_WINNER, row] = winner
    return winner


@njit(cache=True, inline="always")
def unit_start(seed, first_unit, done, hand_no, row, cap, mode, players, dealer, totals):
    """The fused loops' bookkeeping before a hand (:func:`fused_hands`,
    :func:`.fused_cirulla.fused_hands_cirulla`): the hand ``hand_no`` of the unit
    ``first_unit + done``, whose first hand draws its dealer (``MODE_MATCHES``: from the
    dealer stream, the match ``totals`` reset) or takes it from the unit's number, the
    others keeping ``dealer``; return ``(full, dealer, prefix)``, ``full`` when a new match
    might not fit the ``cap`` rows of the output from ``row`` on (the call then stops),
    ``prefix`` the hand's streams' (:func:`.streams.seed_prefix`: the deal and play
    streams of a hand share it). Raises ``ValueError`` when a match outgrows the output
    or ``MAX_HANDS_PER_MATCH``."""
    unit = first_unit + done
    if hand_no == 0:
        if mode == MODE_MATCHES:
            if row + 64 > cap:  # a match of more hands than that is astronomically rare
                return True, dealer, np.uint64(0)
            dealer = below(derive_seed(seed, unit, 0, STREAM_DEALER) + GOLDEN, players)
            for s in range(4):
                totals[s] = 0
        else:
            dealer = unit % players
    elif hand_no == MAX_HANDS_PER_MATCH or row == cap:
        raise ValueError("fused loop: a match did not end within the output buffer")
    if mode == MODE_SELFPLAY:
        return False, dealer, seed_prefix(seed, 0, unit)
    return False, dealer, seed_prefix(seed, unit, hand_no)


@njit(cache=True, inline="always")
def unit_end(mode, winner, done, hand_no, dealer, players):
    """The fused loops' bookkeeping after a hand: the unit done (a hand, or a match that
    has a ``winner``), else the match's next hand, dealt by the next seat; return
    ``(done, hand_no, dealer)``."""
    if mode != MODE_MATCHES or winner >= 0:
        return done + 1, 0, dealer
    dealer += 1
    return done, hand_no + 1, 0 if dealer == players else dealer


@njit(cache=True, inline="always")
def _fused_hands(
    rules, policies, model, seed, first_unit, count, mode, out_points, out_cols,
    players, teams, ace_rule, fewest, capture_hand, optional, fifteen, opening,
):  # fmt: skip
    """The body of :func:`fused_hands`, inlined into each entry point so that the options
    given as arguments (players, teams, ace sweep, sum and capture rules, free lays, the
    fifteen rule and its opening take) fold to constants where an entry point fixes
    them. Written in named steps, each inlined (``inline="always"``); the entry points
    compile it with :data:`.pipeline.STEPS`, so that the steps' array arguments add no
    reference counting to the loop. Tables too big for the packed subset counts (free
    lays, the fifteen rule) and the decisions of ``learned`` seats are made by the step
    kernels (:func:`_step_decision`).
    Returns ``(units done, rows written)`` as :func:`fused_hands` does; raises
    ``ValueError`` when a match outgrows ``out_cols`` past ``MAX_HANDS_PER_MATCH``."""
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
    sevens = rules[R_PRIMIERA_SEVENS]  # the reading, PRIMIERA_*
    four_sevens = rules[R_FOUR_SEVENS] != 0
    missing_zero = rules[R_MISSING_ZERO]
    plain_counts = not fewest and not capture_hand and not optional
    big_table = BIG_TABLE15 if fifteen else BIG_TABLE
    deck_mask = rules[R_DECK_MASK]
    xflags = expert_flags(rules)
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
    # for _step_decision: a state vector, a generator, play buffers and, where a seat plays
    # the learned policy, its scratch and the exact endgame's transposition table
    learned = model.shape[0] > 0
    st = np.zeros(N_STATE, dtype=np.int64)
    rng = np.zeros(RNG_WORDS, dtype=np.uint64)
    bc = np.empty(MAX_PLAYS if fifteen or optional or learned else 1, dtype=np.int64)
    bt = np.empty(MAX_PLAYS if fifteen or optional or learned else 1, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    idx = np.empty(MAX_ACTIVE, dtype=np.int64)
    dense = np.empty(N_DENSE)
    acc = np.empty(max(1, hidden_width(model)))
    tt = exact_table(EXACT_TT if learned else 1)
    cap = out_cols.shape[1]
    done = 0  # units (hands, or matches) done in this call
    hand_no = 0  # hand of the match
    row = 0
    dealer = 0
    while done < count:
        full, dealer, prefix = unit_start(
            seed, first_unit, done, hand_no, row, cap, mode, players, dealer, totals
        )
        if full:
            return done, row
        # ---------------------------------------------------------------- shuffle_deal
        z, redeals = _shuffle(
            deck, canon, ncards, seed_finish(prefix, STREAM_DEAL), kings_redeal, table_cards
        )
        # ---------------------------------------------------------------- start_hand
        z = seed_finish(prefix, STREAM_PLAY)
        spare = np.uint64(0)
        table, packed, packed_hi, pos, first, turn, plays, last_capturer = _start(
            deck, w, table_cards, dealer, players, teams, fifteen, opening,
            rules[R_OPENING_FIRST] != 0,
        )  # fmt: skip
        # ---------------------------------------------------------------- play_out
        while True:
            if plays + table_cards == pos:  # every hand is empty
                if pos == size:
                    break
                pos = _deal_round(deck, w, pos, size, hand_size, players, first)
            hand = w[np.uint64(W_HANDS + turn)]
            sweep_aces, big, n, counts, rare, lay_ok, one = _count_plays(
                hand, table, packed, packed_hi, ace_rule, fewest, capture_hand, optional,
                fifteen, plain_counts, big_table,
            )  # fmt: skip
            # ------------------------------------------------------------ choose
            card = 0
            take = np.int64(0)
            pol = policies[np.uint64(turn)]
            if big or pol >= POLICY_LEARNED:  # learned, or learned:worlds=
                card, take, z, spare = _step_decision(
                    st, rules, pol, model, rng, bc, bt, sc, w, deck, table, turn, plays, pos,
                    dealer, last_capturer, z, spare, idx, dense, acc, xs, tt,
                )  # fmt: skip
            elif pol != POLICY_RANDOM and n > 1:  # greedy or expert: score every play
                card, take, z, spare = _best_play(
                    hand, table, packed, packed_hi, sweep_aces, fewest, optional, fifteen,
                    lay_ok, pol == POLICY_EXPERT, w, turn, players, teams, ns, deck_mask, size,
                    pos, hand_size, plays, total, last_capturer, dealer, lps, xflags, xs, z,
                    spare,
                )  # fmt: skip
            elif fifteen:
                card, take, z, spare = _random_play15(
                    hand, table, packed, packed_hi, fewest, optional, lay_ok, n, counts, rare,
                    one, z, spare,
                )  # fmt: skip
            else:
                card, take, z, spare = _random_play(
                    hand, table, packed, sweep_aces, fewest, optional, n, counts, rare, one,
                    z, spare,
                )  # fmt: skip
            # ------------------------------------------------------------ apply_play
            # capture.play_on_table written out: as a call (inlined) it measured 1.7%
            # slower (random and greedy self-play, 100 alternating pairs); the
            # cross-checks of this loop against the step kernels and
            # tests/engine/test_capture.py (play_on_table against apply_play) hold them equal.
            bit = np.int64(1) << card
            w[np.uint64(W_HANDS + turn)] = hand ^ bit
            plays += 1
            side = turn & 1 if teams else turn
            if fifteen:
                table, packed, packed_hi, pile, last_capturer, scopa = play_on_table(
                    table, packed, packed_hi, w[np.uint64(W_PILES + side)], last_capturer,
                    side, card, take, 0, False, plays == total, lps, False, True,
                )  # fmt: skip
                w[np.uint64(W_PILES + side)] = pile
                w[np.uint64(W_SCOPE + side)] += scopa
            elif take & (take - 1):  # several cards taken: a sum capture or an ace sweep
                table, packed = _take_several(
                    w, side, table, packed, card, bit, take, sweep_aces, plays, total, lps,
                    ace_scopa,
                )  # fmt: skip
                last_capturer = side
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
        winner = _finish_hand(
            w, it, totals, out_points, out_cols, keep_points, keep_rows, row, done, hand_no,
            dealer, first, redeals, plays, table, last_capturer, mode, ns, teams,
            remainder_dealer, sevens, missing_zero, re_bello, napola, napola_fixed3, target,
            all_denari_wins, four_sevens,
        )  # fmt: skip
        row += 1
        done, hand_no, dealer = unit_end(mode, winner, done, hand_no, dealer, players)
    return count, row


# --------------------------------------------------------------------------- batch simulation


def fused_rows(rules, policies, seed, by_match, first_unit, n_units, out, model=None):
    """Rows of ``n_units`` independent hands, or whole matches when ``by_match``, from
    ``first_unit`` on, with kernel policies, into the columns ``out[C_*, row]`` (``C_MATCH``
    holds the unit's offset from ``first_unit``); return (units done, rows written).
    Matches stop early before one that could overflow ``out``. Through the fused playout
    loop of :func:`fused_hands`, with the two-player fast path where it applies; ``model``:
    the learned policy's model vector, needed where a seat plays it (:func:`kernel_model`)."""
    if not out.flags.c_contiguous:  # one compiled signature: 'A' would compile it again
        raise TypeError("fused_rows writes into a C-contiguous array only")
    mode = MODE_MATCHES if by_match else MODE_HANDS
    return fused_kernel(rules)(
        rules, policies, kernel_model(policies, model), seed, first_unit, n_units, mode,
        np.empty((0, 4), np.int64), out,
    )  # fmt: skip
