"""What the board's requests name, read strictly: rules, positions and games given as
JSON, turned into :class:`~scopa_sim.game.state.HandState` by the library's own readers
(:func:`scopa_sim.api.advice.position` as ``advise --hand ...`` does,
:func:`~scopa_sim.records.record.position_from_record` as ``advise --position`` does,
:func:`~scopa_sim.records.record.decode_hand` for a record's line), and the JSON views of
a position the page draws.

A position is one of (the ``position`` object of a request):

* ``{"cards": {"preset": "scopa", "rules": {"napola": true}, "hand": "7D 3S", "table":
  "...", "mine": "...", "theirs": "...", "seen": "...", "scope": [0, 0], "totals": [0, 0],
  "opponent_cards": null}}`` -- seat 0 to play, as ``advise --hand`` reads it;
* ``{"advise": "games.jsonl:3:10"}`` -- as ``advise --position`` reads it (the file is
  one the user names);
* ``{"record": {"text": "<one record line>", "play": 10}}`` -- the position before play
  10 of a hand the page holds (an opened or uploaded record);
* ``{"game": {...}}`` -- a hand being played on the board (:func:`game_state`).

Everything wrong in a request is a :class:`~scopa_sim.errors.ScopaError` (the app
answers it with a 400 and its message), never a traceback.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scopa_sim.api.advice import position
from scopa_sim.bots.registry import PolicySpec
from scopa_sim.errors import BoardError, PositionError, ScopaError
from scopa_sim.game.cards import CardSet, card_name
from scopa_sim.game.play import Play
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import HandState
from scopa_sim.records.record import (
    check_lines,
    check_record,
    decode_hand,
    hand_record,
    position_from_record,
)
from scopa_sim.sim.match import (
    MAX_HANDS_PER_MATCH,
    bot_seed,
    check_cirulla_policies,
    cirulla_deal,
    first_dealer,
    hand_deck,
    hand_log,
)

#: The longest text field a request may hold (a card list, a path, a policy), and the
#: longest record line (a 4-player hand's record is about 3 kB).
MAX_TEXT = 2_000
MAX_LINE = 64_000
#: The most plays a game or record position may list (a hand has at most 40).
MAX_PLAYS = 40
#: The fields of a ``cards`` position and of a game description.
CARD_FIELDS = ("preset", "rules", "hand", "table", "mine", "theirs", "seen", "scope", "totals",
               "opponent_cards")  # fmt: skip
GAME_FIELDS = ("preset", "rules", "policy", "seed", "human", "match", "hand_no", "dealer",
               "totals", "plays")  # fmt: skip


# --------------------------------------------------------------------------- fields
def field(
    doc: Mapping[str, Any], key: str, kind: type | tuple[type, ...], default: Any = ...
) -> Any:
    """``doc[key]`` of type ``kind`` (``default`` when absent, if given); a BoardError
    naming the field otherwise. Booleans are not integers here."""
    if not isinstance(doc, Mapping):
        raise BoardError("expected a JSON object")
    if key not in doc or doc[key] is None:
        if default is ...:
            raise BoardError(f"missing field {key!r}")
        return default
    value = doc[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        raise BoardError(f"field {key!r}: expected {_names(kinds)}, got a boolean")
    if not isinstance(value, kinds):
        raise BoardError(f"field {key!r}: expected {_names(kinds)}, got {type(value).__name__}")
    if isinstance(value, str) and len(value) > (MAX_LINE if key == "text" else MAX_TEXT):
        raise BoardError(f"field {key!r}: too long ({len(value):,} characters)")
    return value


def only(doc: Mapping[str, Any], allowed: tuple[str, ...] | frozenset[str], what: str) -> None:
    """A BoardError naming the first field of ``doc`` not in ``allowed``."""
    for key in doc:
        if key not in allowed:
            raise BoardError(f"{what}: unknown field {key!r} (fields: {', '.join(allowed)})")


def _names(kinds: tuple[type, ...]) -> str:
    words = {str: "text", int: "a whole number", bool: "true or false", dict: "an object"}
    words |= {list: "a list", float: "a number"}
    return " or ".join(words.get(k, k.__name__) for k in kinds)


def pair(doc: Mapping[str, Any], key: str) -> tuple[int, int]:
    """Two whole numbers >= 0 (``[1, 0]``), default ``[0, 0]``."""
    value = field(doc, key, list, [0, 0])
    if len(value) != 2 or not all(
        isinstance(x, int) and not isinstance(x, bool) and 0 <= x < 2**31 for x in value
    ):
        raise BoardError(f"field {key!r}: expected two whole numbers >= 0 like [1, 0]")
    return int(value[0]), int(value[1])


def seed_of(doc: Mapping[str, Any]) -> int:
    seed = field(doc, "seed", int, 0)
    if not 0 <= seed < 2**63:
        raise BoardError("field 'seed': a whole number from 0 to 2**63 - 1")
    return int(seed)


def rules_of(doc: Mapping[str, Any]) -> Rules:
    """Rules from ``preset`` (default ``scopa``) and ``rules`` (an object of options, or
    ``key=value`` text as ``--rule`` takes, comma or space separated), Cirulla's
    (RULES.md §10) included."""
    preset = field(doc, "preset", str, "scopa")
    options = field(doc, "rules", (dict, str), {})
    if isinstance(options, str):
        options = [x for x in options.replace(",", " ").split() if x]
    return Rules.make(preset, options)


#: The largest budgets the board runs (the command line and the Python API take more, up
#: to what memory holds): a search's worlds, iterations and milliseconds per decision.
MAX_BUDGET: dict[str, int] = {"worlds": 16_384, "iterations": 2_000_000, "ms": 60_000}


def capped(spec: PolicySpec) -> PolicySpec:
    """``spec`` if its budget is within :data:`MAX_BUDGET`; a BoardError naming the cap
    otherwise."""
    for key, value in spec.params:
        cap = MAX_BUDGET.get(key)
        if cap is None:
            continue
        try:
            number = float(value)
        except ValueError:
            continue  # the policy's own check words it
        if number > cap:
            raise BoardError(
                f"{key}={value}: the board runs at most {key}={cap:,} (the command line takes more)"
            )
    return spec


def policy_of(doc: Mapping[str, Any], default: str) -> PolicySpec:
    """The ``policy`` field as a policy, its budget within the board's caps."""
    return capped(PolicySpec.parse(field(doc, "policy", str, default)))


