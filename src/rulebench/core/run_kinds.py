"""The task names of stored runs that the runner does not start (tuning runs, attacks).

They live here, apart from the modules that make such runs, so that the catalog and the CLI
can tell them apart without importing training or attack code.
"""

TRAINING_TASK = "irft"
"""An IRFT tuning run (`rulebench train irft`)."""
GCG_TASK = "gcg"
"""A GCG attack (`rulebench attack gcg`): its items are its steps."""
NOT_EVALUATIONS = frozenset({TRAINING_TASK, GCG_TASK})
"""Runs the runner does not start, so it does not resume them either."""
