"""Game records in the ``scopa-record/1`` JSON Lines format (docs/record.md): write them,
check them and show them to a person."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from scopa_sim.errors import (
    CardError,
    FileError,
    IllegalPlayError,
    PositionError,
    RecordError,
    RulesError,
    ScopaError,
)
from scopa_sim.files import open_regular, shown_path
from scopa_sim.game.cards import Card, CardSet, card_name, parse_card
from scopa_sim.game.play import MATTA, Play
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import HandState, score_dicts, score_items
from scopa_sim.sim.match import HandLog, match_winner
from scopa_sim.wording import plural

FORMAT = "scopa-record/1"


def deals_from_deck(
    rules: Rules, deck: Sequence[Card], dealer: int
) -> tuple[list[Card], list[list[list[Card]]]]:
    """Split the deck order ``deck`` of a hand dealt by ``dealer`` under ``rules`` into the
    table and the successive deals (``deals[d][seat]``)."""
    n = rules.players
    table = list(deck[: rules.table_cards])
    pos = rules.table_cards
    deals: list[list[list[Card]]] = []
    while pos < rules.deck:
        left = rules.deck - pos
        k = rules.hand_size if left >= n * rules.hand_size else left // n
        hands: list[list[Card]] = [[] for _ in range(n)]
        for j in range(n):
            hands[(dealer + 1 + j) % n] = list(deck[pos : pos + k])
            pos += k
        deals.append(hands)
    return table, deals


def takes_opening(rules: Rules) -> bool:
    """Whether the rules take the first table at the deal when it adds up right:
    ``opening_fifteen`` (docs/rules.md §9) or, in Cirulla, ``opening_count`` (§11)."""
    if rules.capture_mode == "cirulla":
        return rules.opening_count
    return rules.opening_fifteen


def opening_of(rules: Rules, dealer: int, table: Sequence[Card], deals: Sequence[Any]) -> CardSet:
    """The cards the dealer's (or first player's) side takes at the deal by
    ``opening_fifteen`` (docs/rules.md §9: the whole first table when it makes fifteen or
    two fifteens) or Cirulla's ``opening_count`` (§11: fifteen or thirty), else none. The
    engine decides (:attr:`HandState.opening`); without the option nothing is taken."""
    if not takes_opening(rules):
        return CardSet()
    return HandState.from_deals(rules, dealer, table, deals).opening


def _play_obj(seat: int, card: Card, take: int, meta: int) -> dict[str, Any]:
    """A play of a record: ``seat``, ``card``, ``take``, and in Cirulla the ``value``
    named for the matta and the ``declaration``'s points when there are (``meta``:
    :attr:`Play.meta`, 0 in every other game)."""
    obj: dict[str, Any] = {
        "seat": seat,
        "card": card_name(card),
        "take": [card_name(c) for c in CardSet(take)],
    }
    if meta:
        play = Play.from_meta(card, take, meta)
        if play.value:
            obj["value"] = play.value
        if play.declaration:
            obj["declaration"] = play.declaration
    return obj


def hand_record(rules: Rules, log: HandLog) -> dict[str, Any]:
    """The record of one hand as a JSON-ready dict.

    ``opening`` (the table the dealer's side took by ``opening_fifteen`` or Cirulla's
    ``opening_count``, in the order it was dealt) is written only when that happened, as
    docs/record.md says; the rules are written complete (every option of docs/rules.md
    §7). A Cirulla record (§11) also has ``voids`` (the first tables of the deals voided
    before the accepted one, when there were) and each play's named ``value`` and
    ``declaration`` when it has them; every other record is as it was.
    """
    table, deals = deals_from_deck(rules, log.deck, log.dealer)
    deal_objs: list[dict[str, Any]] = []
    for d, hands in enumerate(deals):
        obj: dict[str, Any] = {}
        if d == 0:
            obj["table"] = [card_name(c) for c in table]
        obj["hands"] = [[card_name(c) for c in h] for h in hands]
        deal_objs.append(obj)
    opening = opening_of(rules, log.dealer, table, deals)
    extra: dict[str, Any] = {}
    if opening:
        extra["opening"] = [card_name(c) for c in table if c in opening]
    voids: dict[str, Any] = {}
    if log.voids:
        voids["voids"] = [[card_name(c) for c in CardSet(t)] for t in log.voids]
    metas = log.metas or (0,) * len(log.plays)
    return {
        "format": FORMAT,
        "rules": rules.complete_dict(),
        "match": log.match,
        "hand": log.hand,
        "dealer": log.dealer,
        "totals_before": list(log.totals_before),
        **voids,
        "deals": deal_objs,
        **extra,
        "plays": [
            _play_obj(seat, card, take, meta)
            for (seat, card, take), meta in zip(log.plays, metas, strict=True)
        ],
        "score": score_dicts(rules, log.score),
        "totals_after": list(log.totals_after),
        "winner": log.winner,
    }


def write_records(out: TextIO, rules: Rules, logs: Iterable[HandLog]) -> int:
    """Write the hands ``logs`` (played under ``rules``) to ``out`` as JSON lines, one
    record a hand (:func:`hand_record`); return how many."""
    n = 0
    for log in logs:
        out.write(json.dumps(hand_record(rules, log), separators=(",", ":")) + "\n")
        n += 1
    return n


# --------------------------------------------------------------------------- checking
@dataclass(repr=False)
class ReplaySummary:
    """What a valid (or partly valid) file holds: its ``lines``, ``hands``, ``matches``
    (``finished_matches`` of them played to the end), the matches each side ``wins``,
    the ``scope`` and ``plays`` made, and the ``errors`` found (line number, message)."""

    lines: int = 0
    hands: int = 0
    matches: int = 0
    finished_matches: int = 0
    wins: dict[int, int] = field(default_factory=dict)
    scope: int = 0
    plays: int = 0
    errors: list[tuple[int, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether every record replayed without an error."""
        return not self.errors

    def __repr__(self) -> str:
        """``ReplaySummary(5 lines, 5 hands, 1 match(es) (1 finished), ...: valid)``."""
        wins = ", ".join(f"side {s} {n}" for s, n in sorted(self.wins.items())) or "none"
        if self.ok:
            verdict = "valid"
        else:
            line, message = self.errors[0]
            verdict = f"{len(self.errors)} error(s), first: line {line}: {message[:80]}"
        return (f"ReplaySummary({self.lines:,} lines, {self.hands:,} hands, {self.matches:,} "
                f"match(es) ({self.finished_matches:,} finished), wins {wins}, {self.scope:,} "
                f"scope, {self.plays:,} plays: {verdict})")  # fmt: skip

    def _repr_html_(self) -> str:
        """The counts and the first errors as a table."""
        import html

        rows = [("lines", f"{self.lines:,}"), ("hands", f"{self.hands:,}"),
                ("matches", f"{self.matches:,} ({self.finished_matches:,} finished)"),
                *((f"side {s} wins", f"{n:,}") for s, n in sorted(self.wins.items())),
                ("scope", f"{self.scope:,}"), ("plays", f"{self.plays:,}"),
                *((f"error, line {n}", message) for n, message in self.errors[:10])]  # fmt: skip
        body = "".join(
            f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in rows
        )
        title = "scopa-sim replay: " + ("valid" if self.ok else f"{len(self.errors)} error(s)")
        return f"<div class='scopa-sim'><b>{title}</b><table>{body}</table></div>"