#: The largest record file a position is read from (bytes).
MAX_POSITION_FILE = 64 << 20


def _within_cap(path: str) -> None:
    """A BoardError if ``path`` names a file over :data:`MAX_POSITION_FILE` bytes (other
    failures are left to the reader, which words them)."""
    try:
        size = os.stat(path).st_size
    except (OSError, ValueError):
        return
    if size > MAX_POSITION_FILE:
        raise BoardError(
            f"position: the file is over {MAX_POSITION_FILE >> 20} MB: too large for the board"
        )


# --------------------------------------------------------------------------- positions
@dataclass(frozen=True)
class Position:
    """A position read from a request: its state, whether it is a game record's (its
    hidden cards are the true ones), and what the page may show (``reveal``: every hand,
    as in a replay; else only the seat to play's)."""

    state: HandState
    recorded: bool
    reveal: bool


def position_of(doc: Mapping[str, Any]) -> Position:
    """The position a request's ``position`` object names (see the module docstring)."""
    if not isinstance(doc, Mapping) or len(doc) != 1:
        raise BoardError(
            "position: expected an object with one of 'cards', 'advise', 'record', 'game'"
        )
    kind, body = next(iter(doc.items()))
    if kind == "cards":
        return Position(cards_position(field(doc, "cards", dict)), False, False)
    if kind == "advise":
        spec = field(doc, "advise", str)
        _within_cap(spec.rsplit(":", 2)[0])
        try:
            return Position(position_from_record(spec), True, False)
        except PositionError as e:  # the file's own content is never quoted back
            m = re.match(r"position: line (\d+): ", str(e))
            if m is None:
                raise
            raise BoardError(
                f"position: line {m.group(1)} of the file is not a valid scopa-record/1 hand "
                "(scopa-sim replay says why)"
            ) from None
    if kind == "record":
        body = field(doc, "record", dict)
        only(body, ("text", "play", "reveal"), "record")
        state = record_position(field(body, "text", str), field(body, "play", int, 0))
        return Position(state, True, field(body, "reveal", bool, True))
    if kind == "game":
        game = game_state(field(doc, "game", dict))
        return Position(game.state, False, game.state.is_over)  # a bot sees no hidden card
    raise BoardError(f"position: unknown kind {kind!r} (cards, advise, record or game)")


