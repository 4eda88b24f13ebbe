"""How often ``reply_min`` (or ``reply_gate``) lets ISMCTS play an opponent by a weak
type's model.

Usage::

    python -m scopa_sim.experiments.reply_min --hands 40 --seed 5000 --json reply-min.json
    python -m scopa_sim.experiments.reply_min --hands 40 --seed 5000 --x 0.9 --json reply-gate.json
    python -m scopa_sim.experiments.reply_min --quick        # smoke test, seconds

With ``reply=weak`` an ISMCTS bot plays each other seat, in a share of its iterations, as
random or greedy play: the share is the seat's posterior on those types
(:class:`scopa_sim.bots.search.ISMCTSBot`).  Under ``belief=robust`` every type starts at
its prior fifth, so before a seat's plays say anything a strong opponent is played as weak
in two fifths of the iterations.  With ``reply_min=x`` a weak type's model is used only
where the seat's posterior on it is at least ``x``.  For each opponent this script plays
hands of 2-player ``scopa`` (hand ``h`` dealt from ``seed + h``, dealer 0; seat 1 a uniform
search, ``--observer``, seat 0 the opponent), and at each decision of seat 1 reads its
robust belief's posterior on seat 0's types; it reports, by opponent, the mean posterior
on the weak types (random + greedy) and the share of decisions at which one of them is at
least ``x`` (where ``reply_min=x`` uses the weak model, and ``reply_gate=x`` opens), with
the first such decision's median.  Deterministic for a seed.
"""

from __future__ import annotations

import json
import platform
import statistics
import time
from pathlib import Path

import click

from scopa_sim.bots.belief import belief, robust_model
from scopa_sim.bots.search import move_seed
from scopa_sim.experiments.common import bot_of, command_line, git_commit
from scopa_sim.game.rules import Rules
from scopa_sim.game.state import HandState

#: The opponents: greedy, the expert, and the searches of the round robin that matter.
OPPONENTS = (
    "greedy",
    "expert",
    "ismcts:iterations=1000,horizon=4,c=1",
    "ismcts:iterations=591,horizon=4,c=1,belief=robust",
)
OBSERVER = "ismcts:iterations=300,horizon=4,c=1"
#: The labels of the weak types in the robust model (random play is flat there).
WEAK = tuple(c.label for c in robust_model().channels if c.kind in ("random", "greedy"))


def measure(opponent: str, observer: str, hands: int, seed: int, x: float) -> dict:
    """One opponent's row (see the module docstring)."""
    rules = Rules.make("scopa")
    opp, me = bot_of(opponent), bot_of(observer)
    weak, above, firsts = [], 0, []
    for h in range(hands):
        deck = seed + h
        st = HandState.deal(rules, dealer=0, seed=deck)
        k, first = 0, None
        while not st.is_over:
            seat = st.turn
            if seat == 1:
                post = belief(st, "robust").type_posterior(0)
                weak.append(sum(post[w] for w in WEAK))
                if max(post[w] for w in WEAK) >= x:
                    above += 1
                    first = k if first is None else first
                k += 1
            bot = opp if seat == 0 else me
            st.push(bot.choose(st, move_seed(deck, st.plays_made, seat)))
        if first is not None:
            firsts.append(first)
    return {
        "opponent": opponent,
        "decisions": len(weak),
        "mean_weak_posterior": statistics.fmean(weak),
        "share_at_least_x": above / len(weak),
        "hands_reaching_x": len(firsts),
        "median_first_decision": statistics.median(firsts) if firsts else None,
    }


@click.command()
@click.option("--hands", type=click.IntRange(1), default=40, show_default=True)
@click.option("--seed", type=click.IntRange(0), default=5000, show_default=True)
@click.option("--x", "x", type=click.FloatRange(0.0, 1.0), default=0.5, show_default=True,
              help="The reply_min threshold.")  # fmt: skip
@click.option("--observer", default=OBSERVER, show_default=True,
              help="The policy of the seat whose belief is read.")  # fmt: skip
@click.option("--json", "json_path", type=click.Path(dir_okay=False))
@click.option("--quick", is_flag=True, help="Smoke test: 2 hands, 2 opponents.")
def main(hands: int, seed: int, x: float, observer: str, json_path: str | None,
         quick: bool) -> None:  # fmt: skip
    """Measure how often reply_min=x lets the weak model play each opponent."""
    try:
        bot_of(observer)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--observer") from None
    opponents = OPPONENTS[:2] if quick else OPPONENTS
    hands = min(hands, 2) if quick else hands
    t0 = time.time()
    rows = [measure(o, observer, hands, seed, x) for o in opponents]
    print(f"weak types (random + greedy) in seat 1's robust belief about seat 0; {hands} hands "
          f"(seed {seed}), observer {observer}, x = {x:g}")  # fmt: skip
    print(f"  {'opponent':<50} {'mean posterior':>14} {'share >= x':>10} {'hands':>6} {'first':>6}")
    for r in rows:
        first = r["median_first_decision"]
        print(f"  {r['opponent']:<50} {r['mean_weak_posterior']:>14.3f} "
              f"{r['share_at_least_x']:>10.3f} {r['hands_reaching_x']:>6} "
              f"{'-' if first is None else f'{first:g}':>6}")  # fmt: skip
    if json_path:
        doc = {"command": command_line("reply_min"),
               "commit": git_commit(), "python": platform.python_version(), "hands": hands,
               "seed": seed, "x": x, "observer": observer, "weak_types": list(WEAK),
               "seconds": round(time.time() - t0, 1), "rows": rows}  # fmt: skip
        Path(json_path).write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
