"""The embedded study: first-player advantage and rule effects under weak and strong play.

Three parts, each a Markdown report with figures (:mod:`scopa_sim.analysis.study.parts_a_to_c`):

* **A** — the dealer margin (dealer's side minus first player's side, points per hand) in
  every preset under ``random``, ``greedy``, ``expert`` and the search setting
  :data:`SEARCH_POLICY`, each from a plain ``--hands`` run and its *duplicate* (the same
  decks with the seats' cards exchanged, :mod:`scopa_sim.sim.duplicate`), with the variance
  reduction of duplicates and of control variates measured on the study's own data, and
  ``escoba``'s under the other reading of its opening take (:data:`READINGS_A`, under
  the kernel policies);
* **B** — every rule option of :data:`OPTION_EFFECTS`, toggled from ``scopa``, and the
  options of the sum-to-fifteen family (:data:`FIFTEEN_EFFECTS`: ``capture_mode=fifteen``
  from ``scopa``, ``capture_compulsory=false`` from ``scopa`` and from ``scopa-15``,
  ``opening_fifteen=true`` from ``scopa-15``, ``escoba`` against ``scopa-15``, and the
  Escoba readings from ``escoba``: the opening fifteen to the first player, the setenta as
  most sevens, the four-sevens point), each
  paired on the decks with its baseline: per hand under every policy (the key options
  :data:`KEY_OPTIONS` and :data:`KEY_FIFTEEN_EFFECTS` only under search), per match
  under ``expert``, and the policy-dependence table;
* ``learned`` (:data:`LEARNED`) — parts A and B per hand under the presets of
  :data:`LEARNED_PRESETS` and the option variants that derive from them, its tests
  Holm-adjusted in families of their own; not in parts C and D;
* **D** — what a deal is worth (issue 27, :mod:`scopa_sim.analysis.study.part_d`): each
  card's value to the side dealt it, the opening-hand and opening-table tables of the
  2-player presets under ``expert``, the share of the margin the deal alone explains, and
  how often the stronger policy wins a match (:data:`STRENGTH_PAIRS`), from part A's plain
  runs and runs of its own (:func:`part_d_runs`);
* **C** — the match level: the first mover's probability of winning a match to 11, 16
  and 21 (and to each preset's own target, 15 for ``escoba``) under each policy and the
  match-equity tables of :data:`EQUITY_TABLES` under ``expert``, by dynamic programming
  over hand results (:mod:`scopa_sim.stats.equity`), checked against directly simulated
  matches (``scopa`` to 11, 16 and 21, ``escoba`` to 15).

* **E** — Cirulla (issue 42, :mod:`scopa_sim.analysis.study.part_e`): its three presets
  (:data:`CIRULLA_PRESETS`) under each kernel policy and the search setting
  :data:`CIRULLA_SEARCH_POLICY`: the dealer margin and every seat's points, how often the
  declarations, the grande, the piccola and the cappotto happen and what they bring, each
  option of :data:`CIRULLA_OPTIONS` paired on the decks with ``cirulla`` (per hand, and per
  match to 51 under ``expert``), the first mover's match wins and ``cirulla``'s match
  equity to 51, the cards' values (the matta, the settebello, the denari of the runs) and
  what declaring is worth against keeping quiet on the same deals, its tests in Holm
  families of their own.

``full`` is the committed study in ``reports/study``; ``small`` is the same design with
fewer hands, which ``make study`` runs in a few minutes. Runs already finished with the
same configuration, seed and data generator are reused, so an interrupted study resumes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from scopa_sim.bots.learned_weights import base_preset
from scopa_sim.bots.registry import seat_policies
from scopa_sim.data.run import SimConfig
from scopa_sim.game.rules import KERNEL_PRESETS, PRESETS, Rules

#: The strongest search setting (the strength ladder's choice), played in part A and for
#: the key options of part B.
SEARCH_POLICY = "ismcts:iterations=1000,horizon=4,c=1"

#: The heuristic kernel policies, weakest first, and the tag of the search policy in run
#: names.
KERNEL_POLICIES = ("random", "greedy", "expert")
SEARCH = "search"
#: The learned policy (a jitted policy as strong as search): parts A and B per hand,
#: under the presets of :data:`LEARNED_PRESETS` and the option variants that derive from
#: them; not in parts C and D. Its tests are Holm-adjusted in families of their own, so
#: the other policies' rows are what they were before it joined.
LEARNED = "learned"
#: The presets whose weights ship (``scopa_sim/bots/weights``): the one place that says
#: where the study plays ``learned`` (a preset, or an option variant whose base preset,
#: :func:`scopa_sim.bots.learned_weights.base_preset`, is one of them). Every preset
#: the kernels play has them (``tests/bots/test_learned_weights.py`` checks it).
LEARNED_PRESETS: tuple[str, ...] = KERNEL_PRESETS
#: Every policy tag of the study, weakest first: the columns of its tables.
POLICY_TAGS = (*KERNEL_POLICIES, LEARNED, SEARCH)
#: The tags of part C's match-level rows (``learned`` is not played there).
MATCH_TAGS = (*KERNEL_POLICIES, SEARCH)

#: Options toggled one at a time from the `scopa` preset in part B.
OPTION_EFFECTS: tuple[tuple[str, ...], ...] = (
    ("kings_redeal=false",),
    ("capture_rule=hand",),
    ("sum_capture=fewest",),
    ("remainder_to=dealer",),
    ("ace_sweep=true",),
    ("ace_sweep=true", "ace_sweep_scopa=false"),
    ("last_play_scopa=true",),
    ("primiera=sevens",),
    ("primiera_missing_suit=zero",),
    ("re_bello=true",),
    ("napola=true",),
    ("deck=36",),
    ("target=21",),
)
#: The sum-to-fifteen options (docs/rules.md §9), each as (the preset it is toggled
#: from, the options): per hand under every kernel policy, per match under ``expert``,
#: as the options of :data:`OPTION_EFFECTS` are. A variant whose rules are a preset's
#: (``capture_mode=fifteen`` from ``scopa`` is ``scopa-15``; the last one is ``escoba``)
#: reuses that preset's part A runs (the same rules and seed give the same hands).
FIFTEEN_EFFECTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("scopa", ("capture_mode=fifteen",)),
    ("scopa", ("capture_compulsory=false",)),
    ("scopa-15", ("capture_compulsory=false",)),
    ("scopa-15", ("opening_fifteen=true",)),
    ("scopa-15", ("capture_compulsory=false", "opening_fifteen=true", "kings_redeal=false",
                  "target=15")),
    ("escoba", ("opening_fifteen_to=first_player",)),
    ("escoba", ("primiera=escoba_sevens",)),
    ("escoba", ("four_sevens_point=true",)),
)  # fmt: skip
#: The other readings of a preset's rules whose dealer margin part A gives beside the
#: preset's own, under each kernel policy (plain and swapped hands, as the presets): who
#: takes ``escoba``'s opening fifteen, which moves its dealer margin under every policy.
#: Part B's effect of the same options (:data:`FIFTEEN_EFFECTS`) reuses these runs. Not
#: under search: its 40,000 hands would take the full study past its budget of search
#: time (``tests/test_study.py``).
READINGS_A: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("escoba", ("opening_fifteen_to=first_player",)),
)
#: The sum-to-fifteen effects also measured under search: those whose runs part A has.
KEY_FIFTEEN_EFFECTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    FIFTEEN_EFFECTS[0],
    FIFTEEN_EFFECTS[4],
)
#: Options also measured under the search policy.
KEY_OPTIONS: tuple[tuple[str, ...], ...] = (
    ("napola=true",),
    ("ace_sweep=true",),
    ("remainder_to=dealer",),
    ("sum_capture=fewest",),
)
#: Options that change nothing within a hand (only the match): no per-hand runs.
MATCH_ONLY_OPTIONS: tuple[tuple[str, ...], ...] = (("target=21",),)
#: Match targets of part C (and each preset's own target, :func:`targets_of`).
TARGETS = (11, 16, 21)
#: Presets whose simulated matches (under each kernel policy) check the dynamic
#: programme of part C, and at which targets.
MATCH_CHECKS: dict[str, tuple[int, ...]] = {"scopa": TARGETS, "escoba": (15,)}
#: The match-equity tables of part C (under ``expert``, each to its preset's target).
EQUITY_TABLES = ("scopa", "scopa-15", "escoba")
#: Hands per shard of the search runs: the unit of parallel work and of resuming.
SEARCH_SHARD = 250
#: Part D's matches of a stronger policy (seat 0) against a weaker one (seat 1), in
#: `scopa` to 11: (stronger tag, weaker tag).
STRENGTH_PAIRS = (("expert", "greedy"), (SEARCH, "expert"))


#: Part E: Cirulla's presets (RULES.md §10).
CIRULLA_PRESETS = ("cirulla", "cirulla-3", "cirulla-4")
#: The search setting of part E (the one place that names it): PIMC is the search that
#: plays Cirulla's runs so far.
CIRULLA_SEARCH_POLICY = "pimc"
#: Part E's options, each toggled from ``cirulla`` (every option of RULES.md §10 away
#: from the preset's value, and the ace sweep, which the preset has).
CIRULLA_OPTIONS: tuple[tuple[str, ...], ...] = (
    ("cirulla_match_priority=false",),
    ("aces_redeal=false",),
    ("opening_count=false",),
    ("ace_sweep=false",),
    ("matta=play",),
    ("matta=none",),
    ("declare=auto",),
    ("declare=off",),
    ("piccola_max=5",),
    ("piccola_max=7",),
    ("cappotto=false",),
)
#: Part E's options that change nothing within a hand (only the match): no per-hand runs.
CIRULLA_MATCH_ONLY: tuple[tuple[str, ...], ...] = (("cappotto=false",),)
#: Part E's options also measured under search: the declaration rules, which give the
#: value of declaring against keeping quiet (``declare=off``) under search as under
#: ``expert``.
CIRULLA_KEY_OPTIONS: tuple[tuple[str, ...], ...] = (("declare=off",), ("declare=auto",))
#: The policy tags of part E (weakest first).
CIRULLA_TAGS = (*KERNEL_POLICIES, SEARCH)


@dataclass(frozen=True)
class Scale:
    """Sample sizes of the study."""

    fast_hands: int  # per preset and kernel policy, plain and swapped each (part A)
    option_hands: int  # per option variant under random and greedy (part B, per hand)
    expert_option_hands: int  # per option variant under expert (part B, per hand)
    matches: int  # per option variant under expert, and per match cross-check run
    search_hands_scopa: int  # `scopa` under search, plain and swapped each
    search_hands_2p: int  # the other 2-player presets under search, plain and swapped
    search_hands_multi: int  # 3- and 4-player presets under search, plain and swapped
    search_option_hands: int  # per key option under search
    bootstrap: int  # bootstrap replicates of the match-level estimates
    deal_hands: int = 100_000  # part D: `scopa` under `expert`, the card values' own run
    strength_matches: int = 2_000  # part D: matches of expert against greedy
    search_strength_matches: int = 20  # part D: matches of search against expert
    cirulla_hands: int = 40_000  # part E: per Cirulla preset and kernel policy
    cirulla_option_hands: int = 40_000  # part E: per option variant and kernel policy
    cirulla_matches: int = 2_000  # part E: matches to 51 per run
    cirulla_search_hands: int = 100  # part E: `cirulla` under search, and its key options
    cirulla_search_hands_multi: int = 40  # part E: `cirulla-3` and `cirulla-4` under search

    def hands(self, preset: str, tag: str) -> int:
        """Plain hands (and as many swapped ones) of a preset under a policy in part A."""
        if tag != SEARCH:
            return self.fast_hands
        if preset == "scopa":
            return self.search_hands_scopa
        if Rules.make(preset).players == 2:
            return self.search_hands_2p
        return self.search_hands_multi

    def cirulla(self, preset: str, tag: str) -> int:
        """Hands of a Cirulla preset under a policy in part E."""
        if tag != SEARCH:
            return self.cirulla_hands
        return self.cirulla_search_hands if preset == "cirulla" else self.cirulla_search_hands_multi


SCALES = {
    # Search at about 0.7 ms per move on each of 2 cores (forced plays cost nothing):
    # 280,000 2-player hands (36 moves; 80,000 of them of scopa-15 and escoba) take
    # about 59 minutes, 60,000 key-option hands 13, 10,000 3-/4-player hands about 2;
    # the kernel runs (about 30 million expert hands at 20,000 hands/s per core) about
    # 13, the rest 4-5: about 90 minutes on an idle machine.
    "full": Scale(
        fast_hands=1_000_000,
        option_hands=1_000_000,
        expert_option_hands=500_000,
        matches=50_000,
        search_hands_scopa=40_000,
        search_hands_2p=20_000,
        search_hands_multi=1_000,
        search_option_hands=20_000,
        bootstrap=400,
        deal_hands=10_000_000,
        strength_matches=50_000,
        search_strength_matches=1_000,
        # part E: about 26 million kernel hands (1,000,000 per preset and policy, 500,000
        # per option variant, 50,000 matches to 51 per run) take about 25 minutes of one
        # core; PIMC plays about 30 `cirulla` hands a second on a core, so its 12,000
        # `cirulla` hands and 4,000 3- and 4-player ones about 10 minutes more.
        cirulla_hands=1_000_000,
        cirulla_option_hands=500_000,
        cirulla_matches=50_000,
        cirulla_search_hands=4_000,
        cirulla_search_hands_multi=2_000,
    ),
    "small": Scale(
        fast_hands=40_000,
        option_hands=40_000,
        expert_option_hands=40_000,
        matches=2_000,
        search_hands_scopa=250,
        search_hands_2p=150,
        search_hands_multi=40,
        search_option_hands=150,
        bootstrap=200,
    ),
}


def presets_of(tag: str) -> tuple[str, ...]:
    """The presets part A plays under a policy tag: every kernel preset, but only
    :data:`LEARNED_PRESETS` under ``learned``."""
    return LEARNED_PRESETS if tag == LEARNED else KERNEL_PRESETS


def learned_plays(base: str, opts: tuple[str, ...]) -> bool:
    """Whether the study plays ``learned`` under ``base`` with the options ``opts``: their
    rules' base preset has weights in :data:`LEARNED_PRESETS`."""
    return base in LEARNED_PRESETS and base_preset(Rules.make(base, opts)) in LEARNED_PRESETS