def cards_position(doc: Mapping[str, Any]) -> HandState:
    """Seat 0's position from the cards it knows, as ``advise --hand ...`` reads it."""
    only(doc, CARD_FIELDS, "cards")
    return position(
        field(doc, "hand", str, ""),
        field(doc, "table", str, ""),
        rules=rules_of(doc),
        mine=field(doc, "mine", str, ""),
        theirs=field(doc, "theirs", str, ""),
        seen=field(doc, "seen", str, ""),
        scope=pair(doc, "scope"),
        opponent_cards=field(doc, "opponent_cards", int, None),
        totals=pair(doc, "totals"),
    )


def parse_line(text: str) -> dict[str, Any]:
    """One record line, checked on its own by ``replay``'s checker
    (:func:`~scopa_sim.records.record.check_record`: the match around it is not asked
    for); a BoardError naming the first violation."""
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        raise BoardError("not a valid scopa-record/1 hand: malformed JSON") from None
    try:
        check_record(obj)
    except (ScopaError, ValueError, OverflowError) as e:
        raise BoardError(f"not a valid scopa-record/1 hand: {e}") from None
    if not isinstance(obj, dict):  # check_record refuses them; for the type checker
        raise BoardError("not a valid scopa-record/1 hand")
    return obj


def record_position(text: str, play: int) -> HandState:
    """The state before play ``play`` (0-based; the number of plays ends the hand) of a
    record line, its plays pushed (the belief reads them)."""
    state, plays = decode_hand(parse_line(text))
    if not 0 <= play <= len(plays):
        raise PositionError(f"the hand has plays 0..{len(plays) - 1}, not {play}")
    for p in plays[:play]:
        state.push(p)
    return state


def record_frames(text: str) -> dict[str, Any]:
    """Every position of a recorded hand, for stepping through it: the view before each
    play and after the last (every hand shown), and the play made from each (in its full
    words: a Cirulla play's named value and declaration too), with a Cirulla record's
    void deals (``voids``, also in each frame)."""
    obj = parse_line(text)
    state, plays = decode_hand(obj)
    voids = {"voids": obj["voids"]} if "voids" in obj else {}  # Cirulla's void deals
    frames = []
    for p in plays:
        frames.append({**view(state, reveal=True), "next": str(p), **voids})
        state.push(p)
    frames.append({**view(state, reveal=True), **voids})
    return {
        "match": obj["match"],
        "hand": obj["hand"],
        "dealer": obj["dealer"],
        "voids": obj.get("voids", []),
        "players": state.rules.players,
        "rules": state.rules.as_dict(),
        "frames": frames,
    }


def record_hands(texts: list[str], name: str, quote: bool = True) -> dict[str, Any]:
    """The hands of a record file (its lines), checked as ``replay`` checks a file: a
    BoardError naming the first violation (``quote``: with the checker's reason, which
    may quote the file; a file read from a path gets the line only), or each line's
    header for the page's list."""
    if not texts:
        raise BoardError(f"{name}: the file holds no record line")
    summary = check_lines(texts, allow_unfinished=True)
    if summary.errors:
        line, reason = summary.errors[0]
        if not quote:
            where = f" (line {line})" if line else ""
            raise BoardError(
                f"{name}: not a valid scopa-record/1 file{where}: scopa-sim replay says why"
            )
        where = f"line {line}: " if line else ""
        raise BoardError(f"{name}: not a valid scopa-record/1 file: {where}{reason}")
    hands = []
    for n, text in enumerate(texts, start=1):
        obj = json.loads(text)
        hands.append(
            {
                "line": n,
                "match": obj["match"],
                "hand": obj["hand"],
                "dealer": obj["dealer"],
                "players": obj["rules"]["players"],
                "plays": len(obj["plays"]),
                "text": text,
            }
        )
    return {"name": name, "hands": hands}


