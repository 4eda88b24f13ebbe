"""The robust belief (issue 29): flat types exact against brute force, the seat's
information only, deterministic, moving towards the type that made the plays; the
round robin's standings, identical for any number of workers; the ``best`` alias; bad
weights as one-line errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from click.testing import CliRunner
from helpers.belief import brute_force, played, swapped
from scopa_sim_cli.main import cli

from scopa_sim import Rules
from scopa_sim.bots.belief import MODELS, ROBUST_UNIFORM, belief, robust_model
from scopa_sim.bots.registry import ALIASES, PolicySpec, make_bot
from scopa_sim.bots.search import move_seed
from scopa_sim.errors import PolicyError, TournamentError
from scopa_sim.game.state import HandState
from scopa_sim.sim.tournament import ELO_METHOD, PairingResult, play_pairing, standings
from scopa_sim.stats.estimate import Estimate
from scopa_sim.stats.inference import normal_ci_from_stats

SEARCHER = "ismcts:iterations=300,horizon=4,c=1"


def flat_brute_force(state: HandState, model_name: str, uniform: float) -> tuple[dict, list]:
    """The robust belief by brute force: the joint (hand, type) posterior of
    :func:`helpers.belief.brute_force`, with the flat types' mass spread evenly over the
    hands the plays leave legal."""
    model = robust_model(uniform) if model_name == "robust" else MODELS[model_name]
    assert model is not None
    # brute_force gives P(H) mixed over every type and the type posterior; P(H, m) per
    # type is P(H) under the model with only type m (prior renormalised) times P(m)
    probs, post = brute_force(state, 0, model)
    flat = [i for i, c in enumerate(model.channels) if c.flat]
    share = sum(post[i] for i in flat)
    kept = dict.fromkeys(probs, 0.0)
    for i, ch in enumerate(model.channels):
        if ch.flat:
            continue
        alone = type(model)(model.name, (ch,), (1.0,))
        p_alone, _ = brute_force(state, 0, alone)
        for h, p in p_alone.items():
            kept[h] += post[i] * p
    return {h: kept[h] + share / len(probs) for h in probs}, post


@pytest.mark.parametrize(
    ("preset", "seed", "plays", "opponent", "uniform"),
    [
        ("scopa", 3, 7, "greedy", ROBUST_UNIFORM),
        ("scopa", 5, 9, "expert", 1.0),
        ("scopa", 5, 9, "expert", 0.0),
        ("scopa-corsa", 11, 13, "random", 0.25),  # capture by hand: lays are hard evidence
    ],
)
def test_robust_belief_matches_brute_force(
    preset: str, seed: int, plays: int, opponent: str, uniform: float
) -> None:
    """Every candidate hand's probability equals the brute-force mixture: the modelled
    types' posterior over hands, plus the flat types' posterior spread evenly over the
    hands the plays leave legal; the type posterior is the channels' as in ``fit``."""
    state = played(Rules.make(preset), seed, plays, opponent)
    assert state.turn == 0 and state.hand(1)
    b = belief(state, robust_model(uniform))
    assert b.method == "exact" and b.seats == [1]
    probs, post = flat_brute_force(state, "robust", uniform)
    got = {h.mask: p for h, p in b.holdings(1)}
    assert sum(got.values()) == pytest.approx(1.0)
    for mask, p in got.items():
        assert p == pytest.approx(probs.get(mask, 0.0), abs=1e-12)
    assert list(b.type_posterior(1).values()) == pytest.approx(post, abs=1e-12)


