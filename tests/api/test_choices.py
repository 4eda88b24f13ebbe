"""The values a front door offers as choices come from the use-case layer's faces."""

from __future__ import annotations

import pytest

import scopa_sim.api.choices as choices
from scopa_sim.api import interrupts
from scopa_sim.api.inputs import parse_overrides
from scopa_sim.errors import RulesError


def test_every_choice_is_the_librarys_own() -> None:
    from scopa_sim.analysis.advantage import MAX_HANDS
    from scopa_sim.analysis.analyze import COMPARE_METRICS, GROUP_KEYS, SECTIONS
    from scopa_sim.bots.belief import SHOWN_BELIEFS
    from scopa_sim.bots.registry import POLICIES
    from scopa_sim.game.rules import PRESETS
    from scopa_sim.sim.deals import FEATURE_HELP

    assert choices.PRESETS is PRESETS and choices.POLICIES is POLICIES
    assert choices.SHOWN_BELIEFS is SHOWN_BELIEFS and choices.SECTIONS is SECTIONS
    assert choices.GROUP_KEYS is GROUP_KEYS and choices.COMPARE_METRICS is COMPARE_METRICS
    assert choices.FEATURE_HELP is FEATURE_HELP and choices.MAX_ADVANTAGE_HANDS == MAX_HANDS
    for name in choices.__all__:
        assert getattr(choices, name) is not None
    with pytest.raises(AttributeError):
        choices.NOTHING  # noqa: B018


def test_interrupts_and_overrides_for_a_front_door() -> None:
    assert issubclass(interrupts.Terminated, KeyboardInterrupt)
    assert interrupts.abandoned() is False
    assert parse_overrides(["target=21"]) == {"target": 21}
    with pytest.raises(RulesError, match="expected key=value"):
        parse_overrides(["target"])
