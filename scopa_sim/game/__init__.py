"""The game: cards and card sets, plays, the rules and their presets, a hand's state and a
seat's information set.

The Python face of the engine's kernels (:mod:`scopa_sim._engine`): every value is
validated here, then packed for the kernels."""
