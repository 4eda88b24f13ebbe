"""Random streams of the kernels: SplitMix64, derived stream seeds, the deal's shuffle.

Every stream is a SplitMix64 counter: :func:`derive_seed` gives independent streams
from (run seed, a, b, c), so results never depend on how work is split.  The jitted
loops (:mod:`.fused`, :mod:`.ismcts`) keep a stream's counter in a local and draw with
:func:`draw` / :func:`below`; Python and the step kernels use a generator state array
(:func:`new_rng`, :func:`rand_below`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import popcount
from .layout import (
    ACES,
    KINGS,
    R_ACES_REDEAL,
    R_CIRULLA,
    R_KINGS_REDEAL,
    R_TABLE_CARDS,
    deck_cards,
)

__all__ = [
    "GOLDEN",
    "RNG_WORDS",
    "below",
    "derive_seed",
    "draw",
    "fisher_yates",
    "mix64",
    "new_rng",
    "rand_below",
    "reseed",
    "seed_finish",
    "seed_prefix",
    "shuffle_deal",
    "shuffle_deal_cirulla",
]


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
def seed_prefix(seed, a, b):
    """The part of :func:`derive_seed` that does not depend on ``c``."""
    z = mix64(np.uint64(seed) + GOLDEN)
    z = mix64(z ^ np.uint64(a))
    return mix64(z ^ np.uint64(b) ^ np.uint64(0x632BE59BD9B4E019))


@njit(cache=True)
def derive_seed(seed, a, b, c):
    """A stream seed from (run seed, a, b, c); distinct inputs give independent streams."""
    return seed_finish(seed_prefix(seed, a, b), c)


@njit(cache=True, inline="always")
def seed_finish(prefix, c):
    """The rest of :func:`derive_seed` from its ``prefix`` (:func:`seed_prefix`)."""
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
def below(z, n):
    """The first draw of the generator state ``z`` already advanced: uniform in [0, n)."""
    return np.int64(((mix64(z) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, inline="always")
def draw(z, spare, n):
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
    :func:`draw`). The first draw from ``new_rng(seed)`` is ``below(seed + golden, n)``,
    as before generator 3; the next ones differ."""
    if rng.shape[0] < RNG_WORDS:
        raise ValueError("rand_below: the generator state needs RNG_WORDS words")
    z, spare, r = draw(rng[0], rng[1], n)
    rng[0] = z
    rng[1] = spare
    return r


@njit(cache=True, inline="always")
def fisher_yates(deck, n, z):
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
        z = fisher_yates(deck, n, z)
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


@njit(cache=True)
def shuffle_deal_cirulla(rules, rng, deck, voids):
    """:func:`shuffle_deal` under Cirulla's rules (RULES.md §10): shuffle again while the
    first table is void, with two or more aces (``aces_redeal``) or three or more kings
    (``kings_redeal``), the same draws as :func:`shuffle_deal` for each shuffle. The void
    tables go to ``voids[k]`` as masks, in order (those past its length are counted
    only). Returns the number of void deals."""
    z = rng[0]
    count = 0
    kings_rule = rules[R_KINGS_REDEAL] != 0
    aces_rule = rules[R_CIRULLA] != 0 and rules[R_ACES_REDEAL] != 0
    while True:
        n = deck_cards(rules, deck)
        z = fisher_yates(deck, n, z)
        table = np.int64(0)
        for i in range(rules[R_TABLE_CARDS]):
            table |= np.int64(1) << deck[i]
        void = (kings_rule and popcount(table & KINGS) >= 3) or (
            aces_rule and popcount(table & ACES) >= 2
        )
        if not void:
            break
        if count < voids.shape[0]:
            voids[count] = table
        count += 1
    rng[0] = z
    return count
