"""The kernel policies' play values under Cirulla's rules (RULES.md §10): greedy's
heuristic and the expert's one-ply expectimax, extended from :mod:`.policy`.

A Cirulla play is ``(card, take, meta)`` (:data:`.step.META_VALUE`): besides Scopa's
items the values count the grande (JD, QD, KD) and the piccola's denari (AD, 2D, 3D),
a capture by a fifteen like any other capture, the value named for the matta (for the
ace sweep's scopa) and the declaration's points. The expert reads the hands that other
seats have shown by declaring (``S_SHOWN``): a shown next seat's reply is its best play
from its known cards, not an expectation over the unseen ones. Whether the expert
declares is :data:`EXPERT_DECLARES` (see :func:`declare_bonus`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import ctz, popcount
from .capture import add_captures_cirulla, add_matta_captures, table_reach, value_sum
from .layout import (
    ACES,
    DENARI,
    GRANDE,
    MATTA_BIT,
    MATTA_CARD,
    SETTEBELLO_BIT,
    SEVENS,
    SIXES,
    VALUE,
    VALUE_MASK,
)
from .pipeline import STEPS
from .policy import (
    BINOM,
    REL_ME,
    REL_NEXT,
    X_ACE_RULE,
    X_ACE_SCOPA,
    X_LPS,
    X_OPTIONAL,
    X_REMAINDER_DEALER,
    expert_eval,
)

__all__ = [
    "DECLARE_ALWAYS",
    "DECLARE_NEVER",
    "DECLARE_TRIS",
    "EXPERT_DECLARES",
    "declare_bonus",
    "expert_eval_cirulla",
    "expert_play_value_cirulla",
    "greedy_score_cirulla",
]

# The expert's declaration rules (measured in benchmarks/bench_declare.py): declare every
# qualifying hand, never, or only three of a kind (10 points).
DECLARE_ALWAYS = 0
DECLARE_NEVER = 1
DECLARE_TRIS = 2
#: The rule the ``expert`` policy plays.
EXPERT_DECLARES = DECLARE_ALWAYS

#: The piccola's first three cards (AD, 2D, 3D).
PICCOLA3 = np.int64(7)


@njit(cache=True, inline="always")
def declare_bonus(points, rule):
    """What a declaration of ``points`` (3 or 10; 0: none) adds to a play's value under
    the expert's declaration ``rule`` (``DECLARE_*``): the points, or minus a point (so
    that the declared twin of a play always loses) where the rule keeps quiet."""
    if points == 0:
        return 0.0
    if rule == DECLARE_NEVER or (rule == DECLARE_TRIS and points < 10):
        return -1.0
    return float(points)


# --------------------------------------------------------------------------- greedy
@njit(cache=True, inline="always")
def _sweepable(left, unseen, ace_rule, named):
    """Whether a card the seat has not seen (``unseen``) could take the whole table
    ``left`` under Cirulla's rule: an ace on a table without aces (``ace_rule``), a card
    of the table's value sum ``S`` (at most 10) or of ``15 - S``, or the matta played
    with a named value (``named``) on a table adding up to at most 14."""
    s = value_sum(left)
    if ace_rule and (left & ACES) == 0 and unseen & ACES:
        return True
    if s <= 10 and unseen & VALUE_MASK[s]:
        return True
    if 5 <= s <= 14 and unseen & VALUE_MASK[15 - s]:
        return True
    return named and s <= 14 and (unseen & MATTA_BIT) != 0


@njit(cache=True, inline="always")
def greedy_score_cirulla(table, not_last, lps, card, take, value, points, unseen, ace_rule,
                         ace_scopa, named):  # fmt: skip
    """Greedy's worth of a Cirulla play (:func:`.policy.greedy_score`'s scale: a scopa is
    40): a capture (a match, a sum or a fifteen alike) is worth its cards as in Scopa,
    plus 4 for each card of the grande (JD, QD, KD) and of the piccola's first three
    (AD, 2D, 3D); a scopa 40 (the ace sweep's only with ``ace_scopa``; ``value``: the
    capture value, the matta's named one); a lay costs a little for the cards it
    exposes. Then the risk of the table left: 30 when an unseen card could take it whole
    (:func:`_sweepable`), 8 for the settebello on it. A declaration adds 40 per point
    (greedy ignores what it shows)."""
    bit = np.int64(1) << card
    score = 40 * points
    if take:
        got = take | bit
        score += (
            2 * popcount(got)
            + 3 * popcount(got & DENARI)
            + 5 * popcount(got & SEVENS)
            + 2 * popcount(got & SIXES)
            + popcount(got & ACES)
            + 4 * popcount(got & (GRANDE | PICCOLA3))
        )
        if got & SETTEBELLO_BIT:
            score += 20
        left = table & ~take
        if left == 0:
            sweep = ace_rule and value == 1 and (table & ACES) == 0
            if (not_last or lps) and (ace_scopa or not sweep):
                score += 40
            return score
    else:
        if bit & SEVENS:
            score -= 3
        if bit & SETTEBELLO_BIT:
            score -= 6
        if bit & DENARI:
            score -= 1
        if bit & (GRANDE | PICCOLA3):
            score -= 2
        left = table | bit
    if not_last:
        if _sweepable(left, unseen, ace_rule, named):
            score -= 30
        if left & SETTEBELLO_BIT:
            score -= 8
    return score


# --------------------------------------------------------------------------- expert
@njit(cache=True, inline="always")
def _grande_worth(a, b):
    """Expected grande (5 points) of pile ``a`` against the piles ``b``: 0 once ``b``
    holds one of its cards, else 5 times the chance that each missing one comes to ``a``."""
    if b & GRANDE:
        return 0.0
    return 5.0 * 0.5 ** (3 - popcount(a & GRANDE))


@njit(cache=True, inline="always")
def _piccola_worth(a, b, most):
    """Expected piccola of pile ``a`` against the piles ``b``: its points once it holds
    the AD, 2D and 3D (at most ``most``), 0 once ``b`` holds one of them, else 3 times
    the chance that each missing one comes to ``a``."""
    if (a & PICCOLA3) == PICCOLA3:
        return float(min(ctz(~(a & DENARI)), most))
    if b & PICCOLA3:
        return 0.0
    return 3.0 * 0.5 ** (3 - popcount(a & PICCOLA3))


@njit(cache=True)
def expert_eval_cirulla(pm, po, others, ndeck, xflags, most):
    """:func:`.policy.expert_eval` with Cirulla's grande and piccola (``most``:
    ``piccola_max``): the static worth of the piles in expected hand points for the side
    holding ``pm`` against the side holding ``po``."""
    v = expert_eval(pm, po, others, ndeck, xflags)
    v += _grande_worth(pm, po | others) - _grande_worth(po, pm | others)
    v += _piccola_worth(pm, po | others, most) - _piccola_worth(po, pm | others, most)
    return v


@njit(cache=True, inline="always")
def _reply_cirulla(c, left, reach, pm, po, others, ndeck, xflags, most, final, lc,
                   dealer_rel, e0, priority, fewest, named, bt, bm, sc):  # fmt: skip
    """The next seat's best gain (this side's loss, in expected points) when it plays
    card ``c`` on the table ``left`` (subset sums ``reach``): its best Cirulla capture
    (the matta's every named value with ``named``), or its lay when it has none or laying
    is free; ``final``: its play is the hand's last (the remainder to its owner)."""
    cbit = np.int64(1) << c
    lps = (xflags & X_LPS) != 0
    ace_rule = (xflags & X_ACE_RULE) != 0
    ace_scopa = (xflags & X_ACE_SCOPA) != 0
    remainder_dealer = (xflags & X_REMAINDER_DEALER) != 0
    if named and c == MATTA_CARD:
        k = add_matta_captures(left, reach, ace_rule, ace_scopa, priority, fewest, bt, bm, 0,
                               sc)  # fmt: skip
    else:
        k = add_captures_cirulla(VALUE[c], left, reach, ace_rule, priority, fewest, bt, 0, sc)
    best = -1e9
    for j in range(k):
        t = bt[j]
        rest = left & ~t
        got = t | cbit
        mine = pm
        value = bm[j] if named and c == MATTA_CARD else VALUE[c]
        sweep = ace_rule and value == 1 and t == left and (left & ACES) == 0
        scopa = rest == 0 and (lps or not final) and (ace_scopa or not sweep)
        if final and rest:
            if remainder_dealer:
                if dealer_rel == REL_NEXT:
                    got |= rest
                elif dealer_rel == REL_ME:
                    mine = pm | rest
            else:
                got |= rest
        r = e0 - expert_eval_cirulla(mine, po | got, others, ndeck, xflags, most)
        if scopa:
            r += 1.0
        if r > best:
            best = r
    if k == 0 or xflags & X_OPTIONAL:  # its lay
        lay = 0.0
        if final:
            rest = left | cbit
            owner = dealer_rel if remainder_dealer else lc
            if owner == REL_NEXT:
                lay = e0 - expert_eval_cirulla(pm, po | rest, others, ndeck, xflags, most)
            elif owner == REL_ME:
                lay = e0 - expert_eval_cirulla(pm | rest, po, others, ndeck, xflags, most)
        if lay > best:
            best = lay
    return best


@njit(cache=True, pipeline_class=STEPS)
def expert_play_value_cirulla(card, take, value, points, table, pm, po, others, unseen, kn,
                              plays, total, lc, dealer_rel, ndeck, xflags, most, priority,
                              fewest, named, rule, xs, bt, bm, sc):  # fmt: skip
    """Worth of a Cirulla play for the side to play, in expected hand points: the change
    of :func:`expert_eval_cirulla` plus any scopa (``value``: the capture value, the
    matta's named one, for the ace sweep's) and the declaration's :func:`declare_bonus`
    under ``rule``, minus the expected best reply (:func:`_reply_cirulla`) of the next
    seat holding ``kn`` cards drawn from ``unseen`` (its known hand when it has shown it:
    then ``unseen`` is that hand and ``kn`` its size); none on the hand's last play.

    ``pm``/``po``/``others``, ``lc``/``dealer_rel`` as in
    :func:`.policy.expert_play_value`; ``priority``, ``fewest``, ``named``: the options
    ``cirulla_match_priority``, ``sum_capture=fewest`` and ``matta=play``; ``xs`` holds
    ``EXPERT_SCRATCH`` floats, ``bt``/``bm`` ``MAX_PLAYS`` int64 and ``sc`` ``SCRATCH``."""
    bit = np.int64(1) << card
    lps = (xflags & X_LPS) != 0
    e_before = expert_eval_cirulla(pm, po, others, ndeck, xflags, most)
    last = plays + 1 == total
    result = declare_bonus(points, rule)
    if take:
        left = table & ~take
        pm = pm | take | bit
        lc = REL_ME
        result += expert_eval_cirulla(pm, po, others, ndeck, xflags, most) - e_before
        if left == 0 and (lps or not last):
            sweep = (xflags & X_ACE_RULE) != 0 and value == 1 and (table & ACES) == 0
            if (xflags & X_ACE_SCOPA) or not sweep:
                result += 1.0
    else:
        left = table | bit
    e0 = expert_eval_cirulla(pm, po, others, ndeck, xflags, most)
    if last:  # the remainder goes to its owner, and nobody replies
        if left:
            owner = dealer_rel if xflags & X_REMAINDER_DEALER else lc
            if owner == REL_ME:
                result += expert_eval_cirulla(pm | left, po, others, ndeck, xflags, most) - e0
            elif owner == REL_NEXT:
                result += expert_eval_cirulla(pm, po | left, others, ndeck, xflags, most) - e0
        return result
    if kn <= 0:
        return result
    final = plays + 2 == total
    reach = table_reach(left, True)
    # reply values by unseen card class (a value's denaro apart, the named matta alone),
    # sorted descending
    k = 0
    u = 0
    for v in range(1, 11):
        cards = unseen & VALUE_MASK[v]
        if not cards:
            continue
        for part_i in range(3):
            if part_i == 0:
                part = cards & ~DENARI & ~(MATTA_BIT if named else 0)
            elif part_i == 1:
                part = cards & DENARI
            else:
                part = cards & MATTA_BIT if named else np.int64(0)
            if not part:
                continue
            r = _reply_cirulla(ctz(part), left, reach, pm, po, others, ndeck, xflags, most,
                               final, lc, dealer_rel, e0, priority, fewest, named, bt, bm,
                               sc)  # fmt: skip
            cnt = popcount(part)
            u += cnt
            i = k
            while i > 0 and xs[i - 1] < r:  # insertion: keep descending order
                xs[i] = xs[i - 1]
                xs[24 + i] = xs[24 + i - 1]
                i -= 1
            xs[i] = r
            xs[24 + i] = cnt
            k += 1
    if kn > u:
        kn = u
    expect = 0.0
    above = 0
    for i in range(k):
        cnt = int(xs[24 + i])
        expect += xs[i] * (BINOM[u - above, kn] - BINOM[u - above - cnt, kn])
        above += cnt
    return result - expect / BINOM[u, kn]
