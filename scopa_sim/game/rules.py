"""Rule options and presets (docs/rules.md §7) as a validated, frozen dataclass.

Making, checking and naming rules needs neither numba nor the kernels: only
:meth:`Rules.to_array` (the kernels' vector) imports :mod:`scopa_sim._engine`, on first
use, so that ``import scopa_sim`` and ``Rules.make`` stay cheap.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from scopa_sim.errors import RulesError
from scopa_sim.game.cards import DECK36_MASK, FULL_DECK_MASK, CardSet

if TYPE_CHECKING:
    import numpy as np

_CHOICES: dict[str, tuple[Any, ...]] = {
    "players": (2, 3, 4),
    "deck": (40, 36),
    "capture_rule": ("card", "hand"),
    "sum_capture": ("any", "fewest"),
    "remainder_to": ("last_capturer", "dealer"),
    "primiera": ("classic", "sevens", "escoba_sevens"),
    "primiera_missing_suit": ("exclude", "zero"),
    "napola_scoring": ("length", "fixed3"),
    "capture_mode": ("scopa", "fifteen", "cirulla"),
    "opening_fifteen_to": ("dealer", "first_player"),
    "matta": ("declare", "play", "none"),
    "declare": ("choice", "auto", "off"),
    "piccola_max": (5, 6, 7),
}
#: The highest match target. Every hand scores at least one point (the settebello), so
#: with at most 4 sides a match reaches the target within ``4 * MAX_TARGET`` hands, well
#: inside the jitted loop's limit of ``MAX_HANDS_PER_MATCH`` (10,000) hands (checked by
#: ``tests/test_rules.py``: the engine is not imported here); the running totals (the
#: Int32 ``s{k}_total`` columns) stay far inside their range.
MAX_TARGET = 1000
_RANGES = {"hand_size": (1, 10), "table_cards": (0, 4), "target": (1, MAX_TARGET)}
_BOOLS = (
    "teams",
    "kings_redeal",
    "ace_sweep",
    "ace_sweep_scopa",
    "last_play_scopa",
    "re_bello",
    "napola",
    "napola_all_denari_wins",
    "capture_compulsory",
    "opening_fifteen",
    "four_sevens_point",
    "cirulla_match_priority",
    "aces_redeal",
    "opening_count",
    "cappotto",
)
#: The options of the sum-to-fifteen family (RULES.md §9) and their defaults. Rule sets
#: written before §9 lack them; they enter the identity of a rule set (:meth:`Rules.as_dict`,
#: :meth:`Rules.digest`, and so run ids and manifests) only when they differ from these
#: defaults, so every rule set of before §9 keeps its identity byte for byte.
FIFTEEN_DEFAULTS: dict[str, Any] = {
    "capture_mode": "scopa",
    "capture_compulsory": True,
    "opening_fifteen": False,
}
#: The options of the Escoba readings (RULES.md §9: who takes the opening fifteen, the
#: four-sevens point) and their defaults. Unlike the §9 options they are left out of the
#: complete form of a rule set (:meth:`Rules.complete_dict`, a game record's ``rules``) as
#: well as its identity while they have their defaults, so every record, digest, run id
#: and shard of a rule set that leaves them alone is byte for byte what it was before.
#: (The third reading, ``primiera=escoba_sevens``, is a value of an existing option.)
READING_DEFAULTS: dict[str, Any] = {
    "opening_fifteen_to": "dealer",
    "four_sevens_point": False,
}
#: The options of Cirulla (RULES.md §10) and their defaults. They are part of a rule set's
#: complete form and identity only with ``capture_mode=cirulla``, where both list all of
#: them (a Cirulla record states its whole reading, a Cirulla run id names it); every
#: other rule set leaves them out, so its records, digests, run ids and shards are byte for
#: byte what they were before §10. Away from their defaults they need
#: ``capture_mode=cirulla``.
CIRULLA_DEFAULTS: dict[str, Any] = {
    "cirulla_match_priority": True,
    "aces_redeal": True,
    "opening_count": True,
    "matta": "declare",
    "declare": "choice",
    "piccola_max": 6,
    "cappotto": True,
}
#: The options that may be absent from a rule set's mapping (:meth:`Rules.from_dict`).
OPTIONAL_DEFAULTS: dict[str, Any] = {**FIFTEEN_DEFAULTS, **READING_DEFAULTS, **CIRULLA_DEFAULTS}


@dataclass(frozen=True)
class Rules:
    """The complete effective options of one game (every option of docs/rules.md §7).

    Build one with :meth:`Rules.make` (preset plus overrides), which validates;
    direct construction validates too.
    """

    players: int = 2
    teams: bool = False
    deck: int = 40
    hand_size: int = 3
    table_cards: int = 4
    kings_redeal: bool = True
    capture_rule: str = "card"
    sum_capture: str = "any"
    remainder_to: str = "last_capturer"
    ace_sweep: bool = False
    ace_sweep_scopa: bool = True
    last_play_scopa: bool = False
    primiera: str = "classic"
    primiera_missing_suit: str = "exclude"
    re_bello: bool = False
    napola: bool = False
    napola_scoring: str = "length"
    napola_all_denari_wins: bool = False
    target: int = 11
    capture_mode: str = "scopa"
    capture_compulsory: bool = True
    opening_fifteen: bool = False
    opening_fifteen_to: str = "dealer"
    four_sevens_point: bool = False
    cirulla_match_priority: bool = True
    aces_redeal: bool = True
    opening_count: bool = True
    matta: str = "declare"
    declare: str = "choice"
    piccola_max: int = 6
    cappotto: bool = True

    def __post_init__(self) -> None:
        _validate(self)

    # -- construction -------------------------------------------------------------
    @classmethod
    def make(
        cls,
        preset: str = "scopa",
        overrides: Mapping[str, Any] | Iterable[str] | None = None,
    ) -> Rules:
        """Rules of ``preset`` with ``overrides`` (a mapping or ``key=value`` strings) applied.

        ``teams`` defaults to true for 4 players and false otherwise unless given.
        """
        if preset not in PRESETS:
            raise RulesError(f"unknown preset {preset!r}; presets: {', '.join(PRESETS)}")
        opts: dict[str, Any] = dict(PRESETS[preset])
        given = parse_overrides(overrides)
        opts.update(given)
        preset_players = PRESETS[preset].get("players", DEFAULTS["players"])
        players_changed = "players" in given and given["players"] != preset_players
        if "teams" not in given and (players_changed or "teams" not in PRESETS[preset]):
            opts["teams"] = opts.get("players", DEFAULTS["players"]) == 4
        return cls(**opts)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        """Rules from a complete options mapping (as in a game record), strictly typed.

        The options of RULES.md §9 and §10 may be absent (records and manifests written
        before §9 lack them, every rule set leaves out the Escoba readings' options at
        their defaults, and every rule set but Cirulla's the §10 options): they then take
        their defaults (:data:`OPTIONAL_DEFAULTS`). Every other option must be present.
        """
        if not isinstance(data, Mapping):
            raise RulesError("rules must be an object of option names to values")
        unknown = sorted(set(data) - set(OPTION_NAMES))
        if unknown:
            raise RulesError(
                f"unknown option {unknown[0]!r}; allowed options: {', '.join(OPTION_NAMES)}"
            )
        missing = [k for k in OPTION_NAMES if k not in data and k not in OPTIONAL_DEFAULTS]
        if missing:
            raise RulesError(f"rules lack option {missing[0]!r}")
        return cls(**{**OPTIONAL_DEFAULTS, **dict(data)})

    # -- views ----------------------------------------------------------------------
    def as_dict(self) -> dict[str, Any]:
        """The identity form: every option in the order of docs/rules.md §7 as plain
        JSON-ready values, except the §9 options that have their defaults (and, as in
        :meth:`complete_dict`, the §10 options outside ``capture_mode=cirulla``).

        This is what identifies a rule set in run ids, manifests and :meth:`digest`:
        leaving out the §9 options at their defaults keeps it byte-identical to the form
        of before §9 for those rule sets, so their runs and cached study runs stay valid.
        :meth:`from_dict` reads it back. :meth:`complete_dict` has every option.
        """
        full = self.complete_dict()
        return {
            k: v for k, v in full.items() if k not in FIFTEEN_DEFAULTS or v != FIFTEEN_DEFAULTS[k]
        }

    def complete_dict(self) -> dict[str, Any]:
        """Every option of docs/rules.md §7, in its order, as plain JSON-ready values (the
        ``rules`` object of a game record, RECORD.md), except the Escoba readings' options
        (:data:`READING_DEFAULTS`) that have their defaults, and the Cirulla options
        (:data:`CIRULLA_DEFAULTS`) unless ``capture_mode=cirulla``: records of the rule
        sets that leave them alone stay as they were. :meth:`from_dict` reads it back."""
        cirulla = self.capture_mode == "cirulla"
        return {
            k: v
            for k, v in dataclasses.asdict(self).items()
            if (k not in READING_DEFAULTS or v != READING_DEFAULTS[k])
            and (cirulla or k not in CIRULLA_DEFAULTS)
        }

    def replace(self, **changes: Any) -> Rules:
        """A copy with some options changed (validated)."""
        return dataclasses.replace(self, **changes)

    @property
    def sides(self) -> int:
        """Number of sides: 2 teams, or one per player."""
        return 2 if self.teams else self.players

    @property
    def deck_mask(self) -> int:
        """The cards of the deck as a 40-bit mask: all 40, or without the four 2s for the
        36-card deck (bit ``c`` set for each card ``c`` in play)."""
        return FULL_DECK_MASK if self.deck == 40 else DECK36_MASK

    @property
    def deck_cards(self) -> CardSet:
        """The cards of the deck as a :class:`~scopa_sim.game.cards.CardSet` (``deck``
        cards; :attr:`deck_mask` as a set)."""
        return CardSet(self.deck_mask)

    @property
    def total_plays(self) -> int:
        """The number of plays in a hand: every card dealt to the players is played once
        (the deck less the opening table)."""
        return self.deck - self.table_cards

    @functools.cached_property
    def deal_order(self) -> tuple[int, ...]:
        """Where each card of a deck order goes, for positions ``0`` to ``deck - 1`` in
        dealing order: ``-1`` to the opening table, ``r * players + p`` when deal ``r``
        gives it to the ``p``-th seat after the dealer (``p = 0`` the first player,
        ``players - 1`` the dealer), ``-2`` to no one (too few cards left for a last
        round). Read from the kernels' one dealing routine
        (:func:`scopa_sim._engine.deals.deal_order`), which imports the engine on first
        use."""
        import numpy

        from scopa_sim import _engine as K

        out = numpy.empty(40, dtype=numpy.int64)
        K.deal_order(self._packed, out)
        return tuple(int(x) for x in out[: self.deck])

    @property
    def deal_sizes(self) -> tuple[int, ...]:
        """The cards each seat gets at each deal of a hand, in order (``hand_size``, but
        fewer at a short last deal): one entry per deal, from :attr:`deal_order`."""
        order = self.deal_order
        rounds = max(order) // self.players + 1 if max(order) >= 0 else 0
        return tuple(order.count(r * self.players) for r in range(rounds))

    def side_of(self, seat: int) -> int:
        """The side a seat belongs to (sides are numbered by their lowest seat)."""
        return seat % 2 if self.teams else seat

    def opening_seat(self, dealer: int) -> int:
        """The seat whose side takes an opening fifteen (RULES.md §9) when ``dealer``
        deals: the dealer, or with ``opening_fifteen_to=first_player`` the first player
        (the seat after the dealer, "mano")."""
        if self.opening_fifteen_to == "first_player":
            return (dealer + 1) % self.players
        return dealer

    @property
    def cirulla(self) -> bool:
        """Whether these are Cirulla's rules (``capture_mode=cirulla``, RULES.md §10), whose
        hands score the grande, the piccola and declarations besides."""
        return self.capture_mode == "cirulla"

    @property
    def opening_taker_name(self) -> str:
        """Who takes an opening fifteen, in words: ``dealer's`` or ``first player's``."""
        return "first player's" if self.opening_fifteen_to == "first_player" else "dealer's"

    def digest(self) -> str:
        """A short stable hash of the effective options (of :meth:`as_dict`: unchanged by
        the §9 options while they have their defaults)."""
        blob = json.dumps(self.as_dict(), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    def preset_name(self) -> str | None:
        """The name of the preset these rules equal exactly, if any."""
        for name in PRESETS:
            if Rules.make(name) == self:
                return name
        return None

    def to_array(self) -> np.ndarray:
        """The options packed as the int64 vector the kernels read: packed once per rule
        set and the same array for every caller (a run's shards, each hand's state, each
        bot), so it must only be read. It is not flagged read-only: the kernels would
        compile again for a read-only array type.

        Raises:
            RulesError: ``capture_mode=cirulla`` (RULES.md §10), which the kernels that
                play hands, runs and searches do not implement yet: refused here, where
                every game, run, tournament and search takes its rules' vector, so that
                no Scopa data comes out of a Cirulla rule set.
        """
        self.check_playable()
        return self._packed

    def loop_array(self) -> np.ndarray:
        """The vector of :meth:`to_array` for the jitted self-play loops (``simulate``'s
        rows and self-play with the kernel policies random, greedy and expert), which play
        every rule set: Cirulla's (RULES.md §10) too, through its own loop
        (``fused_rows_cirulla``). Read only, as :meth:`to_array`'s."""
        return self._packed

    def check_playable(self) -> None:
        """Check that the engine plays these rules (what :meth:`to_array` checks first),
        for callers that look at a position before they reach the kernels.

        Raises:
            RulesError: ``capture_mode=cirulla`` (RULES.md §10), played only by the
                self-play loops so far (:meth:`loop_array`).
        """
        if self.capture_mode == "cirulla":
            raise RulesError(CIRULLA_REFUSED)

    @functools.cached_property
    def _packed(self) -> np.ndarray:
        """The vector of :meth:`to_array`, packed on first use (the dataclass is frozen but
        not slotted: the cache lives in the instance's ``__dict__``, outside the fields
        that make its equality, hash and identity). The engine, and numba with it, is
        imported here, on the first use of the kernels' vector. Cirulla's rule sets are packed too
        (their options in the ``R_CIRULLA``.. slots, 0 in every other vector), for the step
        kernels that play them; :meth:`to_array` refuses them to every other caller."""
        from scopa_sim import _engine as K

        return K.pack_rules(
            self.players,
            int(self.teams),
            self.deck,
            self.hand_size,
            self.table_cards,
            int(self.kings_redeal),
            int(self.capture_rule == "hand"),
            int(self.sum_capture == "fewest"),
            int(self.remainder_to == "dealer"),
            int(self.ace_sweep),
            int(self.ace_sweep_scopa),
            int(self.last_play_scopa),
            {  # the kernels' code of each reading of the primiera
                "classic": K.PRIMIERA_CLASSIC,
                "sevens": K.PRIMIERA_SEVENS,
                "escoba_sevens": K.PRIMIERA_ESCOBA,
            }[self.primiera],
            int(self.primiera_missing_suit == "zero"),
            int(self.re_bello),
            int(self.napola),
            int(self.napola_scoring == "fixed3"),
            int(self.napola_all_denari_wins),
            self.target,
            capture_fifteen=int(self.capture_mode == "fifteen"),
            capture_optional=int(not self.capture_compulsory),
            opening_fifteen=int(self.opening_fifteen),
            opening_first=int(self.opening_fifteen_to == "first_player"),
            four_sevens=int(self.four_sevens_point),
            cirulla=int(self.capture_mode == "cirulla"),
            match_priority=int(self.cirulla_match_priority),
            aces_redeal=int(self.aces_redeal),
            opening_count=int(self.opening_count),
            matta={"none": K.MATTA_NONE, "declare": K.MATTA_DECLARE, "play": K.MATTA_PLAY}[
                self.matta
            ],
            declare={"off": K.DECLARE_OFF, "choice": K.DECLARE_CHOICE, "auto": K.DECLARE_AUTO}[
                self.declare
            ],
            piccola_max=self.piccola_max,
            cappotto=int(self.cappotto),
        )


#: The one-line refusal of a Cirulla rule set where it would reach the kernels that do not
#: play it yet (:meth:`Rules.to_array`).
CIRULLA_REFUSED = (
    "capture_mode=cirulla is not played by the engine yet here (simulate with the jitted "
    "policies, play, replay, tournaments of the kernel policies, pimc, ismcts and the solver "
    "with the belief models, advice, reviews, the board and the match-equity table take it; "
    "scopa-sim variants shows its options); allowed: capture_mode scopa or fifteen"
)

OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in fields(Rules))
DEFAULTS: dict[str, Any] = {f.name: f.default for f in fields(Rules)}

