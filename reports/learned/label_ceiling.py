"""How strong is the policy that the learned network's labels describe?

A diagnostic of the results page (section "The labels' own policy"), not part of the
package. The shipped `scopa` network is fitted to rollout labels: at a decision, every
legal play is made and the hand finished by ``expert`` with the exact endgame, in ``W``
worlds drawn uniformly among those consistent with what the seat knows (common random
numbers across the plays; ``rollouts --worlds W --exact`` of
``python -m scopa_sim.experiments.train``). A network that fitted those labels without
error would play the play of the largest label. This script plays that policy itself,
online (the *label policy* ``R(W)``): at each decision of more than one play it computes
every play's label exactly as the training data do and plays the largest (ties broken
as the exact endgame breaks them); where its information set is one world it plays the
exact endgame, as ``learned`` does. Its strength bounds what any model fitted to these
labels can reach (as ``W`` grows, the labels' noise goes and ``R(W)`` tends to the
one-step improvement of ``expert+exact`` under uniform worlds).

It plays the harness's deals (``play_hands``' streams: the same deals ``versus``
plays) against ``expert+exact``, each deal twice with the seats exchanged, and prints
``R(W)``'s mean margin per deal pair with its 95% interval, and the paired difference
from the network of ``--model`` (the shipped weights by default; ``learned`` with the
exact endgame) on the same deals (``--opponent``: another harness kind)::

    python reports/learned/label_ceiling.py --worlds W --pairs N --seed S [--first F]
        [--opponent expert+exact] [--cont expert+exact]
        [--model scopa_sim/bots/weights/scopa.npy] [--json OUT]

``--cont`` names the kind that finishes the labels' hands (a harness kind as ``versus``
takes it: ``expert+exact``, the shipped labels'; ``learned+exact``, the model's, the
labels of the second step of policy iteration, ``rollouts --cont learned --init MODEL
--exact``).

``--decompose HANDS`` measures, instead, on the decisions of ``HANDS`` hands of the
opponent's self-play (run ``--seed``), how far the model's and the expert's values of the
plays are from the labels' expectation (:func:`decompose`; ``--big``: the worlds of the
labels that stand for it, 256 by default; ``--save FILE.npz`` keeps the decisions, their
labels and states).  ``--screen FILE.npz --model M`` gives the same errors for the model
``M`` on the decisions a ``--decompose --save`` run kept, in seconds: the labels are not
computed again.

``--first``/``--pairs`` select the deal pairs ``F .. F + N - 1`` (pieces of one run can
be played in separate processes and joined: each pair's margin depends only on its deal).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np
from numba import njit

from scopa_sim._engine import learned as KL
from scopa_sim._engine.layout import (
    I_TOTAL,
    MAX_PLAYS,
    N_ITEMS,
    N_STATE,
    R_SIDES,
    S_DONE,
    S_TURN,
    SCRATCH,
)
from scopa_sim._engine.policy import EXPERT_SCRATCH
from scopa_sim._engine.step import apply_play, legal_plays, score_state
from scopa_sim._engine.streams import RNG_WORDS
from scopa_sim.bots import learned as BL
from scopa_sim.errors import FileError
from scopa_sim.game.rules import Rules
from scopa_sim.sim.training import label_errors, load_model
from scopa_sim.stats.inference import normal_ci

# The kernels below compile at each run (about 10 s) and are not cached: numba's cache of
# a file run as a script does not load where the test imports it as a module.

#: A seat's kind for the label policy in :func:`label_hands` (outside every harness kind).
LABEL = -1


@njit
def _scratch(width):
    """The kernels' scratch, as :func:`.learned.rollout_samples` allocates it: two states,
    a deck, two streams, two pairs of play buffers, the step's and the expert's scratch,
    the model's (``width``: at least its hidden width), the items of a score, a value
    per play and the exact endgame's transposition table."""
    return (
        np.zeros(N_STATE, dtype=np.int64),
        np.zeros(N_STATE, dtype=np.int64),
        np.zeros(40, dtype=np.int64),
        np.zeros(RNG_WORDS, dtype=np.uint64),
        np.zeros(RNG_WORDS, dtype=np.uint64),
        np.empty(MAX_PLAYS, dtype=np.int64),
        np.empty(MAX_PLAYS, dtype=np.int64),
        np.empty(MAX_PLAYS, dtype=np.int64),
        np.empty(MAX_PLAYS, dtype=np.int64),
        np.empty(SCRATCH, dtype=np.int64),
        np.empty(EXPERT_SCRATCH),
        np.empty(KL.MAX_ACTIVE, dtype=np.int64),
        np.empty(KL.N_DENSE),
        np.empty(max(1, width)),
        np.zeros((4, N_ITEMS), dtype=np.int64),
        np.empty(MAX_PLAYS),
        KL._new_tt(),
    )


