"""Analysis of simulated datasets: first-player advantage, score items, matches, comparisons.

Every figure is computed by polars aggregations pushed down over the run's
Parquet shards (``collect(engine="streaming")``): counts and *integer* sums and
sums of squares of small per-hand integers, so the results are exact, shards
combine by addition, and memory does not grow with the number of hands.  The
statistics (intervals, tests) are then computed from those summaries by
:mod:`scopa_sim.stats.inference`.

Vocabulary: *position* 0 is the first player of a hand, the last position is
the dealer.  The *margin* of a hand is the dealer's side's points minus the
first player's side's points (paired within the hand), and the margin of a
score item likewise.  A hand is *won by the dealer side* when that margin is
positive.  With ``--matches`` runs, the *first mover* of a match is the side
that played first in the match's first hand.

Two runs made with the same seed, deck and mode were dealt the same decks
(common random numbers; see the README), so :func:`compare` pairs them by
``(match, hand)`` and uses paired tests; otherwise it uses unpaired tests.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import polars as pl

from scopa_sim.data import dataset as D
from scopa_sim.data.roles import OPTIONAL_ITEMS, int_col, side_of, side_value
from scopa_sim.data.run import Run, open_run
from scopa_sim.errors import AnalysisError
from scopa_sim.stats import inference as S
from scopa_sim.stats.estimate import Estimate

#: The score items of a hand (columns ``s{k}_{item}`` of :meth:`Run.scan`), points excluded.
ITEMS = (*(i for i in D.KERNEL_ITEMS if i != "points"), *D.CIRULLA_ITEMS)
#: Columns (and derived keys) that ``--by`` accepts.
GROUP_KEYS = (
    "run",
    "policy",
    "run_id",
    "preset",
    "rules_hash",
    "players",
    "sides",
    "seed",
    "policy_0",
    "policy_1",
    "policy_2",
    "policy_3",
    "dealer",
    "first_player",
    "hand",
    "redeals",
)
#: Sections of an analysis (``analyze --metric``).
SECTIONS = ("margin", "outcome", "items", "positions", "seats", "points", "scopa", "matches")
QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
#: Rows joined at once when pairing two runs (bounds the memory of compare).
PAIR_CHUNK_ROWS = 4_000_000
STREAMING: Any = "streaming"


# --------------------------------------------------------------------------- runs


def scan_hands(run: Run) -> pl.LazyFrame:
    """The run's rows, lazily, with the pinned schema and the derived columns the analyses
    read: each side's four-sevens point (``s{k}_four_sevens``, from its sevens and the
    rules: :func:`.dataset.four_sevens_expr`), and for a run of another game than Cirulla
    Cirulla's item columns (:data:`.dataset.CIRULLA_ITEMS`), 0 for each side it has."""
    on = run.config.rules.four_sevens_point
    lf = run.scan().with_columns([D.four_sevens_expr(k, on) for k in range(D.MAX_SIDES)])
    if run.config.cirulla:
        return lf
    return lf.with_columns(  # Cirulla's items: 0 for each side of another game
        pl.when(pl.lit(k) < pl.col("sides")).then(pl.lit(0, pl.Int16)).alias(f"s{k}_{item}")
        for k in range(D.MAX_SIDES)
        for item in D.CIRULLA_ITEMS
    )


def open_runs(directories: Iterable[str | Path]) -> tuple[Run, ...]:
    """The finished runs of ``directories`` (:func:`scopa_sim.data.run.open_run`); an
    AnalysisError if there is none.

    Raises:
        AnalysisError: no directory given.
        DatasetError: a directory that holds no finished run.
    """
    runs = tuple(open_run(d) for d in directories)
    if not runs:
        raise AnalysisError("no run directory given")
    return runs


def scan_runs(runs: Sequence[Run], features: Sequence[str] = ()) -> pl.LazyFrame:
    """The runs' rows as one lazy frame, with a ``run`` column (index into ``runs``) and a
    column per deal feature of ``features`` (:mod:`scopa_sim.sim.deals`: each run's deals
    dealt again, each feature checked against its rules)."""
    from scopa_sim.sim import deals as DL

    frames = []
    for i, r in enumerate(runs):
        extra = [DL.feature_expr(DL.parse_feature(f, r.config.rules), r.config) for f in features]
        frames.append(scan_hands(r).with_columns([pl.lit(i, pl.Int32).alias("run"), *extra]))
    lf = frames[0] if len(frames) == 1 else pl.concat(frames, how="vertical")
    policy = pl.concat_str(
        [pl.col(f"policy_{s}") for s in range(D.MAX_SEATS)], separator=",", ignore_nulls=True
    )
    return lf.with_columns(policy.alias("policy"))


