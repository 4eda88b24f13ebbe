"""Cirulla's options (RULES.md §10) in :class:`~scopa_sim.game.rules.Rules`: the presets,
the combinations refused (the reference's decisions, tests/reference.py), the identity of
every other rule set, and the refusal of Cirulla where the kernels do not play it yet."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
import reference as ref  # tests/ is on sys.path (pyproject: pythonpath)

from scopa_sim import Rules, RulesError
from scopa_sim.game.rules import CIRULLA_DEFAULTS, KERNEL_PRESETS, PRESETS

CIRULLA = ("cirulla", "cirulla-3", "cirulla-4")


def test_cirulla_defaults_are_the_references() -> None:
    assert CIRULLA_DEFAULTS == ref.SECTION_10_DEFAULTS
    assert list(CIRULLA_DEFAULTS) == list(ref.SECTION_10_DEFAULTS)


@pytest.mark.parametrize("preset", CIRULLA)
def test_presets_are_the_references(preset: str) -> None:
    rules = Rules.make(preset)
    assert Rules.from_dict(ref.cirulla_rules(preset)) == rules
    assert rules.complete_dict().items() <= ref.cirulla_rules(preset).items()
    assert rules.as_dict().items() >= CIRULLA_DEFAULTS.items()  # a Cirulla id names its reading
    assert Rules.from_dict(rules.as_dict()) == rules
    assert rules.preset_name() == preset
    assert preset not in KERNEL_PRESETS


def test_kernel_presets_are_every_other_preset_in_order() -> None:
    assert tuple(p for p in PRESETS if p not in CIRULLA) == KERNEL_PRESETS
    assert list(PRESETS)[-3:] == list(CIRULLA)  # appended: no other preset is renamed


@pytest.mark.parametrize("preset", KERNEL_PRESETS)
def test_other_rule_sets_leave_the_cirulla_options_out(preset: str) -> None:
    rules = Rules.make(preset)
    assert not set(CIRULLA_DEFAULTS) & set(rules.complete_dict())
    assert not set(CIRULLA_DEFAULTS) & set(rules.as_dict())
    same = Rules.make(preset, [f"{k}={v}" for k, v in ref.SECTION_10_DEFAULTS.items()])
    assert same == rules and same.digest() == rules.digest()
    assert Rules.from_dict(rules.as_dict()) == rules


#: Options to vary on the Cirulla presets and on Scopa's: each value is given to the
#: reference's check_rules and to Rules, which must take the same decision.
GRID: dict[str, tuple[Any, ...]] = {
    "deck": (40, 36),
    "hand_size": (3, 4),
    "table_cards": (4, 3, 0),
    "napola": (False, True),
    "opening_fifteen": (False, True),
    "opening_fifteen_to": ("dealer", "first_player"),
    "ace_sweep": (True, False),
    "kings_redeal": (False, True),
    "capture_compulsory": (True, False),
    "capture_rule": ("card", "hand"),
    "sum_capture": ("any", "fewest"),
    "napola_all_denari_wins": (False, True),
    "primiera": ("classic", "escoba_sevens"),
    "capture_mode": ("cirulla", "scopa", "fifteen"),
    "matta": ("declare", "play", "none"),
    "declare": ("choice", "auto", "off"),
    "piccola_max": (6, 5, 7),
    "cirulla_match_priority": (True, False),
    "aces_redeal": (True, False),
    "opening_count": (True, False),
    "cappotto": (True, False),
}


def _decisions(base: str, changes: dict[str, Any]) -> tuple[bool, bool]:
    """(reference accepts, Rules accepts) for the preset ``base`` with ``changes``."""
    rd = {**ref.cirulla_rules(base), **changes} if base in CIRULLA else None
    if rd is None:
        rd = ref.rules_with(**{**Rules.make(base).complete_dict(), **changes})
    try:
        ref.check_rules(rd)
        ref_ok = True
    except ValueError:
        ref_ok = False
    try:
        Rules.make(base, changes)
        ok = True
    except RulesError as e:
        assert "\n" not in str(e)
        ok = False
    return ref_ok, ok


@pytest.mark.parametrize("base", [*CIRULLA, "scopa", "scopa-15"])
def test_the_same_decisions_as_the_reference(base: str) -> None:
    """Every option of GRID at every value, and every pair of them, on each base rule set:
    accepted by Rules exactly when the reference accepts it."""
    singles = [{k: v} for k, vs in GRID.items() for v in vs]
    pairs = [
        {a: va, b: vb}
        for a, b in itertools.combinations(GRID, 2)
        for va in GRID[a]
        for vb in GRID[b]
    ]
    for changes in singles + pairs:
        ref_ok, ok = _decisions(base, changes)
        assert ok == ref_ok, (base, changes, ref_ok)


@pytest.mark.parametrize(
    ("overrides", "named"),
    [
        (["matta=maybe"], ("'matta'", "declare, play, none")),
        (["declare=sometimes"], ("'declare'", "choice, auto, off")),
        (["piccola_max=8"], ("'piccola_max'", "5, 6, 7")),
        (["cirulla_match_priority=maybe"], ("'cirulla_match_priority'", "true, false")),
        (["capture_mode=cirula"], ("'capture_mode'", "scopa, fifteen, cirulla")),
        (["deck=36"], ("'deck'", "capture_mode=cirulla", "allowed: 40")),
        (["hand_size=4"], ("'hand_size'", "allowed: 3")),
        (["table_cards=3"], ("'table_cards'", "allowed: 4")),
        (["napola=true"], ("'napola'", "allowed: false")),
        (["opening_fifteen_to=first_player"], ("'opening_fifteen_to'", "allowed: dealer")),
        (["opening_fifteen=true"], ("'opening_fifteen'", "capture_mode=fifteen")),
    ],
)
def test_one_line_errors_name_the_option_and_its_allowed_values(
    overrides: list[str], named: tuple[str, ...]
) -> None:
    with pytest.raises(RulesError) as info:
        Rules.make("cirulla", overrides)
    msg = str(info.value)
    assert "\n" not in msg
    for text in named:
        assert text in msg, (text, msg)


def test_cirulla_options_need_cirulla() -> None:
    for option, value in [("matta", "play"), ("declare", "auto"), ("piccola_max", "7"),
                          ("cappotto", "false"), ("aces_redeal", "false")]:  # fmt: skip
        with pytest.raises(RulesError, match=f"'{option}'.*needs capture_mode=cirulla"):
            Rules.make("scopa-15", [f"{option}={value}"])
        Rules.make("cirulla", [f"{option}={value}"])


@pytest.mark.parametrize("preset", CIRULLA)
def test_the_kernels_refuse_cirulla_in_one_line(preset: str) -> None:
    rules = Rules.make(preset, ["matta=play"])
    with pytest.raises(RulesError, match=r"capture_mode=cirulla .* not played") as info:
        rules.to_array()
    assert "\n" not in str(info.value)
    with pytest.raises(RulesError):
        rules.check_playable()
    Rules.make("escoba").check_playable()


# --------------------------------------------------------------------------- the vectors
#: The rules vector's length before RULES.md §10 (``R_FOUR_SEVENS`` last).
RULES_BEFORE_10 = 27


@pytest.mark.parametrize("preset", KERNEL_PRESETS)
def test_other_vectors_grow_by_zeros_only(preset: str) -> None:
    """Every other rule set's vector has its entries of before §10, then zeros."""
    from scopa_sim import _engine as K

    for overrides in ([], ["capture_compulsory=false", "four_sevens_point=true"]):
        r = Rules.make(preset, overrides).to_array()
        assert len(r) == K.N_RULES == K.R_CAPPOTTO + 1
        assert K.R_CIRULLA == RULES_BEFORE_10
        assert not r[RULES_BEFORE_10:].any()