@njit
def labels(state, rules, cont, models, worlds, seed, h, bc, bt, n, st2, rng2, bc2, bt2, sc, idx,
           dense, acc, xs, tt, items, out):  # fmt: skip
    """The rollout label of each of the ``n`` plays in the buffers at ``state`` (hand ``h``
    of the harness run ``seed``) to ``out[:n]``: :func:`.learned.play_label`, the function
    :func:`.learned.rollout_samples` computes its targets with, in ``worlds`` uniform
    worlds (``rho = 1``), the hand finished by the kinds ``cont``. The other arguments are
    scratch."""
    for i in range(n):
        out[i] = KL.play_label(state, rules, bc[i], bt[i], cont, models, seed, h, worlds, 1.0,
                               st2, rng2, bc2, bt2, sc, idx, dense, acc, xs, tt, items)  # fmt: skip


@njit
def label_hands(rules, kinds, cont, models, worlds, seed, first, count, out_points):
    """:func:`.learned.play_hands` with seats of kind :data:`LABEL` playing the label
    policy (the exact endgame where their information set is one world, else
    the play of the largest of :func:`labels` with ``worlds`` worlds and continuation
    kinds ``cont``, ties by reservoir draws as the exact endgame breaks them)."""
    state, st2, deck, rng, rng2, bc, bt, bc2, bt2, sc, xs, idx, dense, acc, items, vals, tt = (
        _scratch(models.shape[1])
    )
    for h in range(first, first + count):
        KL._deal(state, rules, seed, h, deck, rng)
        while not state[S_DONE]:
            n = legal_plays(state, rules, bc, bt, sc)
            seat = state[S_TURN]
            if kinds[seat] == LABEL:
                if n == 1:
                    i = 0
                elif KL.one_world(state, rules):
                    i = KL._exact_choice(state, rules, rng, bc, bt, n, tt)
                else:
                    labels(state, rules, cont, models, worlds, seed, h, bc, bt, n, st2, rng2,
                           bc2, bt2, sc, idx, dense, acc, xs, tt, items, vals)  # fmt: skip
                    i = KL.best_index(vals, n, rng)
            else:
                i = KL._choose(state, rules, kinds[seat], models[seat], rng, bc, bt, n, idx,
                               dense, acc, xs, tt)  # fmt: skip
            apply_play(state, rules, bc[i], bt[i])
        score_state(state, rules, items)
        for s in range(rules[R_SIDES]):
            out_points[h - first, s] = items[s, I_TOTAL]


