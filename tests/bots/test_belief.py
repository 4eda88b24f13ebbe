"""Beliefs over the hidden cards: exact against brute force, normalised, the seat's
information only, deterministic, drawn right by the searches, and bad parameters."""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest
from click.testing import CliRunner
from helpers.belief import brute_force, played, swapped
from scopa_sim_cli.main import cli

from scopa_sim import CardSet, Play, Rules
from scopa_sim import _engine as K
from scopa_sim._engine import determinize as KD
from scopa_sim._engine import ismcts as KI
from scopa_sim.bots.belief import MODELS, BeliefModel, Channel, belief, describe_belief, get_model
from scopa_sim.bots.registry import PolicySpec, make_bot
from scopa_sim.bots.search import ISMCTSBot, PIMCBot
from scopa_sim.errors import PolicyError
from scopa_sim.game.infoset import InfoSet
from scopa_sim.game.state import HandState


@pytest.mark.slow
@pytest.mark.parametrize(
    ("preset", "seed", "plays", "model", "opponent"),
    [
        ("scopa", 3, 7, "fit", "greedy"),  # round 2, the other seat holds 2 cards
        ("scopa", 5, 9, "expert", "expert"),  # round 2, it holds 1 card after 2 plays
        ("scopa-corsa", 11, 13, "fit", "random"),  # capture by hand: lays are hard evidence
    ],
)
def test_exact_belief_matches_brute_force(
    preset: str, seed: int, plays: int, model: str, opponent: str
) -> None:
    """Every candidate hand's probability and the channel posterior equal a brute-force
    enumeration that replays the hand in each world and multiplies the probabilities
    of all the other seat's plays, computed afresh from the engine's value functions."""
    rules = Rules.make(preset)
    state = played(rules, seed, plays, opponent)
    assert state.turn == 0 and state.hand(1)
    b = belief(state, model)
    assert b.method == "exact" and b.seats == [1]
    probs, post = brute_force(state, 0, MODELS[model])
    got = dict((h.mask, p) for h, p in b.holdings(1))
    assert len(got) == math.comb(len(b.unseen), len(state.hand(1)))
    for mask, p in got.items():
        assert p == pytest.approx(probs.get(mask, 0.0), abs=1e-12), CardSet(mask)
    assert list(b.type_posterior(1).values()) == pytest.approx(post, abs=1e-12)
    assert b.probability({1: state.hand(1)}) > 0  # the truth is never ruled out


@pytest.mark.parametrize("preset", ["scopa", "scopa-3", "scopa-4", "scopone", "scopa-corsa"])
def test_weights_are_normalised_and_worlds_keep_the_information_set(preset: str) -> None:
    """At every decision of a few hands: weights are >= 0 and sum to 1, every particle
    gives the weighed seats hands of the right sizes from the unseen cards, disjoint, and
    a world drawn from the belief keeps the seat's information state and legal plays,
    and gives the weighed seats a hand of positive weight."""
    rules = Rules.make(preset)
    rnd = random.Random(preset)
    methods = set()
    bot = make_bot("greedy")
    for game in range(2 if rules.hand_size <= 3 else 1):
        s = HandState.deal(rules, dealer=game % rules.players, seed=rnd.randrange(2**32))
        while not s.is_over:
            if rules.hand_size <= 3 or s.plays_made % 9 == 5:
                b = belief(s, "fit", seed=game)
                methods.add(b.method)
                w = b.weights
                assert (w >= 0).all() and (w.sum() == pytest.approx(1.0) if w.size else True)
                unseen = b.unseen.mask
                for row in b.parts[:50]:
                    used = 0
                    for t in b.seats:
                        assert int(row[t]).bit_count() == len(s.hand(t))
                        assert int(row[t]) & ~unseen == 0 and not int(row[t]) & used
                        used |= int(row[t])
                text = InfoSet(s).information_state_string()
                world = b.sample(rnd.randrange(2**32))
                assert InfoSet(world, s.turn).information_state_string() == text
                assert list(world.legal_plays) == list(s.legal_plays)
                if b.seats:
                    assert b.probability({t: world.hand(t) for t in b.seats}) > 0
            s.push(bot.choose(s, rnd.randrange(2**32)))
    expected = {"scopa": "exact", "scopa-3": "joint", "scopa-4": "joint", "scopone": "mcmc"}
    assert expected.get(preset, "exact") in methods