def test_uniform_one_against_a_searcher_is_closer_to_uniform_worlds() -> None:
    """With every searcher-like type flat (``uniform=1``), a seat that plays like the
    search gets worlds closer to the uniform draw than under ``fit``: at each decision
    with evidence the total variation from the uniform draw is smaller, and at most
    ``1 - F`` (``F``: the flat types' posterior, the uniform draw's share of the
    mixture).  A greedy seat is still read as ``fit`` reads it (greedy is not flat)."""
    rules = Rules.make("scopa")
    searcher = PolicySpec.parse(SEARCHER).bot()
    me = make_bot("expert")
    checked = 0
    for seed in (41, 42):
        s = HandState.deal(rules, dealer=0, seed=seed)
        while s.plays_made < 27:
            if s.turn == 0 and s.plays_made in (9, 13, 21, 25):
                flat, fit = belief(s, robust_model(1.0)), belief(s, "fit")
                uni = fit.uniform_probability({1: s.hand(1)})
                tv_flat = sum(abs(p - uni) for _, p in flat.holdings(1)) / 2
                tv_fit = sum(abs(p - uni) for _, p in fit.holdings(1)) / 2
                share = sum(v for k, v in flat.type_posterior(1).items() if "uniform" in k)
                assert 0 < share < 1 and tv_flat <= 1 - share + 1e-12
                assert tv_flat < tv_fit, (seed, s.plays_made, tv_flat, tv_fit)
                checked += 1
            bot = me if s.turn == 0 else searcher
            s.push(bot.choose(s, move_seed(seed, s.plays_made, s.turn)))
    assert checked == 8
    g = played(rules, 3, 7, "greedy")
    robust, fitg = belief(g, robust_model(1.0)), belief(g, "fit")
    # the same types with the same priors: the same type posterior, and greedy's
    # likeliest hand stays the likeliest
    key = "greedy(tau=0,eps=0.02)"
    assert robust.type_posterior(1)[key] == pytest.approx(fitg.type_posterior(1)[key], abs=1e-12)
    assert robust.holdings(1, 1)[0][0] == fitg.holdings(1, 1)[0][0]


@pytest.mark.parametrize(("preset", "plays"), [("scopa", 8), ("scopa-3", 11), ("scopone", 14)])
def test_robust_belief_reads_only_what_the_seat_sees(preset: str, plays: int) -> None:
    """Moving hidden cards between hidden places leaves the robust belief exactly as it
    was, in the exact, joint and chain methods (the flat particles included)."""
    rules = Rules.make(preset)
    state = played(rules, 17, plays, "expert")
    ref = belief(state, "robust", seed=4)
    assert ref.seats
    others = [t for t in range(rules.players) if t != state.turn and state.hand(t)]
    places = [sorted(state.hand(t)) for t in others] + [sorted(state.stock)]
    places = [p for p in places if p]
    for x, y in ((places[0][0], places[1][-1]), (places[0][-1], places[-1][0])):
        b = belief(swapped(state, x, y), "robust", seed=4)
        assert b.method == ref.method
        assert np.array_equal(b.parts, ref.parts) and np.array_equal(b.cum, ref.cum)
        assert np.array_equal(b.post, ref.post)


def test_robust_chain_keeps_a_flat_share_of_particles() -> None:
    """In the Metropolis chain (10-card hands of ``scopone``) a seat's particles are
    uniform (-1) in the share of its flat types' posterior, deterministic per seed."""
    state = played(Rules.make("scopone"), 23, 14, "random")
    a, b = belief(state, "robust", seed=1), belief(state, "robust", seed=1)
    assert a.method == "mcmc"
    assert np.array_equal(a.parts, b.parts) and np.array_equal(a.post, b.post)
    flat = [i for i, c in enumerate(a.model.channels) if c.flat]  # type: ignore[union-attr]
    n = a.parts.shape[0]
    for s in a.seats:
        share = float(a.post[s, flat].sum())
        assert share > 0.1  # a random player is read in part as random
        assert abs(int((a.parts[:, s] == -1).sum()) - share * n) <= 1
    world = a.sample(5)
    assert world.hands[state.turn] == state.hands[state.turn]


