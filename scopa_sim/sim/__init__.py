"""Playing many hands: matches and duplicate deals, a run's shards, the executors (this
machine, Dask) and the one process pool, ``simulate``, ``tournament`` and ``warm``."""
