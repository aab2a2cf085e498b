"""Test doubles shipped with rulebench, for its own tests and benchmarks and for users' tests.

Import from the submodule (`rulebench.testing.mock_openai`); this package re-exports nothing so
that `python -m rulebench.testing.mock_openai` runs the module once.
"""
