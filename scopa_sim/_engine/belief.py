"""Numba kernels of the beliefs over hidden hands (the Python API: :mod:`scopa_sim.belief`).

A seat's belief is a distribution over the hands the other seats hold now, given what
the seat has seen: each candidate hand is weighed by the likelihood of the plays its
holder made under a model of its play.  Only a seat's decisions of the current deal
round depend on its current hand (its hand then was the current one plus the cards it
has played since); decisions of earlier rounds were made with hands now fully known,
so they are evidence about the seat's *type* (which model of the family plays like it),
not about its cards.

Play models (*channels*; ``kinds``, ``taus``, ``eps``): the probability of a legal play
``a`` among the ``n`` distinct legal plays is ``eps / n + (1 - eps) * q(a)`` with ``q``
uniform (``KIND_RANDOM``), or a softmax of the greedy heuristic's or the expert
policy's play values at temperature ``tau`` (points; ``tau = 0``: uniform over the
best plays, the bots' own tie rule).  A belief mixes channels with prior weights, per
seat: ``P(H, m | seen) ~ prior[m] * L_past(m) * L_now(H, m)``.  The likelihood of an
observed play that is not legal with a candidate hand is 0 whatever the model (hard
evidence: a lay under ``capture_rule=hand`` says no card of the hand captures).

A channel may be *flat* (``flat[m] = 1``): a type whose plays are weighed as the channel's
for the type posterior, but whose hand is not inferred from them -- given that type, the
seat's hand is uniform over the hands its plays leave legal.  A seat's weight of a hand
``H`` is then ``P(H, m not flat | seen) + P(flat | seen) * legal(H) / #legal``: a seat
that plays like a flat type (a strong searcher, whose plays the cheap models predict
only in part) falls back towards uniform worlds, one that plays like a modelled type
keeps its inference (:func:`_flatten`).  With no flat channel nothing changes.

Everything here reads only the observing seat's views (``root``, ``hist``: canonical
worlds, see :func:`canonical_history`), so nothing can depend on the true hidden cards.

Output: weighted *particles*, ``parts[p, seat]`` = that seat's hand, or -1 where the
seat's hand is not part of the belief (no evidence about it: drawn uniformly from the
cards left, as the stock is), and cumulative weights ``cum`` ending at 1.0.  The search
kernels draw worlds from them (:func:`.determinize.draw_world`).

Methods: ``METHOD_EXACT`` -- one seat with evidence, every candidate weighed (2-player
games: always); ``METHOD_JOINT`` -- several seats enumerated, joint particles drawn by
rejection from the product of their tables (exact in distribution: the seats' plays
depend on their own hands only, so the joint weight is the product of the seats'
weights on disjoint hands); ``METHOD_MCMC`` -- candidates too many to enumerate
(9- or 10-card hands): a Metropolis chain of card swaps between the hidden places,
particles taken along it.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .bits import ctz, popcount
from .determinize import canonical_world, pick_weighted, uniform
from .ismcts import KIND_EXPERT, KIND_GREEDY, KIND_RANDOM
from .layout import (
    DENARI,
    MATTA_BIT,
    MAX_PLAYS,
    N_STATE,
    POLICY_EXPERT,
    POLICY_GREEDY,
    R_CIRULLA,
    R_PLAYERS,
    S_DECK,
    S_DECK_SIZE,
    S_HANDS,
    S_SHOWN,
    S_STOCK,
    S_TURN,
    SCRATCH,
    VALUE_MASK,
)
from .plays import state_values
from .policy import BINOM, EXPERT_FIX, EXPERT_SCRATCH
from .policy_cirulla import EXPERT_DECLARES
from .step import legal_plays, legal_plays_cirulla, play_values_cirulla
from .streams import RNG_WORDS, rand_below, reseed

METHOD_UNIFORM = 0
METHOD_EXACT = 1
METHOD_JOINT = 2
METHOD_MCMC = 3

#: Energy per decision made illegal by a hand, in the Metropolis chain only (a start
#: that breaks the evidence is left at once; such states are never kept as particles
#: once the chain has found a legal one).
ILLEGAL_PENALTY = 1000.0
#: Tries per particle of the rejection draw before falling back to the chain.
REJECT_TRIES = 200

NEG_INF = -np.inf


# --------------------------------------------------------------------------- views
@njit(cache=True)
def canonical_history(raw, rules, seat, out):
    """``out[d]``: the canonical world of ``seat`` (:func:`.determinize.canonical_world`) of
    the position ``raw[d]``: what the seat knew before play ``d``."""
    for d in range(raw.shape[0]):
        canonical_world(raw[d], rules, seat, out[d])


# --------------------------------------------------------------------------- play models
@njit(cache=True)
def _workspace():
    bc = np.empty(MAX_PLAYS, dtype=np.int64)
    bt = np.empty(MAX_PLAYS, dtype=np.int64)
    sc = np.empty(SCRATCH, dtype=np.int64)
    xs = np.empty(EXPERT_SCRATCH)
    vx = np.empty(MAX_PLAYS)
    vg = np.empty(MAX_PLAYS)
    return bc, bt, sc, xs, vx, vg


@njit(cache=True)
def decision_loglik(state, rules, card, take, kinds, taus, eps, out, bc, bt, sc, xs, vx, vg):
    """``out[m]``: log-probability that the seat to play in ``state`` (its hand as given
    there) makes the play ``(card, take)`` under channel ``m``; -inf in every channel
    when the play is not legal with that hand.  Returns the number of legal plays."""
    n = legal_plays(state, rules, bc, bt, sc)
    idx = -1
    for i in range(n):
        if bc[i] == card and bt[i] == take:
            idx = i
            break
    nm = kinds.shape[0]
    if idx < 0:
        for m in range(nm):
            out[m] = NEG_INF
        return n
    if n == 1:
        for m in range(nm):
            out[m] = 0.0
        return n
    need_x, need_g = _needs(kinds)
    if need_x:  # the expert's values in points (fixed point, then scaled)
        state_values(state, rules, True, bc, bt, n, xs, vx)
        for i in range(n):
            vx[i] /= EXPERT_FIX
    if need_g:
        state_values(state, rules, False, bc, bt, n, xs, vg)
    _channels(kinds, taus, eps, n, idx, vx, vg, out)
    return n


@njit(cache=True, inline="always")
def _needs(kinds):
    """Whether the channels ``kinds`` need the expert's play values, and greedy's."""
    need_x = False
    need_g = False
    for m in range(kinds.shape[0]):
        if kinds[m] == KIND_EXPERT:
            need_x = True
        elif kinds[m] == KIND_GREEDY:
            need_g = True
    return need_x, need_g


@njit(cache=True, inline="always")
def _channels(kinds, taus, eps, n, idx, vx, vg, out):
    """``out[m]``: the log-probability of the play ``idx`` among ``n`` legal plays under
    channel ``m``, from the expert's (``vx``, points) and greedy's (``vg``) play values."""
    nm = kinds.shape[0]
    for m in range(nm):
        if kinds[m] == KIND_RANDOM:
            out[m] = -math.log(n)
            continue
        v = vx if kinds[m] == KIND_EXPERT else vg
        best = v[0]
        for i in range(1, n):
            if v[i] > best:
                best = v[i]
        tau = taus[m]
        if tau <= 0.0:
            ties = 0
            for i in range(n):
                if v[i] == best:
                    ties += 1
            q = 1.0 / ties if v[idx] == best else 0.0
        else:
            total = 0.0
            for i in range(n):
                total += math.exp((v[i] - best) / tau)
            q = math.exp((v[idx] - best) / tau) / total
        p = eps[m] / n + (1.0 - eps[m]) * q
        out[m] = math.log(p) if p > 0.0 else NEG_INF


@njit(cache=True)
def cirulla_workspace(hmeta):
    """The Cirulla decisions' extra work arrays (``cw`` of :func:`_decision`): the plays'
    ``meta`` words ``hmeta`` (:func:`.step.legal_plays_cirulla`; empty on other games),
    the legal plays' metas, the values' scratch and the integer values."""
    bm = np.empty(MAX_PLAYS, dtype=np.int64)
    bt2 = np.empty(MAX_PLAYS, dtype=np.int64)
    bm2 = np.empty(MAX_PLAYS, dtype=np.int64)
    iv = np.empty(MAX_PLAYS, dtype=np.int64)
    return hmeta, bm, bt2, bm2, iv


@njit(cache=True)
def decision_loglik_cirulla(state, rules, card, take, meta, kinds, taus, eps, out, bc, bt, sc,
                            xs, vx, vg, cw):  # fmt: skip
    """:func:`decision_loglik` of a Cirulla position (RULES.md §10): the play ``(card, take,
    meta)`` (``meta``: the matta's named value and the declaration) among the legal plays
    of :func:`.step.legal_plays_cirulla` (the matta's named values, the ace sweep, the
    fifteens, the declared twins), weighed by the Cirulla play values
    (:func:`.step.play_values_cirulla`: greedy's, or the expert's declaring by
    :data:`.policy_cirulla.EXPERT_DECLARES`, in points).  ``cw``:
    :func:`cirulla_workspace`.  Returns the number of legal plays."""
    _, bm, bt2, bm2, iv = cw
    n = legal_plays_cirulla(state, rules, bc, bt, bm, sc)
    idx = -1
    for i in range(n):
        if bc[i] == card and bt[i] == take and bm[i] == meta:
            idx = i
            break
    nm = kinds.shape[0]
    if idx < 0 or n == 1:
        for m in range(nm):
            out[m] = NEG_INF if idx < 0 else 0.0
        return n
    need_x, need_g = _needs(kinds)
    if need_x:
        play_values_cirulla(state, rules, POLICY_EXPERT, EXPERT_DECLARES, bc, bt, bm, n, iv, xs,
                            bt2, bm2, sc)  # fmt: skip
        for i in range(n):
            vx[i] = iv[i] / EXPERT_FIX
    if need_g:
        play_values_cirulla(state, rules, POLICY_GREEDY, EXPERT_DECLARES, bc, bt, bm, n, iv, xs,
                            bt2, bm2, sc)  # fmt: skip
        for i in range(n):
            vg[i] = float(iv[i])
    _channels(kinds, taus, eps, n, idx, vx, vg, out)
    return n


@njit(cache=True, inline="always")
def _decision(state, rules, d, hcard, htake, cw, kinds, taus, eps, out, bc, bt, sc, xs, vx, vg):
    """The log-likelihoods of the observed play ``d`` in ``state`` (:func:`decision_loglik`,
    or :func:`decision_loglik_cirulla` with its ``meta`` ``cw[0][d]`` on Cirulla)."""
    if rules[R_CIRULLA]:
        return decision_loglik_cirulla(state, rules, hcard[d], htake[d], cw[0][d], kinds, taus,
                                       eps, out, bc, bt, sc, xs, vx, vg, cw)  # fmt: skip
    return decision_loglik(state, rules, hcard[d], htake[d], kinds, taus, eps, out, bc, bt, sc,
                           xs, vx, vg)  # fmt: skip


@njit(cache=True)
def _later(hist, hcard):
    """``later[d]``: the cards the seat that made play ``d`` played from ``d`` on within
    the same deal round (the same stock position): its hand then, less what it still
    holds if the round is the current one."""
    nd = hist.shape[0]
    out = np.zeros(nd, dtype=np.int64)
    for d in range(nd):
        acc = np.int64(0)
        for d2 in range(d, nd):
            if hist[d2, S_STOCK] != hist[d, S_STOCK]:
                break
            if hist[d2, S_TURN] == hist[d, S_TURN]:
                acc |= np.int64(1) << hcard[d2]
        out[d] = acc
    return out


@njit(cache=True)
def _all_impossible(x, n):
    """Whether every channel gives the play probability 0 (it is not legal)."""
    out = True
    for m in range(n):
        if x[m] != NEG_INF:
            out = False
    return out


@njit(cache=True)
def _seat_ll(hand, dec, nd, hist, hcard, htake, later, rules, kinds, taus, eps, out, work, tmp,
             bc, bt, sc, xs, vx, vg, cw):  # fmt: skip
    """Sum over the decisions ``dec[:nd]`` of one seat of their log-likelihoods (``out[m]``)
    when the seat holds ``hand`` now (its hand at decision ``d``: ``hand | later[d]``);
    returns the number of those decisions that ``hand`` makes illegal (left out of the
    sums)."""
    for m in range(kinds.shape[0]):
        out[m] = 0.0
    bad = 0
    for j in range(nd):
        d = dec[j]
        for i in range(N_STATE):
            work[i] = hist[d, i]
        work[S_HANDS + hist[d, S_TURN]] = hand | later[d]
        _decision(work, rules, d, hcard, htake, cw, kinds, taus, eps, tmp, bc, bt, sc, xs, vx, vg)
        if _all_impossible(tmp, kinds.shape[0]):
            bad += 1
            continue
        for m in range(kinds.shape[0]):
            out[m] += tmp[m]
    return bad


@njit(cache=True)
def _logsumexp(x, n):
    best = NEG_INF
    for i in range(n):
        if x[i] > best:
            best = x[i]
    if best == NEG_INF:
        return NEG_INF
    s = 0.0
    for i in range(n):
        s += math.exp(x[i] - best)
    return best + math.log(s)


@njit(cache=True)
def _seat_logw(ll, base, nm, buf):
    """log sum_m exp(base[m] + ll[m]): a seat's weight of a hand, channels mixed."""
    for m in range(nm):
        buf[m] = base[m] + ll[m]
    return _logsumexp(buf, nm)


# --------------------------------------------------------------------------- sampling help
@njit(cache=True)
def _nth_bit(m, k):
    """The index of the ``k``-th (0-based) set bit of ``m``."""
    for _ in range(k):
        m &= m - 1
    return ctz(m)


@njit(cache=True)
def _normalise_cum(logw, lo, hi, out):
    """``out[lo:hi]``: cumulative normalised weights of ``exp(logw[lo:hi])``, the last
    exactly 1.0; returns the log of the normaliser (-inf: every weight is 0)."""
    best = NEG_INF
    for i in range(lo, hi):
        if logw[i] > best:
            best = logw[i]
    if best == NEG_INF:
        return NEG_INF
    total = 0.0
    for i in range(lo, hi):
        total += math.exp(logw[i] - best)
        out[i] = total
    for i in range(lo, hi):
        out[i] /= total
    out[hi - 1] = 1.0
    return best + math.log(total)


@njit(cache=True)
def _seat_table(s, k, unseen, dec, nd, hist, hcard, htake, later, rules, kinds, taus, eps, base,
                cand, logw, mpost, pos, ll, work, tmp, buf, bc, bt, sc, xs, vx, vg,
                cw):  # fmt: skip
    """Write every ``k``-card hand of seat ``s`` drawn from ``unseen`` from ``cand[pos]``
    on, with its log weight (``logw``; -inf: a play it makes illegal) and the channel
    posterior given it (``mpost``); return the new end.

    The play models see a card by its value and whether it is a denaro only (legal
    plays, the greedy score and the expert's evaluation are all blind to the other
    three suits), and the unseen cards are on no table or pile, so hands that differ by
    unseen non-denari cards of equal value have the same likelihood: each such class
    of hands is weighed once, by a representative, and its members take its weight.
    On Cirulla the matta (7H) is a class of its own: it plays as a wild card.
    """
    nm = kinds.shape[0]
    cmask = np.zeros(21, dtype=np.int64)
    csize = np.zeros(21, dtype=np.int64)
    nc = 0
    own = MATTA_BIT if rules[R_CIRULLA] else np.int64(0)
    for v in range(1, 11):
        allv = unseen & VALUE_MASK[v]
        plain = allv & ~DENARI & ~own
        den = allv & DENARI
        if plain:
            cmask[nc] = plain
            csize[nc] = popcount(plain)
            nc += 1
        if den:
            cmask[nc] = den
            csize[nc] = 1
            nc += 1
        if allv & own:
            cmask[nc] = own
            csize[nc] = 1
            nc += 1
    cnt = np.zeros(21, dtype=np.int64)
    rem = k
    for i in range(nc):
        t = min(csize[i], rem)
        cnt[i] = t
        rem -= t
    sub = np.zeros((10, 4), dtype=np.int64)  # per class in the hand: its card subsets
    nsub = np.zeros(10, dtype=np.int64)
    digit = np.zeros(10, dtype=np.int64)
    mp = np.empty(nm)
    while True:
        # the representative: the lowest cards of each class; then every member
        rep = np.int64(0)
        ni = 0
        for i in range(nc):
            if cnt[i] == 0:
                continue
            c = 0
            m = cmask[i]
            while m:  # every subset of the class's (at most 3) cards of size cnt[i]
                if popcount(m) == cnt[i]:
                    sub[ni, c] = m
                    c += 1
                m = (m - 1) & cmask[i]
            nsub[ni] = c
            digit[ni] = 0
            r = cmask[i]
            for _ in range(cnt[i]):
                rep |= r & -r
                r &= r - 1
            ni += 1
        bad = _seat_ll(rep, dec, nd, hist, hcard, htake, later, rules, kinds, taus, eps, ll,
                       work, tmp, bc, bt, sc, xs, vx, vg, cw)  # fmt: skip
        lw = NEG_INF
        if not bad:
            lw = _seat_logw(ll, base, nm, buf)
        for m_ in range(nm):
            mp[m_] = math.exp(buf[m_] - lw) if (not bad and lw != NEG_INF) else 0.0
        while True:
            hand = np.int64(0)
            for j in range(ni):
                hand |= sub[j, digit[j]]
            cand[pos] = hand
            logw[pos] = lw
            for m_ in range(nm):
                mpost[pos, m_] = mp[m_]
            pos += 1
            j = 0
            while j < ni:
                digit[j] += 1
                if digit[j] < nsub[j]:
                    break
                digit[j] = 0
                j += 1
            if j == ni:
                break
        # the next count vector (decreasing lexicographic order)
        tail = 0
        capr = 0
        found = False
        for i in range(nc - 2, -1, -1):
            tail += cnt[i + 1]
            capr += csize[i + 1]
            if cnt[i] > 0 and capr >= tail + 1:
                cnt[i] -= 1
                rem = tail + 1
                for j2 in range(i + 1, nc):
                    t = min(csize[j2], rem)
                    cnt[j2] = t
                    rem -= t
                found = True
                break
        if not found:
            return pos


# --------------------------------------------------------------------------- the belief
@njit(cache=True)
def _evidence(rules, seat, hist, hcard, htake, kinds, taus, eps, logprior, later, now, size, held,
              work, tmp, bc, bt, sc, xs, vx, vg, cw):  # fmt: skip
    """What the history says about each other seat, for :func:`compute`: ``(base, dec,
    ndec)``.  ``base[s, m]`` is the log prior of channel ``m`` plus the log likelihood
    of the plays ``s`` made from a hand now known (rounds before the current one,
    ``now`` being the root's stock position, and the current round of a seat whose hand
    is shown, ``held[s]``: a Cirulla declaration's); the current round's decisions of a
    seat still holding hidden cards (``size[s]``), are listed in ``dec[s, :ndec[s]]``
    instead, to weigh its candidate hands."""
    nm = kinds.shape[0]
    nd = hist.shape[0]
    base = np.zeros((4, nm))
    for s in range(4):
        for m in range(nm):
            base[s, m] = logprior[m]
    dec = np.zeros((4, max(nd, 1)), dtype=np.int64)
    ndec = np.zeros(4, dtype=np.int64)
    for d in range(nd):
        s = hist[d, S_TURN]
        if s == seat:
            continue
        now_round = hist[d, S_STOCK] == now
        if now_round and size[s] > 0 and held[s] == 0:
            dec[s, ndec[s]] = d
            ndec[s] += 1
            continue
        if nm == 1:
            continue  # with one channel, known hands' plays weigh every candidate alike
        for i in range(N_STATE):
            work[i] = hist[d, i]
        work[S_HANDS + s] = later[d] | held[s] if now_round else later[d]
        _decision(work, rules, d, hcard, htake, cw, kinds, taus, eps, tmp, bc, bt, sc, xs, vx, vg)
        if _all_impossible(tmp, nm):
            continue  # cannot happen for a true history; never let it zero a seat
        for m in range(nm):
            if tmp[m] == NEG_INF:
                base[s, m] = NEG_INF
            else:
                base[s, m] += tmp[m]
    return base, dec, ndec


@njit(cache=True)
def _flatten(logw, cumw, mpost, post_s, flat, lo, hi):
    """Mix one seat's normalised candidate table ``cumw[lo:hi]`` (cumulative) with its flat
    types (module docstring): each candidate keeps its weight times the posterior of
    the non-flat types given it, and the flat types' posterior ``post_s`` is spread
    evenly over the candidates its plays leave legal (``logw > -inf``)."""
    nm = flat.shape[0]
    share = 0.0
    for m in range(nm):
        if flat[m]:
            share += post_s[m]
    if share <= 0.0:
        return
    legal = 0
    for i in range(lo, hi):
        if logw[i] != NEG_INF:
            legal += 1
    prev = 0.0
    acc = 0.0
    for i in range(lo, hi):
        p = cumw[i] - prev
        prev = cumw[i]
        keep = 1.0
        for m in range(nm):
            if flat[m]:
                keep -= mpost[i, m]
        q = p * max(keep, 0.0)
        if logw[i] != NEG_INF:
            q += share / legal
        acc += q
        cumw[i] = acc
    for i in range(lo, hi):
        cumw[i] /= acc
    cumw[hi - 1] = 1.0


@njit(cache=True)
def _flat_particles(parts, ev, nev, post, flat):
    """The chain's version of :func:`_flatten`: in each seat's column of the equally
    weighted particles, a share equal to its flat types' posterior (spread evenly along
    the chain) is set to -1, a hand drawn uniformly from the cards left."""
    n = parts.shape[0]
    for j in range(nev):
        s = ev[j]
        share = 0.0
        for m in range(flat.shape[0]):
            if flat[m]:
                share += post[s, m]
        for i in range(n):
            if math.floor((i + 1) * share + 1e-9) > math.floor(i * share + 1e-9):
                parts[i, s] = -1


@njit(cache=True)
def _enumerated(ev, nev, ncand, size, unseen, dec, ndec, hist, hcard, htake, later, rules, kinds,
                taus, eps, base, post, particles, rng, bufs, flat):  # fmt: skip
    """:func:`compute`'s exact methods, the seats with evidence (``ev[:nev]``) having few
    enough candidate hands (``ncand``) to enumerate: ``(parts, cum, method)``.

    Each seat's candidates are weighed exactly (and ``post`` gets their type posterior);
    one seat gives its candidates as the particles (``METHOD_EXACT``), several give
    ``particles`` joint particles by rejection of clashing draws (``METHOD_JOINT``).
    No candidate fitting the plays gives ``METHOD_UNIFORM``; rejection failing too often
    gives ``METHOD_MCMC`` with empty arrays (``post`` of those seats reset): the caller
    then runs the chain.  ``bufs``: :func:`compute`'s work arrays; ``flat``: the flat
    channels (:func:`_flatten`)."""
    ll, work, tmp, buf, bc, bt, sc, xs, vx, vg, cw = bufs
    nm = kinds.shape[0]
    total = 0
    for j in range(nev):
        total += ncand[ev[j]]
    cand = np.empty(total, dtype=np.int64)
    logw = np.empty(total)
    cumw = np.empty(total)
    start = np.zeros(5, dtype=np.int64)
    mpost = np.empty((total, nm))  # P(m | H, seen) per candidate
    pos = 0
    ok = True
    for j in range(nev):
        s = ev[j]
        start[j] = pos
        pos = _seat_table(s, size[s], unseen, dec[s], ndec[s], hist, hcard, htake, later,
                          rules, kinds, taus, eps, base[s], cand, logw, mpost, pos, ll, work,
                          tmp, buf, bc, bt, sc, xs, vx, vg, cw)  # fmt: skip
        start[j + 1] = pos
        if _normalise_cum(logw, start[j], pos, cumw) == NEG_INF:
            ok = False  # no candidate fits the plays (not a history the rules allow)
        # the type posterior: sum over H of P(H | seen) P(m | H, seen)
        prev = 0.0
        for i in range(start[j], pos):
            p = cumw[i] - prev
            prev = cumw[i]
            for m in range(nm):
                post[s, m] += p * mpost[i, m]
        if ok:
            _flatten(logw, cumw, mpost, post[s], flat, start[j], pos)
    if not ok:
        return np.empty((0, 4), dtype=np.int64), np.empty(0), METHOD_UNIFORM
    if nev == 1:
        s = ev[0]
        parts = np.full((total, 4), -1, dtype=np.int64)
        for i in range(total):
            parts[i, s] = cand[i]
        return parts, cumw, METHOD_EXACT
    parts = np.full((particles, 4), -1, dtype=np.int64)
    got = 0
    tries = 0
    while got < particles and tries < REJECT_TRIES * particles:
        tries += 1
        used = np.int64(0)
        clash = False
        for j in range(nev):
            i = pick_weighted(cumw, start[j], start[j + 1], uniform(rng))
            if cand[i] & used:
                clash = True
                break
            used |= cand[i]
            parts[got, ev[j]] = cand[i]
        if not clash:
            got += 1
    if got == particles:
        cum = np.empty(particles)
        for i in range(particles):
            cum[i] = (i + 1) / particles
        cum[particles - 1] = 1.0
        return parts, cum, METHOD_JOINT
    for s in range(4):
        for m in range(nm):
            post[s, m] = 0.0 if ndec[s] > 0 else post[s, m]
    return np.empty((0, 4), dtype=np.int64), np.empty(0), METHOD_MCMC


@njit(cache=True)
def _metropolis(ev, nev, size, unseen, ucards, nu, dec, ndec, hist, hcard, htake, later, rules,
                kinds, taus, eps, base, post, chain, burn, thin, rng, bufs):  # fmt: skip
    """:func:`compute`'s Metropolis chain over the hands of the seats with evidence
    (``ev[:nev]``): from a random deal of the unseen cards, swaps of a card between a
    seat's hand and the other unseen cards, accepted by the change of the hands' log
    weights; after ``burn`` swaps a particle every ``thin``, ``chain`` of them, equally
    weighted: ``(parts, cum)``, and ``post`` gets the seats' type posteriors averaged
    over them.  ``bufs``: :func:`compute`'s work arrays."""
    ll, work, tmp, buf, bc, bt, sc, xs, vx, vg, cw = bufs
    nm = kinds.shape[0]
    hands = np.zeros(4, dtype=np.int64)
    perm = ucards[:nu].copy()
    for i in range(nu - 1, 0, -1):
        j = rand_below(rng, i + 1)
        t = perm[i]
        perm[i] = perm[j]
        perm[j] = t
    p0 = 0
    for j in range(nev):
        s = ev[j]
        for _ in range(size[s]):
            hands[s] |= np.int64(1) << perm[p0]
            p0 += 1
    energy = np.zeros(4)  # log weight (with the illegality penalty) of each seat's hand
    mp = np.zeros((4, nm))  # P(m | H_s, seen) of the current hands
    bads = np.zeros(4, dtype=np.int64)
    for j in range(nev):
        s = ev[j]
        bads[s] = _seat_ll(hands[s], dec[s], ndec[s], hist, hcard, htake, later, rules, kinds,
                           taus, eps, ll, work, tmp, bc, bt, sc, xs, vx, vg, cw)  # fmt: skip
        lw = _seat_logw(ll, base[s], nm, buf)
        energy[s] = lw - ILLEGAL_PENALTY * bads[s]
        for m in range(nm):
            mp[s, m] = math.exp(buf[m] - lw) if lw != NEG_INF else 1.0 / nm
    mpb = np.zeros(nm)
    parts = np.full((chain, 4), -1, dtype=np.int64)
    got = 0
    steps = burn + chain * thin
    for t in range(steps):
        a = ev[rand_below(rng, nev)]
        ka = size[a]  # nu > ka: a seat holding every unseen card has one candidate
        x = _nth_bit(hands[a], rand_below(rng, ka))
        y = _nth_bit(unseen & ~hands[a], rand_below(rng, nu - ka))
        xb = np.int64(1) << x
        yb = np.int64(1) << y
        b = -1
        for j in range(nev):
            if ev[j] != a and hands[ev[j]] & yb:
                b = ev[j]
        ha = hands[a] ^ xb ^ yb
        bad_a = _seat_ll(ha, dec[a], ndec[a], hist, hcard, htake, later, rules, kinds, taus, eps,
                         ll, work, tmp, bc, bt, sc, xs, vx, vg, cw)  # fmt: skip
        lw_a = _seat_logw(ll, base[a], nm, buf)
        e_a = lw_a - ILLEGAL_PENALTY * bad_a
        for m in range(nm):
            mpb[m] = buf[m]
        delta = e_a - energy[a]
        e_b = 0.0
        lw_b = 0.0
        hb = np.int64(0)
        bad_b = 0
        if b >= 0:
            hb = hands[b] ^ yb ^ xb
            bad_b = _seat_ll(hb, dec[b], ndec[b], hist, hcard, htake, later, rules, kinds, taus,
                             eps, ll, work, tmp, bc, bt, sc, xs, vx, vg, cw)  # fmt: skip
            lw_b = _seat_logw(ll, base[b], nm, buf)
            e_b = lw_b - ILLEGAL_PENALTY * bad_b
            delta += e_b - energy[b]
        if delta >= 0.0 or uniform(rng) < math.exp(delta):
            hands[a] = ha
            energy[a] = e_a
            for m in range(nm):
                mp[a, m] = math.exp(mpb[m] - lw_a) if lw_a != NEG_INF else 1.0 / nm
            if b >= 0:
                hands[b] = hb
                energy[b] = e_b
                for m in range(nm):
                    mp[b, m] = math.exp(buf[m] - lw_b) if lw_b != NEG_INF else 1.0 / nm
        if t >= burn and (t - burn) % thin == thin - 1 and got < chain:
            for j in range(nev):
                s = ev[j]
                parts[got, s] = hands[s]
                for m in range(nm):
                    post[s, m] += mp[s, m] / chain
            got += 1
    cum = np.empty(chain)
    for i in range(chain):
        cum[i] = (i + 1) / chain
    cum[chain - 1] = 1.0
    return parts, cum


@njit(cache=True)
def compute(root, rules, seat, hist, hcard, htake, hmeta, kinds, taus, eps, logprior, cap,
            particles, chain, burn, thin, seed, flat):  # fmt: skip
    """The belief of ``seat`` at ``root`` (its canonical world now) from the plays
    ``(hcard[d], htake[d])`` made in the positions ``hist[d]`` (its canonical views),
    under the channels (``kinds``, ``taus``, ``eps``) with log prior ``logprior``.
    On Cirulla (RULES.md §10) ``hmeta[d]`` is play ``d``'s ``meta`` (the matta's named
    value, the declaration; :func:`decision_loglik_cirulla`), and a hand shown by a
    declaration (``S_SHOWN``) is known: not unseen, its plays evidence about its type
    only; ``hmeta`` is not read on other games.

    Seats with evidence about their current hand are enumerated exactly when their
    candidates times their decisions of the round times their hand size plus one (a
    decision's cost grows with the hand it was made with) are at most ``cap`` each, and
    several such seats give ``particles`` joint particles by rejection; otherwise a
    Metropolis chain (``burn`` swaps, then a particle every ``thin``) gives ``chain``
    particles.
    ``seed`` drives the random methods only.  ``flat[m] = 1`` makes channel ``m`` flat
    (module docstring; all 0: every channel's plays are evidence about the hand).

    Returns ``(parts, cum, post, method)``: the particles (module docstring), their
    cumulative weights, ``post[s, m]`` the posterior probability that seat ``s`` plays
    like channel ``m`` (the prior for seats with no evidence), and the ``METHOD_*``.
    """
    players = rules[R_PLAYERS]
    nm = kinds.shape[0]
    bc, bt, sc, xs, vx, vg = _workspace()
    work = np.empty(N_STATE, dtype=np.int64)
    tmp = np.empty(nm)
    ll = np.empty(nm)
    buf = np.empty(nm)
    later = _later(hist, hcard)
    now = root[S_STOCK]
    cw = cirulla_workspace(hmeta)
    shown = root[S_SHOWN]  # 0 but on Cirulla
    held = np.zeros(4, dtype=np.int64)
    unseen = np.int64(0)
    for s in range(players):
        if s != seat and (shown >> s) & 1:
            held[s] = root[S_HANDS + s]
        elif s != seat:
            unseen |= root[S_HANDS + s]
    for i in range(root[S_STOCK], root[S_DECK_SIZE]):
        unseen |= np.int64(1) << root[S_DECK + i]
    nu = popcount(unseen)
    ucards = np.empty(max(nu, 1), dtype=np.int64)
    m_ = unseen
    for i in range(nu):
        ucards[i] = ctz(m_)
        m_ &= m_ - 1
    size = np.zeros(4, dtype=np.int64)
    for s in range(players):
        size[s] = popcount(root[S_HANDS + s])
    # past evidence (hands known) and the current round's decisions of each seat
    base, dec, ndec = _evidence(rules, seat, hist, hcard, htake, kinds, taus, eps, logprior,
                                later, now, size, held, work, tmp, bc, bt, sc, xs, vx, vg,
                                cw)  # fmt: skip
    post = np.zeros((4, nm))
    ev = np.zeros(4, dtype=np.int64)  # seats with evidence about their current hand
    nev = 0
    enumerable = True
    ncand = np.zeros(4, dtype=np.int64)
    for s in range(players):
        if ndec[s] > 0:
            ev[nev] = s
            nev += 1
            c = BINOM[nu, size[s]]
            ncand[s] = np.int64(c)
            if c * ndec[s] * (size[s] + 1) > cap:  # likelihoods x cards in hand then
                enumerable = False
    # type posterior of seats without current evidence: from the past alone
    for s in range(players):
        if ndec[s] == 0:
            z = _logsumexp(base[s], nm)
            for m in range(nm):
                post[s, m] = math.exp(base[s, m] - z) if z != NEG_INF else 1.0 / nm
    if nev == 0:
        return np.empty((0, 4), dtype=np.int64), np.empty(0), post, METHOD_UNIFORM
    rng = np.zeros(RNG_WORDS, dtype=np.uint64)
    reseed(rng, seed)
    bufs = (ll, work, tmp, buf, bc, bt, sc, xs, vx, vg, cw)
    if enumerable:
        parts, cum, method = _enumerated(ev, nev, ncand, size, unseen, dec, ndec, hist, hcard,
                                         htake, later, rules, kinds, taus, eps, base, post,
                                         particles, rng, bufs, flat)  # fmt: skip
        if method != METHOD_MCMC:
            return parts, cum, post, method
    parts, cum = _metropolis(ev, nev, size, unseen, ucards, nu, dec, ndec, hist, hcard, htake,
                             later, rules, kinds, taus, eps, base, post, chain, burn, thin,
                             rng, bufs)  # fmt: skip
    _flat_particles(parts, ev, nev, post, flat)
    return parts, cum, post, METHOD_MCMC
