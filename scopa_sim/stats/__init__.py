"""Statistics that know nothing of Scopa: the one interval type :class:`Estimate`
(:mod:`.estimate`), confidence intervals, tests and multiple-testing corrections
(:mod:`.inference`) and match equity by dynamic programming (:mod:`.equity`)."""

from scopa_sim.stats.estimate import Estimate

__all__ = ["Estimate"]
