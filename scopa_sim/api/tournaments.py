"""Policies head to head: :func:`tournament`, the function the ``tournament`` command and
a notebook call alike, and its result :class:`Tournament`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scopa_sim.api.display import box, esc, est_cells, first_few, table
from scopa_sim.api.inputs import named_rules, one_line_errors, search_budget, whole
from scopa_sim.errors import PolicyError, TournamentError
from scopa_sim.files import json_number

if TYPE_CHECKING:
    import polars as pl

    from scopa_sim.game.rules import Rules
    from scopa_sim.sim.tournament import PairingResult, Sprt, Standing
    from scopa_sim.stats.estimate import Estimate


#: The columns of a pairing's row in the HTML views.
PAIRING_HEAD = ["a", "b", "a - b per hand", "95% CI", "deal pairs", "W/D/L", "Elo (95% CI)"]


@dataclass(frozen=True, repr=False)
class Pairing:
    """Policy ``a`` against ``b`` over ``deal_pairs`` deals, each played twice with the
    sides swapped: ``margin`` is a's points minus b's per hand, ``score`` a's share of
    the points of a match (wins and half the draws), ``elo`` its Elo difference."""

    a: str
    b: str
    deal_pairs: int
    margin: Estimate
    wins: int
    draws: int
    losses: int
    score: float
    elo: Estimate
    sprt_llr: float | None
    sprt_verdict: str | None

    @classmethod
    def of(cls, x: PairingResult) -> Pairing:
        m = x.margin
        return cls(
            x.a, x.b, x.deal_pairs, m, x.wins, x.draws,
            x.losses, x.score, x.elo, x.sprt_llr, x.sprt_verdict,
        )  # fmt: skip

    def _cells(self) -> list[str]:
        return [esc(self.a), esc(self.b), *est_cells(self.margin, "+.3f"),
                f"{self.wins}/{self.draws}/{self.losses}",
                self.elo.text("+.0f")]  # fmt: skip

    def __repr__(self) -> str:
        """``Pairing(expert vs random: +2.375 [+1.9, +2.8] points per hand, ...)``."""
        return (f"Pairing({self.a} vs {self.b}: {self.margin.text('+.3f')} points per hand, "
                f"{self.deal_pairs:,} deal pairs, W/D/L {self.wins}/{self.draws}/{self.losses},"
                f" Elo {self.elo.estimate:+.0f})")  # fmt: skip

    def _repr_html_(self) -> str:
        """The pairing as a one-row table."""
        title = f"scopa-sim pairing: {self.a} against {self.b}"
        return box(title, table(PAIRING_HEAD, [self._cells()]))


@dataclass(frozen=True, repr=False)
class Tournament:
    """Every pairing of the policies on the same deals, and the Elo ladder (least-squares
    fit, mean 0) best first (the ``tournament`` command). ``results`` are the pairings
    as the library computed them, ``sprt`` the sequential test they ran under."""

    preset: str
    seed: int
    deals: int
    pairings: tuple[Pairing, ...]
    ladder: tuple[tuple[str, float], ...]
    #: Every policy's standing, best first: not significantly worse than any other first,
    #: then by its worst pairing (:func:`scopa_sim.sim.tournament.standings`).
    standings: tuple[Standing, ...] = ()
    rules: Rules | None = field(compare=False, default=None)
    results: tuple[PairingResult, ...] = field(compare=False, default=())
    sprt: Sprt | None = field(compare=False, default=None)

    @property
    def best(self) -> str:
        """The policy with the best worst pairing among those no other beats."""
        return self.standings[0].policy

    def to_dict(self) -> dict[str, Any]:
        """What ``scopa-sim tournament --json`` prints."""
        return {
            "preset": self.preset,
            "rules": self.rules.as_dict() if self.rules is not None else None,
            "seed": self.seed,
            "deals": self.deals,
            "pairings": [
                {
                    "a": x.a,
                    "b": x.b,
                    "deal_pairs": x.deal_pairs,
                    "margin": x.margin.estimate,
                    "margin_ci": [json_number(x.margin.low), json_number(x.margin.high)],
                    "wins": x.wins,
                    "draws": x.draws,
                    "losses": x.losses,
                    "score": x.score,
                    "elo": x.elo.estimate,
                    "elo_ci": [json_number(x.elo.low), json_number(x.elo.high)],
                    "sprt_llr": x.sprt_llr,
                    "sprt_verdict": x.sprt_verdict,
                }
                for x in self.results
            ],
            "ladder": [{"policy": p, "elo": e} for p, e in self.ladder],
            "standings": [x.to_dict() for x in self.standings],
        }

    def to_text(self) -> str:
        """What ``scopa-sim tournament`` prints: each pairing with its CIs (and the
        sequential test's verdict), the Elo ladder, the standings."""
        from scopa_sim.stats.inference import MIN_SAMPLES

        assert self.rules is not None
        test = self.sprt
        lines = [
            f"rules {self.preset} ({self.rules.digest()}), seed {self.seed}; each deal played "
            "twice, sides swapped"
        ]
        for x in self.results:
            if x.margin.estimated:
                margin_ci = f"95% CI [{x.margin.low:+.3f}, {x.margin.high:+.3f}]"
                elo_ci = f" [{x.elo.low:+.0f}, {x.elo.high:+.0f}]"
            else:
                margin_ci = f"no CI (not estimated from fewer than {MIN_SAMPLES} deal pairs)"
                elo_ci = ""
            lines.append(
                f"{x.a} vs {x.b}: {x.margin.estimate:+.3f} points per hand, {margin_ci} over "
                f"{x.deal_pairs} deal pairs; W/D/L {x.wins}/{x.draws}/{x.losses}, "
                f"Elo {x.elo.estimate:+.0f}{elo_ci}"
            )
            if x.sprt_llr is not None and test is not None:
                lo, hi = test.bounds
                verdict = {"H1": f"H1 (elo >= {test.elo1:g})", "H0": f"H0 (elo <= {test.elo0:g})"}
                lines.append(
                    f"  SPRT elo0={test.elo0:g} elo1={test.elo1:g} alpha={test.alpha} "
                    f"beta={test.beta}: LLR {x.sprt_llr:+.2f} in [{lo:.2f}, {hi:.2f}] -> "
                    f"{verdict.get(x.sprt_verdict or '', 'inconclusive')}"
                )
        lines.append("Elo ladder (least-squares fit, mean 0):")
        lines += [f"  {e:+7.1f}  {p}" for p, e in self.ladder]
        lines.append(
            "Standings (not significantly worse than any other first, then by the worst pairing):"
        )
        for s in self.standings:
            m = s.worst_margin
            ci = f" [{m.low:+.3f}, {m.high:+.3f}]" if m.estimated else " (no CI)"
            worse = ", ".join(s.worse_against) if s.worse_against else "none"
            lines.append(
                f"  {s.policy}: worst pairing {m.estimate:+.3f}{ci} vs {s.worst_opponent}; "
                f"significantly worse against: {worse}"
            )
        return "\n".join(lines) + "\n"

    def to_polars(self) -> pl.DataFrame:
        import polars as pl

        rows = [
            {
                "a": x.a,
                "b": x.b,
                "deal_pairs": x.deal_pairs,
                "margin": x.margin.estimate,
                "ci_low": x.margin.low,
                "ci_high": x.margin.high,
                "wins": x.wins,
                "draws": x.draws,
                "losses": x.losses,
                "score": x.score,
                "elo": x.elo.estimate,
            }
            for x in self.pairings
        ]
        cols = ["a", "b", "deal_pairs", "margin", "ci_low", "ci_high", "wins", "draws"]
        return pl.DataFrame(rows, schema=[*cols, "losses", "score", "elo"], orient="row")

    def __repr__(self) -> str:
        parts = [f"{x.a} vs {x.b}: {x.margin} points per hand" for x in self.pairings]
        board = first_few([f"{p} {e:+.0f}" for p, e in self.ladder], 6, ", ")
        return f"Tournament({first_few(parts, 2)}; Elo {board})"

    def _repr_html_(self) -> str:
        rows = [x._cells() for x in self.pairings]
        board = table(["policy", "Elo"], [[esc(p), f"{e:+.1f}"] for p, e in self.ladder])
        title = f"scopa-sim tournament: {self.preset}, seed {self.seed}, {self.deals} deal pairs"
        return box(title, table(PAIRING_HEAD, rows), "<br>", board)


@one_line_errors
def tournament(
    *policies: str,
    preset: str | None = None,
    rules: Rules | None = None,
    overrides: Mapping[str, Any] | None = None,
    deals: int = 200,
    seed: int = 0,
    sprt: tuple[float, float] | None = None,
    alpha: float | None = None,
    beta: float | None = None,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
) -> Tournament:
    """Policies head to head on paired, seat-swapped deals, with CIs and an Elo ladder
    (the ``tournament`` command).

    Args:
        policies: two or more policy texts (``"expert"``, ``"pimc:worlds=8"``).
        preset, rules, overrides: the rules (a preset's, a :class:`Rules`, options
            changed on top; default the ``scopa`` preset).
        deals: deal pairs each pairing plays.
        seed: the seed of the deals and of the policies' decisions.
        sprt: ``(elo0, elo1)``: stop early on a sequential probability ratio test (two
            policies), with error rates ``alpha`` and ``beta`` (default 0.05 each).
        workers: processes playing the deals (the results do not depend on it).
        progress: called with 1 after each deal pair.

    Returns:
        The :class:`Tournament`.

    Raises:
        InputError: a count (deals, seed, workers) that is not a whole number in range.
        TournamentError: fewer than two policies, twice the same, a bad sequential
            test, rules without two sides.
        PolicyError: an unknown policy or parameter.
        RulesError: unknown rules, or under Cirulla a policy that does not play it.
    """
    from scopa_sim.bots.registry import PolicySpec
    from scopa_sim.sim.tournament import Sprt, ladder, run_tournament, standings

    name, r = named_rules(preset, rules, overrides)
    if not all(isinstance(p, str) for p in policies):
        raise PolicyError(f"a policy is a text such as 'expert', not {policies!r}")
    specs = [search_budget(PolicySpec.parse(p)) for p in policies]
    if r.capture_mode == "cirulla":  # RULES.md §10: the kernel policies play it so far
        from scopa_sim.sim.match import check_cirulla_policies

        check_cirulla_policies(specs)
    test = None
    if sprt is not None:
        if not (
            isinstance(sprt, tuple | list)
            and len(sprt) == 2
            and all(isinstance(x, int | float) and not isinstance(x, bool) for x in sprt)
        ):
            raise TournamentError(f"sprt {sprt!r}: expected two Elo numbers (elo0, elo1)")
        a = 0.05 if alpha is None else alpha
        b = 0.05 if beta is None else beta
        test = Sprt(float(sprt[0]), float(sprt[1]), a, b)
    elif alpha is not None or beta is not None:
        raise TournamentError(
            "alpha and beta are the error rates of the sequential test: give sprt too"
        )
    deals = whole("deals", deals, 2)
    seed = whole("seed", seed, 0)
    workers = whole("workers", workers, 1)
    results = run_tournament(r, specs, deals, seed, test, progress, workers)
    names = [str(p) for p in specs]
    return Tournament(
        name, seed, deals, tuple(Pairing.of(x) for x in results), tuple(ladder(names, results)),
        tuple(standings(names, results)), r, tuple(results), test,
    )  # fmt: skip


__all__ = ["Pairing", "Tournament", "tournament"]