# --------------------------------------------------------------------------- views
def _cards(cs: CardSet | list[int]) -> list[str]:
    return [card_name(c) for c in cs]


def view(state: HandState, seat: int | None = None, reveal: bool = False) -> dict[str, Any]:
    """A position as the page draws it, from ``seat``'s side (default: the seat to play):
    its hand (every hand with ``reveal``; the others' sizes otherwise), the table, the
    piles and scope per side, the stock's size, the legal plays, the score once over. In
    Cirulla (RULES.md §10) the hands of the seats that declared in the deal are shown
    (each hand's ``declared``), ``cirulla`` gives each side's declared points and the
    seats shown, and the score has grande, piccola and declarations; ``opening`` is the
    table the opening count (or ``opening_fifteen``) took."""
    rules = state.rules
    me = state.turn if seat is None else seat
    hands = []
    declared = state.shown if rules.cirulla else []
    for s in range(rules.players):
        shown = reveal or s == me or state.is_over or s in declared
        hands.append(
            {
                "seat": s,
                "side": rules.side_of(s),
                "count": len(state.hand(s)),
                "cards": _cards(state.hand(s)) if shown else None,
                "declared": s in declared,
            }
        )
    doc: dict[str, Any] = {
        "turn": None if state.is_over else state.turn,
        "seat": me,
        "dealer": state.dealer,
        "players": rules.players,
        "sides": rules.sides,
        "hands": hands,
        "table": _cards(state.table),
        "piles": [_cards(p) for p in state.piles],
        "scope": state.scope,
        "stock": len(state.stock),
        "plays_made": state.plays_made,
        "plays_left": state.plays_left,
        "over": state.is_over,
        "match_totals": list(state.match_totals),
        "legal": [str(p) for p in state.legal_plays],
        "rules": rules.as_dict(),
        "reveal": reveal,
    }
    if state.opening:  # opening_fifteen (§9), Cirulla's opening count (§10)
        doc["opening"] = _cards(state.opening)
    if rules.cirulla:
        doc["cirulla"] = {"declared": state.declared, "shown": declared}
    if state.is_over:
        doc["score"] = state.score()
    return doc


# --------------------------------------------------------------------------- games
@dataclass(frozen=True)
class Game:
    """A hand being played on the board: its state after the plays so far, the game's
    settings, and whose seats the bots play."""

    state: HandState
    rules: Rules
    policy: PolicySpec
    seed: int
    human: int
    hand_no: int
    dealer: int
    totals: tuple[int, ...]
    deck: tuple[int, ...]
    moves: tuple[tuple[int, int, int], ...]  # (seat, card, take) as a HandLog holds them
    metas: tuple[int, ...] = ()  # Cirulla: each play's Play.meta (the HandLog's metas)
    voids: tuple[int, ...] = ()  # Cirulla: the void deals' first tables (masks)

    @property
    def bot_to_play(self) -> bool:
        return not self.state.is_over and self.state.turn != self.human

    def bot_seed(self) -> int:
        """The seed of the bot's next decision, as ``play`` derives it (hand ``h`` of
        match 0)."""
        return bot_seed(self.seed, 0, self.hand_no, self.state.plays_made)


def new_game(doc: Mapping[str, Any]) -> dict[str, Any]:
    """A new game's description (what later requests send back): the first hand of a
    match whose first dealer comes from the seed, as ``play`` draws it."""
    rules = rules_of(doc)
    game_policy(rules, policy_of(doc, "greedy"))
    seed = seed_of(doc)
    human = field(doc, "human", int, 0)
    if not 0 <= human < rules.players:
        raise BoardError(f"human: a seat 0..{rules.players - 1}")
    return {
        "preset": field(doc, "preset", str, "scopa"),
        "rules": rules.as_dict(),
        "policy": str(policy_of(doc, "greedy")),
        "seed": seed,
        "human": human,
        "match": field(doc, "match", bool, False),
        "hand_no": 0,
        "dealer": first_dealer(seed, 0, rules.players),
        "totals": [0] * rules.sides,
        "plays": [],
    }