# --------------------------------------------------------------------------- per-hand expressions


# The side of a seat and a side's column, read per row: one place for the view by role
# and the analyses (:mod:`scopa_sim.data.roles`).
_i = int_col
_side_of = side_of
_side_value = side_value


def _position_seat(p: int) -> pl.Expr:
    return (_i("first_player") + p) % _i("players")


DEALER_SIDE = _side_of(_i("dealer"))
FIRST_SIDE = _side_of(_i("first_player"))


def hand_metrics() -> dict[str, pl.Expr]:
    """Per-hand integer metrics, by name (null where a row has no such position or seat)."""
    m: dict[str, pl.Expr] = {
        "margin": _side_value(DEALER_SIDE, "points") - _side_value(FIRST_SIDE, "points"),
    }
    for item in ITEMS:
        m[f"margin_{item}"] = _side_value(DEALER_SIDE, item) - _side_value(FIRST_SIDE, item)
    m["dealer_points"] = _side_value(DEALER_SIDE, "points")
    m["first_points"] = _side_value(FIRST_SIDE, "points")
    for p in range(D.MAX_SEATS):
        m[f"position_{p}"] = (
            pl.when(pl.lit(p) < _i("players"))
            .then(_side_value(_side_of(_position_seat(p)), "points"))
            .otherwise(None)
        )
    for s in range(D.MAX_SEATS):
        m[f"seat_{s}"] = (
            pl.when(pl.lit(s) < _i("players"))
            .then(_side_value(_side_of(pl.lit(s)), "points"))
            .otherwise(None)
        )
    m["total_points"] = pl.sum_horizontal(
        [_i(f"s{k}_points").fill_null(0) for k in range(D.MAX_SIDES)]
    )
    m["plays"] = _i("plays")
    margin = m["margin"]
    m["dealer_wins"] = (margin > 0).cast(pl.Int32)
    m["draws"] = (margin == 0).cast(pl.Int32)
    m["first_wins"] = (margin < 0).cast(pl.Int32)
    scope = pl.sum_horizontal([_i(f"s{k}_scope").fill_null(0) for k in range(D.MAX_SIDES)])
    m["scopa"] = (scope > 0).cast(pl.Int32)
    return m


def match_metrics() -> dict[str, pl.Expr]:
    """Per-match metrics, computed on a match's last row (the one with a winner).

    The dealer rotates every hand, so the first player of the match's first hand
    is ``(first_player - hand) mod players`` of any of its rows.
    """
    first0 = (_i("first_player") - _i("hand")) % _i("players")
    m: dict[str, pl.Expr] = {
        "first_mover_wins": (_side_of(first0) == _i("winner")).cast(pl.Int32),
        "match_length": _i("hand") + 1,
    }
    for p in range(D.MAX_SEATS):
        seat = (first0 + p) % _i("players")
        m[f"match_position_{p}"] = (
            pl.when(pl.lit(p) < _i("players"))
            .then((_side_of(seat) == _i("winner")).cast(pl.Int32))
            .otherwise(None)
        )
    return m


def _moments(expr: pl.Expr, name: str) -> list[pl.Expr]:
    """Count, sum and sum of squares (Int64, exact) of an integer expression."""
    x = expr.cast(pl.Int64)
    return [
        x.count().alias(f"{name}__n"),
        x.sum().alias(f"{name}__s1"),
        (x * x).sum().alias(f"{name}__s2"),
    ]


def _mean_sd(n: int, s1: int, s2: int) -> tuple[float, float]:
    """Mean and sample sd from exact integer sums."""
    if n == 0:
        return math.nan, math.nan
    mean = s1 / n
    if n < 2:
        return mean, math.nan
    var = (n * s2 - s1 * s1) / (n * (n - 1))
    return mean, math.sqrt(max(var, 0.0))


def _mean_ci(row: dict[str, Any], name: str) -> Estimate:
    n, s1, s2 = (int(row[f"{name}__{k}"] or 0) for k in ("n", "s1", "s2"))
    mean, sd = _mean_sd(n, s1, s2)
    return S.mean_ci_from_stats(mean, sd, n)


