"""The data of a run: the pinned Parquet schema and shard files, the record encoding, the
run's configuration (:class:`~scopa_sim.data.run.SimConfig`) and reading a finished run back."""
