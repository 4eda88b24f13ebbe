"""The input checks the games, search and board functions of the use-case layer share:
the rules a call names (:func:`game_rules`), card lists and pairs of counts, each raising
the project's one-line errors in words that name no command-line option.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from scopa_sim.errors import CardError, PositionError, RulesError

if TYPE_CHECKING:
    from scopa_sim.game.cards import CardSet
    from scopa_sim.game.rules import Rules


def game_rules(
    preset: str | None, rules: Rules | None, overrides: Mapping[str, Any] | None
) -> tuple[str, Rules]:
    """The rules a call plays by, and the name its results show for them.

    Args:
        preset: a preset name (default ``"scopa"``); with ``rules`` given, only the name
            shown (default: the preset ``rules`` equal, else ``"custom"``).
        rules: the rules themselves, or None for the preset's.
        overrides: options changed on top (option name -> value, as ``{"target": 21}``).

    Returns:
        ``(name, rules)``.

    Raises:
        RulesError: an unknown preset, option or value, rules that are not a
            :class:`~scopa_sim.game.rules.Rules`, overrides that are not a mapping.
    """
    from scopa_sim.game.rules import PRESETS, Rules, parse_overrides

    if preset is not None and not isinstance(preset, str):
        raise RulesError(f"unknown preset {preset!r}; presets: {', '.join(PRESETS)}")
    if overrides is not None and not isinstance(overrides, Mapping):
        raise RulesError(
            f"rule overrides are a mapping of option names to values, not {overrides!r}"
        )
    if rules is None:
        name = "scopa" if preset is None else preset
        return name, Rules.make(name, overrides)
    if not isinstance(rules, Rules):
        raise RulesError(f"rules must be a Rules (scopa_sim.Rules.make(...)), not {rules!r}")
    if preset is not None and preset not in PRESETS:
        raise RulesError(f"unknown preset {preset!r}; presets: {', '.join(PRESETS)}")
    if overrides:
        rules = rules.replace(**parse_overrides(overrides))
    return preset or rules.preset_name() or "custom", rules


def cards(value: str | CardSet | None, name: str) -> CardSet:
    """A card list given as text (``"7D 3S"``) or a :class:`CardSet`; empty for None.

    Raises:
        CardError: a malformed card or a card given twice, the message led by ``name``.
    """
    from scopa_sim.game.cards import CardSet

    if value is None or value == "":
        return CardSet()
    if isinstance(value, CardSet):
        return value
    if not isinstance(value, str):
        raise CardError(f"{name}: cards are a text such as '7D 3S', not {value!r}")
    try:
        return CardSet.parse(value)
    except CardError as e:
        raise CardError(f"{name}: {e}") from None


def pair(value: object, name: str, example: str) -> tuple[int, int]:
    """Two counts (scope so far, match totals) given as a pair of whole numbers.

    Raises:
        PositionError: anything but two whole numbers of at least 0.
    """
    if isinstance(value, tuple | list) and len(value) == 2:
        a, b = value
        if type(a) is int and type(b) is int and a >= 0 and b >= 0:
            return a, b
    raise PositionError(f"{name} {value!r}: expected two counts like {example}")


__all__ = ["cards", "game_rules", "pair"]
