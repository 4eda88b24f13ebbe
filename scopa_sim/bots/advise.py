"""The position advisor: a player's view of a position, from the cards it knows (a
position in a game record is decoded by :func:`scopa_sim.records.record.position_from_record`).

The advisor only needs the deciding seat's information set; to reuse the engine it
builds one concrete state consistent with it (hidden cards dealt in card order),
and the search bots then see nothing but the information set of that seat.

A perfect-information bot (the ``solver``) sees every card instead, so its answer is
the value of one layout of the hidden cards, not of the seat's position: the advisor
deals it one layout drawn from the seat's information set with the seed (or, for a
position taken from a game record, the recorded one) and says which
(:class:`Layout`); only where the information set is one world (no hidden cards) is
its answer exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from scopa_sim._engine import determinize as KD
from scopa_sim.bots.base import Bot, PlayStats
from scopa_sim.bots.registry import PolicySpec, search_policies
from scopa_sim.errors import PolicyError, PositionError
from scopa_sim.files import json_number
from scopa_sim.game.cards import CardSet, card_name
from scopa_sim.game.infoset import InfoSet
from scopa_sim.game.play import Play
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import HandState, check_match_totals
from scopa_sim.game.worlds import deal_hidden
from scopa_sim.wording import plural

#: :attr:`Layout.kind`: the position has no hidden cards (the seat's information set is
#: one world), one layout was drawn from it with the seed, or the record's was used.
LAYOUT_KINDS = ("none", "sampled", "recorded")


@dataclass(frozen=True)
class Layout:
    """The hidden cards a perfect-information answer was computed for: ``kind`` (one of
    :data:`LAYOUT_KINDS`), the ``seed`` it was drawn with (``sampled`` only), each other
    seat's hand and the stock in dealing order (next card first)."""

    kind: str
    seed: int | None
    hands: tuple[tuple[int, str], ...]
    stock: tuple[str, ...]

    @property
    def exact(self) -> bool:
        """Whether the answer is the position's own (no hidden cards)."""
        return self.kind == "none"

    def cards(self) -> str:
        """The layout in words: ``seat 1 holds [..]; stock (next first) [..]``."""
        hands = "; ".join(f"seat {s} holds [{h}]" for s, h in self.hands)
        stock = " ".join(self.stock) if self.stock else "empty"
        return f"{hands or 'no other hand holds cards'}; stock (next card first) [{stock}]"

    def sentence(self, policy: str, cut: bool = False) -> str:
        """One line saying what kind of answer ``policy`` gave (``cut``: its search
        stopped at a depth, so even a position without hidden cards is estimated)."""
        if self.exact:
            return (
                f"{policy} sees every card; here no card is hidden from you (your "
                f"information set is one layout: {self.cards()}), so its values are "
                + ("exact up to its depth, estimated past it" if cut else "exact")
            )
        if self.kind == "recorded":
            how = "the layout recorded in the game"
        else:
            how = f"one layout drawn at random from what you know (seed {self.seed})"
        return (
            f"{policy} is a perfect-information answer: it saw {how}: {self.cards()}. "
            "Its values are that layout's, not your expected margins (another layout can "
            "rank the plays otherwise)"
        )

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: the kind, exactness, seed, each other seat's hand and the stock."""
        return {
            "layout": self.kind,
            "exact": self.exact,
            "seed": self.seed,
            "hands": {str(s): h for s, h in self.hands},
            "stock": list(self.stock),
        }


def _layout(state: HandState, kind: str, seed: int | None) -> Layout:
    seat = state.turn
    hands = tuple((s, str(state.hand(s))) for s in range(state.players) if s != seat)
    return Layout(kind, seed, hands, tuple(card_name(c) for c in state.stock))