@dataclass
class _MatchCursor:
    rules: Rules
    match: int
    hand: int
    dealer: int
    totals: list[int]
    winner: int | None


def _int(obj: dict[str, Any], key: str) -> int:
    if key not in obj:
        raise RecordError(f"missing field {key!r}")
    v = obj[key]
    if not isinstance(v, int) or isinstance(v, bool):
        raise RecordError(f"field {key!r} must be an integer, got {v!r}")
    return v


def _list(obj: Any, what: str) -> list[Any]:
    if not isinstance(obj, list):
        raise RecordError(f"{what} must be a list, got {obj!r}")
    return obj


def _cards(obj: Any, what: str) -> list[Card]:
    out = []
    for c in _list(obj, what):
        if not isinstance(c, str):
            raise RecordError(f"{what}: {c!r} is not a card")
        card = parse_card(c)
        if card in out:
            raise RecordError(f"{what}: card {c} is listed twice")
        out.append(card)
    return out


def _int_list(obj: dict[str, Any], key: str, n: int) -> list[int]:
    if key not in obj:
        raise RecordError(f"missing field {key!r}")
    v = _list(obj[key], key)
    if len(v) != n or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        raise RecordError(f"field {key!r} must be {n} integers (one per side), got {v!r}")
    return v


def check_hand(obj: Any, prev: _MatchCursor | None) -> tuple[_MatchCursor, HandState]:
    """Check one record ``obj`` (a decoded JSON line) against its rules and the match so
    far (``prev``: the cursor after the previous hand of the file, None for the first);
    return the cursor after it and the finished hand.

    Raises:
        RecordError: a record that breaks the rules or does not follow the match so far.
    """
    rules, match, hand, dealer, before = _header(obj)
    _check_continuity(prev, rules, match, hand, dealer, before)
    state, after, winner = _check_content(obj, rules, dealer, before)
    return _MatchCursor(rules, match, hand, dealer, after, winner), state


