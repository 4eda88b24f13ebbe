"""Policy specifications: ``random``, ``greedy`` and their text form on the command line."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from . import _kernels as K
from .errors import ScopaError


class PolicyError(ScopaError):
    """An unknown policy name or parameter."""


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
        if name not in KERNEL_POLICIES:
            raise PolicyError(f"unknown policy {name!r}; policies: {', '.join(KERNEL_POLICIES)}")
        params: list[tuple[str, str]] = []
        if rest.strip():
            for item in rest.split(","):
                key, sep, value = item.partition("=")
                if not sep:
                    raise PolicyError(f"bad policy parameter {item!r} in {text!r}: expected k=v")
                params.append((key.strip(), value.strip()))
        if params:
            raise PolicyError(f"policy {name!r} takes no parameters (got {params[0][0]!r})")
        return cls(name, tuple(params))

    @property
    def code(self) -> int:
        """The kernel code of a jitted policy."""
        return KERNEL_POLICIES[self.name][0]

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
