"""A run's deals, dealt again on demand: the opening table and each seat's cards at each
deal, and the deal features that ``analyze --by`` and the deal analyses group by.

Nothing is stored: every deck of a run is fixed by ``(seed, match, hand)`` (the deal
stream, :mod:`scopa_sim._engine.streams`), so :func:`redeal` deals any rows again with
the jitted :func:`scopa_sim._engine.deals.deal_masks`, the deal the run played
(swapped runs dealt with their permutation, the dealer read from each row).

Features (:func:`parse_feature`, documented in ``docs/guide/deals.md``): ``FEATURE`` or
``FEATURE@ROLE`` for a seat's opening hand (its cards of the first deal), where ``ROLE``
is ``first`` (the default), ``dealer`` or ``seatK``:

* ``has:CARD@ROLE`` (1 if the opening hand holds ``CARD``, e.g. ``has:7D@dealer``),
  ``sevens@ROLE``, ``denari@ROLE``, ``faces@ROLE`` (how many; faces are J, Q, K),
  ``hand_class@ROLE`` (the three ranks, the number of denari, ``+7D`` for the settebello:
  ``7-7-K:1d+7D``);
* ``table_sum``, ``table_sevens``, ``table_denari``, ``table_faces``, ``table_class`` (its
  ranks, ``+7D`` when the settebello is on it: ``A-5-7-K+7D``);
* ``settebello``: who was dealt it and at which deal (``table``, ``dealer:1``,
  ``first:3``, or ``seatK:N`` beyond two players).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from scopa_sim import _engine as K
from scopa_sim.data.run import SimConfig
from scopa_sim.errors import AnalysisError, CardError
from scopa_sim.game.cards import RANKS, SETTEBELLO, card_name, parse_card
from scopa_sim.game.rules import Rules
from scopa_sim.sim.duplicate import swap_permutation

if TYPE_CHECKING:
    import polars as pl

#: Rows dealt again at once (each row's masks take ``8 * (1 + rounds * players)`` bytes).
CHUNK_ROWS = 1 << 20
FACES_MASK = sum(((1 << 7) | (1 << 8) | (1 << 9)) << (10 * s) for s in range(4))
SEVENS_MASK = sum(1 << (10 * s + 6) for s in range(4))
DENARI_MASK = (1 << 10) - 1


def deal_rounds(rules: Rules) -> int:
    """The number of deals of a hand (:attr:`~scopa_sim.game.rules.Rules.deal_sizes`)."""
    return len(rules.deal_sizes)


def deck_cards(rules: Rules) -> np.ndarray:
    """The cards of the rules' deck (0..39, the removed ranks left out), ascending."""
    return np.array(rules.deck_cards.cards(), dtype=np.int64)


@dataclass(frozen=True)
class Deals:
    """Rows of a run dealt again: ``table[i]`` is row ``i``'s opening table and
    ``hands[i, r, seat]`` the cards ``seat`` was dealt at deal ``r`` (40-bit masks, int64),
    ``dealer[i]`` its dealer's seat."""

    rules: Rules
    table: np.ndarray
    hands: np.ndarray
    dealer: np.ndarray

    def __len__(self) -> int:
        return int(self.table.shape[0])

    def seat_of(self, role: str) -> np.ndarray:
        """The seat of ``role`` (``dealer``, ``first`` or ``seatK``) in each row."""
        n = self.rules.players
        if role == "dealer":
            return self.dealer
        if role == "first":
            return (self.dealer + 1) % n
        return np.full(len(self), _seat_number(role, n), dtype=np.int64)

    def cards_of(self, role: str, deals: slice = slice(None)) -> np.ndarray:
        """The cards ``role``'s seat was dealt at ``deals`` (default: every deal), per row."""
        seat = self.seat_of(role)
        picked = np.arange(self.hands.shape[1])[deals]
        rows = np.arange(len(self))[:, None]
        got = self.hands[rows, picked[None, :], seat[:, None]]
        return np.bitwise_or.reduce(got, axis=1) if got.shape[1] else np.zeros(len(self), np.int64)

    def side_cards(self, role: str, deals: slice = slice(None)) -> np.ndarray:
        """The cards dealt at ``deals`` to every seat of ``role``'s side (the seat alone
        without teams; the seat and its partner with them), per row."""
        seat = self.seat_of(role)
        out = np.zeros(len(self), dtype=np.int64)
        sel = self.hands[:, deals, :]
        if sel.shape[1] == 0:
            return out
        for s in range(self.rules.players):
            mine = _side(self.rules, s) == _side_arr(self.rules, seat)
            out |= np.where(mine, np.bitwise_or.reduce(sel[:, :, s], axis=1), 0)
        return out