def perfect_information_world(
    state: HandState, seed: int, recorded: bool = False
) -> tuple[HandState, Layout]:
    """The state a perfect-information bot is to search for the seat to play, and its
    :class:`Layout`: ``state`` itself when the seat's information set is one world (no
    hidden cards) or when ``recorded`` (a position of a game record: its true layout),
    else one world drawn uniformly from the information set with ``seed`` (Cirulla: the
    hands shown by declarations kept, :func:`scopa_sim.game.worlds.deal_hidden`)."""
    if state.rules.capture_mode == "cirulla":
        return _cirulla_world(state, seed, recorded)
    if KD.single_world(state._vec, state._r, state.turn):
        return state, _layout(state, "none", None)
    if recorded:
        return state, _layout(state, "recorded", None)
    world = InfoSet(state).sample(seed)
    return world, _layout(world, "sampled", seed)


def _cirulla_world(state: HandState, seed: int, recorded: bool) -> tuple[HandState, Layout]:
    """:func:`perfect_information_world` of a Cirulla position (RULES.md §10)."""
    shown = set(state.shown)
    hidden = [s for s in range(state.players) if s != state.turn and s not in shown]
    stock = len(state.stock)
    if (not hidden and stock <= 1) or (len(hidden) == 1 and stock == 0):
        return state, _layout(state, "none", None)
    if recorded:
        return state, _layout(state, "recorded", None)
    vec = deal_hidden(state, hidden, np.random.default_rng(seed))
    world = HandState(state.rules, vec, match_totals=state.match_totals)
    return world, _layout(world, "sampled", seed)


@dataclass(frozen=True)
class Advice:
    """Every legal play ranked by the bot, with the position it was asked about; for a
    perfect-information bot, the ``layout`` of the hidden cards it saw."""

    state: HandState
    seat: int
    plays: list[PlayStats]
    layout: Layout | None = None

    @property
    def chosen(self) -> Play:
        """The play the bot chose (ranked first)."""
        return next(p.play for p in self.plays if p.chosen)


def position_from_cards(
    rules: Rules,
    hand: CardSet,
    table: CardSet,
    *,
    mine: CardSet | None = None,
    theirs: CardSet | None = None,
    seen: CardSet | None = None,
    scope: tuple[int, int] = (0, 0),
    opponent_cards: int | None = None,
    totals: tuple[int, int] = (0, 0),
) -> HandState:
    """The position of seat 0 (to play) in a 2-sided game, from the cards it knows.

    ``mine``/``theirs`` are the piles of its side and of the other side, ``seen`` other
    cards out of play (captured, owner not given: they score for nobody). The other
    seats' hand sizes follow from the round (``opponent_cards`` picks between a full
    round and one where the others played first); the rest of the unseen cards are the
    stock. ``totals`` are the match points of the two sides before this hand.

    Raises:
        PositionError: rules of more than two sides, a card given twice or not in the
            deck, an empty or too large hand, an impossible scope count or position.
    """
    if rules.sides != 2:
        raise PositionError("the advisor takes positions of 2-sided games (2 players or teams)")
    mine, theirs, seen = mine or CardSet(), theirs or CardSet(), seen or CardSet()
    named = [(_WHERE[0], hand), (_WHERE[1], table), (_WHERE[2], mine)]
    named += [(_WHERE[3], theirs), (_WHERE[4], seen)]
    for i, (na, a) in enumerate(named):
        for nb, b in named[i + 1 :]:
            if a & b:
                raise PositionError(f"{_cards_are(a & b)} both {na} and {nb}")
    deck_set = rules.deck_cards
    for na, a in named:
        if a - deck_set:
            raise PositionError(f"{_cards_are(a - deck_set)} {na}: not in a {rules.deck}-card deck")
    if not hand:
        raise PositionError("the hand is empty: the seat to play holds at least one card")
    if len(hand) > rules.hand_size:
        raise PositionError(f"the hand holds {len(hand)} cards; the rules deal {rules.hand_size}")
    if any(not 0 <= s < 2**31 for s in scope):  # beyond the engine's integers: no position
        most = rules.deck // 2  # (check_scope explains smaller counts, by the position)
        raise PositionError(f"scope {scope[0]},{scope[1]}: a side has 0 to {most} scope")
    try:  # a match already won has no next hand: say so, before any hand size is tried
        check_match_totals(rules, totals)
    except ValueError as e:
        raise PositionError(str(e)) from None
    unseen = deck_set - hand - table - mine - theirs - seen
    n, k = rules.players, len(hand)
    options = [opponent_cards] if opponent_cards is not None else [k, k - 1]
    errors: list[str] = []
    scope_errors: list[str] = []  # hand sizes that fit, but scope that do not
    for other in options:
        if other is None or other < 0 or other > k or other < k - 1:
            errors.append(f"the other hands hold {k} or {k - 1} cards with {k} in the hand")
            continue
        stock_size = len(unseen) - (n - 1) * other
        if stock_size < 0 or not _stock_ok(rules, stock_size):
            errors.append(
                f"{len(unseen)} unseen cards cannot be {n - 1} hands of {other} plus a stock"
            )
            continue
        cards = unseen.cards()
        hands = [hand]
        for _ in range(n - 1):
            hands.append(CardSet(cards[:other]))
            cards = cards[other:]
        try:
            state = HandState.from_position(
                rules,
                hands=hands,
                table=table,
                piles=[mine, theirs],
                scope=list(scope),
                turn=0,
                stock=cards,
                match_totals=totals,
            )
        except ValueError as e:
            errors.append(str(e))
            continue
        try:
            check_scope(state)
        except PositionError as e:
            scope_errors.append(str(e))
            continue
        return state
    raise PositionError(f"impossible position: {(scope_errors or errors)[-1]}")


