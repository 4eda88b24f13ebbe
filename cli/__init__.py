"""The ``scopa-sim`` command-line application (click), a thin layer over ``scopa_sim``."""

import os

# BLAS is never on a hot path here, but OpenBLAS starts a thread per core at import
# (numpy's and scipy's copies both) that spin for a while: about 0.2 s of CPU taken
# from the simulation threads at every start.  A user's own setting is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
