"""Determinization: worlds consistent with what a seat knows.

A world is a full engine state (``S_*`` layout of :mod:`.layout`) in which the cards a
seat cannot see (the other hands and the stock) are dealt anew: uniformly
(:func:`determinize`), from a belief's particles (:func:`draw_world`), in card order
(:func:`canonical_world`, the root of searches), weighed by the other seats' evidence
(:func:`evidence_world`, the rollouts harness's ``--evidence-worlds`` only) or with only
the stock's order unknown (:func:`shuffle_stock`).  The searches (:mod:`.solver`, :mod:`.pimc`,
:mod:`.ismcts`, :mod:`.evaluator`) and the belief (:mod:`.belief`) draw from here.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import ctz, popcount
from .layout import (
    N_STATE,
    R_PLAYERS,
    S_DECK,
    S_DECK_SIZE,
    S_EVIDENCE,
    S_HANDS,
    S_SHOWN,
    S_STOCK,
)
from .streams import GOLDEN, RNG_WORDS, mix64, rand_below


@njit(cache=True, inline="always")
def _seen_first(state, size, hidden, out):
    """The cards a seat cannot see, ``hidden`` (the other hands) and the stock of
    ``state``, and where they start in ``out``'s deck order: ``(unseen, pos)``, once the
    cards the seat has seen are written before them (from ``S_DECK``), in card order."""
    unseen = hidden
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
    return unseen, pos


@njit(cache=True)
def _redeal(state, rules, seat, rng, out, shuffle):
    """Copy ``state`` to ``out`` with the cards ``seat`` cannot see dealt anew.

    The unseen cards are those of the other hands and of the stock.  They are laid at
    the end of the deck order (shuffled when ``shuffle``, else in card order), the
    other hands take theirs from the front of that run in seat order by their current
    sizes, and the rest is the stock.  Cards already seen are written before them in
    card order, so ``out`` holds no trace of how the true deal went.  A hand shown by a
    Cirulla declaration (``S_SHOWN``, 0 in every other game) is seen: it is kept.
    """
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
    if shuffle:
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
def determinize(state, rules, seat, rng, out_state):
    """A world consistent with what ``seat`` knows, into ``out_state``: the cards it
    cannot see (other hands and stock) dealt uniformly at random to the other hands
    (keeping their sizes) and to the stock (keeping its size)."""
    _redeal(state, rules, seat, rng, out_state, True)


#: :func:`evidence_world`'s most draws of one world; the last one is kept.
EVIDENCE_TRIES = 64


@njit(cache=True)
def marked_cards(state, seat):
    """How many cards of the seats other than ``seat`` are of a value their own evidence
    marks (``S_EVIDENCE``: bit ``v - 1`` for value ``v``; card ``c`` is of value
    ``c % 10 + 1``)."""
    count = 0
    for s in range(4):
        if s == seat or not state[S_EVIDENCE + s]:
            continue
        m = state[S_HANDS + s]
        while m:
            if (state[S_EVIDENCE + s] >> (ctz(m) % 10)) & 1:
                count += 1
            m &= m - 1
    return count


@njit(cache=True)
def evidence_world(state, rules, seat, rng, out_state, rho):
    """A world consistent with what ``seat`` knows, into ``out_state``, weighed by the
    other seats' public evidence: by rejection, each draw :func:`determinize`'s (uniform,
    from ``rng``) and accepted with probability ``rho ** k``, ``k`` the cards of the
    other hands of a value their seat's evidence marks (:func:`marked_cards`); otherwise
    drawn again.  So the worlds follow the uniform draw weighed by ``rho ** k``, except
    that after :data:`EVIDENCE_TRIES` draws the last one is kept whatever its ``k``
    (the cap bounds the time where every world is unlikely).  ``rho = 1`` (in [0, 1])
    gives :func:`determinize`'s world (the first draw, the state of ``rng`` apart);
    ``rho = 0``: a world of ``k = 0`` whenever one of the first draws is.  Reproducible:
    every draw comes from ``rng``."""
    for _ in range(EVIDENCE_TRIES - 1):
        _redeal(state, rules, seat, rng, out_state, True)
        k = marked_cards(out_state, seat)
        if k == 0:
            return
        if uniform(rng) < rho**k:
            return
    _redeal(state, rules, seat, rng, out_state, True)


@njit(cache=True)
def pick_weighted(cum, lo, hi, x):
    """The first index ``i`` in ``[lo, hi)`` with ``cum[i] > x`` (the last if none): a
    draw from cumulative weights ``cum`` by a uniform ``x`` in [0, 1)."""
    a = lo
    b = hi - 1
    while a < b:
        mid = (a + b) // 2
        if cum[mid] > x:
            b = mid
        else:
            a = mid + 1
    return a


@njit(cache=True)
def unit_draw(z):
    """A uniform double in [0, 1) from the generator state ``z`` already advanced."""
    return float(mix64(z) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def uniform(rng):
    """A uniform double in [0, 1) from the generator state array ``rng`` (advanced here:
    :func:`unit_draw` of its next state)."""
    rng[0] += GOLDEN
    return unit_draw(rng[0])


@njit(cache=True)
def draw_world(state, rules, seat, rng, out_state, parts, cum):
    """A world consistent with what ``seat`` knows, into ``out_state``: with no
    particles (``parts`` of 0 rows) exactly :func:`determinize` (the uniform draw);
    else from a belief (:mod:`.belief`): a particle ``p`` drawn by its
    cumulative weight ``cum``, the other seats holding ``parts[p, s]`` where it is not
    -1, the cards left dealt uniformly to the other hands and to the stock (a hand shown
    by a Cirulla declaration, ``S_SHOWN``, kept)."""
    if parts.shape[0] == 0:
        _redeal(state, rules, seat, rng, out_state, True)
        return
    p = pick_weighted(cum, 0, cum.shape[0], uniform(rng))
    for i in range(N_STATE):
        out_state[i] = state[i]
    n = rules[R_PLAYERS]
    size = state[S_DECK_SIZE]
    shown = state[S_SHOWN]
    unseen = np.int64(0)
    taken = np.int64(0)
    for s in range(n):
        if s != seat and not (shown >> s) & 1:
            unseen |= state[S_HANDS + s]
            if parts[p, s] >= 0:
                taken |= parts[p, s]
    unseen, pos = _seen_first(state, size, unseen, out_state)
    pool = np.empty(40, dtype=np.int64)
    npool = 0
    m = unseen & ~taken
    while m:
        pool[npool] = ctz(m)
        m &= m - 1
        npool += 1
    for i in range(npool - 1, 0, -1):
        j = rand_below(rng, i + 1)
        t = pool[i]
        pool[i] = pool[j]
        pool[j] = t
    q = 0
    for s in range(n):
        if s == seat or (shown >> s) & 1:
            continue
        h = np.int64(0)
        if parts[p, s] >= 0:
            h = parts[p, s]
            m = h
            while m:
                out_state[pos] = ctz(m)
                m &= m - 1
                pos += 1
        else:
            for _ in range(popcount(state[S_HANDS + s])):
                h |= np.int64(1) << pool[q]
                out_state[pos] = pool[q]
                q += 1
                pos += 1
        out_state[S_HANDS + s] = h
    while q < npool:
        out_state[pos] = pool[q]
        q += 1
        pos += 1


@njit(cache=True)
def canonical_world(state, rules, seat, out_state):
    """The one world of ``seat``'s information set with the unseen cards in card order:
    a state that depends only on what ``seat`` knows (used as the root of searches)."""
    _redeal(state, rules, seat, np.zeros(RNG_WORDS, dtype=np.uint64), out_state, False)


@njit(cache=True)
def single_world(state, rules, seat):
    """True when ``seat``'s information set is one world: the stock is empty and at most
    one other seat holds cards (``seat`` = -1: nobody's hand is known)."""
    if state[S_STOCK] < state[S_DECK_SIZE]:
        return False
    others = 0
    for s in range(rules[R_PLAYERS]):
        if s != seat and state[S_HANDS + s]:
            others += 1
    return others <= 1


@njit(cache=True)
def shuffle_stock(state, rng, out_state):
    """A world in which only the stock is unknown: ``state`` with the order of the cards
    still to deal shuffled into ``out_state`` (every hand kept as it is)."""
    for i in range(N_STATE):
        out_state[i] = state[i]
    lo = S_DECK + state[S_STOCK]
    hi = S_DECK + state[S_DECK_SIZE]
    for i in range(hi - lo - 1, 0, -1):
        j = rand_below(rng, i + 1)
        t = out_state[lo + i]
        out_state[lo + i] = out_state[lo + j]
        out_state[lo + j] = t