def _side(rules: Rules, seat: int) -> int:
    return seat & 1 if rules.teams else seat


def _side_arr(rules: Rules, seats: np.ndarray) -> np.ndarray:
    return seats & 1 if rules.teams else seats


def _seat_number(role: str, players: int) -> int:
    m = re.fullmatch(r"seat(\d)", role)
    if m is None:
        raise AnalysisError(f"unknown role {role!r}; choose from: first, dealer, seat0..seat3")
    k = int(m.group(1))
    if k >= players:
        raise AnalysisError(
            f"role {role!r}: the run has {players} players (seats 0..{players - 1})"
        )
    return k


def redeal(config: SimConfig, match: np.ndarray, hand: np.ndarray, dealer: np.ndarray) -> Deals:
    """Rows ``(match, hand, dealer)`` of the run of ``config`` dealt again, as it dealt
    them (its seed, rules and ``deal``).

    Raises:
        AnalysisError: ``match``, ``hand`` and ``dealer`` are not 1-d arrays of one length.
    """
    rules = config.rules
    m = np.ascontiguousarray(match, dtype=np.int64)
    h = np.ascontiguousarray(hand, dtype=np.int64)
    d = np.ascontiguousarray(dealer, dtype=np.int64)
    if not m.shape == h.shape == d.shape or m.ndim != 1:
        raise AnalysisError("redeal: match, hand and dealer must be 1-d arrays of one length")
    rounds, n = deal_rounds(rules), rules.players
    out = np.empty((m.shape[0], 1 + rounds * n), dtype=np.int64)
    if rules.cirulla:
        _deal_masks_cirulla(config, m, h, d, out)
        return Deals(rules, out[:, 0].copy(), out[:, 1:].reshape(-1, rounds, n), d)
    K.deal_masks(
        rules.to_array(), np.uint64(config.seed), m, h, d, swap_permutation(rules),
        config.deal == "swapped", out,
    )  # fmt: skip
    return Deals(rules, out[:, 0].copy(), out[:, 1:].reshape(-1, rounds, n), d)


def _deal_masks_cirulla(
    config: SimConfig, m: np.ndarray, h: np.ndarray, d: np.ndarray, out: np.ndarray
) -> None:
    """:func:`redeal`'s masks (``out`` as ``K.deal_masks`` writes them) of a Cirulla run
    (RULES.md §10, plain deals only): each hand's accepted deck, void deals skipped
    (:func:`scopa_sim.sim.match.cirulla_deal`), dealt in the same order as every game."""
    from scopa_sim.sim.match import cirulla_deal

    rules = config.rules
    n, size = rules.players, rules.deck
    rounds = (out.shape[1] - 1) // n
    got = np.zeros(4, dtype=np.int64)
    for i in range(m.shape[0]):
        deck = np.array(cirulla_deal(rules, config.seed, int(m[i]), int(h[i]))[0], dtype=np.int64)
        out[i, 0] = int(np.bitwise_or.reduce(np.int64(1) << deck[: rules.table_cards]))
        pos, seat = rules.table_cards, (int(d[i]) + 1) % n
        for r in range(rounds):
            pos, k = K.deal_round_cards(deck, 0, pos, size, rules.hand_size, n, seat, got, 0)
            out[i, 1 + r * n : 1 + (r + 1) * n] = got[:n] if k else 0


