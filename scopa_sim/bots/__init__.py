"""The players: the :class:`~scopa_sim.bots.base.Bot` interface, the jitted policies as bots,
the search bots (PIMC, ISMCTS, the solver), beliefs over hidden hands, search objectives,
the review's evaluator, ``advise``, and the policy registry that names them all."""
