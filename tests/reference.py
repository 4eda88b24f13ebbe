"""Plain-Python reference implementation of the Scopa rules (docs: /work/shared/spec/RULES.md).

Standard library only, independent of ``scopa_sim``.  It is used by the test suite to
cross-check the fast engine and as the plain-Python baseline in benchmarks, so clarity
and faithfulness to RULES.md come first.

Card encoding (shared with the engine): ``card = suit * 10 + rank`` with suits
D=0 (denari), H=1, C=2, S=3 and ranks A,2,3,4,5,6,7,J,Q,K = 0..9.  Capture value is
``rank + 1``.  With ``deck=36`` the four 2s (rank index 1) are absent.

Rules are a plain dict holding every option of RULES.md section 7 (see ``DEFAULT_RULES``);
the options of section 9 (the sum-to-fifteen family) may be absent, as in rules written
before that section, and then have their defaults (``SECTION_9_DEFAULTS``).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterable, Sequence

# --------------------------------------------------------------------------- cards

RANKS = "A234567JQK"
SUITS = "DHCS"
SUIT_SYMBOLS = {"♦": "D", "♥": "H", "♣": "C", "♠": "S"}

DENARI = 0
ACE = 0
TWO = 1
SEVEN = 6
KING = 9

SETTEBELLO = 6  # 7D
RE_BELLO = 9  # KD
ACE_D, TWO_D, THREE_D = 0, 1, 2

# primiera value by rank index: A 2 3 4 5 6 7 J Q K
PRIMIERA_VALUES = (16, 12, 13, 14, 15, 18, 21, 10, 10, 10)

# sevens rule: ranks compared in this order (7, 6, 5, 4, 3, 2, A)
SEVENS_ORDER = (6, 5, 4, 3, 2, 1, 0)
# escoba_sevens (the Escoba setenta as most sevens): 7, 6, A, 5; then nobody
ESCOBA_SEVENS_ORDER = (6, 5, 0, 4)
SEVEN_CARDS = frozenset(r * 10 + 6 for r in range(4))


def card_value(card: int) -> int:
    """Capture value: A=1 .. 7=7, J=8, Q=9, K=10."""
    return card % 10 + 1


def card_rank(card: int) -> int:
    return card % 10


def card_suit(card: int) -> int:
    return card // 10


def card_str(card: int) -> str:
    """``6 -> '7D'``."""
    if not 0 <= card < 40:
        raise ValueError(f"not a card: {card!r}")
    return RANKS[card % 10] + SUITS[card // 10]


def parse_card(text: str) -> int:
    """``'7D' -> 6``.  Accepts lower case and the suit symbols; rejects 8, 9, 10."""
    s = text.strip()
    if len(s) != 2:
        raise ValueError(f"not a card: {text!r}")
    rank_ch = s[0].upper()
    suit_ch = SUIT_SYMBOLS.get(s[1], s[1].upper())
    if rank_ch not in RANKS or suit_ch not in SUITS:
        raise ValueError(f"not a card: {text!r}")
    return SUITS.index(suit_ch) * 10 + RANKS.index(rank_ch)


def parse_cards(text: str) -> list[int]:
    """``'7D AS KC' -> [6, 30, 29]`` (whitespace or comma separated)."""
    return [parse_card(t) for t in text.replace(",", " ").split()]


def make_deck(rules: dict) -> list[int]:
    """The cards of the deck in increasing order (36 cards: no 2s)."""
    if rules["deck"] == 36:
        return [c for c in range(40) if c % 10 != TWO]
    return list(range(40))


# --------------------------------------------------------------------------- rules

DEFAULT_RULES: dict = {
    "players": 2,
    "teams": False,
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
    "opening_fifteen_to": "dealer",
    "four_sevens_point": False,
}
#: The options of RULES.md §9 and the Escoba readings: rules that lack them read with these.
SECTION_9_DEFAULTS = {
    "capture_mode": "scopa",
    "capture_compulsory": True,
    "opening_fifteen": False,
    "opening_fifteen_to": "dealer",
    "four_sevens_point": False,
}

_CHOICES = {
    "players": (2, 3, 4),
    "deck": (40, 36),
    "hand_size": tuple(range(1, 11)),
    "table_cards": (0, 1, 2, 3, 4),
    "capture_rule": ("card", "hand"),
    "sum_capture": ("any", "fewest"),
    "remainder_to": ("last_capturer", "dealer"),
    "primiera": ("classic", "sevens", "escoba_sevens"),
    "primiera_missing_suit": ("exclude", "zero"),
    "napola_scoring": ("length", "fixed3"),
    "capture_mode": ("scopa", "fifteen"),
    "opening_fifteen_to": ("dealer", "first_player"),
}
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
)


def rules_with(**overrides) -> dict:
    """DEFAULT_RULES with overrides.  ``teams`` defaults to ``players == 4`` (RULES.md 7)."""
    unknown = set(overrides) - set(DEFAULT_RULES)
    if unknown:
        raise ValueError(f"unknown option(s): {sorted(unknown)}")
    rules = dict(DEFAULT_RULES)
    rules.update(overrides)
    if "teams" not in overrides:
        rules["teams"] = rules["players"] == 4
    return rules


def check_rules(rules: dict) -> None:
    """Raise ValueError for an invalid rules dict (RULES.md 3, 7 and 9).  The §9 options
    may be absent (rules of before §9): they then have their defaults."""
    rules = full_rules(rules)
    missing = set(DEFAULT_RULES) - set(rules)
    unknown = set(rules) - set(DEFAULT_RULES)
    if missing or unknown:
        raise ValueError(f"bad option keys: missing {sorted(missing)}, unknown {sorted(unknown)}")
    for key, allowed in _CHOICES.items():
        if rules[key] not in allowed or isinstance(rules[key], bool):
            raise ValueError(f"option {key}={rules[key]!r}: allowed values are {allowed}")
    for key in _BOOLS:
        if not isinstance(rules[key], bool):
            raise ValueError(f"option {key}={rules[key]!r}: allowed values are True, False")
    target = rules["target"]
    if not isinstance(target, int) or isinstance(target, bool) or target < 1:
        raise ValueError(f"option target={target!r}: allowed values are integers >= 1")
    if rules["teams"] and rules["players"] != 4:
        raise ValueError("option teams=True: allowed only with players=4")
    if rules["napola"] and rules["deck"] == 36:
        raise ValueError("option napola=True: not allowed with deck=36 (allowed deck: 40)")
    if rules["ace_sweep"] and rules["capture_mode"] == "fifteen":
        raise ValueError("option ace_sweep=True: not allowed with capture_mode=fifteen")
    if rules["opening_fifteen"] and rules["capture_mode"] != "fifteen":
        raise ValueError("option opening_fifteen=True: allowed only with capture_mode=fifteen")
    if rules["opening_fifteen"] and rules["table_cards"] == 0:
        raise ValueError("option opening_fifteen=True: not allowed with table_cards=0")
    _deal_sizes(rules)  # raises on an impossible deal


def full_rules(rules: dict) -> dict:
    """``rules`` with the §9 options it lacks at their defaults (RULES.md §9, last item)."""
    return {**SECTION_9_DEFAULTS, **rules}


def num_sides(rules: dict) -> int:
    return 2 if (rules["teams"] and rules["players"] == 4) else rules["players"]


def side_of(seat: int, rules: dict) -> int:
    return seat % 2 if (rules["teams"] and rules["players"] == 4) else seat


# --------------------------------------------------------------------------- a play


def capture_options(card: int, table: Iterable[int], rules: dict) -> list[frozenset[int]]:
    """The distinct sets of table cards ``card`` may capture (RULES.md 4, rules 1-3, or
    with ``capture_mode=fifteen`` RULES.md 9).

    Empty list if the card can only be laid.  Sorted by ``sorted(take)``.
    """
    rules = full_rules(rules)
    table = frozenset(table)
    if not table:
        return []  # an ace on an empty table is laid too
    if rules["capture_mode"] == "fifteen":
        return fifteen_captures(card, table, rules)
    rank = card % 10
    # 1. ace sweep
    if rank == ACE and rules["ace_sweep"] and all(c % 10 != ACE for c in table):
        return [table]
    # 2. match: exactly one card of the same value
    matches = sorted(c for c in table if c % 10 == rank)
    if matches:
        return [frozenset((c,)) for c in matches]
    # 3. sums of two or more cards (no single card has value v here)
    return sets_adding_to(table, rank + 1, rules)


def fifteen_captures(card: int, table: Iterable[int], rules: dict) -> list[frozenset[int]]:
    """RULES.md 9, ``capture_mode=fifteen``: every set of one or more table cards whose
    values add up to ``15 - v`` (``v`` the played card's value), with no match priority;
    with ``sum_capture=fewest`` only the sets with the fewest cards.  Sorted by
    ``sorted(take)``."""
    return sets_adding_to(frozenset(table), 15 - card_value(card), rules)


def sets_adding_to(table: frozenset[int], target: int, rules: dict) -> list[frozenset[int]]:
    """Every set of table cards whose values add up to ``target`` (only the smallest with
    ``sum_capture=fewest``), sorted by ``sorted(take)``: a plain depth-first search over
    the cards in ascending value, each either in the set or not, cut where the next value
    exceeds what is left.  It shares nothing with the engine's packed counts, and a scan
    of every subset would take 2^30 steps on the 30-card tables of the arbitrary-position
    tests.  Scopa's sums (rule 3) have no card of value ``target`` on the table, so their
    sets have two or more cards."""
    cards = sorted(table, key=lambda c: (card_value(c), c))
    values = [card_value(c) for c in cards]
    found: list[frozenset[int]] = []
    chosen: list[int] = []

    def extend(start: int, remaining: int) -> None:
        for i in range(start, len(cards)):
            if values[i] > remaining:
                break
            chosen.append(cards[i])
            if values[i] == remaining:
                found.append(frozenset(chosen))
            else:
                extend(i + 1, remaining - values[i])
            chosen.pop()

    extend(0, target)
    if found and rules["sum_capture"] == "fewest":
        fewest = min(len(s) for s in found)
        found = [s for s in found if len(s) == fewest]
    found.sort(key=sorted)
    return found


def legal_plays(
    hand: Iterable[int], table: Iterable[int], rules: dict
) -> list[tuple[int, frozenset[int]]]:
    """Every distinct legal ``(card, take)``; ``take == frozenset()`` for a lay.

    With ``capture_compulsory=false`` (RULES.md 9) every card may also be laid, whatever
    it could capture, and ``capture_rule`` has no effect.  Sorted by ``(card, sorted(take))``.
    """
    rules = full_rules(rules)
    table = frozenset(table)
    per_card = [(c, capture_options(c, table, rules)) for c in sorted(set(hand))]
    compulsory = rules["capture_compulsory"]
    any_capture = any(opts for _, opts in per_card)
    must_capture = compulsory and rules["capture_rule"] == "hand" and any_capture
    plays: list[tuple[int, frozenset[int]]] = []
    for card, opts in per_card:
        plays.extend((card, take) for take in opts)
        if not opts and not must_capture:
            plays.append((card, frozenset()))
        elif opts and not compulsory:
            plays.append((card, frozenset()))  # laid although it could capture
    plays.sort(key=lambda p: (p[0], sorted(p[1])))
    return plays


def opening_take(table: Iterable[int], rules: dict) -> tuple[frozenset[int], int]:
    """RULES.md 9, ``opening_fifteen``: what the dealer's side takes from the accepted
    first table, and how many scope that scores: the whole table and 1 when its values
    add up to 15; the whole table and 2 when it splits into two sets of 15 each; else
    nothing and 0 (a table that merely holds a set of 15 stays)."""
    rules = full_rules(rules)
    table = frozenset(table)
    if not rules["opening_fifteen"] or not table:
        return frozenset(), 0
    total = sum(card_value(c) for c in table)
    if total == 15:
        return table, 1
    if total == 30:
        cards = sorted(table)
        for size in range(1, len(cards)):
            for part in itertools.combinations(cards, size):
                if sum(card_value(c) for c in part) == 15:
                    return table, 2  # the rest adds up to 15 too
    return frozenset(), 0


def is_ace_sweep(card: int, take: Iterable[int], table: Iterable[int], rules: dict) -> bool:
    """True iff playing ``card`` taking ``take`` is the whole-table ace capture of rule 1."""
    table = frozenset(table)
    return (
        rules["ace_sweep"]
        and card % 10 == ACE
        and bool(table)
        and all(c % 10 != ACE for c in table)
        and frozenset(take) == table
    )


def is_scopa(
    card: int, take: Iterable[int], table: Iterable[int], rules: dict, last_play: bool
) -> bool:
    """Does this (legal) capture score a scopa?  ``last_play``: last card of the hand."""
    table = frozenset(table)
    take = frozenset(take)
    if not take or take != table:
        return False
    if last_play and not rules["last_play_scopa"]:
        return False
    return rules["ace_sweep_scopa"] or not is_ace_sweep(card, take, table, rules)


# --------------------------------------------------------------------------- scoring


def _best_by_suit(cards: Iterable[int]) -> list[int | None]:
    best: list[int | None] = [None, None, None, None]
    for c in cards:
        s = c // 10
        p = PRIMIERA_VALUES[c % 10]
        b = best[s]
        if b is None or p > b:
            best[s] = p
    return best


def primiera_classic(cards: Iterable[int]) -> int | None:
    """Sum of the best primiera value of each suit; None if a suit is missing."""
    best = _best_by_suit(cards)
    if any(b is None for b in best):
        return None
    return sum(best)  # type: ignore[arg-type]


def primiera_zero(cards: Iterable[int]) -> int:
    """Classic primiera with ``primiera_missing_suit=zero``: a missing suit counts 0."""
    return sum(b for b in _best_by_suit(cards) if b is not None)


def sevens_key(cards: Iterable[int], order: tuple[int, ...] = SEVENS_ORDER) -> tuple[int, ...]:
    """Counts of 7s, 6s, 5s, 4s, 3s, 2s, aces (or of the ranks of ``order``):
    lexicographically larger is better."""
    counts = [0] * 10
    for c in cards:
        counts[c % 10] += 1
    return tuple(counts[r] for r in order)


def napola_run(cards: Iterable[int]) -> int:
    """Length of the unbroken run of denari from the ace (A,2,3,...,K); 0..10."""
    denari = {c for c in cards if c // 10 == DENARI}
    n = 0
    while n < 10 and n in denari:
        n += 1
    return n


def _strict_winner(values: list) -> int | None:
    """Index of the strictly greatest value (None entries can't win); None on a tie."""
    best = None
    winner = None
    tied = False
    for i, v in enumerate(values):
        if v is None:
            continue
        if best is None or v > best:
            best, winner, tied = v, i, False
        elif v == best:
            tied = True
    return None if tied else winner


SCORE_KEYS = (
    "scope",
    "cards",
    "denari",
    "settebello",
    "primiera",
    "re_bello",
    "napola",
    "four_sevens",
)


def score_keys(rules: dict) -> tuple[str, ...]:
    """The score items of a hand under ``rules``: ``four_sevens`` only with
    ``four_sevens_point`` (RECORD.md: records of other rules lack it)."""
    if rules.get("four_sevens_point"):
        return SCORE_KEYS
    return tuple(k for k in SCORE_KEYS if k != "four_sevens")


def score_hand(piles: list[set[int]], scope: list[int], rules: dict) -> list[dict]:
    """Points of each side for one hand (RULES.md 5); one dict per side."""
    n = len(piles)
    keys = score_keys(rules)
    result = [dict.fromkeys(keys, 0) for _ in range(n)]
    for i in range(n):
        result[i]["scope"] = scope[i]

    w = _strict_winner([len(p) for p in piles])
    if w is not None:
        result[w]["cards"] = 1
    w = _strict_winner([sum(1 for c in p if c // 10 == DENARI) for p in piles])
    if w is not None:
        result[w]["denari"] = 1
    for i, p in enumerate(piles):
        if SETTEBELLO in p:
            result[i]["settebello"] = 1

    if rules["primiera"] == "sevens":
        w = _strict_winner([sevens_key(p) for p in piles])
    elif rules["primiera"] == "escoba_sevens":
        w = _strict_winner([sevens_key(p, ESCOBA_SEVENS_ORDER) for p in piles])
    elif rules["primiera_missing_suit"] == "zero":
        w = _strict_winner([primiera_zero(p) for p in piles])
    else:
        w = _strict_winner([primiera_classic(p) for p in piles])
    if w is not None:
        result[w]["primiera"] = 1

    if rules["re_bello"]:
        for i, p in enumerate(piles):
            if RE_BELLO in p:
                result[i]["re_bello"] = 1
    if rules["napola"]:
        for i, p in enumerate(piles):
            if ACE_D in p and TWO_D in p and THREE_D in p:
                result[i]["napola"] = 3 if rules["napola_scoring"] == "fixed3" else napola_run(p)
    if rules.get("four_sevens_point"):
        for i, p in enumerate(piles):
            if set(p) >= SEVEN_CARDS:
                result[i]["four_sevens"] = 1

    for r in result:
        r["total"] = sum(r[k] for k in keys)
    return result


# --------------------------------------------------------------------------- dealing


def _deal_sizes(rules: dict) -> list[int]:
    """Cards per seat of each successive deal; raises ValueError if impossible."""
    n = rules["players"]
    k = rules["hand_size"]
    deck_size = rules["deck"]
    stock = deck_size - rules["table_cards"]
    if stock < n * k:
        raise ValueError(
            f"option hand_size={k}: {rules['table_cards']} table cards + {n}x{k} dealt "
            f"exceed the {deck_size}-card deck"
        )
    sizes = []
    while stock >= n * k:
        sizes.append(k)
        stock -= n * k
    if stock:
        if stock % n:
            raise ValueError(
                f"options players={n}, deck={deck_size}, hand_size={k}, "
                f"table_cards={rules['table_cards']}: the last {stock} cards can't be "
                f"shared equally"
            )
        sizes.append(stock // n)
    return sizes


def deal_layout(
    rules: dict, deck: list[int], dealer: int
) -> tuple[frozenset[int], list[list[list[int]]]]:
    """Canonical dealing: ``table = deck[:table_cards]``; then each deal gives seat
    ``(dealer + 1 + j) % n`` (j = 0..n-1) the next k consecutive cards.

    Returns ``(table, deals)`` with ``deals[d][seat]`` the cards of ``seat`` in deal ``d``.
    """
    n = rules["players"]
    t = rules["table_cards"]
    if len(deck) != rules["deck"]:
        raise ValueError(f"deck has {len(deck)} cards, rules say {rules['deck']}")
    table = frozenset(deck[:t])
    pos = t
    deals: list[list[list[int]]] = []
    for k in _deal_sizes(rules):
        deal: list[list[int]] = [[] for _ in range(n)]
        for j in range(n):
            deal[(dealer + 1 + j) % n] = list(deck[pos : pos + k])
            pos += k
        deals.append(deal)
    assert pos == len(deck)
    return table, deals


def kings_redeal_needed(table: Iterable[int], rules: dict) -> bool:
    """Three or four kings on the initial table, with ``kings_redeal``."""
    return rules["kings_redeal"] and sum(1 for c in table if c % 10 == KING) >= 3


def shuffled_deck(rules: dict, rng: random.Random) -> list[int]:
    """A shuffled deck, reshuffled while the kings rule asks for a redeal."""
    deck = make_deck(rules)
    rng.shuffle(deck)
    while kings_redeal_needed(deck[: rules["table_cards"]], rules):
        rng.shuffle(deck)
    return deck


# --------------------------------------------------------------------------- a hand


class HandState:
    """A hand in progress.  ``deals_left[d][seat]``: cards of the stock's later deals."""

    def __init__(
        self,
        rules: dict,
        dealer: int,
        table: Iterable[int],
        hands: Sequence[Iterable[int]],
        deals_left: Sequence[Sequence[Iterable[int]]] = (),
        first_seat: int | None = None,
    ) -> None:
        self.rules = rules = full_rules(rules)
        self.n = rules["players"]
        self.nsides = num_sides(rules)
        self.dealer = dealer
        self.table: set[int] = set(table)
        self.hands: list[set[int]] = [set(h) for h in hands]
        self.deals_left = [[list(cards) for cards in deal] for deal in deals_left]
        self.stock = sum(len(cards) for deal in self.deals_left for cards in deal)
        self.in_hands = sum(len(h) for h in self.hands)
        self.piles: list[set[int]] = [set() for _ in range(self.nsides)]
        self.scope = [0] * self.nsides
        self.last_capturer: int | None = None
        self.seat = (dealer + 1) % self.n if first_seat is None else first_seat
        self.plays: list[tuple[int, int, frozenset[int]]] = []
        self.scopa_turns: list[int] = []
        self.finished = False
        self.remainder: frozenset[int] = frozenset()
        self.remainder_side: int | None = None
        self.opening: frozenset[int] = frozenset()
        self.opening_scope = 0
        self.opened = False
        if self.in_hands == 0:
            self._refill_or_finish()

    def take_opening(self) -> int:
        """RULES.md 9: with ``opening_fifteen``, the dealer's side (the first player's with
        ``opening_fifteen_to=first_player``) takes the accepted first table if it makes 15
        (1 scopa) or two sets of 15 (2 scope), and is then the last capturer.  Call once,
        before the first play.  Returns the scope scored."""
        if self.plays or self.opened:
            raise ValueError("the opening take comes once, before the first play")
        self.opened = True
        take, scope = opening_take(self.table, self.rules)
        if take:
            taker = self.dealer
            if self.rules.get("opening_fifteen_to") == "first_player":
                taker = (self.dealer + 1) % self.rules["players"]
            side = side_of(taker, self.rules)
            self.table -= take
            self.piles[side] |= take
            self.scope[side] += scope
            self.last_capturer = side
            self.opening = take
            self.opening_scope = scope
        return scope

    def is_last_play(self) -> bool:
        return self.in_hands == 1 and self.stock == 0

    def legal(self) -> list[tuple[int, frozenset[int]]]:
        return legal_plays(self.hands[self.seat], self.table, self.rules)

    def info(self) -> dict:
        return {
            "turn": len(self.plays),
            "seat": self.seat,
            "side": side_of(self.seat, self.rules),
            "dealer": self.dealer,
            "hand": frozenset(self.hands[self.seat]),
            "table": frozenset(self.table),
            "stock": self.stock,
            "last_play": self.is_last_play(),
        }

    def play(self, card: int, take: Iterable[int], check: bool = True) -> bool:
        """Play ``card`` capturing ``take``; returns True if it scored a scopa."""
        if self.finished:
            raise ValueError("the hand is over")
        take = frozenset(take)
        seat = self.seat
        hand = self.hands[seat]
        if check and (card, take) not in self.legal():
            raise ValueError(f"illegal play {card_str(card)} x {sorted(map(card_str, take))}")
        side = side_of(seat, self.rules)
        scopa = False
        hand.remove(card)
        self.in_hands -= 1
        if take:
            last_play = self.in_hands == 0 and self.stock == 0
            scopa = is_scopa(card, take, self.table, self.rules, last_play)
            self.table -= take
            pile = self.piles[side]
            pile |= take
            pile.add(card)
            self.last_capturer = side
            if scopa:
                self.scope[side] += 1
                self.scopa_turns.append(len(self.plays))
        else:
            self.table.add(card)
        self.plays.append((seat, card, take))
        self.seat = (seat + 1) % self.n
        if self.in_hands == 0:
            self._refill_or_finish()
        elif not self.hands[self.seat]:
            raise ValueError(f"seat {self.seat} has no card while others still hold some")
        return scopa

    def _refill_or_finish(self) -> None:
        if self.deals_left:
            deal = self.deals_left.pop(0)
            for seat, cards in enumerate(deal):
                self.hands[seat].update(cards)
                self.in_hands += len(cards)
                self.stock -= len(cards)
            return
        self.finished = True
        self.remainder = frozenset(self.table)
        side: int | None
        if self.rules["remainder_to"] == "dealer":
            side = side_of(self.dealer, self.rules)
        else:
            side = self.last_capturer
        self.remainder_side = side
        if side is not None:
            self.piles[side] |= self.table
        self.table = set()

    def all_denari_side(self) -> int | None:
        denari = {c for c in make_deck(self.rules) if c // 10 == DENARI}
        for side, pile in enumerate(self.piles):
            if denari <= pile:
                return side
        return None

    def result(self) -> dict:
        if not self.finished:
            raise ValueError("the hand is not over")
        return {
            "plays": list(self.plays),
            "piles": [set(p) for p in self.piles],
            "scope": list(self.scope),
            "last_capturer": self.last_capturer,
            "score": score_hand(self.piles, self.scope, self.rules),
            "scopa_turns": list(self.scopa_turns),
            "remainder": self.remainder,
            "remainder_side": self.remainder_side,
            "all_denari_side": self.all_denari_side(),
            "opening": self.opening,
            "opening_scope": self.opening_scope,
        }


Chooser = Callable[[list[tuple[int, frozenset[int]]], dict], int]


def play_hand(rules: dict, deck: list[int], dealer: int, choose: Chooser) -> dict:
    """Play a whole hand from an accepted deck order (no kings check here).

    ``choose(legal_plays_list, info) -> index``.  Returns a dict with ``plays``
    (list of ``(seat, card, take)``), ``piles`` and ``scope`` per side,
    ``last_capturer`` (side or None), ``score`` (``score_hand``), plus ``scopa_turns``
    (indices into ``plays``), ``remainder``, ``remainder_side``, ``all_denari_side``,
    ``opening`` (the cards the dealer's side took by ``opening_fifteen``, RULES.md 9) and
    ``opening_scope`` (the scope that scored, also counted in ``scope``).
    """
    check_rules(rules)
    rules = full_rules(rules)
    if sorted(deck) != make_deck(rules):
        raise ValueError("deck is not a permutation of the rules' deck")
    table, deals = deal_layout(rules, deck, dealer)
    state = HandState(rules, dealer, table, deals[0], deals[1:])
    state.take_opening()
    while not state.finished:
        legal = state.legal()
        card, take = legal[choose(legal, state.info())]
        state.play(card, take, check=False)
    return state.result()


def random_chooser(rng: random.Random) -> Chooser:
    """Uniform choice among all legal plays."""

    def choose(legal: list, info: dict) -> int:
        return rng.randrange(len(legal))

    return choose


# --------------------------------------------------------------------------- the match


def match_winner(totals: list[int], rules: dict, all_denari_side: int | None) -> int | None:
    """Winner after a hand has been scored (RULES.md 6), or None: play another hand."""
    if rules["napola"] and rules["napola_all_denari_wins"] and all_denari_side is not None:
        return all_denari_side
    best = max(totals)
    if best < rules["target"]:
        return None
    leaders = [i for i, t in enumerate(totals) if t == best]
    return leaders[0] if len(leaders) == 1 else None


def play_match(
    rules: dict,
    rng: random.Random,
    first_dealer: int = 0,
    choose: Chooser | None = None,
    max_hands: int = 10_000,
) -> dict:
    """Play hands until ``match_winner`` names a side; the dealer moves on each hand."""
    check_rules(rules)
    if choose is None:
        choose = random_chooser(rng)
    totals = [0] * num_sides(rules)
    dealer = first_dealer
    hands = 0
    while hands < max_hands:
        deck = shuffled_deck(rules, rng)
        res = play_hand(rules, deck, dealer, choose)
        hands += 1
        for side, s in enumerate(res["score"]):
            totals[side] += s["total"]
        winner = match_winner(totals, rules, res["all_denari_side"])
        if winner is not None:
            return {"winner": winner, "totals": totals, "hands": hands}
        dealer = (dealer + 1) % rules["players"]
    raise RuntimeError(f"no winner after {max_hands} hands")
