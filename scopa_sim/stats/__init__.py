"""Statistics that know nothing of Scopa: confidence intervals, tests and multiple-testing
corrections (:mod:`.inference`) and match equity by dynamic programming (:mod:`.equity`)."""
