"""What a deal is worth: card values, opening-hand and opening-table tables, the share of a
hand's margin that the deal alone explains, and how often the stronger policy wins a match.

Every figure comes from a run's rows and its deals dealt again
(:func:`scopa_sim.sim.deals.redeal`): nothing about the cards is stored. Conventions:

* the *margin* of a hand is the dealer's side's points minus the first player's side's
  (as in :mod:`.analyze`); a role's margin is its side's points minus the other's;
* a card *dealt to a side* in the **first** deal is in the opening hand of one of the
  side's seats; in **any** deal, in one of the side's hands at some deal (the table's
  cards, and with three players the third seat's, are dealt to neither side);
* a **card value** is what a side gains, in margin points per hand, from being dealt the
  card *instead of an average card of the deck*: ``v_c - mean(v)`` in the OLS regression
  of the dealer margin on an intercept and, for each card of the deck, ``x_c`` = +1 when
  the card is dealt to the dealer's side, -1 to the first player's, 0 otherwise, all other
  cards held fixed. Each side is dealt as many cards as the other, so the ``x_c`` of a
  hand sum to zero and only such contrasts are identified (a value "against the card
  going to neither side" is not): the fit is reference-coded (the deck's last card left
  out) and the contrasts computed from it explicitly, so the values sum to zero; the
  difference of two values is what swapping one card for the other is worth. The
  intercept is the margin predicted when both sides' cards are worth the same (the
  seats' edge net of the cards). Intervals from heteroscedasticity-robust (HC1)
  standard errors, transformed to the contrasts; a card dealt to a side in fewer than
  :data:`MIN_CELL` hands is reported as too few, never as a number; a card never dealt
  to one of the sides is an error (its value is not identified); the cards the deck
  lacks (``scopa-36``) are absent;
* the **luck share** is the cross-validated R² of a linear deal-only predictor
  (:data:`LUCK_METHOD`).
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from scopa_sim.errors import AnalysisError
from scopa_sim.game.cards import RANKS, SUITS, card_name
from scopa_sim.sim import deals as DL
from scopa_sim.stats import inference as S
from scopa_sim.stats.estimate import Estimate

if TYPE_CHECKING:
    import polars as pl

    from scopa_sim.data.run import Run

#: Hands a cell (a card, a class) needs to be given a number; fewer is "too few".
MIN_CELL = 30
#: The normal quantile of the 95% intervals.
Z = 1.959963984540054
#: Rows turned into a design matrix at once.
CHUNK = 1 << 18
#: Folds of the luck share's cross-validation.
FOLDS = 10
#: Hands the luck share needs: below this its cross-validated R² is shrunk, by the noise of
#: fitting its features on the training folds (about ``(1 - R²) p / n_train`` for ``p``
#: features), by more than the reports' precision (0.1 percentage point; the curve
#: measured on subsamples is in ``docs/guide/deals.md``), so a smaller run is refused
#: rather than reported beside larger ones.
MIN_LUCK_HANDS = 200_000
#: The most hands the luck share's fit uses (its cost grows with the square of its
#: features): the first ones of the run.
LUCK_HANDS = 1_000_000
LUCK_METHOD = (
    f"{FOLDS}-fold cross-validated R² (folds: hand index mod {FOLDS}) of a least-squares fit "
    "of the dealer margin on deal-only features: each card's place (+1 dealer's side, -1 "
    "first player's, in the first deal and in a later deal; on the table), and for each "
    "side indicators of how many sevens, sixes, aces and denari it was dealt; 95% CI over "
    "hands (delta method on each hand's held-out squared error); from at least "
    f"{MIN_LUCK_HANDS:,} hands, below which the estimate is shrunk by its own fit"
)
SIXES_MASK = sum(1 << (10 * s + 5) for s in range(4))
ACES_MASK = sum(1 << (10 * s) for s in range(4))


# --------------------------------------------------------------------------- a run's deals


@dataclass(frozen=True)
class DealSides:
    """A run's hands (the first ``len(margin)``) with their deals: the dealer margin, the
    opening table and the cards dealt to the dealer's and the first player's sides, in the
    first deal (``d1``, ``f1``) and in any deal (``dall``, ``fall``)."""

    run: Run
    margin: np.ndarray
    table: np.ndarray
    d1: np.ndarray
    f1: np.ndarray
    dall: np.ndarray
    fall: np.ndarray

    @property
    def n(self) -> int:
        """The hands."""
        return int(self.margin.shape[0])

    @property
    def cards(self) -> np.ndarray:
        """The deck's cards (the removed ranks left out)."""
        return DL.deck_cards(self.run.config.rules)

    @property
    def policy(self) -> str:
        """The run's policies, each once, joined by commas."""
        return ",".join(dict.fromkeys(self.run.config.policies))