@pytest.mark.parametrize(("preset", "plays"), [("scopa", 8), ("scopa-3", 11), ("scopone", 14)])
def test_belief_reads_only_what_the_seat_sees(preset: str, plays: int) -> None:
    """Moving hidden cards between hidden places (another seat's hand and the stock, or
    two other hands), sizes kept, leaves the belief exactly as it was."""
    rules = Rules.make(preset)
    state = played(rules, 17, plays, "expert")
    seat = state.turn
    ref = belief(state, "fit", seed=4)
    assert ref.seats  # there is evidence to read
    others = [t for t in range(rules.players) if t != seat and state.hand(t)]
    places = [sorted(state.hand(t)) for t in others] + [sorted(state.stock)]
    places = [p for p in places if p]
    assert len(places) >= 2
    for x, y in ((places[0][0], places[1][-1]), (places[0][-1], places[-1][0])):
        other = swapped(state, x, y)
        assert other.hands != state.hands or other.stock != state.stock
        b = belief(other, "fit", seed=4)
        assert b.method == ref.method
        assert np.array_equal(b.parts, ref.parts) and np.array_equal(b.cum, ref.cum)
        assert np.array_equal(b.post, ref.post)


@pytest.mark.parametrize("preset", ["scopa-3", "scopone"])
def test_same_seed_same_belief(preset: str) -> None:
    """The sampled methods (joint rejection, Metropolis chain) are deterministic per
    seed, and the seed matters."""
    state = played(Rules.make(preset), 23, 11 if preset == "scopa-3" else 14, "expert")
    a, b, c = (belief(state, "fit", seed=s) for s in (1, 1, 2))
    assert a.method in ("joint", "mcmc")
    assert np.array_equal(a.parts, b.parts) and np.array_equal(a.post, b.post)
    assert not np.array_equal(a.parts, c.parts)


def test_no_history_or_uniform_model_means_uniform() -> None:
    """A position built without its plays, the first decision of a round and
    belief=uniform have no evidence: no particles, and the uniform probabilities."""
    rules = Rules.make("scopa")
    state = played(rules, 3, 7, "greedy")
    assert belief(state, "uniform").method == "uniform"
    bare = state.clone()  # the history is not copied
    b = belief(bare, "fit")
    assert b.method == "uniform" and b.seats == []
    hands = {1: state.hand(1)}
    assert b.uniform_probability(hands) == 1 / math.comb(len(b.unseen), 2)
    assert b.log2_gain(state) == 0.0
    top = b.holdings(1, 3)
    assert len(top) == 3 and all(p == b.uniform_probability(hands) for _, p in top)
    new_round = played(rules, 3, 6, "greedy")  # the second round just dealt
    assert belief(new_round, "fit").method == "uniform"


def test_fit_recognises_the_opponent() -> None:
    """After a hand of play, the fit model's posterior for a greedy opponent is on the
    greedy channel, for the expert on the exact expert, and for a random one not on
    either (so its plays weigh the hands little)."""
    rules = Rules.make("scopa")
    for opp, channel in (("greedy", 1), ("expert", 2), ("random", None)):
        s = played(rules, 31, 33, opp)  # the last round: 36 plays in all
        post = belief(s, "fit").post[1]
        if channel is not None:
            assert post[channel] > 0.9, (opp, post)
        else:
            assert post[1] < 0.05 and post[2] < 0.05 and post[0] + post[4] > 0.9, post


