"""Bounded CPU thread pools: episodes running at once share the cores instead of oversubscribing them.

OpenMP, MKL and OpenBLAS each start one thread per core by default, in every
worker process, so a policy doing its maths on the CPU with N workers would run
N x cores threads on cores threads. The libraries read these variables when
they start, so they are set before the policy is loaded and before workers are
spawned (which inherit them); a value the user set is kept.
"""

from __future__ import annotations

import os

POOL_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
MAX_THREADS = 4  # beyond this, small-batch policy inference gains little and shares worse


def bound_thread_pools(workers: int) -> int:
    """Give each of `workers` concurrent episodes an equal share of the cores, at most MAX_THREADS; returns it."""
    share = max(1, min(MAX_THREADS, (os.cpu_count() or 1) // max(1, workers)))
    for var in POOL_VARS:
        os.environ.setdefault(var, str(share))
    return share