def _prop(row: dict[str, Any], name: str) -> Estimate:
    return S.wilson(int(row[f"{name}__s1"] or 0), int(row[f"{name}__n"] or 0))


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Distribution:
    """A discrete distribution (value counts) with its mean's CI and quantiles."""

    values: tuple[int, ...]
    counts: tuple[int, ...]
    mean: Estimate
    quantiles: tuple[tuple[float, float], ...]  # (probability, value)

    @property
    def n(self) -> int:
        """The observations counted."""
        return sum(self.counts)

    @classmethod
    def of(cls, values: Sequence[int], counts: Sequence[int]) -> Distribution:
        """The distribution of integer ``values`` seen ``counts`` times each: its mean with a t
        interval and its :data:`QUANTILES`.
        """
        pairs = sorted((int(v), int(c)) for v, c in zip(values, counts, strict=True))
        vs, cs = tuple(v for v, _ in pairs), tuple(c for _, c in pairs)
        n = sum(cs)
        s1 = sum(v * c for v, c in pairs)
        s2 = sum(v * v * c for v, c in pairs)
        mean, sd = _mean_sd(n, s1, s2)
        qs = S.quantiles_from_counts(vs, cs, QUANTILES)
        return cls(
            vs, cs, S.mean_ci_from_stats(mean, sd, n), tuple(zip(QUANTILES, qs, strict=True))
        )


@dataclass(frozen=True)
class MatchStats:
    """Match-level results of a ``--matches`` run (one observation per match)."""

    matches: int
    first_mover_wins: Estimate  # side that played first in the match's first hand
    by_position: tuple[Estimate, ...]  # wins of the side at position p of the first hand
    length: Distribution  # hands per match


@dataclass(frozen=True)
class GroupResult:
    """The analysis of one group of hands (a run, a policy, a preset, ...)."""

    key: tuple[tuple[str, Any], ...]
    label: str
    players: int
    hands: int
    margin: Estimate
    dealer_wins: Estimate
    draws: Estimate
    first_wins: Estimate
    items: tuple[tuple[str, Estimate], ...]
    positions: tuple[Estimate, ...]
    seats: tuple[Estimate, ...]
    dealer_points: Distribution
    first_points: Distribution
    total_points: Distribution
    scopa: Estimate  # hands with at least one scopa
    matches: MatchStats | None