@njit
def decision_values(rules, kind, cont, models, model, worlds, big, seed, first, count, cap, out,
                    states, plays):  # fmt: skip
    """Per play of the decisions of hands ``first ..`` of the harness run ``seed`` played
    by ``kind`` on every seat (each decision of more than one play outside the exact
    endgame, at most ``cap`` rows): ``out[row]`` = (decision number, its label with
    ``worlds`` worlds from the streams of run ``seed + 1``, again from run ``seed + 2``,
    its label with ``big`` worlds from run ``seed + 3``, ``model``'s value of the play,
    the expert's value of it), ``states[row]`` the decision's state and ``plays[row]``
    the play (card, take). Returns the rows written."""
    state, st2, deck, rng, rng2, bc, bt, bc2, bt2, sc, xs, idx, dense, acc, items, vals, tt = (
        _scratch(max(models.shape[1], model.shape[0]))
    )
    rows = 0
    group = 0
    for h in range(first, first + count):
        KL._deal(state, rules, seed, h, deck, rng)
        while not state[S_DONE]:
            n = legal_plays(state, rules, bc, bt, sc)
            if n > 1 and not KL.one_world(state, rules):
                if rows + n > cap:
                    return rows
                for c in range(3):
                    ww = big if c == 2 else worlds
                    labels(state, rules, cont, models, ww, seed + 1 + c, h, bc, bt, n, st2, rng2,
                           bc2, bt2, sc, idx, dense, acc, xs, tt, items, vals)  # fmt: skip
                    for i in range(n):
                        out[rows + i, 1 + c] = vals[i]
                for i in range(n):
                    out[rows + i, 0] = group
                    out[rows + i, 4] = KL.learned_value(state, rules, model, bc[i], bt[i], idx,
                                                        dense, acc, xs)  # fmt: skip
                    out[rows + i, 5] = dense[KL.D_EXPERT]
                    states[rows + i] = state
                    plays[rows + i, 0] = bc[i]
                    plays[rows + i, 1] = bt[i]
                rows += n
                group += 1
            i = KL._choose(state, rules, kind, models[state[S_TURN]], rng, bc, bt, n, idx,
                           dense, acc, xs, tt)  # fmt: skip
            apply_play(state, rules, bc[i], bt[i])
    return rows


def decompose(rules: Rules, model: np.ndarray, kind: int, cont: np.ndarray, worlds: int,
              big: int, seed: int, hands: int,
              save: str | None = None) -> dict[str, object]:  # fmt: skip
    """How far the model's and the expert's values are from the labels' own values, on
    the decisions of ``hands`` hands of ``kind``'s self-play (run ``seed``):
    :func:`scopa_sim.sim.training.label_errors` of the table :func:`decision_values`
    fills.  ``save``: a file (``.npz``) to keep
    that table in, with each row's state and play, for :func:`screen`."""
    models = np.stack([model, model])
    cap = hands * 64
    out = np.zeros((cap, 6))
    states = np.zeros((cap, N_STATE), dtype=np.int64)
    plays = np.zeros((cap, 2), dtype=np.int64)
    rows = decision_values(rules.to_array(), kind, cont, models, model, worlds, big, seed, 0,
                           hands, cap, out, states, plays)  # fmt: skip
    if save:
        np.savez(save, x=out[:rows], states=states[:rows], plays=plays[:rows],
                 worlds=worlds, big=big)  # fmt: skip
    return label_errors(out[:rows], worlds, big)


@njit
def model_values(rules, model, states, plays, out):
    """``out[row]``: ``model``'s value of the play ``plays[row]`` at ``states[row]``."""
    xs, idx, dense, acc = _scratch(model.shape[0])[10:14]
    for r in range(states.shape[0]):
        out[r] = KL.learned_value(states[r], rules, model, plays[r, 0], plays[r, 1], idx, dense,
                                  acc, xs)  # fmt: skip


def screen(rules: Rules, path: str, model: np.ndarray) -> dict[str, object]:
    """:func:`scopa_sim.sim.training.label_errors` of ``model`` on the decisions a
    :func:`decompose` run kept in ``path`` (its labels, the expert's values; the model's
    recomputed)."""
    with np.load(path) as z:
        x, states, plays = z["x"].copy(), z["states"], z["plays"]
        worlds, big = int(z["worlds"]), int(z["big"])
    model_values(rules.to_array(), model, states, plays, x[:, 4])
    return label_errors(x, worlds, big)