# --------------------------------------------------------------------------- deal columns

_CARD_NAMES = np.array([card_name(c) for c in range(40)])


def mask_cards(masks: np.ndarray, k: int) -> np.ndarray:
    """The names of the ``k`` cards of each mask (every mask holds exactly ``k``), in card
    order (denari first): an ``(n, k)`` string array."""
    b = ((masks[:, None] >> np.arange(40)[None, :]) & 1).astype(bool)
    _rows, cols = np.nonzero(b)
    if cols.size != masks.shape[0] * k:
        raise ValueError(f"mask_cards: not every mask holds {k} cards")
    return _CARD_NAMES[cols].reshape(-1, k)


def deal_column_names(rules: Rules) -> list[str]:
    """The columns :func:`deal_columns` gives, in order: ``table`` (the opening table's
    mask), ``seat{s}_deal{r}`` (seat ``s``'s cards of deal ``r``, from 1), each followed by
    its ``..._cards`` (the card names)."""
    names = ["table", "table_cards"]
    for r in range(1, deal_rounds(rules) + 1):
        for s in range(rules.players):
            names += [f"seat{s}_deal{r}", f"seat{s}_deal{r}_cards"]
    return names


def deal_columns_expr(config: SimConfig) -> pl.Expr:
    """A struct of the deal columns (:func:`deal_column_names`) of each row of the run of
    ``config``, dealt again from the row's ``match``, ``hand`` and ``dealer``: masks as
    Int64, card names as lists of text."""
    import polars as pl

    rules = config.rules
    names = deal_column_names(rules)
    dtype = pl.Struct({n: pl.List(pl.String) if n.endswith("_cards") else pl.Int64 for n in names})

    def compute(s: pl.Series) -> pl.Series:
        df = s.struct.unnest()
        d = redeal(config, df["match"].to_numpy(), df["hand"].to_numpy(), df["dealer"].to_numpy())
        cols: list[pl.Series] = []
        sizes = popcount(d.hands[:1].reshape(-1)) if len(d) else np.zeros(0, np.int64)
        masks = [(d.table, rules.table_cards)] + [
            (d.hands[:, r, seat], int(sizes[r * rules.players + seat]))
            for r in range(d.hands.shape[1])
            for seat in range(rules.players)
        ]
        for (mask, k), name in zip(masks, names[::2], strict=True):
            cols.append(pl.Series(name, mask, dtype=pl.Int64))
            if k and len(d):
                cards = pl.Series(f"{name}_cards", mask_cards(mask, k))
                cols.append(cards.cast(pl.List(pl.String)))
            else:  # no card (scopone-scientifico's table), or no row
                cols.append(pl.Series(f"{name}_cards", [[]] * len(d), dtype=pl.List(pl.String)))
        return pl.struct(cols, eager=True).alias("deal")

    return (
        pl.struct(["match", "hand", "dealer"])
        .map_batches(compute, return_dtype=dtype, is_elementwise=True)
        .alias("deal")
    )


# --------------------------------------------------------------------------- features


_BYTE_COUNTS = np.array([bin(b).count("1") for b in range(256)], dtype=np.int64)


def popcount(masks: np.ndarray) -> np.ndarray:
    """The number of cards in each mask (an int64 array; numpy >= 1.26 has no
    ``bitwise_count``): a table lookup per byte."""
    b = np.ascontiguousarray(masks, dtype=np.int64).view(np.uint8).reshape(-1, 8)
    return _BYTE_COUNTS[b].sum(axis=1)


def ranks_text(mask: int) -> str:
    """The ranks of a set of cards, ascending, joined by ``-`` (``A-7-7-K``)."""
    cards = [c for c in range(40) if mask >> c & 1]
    return "-".join(RANKS[c % 10] for c in sorted(cards, key=lambda c: (c % 10, c)))