def check_record(obj: Any) -> HandState:
    """Check one record on its own, as :func:`check_hand` does but without the match
    around it (a hand taken out of its file, as the board shows one): header, deals,
    plays, score and totals; raise RecordError (or CardError, ValueError). Returns the
    finished hand.

    Raises:
        RecordError: a record that breaks the rules.
        CardError: a card that is not one.
    """
    rules, _match, _hand, dealer, before = _header(obj)
    state, _after, _winner = _check_content(obj, rules, dealer, before)
    return state


def _header(obj: Any) -> tuple[Rules, int, int, int, list[int]]:
    """Format, rules, match, hand, dealer and totals_before of a record."""
    if not isinstance(obj, dict):
        raise RecordError("a record must be a JSON object")
    if obj.get("format") != FORMAT:
        raise RecordError(f"format is {obj.get('format')!r}, expected {FORMAT!r}")
    if "rules" not in obj:
        raise RecordError("missing field 'rules'")
    try:
        rules = Rules.from_dict(obj["rules"])
    except RulesError as e:
        raise RecordError(f"rules: {e}") from None
    match, hand, dealer = _int(obj, "match"), _int(obj, "hand"), _int(obj, "dealer")
    before = _int_list(obj, "totals_before", rules.sides)
    if not 0 <= dealer < rules.players:
        raise RecordError(f"dealer {dealer} is not a seat 0..{rules.players - 1}")
    return rules, match, hand, dealer, before


def _check_continuity(
    prev: _MatchCursor | None, rules: Rules, match: int, hand: int, dealer: int, before: list[int]
) -> None:
    """The record follows the previous one: next hand of its match, or a new match."""
    n = rules.players
    if prev is None or prev.winner is not None:
        expected_match = 0 if prev is None else prev.match + 1
        if match != expected_match or hand != 0:
            raise RecordError(
                f"expected match {expected_match} hand 0 (a new match), got match {match} "
                f"hand {hand}"
            )
        if any(before):
            raise RecordError(f"a match starts with totals 0, got totals_before {before}")
        return
    if match != prev.match or hand != prev.hand + 1:
        raise RecordError(
            f"expected match {prev.match} hand {prev.hand + 1} (the match has no winner "
            f"yet), got match {match} hand {hand}"
        )
    if rules != prev.rules:
        raise RecordError("rules changed within a match")
    if dealer != (prev.dealer + 1) % n:
        raise RecordError(f"dealer should be {(prev.dealer + 1) % n} (the next seat), got {dealer}")
    if before != prev.totals:
        raise RecordError(
            f"totals_before {before} differ from the previous totals_after {prev.totals}"
        )


def _deals(obj: dict[str, Any]) -> tuple[list[Card], list[list[list[Card]]]]:
    """The table and the deals of a record (their cards checked against the deck later)."""
    deals_raw = _list(obj.get("deals"), "deals")
    if not deals_raw:
        raise RecordError("deals is empty")
    table: list[Card] = []
    deals: list[list[list[Card]]] = []
    for d, deal in enumerate(deals_raw):
        if not isinstance(deal, dict):
            raise RecordError(f"deal {d} must be an object")
        if d == 0:
            table = _cards(deal.get("table"), "deal 0 table")
        elif "table" in deal:
            raise RecordError(f"deal {d} has a table; only the first deal has one")
        hands = _list(deal.get("hands"), f"deal {d} hands")
        deals.append([_cards(h, f"deal {d} hand") for h in hands])
    return table, deals


def _play(i: int, p: Any, rules: Rules) -> Play:
    """Play ``i`` of a record's ``plays``: its card and what it takes, and in Cirulla
    (docs/rules.md §11) the ``value`` named for the matta and the ``declaration``'s
    points, strictly read (whether they are legal shows when the play is made)."""
    if not isinstance(p, dict):
        raise RecordError(f"play {i} must be an object")
    if not isinstance(p.get("card"), str):
        raise RecordError(f"play {i}: missing or malformed 'card'")
    card = parse_card(p["card"])
    take = CardSet(_cards(p.get("take"), f"play {i} take"))
    if rules.capture_mode != "cirulla":  # the fields are Cirulla's: elsewhere unknown, ignored
        return Play(card, take.mask)
    value, declaration = p.get("value", 0), p.get("declaration", 0)
    for key, v, allowed, text in (
        ("value", value, range(1, 11), "1..10"),
        ("declaration", declaration, (3, 10), "3, 10"),
    ):
        if key in p and (type(v) is not int or v not in allowed):
            raise RecordError(f"play {i}: bad {key} {v!r}; allowed: {text}")
    if value and rules.matta != "play":
        raise RecordError(
            f"play {i}: a value is named only under matta=play, the rules have matta={rules.matta}"
        )
    try:
        return Play(card, take.mask, value, declaration)
    except CardError as e:
        raise RecordError(f"play {i}: {e}") from None