def _report(res: dict[str, object], path: str | None) -> int:
    """Print ``res``, one figure a line, and write it to ``path`` (JSON) if given."""
    for key, value in res.items():
        if isinstance(value, list):
            value = "[" + ", ".join(f"{v:.4g}" for v in value) + "]"
        print(f"{key:>18}: {value:.4g}" if isinstance(value, float) else f"{key:>18}: {value}")
    if path:
        with open(path, "w") as f:
            json.dump(res, f)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Play the label policy against an opponent on paired deals and print its margin."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worlds", type=int)
    ap.add_argument("--pairs", type=int)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--opponent", default="expert+exact")
    ap.add_argument("--cont", default="expert+exact")
    ap.add_argument("--model", default="scopa_sim/bots/weights/scopa.npy")
    ap.add_argument("--json")
    ap.add_argument(
        "--decompose",
        type=int,
        default=0,
        metavar="HANDS",
        help="print the labels' noise and the predictors' errors instead",
    )
    ap.add_argument("--big", type=int, default=256)
    ap.add_argument("--save", metavar="FILE.npz", help="with --decompose: keep its decisions")
    ap.add_argument("--screen", metavar="FILE.npz", help="the errors on a --save file's decisions")
    a = ap.parse_args(argv)
    rules = Rules.make("scopa")
    try:
        model = load_model(a.model)
    except FileError as e:
        ap.error(f"--model: {e}")
    if a.screen:
        try:
            res = screen(rules, a.screen, model)
        except (OSError, KeyError, ValueError) as e:
            ap.error(f"--screen {a.screen}: not a file of --decompose --save ({e})")
        return _report(res, a.json)
    if a.worlds is None or a.pairs is None or a.seed is None:
        ap.error("--worlds, --pairs and --seed are required (but with --screen)")
    if a.worlds < 1 or a.pairs < 1 or a.first < 0:
        ap.error("--worlds and --pairs must be at least 1, --first at least 0")
    try:
        other, finish = BL.kind_of(a.opponent), BL.kind_of(a.cont)
    except ValueError as e:
        ap.error(str(e))
    cont = np.array([finish, finish], dtype=np.int64)
    models = np.stack([model, model])
    if a.decompose:
        if a.big < 1:
            ap.error("--big must be at least 1")
        t = time.thread_time()
        res = decompose(rules, model, other, cont, a.worlds, a.big, a.seed, a.decompose, a.save)
        res["cpu_seconds"] = round(time.thread_time() - t, 1)
        return _report(res, a.json)
    none = np.zeros((0, 4), dtype=np.int64)  # compile first: the CPU time is the play's
    label_hands(rules.to_array(), np.array([LABEL, other]), cont, models, 1, 0, 0, 0, none)
    t0 = time.thread_time()
    pts = []
    for kinds in ([LABEL, other], [other, LABEL]):
        out = np.zeros((a.pairs, 4), dtype=np.int64)
        label_hands(rules.to_array(), np.array(kinds, dtype=np.int64), cont, models, a.worlds,
                    a.seed, a.first, a.pairs, out)  # fmt: skip
        pts.append(out[:, :2])
    cpu = time.thread_time() - t0
    label = BL.paired_margin(pts[0], pts[1])
    me = BL.LEARNED + BL.EXACT
    net = BL.paired_margin(
        BL.play_hands(rules, [me, other], model, a.seed, a.first, a.pairs),
        BL.play_hands(rules, [other, me], model, a.seed, a.first, a.pairs),
    )
    res = {
        "worlds": a.worlds,
        "opponent": a.opponent,
        "cont": a.cont,
        "seed": a.seed,
        "first": a.first,
        "pairs": a.pairs,
        "model": a.model,
        "cpu_seconds": round(cpu, 1),
        "label": label.tolist(),
        "network": net.tolist(),
    }
    for name, x in (("R(W)", label), ("network", net), ("R(W) - network", label - net)):
        print(f"{name:>15}: {normal_ci(x)}")
    print(f"{a.pairs} deal pairs, deals {a.first}..{a.first + a.pairs - 1} of run {a.seed}, "
          f"W = {a.worlds}, labels by {a.cont}, against {a.opponent}; {cpu:.1f} s CPU")  # fmt: skip
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