def test_posterior_moves_towards_the_type_that_made_the_plays() -> None:
    """Synthetic plays of a known type: as the hand goes on, the robust posterior of that
    type grows from the prior's share (averaged over three hands, at plays 9, 21 and 33):
    greedy's plays on the greedy type, random plays on the random type, the search's on
    the searcher types (informative and flat together)."""
    rules = Rules.make("scopa")
    model = robust_model()
    labels = [c.label for c in model.channels]
    prior = np.array(model.prior) / sum(model.prior)
    search = [i for i, c in enumerate(model.channels) if c.tau == 0.05]
    cases = {
        "greedy": [labels.index("greedy(tau=0,eps=0.02)")],
        "random": [labels.index("random, uniform hands")],
        SEARCHER: search,
    }
    for opponent, idx in cases.items():
        me = make_bot("expert")
        opp = PolicySpec.parse(opponent).bot()
        shares = []
        for seed in (61, 62, 63):
            s = HandState.deal(rules, dealer=0, seed=seed)
            seen = []
            while not s.is_over:
                if s.turn == 0 and s.plays_made in (9, 21, 33):
                    seen.append(float(belief(s, model).post[1, idx].sum()))
                bot = me if s.turn == 0 else opp
                s.push(bot.choose(s, move_seed(seed, s.plays_made, s.turn)))
            shares.append(seen)
        mean = np.mean(shares, axis=0)
        assert prior[idx].sum() < mean[0] < mean[-1], (opponent, mean)


@pytest.mark.slow
def test_round_robin_harness_is_the_same_for_any_number_of_workers() -> None:
    """The round robin's pairings and standings (robust belief bots included) are the
    same played in one process or two."""
    rules = Rules.make("scopa")
    texts = ["expert", "ismcts:iterations=30,horizon=4,c=1,belief=robust,reply=tree"]
    a, b = (PolicySpec.parse(t) for t in texts)
    one = play_pairing(rules, a, b, 12, seed=9, workers=1)
    two = play_pairing(rules, a, b, 12, seed=9, workers=2)
    assert one == two
    names = [str(a), str(b)]
    assert standings(names, [one]) == standings(names, [two])


def _result(a: str, b: str, mean: float, half: float) -> PairingResult:
    se = half / 1.959963984540054
    return PairingResult(
        a,
        b,
        100,
        normal_ci_from_stats(mean, se, 100),
        0,
        0,
        0,
        0.5,
        Estimate(0.0, 0.0, 0.0, 100, ELO_METHOD),
    )


def test_standings_rank_by_best_worst_case_among_the_unbeaten() -> None:
    """A beats C clearly and loses to B a little (not significantly); B is level with C;
    so A (worst case -0.05) and B (worst case -0.02, unbeaten) are unbeaten, C is
    significantly worse than A: B first (best worst case), then A, then C."""
    results = [
        _result("A", "B", -0.05, 0.10),
        _result("A", "C", +0.30, 0.10),
        _result("B", "C", +0.02, 0.10),
    ]
    rank = standings(["A", "B", "C"], results)
    assert [s.policy for s in rank] == ["B", "A", "C"]
    assert rank[0].worst_opponent == "C" and rank[0].worst_margin.estimate == pytest.approx(0.02)
    assert rank[1].worst_opponent == "B" and rank[1].worst_margin.estimate == pytest.approx(-0.05)
    assert rank[2].worse_against == ("A",) and not rank[2].unbeaten
    with pytest.raises(TournamentError, match="played no pairing"):
        standings(["A", "B", "C", "D"], results)