def deal_sides(run: Run, max_hands: int | None = None) -> DealSides:
    """The run's hands (the first ``max_hands``, or all) dealt again (:class:`DealSides`).

    Raises:
        AnalysisError: the run has no hands.
    """
    import polars as pl

    from scopa_sim.analysis.analyze import hand_metrics

    lf = run.scan().select(
        pl.col("match").cast(pl.Int64),
        pl.col("hand").cast(pl.Int64),
        pl.col("dealer").cast(pl.Int64),
        hand_metrics()["margin"].cast(pl.Int32).alias("margin"),
    )
    if max_hands is not None:
        lf = lf.head(max_hands)
    df = lf.collect()
    n = df.height
    if n == 0:
        raise AnalysisError(f"{run.directory}: the run has no hands")
    cols = {k: df[k].to_numpy() for k in ("match", "hand", "dealer")}
    out = {k: np.empty(n, dtype=np.int64) for k in ("table", "d1", "f1", "dall", "fall")}
    for lo in range(0, n, DL.CHUNK_ROWS):
        hi = min(n, lo + DL.CHUNK_ROWS)
        d = DL.redeal(run.config, cols["match"][lo:hi], cols["hand"][lo:hi], cols["dealer"][lo:hi])
        out["table"][lo:hi] = d.table
        out["d1"][lo:hi] = d.side_cards("dealer", slice(0, 1))
        out["f1"][lo:hi] = d.side_cards("first", slice(0, 1))
        out["dall"][lo:hi] = d.side_cards("dealer")
        out["fall"][lo:hi] = d.side_cards("first")
    return DealSides(run, df["margin"].to_numpy().astype(np.float64), **out)