def _plays(obj: dict[str, Any], state: HandState) -> Iterator[tuple[HandState, Play]]:
    """Each play of a record, checked to be the seat's turn, well formed and legal, with
    the state before it; the play is made once the caller has looked at the state."""
    plays = _list(obj.get("plays"), "plays")
    for i, p in enumerate(plays):
        if state.is_over:
            raise RecordError(f"play {i}: the hand is already over")
        if not isinstance(p, dict):
            raise RecordError(f"play {i} must be an object")
        seat = _int(p, "seat")
        if seat != state.turn:
            raise RecordError(f"play {i}: seat {seat} played but it is seat {state.turn}'s turn")
        play = _play(i, p, state.rules)
        yield state, play
        try:
            state.push(play)
        except IllegalPlayError as e:
            raise RecordError(f"play {i}: {e}") from None
    if not state.is_over:
        raise RecordError(f"the hand is unfinished after {len(plays)} plays")


def _check_content(
    obj: dict[str, Any], rules: Rules, dealer: int, before: list[int]
) -> tuple[HandState, list[int], int | None]:
    """Deals, plays, score, totals and winner of a record; the final state, the totals
    after the hand and the winner."""
    table, deals = _deals(obj)
    _check_voids(obj, rules)
    state = HandState.from_deals(rules, dealer, table, deals)
    _check_opening(obj, rules, state)
    for _ in _plays(obj, state):
        pass
    _check_score(obj, rules, state, before)
    after = _int_list(obj, "totals_after", rules.sides)
    piles = [p.mask for p in state.piles]
    winner = match_winner(rules, after, piles)
    if "winner" not in obj:
        raise RecordError("missing field 'winner'")
    given = obj["winner"]
    if not (given is None or (isinstance(given, int) and not isinstance(given, bool))):
        raise RecordError(f"winner must be a side number or null, got {given!r}")
    if given != winner:
        raise RecordError(f"winner is {obj['winner']!r}, the totals give {winner!r}")
    return state, after, winner


def _opening(obj: dict[str, Any]) -> CardSet:
    """The ``opening`` field of a record: a list of cards; absent or ``[]`` is none."""
    return CardSet(_cards(obj["opening"], "opening")) if "opening" in obj else CardSet()


def _check_voids(obj: dict[str, Any], rules: Rules) -> None:
    """A Cirulla record's ``voids`` (docs/rules.md §11): each a first table the rules void
    (two or more aces with ``aces_redeal``, three or more kings with ``kings_redeal``).
    Elsewhere the field is unknown, so ignored; the accepted table is checked with the
    deals (:meth:`HandState.from_deals`)."""
    if rules.capture_mode != "cirulla" or "voids" not in obj:
        return
    for k, raw in enumerate(_list(obj["voids"], "voids")):
        table = CardSet(_cards(raw, f"void deal {k}"))
        if len(table) != rules.table_cards:
            raise RecordError(
                f"void deal {k} has {len(table)} table cards, the rules deal {rules.table_cards}"
            )
        if table.mask & ~rules.deck_mask:
            raise RecordError(
                f"void deal {k}: {CardSet(table.mask & ~rules.deck_mask)} not in the deck"
            )
        aces = sum(1 for c in table if c % 10 == 0)
        kings = sum(1 for c in table if c % 10 == 9)
        if not ((rules.aces_redeal and aces >= 2) or (rules.kings_redeal and kings >= 3)):
            why = [
                f"aces_redeal={str(rules.aces_redeal).lower()}",
                f"kings_redeal={str(rules.kings_redeal).lower()}",
            ]
            raise RecordError(
                f"void deal {k}: the table [{table}] is not void ({plural(aces, 'ace')}, "
                f"{plural(kings, 'king')}; {', '.join(why)})"
            )