def test_best_is_an_alias_printed_with_its_full_parameters() -> None:
    """``best`` parses to the documented best bot's full text (so results name every
    parameter), builds its bot, takes no parameters, and the tournament prints the
    full text."""
    full = ALIASES["best"]
    spec = PolicySpec.parse("best")
    assert spec == PolicySpec.parse(full) and str(spec) == full
    assert PolicySpec.parse(" BEST ") == spec
    assert make_bot("best").name == PolicySpec.parse(full).bot().name
    for bad in ("best:iterations=10", "best:"):
        with pytest.raises(PolicyError, match="takes no parameters") as e:
            PolicySpec.parse(bad)
        assert "\n" not in str(e.value)
    with pytest.raises(PolicyError, match="aliases: best"):
        PolicySpec.parse("bestest")
    res = CliRunner().invoke(
        cli, ["tournament", "--policy", "best", "--policy", "greedy", "--deals", "2", "-q"]
    )
    assert res.exit_code == 0, res.output
    assert f"{full} vs greedy" in res.output


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("ismcts:belief=robust,uniform=1.5", r"uniform='1.5': expected a weight in \[0, 1\]"),
        ("ismcts:belief=robust,uniform=-0.1", "expected a weight"),
        ("pimc:belief=robust,uniform=nan", "expected a weight"),
        ("ismcts:belief=robust,uniform=half", "expected a weight"),
        ("ismcts:belief=fit,uniform=0.5", "uniform= is the weight of belief=robust"),
        ("ismcts:uniform=0.5", "uniform= is the weight of belief=robust"),
        ("ismcts:belief=sturdy", "unknown|expected one of"),
        ("ismcts:belief=robust,reply=tree,uct_floor=1.2", "expected a weight"),
        ("ismcts:belief=fit,uct_floor=0.5", "tempers the opponent model of reply=tree"),
        ("ismcts:belief=robust,reply=weak,reply_min=-0.1", "expected a weight"),
        ("ismcts:belief=robust,reply=weak,reply_min=x", "expected a weight"),
        ("ismcts:belief=robust,reply_min=0.5", "sets when the opponent model of reply=tree"),
        ("ismcts:belief=robust,reply=weak,reply_gate=1.5", "expected a weight"),
        ("ismcts:belief=robust,reply_gate=0.9", "sets when the opponent model of reply=tree"),
        ("ismcts:belief=robust,reply=weak,reply_gate=0.9,reply_min=0.5", "give one of them"),
    ],
)
def test_bad_robust_parameters_are_one_line_errors(text: str, match: str) -> None:
    with pytest.raises(PolicyError, match=match) as e:
        PolicySpec.parse(text)
    assert "\n" not in str(e.value)
    res = CliRunner().invoke(cli, ["tournament", "--policy", text, "--policy", "greedy"])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert len(res.output.strip().splitlines()) <= 3  # usage line, hint, the one error line
    for bad in (-0.5, 1.01, math.nan):
        with pytest.raises(PolicyError, match="need a number in"):
            robust_model(bad)


def test_robust_weights_keep_fit_and_name_the_model() -> None:
    """``fit`` is unchanged by the flat types (no flat channel: the same kernel inputs),
    ``robust`` names its weight when not the default, and ``uniform=0`` and ``1`` drop the
    empty half of the searcher type."""
    fit = MODELS["fit"]
    assert fit is not None and not any(c.flat for c in fit.channels)
    assert not fit.arrays()[4].any()
    assert robust_model().name == "robust" and robust_model(1).name == "robust(uniform=1)"
    assert len(robust_model(0).channels) == len(robust_model(1).channels) == 5
    assert len(robust_model(0.5).channels) == 6
    bot = PolicySpec.parse("ismcts:iterations=10,belief=robust,uniform=0.25").bot()
    assert bot.name.endswith("belief=robust,uniform=0.25")


def test_tournament_reports_standings_in_text_json_and_api() -> None:
    """``tournament`` prints each policy's worst pairing and whom it is significantly
    worse against; ``--json`` and the API carry the same standings, best first."""
    import json

    import scopa_sim

    args = ["tournament", "--policy", "expert", "--policy", "random", "--deals", "12", "-q"]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0, res.output
    assert "Standings" in res.output
    assert "  random: worst pairing" in res.output and "worse against: expert" in res.output
    doc = json.loads(CliRunner().invoke(cli, [*args, "--json"]).output)
    first = doc["standings"][0]
    assert first["policy"] == "expert" and first["unbeaten"] and first["worse_against"] == []
    assert doc["standings"][1]["worse_against"] == ["expert"]
    t = scopa_sim.tournament("expert", "random", deals=12)
    assert t.best == "expert" and t.to_dict()["standings"] == doc["standings"]