def test_search_draws_worlds_by_the_belief() -> None:
    """PIMC's world draw and ISMCTS's iterations give the other seat each hand about as
    often as the belief weighs it; with no particles the draw is today's uniform one."""
    rules = Rules.make("scopa")
    state = played(rules, 5, 9, "expert")  # the other seat holds 1 card: a few candidates
    b = belief(state, "expert")
    probs = dict((h.mask, p) for h, p in b.holdings(1))
    r = rules.to_array()
    root = InfoSet(state).vector
    n = 4000
    counts: dict[int, int] = {}
    out = np.empty(K.N_STATE, dtype=np.int64)
    for i in range(n):
        KD.draw_world(root, r, 0, K.new_rng(i), out, b.parts, b.cum)
        counts[int(out[K.S_HANDS + 1])] = counts.get(int(out[K.S_HANDS + 1]), 0) + 1
    assert max(abs(counts.get(m, 0) / n - p) for m, p in probs.items()) < 0.03
    log = np.zeros(KI.L_SIZE, dtype=np.int64)
    tree = np.empty((n + 1, KI.T_COLS), dtype=np.int64)
    count = KI.ismcts_init(root, tree)
    rng = K.new_rng(3)
    no_eq = np.empty(0)  # the margin objective
    counts = {}
    for _ in range(n):
        count = KI.ismcts_run(
            root, r, tree, count, 1, 1.0, 0, 4, rng, log, 0, no_eq, b.parts, b.cum
        )
        h = int(log[KI.L_HANDS + 1])
        counts[h] = counts.get(h, 0) + 1
        stock = {int(c) for c in log[KI.L_STOCK : KI.L_STOCK + log[KI.L_STOCK_LEN]]}
        assert stock | set(CardSet(h)) == set(b.unseen) and not stock & set(CardSet(h))
    assert max(abs(counts.get(m, 0) / n - p) for m, p in probs.items()) < 0.03
    for i in range(20):  # no particles: exactly determinize
        a, c = np.empty_like(out), np.empty_like(out)
        KD.determinize(root, r, 0, K.new_rng(i), a)
        KD.draw_world(root, r, 0, K.new_rng(i), c, np.empty((0, 4), np.int64), np.empty(0))
        assert np.array_equal(a, c)


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["scopa", "scopa-4", "scopone-scientifico"])
def test_belief_search_bots_play_every_preset(preset: str) -> None:
    """PIMC and ISMCTS with a belief play legal plays, keep the decision's belief, and
    are deterministic per seed."""
    rules = Rules.make(preset)
    state = played(rules, 2, 2 * rules.players - 1 if rules.hand_size <= 3 else 6, "greedy")
    for bot in (
        ISMCTSBot(iterations=60, horizon=4, c=1, belief="fit"),
        PIMCBot(worlds=3, depth=2, exact_below=0, belief="expert"),
    ):
        play = bot.choose(state, 9)
        assert play in state.legal_plays
        assert bot.last_belief is not None and bot.last_belief.seats
        assert bot.choose(state, 9) == play
        assert "belief=" in bot.name
    if preset == "scopa":  # a belief and the match objective together
        spec = PolicySpec.parse("ismcts:iterations=40,horizon=4,c=1,belief=fit,objective=match")
        bot = spec.bot()
        assert bot.choose(state, 9) in state.legal_plays and bot.last_belief is not None


def test_bad_belief_parameters_are_one_line_errors() -> None:
    for text in ("ismcts:belief=bogus", "pimc:belief=", "ismcts:iterations=10,belief=Expert"):
        with pytest.raises(PolicyError, match="belief") as e:
            PolicySpec.parse(text)
        assert "\n" not in str(e.value) and "uniform, expert, fit" in str(e.value)
    with pytest.raises(PolicyError, match="unknown belief 'x'"):
        get_model("x")
    with pytest.raises(PolicyError):
        ISMCTSBot(belief="nope")
    for bad in (
        lambda: Channel("smart"),
        lambda: Channel("expert", -1.0, 0.1),
        lambda: Channel("greedy", 0.0, 0.0),
        lambda: Channel("random", 0.5),
        lambda: BeliefModel("m", (Channel("random"),), (0.0,)),
        lambda: BeliefModel("m", (Channel("random"),), (1.0, 1.0)),
    ):
        with pytest.raises(PolicyError):
            bad()
    state = played(Rules.make("scopa"), 3, 7)
    with pytest.raises(ValueError, match="seat"):
        belief(state, "fit", seat=5)
    with pytest.raises(ValueError, match="other seats"):
        belief(state, "fit").holdings(0)