def hand_class(mask: int) -> str:
    """An opening hand's class: its ranks, how many denari, ``+7D`` for the settebello."""
    denari = bin(mask & DENARI_MASK).count("1")
    sb = "+7D" if mask >> SETTEBELLO & 1 else ""
    return f"{ranks_text(mask)}:{denari}d{sb}"


def table_class(mask: int) -> str:
    """An opening table's class: its ranks, ``+7D`` when the settebello is on it."""
    return ranks_text(mask) + ("+7D" if mask >> SETTEBELLO & 1 else "")


def class_codes(masks: np.ndarray, of: Callable[[int], str]) -> tuple[np.ndarray, list[str]]:
    """Each mask's class ``of(mask)`` as a code into the returned names (``of`` called
    once per distinct mask, the names distinct and sorted)."""
    uniq, inv = np.unique(masks, return_inverse=True)
    names = [of(int(m)) for m in uniq]
    distinct, code_of_uniq = np.unique(np.array(names, dtype=object), return_inverse=True)
    return code_of_uniq.ravel()[inv.ravel()], [str(x) for x in distinct]


def classes(masks: np.ndarray, of: Callable[[int], str]) -> list[str]:
    """``of`` of each mask, computed once per distinct mask."""
    codes, names = class_codes(masks, of)
    return [names[i] for i in codes]


@dataclass(frozen=True)
class Feature:
    """A parsed deal feature: its text, what it reads, the role and card it names."""

    text: str
    kind: str
    role: str = ""
    card: int = -1

    @property
    def is_text(self) -> bool:
        """Whether its values are text (classes, the settebello's place), else integers."""
        return self.kind in ("hand_class", "table_class", "settebello")

    def values(self, deals: Deals) -> np.ndarray | list[str]:
        """The feature's value in each row of ``deals``."""
        k = self.kind
        if k.startswith("table_") or k == "table_class":
            t = deals.table
            if k == "table_sum":
                return sum(((t >> c & 1) * (c % 10 + 1) for c in range(40)), np.zeros_like(t))
            if k == "table_class":
                return classes(t, table_class)
            return popcount(t & _COUNT_MASKS[k.removeprefix("table_")])
        if k == "settebello":
            return _settebello(deals)
        hand = deals.cards_of(self.role, slice(0, 1))
        if k == "has":
            return (hand >> self.card) & 1
        if k == "hand_class":
            return classes(hand, hand_class)
        return popcount(hand & _COUNT_MASKS[k])


_COUNT_MASKS = {"sevens": SEVENS_MASK, "denari": DENARI_MASK, "faces": FACES_MASK}
#: The features of a seat's opening hand (``@ROLE``) and of the whole deal.
HAND_FEATURES = ("has", "sevens", "denari", "faces", "hand_class")
DEAL_FEATURES = ("table_sum", "table_sevens", "table_denari", "table_faces", "table_class",
                 "settebello")  # fmt: skip


def _settebello(deals: Deals) -> list[str]:
    """Where the settebello was dealt in each row: ``table`` or ``ROLE:DEAL`` (1-based)."""
    n = deals.rules.players
    bit = np.int64(1) << SETTEBELLO
    out = np.full(len(deals), "table", dtype=object)
    on = (deals.hands & bit) != 0  # rows x deals x seats
    rows, rnd, seat = np.nonzero(on)
    first = (deals.dealer[rows] + 1) % n
    for i, r, s, f in zip(rows.tolist(), rnd.tolist(), seat.tolist(), first.tolist(), strict=True):
        role = "dealer" if s == int(deals.dealer[i]) else "first" if s == f else f"seat{s}"
        out[i] = f"{role}:{r + 1}"
    return out.tolist()


