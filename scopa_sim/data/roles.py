"""A run's hands by role: the tidy view of the pinned schema.

The pinned schema (:data:`scopa_sim.data.dataset.COLUMN_TYPES`) has room for four seats
and four sides whatever the game, so a 2-player run carries 26 columns that are always
null; and its points are per *side* (``s{k}_points``) while the dealer and the first
player are *seats*. :func:`by_role` turns a run's rows into one row per hand by role:

* the hand: ``run_id``, ``preset``, ``rules_hash``, ``seed``, ``players``, ``sides``,
  ``match``, ``hand``, ``dealer``, ``first_player`` (seats), ``redeals``, ``plays``;
* the dealer's side and the first player's side: ``dealer_side`` and ``first_side``,
  then ``dealer_{x}`` and ``first_{x}`` for each score item (``scope``, ``cards``,
  ``denari``, ``settebello``, ``primiera``, ``re_bello`` and ``napola`` when the rules
  score them, ``points``) and each pile statistic (``captured``, ``denari_count``,
  ``primiera_value``, ``sevens``), and ``margin`` = ``dealer_points - first_points``
  (the analyses' dealer margin);
* with ``--matches`` runs, each role's match total after the hand (``dealer_total``,
  ``first_total``) and ``winner`` (the side that won the match, on its last hand);
* each seat ``s`` of the game: ``seat{s}_policy``, ``seat{s}_side`` and ``seat{s}_points``
  (its side's points).

Which columns exist follows from the run's configuration (players, mode, rules), never
from its data, so every run of one configuration has the same columns, none of them
always null. The side of a seat is read per row (``sides < players`` means teams), the
one place the analyses read it too (:mod:`scopa_sim.analysis.analyze`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from scopa_sim.data import dataset as D
from scopa_sim.errors import DatasetError
from scopa_sim.files import write_with

if TYPE_CHECKING:
    import polars as pl

    from scopa_sim.game.rules import Rules


class RunConfig(Protocol):
    """What the view by role reads of a run's configuration
    (:class:`scopa_sim.data.run.SimConfig`): its rules and mode."""

    @property
    def rules(self) -> Rules: ...

    @property
    def mode(self) -> str: ...


#: The roles of a hand whose side's figures the view gives, with the seat column naming it.
ROLES = {"dealer": "dealer", "first": "first_player"}
#: Score items that exist only under a rule option (item -> option).
OPTIONAL_ITEMS = {
    "re_bello": "re_bello",
    "napola": "napola",
    "four_sevens": "four_sevens_point",
    **dict.fromkeys(D.CIRULLA_ITEMS, "cirulla"),  # Cirulla's items (RULES.md §10)
}
#: The hand's own columns, kept as they are.
HAND_COLUMNS = (
    "run_id",
    "preset",
    "rules_hash",
    "seed",
    "players",
    "sides",
    "match",
    "hand",
    "dealer",
    "first_player",
    "redeals",
    "plays",
)


def int_col(name: str) -> pl.Expr:
    """Column ``name`` as Int32 (the schema's small integer types mixed safely)."""
    import polars as pl

    return pl.col(name).cast(pl.Int32)


def side_of(seat: pl.Expr) -> pl.Expr:
    """The side of a seat: seat mod 2 with teams (fewer sides than players), else the seat."""
    import polars as pl

    teams = int_col("sides") < int_col("players")
    return pl.when(teams).then(seat % int_col("sides")).otherwise(seat)


def side_value(side: pl.Expr, column: str) -> pl.Expr:
    """Column ``s{side}_{column}`` of each row (the side varies by row), as Int32."""
    import polars as pl

    e: Any = pl.when(side == 0).then(int_col(f"s0_{column}"))
    for k in range(1, D.MAX_SIDES):
        e = e.when(side == k).then(int_col(f"s{k}_{column}"))
    out: pl.Expr = e.otherwise(None)
    return out


def role_items(config: RunConfig) -> tuple[str, ...]:
    """The score items and pile statistics the view gives for each role: every item the
    rules score (``re_bello`` and ``napola`` only under their options, Cirulla's grande,
    piccola and declarations under its rules), then the stats."""
    items = [
        i
        for i in (*D.ITEMS, *D.CIRULLA_ITEMS)
        if i not in OPTIONAL_ITEMS or getattr(config.rules, OPTIONAL_ITEMS[i])
    ]
    return (*items, *D.SIDE_STATS)


def by_role(hands: pl.LazyFrame, config: RunConfig) -> pl.LazyFrame:
    """The rows of a run (``hands``, with the pinned schema) as one tidy row per hand by
    role: see the module's docstring for the columns. Lazy: nothing is read until the
    frame is collected."""
    import polars as pl

    out: list[pl.Expr] = [pl.col(c) for c in HAND_COLUMNS]
    sides = {role: side_of(int_col(seat)) for role, seat in ROLES.items()}
    out += [sides[role].cast(pl.Int8).alias(f"{role}_side") for role in ROLES]
    for role in ROLES:
        for item in role_items(config):
            out.append(side_value(sides[role], item).cast(pl.Int16).alias(f"{role}_{item}"))
    margin = side_value(sides["dealer"], "points") - side_value(sides["first"], "points")
    out.append(margin.cast(pl.Int16).alias("margin"))
    if config.mode == "matches":
        out += [side_value(sides[role], "total").alias(f"{role}_total") for role in ROLES]
        out.append(pl.col("winner"))
    for s in range(config.rules.players):
        seat = side_of(pl.lit(s, pl.Int32))
        out += [
            pl.col(f"policy_{s}").alias(f"seat{s}_policy"),
            seat.cast(pl.Int8).alias(f"seat{s}_side"),
            side_value(seat, "points").cast(pl.Int16).alias(f"seat{s}_points"),
        ]
    return hands.select(out)


#: The file formats :func:`write_by_role` writes, by suffix.
FORMATS = (".parquet", ".csv")


def write_by_role(frames: Sequence[pl.LazyFrame], path: str | Path) -> Path:
    """Write the hands of one or more runs by role (:func:`by_role` frames) to ``path``, a
    ``.parquet`` or ``.csv`` file, streaming (a run need not fit in memory) and atomically
    (:func:`scopa_sim.files.write_with`). Runs of different games are stacked with the
    columns of all (a 2-player run's rows have no ``seat2_points``, say, left null)."""
    import polars as pl

    p = Path(path)
    if p.suffix.lower() not in FORMATS:
        raise DatasetError(f"{p}: the hands by role are written to a .parquet or a .csv file")
    if not frames:
        raise DatasetError("no run to write")
    lf = frames[0] if len(frames) == 1 else pl.concat(list(frames), how="diagonal")
    if p.suffix.lower() == ".csv":
        write_with(p, lambda tmp: lf.sink_csv(tmp))
    else:
        write_with(p, lambda tmp: lf.sink_parquet(tmp))
    return p


__all__ = [
    "FORMATS",
    "HAND_COLUMNS",
    "ROLES",
    "by_role",
    "role_items",
    "side_of",
    "side_value",
    "write_by_role",
]