def policy_spec(tag: str, preset: str = "") -> str:
    """The policy text of a tag (the search tag stands for :data:`SEARCH_POLICY`, and in
    a Cirulla preset for :data:`CIRULLA_SEARCH_POLICY`)."""
    if tag != SEARCH:
        return tag
    return CIRULLA_SEARCH_POLICY if preset in CIRULLA_PRESETS else SEARCH_POLICY


def option_name(opts: tuple[str, ...], base: str = "scopa") -> str:
    """``scopa+napola-true`` style name of an option variant (of ``base``)."""
    return base + "+" + "+".join(o.replace("=", "-") for o in opts)


def targets_of(preset: str) -> tuple[int, ...]:
    """The match targets of part C for a preset: :data:`TARGETS` and its own."""
    return tuple(sorted({*TARGETS, Rules.make(preset).target}))


def same_preset(base: str, opts: tuple[str, ...]) -> str | None:
    """The preset other than ``base`` whose rules equal ``base`` with these options."""
    rules = Rules.make(base, opts)
    for p in PRESETS:
        if p != base and Rules.make(p) == rules:
            return p
    return None


@dataclass(frozen=True)
class StudyRun:
    """One simulation of the study (a run directory under the runs folder)."""

    part: str
    name: str
    preset: str
    rules: tuple[str, ...]
    tag: str  # policy tag: random, greedy, expert, learned or search
    mode: str  # hands or matches
    count: int
    deal: str = "plain"
    opponent: str = ""  # part D: the tag of seat 1 (2 players), the weaker policy

    @property
    def policy(self) -> str:
        if self.opponent:
            return f"{policy_spec(self.tag)} vs {policy_spec(self.opponent)}"
        return policy_spec(self.tag, self.preset)

    def config(self, seed: int) -> SimConfig:
        rules = Rules.make(self.preset, self.rules)
        shard = SEARCH_SHARD if SEARCH in (self.tag, self.opponent) else None
        seats = [policy_spec(self.tag), policy_spec(self.opponent)] if self.opponent else [
            self.policy
        ]  # fmt: skip
        return SimConfig.make(
            self.preset,
            rules,
            seat_policies(seats, rules.players),
            self.mode,
            self.count,
            seed,
            shard,
            deal=self.deal,
        )


