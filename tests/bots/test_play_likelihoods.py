"""The play model's likelihood of one decision
(:func:`scopa_sim.bots.belief.play_log_likelihoods`): a distribution over the legal
plays for every channel."""

from __future__ import annotations

import math
import random

from scopa_sim.bots.belief import Channel, play_log_likelihoods
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import HandState


def test_each_channel_is_a_distribution_over_the_legal_plays() -> None:
    channels = [Channel("random"), Channel("greedy", 0.0, 0.1), Channel("expert", 0.05, 0.2),
                Channel("expert", 0.5, 0.0)]  # fmt: skip
    rnd = random.Random(3)
    for seed in range(6):
        s = HandState.deal(Rules.make("scopa"), seed=seed)
        for _ in range(rnd.randrange(0, 20)):
            s.push(rnd.choice(list(s.legal_plays)))
        plays = list(s.legal_plays)
        total = [0.0] * len(channels)
        for p in plays:
            ll, n = play_log_likelihoods(s, p.card, p.take, channels)
            assert n == len(plays)
            for k, x in enumerate(ll):
                total[k] += math.exp(x)
        assert all(math.isclose(t, 1.0, rel_tol=1e-9) for t in total), total
        first = play_log_likelihoods(s, plays[0].card, plays[0].take, [Channel("random")])[0]
        assert math.isclose(first[0], -math.log(len(plays)))