def test_uct_floor_mixes_the_reply_posterior_with_the_search_channel() -> None:
    """``uct_floor=x`` hands the kernel each seat's channel posterior times ``1 - x``
    plus ``x`` on the "plays like this search" channel (searched by UCB1): rows still sum
    to 1, 0 leaves the posterior as it is, 1 searches every reply by UCB1."""
    from scopa_sim._engine import ismcts as KI

    state = played(Rules.make("scopa"), 3, 7, "greedy")
    text = "ismcts:iterations=20,horizon=4,c=1,belief=robust,reply=tree"
    plain = PolicySpec.parse(text).bot()
    plain.choose(state, 1)
    kinds, _, _, post0, _ = plain._reply_models()  # type: ignore[attr-defined]
    search = int(np.flatnonzero(kinds == KI.KIND_SEARCH)[0])
    for x in (0.25, 1.0):
        bot = PolicySpec.parse(f"{text},uct_floor={x:g}").bot()
        bot.choose(state, 1)
        _, _, _, post, _ = bot._reply_models()  # type: ignore[attr-defined]
        want = post0 * (1 - x)
        want[:, search] += x
        assert np.allclose(post, want) and np.allclose(post[1].sum(), 1.0)
    assert bot.name.endswith("reply=tree,uct_floor=1")


def test_reply_weak_models_only_random_and_greedy_seats() -> None:
    """``reply=weak`` hands the kernel every expert-like channel as the search's own
    (UCB1) and keeps random and greedy as models; ``reply=tree`` keeps the expert
    channels as models."""
    from scopa_sim._engine import ismcts as KI

    state = played(Rules.make("scopa"), 3, 7, "greedy")
    kinds = {}
    for reply in ("tree", "weak"):
        bot = PolicySpec.parse(f"ismcts:iterations=20,belief=robust,reply={reply}").bot()
        bot.choose(state, 1)
        kinds[reply] = list(bot._reply_models()[0])  # type: ignore[attr-defined]
    channels = robust_model().channels
    for i, ch in enumerate(channels):
        if ch.kind in ("random", "greedy"):
            assert kinds["weak"][i] == kinds["tree"][i] != KI.KIND_SEARCH
        else:
            assert kinds["weak"][i] == KI.KIND_SEARCH
    assert any(k == KI.KIND_EXPERT for k in kinds["tree"])


def test_flat_particles_read_as_uniform_hands() -> None:
    """A chain particle whose hand is drawn uniformly (-1) is read as the uniform draw:
    no hand -1 among the holdings, each listed hand gets the flat share over the number
    of hands, and each card's probability the flat share times hand size over the unseen
    cards; the card probabilities still add up to the hand's size."""
    state = played(Rules.make("scopone"), 23, 14, "random")
    b = belief(state, "robust", seed=1)
    assert b.method == "mcmc"
    for s in b.seats:
        share = b.flat_share(s)
        assert 0 < share < 1 and share == pytest.approx(float(b.weights[b.parts[:, s] < 0].sum()))
        hands = b.holdings(s)
        assert all(h.mask > 0 and len(h) == b.hand_size(s) for h, _ in hands)
        floor = share / math.comb(len(b.unseen), b.hand_size(s))
        assert all(p >= floor for _, p in hands)
        probs = b.card_probabilities(s)
        assert sum(probs.values()) == pytest.approx(b.hand_size(s))
        assert min(probs.values()) >= share * b.hand_size(s) / len(b.unseen) - 1e-12
    assert belief(state, "fit", seed=1).flat_share(b.seats[0]) == 0.0