def test_describe_belief_names_the_likely_hands() -> None:
    state = played(Rules.make("scopa"), 3, 7, "greedy")
    b = belief(state, "fit")
    lines = describe_belief(b, top=3)
    best, p = b.holdings(1, 1)[0]
    assert lines[0].startswith("seat 1 (2 cards") and f"[{best}] {p:.1%}" in lines[0]
    assert lines[1].startswith("  plays like greedy")


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A one-match game record: expert (seat 0) against greedy."""
    path = tmp_path_factory.mktemp("belief") / "g.jsonl"
    res = CliRunner().invoke(
        cli, ["play", "--policy", "expert", "--policy", "greedy", "--seed", "3",
              "--record", str(path)],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    return str(path)


def test_advise_shows_the_belief(record: str) -> None:
    """advise --belief prints the other seat's likely hands (text and JSON), the same as
    the library's belief of that position; bad values are one-line usage errors."""
    pos = f"{record}:1:9"
    res = CliRunner().invoke(cli, ["advise", "--position", pos, "--policy", "pimc:worlds=4",
                                   "--belief", "fit", "--json"])  # fmt: skip
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)["belief"]
    from scopa_sim.records.record import position_from_record

    b = belief(position_from_record(pos), "fit")
    seat = str(1 - b.seat)
    assert doc["model"] == "fit" and doc["method"] == "exact" and doc["plays_seen"] == 9
    top = doc["seats"][seat]["holdings"]
    assert [(h["hand"], h["p"]) for h in top] == [
        (str(h), p) for h, p in b.holdings(1 - b.seat, 10)
    ]
    res = CliRunner().invoke(cli, ["advise", "--position", pos, "--policy", "pimc:worlds=4",
                                   "--belief", "expert"])  # fmt: skip
    assert res.exit_code == 0 and "belief (expert, exact, from 9 plays seen):" in res.output
    assert f"seat {seat} (" in res.output
    for args in (["--belief", "nope"], ["--policy", "ismcts:belief=nope"]):
        res = CliRunner().invoke(cli, ["advise", "--position", pos, *args])
        assert res.exit_code == 2 and "Traceback" not in res.output
        assert res.output.strip().splitlines()[-1].startswith("Error:")


def test_card_probabilities_are_the_holdings_marginals(record: str) -> None:
    """Each unseen card's probability of being in a hand is the total probability of
    the holdings containing it (all of them listed), they add up to the hand's size, and
    a seat the belief does not weigh gets the uniform share; the notebook API's
    ``advise(belief=...)`` returns the command's JSON."""
    from scopa_sim.game.cards import card_name, parse_card
    from scopa_sim.records.record import position_from_record

    pos = f"{record}:1:9"
    state = position_from_record(pos)
    b = belief(state, "fit")
    opp = 1 - b.seat
    marg = b.card_probabilities(opp)
    assert list(marg) == [card_name(c) for c in b.unseen.cards()]
    for name, p in marg.items():
        card = parse_card(name)
        direct = sum(q for h, q in b.holdings(opp) if card in h)
        assert abs(p - direct) < 1e-12
    assert abs(sum(marg.values()) - b.hand_size(opp)) < 1e-9
    assert max(marg.values()) > b.hand_size(opp) / len(marg)  # the evidence moved it
    fresh = belief(HandState.deal(Rules.make("scopa"), seed=1), "fit")
    flat = fresh.card_probabilities(1 - fresh.seat)
    assert len(flat) == 33 and set(flat.values()) == {3 / 33}  # 40 - own 3 - table 4

    import scopa_sim

    got = scopa_sim.advise(position=pos, policy="pimc:worlds=4", belief="fit")
    assert got.belief is not None and got.to_dict()["belief"] == got.belief
    seat = got.belief["seats"][str(opp)]
    assert seat["card_probabilities"] == pytest.approx(marg)
    assert scopa_sim.advise(position=pos, policy="pimc:worlds=4").belief is None
    with pytest.raises(scopa_sim.ScopaError, match="belief model 'nope'"):
        scopa_sim.advise(position=pos, policy="pimc:worlds=4", belief="nope")


def test_review_shows_the_belief(record: str) -> None:
    """review --belief adds the deciding seat's likely holdings to its decisions (JSON and
    text), and nothing without it."""
    base = ["review", record, "1", "--policy", "eval:worlds=4", "--seat", "1", "-q"]
    res = CliRunner().invoke(cli, [*base, "--json", "--belief", "fit"])
    assert res.exit_code == 0, res.output
    decisions = json.loads(res.stdout)["decisions"]
    with_belief = [d for d in decisions if "belief" in d]
    assert with_belief and all(list(d["belief"]) == ["0"] for d in with_belief)
    assert all(0 < h["p"] <= 1 for d in with_belief for h in d["belief"]["0"])
    plain = json.loads(CliRunner().invoke(cli, [*base, "--json"]).output)["decisions"]
    assert not any("belief" in d for d in plain)
    text = CliRunner().invoke(cli, [*base, "--belief", "expert", "--details"]).output
    assert "belief: seat 0 holds [" in text
    res = CliRunner().invoke(cli, [*base, "--belief", "x"])
    assert res.exit_code == 2 and "Traceback" not in res.output