@dataclass(frozen=True)
class Effect:
    """A rule option's effect: run ``variant`` minus run ``baseline``, paired on decks."""

    option: tuple[str, ...]
    tag: str
    level: str  # "hand" (dealer margin) or "match" (first mover's wins, match length)
    variant: str
    baseline: str
    base: str = "scopa"  # the preset the option is toggled from
    hands: str = ""  # match level: the variant's run of hands under expert (the DP check)

    @property
    def key(self) -> tuple[str, tuple[str, ...]]:
        """What identifies the option variant: (base preset, options)."""
        return self.base, self.option


@dataclass(frozen=True)
class Plan:
    """Every run of the study, in order, and the effects computed from them."""

    runs: tuple[StudyRun, ...]
    effects: tuple[Effect, ...]
    #: Part E's option effects (Cirulla), apart from parts B's.
    cirulla: tuple[Effect, ...] = ()

    def run(self, name: str) -> StudyRun:
        for r in self.runs:
            if r.name == name:
                return r
        raise KeyError(name)


def _same_as_preset(opts: tuple[str, ...]) -> str | None:
    """The preset whose rules equal `scopa` with these options, if any."""
    rules = Rules.make("scopa", opts)
    for p in PRESETS:
        if p != "scopa" and Rules.make(p) == rules:
            return p
    return None


