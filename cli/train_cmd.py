"""``train``: train, measure and (optionally) ship the learned policy of a preset."""

from __future__ import annotations

import json
import shlex
import sys

import click

from scopa_sim.api.training import train

from .interrupted import exit_interrupted
from .options import PathArg, usage_errors


@click.command()
@click.option("--preset", required=True, help="A preset (Cirulla's included).")
@click.option("--out", type=PathArg(), required=True, help="The training directory (pieces).")
@click.option("--seed", type=int, default=0, show_default=True, help="The training's seed.")
@click.option("--hands", type=int, default=20_000, show_default=True, help="Rollout hands.")
@click.option("--chunk", type=int, default=2_000, show_default=True, help="Hands per piece.")
@click.option("--worlds", type=int, default=8, show_default=True, help="Worlds per rollout.")
@click.option("--rate", type=float, default=0.5, show_default=True, help="Decisions sampled.")
@click.option(
    "--search-hands", type=int, default=0, show_default=True, help="Hands of search labels."
)
@click.option("--search-chunk", type=int, default=500, show_default=True)
@click.option("--hidden", type=int, default=64, show_default=True, help="Hidden width.")
@click.option("--epochs", type=int, default=6, show_default=True)
@click.option("--lr", type=float, default=0.01, show_default=True)
@click.option("--l2", type=float, default=1e-5, show_default=True)
@click.option("--pairs", type=int, default=10_000, show_default=True, help="Evaluation deals.")
@click.option("--eval-seed", type=int, default=777, show_default=True)
@click.option("--ship", is_flag=True, help="Write the weights into the package.")
@click.option("--json", "as_json", is_flag=True, help="Print train.json as JSON.")
def train_cmd(
    preset: str,
    out: str,
    seed: int,
    hands: int,
    chunk: int,
    worlds: int,
    rate: float,
    search_hands: int,
    search_chunk: int,
    hidden: int,
    epochs: int,
    lr: float,
    l2: float,
    pairs: int,
    eval_seed: int,
    ship: bool,
    as_json: bool,
) -> None:
    """Train the learned policy of a preset: rollout samples (8 worlds, the exact endgame
    where it applies), optionally search labels, the fit, then its margin against
    expert and expert+exact on paired deals with the 95% CI.

    The work is done in pieces in OUT (data chunks, the model, each evaluation), each
    written whole: run the same command again after an interrupt to resume; the weights
    are the same (more --hands, or another --hidden, --epochs, --lr, --l2, --pairs or
    --eval-seed on the same OUT reuse the data pieces there). Progress goes to standard
    error; OUT/train.json records the command, the samples, the CPU seconds, the model's
    digest and the results.

    Example: scopa-sim train --preset scopa-3 --out runs/train/scopa-3 --hands 20000
    """
    command = "scopa-sim train " + shlex.join(sys.argv[2:]) if len(sys.argv) > 2 else None
    try:
        with usage_errors():
            result = train(
                preset, out, seed=seed, hands=hands, chunk=chunk, worlds=worlds, rate=rate,
                search_hands=search_hands, search_chunk=search_chunk, hidden=hidden,
                epochs=epochs, lr=lr, l2=l2, pairs=pairs, eval_seed=eval_seed, ship=ship,
                command=command if sys.argv[1:2] == ["train"] else None,
                progress=lambda line: click.echo(line, err=True),
            )  # fmt: skip
    except KeyboardInterrupt as e:
        exit_interrupted(e, f"train stopped; run the same command again to resume from {out}")
    if as_json:
        json.dump(result.to_dict(), sys.stdout, indent=2)
        click.echo()
        return
    click.echo(result.text())
