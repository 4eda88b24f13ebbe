"""Training the learned policy of a preset (:func:`train`, the ``train`` command)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Training", "train"]


@dataclass(frozen=True, repr=False)
class Training:
    """A finished training: ``doc`` is its ``train.json`` (the command, configuration,
    samples, CPU seconds, the model's digest and its results against each opponent);
    ``shipped`` the package's manifest entry when the weights were shipped."""

    doc: dict[str, Any]
    out: str
    shipped: dict[str, Any] | None = None

    def text(self) -> str:
        """The summary the command prints."""
        d = self.doc
        cpu = d["cpu_seconds"]
        lines = [
            f"{d['preset']}: model {d['digest'][:16]} (hidden {d['hidden']}) in {self.out}",
            f"data: {d['decisions']:,} decisions ({d['plays']:,} plays); CPU {cpu['train']:.0f} s"
            f" (rollouts {cpu['rollouts']:.0f}, search {cpu['search']:.0f}, fit {cpu['fit']:.0f})",
        ]
        for name, r in d["results"].items():
            lines.append(
                f"learned vs {name}: {r['estimate']:+.4f} [{r['low']:+.4f}, {r['high']:+.4f}] "
                f"points per deal, n={r['n']:,} deals (95% CI)"
            )
        if self.shipped is not None:
            lines.append(f"shipped: scopa_sim/bots/weights/{self.shipped['file']}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """``train.json`` with the shipped entry (or None)."""
        return {**self.doc, "shipped": self.shipped}

    def __repr__(self) -> str:
        return self.text()


def train(
    preset: str,
    out: str | Path,
    *,
    seed: int = 0,
    hands: int = 20_000,
    chunk: int = 2_000,
    worlds: int = 8,
    rate: float = 0.5,
    search_hands: int = 0,
    search_chunk: int = 500,
    hidden: int = 64,
    epochs: int = 6,
    lr: float = 0.01,
    l2: float = 1e-5,
    pairs: int = 10_000,
    eval_seed: int = 777,
    ship: bool = False,
    command: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> Training:
    """Train the learned policy of ``preset`` in the directory ``out`` and measure it
    (:func:`scopa_sim.sim.training.train`: rollout data in chunks of ``chunk`` hands, then
    ``search_hands`` hands of search labels, the fit, the evaluation against ``expert``
    and ``expert+exact`` on ``pairs`` deals of the run ``eval_seed``), resuming from the
    pieces already in ``out``; with ``ship``, copy the weights and their manifest entry
    into the package (:func:`scopa_sim.sim.training.ship`).

    Args:
        preset: a preset the kernels play.
        out: the training directory (made if missing).
        seed, hands, chunk, worlds, rate, search_hands, search_chunk, hidden, epochs, lr,
            l2, pairs, eval_seed: :class:`scopa_sim.sim.training.TrainConfig`'s fields.
        ship: write the weights into the package.
        command: the command recorded in ``train.json`` (default: the canonical one).
        progress: called with a line after each piece.

    Returns:
        The :class:`Training`.

    Raises:
        InputError: an unknown preset or one the kernels do not play (Cirulla's), a size
            out of range, ``out`` unwritable or holding another training's pieces.
    """
    from scopa_sim.sim import training as T

    cfg = T.TrainConfig(
        preset=preset, seed=seed, hands=hands, chunk=chunk, worlds=worlds, rate=rate,
        search_hands=search_hands, search_chunk=search_chunk, hidden=hidden, epochs=epochs,
        lr=lr, l2=l2, pairs=pairs, eval_seed=eval_seed,
    )  # fmt: skip
    doc = T.train(cfg, out, say=progress, command=command)
    shipped = T.ship(out) if ship else None
    return Training(doc, str(out), shipped)
