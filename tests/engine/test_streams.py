"""The random streams: SplitMix64 with two 32-bit draws per output (data generator 3)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from scopa_sim import _engine as K

GOLDEN = 0x9E3779B97F4A7C15
M64 = (1 << 64) - 1


def mix64(z: int) -> int:
    """SplitMix64's finaliser, written from its published definition."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def reference_draws(seed: int, bounds: list[int]) -> list[int]:
    """Draws in [0, n) for each n: the high half of each output, then its low half."""
    out, z, halves = [], seed, []
    for n in bounds:
        if not halves:
            z = (z + GOLDEN) & M64
            y = mix64(z)
            halves = [y >> 32, y & 0xFFFFFFFF]
        out.append((halves.pop(0) * n) >> 32)
    return out


seeds = st.integers(0, M64)
bounds = st.lists(st.integers(1, 40), min_size=1, max_size=9)
JIT = settings(deadline=None)  # the first example may compile the kernel


@JIT
@given(seeds, bounds)
def test_draws_follow_splitmix64_two_halves_per_output(seed: int, ns: list[int]) -> None:
    rng = K.new_rng(seed)
    assert [int(K.rand_below(rng, n)) for n in ns] == reference_draws(seed, ns)


@JIT
@given(seeds, st.integers(1, 40))
def test_first_draw_of_a_fresh_stream_is_unchanged_from_generator_2(seed: int, n: int) -> None:
    """Dealer draws (one per match) come from fresh streams, so they did not change."""
    assert K.rand_below(K.new_rng(seed), n) == K.below(np.uint64((seed + GOLDEN) & M64), n)


def test_reseed_drops_the_spare_half() -> None:
    rng = K.new_rng(7)
    K.rand_below(rng, 10)
    assert rng[1] != 0  # a low half is waiting
    K.reseed(rng, np.uint64(M64))
    assert list(rng) == [M64, 0]
    assert [int(K.rand_below(rng, 10)) for _ in range(3)] == reference_draws(M64, [10] * 3)


def test_seeds_of_2_63_and_more_after_small_ones() -> None:
    """A small seed first does not make the state functions reject the large ones that
    derive_seed returns half the time."""
    assert K.rand_below(K.new_rng(1), 5) >= 0
    rng = K.new_rng(M64)
    assert list(rng) == [M64, 0]
    assert K.rand_below(rng, 5) == reference_draws(M64, [5])[0]


def test_a_one_word_state_is_refused() -> None:
    with pytest.raises(ValueError, match="RNG_WORDS"):
        K.rand_below(np.zeros(1, dtype=np.uint64), 3)


@pytest.mark.parametrize("n", [3, 7, 26])
def test_both_halves_are_uniform(n: int) -> None:
    """Chi-square of 40,000 draws per half (high and low): p > 1e-4 for each."""
    rng = K.new_rng(K.derive_seed(11, n, 0, 0))
    draws = np.array([K.rand_below(rng, n) for _ in range(80_000)])
    for half in (draws[0::2], draws[1::2]):
        counts = np.bincount(half, minlength=n)
        assert chisquare(counts).pvalue > 1e-4
    # and the two halves of one output are not tied to each other
    pairs = np.bincount(draws[0::2] * n + draws[1::2], minlength=n * n)
    assert chisquare(pairs).pvalue > 1e-4