PRESETS: dict[str, dict[str, Any]] = {
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
    "cirulla": {
        "kings_redeal": False,
        "ace_sweep": True,
        "target": 51,
        "capture_mode": "cirulla",
    },
    "cirulla-3": {
        "players": 3,
        "kings_redeal": False,
        "ace_sweep": True,
        "target": 51,
        "capture_mode": "cirulla",
    },
    "cirulla-4": {
        "players": 4,
        "teams": True,
        "kings_redeal": False,
        "ace_sweep": True,
        "target": 51,
        "capture_mode": "cirulla",
    },
}

#: The presets every part of the engine plays (games, runs, tournaments, searches, the
#: study): all but Cirulla's (RULES.md §10), which :meth:`Rules.to_array` refuses until
#: the kernels play it.
KERNEL_PRESETS: tuple[str, ...] = tuple(
    name for name, opts in PRESETS.items() if opts.get("capture_mode") != "cirulla"
)

PRESET_DESCRIPTIONS: dict[str, str] = {
    "scopa": "Classic 2-player Scopa, 40 cards (seeds 000-004)",
    "scopa-3": "Scopa for 3 players (seeds 001-003)",
    "scopa-4": "Scopa for 4 players in two teams (seeds 003, 004)",
    "scopa-4-solo": "4 players each for themselves (seed 002)",
    "asso-piglia-tutto": "Scopa d'Assi: an ace sweeps the table (seed 000)",
    "scopa-36": "Corsican 36-card deck, the 2s removed (seed 001)",
    "scopa-corsa": "Corsican A Scopa: compulsory capture by hand, primiera by sevens (seed 001)",
    "scopone": "Scopone: 4 players in teams, 9 cards each, 4 on the table",
    "scopone-scientifico": "Scopone scientifico: 10 cards each, empty table, napola (seed 004)",
    "scopa-15": "Scopa a quindici: a card takes table cards that make fifteen with it (§9)",
    "escoba": "Escoba: fifteen captures, capture optional, the opening table taken, to 15 (§9)",
    "cirulla": "Cirulla: match, sum and fifteen captures, the matta, declarations, to 51 (§11)",
    "cirulla-3": "Cirulla for 3 players (§11)",
    "cirulla-4": "Cirulla for 4 players in two teams (§11)",
}