def plan(scale: Scale) -> Plan:
    """Every run of the study and the effects it estimates. A search variant whose rules
    are a preset's (``ace_sweep=true`` is ``asso-piglia-tutto``) reuses that preset's
    part A run: the same rules and seed give the same hands."""
    runs: dict[str, StudyRun] = {}

    def add(r: StudyRun) -> str:
        runs.setdefault(r.name, r)
        return r.name

    for tag in POLICY_TAGS:  # kernel policies first: their results come quickly
        for preset in presets_of(tag):
            n = scale.hands(preset, tag)
            add(StudyRun("A", f"{preset}-{tag}", preset, (), tag, "hands", n))
            add(StudyRun("A", f"{preset}-{tag}-swapped", preset, (), tag, "hands", n, "swapped"))
        for preset, opts in READINGS_A if tag in KERNEL_POLICIES else ():
            n, name = scale.hands(preset, tag), f"{option_name(opts, preset)}-{tag}"
            add(StudyRun("A", name, preset, opts, tag, "hands", n))
            add(StudyRun("A", f"{name}-swapped", preset, opts, tag, "hands", n, "swapped"))
    effects: list[Effect] = []
    for tag in KERNEL_POLICIES:
        for opts in OPTION_EFFECTS:
            if opts in MATCH_ONLY_OPTIONS:
                continue
            n = scale.expert_option_hands if tag == "expert" else scale.option_hands
            v = add(StudyRun("B", f"{option_name(opts)}-{tag}", "scopa", opts, tag, "hands", n))
            effects.append(Effect(opts, tag, "hand", v, f"scopa-{tag}"))
    for opts in KEY_OPTIONS:
        same = _same_as_preset(opts)
        if same is not None and scale.hands(same, SEARCH) >= scale.search_option_hands:
            v = f"{same}-{SEARCH}"
        else:
            v = add(StudyRun("B", f"{option_name(opts)}-{SEARCH}", "scopa", opts, SEARCH,
                             "hands", scale.search_option_hands))  # fmt: skip
        effects.append(Effect(opts, SEARCH, "hand", v, f"scopa-{SEARCH}"))
    base = add(StudyRun("B", "scopa-expert-matches", "scopa", (), "expert", "matches",
                        scale.matches))  # fmt: skip
    for opts in OPTION_EFFECTS:
        v = add(StudyRun("B", f"{option_name(opts)}-expert-matches", "scopa", opts, "expert",
                         "matches", scale.matches))  # fmt: skip
        effects.append(Effect(opts, "expert", "match", v, base))
    for base, opts in FIFTEEN_EFFECTS:
        same = same_preset(base, opts)
        for tag in KERNEL_POLICIES:
            n = scale.expert_option_hands if tag == "expert" else scale.option_hands
            if same is not None and scale.fast_hands >= n:
                v = f"{same}-{tag}"  # part A's run
            elif (base, opts) in READINGS_A and scale.fast_hands >= n:
                v = f"{option_name(opts, base)}-{tag}"  # part A's run of the reading
            else:
                v = add(StudyRun("B", f"{option_name(opts, base)}-{tag}", base, opts, tag,
                                 "hands", n))  # fmt: skip
            effects.append(Effect(opts, tag, "hand", v, f"{base}-{tag}", base))
    for base, opts in KEY_FIFTEEN_EFFECTS:
        same = same_preset(base, opts)
        assert same is not None  # part A has these runs
        effects.append(Effect(opts, SEARCH, "hand", f"{same}-{SEARCH}", f"{base}-{SEARCH}", base))
    for base, opts in FIFTEEN_EFFECTS:
        same = same_preset(base, opts)
        b = add(StudyRun("B", f"{base}-expert-matches", base, (), "expert", "matches",
                         scale.matches))  # fmt: skip
        if same is not None:
            v = add(StudyRun("B", f"{same}-expert-matches", same, (), "expert", "matches",
                             scale.matches))  # fmt: skip
            hands = f"{same}-expert"
        else:
            name = option_name(opts, base)
            v = add(StudyRun("B", f"{name}-expert-matches", base, opts, "expert", "matches",
                             scale.matches))  # fmt: skip
            hands = f"{name}-expert"
        effects.append(Effect(opts, "expert", "match", v, b, base, hands))
    effects += _learned_effects(scale, add)
    for tag in KERNEL_POLICIES:  # simulated matches to check the dynamic programme
        for preset, targets in MATCH_CHECKS.items():
            own = Rules.make(preset).target
            for target in targets:
                opts = () if target == own else (f"target={target}",)
                name = f"{option_name(opts, preset)}-{tag}-matches" if opts else (
                    f"{preset}-{tag}-matches"
                )  # fmt: skip
                add(StudyRun("C", name, preset, opts, tag, "matches", scale.matches))
    for r in _own_d_runs(scale):
        add(r)
    cirulla = _cirulla_runs(scale, add)
    return Plan(tuple(runs.values()), tuple(effects), tuple(cirulla))


