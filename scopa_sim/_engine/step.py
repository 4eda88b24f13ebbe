"""The step kernels: a hand on the state vector (``S_*`` layout), one play at a time.

Deal, legal plays, apply a play, score, choose a play by a kernel policy and play a
hand out.  The Python API in :mod:`scopa_sim.state` validates input and wraps these;
the searches (:mod:`.solver`, :mod:`.ismcts`, ...) call them directly. Cirulla
(RULES.md §10) has its own entry points at the end (``*_cirulla``), its plays carrying a
``meta`` word (the matta's named value, the declaration), beside these, which compile as
they did.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import ctz, popcount
from .capture import (
    REACH15,
    add_captures,
    add_captures_cirulla,
    add_matta_captures,
    declaration_points,
    opening_count,
    opening_take,
    reach_mask,
    remainder_side,
    subset_sums,
    sum_captures,
    table_reach,
    value_sum,
)
from .deals import deal_round_cards
from .layout import (
    ACES,
    DECLARE_AUTO,
    DECLARE_OFF,
    F_ACE_SWEEP,
    F_CAPTURE,
    F_LAST,
    F_SCOPA,
    MATTA_CARD,
    MATTA_NONE,
    MATTA_PLAY,
    MAX_PLAYS,
    N_STATE,
    POLICY_EXPERT,
    POLICY_GREEDY,
    POLICY_RANDOM,
    R_ACE_SWEEP,
    R_ACE_SWEEP_SCOPA,
    R_CAPTURE_FIFTEEN,
    R_CAPTURE_HAND,
    R_CAPTURE_OPTIONAL,
    R_DECK,
    R_DECK_MASK,
    R_DECLARE,
    R_HAND_SIZE,
    R_LAST_PLAY_SCOPA,
    R_MATCH_PRIORITY,
    R_MATTA,
    R_OPENING_COUNT,
    R_OPENING_FIFTEEN,
    R_OPENING_FIRST,
    R_PICCOLA_MAX,
    R_PLAYERS,
    R_REMAINDER_DEALER,
    R_SIDES,
    R_SUM_FEWEST,
    R_TABLE_CARDS,
    R_TEAMS,
    R_TOTAL_PLAYS,
    S_DEALER,
    S_DECK,
    S_DECK_SIZE,
    S_DECLARED,
    S_DONE,
    S_EVIDENCE,
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
    VALUE,
    VALUE_MASK,
    side_of,
)
from .pipeline import STEPS
from .plays import context_value, state_context
from .policy import (
    EXPERT_SCRATCH,
    expert_flags,
    expert_play_value,
    expert_play_value15,
    expert_view,
    greedy_score,
    to_fixed,
)
from .policy_cirulla import (
    EXPERT_DECLARES,
    expert_play_value_cirulla,
    greedy_score_cirulla,
)
from .scoring import score_into, score_into_cirulla
from .streams import rand_below

__all__ = [
    "META_DECLARATION",
    "META_VALUE",
    "apply_play",
    "apply_play_cirulla",
    "choose_cirulla",
    "choose_play",
    "choose_play_cirulla",
    "cirulla_view",
    "deal_round",
    "expert_value",
    "greedy_value",
    "is_legal",
    "lay_evidence",
    "legal_plays",
    "legal_plays_cirulla",
    "next_round",
    "play_out",
    "play_out_cirulla",
    "play_values_cirulla",
    "score_state",
    "score_state_cirulla",
    "start_hand",
    "start_hand_cirulla",
]


# --------------------------------------------------------------------------- dealing
@njit(cache=True)
def deal_round(state, rules):
    """Deal the next round from the stock of ``state`` (its deck order from ``S_STOCK``)
    into the seats' hands, from the first player on, by :func:`.deals.deal_round_cards`;
    the stock position moves past the cards dealt and the evidence about the hands
    (``S_EVIDENCE``) is cleared. Returns nothing."""
    n = rules[R_PLAYERS]
    first = state[S_DEALER] + 1
    if first >= n:
        first -= n
    pos, _ = deal_round_cards(state, S_DECK, state[S_STOCK], state[S_DECK_SIZE],
                              rules[R_HAND_SIZE], n, first, state, S_HANDS)  # fmt: skip
    state[S_STOCK] = pos
    for s in range(4):  # every seat's hand is new (a round is dealt to empty hands)
        state[S_EVIDENCE + s] = 0


@njit(cache=True)
def start_hand(state, rules, deck, dealer):
    """Reset ``state`` to the start of a hand dealt from the deck order ``deck``, the
    opening take of ``opening_fifteen`` included."""
    for i in range(N_STATE):
        state[i] = 0
    size = rules[R_DECK]
    for i in range(size):
        state[S_DECK + i] = deck[i]
    state[S_DECK_SIZE] = size
    t = np.int64(0)
    for i in range(rules[R_TABLE_CARDS]):
        t |= np.int64(1) << deck[i]
    fifteen = rules[R_CAPTURE_FIFTEEN] != 0
    state[S_TABLE] = t
    state[S_REACH] = table_reach(t, fifteen)
    state[S_STOCK] = rules[R_TABLE_CARDS]
    state[S_DEALER] = dealer
    state[S_LAST_CAPTURER] = -1
    if rules[R_OPENING_FIFTEEN]:
        taken, scope = opening_take(t)
        if taken:  # the dealer's side, or the first player's, takes the table (RULES.md §9)
            taker = dealer
            if rules[R_OPENING_FIRST]:
                taker = dealer + 1 if dealer + 1 < rules[R_PLAYERS] else 0
            side = side_of(rules, taker)
            state[S_OPENING] = taken
            state[S_PILES + side] = taken
            state[S_SCOPE + side] = scope
            state[S_LAST_CAPTURER] = side
            state[S_TABLE] = 0
            state[S_REACH] = 1
    turn = dealer + 1
    state[S_TURN] = 0 if turn >= rules[R_PLAYERS] else turn
    deal_round(state, rules)


@njit(cache=True)
def legal_plays(state, rules, out_card, out_take, scratch):
    """Write every distinct legal play of the seat to play; return their number.

    Per card: the ace sweep, else one play per table card of equal value, else
    (only when the table's subset-sum bitset says it is possible) the sum
    captures, else a lay; then ``capture_rule=hand`` drops lays when any card
    can capture.  With ``capture_mode=fifteen`` a card's captures are the sets of table
    cards adding up to fifteen with it; with ``capture_compulsory=false`` every card
    has its lay after its captures, and ``capture_rule`` does not apply.

    The per-card listing is :func:`.capture.add_captures` written out (faster than the
    call for the expert through the step kernels); ``tests/engine/test_capture.py`` holds the
    two equal. Returns the number of plays written to ``out_card``/``out_take``.
    """
    if rules[R_CAPTURE_FIFTEEN] or rules[R_CAPTURE_OPTIONAL]:
        return _legal_plays9(state, rules, out_card, out_take, scratch)
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
        n0 = n
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
            n = sum_captures(table, v, v - 1, rules[R_SUM_FEWEST], out_take, n, scratch)
            for i in range(n0, n):
                out_card[i] = c
        else:
            out_card[n] = c
            out_take[n] = 0
            n += 1
            lays += 1
    if lays and rules[R_CAPTURE_HAND] and lays < n:  # _captures_only, written out: the
        k = 0  # call measured 1-6% slower in the solver, which lists every node's plays
        for i in range(n):
            if out_take[i] != 0:
                out_card[k] = out_card[i]
                out_take[k] = out_take[i]
                k += 1
        n = k
    return n


@njit(cache=True)
def _legal_plays9(state, rules, out_card, out_take, scratch):
    """:func:`legal_plays` with the options of RULES.md §9: the capture rule of
    ``capture_mode`` (:func:`.capture.add_captures`), then each card's lay when it has
    no capture or laying is free (``capture_compulsory=false``); ``capture_rule=hand``
    drops the lays when any card captures and captures are compulsory."""
    hand = state[S_HANDS + state[S_TURN]]
    table = state[S_TABLE]
    sweep_aces = ACES if rules[R_ACE_SWEEP] != 0 and table != 0 and (table & ACES) == 0 else 0
    fifteen = rules[R_CAPTURE_FIFTEEN] != 0
    optional = rules[R_CAPTURE_OPTIONAL] != 0
    fewest = rules[R_SUM_FEWEST] != 0
    reach = state[S_REACH]
    n = 0
    lays = 0
    m = hand
    while m:
        c = ctz(m)
        m &= m - 1
        n0 = n
        if fifteen:
            n = add_captures(c, table, reach, 0, fewest, True, out_take, n, scratch)
        else:
            n = add_captures(c, table, reach, sweep_aces, fewest, False, out_take, n, scratch)
        for i in range(n0, n):
            out_card[i] = c
        if n == n0 or optional:
            out_card[n] = c
            out_take[n] = 0
            lays += n == n0
            n += 1
    if lays and rules[R_CAPTURE_HAND] and lays < n and not optional:
        n = _captures_only(out_card, out_take, n)
    return n


@njit(cache=True)
def _captures_only(out_card, out_take, n):
    """Drop the lays from the ``n`` plays in the buffers (capture_rule=hand, RULES.md §4);
    return how many are left."""
    k = 0
    for i in range(n):
        if out_take[i] != 0:
            out_card[k] = out_card[i]
            out_take[k] = out_take[i]
            k += 1
    return k


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
    A lay on a non-empty table adds to the seat's ``S_EVIDENCE`` the values that could
    have captured there (:func:`lay_evidence`).

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
    mask = reach_mask(rules[R_CAPTURE_FIFTEEN] != 0)
    if take:
        flags |= F_CAPTURE
        left = table & ~take
        state[S_TABLE] = left
        state[S_REACH] = subset_sums(left) & mask
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
        state[S_REACH] = (reach | (reach << VALUE[card])) & mask
        if table:
            state[S_EVIDENCE + seat] |= lay_evidence(rules, table, reach)
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
def lay_evidence(rules, table, reach):
    """The values that capture on the non-empty ``table`` of subset sums ``reach``
    (``S_REACH``) as a 10-bit mask, bit ``v - 1`` for value ``v``: under Scopa's capture
    rule, a table card of value ``v`` or a set adding up to it (bits 1..10 of ``reach``),
    and the ace where the ace sweep takes a table without aces; under the fifteen rule,
    a set adding up to ``15 - v``. A seat that lays a card there instead of capturing
    with such a value probably holds none (its ``S_EVIDENCE``)."""
    if rules[R_CAPTURE_FIFTEEN]:
        out = np.int64(0)
        for v in range(1, 11):
            if (reach >> (15 - v)) & 1:
                out |= np.int64(1) << (v - 1)
        return out
    out = (reach >> 1) & 1023
    if rules[R_ACE_SWEEP] != 0 and (table & ACES) == 0:
        out |= 1
    return out


@njit(cache=True)
def next_round(state, rules):
    """Once every hand is empty: deal the next round, or end the hand (the table's
    remainder to the last capturer's side, or to the dealer's, never a scopa)."""
    if state[S_STOCK] < state[S_DECK_SIZE]:
        deal_round(state, rules)
        return
    rest = state[S_TABLE]
    if rest:
        owner = remainder_side(
            rules[R_REMAINDER_DEALER] != 0,
            side_of(rules, state[S_DEALER]),
            state[S_LAST_CAPTURER],
        )
        if owner >= 0:
            state[S_PILES + owner] |= rest
    state[S_TABLE] = 0
    state[S_REACH] = 1
    state[S_DONE] = 1


@njit(cache=True)
def score_state(state, rules, out):
    """Score the hand held in ``state`` (normally finished)."""
    score_into(rules, state, S_PILES, state, S_SCOPE, out)


@njit(cache=True)
def greedy_value(state, rules, card, take):
    """Heuristic worth of a play for the side making it (higher is better).

    Values (in half points): cards taken, denari, the settebello, primiera cards
    (sevens, sixes, aces), a scopa; minus the risk of leaving a table the next
    player could sweep (value sum <= 10) and of exposing sevens or the settebello.
    """
    table = state[S_TABLE]
    not_last = state[S_PLAYS] + 1 < rules[R_TOTAL_PLAYS]
    lps = rules[R_LAST_PLAY_SCOPA] != 0
    if not rules[R_CAPTURE_FIFTEEN]:
        return greedy_score(table, value_sum(table), not_last, lps, card, take, False, 0)
    seen = state[S_HANDS + state[S_TURN]] | table  # the others' hands and the stock unseen
    for s in range(rules[R_SIDES]):
        seen |= state[S_PILES + s]
    unseen = rules[R_DECK_MASK] & ~seen
    return greedy_score(table, value_sum(table), not_last, lps, card, take, True, unseen)


@njit(cache=True, pipeline_class=STEPS)
def choose_play(state, rules, policy, rng, buf_card, buf_take, n):
    """Index of the play chosen by ``policy`` among the ``n`` legal plays in the buffers:
    greedy's or the expert's best (:func:`.plays.context_value`, the seat's view read
    once), ties broken uniformly by reservoir draws; else a uniform draw."""
    if n > 1 and policy in (POLICY_GREEDY, POLICY_EXPERT):
        expert = policy == POLICY_EXPERT
        xs = np.empty(EXPERT_SCRATCH)
        ctx = state_context(state, rules, expert)
        best = context_value(ctx, expert, buf_card[0], buf_take[0], xs)
        count = 1
        pick = 0
        for i in range(1, n):
            x = context_value(ctx, expert, buf_card[i], buf_take[i], xs)
            if x > best:
                best = x
                count = 1
                pick = i
            elif x == best:
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


@njit(cache=True)
def expert_value(state, rules, card, take, scratch):
    """:func:`expert_play_value` of a play for the seat to play in ``state``, read from
    its information set only (other hands by their size)."""
    players = rules[R_PLAYERS]
    table = state[S_TABLE]
    pm, po, others, unseen, kn, lc_rel, d_rel = expert_view(
        state, S_HANDS, S_PILES, state[S_TURN], players, rules[R_TEAMS] != 0, rules[R_SIDES],
        table, rules[R_DECK_MASK], state[S_DECK_SIZE] - state[S_STOCK], rules[R_HAND_SIZE],
        state[S_LAST_CAPTURER], state[S_DEALER],
    )  # fmt: skip
    hand = state[S_HANDS + state[S_TURN]]
    if rules[R_CAPTURE_FIFTEEN]:
        return expert_play_value15(
            card, take, hand, table, pm, po, others, unseen, kn, state[S_PLAYS],
            rules[R_TOTAL_PLAYS], lc_rel, d_rel, rules[R_DECK], expert_flags(rules),
            players == 2, scratch,
        )  # fmt: skip
    return expert_play_value(
        card, take, hand, table, pm, po, others, unseen, kn, state[S_PLAYS],
        rules[R_TOTAL_PLAYS], lc_rel, d_rel, rules[R_DECK], expert_flags(rules),
        players == 2, scratch,
    )  # fmt: skip


# --------------------------------------------------------------------------- Cirulla (§10)
# The step kernels of ``capture_mode=cirulla`` (RULES.md §10), beside the others so that
# these compile as they did: a play is ``(card, take, meta)``, ``meta`` holding the value
# named for the matta (bits 0-3, 0: none; ``matta=play``) and the points declared with the
# play (bits 4-7: 0, 3 or 10). The state's Cirulla slots (``S_DECLARED``, ``S_SHOWN``,
# ``S_OPENING_SCOPE``, ``S_VOIDS``) are 0 in every other game.
#: ``meta``'s fields: the named value and the declaration's points (``<< META_DECLARATION``).
META_VALUE = 15
META_DECLARATION = 4


@njit(cache=True)
def start_hand_cirulla(state, rules, deck, dealer, voids):
    """:func:`start_hand` under Cirulla's rules: the hand dealt from the accepted deck
    order ``deck`` after ``voids`` void deals (``S_VOIDS``), the table's subset sums up to
    14, and the opening count (``opening_count``, RULES.md §10): the dealer's side takes a
    table adding up to 15 (one scopa) or 30 (two), the matta wild unless ``matta=none``,
    and is the last capturer."""
    start_hand(state, rules, deck, dealer)
    t = state[S_TABLE]
    state[S_REACH] = table_reach(t, True)
    state[S_VOIDS] = voids
    if rules[R_OPENING_COUNT]:
        taken, scope = opening_count(t, rules[R_MATTA] != MATTA_NONE)
        if taken:
            side = side_of(rules, dealer)
            state[S_OPENING] = taken
            state[S_OPENING_SCOPE] = scope
            state[S_PILES + side] = taken
            state[S_SCOPE + side] = scope
            state[S_LAST_CAPTURER] = side
            state[S_TABLE] = 0
            state[S_REACH] = 1


@njit(cache=True)
def legal_plays_cirulla(state, rules, out_card, out_take, out_meta, scratch):
    """Write every distinct legal play of the seat to play under Cirulla's rules
    (RULES.md §10) to ``out_card``/``out_take``/``out_meta``; return their number.

    Per card: its captures (:func:`.capture.add_captures_cirulla`; the matta with
    ``matta=play`` one per effect with the smallest value that has it,
    :func:`.capture.add_matta_captures`), then its lay when it has none or laying is free
    (``capture_compulsory=false``; a laid matta names 1 under ``matta=play``), the lays
    dropped under ``capture_rule=hand`` when some card captures. A three-card hand that
    may declare (:func:`.capture.declaration_points`) has each play declared
    (``declare=auto``) or each play twice, undeclared then declared (``choice``)."""
    hand = state[S_HANDS + state[S_TURN]]
    table = state[S_TABLE]
    reach = state[S_REACH]
    ace_sweep = rules[R_ACE_SWEEP] != 0
    ace_scopa = rules[R_ACE_SWEEP_SCOPA] != 0
    priority = rules[R_MATCH_PRIORITY] != 0
    fewest = rules[R_SUM_FEWEST] != 0
    optional = rules[R_CAPTURE_OPTIONAL] != 0
    named = rules[R_MATTA] == MATTA_PLAY
    n = 0
    lays = 0
    m = hand
    while m:
        c = ctz(m)
        m &= m - 1
        n0 = n
        if named and c == MATTA_CARD:
            n = add_matta_captures(table, reach, ace_sweep, ace_scopa, priority, fewest,
                                   out_take, out_meta, n, scratch)  # fmt: skip
        else:
            n = add_captures_cirulla(VALUE[c], table, reach, ace_sweep, priority, fewest,
                                     out_take, n, scratch)  # fmt: skip
            for i in range(n0, n):
                out_meta[i] = 0
        for i in range(n0, n):
            out_card[i] = c
        if n == n0 or optional:
            out_card[n] = c
            out_take[n] = 0
            out_meta[n] = 1 if named and c == MATTA_CARD else 0
            lays += n == n0
            n += 1
    if lays and rules[R_CAPTURE_HAND] and lays < n and not optional:
        k = 0
        for i in range(n):
            if out_take[i] != 0:
                out_card[k] = out_card[i]
                out_take[k] = out_take[i]
                out_meta[k] = out_meta[i]
                k += 1
        n = k
    points = 0
    if rules[R_DECLARE] != DECLARE_OFF:
        points = declaration_points(hand, rules[R_MATTA] != MATTA_NONE)
    if points:
        declared = points << META_DECLARATION
        if rules[R_DECLARE] == DECLARE_AUTO:
            for i in range(n):
                out_meta[i] |= declared
        else:
            for i in range(n):
                out_card[n + i] = out_card[i]
                out_take[n + i] = out_take[i]
                out_meta[n + i] = out_meta[i] | declared
            n += n
    return n


@njit(cache=True)
def apply_play_cirulla(state, rules, card, take, meta):
    """Play ``card`` taking ``take`` with ``meta`` (the named value and the declaration,
    see :data:`META_VALUE`; assumed legal) under Cirulla's rules; deal and close the hand
    as needed. A declaration adds its points to the side's ``S_DECLARED`` and shows the
    seat's hand (``S_SHOWN``, until the next deal); an ace sweep is decided by the named
    value when there is one. Returns ``F_*`` flags describing what happened."""
    seat = state[S_TURN]
    side = side_of(rules, seat)
    bit = np.int64(1) << card
    table = state[S_TABLE]
    points = (meta >> META_DECLARATION) & 15
    if points:
        state[S_DECLARED + side] += points
        state[S_SHOWN] |= 1 << seat
    value = meta & META_VALUE
    if value == 0:
        value = VALUE[card]
    state[S_HANDS + seat] &= ~bit
    state[S_PLAYS] += 1
    last = state[S_PLAYS] == rules[R_TOTAL_PLAYS]
    flags = F_LAST if last else 0
    if take:
        flags |= F_CAPTURE
        left = table & ~take
        state[S_TABLE] = left
        state[S_REACH] = table_reach(left, True)
        state[S_PILES + side] |= take | bit
        state[S_LAST_CAPTURER] = side
        ace_sweep = rules[R_ACE_SWEEP] != 0 and value == 1 and take == table and not (table & ACES)
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
        state[S_REACH] = (reach | (reach << VALUE[card])) & REACH15
    n = rules[R_PLAYERS]
    turn = seat + 1
    state[S_TURN] = 0 if turn >= n else turn
    empty = True
    for s in range(n):
        if state[S_HANDS + s]:
            empty = False
            break
    if empty:
        state[S_SHOWN] = 0  # the shown cards are all played: a new deal hides the hands
        next_round(state, rules)
    return flags


@njit(cache=True)
def score_state_cirulla(state, rules, out):
    """Score the Cirulla hand held in ``state`` (RULES.md §10): ``out[side, I_*]`` and
    ``out[side, I_GRANDE .. I_DECLARATIONS]``, the total (``I_TOTAL``) counting them."""
    score_into_cirulla(rules, state, S_PILES, state, S_SCOPE, state, S_DECLARED, out)


@njit(cache=True)
def cirulla_view(state, rules):
    """The expert's view (:func:`.policy.expert_view`) of the seat to play in a Cirulla
    state, with what the declarations showed (``S_SHOWN``): the shown hands are not
    unseen, and when the next seat has shown its hand, its reply is read from it (the
    unseen cards are that hand, ``kn`` its size). Returns ``(pm, po, others, unseen, kn,
    lc_rel, d_rel)``."""
    turn = state[S_TURN]
    players = rules[R_PLAYERS]
    pm, po, others, unseen, kn, lc_rel, d_rel = expert_view(
        state, S_HANDS, S_PILES, turn, players, rules[R_TEAMS] != 0, rules[R_SIDES],
        state[S_TABLE], rules[R_DECK_MASK], state[S_DECK_SIZE] - state[S_STOCK],
        rules[R_HAND_SIZE], state[S_LAST_CAPTURER], state[S_DEALER],
    )  # fmt: skip
    shown = state[S_SHOWN]
    if shown:
        for s in range(players):
            if s != turn and (shown >> s) & 1:
                unseen &= ~state[S_HANDS + s]
        nxt = turn + 1 if turn + 1 < players else 0
        if (shown >> nxt) & 1 and state[S_HANDS + nxt]:
            unseen = state[S_HANDS + nxt]
            kn = popcount(unseen)
    return pm, po, others, unseen, kn, lc_rel, d_rel


@njit(cache=True)
def play_values_cirulla(state, rules, policy, rule, buf_card, buf_take, buf_meta, n, out, xs,
                        bt, bm, sc):  # fmt: skip
    """The values of the ``n`` Cirulla plays in the buffers for the seat to play, to
    ``out``: greedy's (:func:`.policy_cirulla.greedy_score_cirulla`, from the cards it has
    not seen) or, with ``policy`` ``POLICY_EXPERT``, the expert's in fixed point
    (:func:`.policy_cirulla.expert_play_value_cirulla` from :func:`cirulla_view`, its
    declarations by ``rule``, a ``DECLARE_*`` code of :mod:`.policy_cirulla`). ``xs``
    holds ``EXPERT_SCRATCH`` floats, ``bt``/``bm`` ``MAX_PLAYS`` int64, ``sc``
    ``SCRATCH``."""
    turn = state[S_TURN]
    hand = state[S_HANDS + turn]
    table = state[S_TABLE]
    plays = state[S_PLAYS]
    total = rules[R_TOTAL_PLAYS]
    ace_rule = rules[R_ACE_SWEEP] != 0
    ace_scopa = rules[R_ACE_SWEEP_SCOPA] != 0
    named = rules[R_MATTA] == MATTA_PLAY
    if policy == POLICY_EXPERT:
        pm, po, others, unseen, kn, lc_rel, d_rel = cirulla_view(state, rules)
        xflags = expert_flags(rules)
        most = rules[R_PICCOLA_MAX]
        priority = rules[R_MATCH_PRIORITY] != 0
        fewest = rules[R_SUM_FEWEST] != 0
        for i in range(n):
            meta = buf_meta[i]
            card = buf_card[i]
            value = meta & META_VALUE
            out[i] = to_fixed(expert_play_value_cirulla(
                card, buf_take[i], value if value else VALUE[card],
                (meta >> META_DECLARATION) & 15, table, pm, po, others, unseen, kn, plays,
                total, lc_rel, d_rel, rules[R_DECK], xflags, most, priority, fewest, named,
                rule, xs, bt, bm, sc,
            ))  # fmt: skip
        return
    seen = hand | table
    for s in range(rules[R_SIDES]):
        seen |= state[S_PILES + s]
    unseen = rules[R_DECK_MASK] & ~seen
    not_last = plays + 1 < total
    lps = rules[R_LAST_PLAY_SCOPA] != 0
    for i in range(n):
        meta = buf_meta[i]
        card = buf_card[i]
        value = meta & META_VALUE
        out[i] = greedy_score_cirulla(
            table, not_last, lps, card, buf_take[i], value if value else VALUE[card],
            (meta >> META_DECLARATION) & 15, unseen, ace_rule, ace_scopa, named,
        )  # fmt: skip


@njit(cache=True)
def choose_cirulla(state, rules, policy, rng, buf_card, buf_take, buf_meta, n, rule, vals, xs,
                   bt, bm, sc):  # fmt: skip
    """:func:`choose_play_cirulla` with the expert's declaration ``rule`` and the buffers
    given (``vals``: ``MAX_PLAYS`` int64 for the values, the rest as
    :func:`play_values_cirulla`), for loops that call it many times."""
    if n > 1 and policy != POLICY_RANDOM:
        play_values_cirulla(state, rules, policy, rule, buf_card, buf_take, buf_meta, n, vals,
                            xs, bt, bm, sc)  # fmt: skip
        best = vals[0]
        count = 1
        pick = 0
        for i in range(1, n):
            x = vals[i]
            if x > best:
                best = x
                count = 1
                pick = i
            elif x == best:
                count += 1
                if rand_below(rng, count) == 0:  # reservoir: uniform among the ties
                    pick = i
        return pick
    return rand_below(rng, n)


@njit(cache=True)
def choose_play_cirulla(state, rules, policy, rng, buf_card, buf_take, buf_meta, n):
    """Index of the play chosen by ``policy`` (``POLICY_RANDOM``, ``POLICY_GREEDY`` or
    ``POLICY_EXPERT``) among the ``n`` legal Cirulla plays in the buffers (as
    :func:`legal_plays_cirulla` lists them): a uniform draw from ``rng``, or greedy's or
    the expert's best (:func:`play_values_cirulla`; the expert declares by
    :data:`.policy_cirulla.EXPERT_DECLARES`), ties broken uniformly by reservoir draws,
    as :func:`choose_play` does."""
    if n <= 1 or policy == POLICY_RANDOM:
        return rand_below(rng, n)
    vals = np.empty(n, dtype=np.int64)
    xs = np.empty(EXPERT_SCRATCH)
    size = MAX_PLAYS if policy == POLICY_EXPERT else 1
    bt = np.empty(size, dtype=np.int64)
    bm = np.empty(size, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    return choose_cirulla(state, rules, policy, rng, buf_card, buf_take, buf_meta, n,
                          EXPERT_DECLARES, vals, xs, bt, bm, sc)  # fmt: skip


@njit(cache=True)
def play_out_cirulla(state, rules, policies, rng, buf_card, buf_take, buf_meta, scratch,
                     log_card, log_take, log_meta):  # fmt: skip
    """Play the Cirulla hand in ``state`` to its end with one policy code per seat
    (:func:`legal_plays_cirulla`, :func:`choose_play_cirulla`,
    :func:`apply_play_cirulla`). Each play is written to ``log_card``/``log_take``/
    ``log_meta`` at its index; returns the number of plays made from the starting
    state."""
    made = 0
    vals = np.empty(MAX_PLAYS, dtype=np.int64)
    xs = np.empty(EXPERT_SCRATCH)
    bt = np.empty(MAX_PLAYS, dtype=np.int64)
    bm = np.empty(MAX_PLAYS, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    while not state[S_DONE]:
        n = legal_plays_cirulla(state, rules, buf_card, buf_take, buf_meta, scratch)
        i = choose_cirulla(state, rules, policies[state[S_TURN]], rng, buf_card, buf_take,
                           buf_meta, n, EXPERT_DECLARES, vals, xs, bt, bm, sc)  # fmt: skip
        k = state[S_PLAYS]
        log_card[k] = buf_card[i]
        log_take[k] = buf_take[i]
        log_meta[k] = buf_meta[i]
        apply_play_cirulla(state, rules, buf_card[i], buf_take[i], buf_meta[i])
        made += 1
    return made
