"""Policy specifications (``random``, ``greedy``, ``expert``, ``learned``,
``pimc:worlds=12``, ``ismcts:...``) and their text form on the command line.

``random``, ``greedy``, ``expert`` and ``learned`` run inside the jitted playout loops; the search
policies are bots (:mod:`scopa_sim.bots.search`) called once per decision.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from scopa_sim.bots.objective import MATCH_LEAVES, OBJECTIVES
from scopa_sim.errors import PolicyError

from .base import KERNEL_CODES, MAX_WORLDS, WORLDS_UNIT, Bot, KernelBot

Param = Callable[[str, str], object]


def _int(name: str, lo: int, hi: int | None = None) -> Param:
    def conv(policy: str, text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            v = lo - 1
        if v < lo or (hi is not None and v > hi):
            want = f">= {lo}" if hi is None else f"in [{lo}, {hi}]"
            raise PolicyError(
                f"policy {policy!r} parameter {name}={text!r}: expected an integer {want}"
            )
        return v

    return conv


def _float(name: str, hi: float = math.inf) -> Param:
    def conv(policy: str, text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            v = math.nan
        if not v > 0 or math.isinf(v):
            raise PolicyError(f"policy {policy!r} parameter {name}={text!r}: expected a number > 0")
        if v > hi:
            raise PolicyError(f"policy {policy!r} parameter {name}={text!r}: at most {hi:,.0f}")
        return v

    return conv


def _weight(name: str) -> Param:
    """A number in [0, 1] (a mixture weight)."""

    def conv(policy: str, text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            v = math.nan
        if not 0.0 <= v <= 1.0:
            raise PolicyError(
                f"policy {policy!r} parameter {name}={text!r}: expected a weight in [0, 1]"
            )
        return v

    return conv


def _choice(name: str, allowed: tuple[str, ...]) -> Param:
    def conv(policy: str, text: str) -> str:
        if text not in allowed:
            raise PolicyError(
                f"policy {policy!r} parameter {name}={text!r}: expected one of {', '.join(allowed)}"
            )
        return text

    return conv


def _flag(name: str) -> Param:
    choice = _choice(name, ("0", "1"))
    return lambda policy, text: int(str(choice(policy, text)))


def _belief(policy: str, text: str) -> str:
    """The ``belief=`` parameter: a model of :data:`scopa_sim.bots.belief.MODELS` (imported
    here, when a search bot that needs it is specified)."""
    from scopa_sim.bots.belief import BELIEFS

    return str(_choice("belief", BELIEFS)(policy, text))


#: The largest time budget of a search, in milliseconds per decision (``ms=``): an hour.
#: A longer one is a slip (``ms=1e308`` searched until memory ran out), and its tree would
#: outgrow memory within the hour anyway.
MAX_MS = 3_600_000.0
#: The most virtual visits of ISMCTS's root prior (``prior_visits=``).
MAX_PRIOR_VISITS = 1_000_000.0


def _bot(cls: str) -> Callable[..., Bot]:
    """A constructor from :mod:`scopa_sim.bots.search` (or :mod:`scopa_sim.bots.evaluate` for the
    evaluator), imported when a bot is first built: the jitted policies need neither."""

    def build(**kwargs: object) -> Bot:
        module = importlib.import_module(
            "scopa_sim.bots.evaluate" if cls == "EvalBot" else "scopa_sim.bots.search"
        )
        bot: Bot = getattr(module, cls)(**kwargs)
        return bot

    return build


@dataclass(frozen=True)
class PolicyKind:
    """One entry of the policy registry: what the name means and how it is built."""

    name: str
    summary: str  #: one line for help texts and reports
    params: Mapping[str, Param]  #: parameter name -> converter (text -> value, validated)
    build: Callable[..., Bot]  #: the bot playing it, from the converted parameters
    kernel: int | None = None  #: the kernel code of a policy jitted into the playout loops

    @property
    def is_kernel(self) -> bool:
        """Whether the policy is jitted into the playout loops (it has a kernel code)."""
        return self.kernel is not None


def _kernel_policy(
    name: str, summary: str, params: Mapping[str, Param] | None = None
) -> PolicyKind:
    def build(**kwargs: object) -> Bot:
        return KernelBot(name, **kwargs)  # type: ignore[arg-type]

    return PolicyKind(name, summary, params or {}, build, KERNEL_CODES[name])


#: The objective of a search bot (PIMC, ISMCTS, the solver). ``objective=margin`` (the
#: default) maximises the hand's point margin; ``objective=match`` plays for the match
#: (two sides): a hand is valued by the probability of winning the match from the totals
#: it leaves, by the match-equity table of ``equity=`` -- ``expert`` (the default),
#: ``greedy`` or ``random`` (that policy's self-play, built on first use) or the path of a
#: table file written by ``scopa-sim equity`` (:mod:`scopa_sim.bots.objective`);
#: ``match_leaf=normal|calibrated`` its model of an unfinished hand at a depth limit;
#: ``match_close=X`` plays for the match only where the equity before the hand is in
#: [X, 1 - X].
_OBJECTIVE: dict[str, Param] = {
    "objective": _choice("objective", OBJECTIVES),
    "equity": lambda p, t: t,  # a model policy or a table file: checked by the bot
    "match_leaf": _choice("match_leaf", MATCH_LEAVES),
    "match_close": _float("match_close"),
}


#: Every policy by name: the one registry (the command line, ``PolicySpec`` and the bots
#: all read it).  The jitted ones first, then the search bots.
POLICIES: dict[str, PolicyKind] = {
    p.name: p
    for p in (
        _kernel_policy("random", "uniform over all distinct legal (card, captured set) plays"),
        _kernel_policy(
            "greedy",
            "one-ply heuristic: scopa, settebello, denari, cards, primiera cards; "
            "avoids leaving a sweepable table",
        ),
        _kernel_policy(
            "expert",
            "three-ply expectimax on the seat's information set: the score items priced by a "
            "binomial model of the cards still to capture, the next seat's best reply averaged "
            "exactly over its possible hands, and this seat's best answer to it",
        ),
        _kernel_policy(
            "learned",
            "a small network over the seat's information state, evaluated in numba, plus "
            "the exact endgame where the seat's information set is one world "
            "(weights trained per preset); worlds=K (2 players, Scopa's rules): in the "
            "round before the last, the exact solver's mean over K sampled worlds blended "
            "with the network (0: off, the default)",
            {"worlds": _int("worlds", 0, MAX_WORLDS)},
        ),
        PolicyKind(
            "pimc",
            "determinized search over K worlds: worlds=12, depth=5, exact_below=8, "
            "leaf=estimate|expert, belief=uniform|expert|fit|robust, uniform=W (robust's weight), "
            "objective=margin|match, "
            "equity=expert|PATH, match_leaf=normal|calibrated",
            {
                "worlds": _int("worlds", 1),
                "depth": _int("depth", 1),
                "exact_below": _int("exact_below", 0),
                "leaf": _choice("leaf", ("estimate", "expert")),
                "belief": _belief,
                "uniform": _weight("uniform"),
                **_OBJECTIVE,
            },
            _bot("PIMCBot"),
        ),
        PolicyKind(
            "ismcts",
            "information-set MCTS: iterations=1000, c=0.7, rollout=random|greedy|expert|learned, "
            "ms=, exact=0|1, horizon=, leaf=estimate|expert|learned, "
            "belief=uniform|expert|fit|robust, "
            "uniform=W (robust's weight), reply=uct|tree|model|weak, uct_floor=W, reply_min=W, "
            "reply_gate=W, prior=none|learned, prior_visits=N, "
            "objective=margin|match, equity=expert|PATH, match_leaf=normal|calibrated",
            {
                "iterations": _int("iterations", 1),
                "c": _float("c"),
                "rollout": _choice("rollout", ("random", "greedy", "expert", "learned")),
                "ms": _float("ms", MAX_MS),
                "exact": _flag("exact"),
                "horizon": _int("horizon", 0),
                "leaf": _choice("leaf", ("estimate", "expert", "learned")),
                "belief": _belief,
                "uniform": _weight("uniform"),
                "reply": _choice("reply", ("uct", "tree", "model", "weak")),
                "uct_floor": _weight("uct_floor"),
                "reply_min": _weight("reply_min"),
                "reply_gate": _weight("reply_gate"),
                "prior": _choice("prior", ("none", "learned")),
                "prior_visits": _float("prior_visits", MAX_PRIOR_VISITS),
                **_OBJECTIVE,
            },
            _bot("ISMCTSBot"),
        ),
        PolicyKind(
            "solver",
            "perfect-information cheat (sees every card), for reference: depth=, "
            "objective=margin|match, equity=expert|PATH, match_leaf=normal|calibrated",
            {"depth": _int("depth", 1), **_OBJECTIVE},
            _bot("SolverBot"),
        ),
        PolicyKind(
            "eval",
            "the review evaluator (common worlds, rollouts, exact open endgames): worlds=256, "
            "rollout=greedy|expert|random|learned, exact=0|1",
            {
                "worlds": _int("worlds", 1),
                "rollout": lambda p, t: t,  # checked by the evaluator (kernel policies)
                "exact": _flag("exact"),
            },
            _bot("EvalBot"),
        ),
    )
}


#: Names that stand for a full policy text, expanded when a policy is parsed, so results
#: always name the full parameters. ``best`` is the documented best bot: of the settings of
#: the round robin at equal time per move that no other setting beats, the one with the
#: best worst pairing, or a setting the round robin shows level with it that meets more of
#: the best bot's targets (:mod:`scopa_sim.sim.ranking`, applied by
#: ``python -m scopa_sim.experiments.pick_best``; docs/results/ladder.md: 591 iterations
#: take the time of ``ismcts:iterations=1000,horizon=4,c=1`` per move; the search is the
#: robust belief's but where an opponent's plays make a weak type nine times likelier than not).
ALIASES: dict[str, str] = {
    "best": "ismcts:iterations=591,horizon=4,c=1,belief=robust,reply=weak,reply_gate=0.9",
}


def _known() -> str:
    """The policy names and aliases, for error messages."""
    return f"{', '.join(POLICIES)}; aliases: {', '.join(ALIASES)}"


def kernel_policies() -> list[str]:
    """The names of the policies jitted into the playout loops."""
    return [n for n, p in POLICIES.items() if p.is_kernel]


def search_policies() -> list[str]:
    """The names of the search bots (called once per decision)."""
    return [n for n, p in POLICIES.items() if not p.is_kernel]


def make_bot(name: str, params: Mapping[str, str] | None = None) -> Bot:
    """A bot by name (any registered policy) with text parameters, validated; raises
    :class:`PolicyError` naming the bad parameter.

    Raises:
        PolicyError: an unknown bot, an unknown or bad parameter, parameters to an alias, a
            combination of parameters the bot refuses.
    """
    key = name.strip().lower()
    if key in ALIASES:
        if params:
            raise PolicyError(f"{key!r} is {ALIASES[key]}: it takes no parameters")
        return PolicySpec.parse(ALIASES[key]).bot()
    if key not in POLICIES:
        raise PolicyError(f"unknown bot {name!r}; bots: {_known()}")
    kind = POLICIES[key]
    kwargs: dict[str, object] = {}
    for k, v in (params or {}).items():
        if k not in kind.params:
            allowed = ", ".join(kind.params) if kind.params else "none"
            raise PolicyError(f"unknown parameter {k!r} for bot {key!r}; allowed: {allowed}")
        kwargs[k] = kind.params[k](key, str(v).strip())
    try:
        return kind.build(**kwargs)
    except PolicyError:
        raise
    except ValueError as e:  # a combination of parameters the bot refuses
        raise PolicyError(f"policy {key!r}: {e}") from None


@dataclass(frozen=True)
class PolicySpec:
    """A policy by name with its parameters, e.g. ``ismcts:iterations=1000,c=0.7``."""

    name: str
    params: tuple[tuple[str, str], ...] = field(default=())

    @classmethod
    def parse(cls, text: str) -> PolicySpec:
        """A policy text (``ismcts:iterations=1000,c=1``) as a :class:`PolicySpec`: its
        name, or an alias of one, and its ``k=v`` parameters (checked against the policy's
        when its bot is made: :func:`make_bot`).

        Raises:
            PolicyError: an unknown policy, a parameter not written ``k=v`` or given twice,
                parameters to a kernel policy or an alias, a number beyond 2^31 - 1.
        """
        name, sep, rest = text.strip().partition(":")
        name = name.strip().lower()
        if name in ALIASES:
            if sep:
                raise PolicyError(
                    f"policy {name!r} is {ALIASES[name]}: it takes no parameters (write the "
                    f"full text to change one)"
                )
            return cls.parse(ALIASES[name])
        if name not in POLICIES:
            raise PolicyError(f"unknown policy {name!r}; policies: {_known()}")
        params: list[tuple[str, str]] = []
        if rest.strip():
            for item in rest.split(","):
                key, sep, value = item.partition("=")
                if not sep:
                    raise PolicyError(f"bad policy parameter {item!r} in {text!r}: expected k=v")
                key = key.strip()
                if any(k == key for k, _ in params):
                    raise PolicyError(f"policy parameter {key!r} given twice in {text!r}")
                params.append((key, value.strip()))
        if params and not POLICIES[name].params:
            raise PolicyError(f"policy {name!r} takes no parameters (got {params[0][0]!r})")
        for key, value in params:  # counts size arrays: beyond 32 bits they cannot be made
            if value.lstrip("+-").isdecimal() and int(value) > 2**31 - 1:
                raise PolicyError(
                    f"policy {name!r} parameter {key}={value}: at most {2**31 - 1} (in {text!r})"
                )
        spec = cls(name, tuple(params))
        if params or not POLICIES[name].is_kernel:
            spec.bot()  # validates the parameters
        return spec

    @property
    def is_kernel(self) -> bool:
        """True for policies that run inside the jitted playout loops."""
        return POLICIES[self.name].is_kernel

    @property
    def code(self) -> int:
        """The kernel code of a jitted policy.

        Raises:
            PolicyError: a search policy (it has no kernel code).
        """
        if not self.is_kernel:
            raise PolicyError(f"policy {self} is a search policy, not a kernel policy")
        code = POLICIES[self.name].kernel
        assert code is not None
        worlds = dict(self.params).get("worlds")  # learned:worlds=K (validated by parse)
        return code + (WORLDS_UNIT * int(worlds) if worlds else 0)

    def bot(self) -> Bot:
        """A bot playing this policy (kernel policies too, one decision at a time)."""
        return make_bot(self.name, dict(self.params))

    def __str__(self) -> str:
        if not self.params:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v}" for k, v in self.params)


def seat_policies(policies: Sequence[str | PolicySpec], players: int) -> list[PolicySpec]:
    """One policy per seat: none given = random everywhere, one = all seats, else one each.

    Texts are parsed (each distinct text once: parsing a search policy builds its bot to
    check the parameters); a :class:`PolicySpec` is already parsed and is kept as it is.

    Raises:
        PolicyError: as many policies as neither one nor the seats, or a bad policy text.
    """
    parsed: dict[str, PolicySpec] = {}

    def spec(p: str | PolicySpec) -> PolicySpec:
        if isinstance(p, PolicySpec):
            return p
        if p not in parsed:
            parsed[p] = PolicySpec.parse(p)
        return parsed[p]

    specs = [spec(p) for p in policies] or [PolicySpec("random")]
    if len(specs) == 1:
        return specs * players
    if len(specs) != players:
        raise PolicyError(
            f"give one --policy for all seats or one per seat ({players}), got {len(specs)}"
        )
    return specs