def test_probability_counts_flat_particles_with_the_uniform_draw() -> None:
    """``probability`` of the true hands under the chain's particles: a particle whose
    hand for a seat is uniform adds its weight times the uniform draw's probability, so
    the truth is never given 0 by the flat share, and without flat particles (``fit``)
    the frequency is as before."""
    state = played(Rules.make("scopone"), 23, 14, "random")
    b = belief(state, "robust", seed=1)
    seats = b.seats
    truth = {s: state.hand(s) for s in seats}
    p = b.probability(truth)
    assert p > 0
    flat_rows = (b.parts[:, seats] < 0).any(axis=1)
    assert flat_rows.any() and p <= 1.0
    f = belief(state, "fit", seed=1)
    ok = np.ones(f.parts.shape[0], dtype=bool)
    for s in f.seats:
        ok &= f.parts[:, s] == state.hand(s).mask
    assert f.probability({s: state.hand(s) for s in f.seats}) == pytest.approx(
        float(f.weights[ok].sum())
    )


def test_reply_min_searches_the_share_of_every_unlikely_type() -> None:
    """``reply_min=x`` hands the kernel each seat's posterior with every modelled type
    below ``x`` moved to the search's own channel (UCB1): rows still sum to 1, a type at
    or above ``x`` keeps its share, so a seat whose plays have not yet made a weak type
    likely is searched as by ``reply=uct``; combined with ``uct_floor`` it applies
    first.  Bad weights: :func:`test_bad_robust_parameters_are_one_line_errors`."""
    from scopa_sim._engine import ismcts as KI

    text = "ismcts:iterations=20,horizon=4,c=1,belief=robust,reply=weak"
    for n_plays, x in ((0, 0.5), (9, 0.5), (9, 0.3), (9, 1.0)):
        state = played(Rules.make("scopa"), 7, n_plays, "greedy")
        plain = PolicySpec.parse(text).bot()
        plain.choose(state, 1)
        kinds, _, _, post0, _ = plain._reply_models()  # type: ignore[attr-defined]
        search = int(np.flatnonzero(kinds == KI.KIND_SEARCH)[0])
        bot = PolicySpec.parse(f"{text},reply_min={x:g}").bot()
        bot.choose(state, 1)
        _, _, _, post, _ = bot._reply_models()  # type: ignore[attr-defined]
        want = post0.copy()
        for s in range(post0.shape[0]):
            for i in np.flatnonzero(kinds != KI.KIND_SEARCH):
                if want[s, i] < x:
                    want[s, search] += want[s, i]
                    want[s, i] = 0.0
        opp = 1 - state.turn
        assert np.allclose(post, want) and np.allclose(post[opp].sum(), 1.0)
        weak = post[opp, kinds != KI.KIND_SEARCH]
        assert np.all((weak == 0) | (weak >= x))
        if n_plays == 0:  # no evidence: the prior (a fifth each) is below 0.5
            assert np.all(weak == 0)
    # after nine plays (five of them greedy's) greedy is the likelier half here: kept
    state = played(Rules.make("scopa"), 7, 9, "greedy")
    bot = PolicySpec.parse(f"{text},reply_min=0.5").bot()
    bot.choose(state, 1)
    kinds, _, _, post, _ = bot._reply_models()  # type: ignore[attr-defined]
    assert post[1 - state.turn, int(np.flatnonzero(kinds == KI.KIND_GREEDY)[0])] >= 0.5
    both = PolicySpec.parse(f"{text},reply_min=0.5,uct_floor=0.25").bot()
    both.choose(state, 1)
    _, _, _, post2, _ = both._reply_models()  # type: ignore[attr-defined]
    want = post * 0.75
    want[:, int(np.flatnonzero(kinds == KI.KIND_SEARCH)[0])] += 0.25
    assert np.allclose(post2, want)
    assert both.name.endswith("reply=weak,uct_floor=0.25,reply_min=0.5")


def _seen(stats: list) -> list[tuple[object, int, float]]:
    return [(s.play, s.n, s.mean) for s in stats if s.n]