def _check_opening(obj: dict[str, Any], rules: Rules, state: HandState) -> None:
    """The record's ``opening`` is what the rules take from its first table."""
    given = _opening(obj)
    want = state.opening if takes_opening(rules) else CardSet()
    if given == want:
        return
    if rules.capture_mode == "cirulla":
        _opening_count_error(given, want, rules, state)
    if not want and not rules.opening_fifteen:
        raise RecordError(f"opening is [{given}] but the rules have opening_fifteen=false")
    if not want:
        raise RecordError(
            f"opening is [{given}] but the first table is not taken at the opening (it makes "
            "neither fifteen nor two fifteens)"
        )
    if not given:
        raise RecordError(
            f"opening is missing: the {rules.opening_taker_name} side takes the first table "
            f"[{want}] at the opening (opening_fifteen=true)"
        )
    raise RecordError(f"opening is [{given}], the rules take [{want}] (the whole first table)")


def _check_score(obj: dict[str, Any], rules: Rules, state: HandState, before: list[int]) -> None:
    sides = rules.sides
    score = _list(obj.get("score"), "score")
    expected = state.score()
    if len(score) != sides:
        raise RecordError(f"score must have one entry per side ({sides}), got {len(score)}")
    for s, (got, want) in enumerate(zip(score, expected, strict=True)):
        if not isinstance(got, dict):
            raise RecordError(f"score of side {s} must be an object")
        for item in score_items(rules):
            if type(got.get(item)) is not int or got[item] != want[item]:
                raise RecordError(
                    f"score of side {s}: {item} is {got.get(item)!r}, the plays give {want[item]}"
                )
    after = _int_list(obj, "totals_after", sides)
    want_after = [b + e["total"] for b, e in zip(before, expected, strict=True)]
    if after != want_after:
        raise RecordError(f"totals_after is {after}, expected {want_after}")


def _opening_count_error(given: CardSet, want: CardSet, rules: Rules, state: HandState) -> None:
    """Raise the RecordError of a Cirulla record whose ``opening`` is not what
    ``opening_count`` (docs/rules.md §11) takes: the table adding up to 15 or 30."""
    table = want or state.table
    wild = rules.matta != "none" and MATTA in table
    adds = f"adds up to {table.value_sum()}"
    if wild:
        base = (table - CardSet([MATTA])).value_sum()
        adds += f" (the matta {card_name(MATTA)} as any value: {base + 1}..{base + 10})"
    if not rules.opening_count:
        raise RecordError(f"opening is [{given}] but the rules have opening_count=false")
    if not want:
        raise RecordError(
            f"opening is [{given}] but the first table [{table}] {adds}, neither 15 nor 30: "
            "no opening count"
        )
    if not given:
        raise RecordError(
            f"opening is missing: the first table [{table}] {adds}, so the dealer's side "
            "takes it at the opening count (opening_count=true)"
        )
    raise RecordError(f"opening is [{given}], the rules take [{want}] (the whole first table)")


# --------------------------------------------------------------------------- decoding
def decode_hand(obj: Any) -> tuple[HandState, list[Play]]:
    """A hand record as the position at its deal and its plays in order: the one way a
    record becomes positions (``advise --position``, ``review``).

    The header, the deals and the plays are read strictly, as :func:`check_lines` reads
    them (a :class:`RecordError` naming the field), and the deals are checked against the
    rules (:meth:`HandState.from_deals`). Whether each play is legal shows when the
    caller makes it (:meth:`HandState.push` raises IllegalPlayError). The state carries
    the match totals before the hand (a bot playing for the match reads them).

    Raises:
        RecordError: a bad header, deal or play field, or deals the rules do not make.
    """
    rules, _match, _hand, dealer, before = _header(obj)
    table, deals = _deals(obj)
    state = HandState.from_deals(rules, dealer, table, deals, match_totals=before)
    plays = [_play(i, p, rules) for i, p in enumerate(_list(obj.get("plays"), "plays"))]
    return state, plays


