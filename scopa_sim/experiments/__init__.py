"""Research programmes: the measurements behind the documented choices.

Each module is a program, run from the repository's root as
``python -m scopa_sim.experiments.<name> [options]`` (``--help`` lists them), that
plays or times settings of the library and writes its results as JSON (and Markdown
tables); the committed results and the commands that made them are listed in
``benchmarks/results/README.md``.  The modules share one helper module,
:mod:`scopa_sim.experiments.common`, and use the library through its public modules
only (never ``scopa_sim._engine``); the rules the documentation relies on (the round
robin's standings, the best bot's rule) live in the library
(:mod:`scopa_sim.sim.tournament`, :mod:`scopa_sim.sim.ranking`).

* ``ladder``: search bots against fixed opponents over budgets, and their speed;
* ``belief``: the play model's fit, the beliefs' quality and strength at equal time;
* ``roundrobin``: the round robin at equal time per move that ranks the settings;
* ``pick_best``: the best bot's rule applied to the committed measurements;
* ``tune``: the best bot's one-knob variants against it;
* ``reply_min``: how often a weak type's model would play an opponent;
* ``match``: match-aware against margin play over whole matches;
* ``search``: the search bots' strength at equal time, and the solver's and ISMCTS's speed;
* ``review``: the game review's loss distributions and label thresholds;
* ``variance``: how much of a hand's margin the deal explains.
"""
