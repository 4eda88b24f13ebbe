"""Policy specifications (``random``, ``greedy``, ``expert``, ``pimc:worlds=12``,
``ismcts:...``) and their text form on the command line.

``random``, ``greedy`` and ``expert`` run inside the jitted playout loops; the search
policies are bots (:mod:`scopa_sim.search`) called once per decision.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from . import _kernels as K

if TYPE_CHECKING:
    from .search import Bot
from .errors import ScopaError


class PolicyError(ScopaError):
    """An unknown policy name or parameter."""


#: Search policies by name, with their parameters (validated by ``search.make_bot``).
#: ``objective=match`` plays for the match (two sides): hands are valued by the
#: probability of winning the match from the totals they leave, by the match-equity table
#: of ``equity=`` (a kernel policy's self-play, ``expert`` by default, or a table file
#: written by ``scopa-sim equity``); ``margin``, the default, maximises the hand margin.
SEARCH_POLICIES: dict[str, str] = {
    "pimc": "determinized search over K worlds: worlds=12, depth=5, exact_below=8, "
    "leaf=estimate|expert, objective=margin|match, equity=expert|PATH",
    "ismcts": "information-set MCTS: iterations=1000, c=0.7, rollout=random|greedy|expert, "
    "ms=, exact=0|1, horizon=, leaf=estimate|expert, objective=margin|match, "
    "equity=expert|PATH",
    "solver": "perfect-information cheat (sees every card), for reference: depth=, "
    "objective=margin|match, equity=expert|PATH",
    "eval": "the review evaluator (common worlds, rollouts, exact open endgames): worlds=256, "
    "rollout=greedy|expert|random, exact=0|1",
}

#: Jitted policies by name, with their kernel code and a one-line description.
KERNEL_POLICIES: dict[str, tuple[int, str]] = {
    "random": (
        K.POLICY_RANDOM,
        "uniform over all distinct legal (card, captured set) plays",
    ),
    "greedy": (
        K.POLICY_GREEDY,
        "one-ply heuristic: scopa, settebello, denari, cards, primiera cards; "
        "avoids leaving a sweepable table",
    ),
    "expert": (
        K.POLICY_EXPERT,
        "three-ply expectimax on the seat's information set: the score items priced by a "
        "binomial model of the cards still to capture, the next seat's best reply averaged "
        "exactly over its possible hands, and this seat's best answer to it",
    ),
}


@dataclass(frozen=True)
class PolicySpec:
    """A policy by name with its parameters, e.g. ``ismcts:iterations=1000,c=0.7``."""

    name: str
    params: tuple[tuple[str, str], ...] = field(default=())

    @classmethod
    def parse(cls, text: str) -> PolicySpec:
        name, _, rest = text.strip().partition(":")
        name = name.strip().lower()
        if name not in KERNEL_POLICIES and name not in SEARCH_POLICIES:
            known = ", ".join([*KERNEL_POLICIES, *SEARCH_POLICIES])
            raise PolicyError(f"unknown policy {name!r}; policies: {known}")
        params: list[tuple[str, str]] = []
        if rest.strip():
            for item in rest.split(","):
                key, sep, value = item.partition("=")
                if not sep:
                    raise PolicyError(f"bad policy parameter {item!r} in {text!r}: expected k=v")
                key = key.strip()
                if any(k == key for k, _ in params):
                    raise PolicyError(f"policy parameter {key!r} given twice in {text!r}")
                params.append((key, value.strip()))
        if params and name in KERNEL_POLICIES:
            raise PolicyError(f"policy {name!r} takes no parameters (got {params[0][0]!r})")
        for key, value in params:  # counts size arrays: beyond 32 bits they cannot be made
            if value.lstrip("+-").isdecimal() and int(value) > 2**31 - 1:
                raise PolicyError(
                    f"policy {name!r} parameter {key}={value}: at most {2**31 - 1} (in {text!r})"
                )
        spec = cls(name, tuple(params))
        if name in SEARCH_POLICIES:
            spec.bot()  # validates the parameters
        return spec

    @property
    def is_kernel(self) -> bool:
        """True for policies that run inside the jitted playout loops."""
        return self.name in KERNEL_POLICIES

    @property
    def code(self) -> int:
        """The kernel code of a jitted policy."""
        if not self.is_kernel:
            raise PolicyError(f"policy {self} is a search policy, not a kernel policy")
        return KERNEL_POLICIES[self.name][0]

    def bot(self) -> Bot:
        """A bot playing this policy (kernel policies too, one decision at a time)."""
        from .search import make_bot

        return make_bot(self.name, dict(self.params))

    def __str__(self) -> str:
        if not self.params:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in self.params)


def seat_policies(texts: Sequence[str], players: int) -> list[PolicySpec]:
    """One policy per seat: none given = random everywhere, one = all seats, else one each."""
    specs = [PolicySpec.parse(t) for t in texts] or [PolicySpec("random")]
    if len(specs) == 1:
        return specs * players
    if len(specs) != players:
        raise PolicyError(
            f"give one --policy for all seats or one per seat ({players}), got {len(specs)}"
        )
    return specs