def position_from_record(spec: str) -> HandState:
    """``FILE.jsonl:LINE:PLAY``: the state before play number PLAY (0-based) of the hand
    on line LINE (1-based, as ``replay`` numbers them) of a game record file, with the
    record's match totals before the hand (:func:`decode_hand`).

    Every way this can fail (no such file, a directory, a binary file, a line or play
    out of range, a line that is not a valid record) is a :class:`PositionError`.

    Raises:
        PositionError: as said above, for every way it can fail.
    """
    form = f"position {spec!r}: expected FILE.jsonl:LINE:PLAY (LINE from 1, PLAY from 0)"
    parts = spec.rsplit(":", 2)
    if len(parts) != 3 or not parts[0]:
        raise PositionError(form)
    path, line_s, play_s = parts
    if not (line_s.strip().isdecimal() and play_s.strip().isdecimal()):
        raise PositionError(form)
    line_no, play_no = int(line_s), int(play_s)
    text = _record_line(path, line_no)
    try:
        state, plays = decode_hand(json.loads(text))
        if not 0 <= play_no < len(plays):
            last = f"0..{len(plays) - 1}" if plays else "none"
            raise PositionError(f"the hand has plays {last}, not {play_no}")
        for play in plays[:play_no]:
            state.push(play)
    except ScopaError as e:
        raise PositionError(f"position: line {line_no}: {e}") from None
    except (
        ValueError,
        KeyError,
        TypeError,
        IndexError,
        AttributeError,
        RecursionError,
        OverflowError,
    ):
        # json.JSONDecodeError is a ValueError; the rest are fields of the wrong type
        raise PositionError(
            f"position: line {line_no} of {path} is not a scopa-record/1 game record"
        ) from None
    return state


def _record_line(path: str, line_no: int) -> str:
    """Line ``line_no`` (1-based) of a record file, for a position of a record (read up
    to that line); a PositionError for a file that is missing, not a regular file, not
    text, or too short."""
    shown = shown_path(path)
    count = 0
    try:
        with open_record(path) as (stream, _):
            for count, line in enumerate(iter_lines(stream), start=1):
                if count == line_no:
                    return line
    except (FileError, RecordError) as e:  # RecordError: not text, or a line too long
        raise PositionError(f"position: {e}") from None
    if count == 0:
        raise PositionError(f"position: {shown} is empty")
    raise PositionError(f"position: {shown} has lines 1..{count}, not {line_no}")


# --------------------------------------------------------------------------- showing
def show_hand(obj: Any) -> list[str]:
    """A game record as lines a person can follow: the deals, then each play (seat, its
    hand before the play, the card, what it takes, a scopa, the table after), the end
    of the hand, the score and the totals.

    The record is checked on its own first (rules, deals, legal plays, score, totals,
    winner; not its place in a match), so what is shown is what the rules make of it;
    a record that fails raises :class:`RecordError`.

    Raises:
        RecordError: a record that fails the check, or holds a number too large.
    """
    rules, match, hand, dealer, before = _header(obj)
    try:
        _state, after, winner = _check_content(obj, rules, dealer, before)
    except OverflowError as e:  # a number beyond what the kernels hold (int64)
        raise RecordError(f"a number is too large: {e}") from None
    table, deals = _deals(obj)
    state = HandState.from_deals(rules, dealer, table, deals)
    n, name = rules.players, rules.preset_name() or "custom rules"
    side_word = "team" if rules.teams else "side"

    def seat_label(seat: int) -> str:
        return f"seat {seat} ({side_word} {rules.side_of(seat)})" if rules.teams else f"seat {seat}"

    def cards(cs: CardSet | Sequence[Card]) -> str:
        text = str(cs if isinstance(cs, CardSet) else CardSet(list(cs)))
        return text or "-"

    out = [
        f"match {match}, hand {hand}: {name} ({rules.digest()}), {n} players, dealer seat "
        f"{dealer}, totals before {_totals(before)}",
        f"table: {cards(table)}",
    ]
    width = max(len(cards(h)) for d in deals for h in d) + 2

    def deal_line(d: int) -> str:
        seats = [(dealer + 1 + j) % n for j in range(n)]
        return f"deal {d + 1}: " + ", ".join(f"seat {s} [{cards(deals[d][s])}]" for s in seats)

    voids = obj.get("voids") if rules.capture_mode == "cirulla" else None
    if voids:  # checked above
        shown_voids = ", ".join(f"[{cards(_cards(t, 'void deal'))}]" for t in voids)
        out.insert(1, f"void deals before this one (first tables): {shown_voids}")
    out.append(deal_line(0))
    if takes_opening(rules) and state.opening:
        out.append(opening_line(rules, dealer, state.opening, state.opening_scope))
    dealt, held_after = 1, sum(len(h) for h in state.hands)
    last_pile = [p.mask for p in state.piles]
    remainder = CardSet()
    for number, (st, play) in enumerate(_plays(obj, state), start=1):
        held = sum(len(h) for h in st.hands)
        if held > held_after and dealt < len(deals):  # the hands were dealt again
            out.append(deal_line(dealt))
            dealt += 1
        held_after = held - 1
        seat, before_hand, before_table = st.turn, st.hand(st.turn), st.table
        last_pile = [p.mask for p in st.piles]
        result = st.push(play)
        st.pop()
        take = CardSet(play.take)
        played = str(Play(play.card, 0, play.value))  # with the matta's named value
        if take:
            what = f"{played} takes {cards(take)}"
            remainder = before_table - take
        else:
            what = f"{played} is laid"
            remainder = before_table | CardSet([play.card])
        if play.declaration:
            what = f"declares {play.declaration}, {what}"
        marks = " SCOPA" if result.scopa else ""
        marks += " (ace sweep)" if result.ace_sweep else ""
        hand_text = f"[{cards(before_hand)}]"
        out.append(
            f"  {number:>2}. {seat_label(seat)} {hand_text:<{width}} {what:<24} "
            f"table [{remainder!s}]{marks}"
        )
    end = state
    gained = [CardSet(p.mask & ~m) for p, m in zip(end.piles, last_pile, strict=True)]
    if remainder:
        extra = [s for s, g in enumerate(gained) if (g & remainder)]
        why = "the last to capture" if rules.remainder_to == "last_capturer" else "the dealer's"
        who = f"go to {side_word} {extra[0]} ({why})" if extra else "go to nobody (no capture)"
        out.append(f"end of hand: the cards left on the table, {cards(remainder)}, {who}")
    score = end.score()
    out.append("score:")
    for s, items in enumerate(score):
        parts = ", ".join(f"{k} {v}" for k, v in items.items() if k != "total" and v)
        out.append(
            f"  {side_word} {s}: {plural(items['total'], 'point')}"
            + (f" ({parts})" if parts else "")
            + f", {plural(len(end.piles[s]), 'card')} captured"
        )
    result_text = f"winner: {side_word} {winner}" if winner is not None else "no winner yet"
    out.append(f"totals after: {_totals(after)}; {result_text}")
    return out


