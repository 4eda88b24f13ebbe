"""Worlds of a Cirulla hand (RULES.md §10): the cards a seat cannot see dealt again, the
hands shown by declarations kept, what keeping quiet under ``declare=auto`` says respected
(the evaluator's worlds, :mod:`scopa_sim.bots.evaluate`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from scopa_sim import _engine as K
from scopa_sim.game.cards import CardSet
from scopa_sim.game.state import HandState


def deal_hidden(
    state: HandState,
    hidden: Sequence[int],
    gen: np.random.Generator | None,
    fixed: Mapping[int, int] | None = None,
    quiet: Mapping[int, int] | None = None,
) -> np.ndarray:
    """A copy of a Cirulla state's vector (RULES.md §10) with the cards of the seats
    ``hidden`` and of the stock dealt again, each of those hands keeping its size, the
    rest to the stock; every other hand, the table and the piles stay (a world of an
    information set that does not see those cards). ``gen`` None deals them in card order
    (a canonical world, the same for every layout of them); otherwise a uniform shuffle
    of them (sorted first, so that nothing of their true places is kept), drawn again
    while a seat that played the first card of this deal without declaring under
    ``declare=auto`` would have held a hand that qualifies (known from the plays pushed
    on ``state``: a position set up from cards has none, and then no such constraint).
    ``fixed`` (``{seat: mask}``, seats of ``hidden``: a belief particle's hands) gives
    those seats their hands, the others being dealt from the cards left. ``quiet``
    (:func:`quiet_hands`'s ``{seat: mask}``) gives those constraints instead of reading
    them from ``state``'s plays (a world drawn from a seat's canonical view, which keeps
    no plays: :meth:`scopa_sim.bots.belief.Belief.sample`)."""
    fixed = fixed or {}
    vec = state._vec.copy()
    lo, hi = int(vec[K.S_STOCK]), int(vec[K.S_DECK_SIZE])
    pool = sorted(int(c) for c in vec[K.S_DECK + lo : K.S_DECK + hi])
    for s in hidden:
        pool += CardSet(int(vec[K.S_HANDS + s])).cards()
    for s, m in fixed.items():
        vec[K.S_HANDS + s] = m
        pool = [c for c in pool if not m >> c & 1]
    hidden = [s for s in hidden if s not in fixed]
    pool.sort()
    quiet = (
        quiet_hands(state, hidden)
        if quiet is None
        else {s: m for s, m in quiet.items() if s in hidden}
    )
    wild = state.rules.matta != "none"
    sizes = [int(vec[K.S_HANDS + s]).bit_count() for s in hidden]
    for _ in range(1000 if gen is not None and quiet else 1):
        if gen is not None:
            gen.shuffle(pool)
        at, masks = 0, []
        for k in sizes:
            masks.append(CardSet(pool[at : at + k]).mask)
            at += k
        held = dict(zip(hidden, masks, strict=True))
        if all(not K.declaration_points(held[s] | m, wild) for s, m in quiet.items()):
            break
    for s, m in zip(hidden, masks, strict=True):
        vec[K.S_HANDS + s] = m
    stock = pool[at:]
    dealt = sorted(set(int(c) for c in vec[K.S_DECK : K.S_DECK + hi]) - set(stock))
    vec[K.S_DECK : K.S_DECK + hi] = dealt + (stock if gen is not None else sorted(stock))
    return vec


def quiet_hands(state: HandState, hidden: Sequence[int]) -> dict[int, int]:
    """Under ``declare=auto`` (RULES.md §10), the seats of ``hidden`` that played the first
    card of this deal without declaring, each with the cards it played in it (a mask):
    their dealt hands did not qualify. Read from the plays pushed on ``state``, those of
    this deal (made while the stock was where it is now) counted only when they and the
    seat's hand make a whole deal's hand."""
    rules = state.rules
    if rules.declare != "auto":
        return {}
    stock = int(state._vec[K.S_STOCK])
    played: dict[int, int] = {}
    for vec, play in state._stack:
        seat = int(vec[K.S_TURN])
        if int(vec[K.S_STOCK]) == stock and seat in hidden:
            played[seat] = played.get(seat, 0) | 1 << play.card
    return {
        s: m
        for s, m in played.items()
        if m.bit_count() + state.hand(s).mask.bit_count() == rules.hand_size
    }


def particle_hands(parts: np.ndarray, cum: np.ndarray, gen: np.random.Generator) -> dict[int, int]:
    """The hands of a belief particle drawn by its cumulative weights ``cum`` from ``gen``:
    ``{seat: mask}`` for the seats the particle holds (none without particles: ``gen``
    then untouched, so the uniform worlds are drawn as without a belief)."""
    if not parts.shape[0]:
        return {}
    p = min(int(np.searchsorted(cum, gen.random(), side="right")), cum.shape[0] - 1)
    return {s: int(m) for s, m in enumerate(parts[p]) if m >= 0}
