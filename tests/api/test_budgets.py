"""The Python API refuses wrong types and impossible budgets with the project's errors,
before anything is allocated (issue 40: ``simulate(policy=5)`` was a TypeError, and
``advise`` with ``worlds=2**31-1`` a bare MemoryError)."""

from __future__ import annotations

import pytest

import scopa_sim
from scopa_sim.api.inputs import search_budget
from scopa_sim.bots.registry import PolicySpec
from scopa_sim.errors import PolicyError, ScopaError

H = {"hand": "7D 3S KH", "table": "7C 5H 2S 4D"}


@pytest.mark.parametrize("policy", [5, None, 2.5, b"greedy", {"a": 1}, [], ["greedy", 3]])
def test_a_policy_of_the_wrong_type_is_a_policy_error(policy: object, tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(PolicyError, match="a policy is"):
        scopa_sim.simulate("scopa", hands=10, policy=policy, out=tmp_path / "run")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "policy", ["eval:worlds=2147483647", "pimc:worlds=2147483647", "ismcts:iterations=2147483647"]
)
def test_an_impossible_budget_is_refused_before_it_allocates(policy: str) -> None:
    with pytest.raises(PolicyError, match="more than this machine's"):
        scopa_sim.advise(**H, policy=policy)
    with pytest.raises(PolicyError, match="more than this machine's"):
        scopa_sim.play(policy=policy)


def test_a_budget_within_memory_passes() -> None:
    spec = PolicySpec.parse("ismcts:iterations=1000")
    assert search_budget(spec) is spec
    assert search_budget(PolicySpec.parse("greedy")).name == "greedy"


def test_the_review_s_evaluator_budget_too() -> None:
    with pytest.raises(ScopaError, match="more than this machine's"):
        scopa_sim.review(text="{}", policy="eval:worlds=2147483647")


@pytest.mark.parametrize("seats", [5, "0", {"a": 0}, [0, "1"], [-1]])
def test_review_seats_of_the_wrong_type_are_an_input_error(seats: object) -> None:
    from scopa_sim.errors import InputError

    with pytest.raises(InputError, match="seats"):
        scopa_sim.review(text="{}", seats=seats)  # type: ignore[arg-type]
