"""The board's long work, run in the worker process of :mod:`scopa_sim.board.jobs` (the
project's one pool, :mod:`scopa_sim.sim.pool`): every function here is a plain function of
picklable arguments returning JSON-ready data, and reuses the library's own code --
:func:`scopa_sim.api.advise` for a position's values (as the ``advise`` command does),
:func:`~scopa_sim.bots.belief.belief` for what the other seats can hold,
:func:`scopa_sim.api.review` for a recorded hand's review.

**Stages.** A search policy with a budget (``eval`` and ``pimc``: worlds; ``ismcts``:
iterations) is run first with a sixteenth and a quarter of its budget, then with the
whole (:func:`stages`), so that the page shows values at once and better ones as they
come; the last stage is exactly ``scopa-sim advise --policy P --seed S`` (same policy,
seed, numbers). A stage's values are those of its own budget, said on the page.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from scopa_sim.api.advice import advise, review, review_labels
from scopa_sim.board.positions import record_position
from scopa_sim.bots.belief import belief, get_model
from scopa_sim.bots.registry import PolicySpec
from scopa_sim.errors import PositionError
from scopa_sim.game.cards import card_name
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import HandState

#: The parameter that sets each staged policy's budget, and the smallest first stage.
BUDGETS: dict[str, tuple[str, int]] = {
    "eval": ("worlds", 16),
    "pimc": ("worlds", 2),
    "ismcts": ("iterations", 100),
}
#: The fractions of the budget the earlier stages use.
STAGE_FRACTIONS = (1 / 16, 1 / 4)
#: Most likely hands listed per hidden seat.
TOP_HOLDINGS = 5
#: Labels a puzzle is drawn from.
PUZZLE_LABELS = ("mistake", "blunder")


def _budget(spec: PolicySpec) -> int | None:
    """The full budget of a staged policy (its parameter, or the bot's default)."""
    if spec.name not in BUDGETS or "ms" in dict(spec.params):
        return None
    key, _ = BUDGETS[spec.name]
    bot = spec.bot()
    value = getattr(bot, key, None)
    if value is None:
        value = getattr(getattr(bot, "evaluator", None), key, None)
    return int(value) if value is not None else None


def stages(spec: PolicySpec) -> list[PolicySpec]:
    """The policies the analysis of ``spec`` runs in turn: smaller budgets first (see the
    module docstring), ``spec`` itself last."""
    full = _budget(spec)
    if full is None:
        return [spec]
    key, least = BUDGETS[spec.name]
    out: list[PolicySpec] = []
    for fraction in STAGE_FRACTIONS:
        budget = max(least, math.floor(full * fraction))
        if budget < full and all(dict(s.params)[key] != str(budget) for s in out):
            params = (*((k, v) for k, v in spec.params if k != key), (key, str(budget)))
            out.append(dataclasses.replace(spec, params=params))
    return [*out, spec]


def warm() -> bool:
    """Load the kernels the board uses into this worker (a tiny evaluation, search,
    belief and bot play), so that the first real request does not wait for them."""
    state = HandState.deal(Rules.make("scopa"), seed=1)
    for text in ("eval:worlds=16", "ismcts:iterations=50"):
        analyse(state, text, 0, False)
    state.push(state.legal_plays[0])
    holdings(state, "fit", 0)
    bot_play(state, "greedy", 0)
    evaluator = PolicySpec.parse("eval").bot().evaluator  # type: ignore[attr-defined]
    for dealer in range(state.players):  # the review's priors (cached in the worker)
        evaluator.prior(state.rules, dealer)
    return True


def analyse(state: HandState, policy: str, seed: int, recorded: bool) -> dict[str, Any]:
    """Every legal play of the seat to play ranked by ``policy`` (a search policy), as
    ``advise --json`` prints it (:func:`scopa_sim.api.advise`)."""
    return advise(position=state, recorded=recorded, policy=policy, seed=seed).to_dict()


def holdings(state: HandState, model: str, seed: int) -> dict[str, Any]:
    """What the other seats can hold, from the seat to play's view under the belief
    ``model`` (``uniform``, ``expert``, ``fit``): per hidden seat, each unseen card's
    probability of being in its hand, and its most likely hands."""
    if state.is_over:
        raise PositionError("the hand is over: every card is seen")
    get_model(model)  # an unknown model is a PolicyError naming the known ones
    b = belief(state, None if model == "uniform" else model, seed=seed)
    unseen = b.unseen.cards()
    seats = []
    for s in range(state.players):
        if s == b.seat or not b.hand_size(s):
            continue
        seats.append(
            {
                "seat": s,
                "cards": b.hand_size(s),
                "weighed": s in b.seats,
                "marginals": b.card_probabilities(s),
                "holdings": [{"hand": str(h), "p": p} for h, p in b.holdings(s, TOP_HOLDINGS)],
                "plays_like": b.type_posterior(s) if s in b.seats else {},
            }
        )
    return {
        "model": model,
        "method": b.method,
        "plays_seen": b.observations.plays,
        "unseen": [card_name(c) for c in unseen],
        "stock": len(state.stock),
        "seats": seats,
    }


def bot_play(state: HandState, policy: str, seed: int) -> str:
    """The play ``policy`` makes here (with the seed ``play`` would give it)."""
    return str(PolicySpec.parse(policy).bot().choose(state, seed))


def review_line(text: str, name: str, line: int, evaluator: str, seed: int) -> dict[str, Any]:
    """The review of one recorded hand (``review FILE LINE --json``'s numbers for it), with
    the expected-margin plot of the review page (SVG)."""
    done = review(text=text, name=name, first_line=line, policy=evaluator, seed=seed, workers=1)
    doc = done.to_dict()
    doc["plot"] = done.margin_plot(0, width=640, height=200)
    thresholds = review_labels()
    doc["labels"] = list(thresholds)
    doc["label_thresholds"] = thresholds
    return doc


def puzzles_of_hand(text: str, name: str, line: int, evaluator: str, seed: int) -> list[dict]:
    """The puzzles one recorded hand gives: each decision the review labels a mistake or a
    blunder, with every legal play's value (the review's evaluation of that decision,
    same worlds and seed)."""
    done = review(text=text, name=name, first_line=line, policy=evaluator, seed=seed, workers=1)
    out = []
    for d in done.to_dict()["decisions"]:
        if d["label"] not in PUZZLE_LABELS:
            continue
        state = record_position(text, d["play"])
        values = advise(position=state, recorded=True, policy=evaluator, seed=seed).plays
        out.append(
            {
                "file": name,
                "line": line,
                "play": d["play"],
                "seat": d["seat"],
                "label": d["label"],
                "chosen": d["chosen"],
                "best": d["best"],
                "loss": d["loss"],
                "loss_ci": d["loss_ci"],
                "text": text,
                "values": [
                    {
                        "play": p.play,
                        "mean_margin": p.mean,
                        "ci_low": p.margin.low if math.isfinite(p.margin.low) else None,
                        "ci_high": p.margin.high if math.isfinite(p.margin.high) else None,
                        "best": p.chosen,
                    }
                    for p in values
                ],
            }
        )
    return out


__all__ = [
    "BUDGETS",
    "analyse",
    "bot_play",
    "holdings",
    "puzzles_of_hand",
    "review_line",
    "stages",
    "warm",
]
