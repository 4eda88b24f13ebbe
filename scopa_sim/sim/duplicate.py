"""Duplicate deals: the deck of a hand played again with the seats' cards exchanged.

A *swapped* deal of hand ``u`` of a ``--hands`` run is the same accepted deck (the same
table, the same stock order) with every block of cards the dealing gives to playing
position ``p`` handed to position ``p - 1`` instead (modulo the players): in a 2-player
game the first player and the dealer exchange their hands, with teams each side gets
the other side's cards. The swapped deal is as random as the original (a fixed
permutation of a uniform shuffle), so its hands are valid hands of the game on their
own, and the mean of a hand and its duplicate estimates the same dealer margin with
less variance whenever the two margins are negatively correlated (the cards' luck
cancels). :func:`swap_permutation` is that permutation; :func:`swapped_rows` computes
the rows of swapped hands with kernel policies, in the layout of ``fused_rows``, through
the step kernels (``shuffle_deal``, ``start_hand``, ``play_out``, ``score_state``), with
the play stream of the original hand; bots use :func:`swapped_deck` in
:class:`scopa_sim.sim.match.HandPlayer`.
"""

from __future__ import annotations

import numpy as np

from scopa_sim import _engine as K
from scopa_sim.game.rules import Rules


def swap_permutation(rules: Rules) -> np.ndarray:
    """``perm`` (int64, ``rules.deck`` entries) with ``swapped[i] = deck[perm[i]]``: the
    table stays, and the block of each deal that would go to playing position ``p`` goes
    to position ``p - 1`` (the deal order of :attr:`~scopa_sim.game.rules.Rules.deal_order`)."""
    n = rules.players
    order = rules.deal_order
    start = {slot: order.index(slot) for slot in set(order) if slot >= 0}  # each block's start
    perm = np.arange(rules.deck, dtype=np.int64)
    for j, slot in enumerate(order):
        if slot >= 0:
            src = slot - slot % n + (slot % n + 1) % n  # the same deal, the next position
            perm[j] = start[src] + j - start[slot]
    return perm


def swapped_deck(rules: Rules, deck: tuple[int, ...]) -> tuple[int, ...]:
    """The deck order of a hand's duplicate (see :func:`swap_permutation`)."""
    perm = swap_permutation(rules)
    return tuple(deck[i] for i in perm)


def swapped_rows(
    rules: Rules,
    codes: np.ndarray,
    seed: int,
    first: int,
    count: int,
    swap: bool = True,
    model: np.ndarray | None = None,
) -> np.ndarray:
    """Rows (``fused_rows`` layout, ``C_MATCH`` = offset from ``first``) of hands ``first`` to
    ``first + count - 1`` of a ``--hands`` run with kernel policy codes ``codes`` (one per
    seat, padded to 4), dealt swapped (``swap=False``: as dealt, which reproduces
    ``fused_rows``; the tests check it); ``model``: the learned policy's model vector,
    needed where a seat plays it.

    Raises:
        ValueError: a seat plays ``learned`` and no model is given.
    """
    out = np.zeros((K.N_ROW_COLS, count), dtype=np.int32)
    r = rules.to_array()
    m = K.kernel_model(codes, model)
    K.step_rows(r, codes, m, np.uint64(seed), first, count, swap_permutation(rules), swap, out)
    return out


def feature_counts(
    rules: Rules, seed: int, first: int, count: int, role: np.ndarray, masks: np.ndarray
) -> np.ndarray:
    """``out[i, f]``: for hand ``first + i`` of a ``--hands`` run with ``seed``, the sum over
    its deck positions ``j`` of ``role[j]`` (one weight per deck position) times whether the
    card dealt at ``j`` is in ``masks[f]`` (40-bit masks); int64, ``[count, len(masks)]``.
    The decks are those the run dealt (the same shuffle and redeals)."""
    out = np.zeros((count, len(masks)), dtype=np.int64)
    K.deal_feature_counts(
        rules.to_array(), np.uint64(seed), first, count,
        np.ascontiguousarray(role, dtype=np.int64), np.ascontiguousarray(masks, dtype=np.int64),
        out,
    )  # fmt: skip
    return out


__all__ = ["feature_counts", "swap_permutation", "swapped_deck", "swapped_rows"]