@pytest.mark.parametrize("preset", CIRULLA)
def test_cirulla_vectors_hold_the_options(preset: str) -> None:
    from scopa_sim import _engine as K

    base = Rules.make(preset)._packed  # what the Cirulla step kernels read
    assert base[K.R_CIRULLA] == 1 and base[K.R_CAPTURE_FIFTEEN] == 0
    assert base[K.R_ACE_SWEEP] == 1 and base[K.R_TARGET] == 51
    assert base[K.R_MATCH_PRIORITY] == base[K.R_ACES_REDEAL] == base[K.R_OPENING_COUNT] == 1
    assert (base[K.R_MATTA], base[K.R_DECLARE]) == (K.MATTA_DECLARE, K.DECLARE_CHOICE)
    assert (base[K.R_PICCOLA_MAX], base[K.R_CAPPOTTO]) == (6, 1)
    other = Rules.make(
        preset,
        ["cirulla_match_priority=false", "aces_redeal=false", "opening_count=false",
         "matta=play", "declare=auto", "piccola_max=7", "cappotto=false"],
    )._packed  # fmt: skip
    assert other[K.R_MATCH_PRIORITY] == other[K.R_ACES_REDEAL] == other[K.R_OPENING_COUNT] == 0
    assert (other[K.R_MATTA], other[K.R_DECLARE]) == (K.MATTA_PLAY, K.DECLARE_AUTO)
    assert (other[K.R_PICCOLA_MAX], other[K.R_CAPPOTTO]) == (7, 0)
    none = Rules.make(preset, ["matta=none", "declare=off"])._packed
    assert (none[K.R_MATTA], none[K.R_DECLARE]) == (K.MATTA_NONE, K.DECLARE_OFF)
    assert list(base[: K.R_CIRULLA]) == list(other[: K.R_CIRULLA])


def test_state_slots_follow_the_old_ones() -> None:
    from scopa_sim import _engine as K

    assert K.N_STATE_BASE == K.S_DECLARED == K.S_OPENING + 1
    assert (K.S_SHOWN, K.S_OPENING_SCOPE, K.S_VOIDS) == (66, 67, 68)
    assert (K.S_EVIDENCE, K.N_STATE) == (69, 73)
    assert K.MATTA_BIT == 1 << 16 and K.GRANDE == (1 << 7) | (1 << 8) | (1 << 9)