def _cirulla_runs(scale: Scale, add: Callable[[StudyRun], str]) -> list[Effect]:
    """Part E's runs (after every other part's, so that theirs keep their order) and its
    option effects, each paired on the decks with ``cirulla``'s run under the same policy
    (per hand), or with its matches under ``expert`` (per match)."""
    for tag in CIRULLA_TAGS:
        for preset in CIRULLA_PRESETS:
            add(StudyRun("E", f"{preset}-{tag}", preset, (), tag, "hands",
                         scale.cirulla(preset, tag)))  # fmt: skip
    effects = []
    for tag in CIRULLA_TAGS:
        options = CIRULLA_KEY_OPTIONS if tag == SEARCH else CIRULLA_OPTIONS
        n = scale.cirulla("cirulla", tag) if tag == SEARCH else scale.cirulla_option_hands
        for opts in options:
            if opts in CIRULLA_MATCH_ONLY:
                continue
            v = add(StudyRun("E", f"{option_name(opts, 'cirulla')}-{tag}", "cirulla", opts,
                             tag, "hands", n))  # fmt: skip
            effects.append(Effect(opts, tag, "hand", v, f"cirulla-{tag}", "cirulla"))
    for tag in KERNEL_POLICIES:  # the first mover's match wins, simulated
        for preset in CIRULLA_PRESETS:
            add(StudyRun("E", f"{preset}-{tag}-matches", preset, (), tag, "matches",
                         scale.cirulla_matches))  # fmt: skip
    for opts in CIRULLA_OPTIONS:
        name = f"{option_name(opts, 'cirulla')}-expert"
        v = add(StudyRun("E", f"{name}-matches", "cirulla", opts, "expert", "matches",
                         scale.cirulla_matches))  # fmt: skip
        hands = "" if opts in CIRULLA_MATCH_ONLY else name
        effects.append(Effect(opts, "expert", "match", v, "cirulla-expert-matches", "cirulla",
                              hands))  # fmt: skip
    return effects