def parse_feature(text: str, rules: Rules) -> Feature:
    """A deal feature (see the module) checked against the run's rules: an AnalysisError
    for an unknown feature or role, a seat the game does not have, a card its deck
    does not have (the 2s of ``scopa-36``), or a run of Cirulla (RULES.md §10), whose deals
    (void deals, the opening count) are not dealt again yet.

    Raises:
        AnalysisError: as said above.
    """
    if rules.cirulla:
        raise AnalysisError(
            f"deal feature {text!r}: the deals of Cirulla runs are not dealt again yet; "
            "group them by a column instead (redeals counts their void deals)"
        )
    name, _, role = text.partition("@")
    kind, _, arg = name.partition(":")
    if kind in DEAL_FEATURES:
        if role or arg:
            raise AnalysisError(f"deal feature {text!r}: {kind} takes no card or role")
        return Feature(text, kind)
    if kind not in HAND_FEATURES:
        raise AnalysisError(f"unknown deal feature {text!r}; choose from: {FEATURE_HELP}")
    role = role or "first"
    if role not in ("first", "dealer"):
        _seat_number(role, rules.players)
    card = -1
    if kind == "has":
        try:
            card = parse_card(arg)
        except CardError as e:
            raise AnalysisError(f"deal feature {text!r}: {e}") from None
        if card not in deck_cards(rules):
            raise AnalysisError(
                f"deal feature {text!r}: {card_name(card)} is not in this game's "
                f"{rules.deck}-card deck"
            )
    elif arg:
        raise AnalysisError(f"deal feature {text!r}: {kind} takes no card")
    return Feature(text, kind, role, card)


#: The features, in one line (the ``--by`` help and error messages).
FEATURE_HELP = (
    "has:CARD@ROLE, "
    + ", ".join(f"{f}@ROLE" for f in HAND_FEATURES[1:])
    + ", "
    + ", ".join(DEAL_FEATURES)
    + "; ROLE: first, dealer, seat0..seat3"
)


def check_feature(text: str) -> Feature:
    """A feature's syntax checked without a run (against a 4-player, 40-card game):
    :func:`parse_feature` checks it against each run's own rules."""
    return parse_feature(text, Rules.make("scopa-4-solo"))


def is_feature(text: str) -> bool:
    """Whether a ``--by`` key names a deal feature (rather than a column)."""
    kind = text.partition("@")[0].partition(":")[0]
    return kind in HAND_FEATURES or kind in DEAL_FEATURES or "@" in text or ":" in text


def feature_expr(feature: Feature, config: SimConfig) -> pl.Expr:
    """The feature as a polars expression on a run's rows (from their ``match``, ``hand``
    and ``dealer``): each batch of rows dealt again as it comes (elementwise)."""
    import polars as pl

    def compute(s: pl.Series) -> pl.Series:
        df = s.struct.unnest()
        deals = redeal(config, df["match"].to_numpy(), df["hand"].to_numpy(),
                       df["dealer"].to_numpy())  # fmt: skip
        vals = feature.values(deals)
        if feature.is_text:
            return pl.Series(feature.text, vals, dtype=pl.String)
        return pl.Series(feature.text, np.asarray(vals, dtype=np.int64), dtype=pl.Int16)

    return (
        pl.struct(["match", "hand", "dealer"])
        .map_batches(
            compute, return_dtype=pl.String if feature.is_text else pl.Int16, is_elementwise=True
        )
        .alias(feature.text)
    )


__all__ = [
    "CHUNK_ROWS",
    "DEAL_FEATURES",
    "FEATURE_HELP",
    "HAND_FEATURES",
    "Deals",
    "Feature",
    "check_feature",
    "class_codes",
    "classes",
    "deal_column_names",
    "deal_columns_expr",
    "deal_rounds",
    "deck_cards",
    "feature_expr",
    "hand_class",
    "is_feature",
    "mask_cards",
    "parse_feature",
    "popcount",
    "ranks_text",
    "redeal",
    "table_class",
]
