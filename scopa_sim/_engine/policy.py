"""The kernel policies' play values: greedy's heuristic and the expert's expectimax.

Both work on plain numbers (masks, counts, option bits), so the step kernels
(:mod:`.step`), the fused loop (:mod:`.fused`) and the ISMCTS rollouts
(:mod:`.ismcts`) share them.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .bits import ctz, popcount
from .capture import (
    BIG_TABLE,
    BIG_TABLE15,
    capture_at,
    capture_count,
    packed_join,
    packed_of,
    packed_without,
)
from .layout import (
    ACES,
    DENARI,
    PRIMIERA_ESCOBA,
    R_ACE_SWEEP,
    R_ACE_SWEEP_SCOPA,
    R_CAPTURE_FIFTEEN,
    R_CAPTURE_OPTIONAL,
    R_FOUR_SEVENS,
    R_LAST_PLAY_SCOPA,
    R_NAPOLA,
    R_NAPOLA_FIXED3,
    R_PRIMIERA_SEVENS,
    R_RE_BELLO,
    R_REMAINDER_DEALER,
    R_SUM_FEWEST,
    SETTEBELLO_BIT,
    SEVENS,
    SIXES,
    VALUE,
    VALUE_MASK,
)

__all__ = [
    "BINOM",
    "EXPERT_CARDS",
    "EXPERT_DENARI",
    "EXPERT_FIX",
    "EXPERT_PRIMIERA",
    "EXPERT_RANK",
    "EXPERT_SCRATCH",
    "EXPERT_TIE76",
    "REL_ME",
    "REL_NEXT",
    "REL_NONE",
    "REL_OTHER",
    "X_ACE_RULE",
    "X_ACE_SCOPA",
    "X_ESCOBA_SEVENS",
    "X_FEWEST",
    "X_FIFTEEN",
    "X_FOUR_SEVENS",
    "X_LPS",
    "X_NAPOLA",
    "X_NAPOLA_FIXED3",
    "X_OPTIONAL",
    "X_REMAINDER_DEALER",
    "X_RE_BELLO",
    "expert_eval",
    "expert_flags",
    "expert_play_value",
    "expert_play_value15",
    "expert_view",
    "follow_value",
    "follow_value15",
    "greedy_score",
    "rel_side",
    "reply_value",
    "reply_value15",
    "to_fixed",
]


# --------------------------------------------------------------------------- greedy
@njit(cache=True, inline="always")
def greedy_score(table, table_sum, not_last, last_play_scopa, card, take, fifteen, unseen):
    """Greedy's worth of a play (see :func:`.step.greedy_value`) from the table, the sum
    of its values and whether the play is not the last of the hand; with ``fifteen``
    (capture_mode=fifteen) also from the cards the seat has not seen, ``unseen``.

    A capture is worth its cards (2 each), denari (3), sevens (5), sixes (2), aces (1),
    the settebello (20) and a scopa (40) under every reading of the primiera (the
    sevens, sixes and aces rank first under each of them, and the sevens weigh most
    for ``four_sevens_point`` too); a lay costs a little for the primiera and
    denari cards it exposes.  Then the risk of what is left: a table the next seat
    could sweep costs 30 (Scopa: a sum of at most 10, one card's value; fifteen: a sum
    ``S`` of 5..14 when a card of value ``15 - S`` may be in the next seat's hand, so a
    one-ply player does not lay or leave fifteen's sweeps blindly), and the settebello
    left on it 8.  All in half points.
    """
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
        # A legal capture takes cards worth the played card's value (fifteen: worth
        # fifteen with it), or the whole table.
        left_sum = table_sum - (15 - VALUE[card] if fifteen else VALUE[card])
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
        if fifteen:
            sweeper = 15 - left_sum
            if 1 <= sweeper <= 10 and unseen & VALUE_MASK[sweeper]:
                score -= 30
        elif left_sum <= 10:
            score -= 30
        if left & SETTEBELLO_BIT:
            score -= 8
    return score


# --------------------------------------------------------------------------- expert policy
# ``expert`` scores each legal play by the change it makes to a static evaluation of the
# piles (in expected hand points), minus the expected best reply of the next seat, whose
# hidden cards are a uniform draw from the cards this seat has not seen.  Both parts are
# exact in what they count: the reply is the expectation of the maximum over the next
# seat's hand (a hypergeometric draw), computed from the sorted reply values of every
# unseen card.  The evaluation prices each score item still open by a binomial model of
# the cards not yet captured (each goes to either side with probability 1/2): the card
# and denari majorities, primiera by sevens then sixes (then aces under
# ``primiera=escoba_sevens``), the four-sevens point under ``four_sevens_point``;
# settebello, re bello and scope count one point each.  Only the seat's information set
# is read: its hand, the table, the piles, and the number of cards in the next seat's hand.


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


def _primiera_tie() -> np.ndarray:
    """``out[d7 + 4, r7, d6 + 4, r6]``: P(the sevens and then the sixes end tied), with
    ``d`` the lead and ``r`` the cards of that rank not yet captured."""
    out = np.zeros((9, 5, 9, 5))

    def tie(d: int, r: int) -> float:
        return sum(math.comb(r, x) / 2.0**r for x in range(r + 1) if d + 2 * x - r == 0)

    for d7 in range(-4, 5):
        for r7 in range(5):
            for d6 in range(-4, 5):
                for r6 in range(5):
                    out[d7 + 4, r7, d6 + 4, r6] = tie(d7, r7) * tie(d6, r6)
    return out


#: Margin of the card majority, by lead (+40) and cards not yet captured.
EXPERT_CARDS = _binomial_margin(40, 40)
#: Margin of the denari majority, by lead (+10) and denari not yet captured.
EXPERT_DENARI = _binomial_margin(10, 10)
#: Margin of primiera, by the lead in sevens and in sixes and those not yet captured.
EXPERT_PRIMIERA = _primiera_margin()
#: With ``primiera=escoba_sevens`` a tie in sevens and sixes goes on to the aces: the
#: probability of that tie (indexed as :data:`EXPERT_PRIMIERA`) and the margin of the
#: aces (by lead +4 and aces not yet captured).
EXPERT_TIE76 = _primiera_tie()
EXPERT_RANK = _binomial_margin(4, 4)
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
X_FIFTEEN = 256  # capture_mode=fifteen
X_OPTIONAL = 512  # capture_compulsory=false
X_ESCOBA_SEVENS = 1024  # primiera=escoba_sevens
X_FOUR_SEVENS = 2048  # four_sevens_point=true

# Relative sides (``lc``, ``dealer_rel``): nobody, this seat's side, the next seat's, another.
REL_NONE = 0
REL_ME = 1
REL_NEXT = 2
REL_OTHER = 3


@njit(cache=True)
def expert_flags(rules):
    """The expert's option bits (``X_*``) for a rules vector."""
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
    if rules[R_CAPTURE_FIFTEEN]:
        x |= X_FIFTEEN
    if rules[R_CAPTURE_OPTIONAL]:
        x |= X_OPTIONAL
    if rules[R_PRIMIERA_SEVENS] == PRIMIERA_ESCOBA:
        x |= X_ESCOBA_SEVENS
    if rules[R_FOUR_SEVENS]:
        x |= X_FOUR_SEVENS
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


@njit(cache=True, inline="always")
def _four_sevens_worth(a, b):
    """Expected four-sevens point of pile ``a`` against the piles ``b``: 0 once ``b``
    holds a seven, else the chance that every seven not in ``a`` goes to it."""
    if b & SEVENS:
        return 0.0
    return 0.5 ** (4 - popcount(a & SEVENS))


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
    r7 = 4 - popcount(gone & SEVENS)
    r6 = 4 - popcount(gone & SIXES)
    v += EXPERT_PRIMIERA[d7, r7, d6, r6]
    if xflags & X_ESCOBA_SEVENS:  # a tie in sevens and sixes is decided by the aces
        da = popcount(pm & ACES) - popcount(po & ACES) + 4
        v += EXPERT_TIE76[d7, r7, d6, r6] * EXPERT_RANK[da, 4 - popcount(gone & ACES)]
    if xflags & X_FOUR_SEVENS:
        v += _four_sevens_worth(pm, po | others) - _four_sevens_worth(po, pm | others)
    v += ((pm >> 6) & 1) - ((po >> 6) & 1)  # settebello
    if xflags & X_RE_BELLO:
        v += ((pm >> 9) & 1) - ((po >> 9) & 1)
    if xflags & X_NAPOLA:
        fixed3 = (xflags & X_NAPOLA_FIXED3) != 0
        v += _napola_worth(pm, po | others, fixed3) - _napola_worth(po, pm | others, fixed3)
    return v


@njit(cache=True)
def follow_value(h2, tbl, lo, hi, pm, po, others, ndeck, xflags, last, e0):
    """This side's best gain from one card of its known hand ``h2`` played on ``tbl``
    (whose packed subset counts are ``(lo, hi)``; no further reply), ``e0`` being the
    evaluation of the piles ``pm``/``po`` before it; ``last``: that play is the hand's
    last, so a capture also takes the table's remainder.  A lay counts 0."""
    return _follow(h2, tbl, lo, hi, pm, po, others, ndeck, xflags, last, e0, False)


@njit(cache=True)
def follow_value15(h2, tbl, lo, hi, pm, po, others, ndeck, xflags, last, e0):
    """:func:`follow_value` under the fifteen rule."""
    return _follow(h2, tbl, lo, hi, pm, po, others, ndeck, xflags, last, e0, True)


@njit(cache=True, inline="always")
def _follow(h2, tbl, lo, hi, pm, po, others, ndeck, xflags, last, e0, fifteen):
    """The body of :func:`follow_value`, the capture rule chosen by ``fifteen``."""
    if h2 == 0:
        return 0.0
    lps = (xflags & X_LPS) != 0
    ace_scopa = (xflags & X_ACE_SCOPA) != 0
    fewest = (xflags & X_FEWEST) != 0
    remainder_dealer = (xflags & X_REMAINDER_DEALER) != 0
    sweep_aces = ACES if (xflags & X_ACE_RULE) and tbl != 0 and (tbl & ACES) == 0 else 0
    best = 0.0
    m = h2
    while m:
        c = ctz(m)
        m &= m - 1
        cbit = np.int64(1) << c
        if (sweep_aces >> c) & 1:  # an ace sweep (capture_count's first case)
            r = expert_eval(pm | tbl | cbit, po, others, ndeck, xflags) - e0
            if (lps or not last) and ace_scopa:
                r += 1.0
            best = max(best, r)
            continue
        k, fsize, same = capture_count(c, tbl, lo, hi, 0, fewest, fifteen)
        for j in range(k):
            if same:  # the equal cards, one capture each
                t = same & -same
                same &= same - 1
            else:
                t = capture_at(c, j, tbl, lo, hi, 0, fsize, fifteen)
                if t < 0:
                    continue
            rest = tbl & ~t
            got = t | cbit
            if last and not remainder_dealer:
                got |= rest
            r = expert_eval(pm | got, po, others, ndeck, xflags) - e0
            if rest == 0 and (lps or not last):
                r += 1.0
            if r > best:
                best = r
    return best


@njit(cache=True)
def reply_value(
    c, left, lo, hi, pm, po, others, ndeck, xflags, final, lc, dealer_rel, e0, h2, follow,
):  # fmt: skip
    """The next seat's best gain (in its side's expected points, i.e. this side's loss)
    when it holds card ``c`` and the table is ``left`` (packed counts ``(lo, hi)``);
    ``final``: its play is the hand's last, so the table's remainder goes to the last
    capturer (``lc``) or the dealer.  With capture_compulsory=false its lay is one more
    choice."""
    return _reply(
        c, left, lo, hi, pm, po, others, ndeck, xflags, final, lc, dealer_rel, e0, h2,
        follow, False,
    )  # fmt: skip


@njit(cache=True)
def reply_value15(
    c, left, lo, hi, pm, po, others, ndeck, xflags, final, lc, dealer_rel, e0, h2, follow,
):  # fmt: skip
    """:func:`reply_value` under the fifteen rule."""
    return _reply(
        c, left, lo, hi, pm, po, others, ndeck, xflags, final, lc, dealer_rel, e0, h2,
        follow, True,
    )  # fmt: skip


@njit(cache=True, inline="always")
def _reply(
    c, left, lo, hi, pm, po, others, ndeck, xflags, final, lc, dealer_rel, e0, h2, follow,
    fifteen,
):  # fmt: skip
    """The body of :func:`reply_value`, the capture rule chosen by ``fifteen``."""
    cbit = np.int64(1) << c
    lps = (xflags & X_LPS) != 0
    ace_rule = (xflags & X_ACE_RULE) != 0
    ace_scopa = (xflags & X_ACE_SCOPA) != 0
    remainder_dealer = (xflags & X_REMAINDER_DEALER) != 0
    best = -1e9
    k = 0
    if ace_rule and left != 0 and (left & ACES) == 0 and VALUE[c] == 1:  # an ace sweep
        got = left | cbit
        scopa = (lps or not final) and ace_scopa
        best = e0 - expert_eval(pm, po | got, others, ndeck, xflags) + (1.0 if scopa else 0.0)
        k = 1
    else:
        k, fsize, same = capture_count(c, left, lo, hi, 0, (xflags & X_FEWEST) != 0, fifteen)
        for j in range(k):
            if same:  # the equal cards, one capture each
                t = same & -same
                same &= same - 1
            else:
                t = capture_at(c, j, left, lo, hi, 0, fsize, fifteen)
                if t < 0:
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
                p2lo = np.int64(1)
                p2hi = np.int64(0)
                if rest:
                    p2lo, p2hi = packed_without(lo, hi, t, fifteen)
                r -= _follow_of(
                    h2, rest, p2lo, p2hi, pm, po | got, others, ndeck, xflags, follow == 2, e1,
                    fifteen,
                )  # fmt: skip
            if r > best:
                best = r
    if k == 0 or xflags & X_OPTIONAL:  # it lays the card: it can't capture, or it may
        lay = _lay_value(
            c, left, lo, hi, pm, po, others, ndeck, xflags, final, lc, dealer_rel, e0, h2,
            follow, fifteen,
        )  # fmt: skip
        if lay > best:
            best = lay
    return best


@njit(cache=True, inline="always")
def _follow_of(h2, tbl, lo, hi, pm, po, others, ndeck, xflags, last, e0, fifteen):
    """:func:`follow_value` or :func:`follow_value15`, by ``fifteen``."""
    if fifteen:
        return follow_value15(h2, tbl, lo, hi, pm, po, others, ndeck, xflags, last, e0)
    return follow_value(h2, tbl, lo, hi, pm, po, others, ndeck, xflags, last, e0)


@njit(cache=True, inline="always")
def _lay_value(
    c, left, lo, hi, pm, po, others, ndeck, xflags, final, lc, dealer_rel, e0, h2, follow,
    fifteen,
):  # fmt: skip
    """:func:`reply_value` of the next seat laying ``c``."""
    cbit = np.int64(1) << c
    if not final:
        if follow:
            p2lo, p2hi = packed_join(lo, hi, VALUE[c], fifteen)
            return -_follow_of(
                h2, left | cbit, p2lo, p2hi, pm, po, others, ndeck, xflags, follow == 2, e0,
                fifteen,
            )  # fmt: skip
        return 0.0
    rest = left | cbit  # a lay on the last play: the table goes to the remainder's owner
    owner = dealer_rel if (xflags & X_REMAINDER_DEALER) != 0 else lc
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
    last capturer's and the dealer's side relative to this one (``REL_*``).  Scopa's
    capture rule; under the fifteen rule (``X_FIFTEEN``) :func:`expert_play_value15`.
    """
    return _expert_play(
        card, take, hand, table, pm, po, others, unseen, kn, plays, total, lc, dealer_rel,
        ndeck, xflags, two_seats, scratch, False,
    )  # fmt: skip


@njit(cache=True)
def expert_play_value15(
    card, take, hand, table, pm, po, others, unseen, kn, plays, total, lc, dealer_rel,
    ndeck, xflags, two_seats, scratch,
):  # fmt: skip
    """:func:`expert_play_value` under the fifteen rule."""
    return _expert_play(
        card, take, hand, table, pm, po, others, unseen, kn, plays, total, lc, dealer_rel,
        ndeck, xflags, two_seats, scratch, True,
    )  # fmt: skip


@njit(cache=True, inline="always")
def _expert_play(
    card, take, hand, table, pm, po, others, unseen, kn, plays, total, lc, dealer_rel,
    ndeck, xflags, two_seats, scratch, fifteen,
):  # fmt: skip
    """The body of :func:`expert_play_value`, the capture rule chosen by ``fifteen``."""
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
    if (fifteen or xflags & X_OPTIONAL) and popcount(left) > (
        BIG_TABLE15 if fifteen else BIG_TABLE
    ):
        # A table too big for the packed counts, reachable only when laying is free or
        # under the fifteen rule (Scopa's compulsory captures keep tables small): no
        # reply is priced.
        return value
    lo, hi = packed_of(left, fifteen)
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
                if fifteen:
                    r = reply_value15(
                        ctz(part), left, lo, hi, pm, po, others, ndeck, xflags, final, lc,
                        dealer_rel, e0, h2, follow,
                    )  # fmt: skip
                else:
                    r = reply_value(
                        ctz(part), left, lo, hi, pm, po, others, ndeck, xflags, final, lc,
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
def to_fixed(x):
    """An expert play value in fixed point (truncated toward zero)."""
    return np.int64(x * EXPERT_FIX)


@njit(cache=True, inline="always")
def rel_side(s, me, opp):
    """A side relative to this seat's (``REL_*``); -1 is nobody."""
    if s < 0:
        return REL_NONE
    if s == me:
        return REL_ME
    if s == opp:
        return REL_NEXT
    return REL_OTHER


@njit(cache=True, inline="always")
def expert_view(
    vec, hands_at, piles_at, turn, players, teams, ns, table, deck_mask, stock_left,
    hand_size, last_capturer, dealer,
):  # fmt: skip
    """What the expert reads of a position for the seat ``turn`` (its information set):
    ``(pm, po, others, unseen, kn, lc_rel, d_rel)``: the piles of its side, of the next
    seat's side and of any further sides, the cards it has not seen, the next seat's
    hand size (a whole deal's share when its hand is empty and ``stock_left`` cards are
    still to deal), and the last capturer's and the dealer's sides relative to its own
    (``REL_*``).  ``vec`` holds the hands at ``hands_at + seat`` and the piles at
    ``piles_at + side`` (the state vector, or the loops' work array)."""
    nxt = turn + 1 if turn + 1 < players else 0
    side = turn & 1 if teams else turn
    opp = nxt & 1 if teams else nxt
    pm = vec[np.uint64(piles_at + side)]
    po = vec[np.uint64(piles_at + opp)]
    others = np.int64(0)
    for s in range(ns):
        if s != side and s != opp:
            others |= vec[np.uint64(piles_at + s)]
    hand = vec[np.uint64(hands_at + turn)]
    unseen = deck_mask & ~(hand | table | pm | po | others)
    kn = popcount(vec[np.uint64(hands_at + nxt)])
    if kn == 0 and stock_left > 0:
        kn = hand_size
        if stock_left < players * kn:
            kn = stock_left // players
    lc_rel = rel_side(last_capturer, side, opp)
    d_rel = rel_side(dealer & 1 if teams else dealer, side, opp)
    return pm, po, others, unseen, kn, lc_rel, d_rel