@dataclass(frozen=True)
class Analysis:
    """The analysis of one or more runs, grouped by ``by``."""

    runs: tuple[Run, ...]
    by: tuple[str, ...]
    groups: tuple[GroupResult, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every number with its interval and sample size."""
        return {
            "runs": [_run_dict(r) for r in self.runs],
            "by": list(self.by),
            "groups": [_jsonable(_estimates_as_json(asdict(g))) for g in self.groups],
        }


def _estimates_as_json(x: Any) -> Any:
    """``x`` (a group's fields, as :func:`dataclasses.asdict` gives them) with each
    estimate in the analysis JSON's terms: a mean's ``estimate, low, high, n, sd, level,
    method``, a proportion's ``estimate, low, high, successes, n, level, method``."""
    if isinstance(x, dict):
        if x.keys() == _ESTIMATE_FIELDS:
            e = Estimate(**x)
            if e.method == "wilson":
                head: dict[str, Any] = {"successes": e.successes, "n": e.n}
            else:
                head = {"n": e.n, "sd": e.sd}
            return {"estimate": e.estimate, "low": e.low, "high": e.high, **head,
                    "level": e.level, "method": e.method}  # fmt: skip
        return {k: _estimates_as_json(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return type(x)(_estimates_as_json(v) for v in x)
    return x


_ESTIMATE_FIELDS = set(Estimate.__dataclass_fields__)


def _run_dict(r: Run) -> dict[str, Any]:
    return {
        "directory": str(r.directory),
        "run_id": r.run_id,
        "config": r.config.to_json(),
        "rows": r.rows,
        "command": r.command(),
    }


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_jsonable(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, Path):
        return str(x)
    return x


# --------------------------------------------------------------------------- analyze


def check_by(by: Sequence[str]) -> tuple[str, ...]:
    """The ``--by`` keys, each a column of :data:`GROUP_KEYS` or a deal feature
    (:mod:`scopa_sim.sim.deals`, whose syntax is checked here and whose fit to each run's
    rules when the runs are read); an AnalysisError otherwise.

    Raises:
        AnalysisError: a key that is neither a column of :data:`GROUP_KEYS` nor a deal
            feature.
    """
    from scopa_sim.sim import deals as DL

    for b in by:
        if b in GROUP_KEYS:
            continue
        if DL.is_feature(b):
            DL.check_feature(b)
            continue
        raise AnalysisError(
            f"unknown grouping column {b!r}; choose from: {', '.join(GROUP_KEYS)}, or a deal "
            f"feature ({DL.FEATURE_HELP})"
        )
    return tuple(dict.fromkeys(by))


def check_sections(sections: Sequence[str]) -> tuple[str, ...]:
    """The analysis sections asked for, each once, in their order (none asked: every
    section of :data:`SECTIONS`).

    Raises:
        AnalysisError: an unknown section.
    """
    for s in sections:
        if s not in SECTIONS:
            raise AnalysisError(f"unknown metric {s!r}; choose from: {', '.join(SECTIONS)}")
    return tuple(dict.fromkeys(sections)) or SECTIONS


def _collect(queries: list[pl.LazyFrame]) -> list[pl.DataFrame]:
    """Collect each query on its own with the streaming engine: ``collect_all`` would
    cache the scan the queries share, materialising the whole dataset in memory."""
    return [q.collect(engine=STREAMING) for q in queries]


def _group_frames(lf: pl.LazyFrame, by: tuple[str, ...], aggs: list[pl.Expr]) -> pl.LazyFrame:
    if by:
        return lf.group_by(list(by)).agg(aggs)
    return lf.select(aggs)


def _key_of(row: dict[str, Any], by: tuple[str, ...]) -> tuple[Any, ...]:
    return tuple(row[b] for b in by)


def check_distinct(runs: Sequence[Run], why: str = "its hands would count twice") -> None:
    """An AnalysisError when two of ``runs`` are the same run (the same directory, or two
    copies of one run: the same run id): its hands would be counted twice (``why``
    says what else would go wrong).

    Raises:
        AnalysisError: two of ``runs`` are the same run.
    """
    seen: dict[str, Run] = {}
    for r in runs:
        if r.run_id in seen:
            first = seen[r.run_id]
            same = first.directory.resolve() == r.directory.resolve()
            what = f"{r.directory} is given twice" if same else (
                f"{first.directory} and {r.directory} are the same run")  # fmt: skip
            raise AnalysisError(f"{what} (run id {r.run_id}): {why}")
        seen[r.run_id] = r


def distinct_labels(runs: Sequence[Run]) -> tuple[Run, ...]:
    """``runs`` with every label told apart: a label that two runs share gets the run's
    place among them (``scopa #1``, ``scopa #2``), so that no comparison reads "scopa
    against scopa"; the others are kept."""
    labels = [r.label for r in runs]
    return tuple(
        r.labelled(f"{r.label} #{i + 1}") if labels.count(r.label) > 1 else r
        for i, r in enumerate(runs)
    )


def analyze(directories: Sequence[str | Path] | Sequence[Run], by: Sequence[str] = ()) -> Analysis:
    """Analyse runs, grouped by ``by`` (default: one group per run directory).

    Args:
        directories: the runs, or their directories.
        by: the grouping keys (:func:`check_by`); runs of one label are told apart
            (:func:`distinct_labels`).

    Returns:
        The :class:`Analysis`: one :class:`GroupResult` a group.

    Raises:
        AnalysisError: no run, the same run twice, an unknown grouping key.
        DatasetError: a directory that holds no finished run.
    """
    runs = tuple(r if isinstance(r, Run) else open_run(r) for r in directories)
    if not runs:
        raise AnalysisError("no run directory given")
    check_distinct(runs)
    runs = distinct_labels(runs)
    keys = check_by(by) or (("run",) if len(runs) > 1 else ())
    lf = scan_runs(runs, [k for k in keys if k not in GROUP_KEYS])
    hm, mm = hand_metrics(), match_metrics()
    hands = lf.with_columns([e.alias(k) for k, e in hm.items()])
    aggs = [pl.len().alias("__hands"), pl.col("players").max().alias("__players")]
    for name in hm:
        aggs += _moments(pl.col(name), name)
    main_q = _group_frames(hands, keys, aggs)
    dist_qs = [
        hands.group_by([*keys, name]).agg(pl.len().alias("__count"))
        for name in ("dealer_points", "first_points", "total_points")
    ]
    last = lf.filter(pl.col("winner").is_not_null()).with_columns(
        [e.alias(k) for k, e in mm.items()]
    )
    maggs = [pl.len().alias("__matches")]
    for name in mm:
        maggs += _moments(pl.col(name), name)
    match_q = _group_frames(last, keys, maggs)
    len_q = last.group_by([*keys, "match_length"]).agg(pl.len().alias("__count"))
    main, *dists, mrows, lens = _collect([main_q, *dist_qs, match_q, len_q])

    optional = {
        i for i, opt in OPTIONAL_ITEMS.items() if any(getattr(r.config.rules, opt) for r in runs)
    }
    items = [i for i in ITEMS if i not in OPTIONAL_ITEMS or i in optional]
    match_rows = {_key_of(r, keys): r for r in mrows.iter_rows(named=True)}
    groups = []
    for row in (main.sort(list(keys)) if keys else main).iter_rows(named=True):
        key = _key_of(row, keys)
        n_players = int(row["__players"])
        dd = [
            _dist(df, keys, key, name)
            for df, name in zip(
                dists, ("dealer_points", "first_points", "total_points"), strict=True
            )
        ]
        ms = None
        mrow = match_rows.get(key)
        if mrow is not None and mrow["__matches"]:
            ms = MatchStats(
                matches=int(mrow["__matches"]),
                first_mover_wins=_prop(mrow, "first_mover_wins"),
                by_position=tuple(_prop(mrow, f"match_position_{p}") for p in range(n_players)),
                length=_dist(lens, keys, key, "match_length"),
            )
        groups.append(
            GroupResult(
                key=tuple(zip(keys, key, strict=True)),
                label=_label(keys, key, runs),
                players=n_players,
                hands=int(row["__hands"]),
                margin=_mean_ci(row, "margin"),
                dealer_wins=_prop(row, "dealer_wins"),
                draws=_prop(row, "draws"),
                first_wins=_prop(row, "first_wins"),
                items=tuple((i, _mean_ci(row, f"margin_{i}")) for i in items),
                positions=tuple(_mean_ci(row, f"position_{p}") for p in range(n_players)),
                seats=tuple(_mean_ci(row, f"seat_{s}") for s in range(n_players)),
                dealer_points=dd[0],
                first_points=dd[1],
                total_points=dd[2],
                scopa=_prop(row, "scopa"),
                matches=ms,
            )
        )
    return Analysis(runs, keys, tuple(groups))


def _dist(df: pl.DataFrame, keys: tuple[str, ...], key: tuple[Any, ...], name: str) -> Distribution:
    sub = df
    for k, v in zip(keys, key, strict=True):
        sub = sub.filter(pl.col(k).is_null() if v is None else pl.col(k) == v)
    sub = sub.filter(pl.col(name).is_not_null())
    return Distribution.of(sub[name].to_list(), sub["__count"].to_list())


def _label(keys: tuple[str, ...], key: tuple[Any, ...], runs: Sequence[Run]) -> str:
    if not keys:
        return runs[0].label if len(runs) == 1 else "all"
    parts = []
    for k, v in zip(keys, key, strict=True):
        if k == "run":
            parts.append(runs[int(v)].label)
        else:
            parts.append(f"{k}={v}")
    return ", ".join(parts)


# --------------------------------------------------------------------------- convergence


@dataclass(frozen=True)
class Convergence:
    """Running mean of the dealer margin and its 95% CI as hands accumulate (in run order)."""

    label: str
    hands: tuple[int, ...]
    mean: tuple[float, ...]
    low: tuple[float, ...]
    high: tuple[float, ...]


def convergence(run: Run, points: int = 200, metric: str = "margin") -> Convergence:
    """The running estimate at about ``points`` log-spaced checkpoints, in run order.

    Units (hands, or matches) are put in blocks whose bounds grow geometrically, so
    a log-scaled plot shows the early wobble and the late narrowing alike; each block
    is aggregated lazily and the running sums are taken over the blocks.
    """
    scale = points / math.log(run.config.count + 1)
    expr = hand_metrics()[metric]
    q = (
        scan_hands(run)
        .with_columns(
            ((pl.col("match") + 1).log() * scale).floor().cast(pl.Int64).alias("__block"),
            expr.alias("__x"),
        )
        .group_by("__block")
        .agg(_moments(pl.col("__x"), "x"))
        .sort("__block")
    )
    df = q.collect(engine=STREAMING)
    n = s1 = s2 = 0
    hands, mean, low, high = [], [], [], []
    for r in df.iter_rows(named=True):
        n += int(r["x__n"])
        s1 += int(r["x__s1"])
        s2 += int(r["x__s2"])
        m, sd = _mean_sd(n, s1, s2)
        ci = S.mean_ci_from_stats(m, sd, n)
        hands.append(n)
        mean.append(ci.estimate)
        low.append(ci.low)
        high.append(ci.high)
    return Convergence(run.label, tuple(hands), tuple(mean), tuple(low), tuple(high))


# --------------------------------------------------------------------------- compare

#: metric -> (kind, side-wise, level); kind "mean" or "binary", level "hand" or "match".
COMPARE_METRICS: dict[str, tuple[str, bool, str]] = {
    "margin": ("mean", True, "hand"),
    **{f"margin_{i}": ("mean", True, "hand") for i in ITEMS},
    "dealer_wins": ("binary", True, "hand"),
    "draws": ("binary", True, "hand"),
    "first_wins": ("binary", True, "hand"),
    "scopa": ("binary", False, "hand"),
    "total_points": ("mean", False, "hand"),
    "plays": ("mean", False, "hand"),
    "first_mover_wins": ("binary", True, "match"),
    "match_length": ("mean", False, "match"),
}


@dataclass(frozen=True)
class PairComparison:
    """``b`` against the baseline ``a``: each result's estimate is ``b - a``."""

    a: Run
    b: Run
    paired: bool
    why: str  # why the runs are (not) paired
    n_pairs: int  # common (match, hand) rows when paired, else 0
    results: tuple[S.TestResult, ...]
    note: str = ""  # metrics left out, and why


@dataclass(frozen=True)
class Comparison:
    """Every run against the first one; p-values Holm-adjusted over all reported tests."""

    runs: tuple[Run, ...]
    pairs: tuple[PairComparison, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, as ``scopa-sim compare --json`` prints it: the runs, the baseline and each
        pair's tests (estimates ``b - a``, Holm-adjusted p-values).
        """
        return {
            "runs": [_run_dict(r) for r in self.runs],
            "baseline": str(self.runs[0].directory),
            "correction": "holm",
            "comparisons": [
                {
                    "a": str(p.a.directory),
                    "b": str(p.b.directory),
                    "paired": p.paired,
                    "why": p.why,
                    "note": p.note,
                    "pairs": p.n_pairs,
                    "estimate": "b - a",
                    "results": [_compare_result_dict(r) for r in p.results],
                }
                for p in self.pairs
            ],
        }


def _compare_result_dict(r: S.TestResult) -> dict[str, Any]:
    """A compare result in the JSON's terms: ``a``/``n_a`` the baseline's (the enclosing
    ``a``) and ``b``/``n_b`` the other run's, ``estimate`` = b - a.

    :func:`compare_pair` calls the tests with run B as their first sample (so that their
    estimate is B - A), which is the stats module's ``a``; the labels are swapped here.
    """
    d = asdict(r)
    d["a"], d["b"] = r.b, r.a
    d["n_a"], d["n_b"] = r.n_b, r.n_a
    return _jsonable(d)


def pairing(a: Run, b: Run) -> tuple[bool, str]:
    """Whether two runs were dealt the same decks (same seed, deck and mode), and why."""
    ca, cb = a.config, b.config
    if ca.seed != cb.seed:
        return False, f"different seeds ({ca.seed} vs {cb.seed})"
    if ca.rules.deck != cb.rules.deck:
        return False, f"different decks ({ca.rules.deck} vs {cb.rules.deck} cards)"
    if ca.mode != cb.mode:
        return False, f"different modes ({ca.mode} vs {cb.mode})"
    return True, f"same seed {ca.seed}, deck {ca.rules.deck} and mode ({ca.mode}): paired by deal"


def check_metrics(metrics: Sequence[str]) -> tuple[str, ...]:
    """The metrics asked for, each once, in their order.

    Raises:
        AnalysisError: a metric not in :data:`COMPARE_METRICS`.
    """
    for m in metrics:
        if m not in COMPARE_METRICS:
            raise AnalysisError(f"unknown metric {m!r}; choose from: {', '.join(COMPARE_METRICS)}")
    return tuple(dict.fromkeys(metrics))


def _metrics_for(a: Run, b: Run, asked: tuple[str, ...], strict: bool) -> tuple[list[str], str]:
    """The metrics to compare and a note on those left out (``strict``: refuse instead)."""
    both_matches = a.config.mode == b.config.mode == "matches"
    same_sides = (a.config.rules.players, a.config.rules.sides) == (
        b.config.rules.players,
        b.config.rules.sides,
    )
    optional = {
        i
        for i, opt in OPTIONAL_ITEMS.items()
        if getattr(a.config.rules, opt) or getattr(b.config.rules, opt)
    }
    out = []
    note = ""
    for m in asked or COMPARE_METRICS:
        _kind, sidewise, level = COMPARE_METRICS[m]
        if sidewise and not same_sides:
            pa, pb = a.config.rules, b.config.rules
            if not strict and not asked:
                note = (
                    f"side-wise metrics left out: players/sides differ "
                    f"({pa.players}/{pa.sides} vs {pb.players}/{pb.sides})"
                )
                continue
            raise AnalysisError(
                f"{a.label} and {b.label} differ in players/sides ({pa.players}/{pa.sides} vs "
                f"{pb.players}/{pb.sides}): side-wise metric {m!r} cannot be compared; "
                "use --metric total_points, plays, scopa or match_length"
            )
        if level == "match" and not both_matches:
            if asked:
                raise AnalysisError(f"metric {m!r} needs two runs of matches")
            continue
        item = m.removeprefix("margin_")
        if m.startswith("margin_") and item in OPTIONAL_ITEMS and item not in optional:
            continue
        out.append(m)
    return out, note


def _chunks(a: Run, b: Run) -> list[tuple[int, int]]:
    units = min(a.config.count, b.config.count)
    per_unit = max(a.rows / a.config.count, b.rows / b.config.count)
    step = max(1, int(PAIR_CHUNK_ROWS / per_unit))
    return [(lo, min(lo + step, units)) for lo in range(0, units, step)]


def _paired_sums(a: Run, b: Run, metrics: list[str], level: str) -> dict[str, int]:
    """Integer sums over the pairs, joined chunk by chunk of match numbers."""
    exprs = hand_metrics() if level == "hand" else match_metrics()
    keys = ["match", "hand"] if level == "hand" else ["match"]
    totals: dict[str, int] = {}
    for lo, hi in _chunks(a, b):
        sides = []
        for tag, run in (("a", a), ("b", b)):
            lf = scan_hands(run).filter(pl.col("match").is_between(lo, hi, closed="left"))
            if level == "match":
                lf = lf.filter(pl.col("winner").is_not_null())
            sides.append(lf.select([*keys, *(exprs[m].alias(f"{m}_{tag}") for m in metrics)]))
        j = sides[0].join(sides[1], on=keys, how="inner")
        aggs: list[pl.Expr] = [pl.len().alias("__pairs")]
        for m in metrics:
            x, y = pl.col(f"{m}_a").cast(pl.Int64), pl.col(f"{m}_b").cast(pl.Int64)
            if COMPARE_METRICS[m][0] == "mean":
                d = y - x
                aggs += [
                    x.sum().alias(f"{m}__sa"),
                    y.sum().alias(f"{m}__sb"),
                    d.sum().alias(f"{m}__s1"),
                    (d * d).sum().alias(f"{m}__s2"),
                ]
            else:
                aggs += [
                    ((x == 1) & (y == 1)).sum().alias(f"{m}__both"),
                    ((x == 1) & (y == 0)).sum().alias(f"{m}__only_a"),
                    ((x == 0) & (y == 1)).sum().alias(f"{m}__only_b"),
                    ((x == 0) & (y == 0)).sum().alias(f"{m}__neither"),
                ]
        row = j.select(aggs).collect(engine=STREAMING).row(0, named=True)
        for k, v in row.items():
            totals[k] = totals.get(k, 0) + int(v or 0)
    return totals


def _run_sums(run: Run, metrics: list[str], level: str) -> dict[str, int]:
    exprs = hand_metrics() if level == "hand" else match_metrics()
    lf = scan_hands(run)
    if level == "match":
        lf = lf.filter(pl.col("winner").is_not_null())
    aggs: list[pl.Expr] = []
    for m in metrics:
        aggs += _moments(exprs[m], m)
    row = lf.select(aggs).collect(engine=STREAMING).row(0, named=True)
    return {k: int(v or 0) for k, v in row.items()}


def compare_pair(
    a: Run,
    b: Run,
    metrics: Sequence[str] = (),
    paired: bool | None = None,
    strict: bool = True,
) -> PairComparison:
    """Compare run ``b`` against run ``a`` (estimates are ``b - a``), before Holm.

    ``paired=None`` pairs exactly when the runs were dealt the same decks.  Runs
    with different players or sides cannot be compared side by side: with
    ``strict`` that is an error, otherwise only the other metrics are compared.

    Raises:
        AnalysisError: an unknown metric, runs that cannot be compared (with ``strict``) or
            paired (``paired=True``), paired runs with no common hand.
    """
    asked = check_metrics(metrics)
    chosen, note = _metrics_for(a, b, asked, strict)
    can_pair, why = pairing(a, b)
    use_pair = can_pair if paired is None else paired
    if use_pair and not can_pair:
        raise AnalysisError(f"{a.label} and {b.label} cannot be paired: {why}")
    if not use_pair and can_pair:
        why = "unpaired on request"
    results: list[S.TestResult] = []
    n_pairs = 0
    for level in ("hand", "match"):
        ms = [m for m in chosen if COMPARE_METRICS[m][2] == level]
        if not ms:
            continue
        if use_pair:
            t = _paired_sums(a, b, ms, level)
            n = t["__pairs"]
            if level == "hand":
                n_pairs = n
            if n == 0:
                raise AnalysisError(f"{a.label} and {b.label} have no common (match, hand)")
            for m in ms:
                if COMPARE_METRICS[m][0] == "mean":
                    mean_d, sd_d = _mean_sd(n, t[f"{m}__s1"], t[f"{m}__s2"])
                    results.append(
                        S.paired_t_from_stats(
                            m, t[f"{m}__sb"] / n, t[f"{m}__sa"] / n, mean_d, sd_d, n
                        )
                    )
                else:
                    results.append(
                        S.mcnemar(
                            m,
                            t[f"{m}__both"],
                            t[f"{m}__only_b"],
                            t[f"{m}__only_a"],
                            t[f"{m}__neither"],
                        )
                    )
        else:
            sa, sb = _run_sums(a, ms, level), _run_sums(b, ms, level)
            for m in ms:
                na, nb = sa[f"{m}__n"], sb[f"{m}__n"]
                if COMPARE_METRICS[m][0] == "mean":
                    ma, sda = _mean_sd(na, sa[f"{m}__s1"], sa[f"{m}__s2"])
                    mb, sdb = _mean_sd(nb, sb[f"{m}__s1"], sb[f"{m}__s2"])
                    results.append(S.welch_t_from_stats(m, mb, sdb, nb, ma, sda, na))
                else:
                    results.append(S.two_proportion_z(m, sb[f"{m}__s1"], nb, sa[f"{m}__s1"], na))
    return PairComparison(a, b, use_pair, why, n_pairs, tuple(results), note)


def compare(
    directories: Sequence[str | Path] | Sequence[Run],
    metrics: Sequence[str] = (),
    paired: bool | None = None,
    strict: bool = True,
) -> Comparison:
    """Each run against the first; Holm's correction over every test reported.

    Args:
        directories: the runs, or their directories; the first is the baseline.
        metrics: the metrics to compare (default: every one the runs allow).
        paired: pair by deal (None: exactly when the runs were dealt the same decks).
        strict: refuse metrics the runs cannot compare instead of leaving them out.

    Returns:
        The :class:`Comparison`: one :class:`PairComparison` a run after the first.

    Raises:
        AnalysisError: fewer than two runs, the same run twice, an unknown metric, runs
            that cannot be compared or paired.
        DatasetError: a directory that holds no finished run.
    """
    runs = tuple(r if isinstance(r, Run) else open_run(r) for r in directories)
    if len(runs) < 2:
        raise AnalysisError("compare needs at least two runs")
    check_distinct(runs, "a run compared with itself differs in nothing")
    runs = distinct_labels(runs)
    pairs = [compare_pair(runs[0], b, metrics, paired, strict) for b in runs[1:]]
    flat = S.with_holm([r for p in pairs for r in p.results])
    out, i = [], 0
    for p in pairs:
        k = len(p.results)
        out.append(replace(p, results=flat[i : i + k]))
        i += k
    return Comparison(runs, tuple(out))


__all__ = [
    "COMPARE_METRICS",
    "GROUP_KEYS",
    "SECTIONS",
    "Analysis",
    "AnalysisError",
    "Comparison",
    "Convergence",
    "Distribution",
    "GroupResult",
    "MatchStats",
    "PairComparison",
    "analyze",
    "compare",
    "compare_pair",
    "convergence",
    "open_runs",
    "pairing",
    "scan_hands",
]
