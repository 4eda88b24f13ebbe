"""Rule options and presets (RULES.md §3 and §7): construction, validation, round trips."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from scopa_sim import PRESETS, Rules, RulesError, ScopaError
from scopa_sim.game.rules import KERNEL_PRESETS

# RULES.md §7, option table: option -> default.
DEFAULTS: dict[str, Any] = {
    "players": 2,
    "teams": False,  # "true for 4 players": the default preset has 2 players
    "deck": 40,
    "hand_size": 3,
    "table_cards": 4,
    "kings_redeal": True,
    "capture_rule": "card",
    "sum_capture": "any",
    "remainder_to": "last_capturer",
    "ace_sweep": False,
    "ace_sweep_scopa": True,
    "last_play_scopa": False,
    "primiera": "classic",
    "primiera_missing_suit": "exclude",
    "re_bello": False,
    "napola": False,
    "napola_scoring": "length",
    "napola_all_denari_wins": False,
    "target": 11,
    "capture_mode": "scopa",
    "capture_compulsory": True,
    "opening_fifteen": False,
}

# RULES.md §7, preset table: preset -> options different from the defaults.
PRESET_DEFINITIONS: dict[str, dict[str, Any]] = {
    "scopa": {},
    "scopa-3": {"players": 3},
    "scopa-4": {"players": 4, "teams": True},
    "scopa-4-solo": {
        "players": 4,
        "teams": False,
        "kings_redeal": False,
        "primiera_missing_suit": "zero",
    },
    "asso-piglia-tutto": {"ace_sweep": True},
    "scopa-36": {"deck": 36},
    "scopa-corsa": {"capture_rule": "hand", "primiera": "sevens"},
    "scopone": {"players": 4, "teams": True, "hand_size": 9},
    "scopone-scientifico": {
        "players": 4,
        "teams": True,
        "hand_size": 10,
        "table_cards": 0,
        "napola": True,
    },
    "scopa-15": {"capture_mode": "fifteen"},
    "escoba": {
        "capture_mode": "fifteen",
        "capture_compulsory": False,
        "opening_fifteen": True,
        "kings_redeal": False,
        "target": 15,
    },
    # RULES.md §10
    **{
        name: {
            "players": players,
            "teams": players == 4,
            "target": 51,
            "kings_redeal": False,
            "ace_sweep": True,
            "capture_mode": "cirulla",
        }
        for name, players in (("cirulla", 2), ("cirulla-3", 3), ("cirulla-4", 4))
    },
}
#: RULES.md §10: the options of Cirulla and their defaults (in a Cirulla rule set only).
CIRULLA_OPTIONS: dict[str, Any] = {
    "cirulla_match_priority": True,
    "aces_redeal": True,
    "opening_count": True,
    "matta": "declare",
    "declare": "choice",
    "piccola_max": 6,
    "cappotto": True,
}

# RULES.md §7: the allowed values of each option with a finite set of values.
ENUMS: dict[str, tuple[Any, ...]] = {
    "capture_rule": ("card", "hand"),
    "sum_capture": ("any", "fewest"),
    "remainder_to": ("last_capturer", "dealer"),
    "primiera": ("classic", "sevens", "escoba_sevens"),
    "primiera_missing_suit": ("exclude", "zero"),
    "napola_scoring": ("length", "fixed3"),
    "capture_mode": ("scopa", "fifteen", "cirulla"),
    "opening_fifteen_to": ("dealer", "first_player"),
}
BOOLS = (
    "kings_redeal",
    "ace_sweep",
    "ace_sweep_scopa",
    "last_play_scopa",
    "re_bello",
    "napola",
    "napola_all_denari_wins",
    "capture_compulsory",
    "four_sevens_point",
)


def rejects(preset: str, overrides: Any, *named: str) -> str:
    """Assert that Rules.make rejects; every text in ``named`` must occur in the message."""
    with pytest.raises(RulesError) as info:
        Rules.make(preset, overrides)
    msg = str(info.value)
    for text in named:
        assert text in msg, f"{text!r} not in {msg!r}"
    return msg


# --------------------------------------------------------------------------- presets


def test_preset_names_match_rules_md() -> None:
    assert set(PRESETS) == set(PRESET_DEFINITIONS)


@pytest.mark.parametrize("preset", sorted(PRESET_DEFINITIONS))
def test_preset_equals_its_definition(preset: str) -> None:
    expected = {**DEFAULTS, **PRESET_DEFINITIONS[preset]}
    if expected["capture_mode"] == "cirulla":
        expected.update(CIRULLA_OPTIONS)
    rules = Rules.make(preset)
    assert rules.complete_dict() == expected
    assert list(rules.complete_dict()) == list(expected)  # RULES.md order
    assert rules.preset_name() == preset
    assert rules.sides == (2 if expected["teams"] else expected["players"])


def test_default_preset_is_scopa() -> None:
    assert Rules.make() == Rules.make("scopa") == Rules()
    assert Rules.make("scopa", None) == Rules.make("scopa", {}) == Rules.make("scopa", [])


@pytest.mark.parametrize("preset", sorted(PRESET_DEFINITIONS))
def test_from_dict_round_trip(preset: str) -> None:
    rules = Rules.make(preset)
    data = rules.as_dict()
    again = Rules.from_dict(data)
    assert again == rules and again.as_dict() == data
    assert again.digest() == rules.digest()


def test_digests_differ_between_presets() -> None:
    digests = {Rules.make(p).digest() for p in PRESETS}
    assert len(digests) == len(PRESETS)


def test_from_dict_rejects_unknown_and_missing_options() -> None:
    data = Rules.make("scopa").as_dict()
    with pytest.raises(RulesError, match="'colour'"):
        Rules.from_dict({**data, "colour": "red"})
    del data["target"]
    with pytest.raises(RulesError, match="'target'"):
        Rules.from_dict(data)
    with pytest.raises(RulesError):
        Rules.from_dict([("players", 2)])  # type: ignore[arg-type]


def test_from_dict_is_strictly_typed() -> None:
    data = Rules.make("scopa").as_dict()
    for key, bad in [("players", "2"), ("teams", 0), ("target", 11.0), ("ace_sweep", "true")]:
        with pytest.raises(RulesError, match=f"'{key}'"):
            Rules.from_dict({**data, key: bad})


def test_rules_are_frozen_and_hashable() -> None:
    rules = Rules.make("scopa")
    with pytest.raises(AttributeError):
        rules.players = 3  # type: ignore[misc]
    assert hash(rules) == hash(Rules.make("scopa"))
    assert rules.replace(target=21).target == 21
    with pytest.raises(RulesError, match="'target'"):
        rules.replace(target=0)


# --------------------------------------------------------------------------- teams default


def test_teams_default_true_for_four_players() -> None:
    assert Rules.make("scopa", ["players=4"]).teams is True
    assert Rules.make("scopa", {"players": 4}).teams is True
    assert Rules.make("scopa", ["players=4"]) == Rules.make("scopa-4")
    assert Rules.make("scopa", ["players=4"]).sides == 2
    assert Rules.make("scopa", ["players=4", "teams=false"]).teams is False
    assert Rules.make("scopa", ["players=4", "teams=false"]).sides == 4
    assert Rules.make("scopa", ["players=3"]).teams is False
    assert Rules.make("scopone", ["players=2", "hand_size=3"]).teams is False


def test_side_of_seat() -> None:
    teams = Rules.make("scopa-4")
    assert [teams.side_of(s) for s in range(4)] == [0, 1, 0, 1]
    solo = Rules.make("scopa-4-solo")
    assert [solo.side_of(s) for s in range(4)] == [0, 1, 2, 3]


def test_restating_players_keeps_the_presets_teams() -> None:
    # ENGINE BUG (scopa_sim/rules.py, Rules.make): any explicit `players` override
    # re-derives teams from players == 4, even when the preset itself sets teams.
    # `--preset scopa-4-solo --rule players=4` silently becomes a team game.
    assert Rules.make("scopa-4-solo", ["players=4"]) == Rules.make("scopa-4-solo")


# --------------------------------------------------------------------------- overrides


def test_overrides_as_mapping_or_key_value_text() -> None:
    a = Rules.make("scopa", {"players": 3, "target": 21, "ace_sweep": True})
    b = Rules.make("scopa", ["players=3", "target = 21", "ace_sweep=true"])
    c = Rules.make("scopa", {"players": "3", "target": "21", "ace_sweep": "1"})
    assert a == b == c
    assert (a.players, a.target, a.ace_sweep) == (3, 21, True)


@pytest.mark.parametrize("option", list(ENUMS))
def test_enum_options_accept_their_values(option: str) -> None:
    for value in ENUMS[option]:
        assert getattr(Rules.make("scopa", {option: value}), option) == value
        assert getattr(Rules.make("scopa", [f"{option}={value}"]), option) == value


@pytest.mark.parametrize("option", list(ENUMS))
def test_enum_options_reject_other_values(option: str) -> None:
    msg = rejects("scopa", [f"{option}=bogus"], f"'{option}'", "'bogus'")
    for value in ENUMS[option]:
        assert value in msg
    rejects("scopa", {option: 1}, f"'{option}'", *ENUMS[option])


@pytest.mark.parametrize("option", BOOLS)
def test_bool_options(option: str) -> None:
    for text, value in [("true", True), ("false", False), ("1", True), ("0", False)]:
        assert getattr(Rules.make("scopa", [f"{option}={text}"]), option) is value
    for value in (True, False):
        assert getattr(Rules.make("scopa", {option: value}), option) is value
    for bad in ("yes", "2", ""):
        rejects("scopa", [f"{option}={bad}"], f"'{option}'", "true, false")
    rejects("scopa", {option: 1}, f"'{option}'", "true, false")


def test_players_values() -> None:
    for n in (2, 3, 4):
        assert Rules.make("scopa", [f"players={n}"]).players == n
    for bad in ("1", "5", "0", "x", "2.5", ""):
        rejects("scopa", [f"players={bad}"], "'players'", "2, 3, 4")
    rejects("scopa", {"players": True}, "'players'", "2, 3, 4")
    rejects("scopa", {"players": 2.0}, "'players'", "2, 3, 4")


def test_deck_values() -> None:
    assert Rules.make("scopa", ["deck=40"]).deck == 40
    assert Rules.make("scopa", ["deck=36"]).deck == 36
    for bad in ("52", "32", "x"):
        rejects("scopa", [f"deck={bad}"], "'deck'", "40, 36")


def test_hand_size_values() -> None:
    for k in range(1, 11):
        assert Rules.make("scopa", [f"hand_size={k}"]).hand_size == k
    for bad in ("0", "11", "-1", "x"):
        rejects("scopa", [f"hand_size={bad}"], "'hand_size'", "1..10")


def test_table_cards_values() -> None:
    # 2 players share what is left after the table only when it is even (RULES.md §3).
    for t in (0, 2, 4):
        assert Rules.make("scopa", [f"table_cards={t}"]).table_cards == t
    for t in (1, 4):
        assert Rules.make("scopa-3", [f"table_cards={t}"]).table_cards == t
    assert Rules.make("scopa", ["players=3", "deck=36", "table_cards=3"]).table_cards == 3
    for bad in ("5", "-1", "x"):
        rejects("scopa", [f"table_cards={bad}"], "'table_cards'", "0..4")


def test_target_values() -> None:
    for t in (1, 11, 16, 21, 1000):
        assert Rules.make("scopa", [f"target={t}"]).target == t
    for bad in ("0", "-3", "x", "1.5"):
        rejects("scopa", [f"target={bad}"], "'target'", "integers 1..1000")
    rejects("scopa", {"target": True}, "'target'")


def test_teams_values() -> None:
    assert Rules.make("scopa-4", ["teams=false"]).teams is False
    assert Rules.make("scopa-4-solo", ["teams=true"]).teams is True
    rejects("scopa-4", ["teams=maybe"], "'teams'", "true, false")


# --------------------------------------------------------------------------- combinations


@pytest.mark.parametrize("players", [2, 3])
def test_teams_need_four_players(players: int) -> None:
    rejects("scopa", [f"players={players}", "teams=true"], "'teams'", "players=4")
    rejects("scopa-4", [f"players={players}", "teams=true"], "'teams'")


def test_napola_not_with_36_cards() -> None:
    rejects("scopa-36", ["napola=true"], "'napola'", "deck=36")
    rejects("scopone-scientifico", ["deck=36"], "'napola'", "deck=36")
    # napola without 36 cards, and 36 cards without napola, are fine
    assert Rules.make("scopa", ["napola=true"]).napola
    assert Rules.make("scopone-scientifico", ["napola=false", "deck=36", "hand_size=9"]).deck == 36


@pytest.mark.parametrize(
    "overrides",
    [
        ["players=4", "hand_size=10"],  # 40 + 4 table cards
        ["players=4", "hand_size=9", "deck=36"],  # 36 + 4
        ["players=4", "hand_size=9", "deck=36", "table_cards=1"],  # 36 + 1
    ],
)
def test_more_cards_dealt_than_the_deck(overrides: list[str]) -> None:
    rejects("scopa", overrides, "'hand_size'", "'table_cards'")


def test_largest_deals_that_fit() -> None:
    assert Rules.make("scopa", ["players=4", "hand_size=9"]).hand_size == 9  # 36 + 4
    assert Rules.make("scopa", ["players=4", "hand_size=10", "table_cards=0"]).hand_size == 10
    assert Rules.make("scopa", ["players=3", "hand_size=10", "table_cards=1"]).hand_size == 10
    assert Rules.make("scopa-36", ["players=4", "hand_size=9", "table_cards=0"]).hand_size == 9


@pytest.mark.parametrize("overrides", [["players=4", "hand_size=10"], ["players=3", "deck=36"]])
def test_deal_size_errors_state_the_allowed_values(overrides: list[str]) -> None:
    # SPEC DEVIATION (scopa_sim/rules.py, _validate): the messages are e.g.
    # "options 'hand_size'=10 and 'table_cards'=4 deal 44 cards to 4 players but the
    # deck holds 40": they name the options but say nothing like "allowed: hand_size
    # 1..9 with 4 players and 4 table cards".
    rejects("scopa", overrides, "allowed")


def test_stock_must_be_shareable_at_the_last_deal() -> None:
    # 36 - 4 table cards = 32 cards for 3 players
    rejects("scopa-36", ["players=3"], "'deck'", "'players'")
    rejects("scopa-3", ["deck=36"], "'deck'", "'players'")
    # 40 - 3 = 37 cards for 2 players
    rejects("scopa", ["table_cards=3"], "'table_cards'")
    # Scopa 36 with 2 or 4 players is fine (seed 001)
    assert Rules.make("scopa-36", ["players=4"]).deck == 36
    assert Rules.make("scopa-36", ["players=2"]).deck == 36


def test_unknown_option() -> None:
    msg = rejects("scopa", ["colour=red"], "'colour'")
    for name in DEFAULTS:
        assert name in msg  # the message lists the known options
    rejects("scopa", {"Players": 3}, "'Players'")


def test_unknown_preset() -> None:
    msg = rejects("scopa-5", None, "'scopa-5'")
    for name in PRESET_DEFINITIONS:
        assert name in msg


@pytest.mark.parametrize("text", ["players", "=3", "players 3", ""])
def test_malformed_key_value(text: str) -> None:
    rejects("scopa", [text], "key=value")


def test_malformed_value() -> None:
    msg = rejects("scopa", ["players=x"], "'players'", "'x'")
    assert re.search(r"allowed: 2, 3, 4", msg)


def test_rules_errors_are_value_errors() -> None:
    assert issubclass(RulesError, ScopaError) and issubclass(RulesError, ValueError)
    with pytest.raises(ValueError):
        Rules.make("scopa", ["players=x"])


def test_direct_construction_validates() -> None:
    with pytest.raises(RulesError, match="'hand_size'"):
        Rules(hand_size=0)
    with pytest.raises(RulesError, match="'teams'"):
        Rules(teams=True)
    assert Rules(players=4).teams is False  # the dataclass default; make() derives teams


def test_options_without_effect_are_recorded() -> None:
    # RULES.md §6: an option without effect under the others is accepted as given.
    rules = Rules.make("scopa", ["ace_sweep_scopa=false", "napola_scoring=fixed3"])
    assert rules.ace_sweep_scopa is False and rules.napola_scoring == "fixed3"
    assert rules != Rules.make("scopa")
    assert rules.preset_name() is None


# --------------------------------------------------------------------------- RULES.md §9


# Rules.digest() of the presets, computed on main before the §9 options existed: every
# rule set with the §9 defaults must keep its identity (run ids, manifests, study cache).
DIGESTS_BEFORE_SECTION_9 = {
    "scopa": "e31599b5de626603",
    "scopa-3": "bb885281b01d8eb1",
    "scopa-4": "700c9d6035af8629",
    "scopa-4-solo": "e460609f9a219875",
    "asso-piglia-tutto": "5ff6a4d1b18742eb",
    "scopa-36": "082ffd2449a976dd",
    "scopa-corsa": "097e5752b7d286b0",
    "scopone": "f1b0f12e4b2d50ff",
    "scopone-scientifico": "40a646a55ed81697",
}
# json.dumps(Rules.make("scopa").as_dict(), sort_keys=True) on main before §9.
SCOPA_JSON_BEFORE_SECTION_9 = (
    '{"ace_sweep": false, "ace_sweep_scopa": true, "capture_rule": "card", "deck": 40, '
    '"hand_size": 3, "kings_redeal": true, "last_play_scopa": false, "napola": false, '
    '"napola_all_denari_wins": false, "napola_scoring": "length", "players": 2, '
    '"primiera": "classic", "primiera_missing_suit": "exclude", "re_bello": false, '
    '"remainder_to": "last_capturer", "sum_capture": "any", "table_cards": 4, "target": 11, '
    '"teams": false}'
)
SECTION_9 = ("capture_mode", "capture_compulsory", "opening_fifteen")


@pytest.mark.parametrize("preset", sorted(DIGESTS_BEFORE_SECTION_9))
def test_identity_unchanged_for_rule_sets_with_the_section_9_defaults(preset: str) -> None:
    rules = Rules.make(preset)
    assert rules.digest() == DIGESTS_BEFORE_SECTION_9[preset]
    assert not set(SECTION_9) & set(rules.as_dict())


def test_identity_form_of_scopa_is_byte_identical() -> None:
    assert json.dumps(Rules.make("scopa").as_dict(), sort_keys=True) == SCOPA_JSON_BEFORE_SECTION_9
    custom = Rules.make("scopa", ["target=21", "sum_capture=fewest"])
    assert custom.digest() == "918e8239e9f8ea77"  # also computed on main


def test_non_default_section_9_options_enter_the_identity() -> None:
    base = Rules.make("scopa")
    variants = [
        Rules.make("scopa-15"),
        Rules.make("scopa", ["capture_compulsory=false"]),
        Rules.make("scopa-15", ["opening_fifteen=true"]),
        Rules.make("escoba"),
    ]
    digests = {r.digest() for r in variants}
    assert len(digests) == len(variants) and base.digest() not in digests
    assert Rules.make("scopa-15").as_dict() == {**base.as_dict(), "capture_mode": "fifteen"}
    optional = Rules.make("scopa", ["capture_compulsory=false"])
    assert optional.as_dict()["capture_compulsory"] is False
    for r in variants:
        assert Rules.from_dict(r.as_dict()) == r
        assert Rules.from_dict(r.complete_dict()) == r
    # an option given at its default is the same rule set as one not given
    assert Rules.make("scopa", ["capture_mode=scopa", "capture_compulsory=true"]) == base


def test_rules_lacking_the_section_9_options_read_with_their_defaults() -> None:
    old = json.loads(SCOPA_JSON_BEFORE_SECTION_9)  # a manifest or record of before §9
    rules = Rules.from_dict(old)
    assert rules == Rules.make("scopa")
    assert (rules.capture_mode, rules.capture_compulsory, rules.opening_fifteen) == (
        "scopa",
        True,
        False,
    )
    partial = {**old, "capture_mode": "fifteen"}  # any subset of the three may be absent
    assert Rules.from_dict(partial) == Rules.make("scopa-15")
    del old["target"]  # the options of before §9 are still required
    with pytest.raises(RulesError, match="'target'"):
        Rules.from_dict(old)


def test_from_dict_types_the_section_9_options_strictly() -> None:
    data = Rules.make("scopa").complete_dict()
    for key, bad in [("capture_mode", "15"), ("capture_compulsory", 1), ("opening_fifteen", "no")]:
        with pytest.raises(RulesError, match=f"'{key}'"):
            Rules.from_dict({**data, key: bad})


def test_opening_fifteen_values() -> None:
    for text, value in [("true", True), ("false", False), ("1", True), ("0", False)]:
        assert Rules.make("scopa-15", [f"opening_fifteen={text}"]).opening_fifteen is value
    rejects("scopa-15", ["opening_fifteen=yes"], "'opening_fifteen'", "true, false")


def test_ace_sweep_not_with_fifteen() -> None:
    msg = rejects("asso-piglia-tutto", ["capture_mode=fifteen"], "'ace_sweep'", "capture_mode")
    assert "allowed: false" in msg and "\n" not in msg
    rejects("scopa-15", ["ace_sweep=true"], "'ace_sweep'", "fifteen")
    rejects("escoba", ["ace_sweep=true"], "'ace_sweep'")
    # the ace sweep's scopa option alone has no effect and is accepted (§6)
    assert Rules.make("scopa-15", ["ace_sweep_scopa=false"]).ace_sweep_scopa is False


def test_opening_fifteen_needs_fifteen_and_table_cards() -> None:
    msg = rejects("scopa", ["opening_fifteen=true"], "'opening_fifteen'", "capture_mode=fifteen")
    assert "allowed: false" in msg and "\n" not in msg
    rejects("escoba", ["capture_mode=scopa"], "'opening_fifteen'", "capture_mode=fifteen")
    msg = rejects("escoba", ["table_cards=0"], "'opening_fifteen'", "table_cards=0")
    assert "allowed: false" in msg and "\n" not in msg
    rejects("scopa-15", ["opening_fifteen=true", "table_cards=0"], "'opening_fifteen'")
    assert Rules.make("escoba", ["table_cards=2"]).opening_fifteen
    assert Rules.make("scopa-15", ["table_cards=0"]).table_cards == 0
    assert Rules.make("escoba", ["opening_fifteen=false", "table_cards=0"]).table_cards == 0


def test_capture_compulsory_applies_to_both_capture_modes() -> None:
    assert Rules.make("scopa", ["capture_compulsory=false"]).capture_compulsory is False
    assert Rules.make("escoba", ["capture_compulsory=true"]).capture_compulsory is True
    # capture_rule has no effect without compulsory capture, and is accepted as given (§6)
    assert Rules.make("escoba", ["capture_rule=hand"]).capture_rule == "hand"


def test_section_9_options_in_the_kernel_vector() -> None:
    from scopa_sim import _engine as K

    slots = (K.R_CAPTURE_FIFTEEN, K.R_CAPTURE_OPTIONAL, K.R_OPENING_FIFTEEN)
    assert slots == (22, 23, 24)  # the contract of issue 15
    assert (K.R_OPENING_FIRST, K.R_FOUR_SEVENS, K.R_CIRULLA) == (25, 26, 27)  # issue 25, §10
    assert [int(Rules.make("scopa").to_array()[s]) for s in slots] == [0, 0, 0]
    assert [int(Rules.make("scopa-15").to_array()[s]) for s in slots] == [1, 0, 0]
    assert [int(Rules.make("escoba").to_array()[s]) for s in slots] == [1, 1, 1]
    opt = Rules.make("scopa", ["capture_compulsory=false"]).to_array()
    assert [int(opt[s]) for s in slots] == [0, 1, 0]
    # the vector of the options of before §9 is unchanged
    assert list(Rules.make("escoba").to_array()[: K.R_CAPTURE_FIFTEEN]) == list(
        Rules.make("scopa", ["kings_redeal=false", "target=15"]).to_array()[: K.R_CAPTURE_FIFTEEN]
    )


def test_the_target_range_keeps_matches_inside_the_kernels_limit() -> None:
    """Every hand scores a point, so a match of at most 4 sides ends within
    ``4 * MAX_TARGET`` hands: inside the jitted loop's limit (rules.py leaves the engine
    unimported, so the check lives here)."""
    from scopa_sim import _engine as K
    from scopa_sim.game.rules import MAX_TARGET

    assert 4 * MAX_TARGET < K.MAX_HANDS_PER_MATCH


@pytest.mark.parametrize("preset", sorted(KERNEL_PRESETS))
def test_the_deck_and_the_plays_a_hand_has_agree_with_the_kernel_vector(preset: str) -> None:
    """The faces of the packing (``deck_mask``, ``deck_cards``, ``total_plays``) read what
    the kernels read, without the engine."""
    from scopa_sim import _engine as K

    for deck in (40, 36):
        try:
            rules = Rules.make(preset, [f"deck={deck}", "napola=false"])
        except RulesError:  # more cards dealt than 36
            continue
        r = rules.to_array()
        assert rules.deck_mask == int(r[K.R_DECK_MASK])
        assert rules.deck_cards.mask == rules.deck_mask and len(rules.deck_cards) == rules.deck
        assert rules.total_plays == int(r[K.R_TOTAL_PLAYS])
