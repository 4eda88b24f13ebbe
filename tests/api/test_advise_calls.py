"""Repeated :func:`scopa_sim.advise` calls: the thread's last bot is kept for the next
call with the same policy, and every call's values are still those of a new bot."""

from __future__ import annotations

import pytest

import scopa_sim
from scopa_sim.bots.advise import advise as rank
from scopa_sim.bots.registry import PolicySpec

_OUT = sorted(
    {r + s for r in "A234567JQK" for s in "DHCS"} - {"7D", "3S", "KC", "5C", "2H", "AH", "6S", "QD"}
)
#: A last-round position: three cards each, the rest taken.
ENDGAME = {"hand": "7D 3S KC", "table": "5C 2H", "mine": " ".join(_OUT[::2]),
           "theirs": " ".join(_OUT[1::2])}  # fmt: skip


@pytest.mark.parametrize("policy", ["solver", "eval:worlds=16", "ismcts:iterations=200"])
def test_a_kept_bot_gives_a_new_bot_s_values(policy: str) -> None:
    got = []
    for seed in (1, 2, 1):
        a = scopa_sim.advise(**ENDGAME, policy=policy, seed=seed)
        fresh = rank(a.state, PolicySpec.parse(policy).bot(), seed)
        assert [(str(p.play), p.mean, p.n) for p in fresh.plays] == [
            (p.play, p.mean, p.n) for p in a.plays
        ]
        got.append(a.plays)
    assert got[0] == got[2]
    scopa_sim.advise(**ENDGAME, policy="eval:worlds=8", seed=1)
    assert scopa_sim.advise(**ENDGAME, policy=policy, seed=1).plays == got[0]