def _allowed(name: str) -> str:
    if name in _CHOICES:
        return ", ".join(str(v) for v in _CHOICES[name])
    if name in _RANGES:
        lo, hi = _RANGES[name]
        return f"integers {lo}..{hi}"
    return "true, false"  # the boolean options


def _parse_value(name: str, value: Any) -> Any:
    """Coerce one option value (text from the command line, or JSON) to its type."""
    if name not in DEFAULTS:
        raise RulesError(f"unknown option {name!r}; allowed options: {', '.join(OPTION_NAMES)}")
    bad = RulesError(f"bad value {value!r} for option {name!r}; allowed: {_allowed(name)}")
    if name in _BOOLS:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false", "1", "0"):
            return value.strip().lower() in ("true", "1")
        raise bad
    if name in _CHOICES and isinstance(_CHOICES[name][0], str):
        if isinstance(value, str) and value.strip() in _CHOICES[name]:
            return value.strip()
        raise bad
    if isinstance(value, bool):
        raise bad
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            raise bad from None
    raise bad


def parse_overrides(overrides: Mapping[str, Any] | Iterable[str] | None) -> dict[str, Any]:
    """Turn ``{"players": "3"}`` or ``["players=3"]`` into typed option values."""
    if overrides is None:
        return {}
    items: list[tuple[str, Any]] = []
    if isinstance(overrides, Mapping):
        items = list(overrides.items())
    else:
        for text in overrides:
            key, sep, value = str(text).partition("=")
            if not sep or not key.strip():
                raise RulesError(f"bad rule {text!r}: expected key=value, e.g. players=3")
            key = key.strip()
            if any(k == key for k, _ in items):
                raise RulesError(f"option {key!r} given twice (--rule {text!r}); give it once")
            items.append((key, value))
    return {k: _parse_value(k, v) for k, v in items}