#: Where each card list of :func:`position_from_cards` lies, in its errors: the hand,
#: the table, the two piles, the other cards seen.
_WHERE = ("in the hand", "on the table", "in your side's pile", "in the other side's pile",
          "among the other cards seen")  # fmt: skip


def _cards_are(cards: CardSet) -> str:
    """``card 7D is`` or ``cards 7D 3S are``, for an error."""
    return f"card {cards} is" if len(cards) == 1 else f"cards {cards} are"


def check_scope(state: HandState) -> None:
    """Raise PositionError unless each side's scope count could have been made so far.

    A scopa is a capture, and a capture is one play of the side that moves the played
    card and at least one table card to its pile; the remainder is only taken when the
    hand is over. So a side has at most as many scope as it has made plays (the dealer's
    side, or the first player's by ``opening_fifteen_to``, two more with
    ``opening_fifteen``), and at most half as many as the cards in its
    pile (``--scope 50,0`` on an empty table at the start of a hand is impossible, not a
    50-point lead).

    Raises:
        PositionError: a side's scope count that its plays so far cannot have made.
    """
    rules, made = state.rules, state.plays_made
    # Plays go round in seat order and the seat before the one to play made the last.
    side_plays = [0] * rules.sides
    for j in range(made):
        side_plays[rules.side_of((state.turn - 1 - j) % rules.players)] += 1
    # With opening_fifteen the dealer's (or by opening_fifteen_to the first player's) side
    # may also have taken the first table at the deal: one scopa per fifteen, at most two,
    # each of at least 2 cards (docs/rules.md §9).
    opening = min(2, rules.table_cards // 2) if rules.opening_fifteen else 0
    names = ("your side", "the other side") if rules.sides == 2 else ()
    for s, (count, pile) in enumerate(zip(state.scope, state.piles, strict=True)):
        extra = opening if s == rules.side_of(rules.opening_seat(state.dealer)) else 0
        most = min(side_plays[s] + extra, len(pile) // 2)
        if count > most:
            who = names[s] if names else f"side {s}"
            also = f" plus {extra} at the opening" if extra else ""
            raise PositionError(
                f"{who} cannot have {count} scope: it has made {plural(side_plays[s], 'play')}"
                f"{also} and holds {plural(len(pile), 'captured card')}, so at most {most} (a "
                "scopa is a "
                "capture of at least 2 cards)"
            )


def _stock_ok(rules: Rules, stock: int) -> bool:
    """Whether a stock of this size is left after some deal of a hand."""
    left = rules.deck - rules.table_cards
    while left > 0:
        left -= min(left, rules.players * rules.hand_size)
        if left == stock:
            return True
    return False


def check_advisor(spec: PolicySpec) -> None:
    """A PolicyError unless ``spec`` can rank plays: a search policy (a jitted policy
    picks a play but gives no values to rank by).

    Raises:
        PolicyError: a kernel policy.
    """
    if spec.is_kernel:
        raise PolicyError(
            f"policy {spec}: the plays are ranked by a search policy "
            f"({', '.join(search_policies())}); {spec} gives no values to rank by"
        )


def advise(state: HandState, bot: Bot, seed: int, *, recorded: bool = False) -> Advice:
    """Rank every legal play of the seat to move with ``bot``.  A perfect-information bot
    (:attr:`Bot.perfect_information`) searches one layout of the hidden cards
    (:func:`perfect_information_world`; ``recorded``: ``state`` is a game record's, whose
    true layout it then sees), named in :attr:`Advice.layout`.

    Raises:
        PositionError: the hand is over (no play to advise).
    """
    bot.prepare(state.rules)
    if state.is_over:
        raise PositionError("the hand is over: there is no play to advise")
    if not bot.perfect_information:
        return Advice(state=state, seat=state.turn, plays=bot.analyse(state, seed))
    world, layout = perfect_information_world(state, seed, recorded)
    return Advice(state=state, seat=state.turn, plays=bot.analyse(world, seed), layout=layout)


def describe(state: HandState, seat: int) -> str:
    """A one-line summary of a seat's view."""
    piles = " | ".join(str(p) or "-" for p in state.piles)
    return (
        f"seat {seat} to play, hand [{state.hand(seat)}], table [{state.table or ''}], "
        f"piles [{piles}], scope {state.scope}, {len(state.stock)} cards in the stock, "
        f"{state.plays_left} plays left"
    )


def interval_kind(p: PlayStats) -> str:
    """What a play's interval is: ``exact``, ``95%`` or ``not estimated``."""
    return "exact" if p.exact else "95%" if p.estimated else "not estimated"


def advice_json(result: Advice, spec: PolicySpec, bot: Bot, seed: int) -> dict[str, Any]:
    """What ``scopa-sim advise --json`` prints for ``result`` (without ``--belief``): the
    position, what the values are, and each play's mean, interval and its kind, ``n``,
    whether it was chosen (and with ``objective=match`` its chance to win the match); the
    one form the command and the notebook API (:func:`scopa_sim.advise`) give."""
    state = result.state
    params = dict(spec.params)
    match = params.get("objective") == "match"
    horizon = params.get("horizon") is not None  # values are heuristic estimates
    win = getattr(bot, "win_probability", None)
    doc: dict[str, Any] = {
        "policy": str(spec),
        "seed": seed,
        "rules": state.rules.as_dict(),
        "seat": result.seat,
        "hand": str(state.hand(result.seat)),
        "table": str(state.table),
        "chosen": str(result.chosen),
        "values": ("match_win_points" if match else "")
        or ("horizon_estimate" if horizon else "hand_margin"),
        "match_totals": list(state.match_totals),
        "plays": [
            {
                "play": str(p.play),
                "mean_margin": json_number(p.mean),
                "ci_low": json_number(p.margin.low),
                "ci_high": json_number(p.margin.high),
                "interval": interval_kind(p),
                "n": p.n,
                "chosen": p.chosen,
                **({"p_win": json_number(win(state, p.mean))} if match and win else {}),
            }
            for p in result.plays
        ],
    }
    if result.layout is not None:
        doc["perfect_information"] = result.layout.as_dict()
    return doc


__all__ = [
    "LAYOUT_KINDS",
    "Advice",
    "Layout",
    "PositionError",
    "advice_json",
    "advise",
    "check_advisor",
    "check_scope",
    "describe",
    "interval_kind",
    "perfect_information_world",
    "position_from_cards",
]