def _learned_effects(scale: Scale, add: Callable[[StudyRun], str]) -> list[Effect]:
    """Part B's per-hand effects under ``learned``, of the options :func:`learned_plays`,
    each paired on the decks with its baseline's part A run (``expert``'s number of
    hands); a variant whose rules are a preset's reuses that preset's part A run."""
    effects = []
    options = [("scopa", o) for o in OPTION_EFFECTS if o not in MATCH_ONLY_OPTIONS]
    for base, opts in [*options, *FIFTEEN_EFFECTS]:
        if not learned_plays(base, opts):
            continue
        same = same_preset(base, opts)
        n = scale.expert_option_hands
        if same is not None and same in LEARNED_PRESETS and scale.fast_hands >= n:
            v = f"{same}-{LEARNED}"
        else:
            v = add(StudyRun("B", f"{option_name(opts, base)}-{LEARNED}", base, opts, LEARNED,
                             "hands", n))  # fmt: skip
        effects.append(Effect(opts, LEARNED, "hand", v, f"{base}-{LEARNED}", base))
    return effects


#: Part D's run of `scopa` under `expert` for its card values and opening tables.
DEALS_RUN = "scopa-expert-deals"


def strength_run(strong: str, weak: str) -> str:
    """The name of part D's matches of ``strong`` (seat 0) against ``weak``."""
    return f"scopa-{strong}-vs-{weak}-matches"


def _own_d_runs(scale: Scale) -> list[StudyRun]:
    runs = [StudyRun("D", DEALS_RUN, "scopa", (), "expert", "hands", scale.deal_hands)]
    for strong, weak in STRENGTH_PAIRS:
        n = scale.search_strength_matches if SEARCH in (strong, weak) else scale.strength_matches
        runs.append(StudyRun("D", strength_run(strong, weak), "scopa", (), strong, "matches", n,
                             opponent=weak))  # fmt: skip
    return runs


def part_d_runs(p: Plan) -> tuple[StudyRun, ...]:
    """The runs part D reads and needs finished: its own and part A's plain runs under the
    kernel policies (part A's runs under search are read when they are finished, never
    simulated for part D alone: :func:`scopa_sim.analysis.study.runner.run_part_d`)."""
    return tuple(
        r
        for r in p.runs
        if r.part == "D"
        or (r.part == "A" and r.deal == "plain" and r.tag in KERNEL_POLICIES and not r.rules)
    )