def _validate(r: Rules) -> None:
    for f in fields(r):
        value = getattr(r, f.name)
        ok = True
        if f.name in _BOOLS:
            ok = isinstance(value, bool)
        elif f.name in _CHOICES:
            ok = value in _CHOICES[f.name] and type(value) is type(_CHOICES[f.name][0])
        else:  # an integer option (hand_size, table_cards, target)
            lo, hi = _RANGES[f.name]
            ok = type(value) is int and lo <= value <= hi
        if not ok:
            raise RulesError(
                f"bad value {value!r} for option {f.name!r}; allowed: {_allowed(f.name)}"
            )
    if r.teams and r.players != 4:
        raise RulesError(
            f"option 'teams'=true needs players=4 (got players={r.players}); allowed: false"
        )
    if r.napola and r.deck == 36:
        raise RulesError("option 'napola'=true is not allowed with deck=36; allowed with deck=40")
    dealt = r.players * r.hand_size + r.table_cards
    if dealt > r.deck:
        most = (r.deck - r.table_cards) // r.players
        raise RulesError(
            f"options 'hand_size'={r.hand_size} and 'table_cards'={r.table_cards} deal {dealt} "
            f"cards to {r.players} players but the deck holds {r.deck}; allowed: hand_size "
            f"1..{most} with {r.players} players, {r.table_cards} table cards, deck={r.deck}"
        )
    if r.ace_sweep and r.capture_mode == "fifteen":
        raise RulesError(
            "option 'ace_sweep'=true is not allowed with capture_mode=fifteen; "
            "allowed: false with capture_mode=fifteen, true with capture_mode=scopa"
        )
    if r.opening_fifteen and r.capture_mode != "fifteen":
        raise RulesError(
            f"option 'opening_fifteen'=true needs capture_mode=fifteen (got capture_mode="
            f"{r.capture_mode}); allowed: false with capture_mode={r.capture_mode}"
        )
    if r.opening_fifteen and r.table_cards == 0:
        raise RulesError(
            "option 'opening_fifteen'=true needs table cards (got table_cards=0); "
            "allowed: false with table_cards=0, true with table_cards 1..4"
        )
    _validate_cirulla(r)
    stock = r.deck - r.table_cards
    if stock % r.players:
        shareable = [str(p) for p in _CHOICES["players"] if stock % p == 0]
        tables = [str(t) for t in range(5) if (r.deck - t) % r.players == 0]
        raise RulesError(
            f"options 'deck'={r.deck}, 'players'={r.players}, 'table_cards'={r.table_cards}: "
            f"the {stock} cards left after the table cannot be shared equally at the last deal; "
            f"allowed: players {' or '.join(shareable) or 'none'} with these, or table_cards "
            f"{' or '.join(tables) or 'none'} with {r.players} players"
        )