def game_policy(rules: Rules, policy: PolicySpec) -> PolicySpec:
    """``policy`` if it plays games of ``rules``: Cirulla's (RULES.md §10) are played by
    the kernel policies only so far.

    Raises:
        RulesError: a policy that does not play Cirulla yet, in one line.
    """
    if rules.cirulla:
        check_cirulla_policies([policy])
    return policy


def game_state(doc: Mapping[str, Any]) -> Game:
    """The state of a game description after its plays (each checked legal)."""
    only(doc, GAME_FIELDS, "game")
    rules = Rules.from_dict(field(doc, "rules", dict))
    policy = game_policy(rules, policy_of(doc, "greedy"))
    seed = seed_of(doc)
    human = field(doc, "human", int, 0)
    hand_no = field(doc, "hand_no", int, 0)
    dealer = field(doc, "dealer", int, 0)
    if not 0 <= human < rules.players or not 0 <= dealer < rules.players:
        raise BoardError(f"human and dealer: seats 0..{rules.players - 1}")
    if not 0 <= hand_no < MAX_HANDS_PER_MATCH:
        raise BoardError("hand_no: out of range")
    field(doc, "match", bool, False)
    totals = field(doc, "totals", list, [0] * rules.sides)
    if len(totals) != rules.sides or not all(
        isinstance(t, int) and not isinstance(t, bool) and 0 <= t < 2**31 for t in totals
    ):
        raise BoardError(f"totals: {rules.sides} whole numbers >= 0, one per side")
    plays = field(doc, "plays", list, [])
    if len(plays) > MAX_PLAYS or not all(isinstance(p, str) and len(p) < 100 for p in plays):
        raise BoardError(f"plays: a list of at most {MAX_PLAYS} plays as text")
    voids: tuple[int, ...] = ()
    if rules.cirulla:  # dealt as `play` deals it: void deals drawn again, kept
        order, voids = cirulla_deal(rules, seed, 0, hand_no)
    else:
        order = hand_deck(rules, seed, 0, hand_no)
    try:
        state = HandState.deal(rules, dealer=dealer, deck=order, match_totals=totals)
    except ValueError as e:
        raise BoardError(f"game: {e}") from None
    moves, metas = [], []
    for text in plays:
        play = Play.parse(text)
        moves.append((state.turn, play.card, play.take))
        metas.append(play.meta)
        state.push(play)
    return Game(state, rules, policy, seed, human, hand_no, dealer, state.match_totals, order,
                tuple(moves), tuple(metas) if rules.cirulla else (), voids)  # fmt: skip


def game_view(game: Game) -> dict[str, Any]:
    """The page's view of a game from the human seat, with the record of the hand once it
    is over (for the review) and the next hand's description in a match not yet won; a
    Cirulla game's view gives its void deals (``voids``)."""
    state = game.state
    doc: dict[str, Any] = {"view": view(state, game.human), "bot_to_play": game.bot_to_play}
    if game.rules.cirulla:
        doc["view"]["voids"] = [_cards(CardSet(t)) for t in game.voids]
    if state.is_over:
        log = hand_log(
            state,
            match=0,
            hand=game.hand_no,
            dealer=game.dealer,
            deck=game.deck,
            plays=game.moves,
            totals_before=game.totals,
            metas=game.metas,
            voids=game.voids,
        )
        after, winner, n = list(log.totals_after), log.winner, game.rules.players
        doc["record"] = json.dumps(hand_record(game.rules, log), separators=(",", ":"))
        doc["totals_after"] = after
        doc["winner"] = winner
        if winner is None:
            doc["next_hand"] = {
                "hand_no": game.hand_no + 1,
                "dealer": (game.dealer + 1) % n,
                "totals": after,
            }
    return doc


__all__ = [
    "Game",
    "Position",
    "cards_position",
    "game_policy",
    "game_state",
    "game_view",
    "new_game",
    "position_of",
    "record_frames",
    "record_hands",
    "record_position",
    "view",
]