def opening_line(rules: Rules, dealer: int, opening: CardSet, scope: int = 0) -> str:
    """``opening: ...``: what the dealer's side (or the first player's, by
    ``opening_fifteen_to``) took at the deal by ``opening_fifteen`` (one scopa for a table
    of fifteen, two for two fifteens: docs/rules.md §9) or Cirulla's ``opening_count``
    (``scope``, the state's :attr:`~HandState.opening_scope`: 15 or 30, §11)."""
    side_word = "team" if rules.teams else "side"
    if rules.capture_mode == "cirulla":
        what = "adds up to " + ("15" if scope == 1 else "30")
    else:
        scope = opening.value_sum() // 15
        what = "makes " + ("fifteen" if scope == 1 else "two fifteens")
    marks = "SCOPA" if scope == 1 else f"SCOPA x{scope}"
    side = rules.side_of(rules.opening_seat(dealer))
    return (
        f"opening: the table {what}, {side_word} {side} (the "
        f"{rules.opening_taker_name}) takes {opening} {marks}"
    )


def _totals(values: Sequence[int]) -> str:
    return "-".join(str(v) for v in values)


def check_lines(lines: Iterable[str], allow_unfinished: bool = False) -> ReplaySummary:
    """Check every line of a record file; collect ``(line, reason)`` for each violation.

    Args:
        lines: the lines of the file, without their newlines.
        allow_unfinished: accept a last match that is not played to its end.

    Returns:
        The :class:`ReplaySummary` (its ``errors`` empty when every line is valid).
    """
    summary = ReplaySummary()
    prev: _MatchCursor | None = None
    last_line = 0
    blank: list[int] = []  # blank lines not yet followed by a record: fine at the end
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            blank.append(lineno)
            continue
        summary.errors.extend((b, "empty line") for b in blank)
        blank.clear()
        summary.lines = lineno
        last_line = lineno
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            summary.errors.append((lineno, f"malformed JSON: {e.msg} (column {e.colno})"))
            prev = None if prev is None else _skip(prev)
            continue
        except RecursionError:  # json.loads on very deeply nested arrays or objects
            summary.errors.append((lineno, "malformed JSON: nested too deeply"))
            prev = None if prev is None else _skip(prev)
            continue
        try:
            cur, state = check_hand(obj, prev)
        except (RecordError, CardError, ValueError) as e:
            summary.errors.append((lineno, str(e)))
            prev = _resync(obj, prev)
            continue
        except OverflowError as e:  # a number beyond what the kernels hold (int64)
            summary.errors.append((lineno, f"a number is too large: {e}"))
            prev = _resync(obj, prev)
            continue
        summary.hands += 1
        summary.plays += state.plays_made
        summary.scope += sum(state.scope)
        if cur.hand == 0:
            summary.matches += 1
        if cur.winner is not None:
            summary.finished_matches += 1
            summary.wins[cur.winner] = summary.wins.get(cur.winner, 0) + 1
        prev = cur
    if summary.lines == 0:
        summary.errors.append((0, "the file holds no records"))
    elif prev is not None and prev.winner is None and not allow_unfinished:
        summary.errors.append(
            (last_line, "the file ends inside a match (the last hand has no winner)")
        )
    return summary


