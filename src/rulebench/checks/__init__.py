"""Built-in tasks that check rulebench itself, not a model: the smoke test and the load test."""
