"""Cirulla positions (RULES.md §10) shared by the Cirulla search tests: a hand dealt from a
seed and played some plays into."""

from __future__ import annotations

import random

from scopa_sim import Rules
from scopa_sim.game.state import HandState


def played(
    rules: Rules, seed: int, plays: int, *, dealer: int = 0, first: bool = False
) -> HandState:
    """A hand dealt from ``seed`` by ``dealer`` after ``plays`` plays, fewer if it ends:
    random ones drawn from ``random.Random(seed)``, or with ``first`` each the first legal
    play."""
    state = HandState.deal(rules, dealer=dealer, seed=seed)
    rng = random.Random(seed)
    while not state.is_over and state.plays_made < plays:
        legal = state.legal_plays
        state.push(legal[0] if first else rng.choice(legal))
    return state