def _skip(prev: _MatchCursor) -> _MatchCursor:
    """After an unreadable line, assume it was the next hand of the same match."""
    return _MatchCursor(prev.rules, prev.match, prev.hand + 1, prev.dealer + 1, prev.totals, None)


def _resync(obj: Any, prev: _MatchCursor | None) -> _MatchCursor | None:
    """After an invalid record, continue checking from what the record claims."""
    try:
        rules = Rules.from_dict(obj["rules"])
        sides = rules.sides
        return _MatchCursor(
            rules,
            int(obj["match"]),
            int(obj["hand"]),
            int(obj["dealer"]),
            [int(x) for x in obj["totals_after"]][:sides],
            obj.get("winner"),
        )
    except Exception:
        return None if prev is None else _skip(prev)


#: The longest line a record file may have, in characters: a hand's record is a few
#: kilobytes; a longer line (a device such as ``/dev/zero``, a binary file) is refused
#: instead of being read without end.
MAX_LINE = 1 << 20


def iter_lines(stream: TextIO, limit: int = MAX_LINE) -> Iterator[str]:
    """Lines of a text stream without their newline, each read with a bound: a line
    longer than ``limit`` characters is a :class:`RecordError`.

    Raises:
        RecordError: a line longer than ``limit`` characters.
    """
    lineno = 0
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        lineno += 1
        if len(line) > limit and not line.endswith("\n"):
            raise RecordError(
                f"line {lineno} is longer than {limit:,} characters: not a scopa-record/1 line"
            )
        yield line.rstrip("\n")


@contextlib.contextmanager
def open_record(
    path: str | os.PathLike[str], *, regular_only: bool = True, limit: int | None = None
) -> Iterator[tuple[TextIO, str]]:
    """A game record file opened for reading, with the name its errors show: the one
    reader of record files (``~`` expanded; UTF-8, a BOM dropped). The errors of opening
    it, and of reading it within the ``with`` block, are the project's, in one wording.

    Args:
        path: the file.
        regular_only: refuse anything but a regular file at once (a named pipe or a
            device is never waited on); ``False`` lets a command read a pipe it is given.
        limit: the most bytes the file may have (a regular file's size), or no bound.

    Raises:
        FileError: no such file, not a regular file (with ``regular_only``), over
            ``limit`` bytes, a path that cannot name a file, or a file that cannot be read.
        RecordError: a file that is not UTF-8 text (raised where it is read).
    """
    text = os.fspath(path)
    shown = shown_path(text)
    try:
        full = Path(text).expanduser() if text.startswith("~") else Path(text)
    except RuntimeError:  # ~user of no such user
        raise FileError(f"no such file: {shown}") from None
    try:
        stream = open_regular(full, limit) if regular_only else open(full, encoding="utf-8-sig")  # noqa: SIM115 - closed below
    except FileError:  # open_regular's: not a regular file, too large, a bad path
        raise
    except FileNotFoundError:
        raise FileError(f"no such file: {shown}") from None
    except IsADirectoryError:  # as open_regular words it
        raise FileError(f"{shown} is a directory, not a regular file") from None
    except (ValueError, UnicodeError):  # a NUL or a lone surrogate, unchecked by open()
        raise FileError("the path cannot name a file (a NUL or an invalid character)") from None
    except OSError as e:
        raise FileError(f"cannot read {shown}: {e.strerror or type(e).__name__}") from None
    with stream:
        try:
            yield stream, shown
        except UnicodeDecodeError:
            raise RecordError(
                f"{shown}: not a text (UTF-8) file, so not a scopa-record/1 file"
            ) from None
        except OSError as e:
            raise FileError(f"cannot read {shown}: {e.strerror or type(e).__name__}") from None


def read_record_lines(
    path: str | os.PathLike[str], *, regular_only: bool = True, limit: int | None = None
) -> list[str]:
    """The lines of a game record file (:func:`open_record`, :func:`iter_lines`), not
    checked (:func:`check_lines` does).

    Raises:
        FileError: as :func:`open_record`.
        RecordError: a file that is not UTF-8 text, or a line too long for a record.
    """
    with open_record(path, regular_only=regular_only, limit=limit) as (stream, _):
        return list(iter_lines(stream))