# --------------------------------------------------------------------------- reply=model
def test_reply_uct_is_the_default() -> None:
    """reply=uct (the default) is the search as before the option existed: same name,
    same tree; reply=tree and reply=model search differently."""
    state = played(Rules.make("scopa"), 3, 7, "greedy")
    trees = {}
    for reply in (None, "uct", "tree", "model"):
        kw = {} if reply is None else {"reply": reply}
        bot = ISMCTSBot(iterations=150, horizon=4, c=1, belief="fit", **kw)
        tree, count = bot.tree(state, 5)
        trees[reply] = tree[:count].copy()
        assert ("reply=" in bot.name) == (reply in ("tree", "model"))
    assert np.array_equal(trees[None], trees["uct"])
    assert not np.array_equal(trees[None], trees["tree"])
    assert not np.array_equal(trees["tree"], trees["model"])


@pytest.mark.parametrize(("preset", "plays"), [("scopa", 8), ("scopa-3", 11), ("scopa-15", 8)])
def test_model_reply_reads_only_what_the_seat_sees(preset: str, plays: int) -> None:
    """reply=model's tree is the same when hidden cards move between hidden places."""
    rules = Rules.make(preset)
    state = played(rules, 17, plays, "expert")
    bot = ISMCTSBot(iterations=120, horizon=4, c=1, belief="fit", reply="model")
    ref, n = bot.tree(state, 8)
    ref = ref[:n].copy()
    others = [t for t in range(rules.players) if t != state.turn and state.hand(t)]
    places = [sorted(state.hand(t)) for t in others] + [sorted(state.stock)]
    places = [p for p in places if p]
    other = swapped(state, places[0][0], places[1][-1])
    assert other.hands != state.hands or other.stock != state.stock
    tree, m = bot.tree(other, 8)
    assert np.array_equal(tree[:m], ref)
    assert bot.choose(state, 8) in state.legal_plays


def test_model_reply_plays_the_other_seat_by_its_channel() -> None:
    """With a single greedy channel and no floor, every play of the other seat in logged
    iterations (tree and rollout) is one of greedy's best plays in that world; our seat
    still explores other plays."""
    rules = Rules.make("scopa")
    state = played(rules, 5, 6, "greedy")  # a new round: nobody has played in it yet
    seat = state.turn
    root = InfoSet(state).vector
    r = rules.to_array()
    reply = (
        np.array([KI.KIND_GREEDY]), np.zeros(1), np.zeros(1), np.ones((4, 1)), True
    )  # fmt: skip
    log = np.zeros(KI.L_SIZE, dtype=np.int64)
    tree = np.empty((400, KI.T_COLS), dtype=np.int64)
    count = KI.ismcts_init(root, tree)
    rng = K.new_rng(11)
    checked = 0
    ours = set()
    for _ in range(60):
        count = KI.ismcts_run(root, r, tree, count, 1, 1.0, K.POLICY_RANDOM, 4, rng, log, 0,
                              None, None, None, reply)  # fmt: skip
        vec = root.copy()
        for s in range(rules.players):
            vec[K.S_HANDS + s] = log[KI.L_HANDS + s]
        world = HandState(rules, vec)
        for k in range(int(log[KI.L_MADE])):
            if world.is_over or len(world.stock) != len(state.stock):
                break  # a new deal: the logged stock order is not rebuilt here
            play = Play(int(log[KI.L_PLAYS + 3 * k]), int(log[KI.L_PLAYS + 3 * k + 1]))
            if world.turn != seat:
                vals = {p: K.greedy_value(world._vec, world._r, p.card, p.take)
                        for p in world.legal_plays}  # fmt: skip
                assert vals[play] == max(vals.values())
                checked += 1
            elif k == 0:
                ours.add(play)
            world.push(play)
    assert checked > 60 and len(ours) > 1


def test_bad_reply_values_are_one_line_errors() -> None:
    for text, msg in (
        ("ismcts:reply=bogus", "uct, tree, model"),
        ("ismcts:reply=model", "belief="),
        ("ismcts:reply=tree,belief=uniform", "belief="),
        ("pimc:reply=model,belief=fit", "unknown parameter"),
    ):
        with pytest.raises(PolicyError, match="reply") as e:
            PolicySpec.parse(text).bot()
        assert "\n" not in str(e.value) and msg in str(e.value)