#: What ``capture_mode=cirulla`` requires of the other options (RULES.md §10), and why.
_CIRULLA_FIXED: tuple[tuple[str, Any, str], ...] = (
    ("deck", 40, "the piccola needs the 2D"),
    ("hand_size", 3, "declarations are made on three-card hands"),
    ("table_cards", 4, "the void deal and the opening count are of four table cards"),
    ("napola", False, "the piccola scores the run of denari from the ace"),
    ("opening_fifteen_to", "dealer", "Cirulla's opening count goes to the dealer"),
)


def _text(value: Any) -> str:
    """An option value as the command line writes it (``true``, ``play``, ``6``)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def _validate_cirulla(r: Rules) -> None:
    """The combinations of RULES.md §10: its options away from their defaults need
    ``capture_mode=cirulla``, which needs the options of :data:`_CIRULLA_FIXED` (the
    reference's decisions, tests/reference.py)."""
    if r.capture_mode != "cirulla":
        for name, default in CIRULLA_DEFAULTS.items():
            value = getattr(r, name)
            if value != default:
                raise RulesError(
                    f"option {name!r}={_text(value)} needs capture_mode=cirulla (got "
                    f"capture_mode={r.capture_mode}); allowed: {_text(default)} with "
                    f"capture_mode={r.capture_mode}"
                )
        return
    for name, needed, why in _CIRULLA_FIXED:
        value = getattr(r, name)
        if value != needed:
            raise RulesError(
                f"option {name!r}={_text(value)} is not allowed with capture_mode=cirulla "
                f"({why}); allowed: {_text(needed)} with capture_mode=cirulla"
            )