def test_reply_gate_searches_exactly_as_without_reply_until_a_weak_type_is_likely() -> None:
    """``reply_gate=x``: at a decision where no opponent's posterior on a modelled type
    reaches ``x`` the search is the one without ``reply=`` (the same tree, visit for visit,
    at the same seed and budget); where one does, it is ``reply_min=x``'s.  Both cases
    occur against greedy play (no evidence yet, then greedy recognised); against the
    expert the gate stays closed."""
    base = "ismcts:iterations=60,horizon=4,c=1,belief=robust"
    plain = PolicySpec.parse(base).bot()
    gated = PolicySpec.parse(f"{base},reply=weak,reply_gate=0.5").bot()
    least = PolicySpec.parse(f"{base},reply=weak,reply_min=0.5").bot()
    assert gated.name.endswith("belief=robust,reply=weak,reply_gate=0.5")
    opened = []
    for n_plays, opponent in ((0, "greedy"), (9, "greedy"), (13, "greedy"), (9, "expert")):
        state = played(Rules.make("scopa"), 7, n_plays, opponent)
        got = _seen(gated.analyse(state, 5))
        is_open = gated._reply_models() is not None  # type: ignore[attr-defined]
        opened.append(is_open)
        want = least if is_open else plain
        assert got == _seen(want.analyse(state, 5))
        # the two searches differ here, so the comparison above can fail
        other = plain if is_open else least
        assert got != _seen(other.analyse(state, 5))
    assert opened == [False, True, True, False]


def test_the_search_guides_reply_gate_tournament_runs() -> None:
    """The search guide's tournament of ``best``, ``reply_gate=0.9`` and greedy runs (at
    a few deals, fewer iterations) and names the setting in full; a bad weight is one
    line of error, no traceback."""
    text = "ismcts:iterations=40,horizon=4,c=1,belief=robust,reply=weak,reply_gate=0.9"
    args = ["tournament", "--policy", text, "--policy", "greedy", "--deals", "3", "--seed", "1"]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0, res.output
    assert "reply=weak,reply_gate=0.9" in res.output
    bad = CliRunner().invoke(cli, [*args[:2], text.replace("0.9", "2"), *args[3:]])
    assert bad.exit_code != 0 and "reply_gate='2': expected a weight" in bad.output
    assert "Traceback" not in bad.output and len(bad.output.strip().splitlines()) == 1


def test_the_elo_ladder_is_least_squares_without_lapack(monkeypatch: pytest.MonkeyPatch) -> None:
    """``ladder`` solves the least squares in plain floats (LAPACK's last bits follow the
    BLAS kernel of the processor): with every pair played once it is the closed form
    (each rating the mean of its Elo differences), each connected set of policies
    averages 0, and numpy's solvers are not called."""
    from scopa_sim.sim.tournament import ladder

    def boom(*_: object, **__: object) -> None:
        raise AssertionError("LAPACK called")

    monkeypatch.setattr(np.linalg, "lstsq", boom)
    monkeypatch.setattr(np.linalg, "solve", boom)

    def pr(a: str, b: str, elo: float) -> PairingResult:
        return PairingResult(
            a,
            b,
            10,
            normal_ci_from_stats(0.0, 0.1, 10),
            5,
            0,
            5,
            0.5,
            Estimate(elo, elo, elo, 10, ELO_METHOD),
        )

    names = ["a", "b", "c", "d"]
    elos = {("a", "b"): 30.0, ("a", "c"): 55.5, ("a", "d"): -12.0, ("b", "c"): 7.25,
            ("b", "d"): -40.0, ("c", "d"): 3.0}  # fmt: skip
    got = dict(ladder(names, [pr(a, b, e) for (a, b), e in elos.items()]))
    for p in names:
        diffs = [e if a == p else -e for (a, b), e in elos.items() if p in (a, b)]
        assert got[p] == pytest.approx(sum(diffs) / len(names), abs=1e-12)
    two = dict(ladder(names, [pr("a", "b", 20.0), pr("c", "d", -8.0)]))
    assert two == pytest.approx({"a": 10.0, "b": -10.0, "c": -4.0, "d": 4.0}, abs=1e-12)
    assert ladder(["x", "y"], []) == [("x", 0.0), ("y", 0.0)]