def bits(masks: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """``out[i, j]`` = 1.0 when card ``cards[j]`` is in ``masks[i]``, else 0.0."""
    return ((masks[:, None] >> cards[None, :]) & 1).astype(np.float64)


# --------------------------------------------------------------------------- regression


Chunks = Callable[[], Iterator[tuple[np.ndarray, np.ndarray]]]


@dataclass(frozen=True)
class Fit:
    """An OLS fit: coefficients, their HC1 standard errors, observations."""

    beta: np.ndarray
    se: np.ndarray
    n: int


def ols_hc1(chunks: Chunks) -> Fit:
    """OLS of ``y`` on ``X`` over the chunks ``(X, y)`` that ``chunks()`` yields (called
    twice: the normal equations, then the residuals), with White's heteroscedasticity-
    robust covariance scaled by ``n / (n - k)`` (HC1). Columns that are always zero get 0
    and a standard error of 0 (the callers report them as too few).

    Raises:
        AnalysisError: no rows to fit.
    """
    xtx: np.ndarray | None = None
    xty: np.ndarray | None = None
    n = 0
    for X, y in chunks():
        xtx = X.T @ X if xtx is None else xtx + X.T @ X
        xty = X.T @ y if xty is None else xty + X.T @ y
        n += y.shape[0]
    if xtx is None or xty is None:
        raise AnalysisError("no hands to fit")
    inv = np.linalg.pinv(xtx)
    beta = inv @ xty
    meat = np.zeros_like(xtx)
    for X, y in chunks():
        xe = X * (y - X @ beta)[:, None]
        meat += xe.T @ xe
    k = int(np.linalg.matrix_rank(xtx))
    cov = inv @ meat @ inv * (n / (n - k) if n > k else math.nan)
    return Fit(beta, np.sqrt(np.maximum(np.diag(cov), 0.0)), n)


@dataclass(frozen=True)
class CovFit:
    """An OLS fit of full column rank: coefficients, their HC1 covariance, observations."""

    beta: np.ndarray
    cov: np.ndarray
    n: int


def ols_hc1_cov(chunks: Chunks) -> CovFit:
    """OLS of ``y`` on ``X`` over the chunks ``(X, y)`` of ``chunks()`` (called twice),
    with White's heteroscedasticity-robust covariance scaled by ``n / (n - k)`` (HC1), for
    a design of full column rank: a rank-deficient ``X`` raises :class:`AnalysisError`
    (no parametrisation is chosen silently; impose a constraint or a reference first).

    Raises:
        AnalysisError: no rows to fit, or a design of rank below its columns.
    """
    xtx: np.ndarray | None = None
    xty: np.ndarray | None = None
    n = 0
    for X, y in chunks():
        xtx = X.T @ X if xtx is None else xtx + X.T @ X
        xty = X.T @ y if xty is None else xty + X.T @ y
        n += y.shape[0]
    if xtx is None or xty is None:
        raise AnalysisError("no hands to fit")
    k = xtx.shape[0]
    if n <= k or int(np.linalg.matrix_rank(xtx)) < k:
        raise AnalysisError(f"the design has rank below its {k} columns ({n:,} rows)")
    inv = np.linalg.inv(xtx)
    beta = inv @ xty
    meat = np.zeros_like(xtx)
    for X, y in chunks():
        xe = X * (y - X @ beta)[:, None]
        meat += xe.T @ xe
    return CovFit(beta, inv @ meat @ inv * (n / (n - k)), n)


@dataclass(frozen=True, repr=False)
class CardValue:
    """What a card is worth to the side dealt it instead of an average card of the deck
    (module docstring): ``value``, margin points per hand with its HC1 95% interval
    (``n``: the hands of the fit; NaN when too few hands: ``dealt`` < :data:`MIN_CELL`),
    ``se`` its HC1 standard error, ``dealt`` the hands in which the card was dealt to the
    dealer's or the first player's side."""

    card: str
    value: Estimate
    se: float
    dealt: int

    @property
    def too_few(self) -> bool:
        """Whether the card was dealt to a side in fewer than :data:`MIN_CELL` hands."""
        return self.dealt < MIN_CELL

    def __repr__(self) -> str:
        """``CardValue(7D +1.151 [+1.131, +1.171], dealt in 12,345 hands)``."""
        v = "too few hands" if self.too_few else self.value.text("+.3f")
        return f"CardValue({self.card} {v}, dealt in {self.dealt:,} hands)"

    def _repr_html_(self) -> str:
        row = [self.card, *_cells(self.value, self.too_few), f"{self.dealt:,}"]
        return _html_table("card value (against the average card)",
                           ["card", "value", "95% CI", "dealt"], [row])  # fmt: skip


@dataclass(frozen=True, repr=False)
class CardValues:
    """Every card's value in one run, for cards dealt in the ``first`` or ``any`` deal:
    each against the average card of the deck (the values sum to zero), so a value's sign
    says above or below the average card, and ``value(a).estimate - value(b).estimate``
    is what holding ``a`` instead of ``b`` is worth (:meth:`swap` gives its interval)."""

    preset: str
    policy: str
    deal: str
    hands: int
    intercept: float  # the dealer margin predicted when both sides' cards are worth the same
    values: tuple[CardValue, ...]  # each against the average card: they sum to zero
    method: str
    #: The values' HC1 covariance (deck order, as ``values``), for contrasts between cards.
    cov: np.ndarray | None = field(default=None, repr=False, compare=False)

    def value(self, card: str) -> CardValue:
        """The value of ``card`` (``7D``); an AnalysisError for a card the deck lacks.

        Raises:
            AnalysisError: a card the deck lacks.
            CardError: a text that is not a card.
        """
        from scopa_sim.game.cards import parse_card

        name = card_name(parse_card(card))
        for v in self.values:
            if v.card == name:
                return v
        raise AnalysisError(f"{name} is not in this game's deck ({self.preset})")

    def swap(self, held: str, instead: str) -> Estimate:
        """What holding ``held`` instead of ``instead`` is worth to a side (margin points per
        hand; the difference of their values), with its HC1 95% interval.

        :raises AnalysisError: a card the deck lacks, or either card has too few hands.
        """
        a, b = self.value(held), self.value(instead)
        if a.too_few or b.too_few or self.cov is None:
            raise AnalysisError(f"{a.card} or {b.card} has too few hands for a contrast")
        i, j = self.values.index(a), self.values.index(b)
        var = self.cov[i, i] + self.cov[j, j] - 2 * self.cov[i, j]
        est, h = a.value.estimate - b.value.estimate, Z * math.sqrt(max(float(var), 0.0))
        return Estimate(est, est - h, est + h, self.hands, "HC1 contrast")

    def grid(self) -> np.ndarray:
        """The values as a 4 x 10 array (suits D, H, C, S by ranks A..K), NaN where a
        card is absent or has too few hands."""
        g = np.full((4, 10), np.nan)
        for v in self.values:
            c = SUITS.index(v.card[1]) * 10 + RANKS.index(v.card[0])
            g[c // 10, c % 10] = v.value.estimate
        return g

    def __repr__(self) -> str:
        """Two lines: the run and the deal, then the settebello's value and the extremes."""
        ok = sorted((v for v in self.values if not v.too_few), key=lambda v: -v.value.estimate)
        head = (f"CardValues({len(self.values)} cards, {self.preset} under {self.policy}, "
                f"{self.deal} deal, n={self.hands:,} hands; against the average card)")  # fmt: skip
        if not ok:
            return head + "\n  every card has too few hands"
        parts = [f"{v.card} " + ("too few hands" if v.too_few else v.value.text("+.3f"))
                 for v in self.values if v.card == "7D"]  # fmt: skip
        parts += [f"most {ok[0].card} {ok[0].value.estimate:+.3f}",
                  f"least {ok[-1].card} {ok[-1].value.estimate:+.3f}"]  # fmt: skip
        return head + "\n  " + "; ".join(parts)

    def _repr_html_(self) -> str:
        """A table of the cards, most valuable first."""
        order = sorted(self.values, key=lambda v: (v.too_few, -v.value.estimate))
        rows = [[v.card, *_cells(v.value, v.too_few), f"{v.dealt:,}"] for v in order]
        title = (f"card values: {self.preset} under {self.policy}, {self.deal} deal, "
                 f"{self.hands:,} hands (each card against the average card)")  # fmt: skip
        return _html_table(title, ["card", "value", "95% CI", "dealt"], rows)

    def to_polars(self) -> pl.DataFrame:
        """One row a card: ``card``, ``value``, ``ci_low``, ``ci_high``, ``se``, ``dealt``
        (null where too few hands)."""
        import polars as pl

        return pl.DataFrame(
            [
                {"card": v.card, "value": _nan_none(v.value.estimate),
                 "ci_low": _nan_none(v.value.low), "ci_high": _nan_none(v.value.high),
                 "se": _nan_none(v.se), "dealt": v.dealt}
                for v in self.values
            ]
        )  # fmt: skip


def _nan_none(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _cells(e: Estimate, too_few: bool, spec: str = "+.3f") -> list[str]:
    """An estimate as two HTML cells: its value and its interval (``too few`` instead)."""
    if too_few:
        return ["too few", ""]
    t = e.text(spec)
    value, _, ci = t.partition(" ")
    return [value, ci]


def _html_table(title: str, head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A result's HTML view: a titled table (every cell escaped)."""
    th = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>" for r in rows
    )
    return (f"<div class='scopa-sim'><b>{html.escape(title)}</b>"
            f"<table><tr>{th}</tr>{body}</table></div>")  # fmt: skip


def _signed(ds: DealSides, deal: str) -> tuple[np.ndarray, np.ndarray]:
    if deal == "first":
        return ds.d1, ds.f1
    if deal == "any":
        return ds.dall, ds.fall
    raise AnalysisError(f"unknown deal {deal!r}; choose from: first, any")


#: What a card value measures, as the reports say it.
CARD_VALUE_CONTRAST = "the card against the average card of the deck (values sum to zero)"


def _values_identified(ds: DealSides, d: np.ndarray, f: np.ndarray, deal: str) -> None:
    """Raise :class:`AnalysisError` unless both sides are dealt as many cards in every hand
    (the identity that makes the values contrasts) and every card reached each side."""
    cards = ds.cards
    if not np.array_equal(DL.popcount(d), DL.popcount(f)):
        raise AnalysisError(
            f"card values need both sides dealt as many cards in every hand ({deal} deal of "
            f"{ds.run.config.preset})"
        )
    for side, masks in (("dealer's side", d), ("first player's side", f)):
        counts = ((masks[:, None] >> cards[None, :]) & 1).sum(axis=0)
        if counts.min() == 0:
            rate = float(DL.popcount(masks).mean()) / cards.size
            need = math.ceil(MIN_CELL / rate) if rate > 0 else 0
            name = card_name(int(cards[int(np.argmin(counts))]))
            raise AnalysisError(
                f"too few hands for card values ({ds.n:,}): {name} was never dealt to the "
                f"{side} ({deal} deal); at least {need:,} hands give each card about "
                f"{MIN_CELL} hands a side"
            )


def card_values(ds: DealSides, deal: str = "first") -> CardValues:
    """Each card's value (module docstring: the card against the average card of the
    deck) from the hands of ``ds``, for the cards dealt in the ``first`` deal or in
    ``any`` deal, with HC1 95% intervals for those contrasts.

    :raises AnalysisError: an unknown ``deal``; a card never dealt to one of the sides
        (the message names the hands needed); sides dealt unequal numbers of cards.
    """
    d, f = _signed(ds, deal)
    cards = ds.cards
    k = cards.size
    _values_identified(ds, d, f, deal)

    def chunks() -> Iterator[tuple[np.ndarray, np.ndarray]]:
        # reference coding: the last card's column is minus the sum of the others
        for lo in range(0, ds.n, CHUNK):
            hi = min(ds.n, lo + CHUNK)
            X = np.empty((hi - lo, k))
            X[:, 0] = 1.0
            X[:, 1:] = bits(d[lo:hi], cards[:-1]) - bits(f[lo:hi], cards[:-1])
            yield X, ds.margin[lo:hi]

    fit = ols_hc1_cov(chunks)
    # values = M [b_1 .. b_{k-1}, 0] with M = I - J / k: each card against the average
    C = np.zeros((k, k))
    C[:, 1:] = np.eye(k)[:, : k - 1] - 1.0 / k
    est, cov = C @ fit.beta, C @ fit.cov @ C.T
    se_all = np.sqrt(np.maximum(np.diag(cov), 0.0))
    dealt = np.array([int((((d | f) >> c) & 1).sum()) for c in cards], dtype=np.int64)
    values = []
    for j, c in enumerate(cards):
        b, se, n_c = float(est[j]), float(se_all[j]), int(dealt[j])
        if n_c < MIN_CELL:
            b = se = math.nan
        value = Estimate(b, b - Z * se, b + Z * se, ds.n, "HC1")
        values.append(CardValue(card_name(int(c)), value, se, n_c))
    method = (f"OLS of the dealer margin on {k} card indicators (+1 dealer's side, -1 first "
              f"player's, {deal} deal) and an intercept, reference-coded (their sum is 0 in "
              f"every hand); each value is {CARD_VALUE_CONTRAST}; HC1 robust 95% CI of "
              "that contrast")  # fmt: skip
    return CardValues(
        ds.run.config.preset,
        ds.policy,
        deal,
        ds.n,
        float(fit.beta[0]),
        tuple(values),
        method,
        cov,
    )


def direct_value(ds: DealSides, card: str, deal: str = "any") -> Estimate:
    """The direct estimate of a card's value: half the difference of the mean dealer margin
    in the hands whose dealer's side was dealt ``card`` and in those whose first player's
    side was (Welch's interval, halved), which the regression should agree with for a card
    whose effect is large."""
    from scopa_sim.game.cards import parse_card

    c = parse_card(card)
    d, f = _signed(ds, deal)
    t = S.welch_t("margin", ds.margin[(d >> c) & 1 == 1], ds.margin[(f >> c) & 1 == 1])
    n = t.n_a + t.n_b
    return Estimate(t.estimate / 2, t.low / 2, t.high / 2, n, "Welch t / 2")


# --------------------------------------------------------------------------- opening tables


@dataclass(frozen=True, repr=False)
class ClassCell:
    """A role's mean margin over the hands of one class: ``key`` the class, ``role``
    ``"first"`` or ``"dealer"``, ``margin`` the mean with its t 95% interval (``n``: the
    class's hands; NaN when too few hands)."""

    key: str
    role: str
    margin: Estimate

    @property
    def hands(self) -> int:
        """The hands of the class."""
        return self.margin.n

    @property
    def too_few(self) -> bool:
        """Whether the class has fewer than :data:`MIN_CELL` hands (no number)."""
        return self.hands < MIN_CELL

    def __repr__(self) -> str:
        """``ClassCell(7-7-K:1d+7D, first: +0.800 [+0.500, +1.100], 1,234 hands)``."""
        m = "too few hands" if self.too_few else self.margin.text("+.3f")
        return f"ClassCell({self.key}, {self.role}: {m}, {self.hands:,} hands)"

    def _repr_html_(self) -> str:
        row = [self.role, self.key, *_cells(self.margin, self.too_few), f"{self.hands:,}"]
        return _html_table("mean margin of a class",
                           ["role", "class", "margin", "95% CI", "hands"], [row])  # fmt: skip


@dataclass(frozen=True, repr=False)
class ClassTable:
    """Mean margins by opening-hand (``what="hand"``) or opening-table class, each role's
    cells sorted from best to worst (too few last)."""

    what: str
    preset: str
    policy: str
    hands: int
    cells: tuple[ClassCell, ...]

    def role(self, role: str) -> tuple[ClassCell, ...]:
        """The cells of ``role`` (``"first"`` or ``"dealer"``), best first (too few last)."""
        return tuple(c for c in self.cells if c.role == role)

    def __repr__(self) -> str:
        """A line on the table, then a line a role: its best and worst class."""
        ok = [c for c in self.cells if not c.too_few]
        lines = [f"ClassTable(opening {self.what}s, {self.preset} under {self.policy}, "
                 f"n={self.hands:,} hands: {len(self.cells)} cells, {len(ok)} with a "
                 "number)"]  # fmt: skip
        for role in dict.fromkeys(c.role for c in self.cells):
            cells = [c for c in self.role(role) if not c.too_few]
            if cells:
                best, worst = cells[0], cells[-1]
                lines.append(f"  {role}: best {best.key} {best.margin.estimate:+.3f}, "
                             f"worst {worst.key} {worst.margin.estimate:+.3f}")  # fmt: skip
        return "\n".join(lines)

    def _repr_html_(self, shown: int = 10) -> str:
        """A table a role of its best and worst ``shown`` classes (all in :meth:`to_polars`)."""
        rows = []
        for role in dict.fromkeys(c.role for c in self.cells):
            cells = [c for c in self.role(role) if not c.too_few]
            picked = cells if len(cells) <= 2 * shown else cells[:shown] + cells[-shown:]
            rows += [[role, c.key, *_cells(c.margin, False), f"{c.hands:,}"] for c in picked]
        title = (f"opening {self.what}s: {self.preset} under {self.policy}, {self.hands:,} "
                 f"hands (best and worst {shown} classes a role with a number)")  # fmt: skip
        return _html_table(title, ["role", "class", "margin", "95% CI", "hands"], rows)

    def to_polars(self) -> pl.DataFrame:
        """One row a cell: ``class``, ``role``, ``hands``, ``margin``, ``ci_low``,
        ``ci_high`` (null where too few hands)."""
        import polars as pl

        return pl.DataFrame(
            [
                {"class": c.key, "role": c.role, "hands": c.hands,
                 "margin": _nan_none(c.margin.estimate), "ci_low": _nan_none(c.margin.low),
                 "ci_high": _nan_none(c.margin.high)}
                for c in self.cells
            ],
            schema={"class": pl.String, "role": pl.String, "hands": pl.Int64,
                    "margin": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64},
        )  # fmt: skip


def _class_cells(
    coded: tuple[np.ndarray, list[str]], margin: np.ndarray, role: str
) -> list[ClassCell]:
    """A role's cells: the mean of ``margin`` over the hands of each class (``coded``:
    :func:`scopa_sim.sim.deals.class_codes`), with its t interval, or too few."""
    codes, names = coded
    k = len(names)
    n = np.bincount(codes, minlength=k)
    s1 = np.bincount(codes, weights=margin, minlength=k)
    s2 = np.bincount(codes, weights=margin * margin, minlength=k)
    cells = []
    for j, name in enumerate(names):
        nj = int(n[j])
        if nj < MIN_CELL:
            cells.append(ClassCell(name, role, Estimate(math.nan, math.nan, math.nan, nj, "t")))
            continue
        mean = s1[j] / nj
        sd = math.sqrt(max(s2[j] - nj * mean * mean, 0.0) / (nj - 1))
        ci = S.mean_ci_from_stats(float(mean), sd, nj)
        cells.append(ClassCell(name, role, ci))
    cells.sort(key=lambda c: (c.too_few, -c.margin.estimate if not c.too_few else 0, c.key))
    return cells


def _two_players(ds: DealSides, what: str) -> None:
    if ds.run.config.rules.players != 2:
        raise AnalysisError(
            f"opening-{what} tables are for 2-player games; {ds.run.config.preset} has "
            f"{ds.run.config.rules.players} players"
        )


def opening_hands(ds: DealSides) -> ClassTable:
    """The first player's and the dealer's mean margin by the class of their opening hand
    (:func:`scopa_sim.sim.deals.hand_class`), with t intervals; 2-player games."""
    _two_players(ds, "hand")
    first = _class_cells(DL.class_codes(ds.f1, DL.hand_class), -ds.margin, "first")
    dealer = _class_cells(DL.class_codes(ds.d1, DL.hand_class), ds.margin, "dealer")
    return ClassTable("hand", ds.run.config.preset, ds.policy, ds.n, tuple(first + dealer))


def opening_tables(ds: DealSides) -> ClassTable:
    """The dealer's mean margin by the class of the opening table (the first player's is
    its opposite), with t intervals; 2-player games."""
    _two_players(ds, "table")
    cells = _class_cells(DL.class_codes(ds.table, DL.table_class), ds.margin, "dealer")
    return ClassTable("table", ds.run.config.preset, ds.policy, ds.n, tuple(cells))


# --------------------------------------------------------------------------- luck


@dataclass(frozen=True, repr=False)
class LuckShare:
    """The share of the variance of the dealer margin that the deal alone explains:
    ``share``, the cross-validated R² with its 95% interval over hands (``n``: the hands
    used, the first ones of the run; ``method``: :data:`LUCK_METHOD`; NaN when not
    reported), ``folds`` each fold's R², ``features`` the predictor's columns and ``se``
    the share's standard error over hands."""

    share: Estimate
    folds: tuple[float, ...]
    features: int
    se: float = math.nan

    @property
    def hands(self) -> int:
        """The hands used (the first ones of the run)."""
        return self.share.n

    @property
    def reported(self) -> bool:
        """Whether there is a number (enough hands: :data:`MIN_LUCK_HANDS`)."""
        return math.isfinite(self.share.estimate)

    def _text(self) -> str:
        if not self.reported:
            return f"not reported (fewer than {MIN_LUCK_HANDS:,} hands), n={self.hands:,} hands"
        s = self.share
        return (f"{s.estimate:.2%} [{s.low:.2%}, {s.high:.2%}] of the dealer margin's "
                f"variance, n={self.hands:,} hands, {self.features} features, "
                f"{len(self.folds)}-fold cross-validated")  # fmt: skip

    def __repr__(self) -> str:
        """``LuckShare(17.51% [17.40%, 17.62%] of the dealer margin's variance, ...)``."""
        return f"LuckShare({self._text()})"

    def _repr_html_(self) -> str:
        s = self.share
        rows = [["luck share", *_cells(s, not self.reported, ".4f"), f"{self.hands:,}",
                 str(self.features), str(len(self.folds))]]  # fmt: skip
        head = ["figure", "share", "95% CI", "hands", "features", "folds"]
        return _html_table(f"luck share: {self._text()}", head, rows)


def _fold_sums(chunks: Chunks, folds: int) -> tuple[list[list[Any]], list[Any]]:
    """Each fold's sums of the cross-validations (``X'X``, ``X'y``, ``y'y``, rows), rows
    assigned to folds by their index mod ``folds``, and their totals over the folds.

    :raises AnalysisError: fewer than two hands a fold.
    """
    stats: list[list[Any]] = []
    row = 0
    for X, y in chunks():
        if not stats:
            stats = [[np.zeros((X.shape[1],) * 2), np.zeros(X.shape[1]), 0.0, 0] for _ in
                     range(folds)]  # fmt: skip
        fold = (np.arange(row, row + y.shape[0])) % folds
        for k in range(folds):
            sel = fold == k
            xs, ys = X[sel], y[sel]
            stats[k][0] += xs.T @ xs
            stats[k][1] += xs.T @ ys
            stats[k][2] += float(ys @ ys)
            stats[k][3] += int(ys.shape[0])
        row += y.shape[0]
    if not stats or row < 2 * folds:
        raise AnalysisError(f"too few hands for a {folds}-fold cross-validation ({row})")
    tot = [sum(s[i] for s in stats) for i in range(4)]
    return stats, tot


def cv_r2(chunks: Chunks, folds: int = FOLDS, ridge: float = 1e-6) -> tuple[float, list[float]]:
    """The ``folds``-fold cross-validated R² of a least-squares fit of ``y`` on ``X`` (whose
    first column is the intercept), rows assigned to folds by their index mod ``folds``:
    pooled ``1 - SSE / SST`` over the held-out folds (SST about the training folds' mean),
    and each fold's. One pass: each fold's sums of squares and cross products give its
    held-out errors exactly. ``ridge`` (times the training rows) keeps the normal equations
    solvable when a feature never varies; the intercept is not penalised."""
    stats, tot = _fold_sums(chunks, folds)
    sse_all = sst_all = 0.0
    per = []
    for xtx_k, xty_k, yy_k, n_k in stats:
        xtx, xty, n = tot[0] - xtx_k, tot[1] - xty_k, tot[3] - n_k
        pen = np.eye(xtx.shape[0]) * ridge * n
        pen[0, 0] = 0.0
        beta = np.linalg.solve(xtx + pen, xty)
        sse = yy_k - 2 * beta @ xty_k + beta @ xtx_k @ beta
        ybar = xty[0] / n
        sst = yy_k - 2 * ybar * xty_k[0] + n_k * ybar * ybar
        sse_all += sse
        sst_all += sst
        per.append(float(1 - sse / sst) if sst > 0 else math.nan)
    return float(1 - sse_all / sst_all), per


@dataclass(frozen=True)
class CvR2:
    """A cross-validated R² (:func:`cv_r2_over_hands`): the pooled estimate, each fold's,
    the hands, and the estimate's standard error over hands."""

    r2: float
    folds: tuple[float, ...]
    n: int
    se: float


def cv_r2_over_hands(chunks: Chunks, folds: int = FOLDS, ridge: float = 1e-6) -> CvR2:
    """:func:`cv_r2` (the same estimate and folds) with the estimate's standard error over
    hands: a second pass gives each hand its held-out squared error ``a`` (under the fit
    of the other folds) and its squared deviation ``b`` from those folds' mean, and
    ``R² = 1 - sum(a) / sum(b)`` gets the delta method's
    ``sd(a - (1 - R²) b) / (mean(b) sqrt(n))``. It treats the fold fits as fixed, which
    holds where the fits' own noise is negligible (the luck share's
    :data:`LUCK_MIN_HANDS`); the folds' spread would not (they share their training
    hands).

    :raises AnalysisError: fewer than two hands a fold.
    """
    stats, tot = _fold_sums(chunks, folds)
    betas, means = [], []
    sse_all = sst_all = 0.0
    per = []
    for xtx_k, xty_k, yy_k, n_k in stats:  # the estimate exactly as :func:`cv_r2` has it
        xtx, xty, n = tot[0] - xtx_k, tot[1] - xty_k, tot[3] - n_k
        pen = np.eye(xtx.shape[0]) * ridge * n
        pen[0, 0] = 0.0
        beta = np.linalg.solve(xtx + pen, xty)
        sse = yy_k - 2 * beta @ xty_k + beta @ xtx_k @ beta
        ybar = xty[0] / n
        sst = yy_k - 2 * ybar * xty_k[0] + n_k * ybar * ybar
        sse_all += sse
        sst_all += sst
        per.append(float(1 - sse / sst) if sst > 0 else math.nan)
        betas.append(beta)
        means.append(ybar)
    r2 = float(1 - sse_all / sst_all)
    sums = np.zeros(5)  # a, b, a², b², ab
    row = 0
    for X, y in chunks():
        fold = (np.arange(row, row + y.shape[0])) % folds
        B = np.stack(betas)[fold]
        a = (y - np.einsum("ij,ij->i", X, B)) ** 2
        b = (y - np.asarray(means)[fold]) ** 2
        sums += [a.sum(), b.sum(), a @ a, b @ b, a @ b]
        row += y.shape[0]
    n = row
    ma, mb = sums[0] / n, sums[1] / n
    va = sums[2] / n - ma * ma
    vb = sums[3] / n - mb * mb
    cab = sums[4] / n - ma * mb
    q = 1 - r2
    var_u = max(va - 2 * q * cab + q * q * vb, 0.0) * n / (n - 1)
    return CvR2(r2, tuple(per), n, math.sqrt(var_u / n) / mb)


def luck_features(ds: DealSides, lo: int, hi: int) -> np.ndarray:
    """The luck share's design matrix for the hands from ``lo`` to ``hi - 1``
    (:data:`LUCK_METHOD`)."""
    cards = ds.cards
    d1, f1, da, fa = ds.d1[lo:hi], ds.f1[lo:hi], ds.dall[lo:hi], ds.fall[lo:hi]
    parts = [
        np.ones((hi - lo, 1)),
        bits(d1, cards) - bits(f1, cards),
        bits(da & ~d1, cards) - bits(fa & ~f1, cards),
        bits(ds.table[lo:hi], cards),
    ]
    for side in (da, fa):
        for mask, top in ((DL.SEVENS_MASK, 4), (SIXES_MASK, 4), (ACES_MASK, 4),
                          (DL.DENARI_MASK, 10)):  # fmt: skip
            count = DL.popcount(side & mask)
            parts.append((count[:, None] == np.arange(1, top + 1)[None, :]).astype(np.float64))
    return np.hstack(parts)


def luck_share(ds: DealSides, max_hands: int = LUCK_HANDS) -> LuckShare:
    """The cross-validated share of the dealer margin's variance that the deal explains
    (:data:`LUCK_METHOD`), from the first ``max_hands`` hands of ``ds``, with its 95%
    interval over hands (:func:`cv_r2_over_hands`).

    :raises AnalysisError: fewer than :data:`MIN_LUCK_HANDS` hands (the message names it).
    """
    n = min(ds.n, max_hands)

    def chunks() -> Iterator[tuple[np.ndarray, np.ndarray]]:
        for lo in range(0, n, CHUNK):
            hi = min(n, lo + CHUNK)
            yield luck_features(ds, lo, hi), ds.margin[lo:hi]

    if n < MIN_LUCK_HANDS:
        raise AnalysisError(
            f"too few hands for the luck share ({n:,}; at least {MIN_LUCK_HANDS:,}: below it "
            "the cross-validated R² is shrunk by its own fit)"
        )
    cv = cv_r2_over_hands(chunks)
    h = Z * cv.se
    share = Estimate(cv.r2, cv.r2 - h, cv.r2 + h, n, LUCK_METHOD)
    return LuckShare(share, cv.folds, luck_features(ds, 0, 1).shape[1], cv.se)


# --------------------------------------------------------------------------- matches


def match_wins(run: Run, seat: int = 0) -> Estimate:
    """How often the side of ``seat`` won a match of a ``--matches`` run (Wilson CI): with
    the stronger policy at ``seat``, how often the stronger wins (the first dealer of
    each match is drawn at random, so neither seat starts ahead).

    Raises:
        AnalysisError: a run of hands (not of matches), or a seat the game does not have.
    """
    import polars as pl

    c = run.config
    if c.mode != "matches":
        raise AnalysisError(f"{run.directory}: a run of matches is needed (this one has hands)")
    if not 0 <= seat < c.rules.players:
        raise AnalysisError(f"seat {seat}: the run has {c.rules.players} players")
    side = seat & 1 if c.rules.teams else seat
    df = (
        run.scan()
        .filter(pl.col("winner").is_not_null())
        .select((pl.col("winner") == side).cast(pl.Int64).sum().alias("w"), pl.len().alias("n"))
        .collect()
    )
    return S.wilson(int(df["w"][0] or 0), int(df["n"][0]))


__all__ = [
    "CARD_VALUE_CONTRAST",
    "FOLDS",
    "LUCK_METHOD",
    "MIN_CELL",
    "MIN_LUCK_HANDS",
    "CardValue",
    "CardValues",
    "ClassCell",
    "ClassTable",
    "CovFit",
    "CvR2",
    "DealSides",
    "Fit",
    "LuckShare",
    "bits",
    "card_values",
    "cv_r2",
    "cv_r2_over_hands",
    "deal_sides",
    "direct_value",
    "luck_features",
    "luck_share",
    "match_wins",
    "ols_hc1",
    "ols_hc1_cov",
    "opening_hands",
    "opening_tables",
]
