"""The values the use-case functions accept, for a front door's choices, help and
limits (the command line's ``--preset``, ``--policy``, ``--belief``, ``--metric``,
``--by`` and its count ranges). Each is the library's own, defined where it is used, and
imported on first use (PEP 562), so that a front door loads only the registries it
shows; :mod:`scopa_sim` itself does not import this module.

* ``PRESETS``: the rules presets (name -> options), :data:`scopa_sim.game.rules.PRESETS`;
* ``POLICIES``: every policy by name, :data:`scopa_sim.bots.registry.POLICIES`;
* ``SHOWN_BELIEFS``: the belief models :func:`~scopa_sim.api.advise` and
  :func:`~scopa_sim.api.review` show (``belief=``);
* ``SECTIONS``, ``GROUP_KEYS``, ``COMPARE_METRICS``: what :func:`~scopa_sim.api.analyze`
  shows (``sections=``) and groups by (``by=``), what :func:`~scopa_sim.api.compare`
  compares (``metrics=``); ``FEATURE_HELP``: the deal features ``by=`` also takes, in one
  line;
* ``MAX_ADVANTAGE_HANDS``: the most hands :func:`~scopa_sim.api.advantage` and
  :func:`~scopa_sim.api.study` take;
* ``EQUITY_POLICIES``, ``MAX_EQUITY_HANDS``: the policies and the most hands of
  :func:`~scopa_sim.api.equity`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scopa_sim.analysis.advantage import MAX_HANDS as MAX_ADVANTAGE_HANDS
    from scopa_sim.analysis.analyze import COMPARE_METRICS, GROUP_KEYS, SECTIONS
    from scopa_sim.api.reporting import EQUITY_POLICIES, MAX_EQUITY_HANDS
    from scopa_sim.bots.belief import SHOWN_BELIEFS
    from scopa_sim.bots.registry import POLICIES
    from scopa_sim.game.rules import PRESETS
    from scopa_sim.sim.deals import FEATURE_HELP

#: Name here -> (module, name there).
_HOMES = {
    "COMPARE_METRICS": ("scopa_sim.analysis.analyze", "COMPARE_METRICS"),
    "EQUITY_POLICIES": ("scopa_sim.api.reporting", "EQUITY_POLICIES"),
    "FEATURE_HELP": ("scopa_sim.sim.deals", "FEATURE_HELP"),
    "GROUP_KEYS": ("scopa_sim.analysis.analyze", "GROUP_KEYS"),
    "MAX_ADVANTAGE_HANDS": ("scopa_sim.analysis.advantage", "MAX_HANDS"),
    "MAX_EQUITY_HANDS": ("scopa_sim.api.reporting", "MAX_EQUITY_HANDS"),
    "POLICIES": ("scopa_sim.bots.registry", "POLICIES"),
    "PRESETS": ("scopa_sim.game.rules", "PRESETS"),
    "SECTIONS": ("scopa_sim.analysis.analyze", "SECTIONS"),
    "SHOWN_BELIEFS": ("scopa_sim.bots.belief", "SHOWN_BELIEFS"),
}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        module, there = _HOMES[name]
        return getattr(importlib.import_module(module), there)
    raise AttributeError(f"module 'scopa_sim.api.choices' has no attribute {name!r}")


__all__ = [
    "COMPARE_METRICS",
    "EQUITY_POLICIES",
    "FEATURE_HELP",
    "GROUP_KEYS",
    "MAX_ADVANTAGE_HANDS",
    "MAX_EQUITY_HANDS",
    "POLICIES",
    "PRESETS",
    "SECTIONS",
    "SHOWN_BELIEFS",
]
