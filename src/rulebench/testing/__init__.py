"""Test doubles shipped with rulebench, for its own tests and benchmarks and for users' tests.

Import from the submodules (`rulebench.testing.mock_server`: the server); this package re-exports
nothing, so that `python -m rulebench.testing.mock_openai` runs each module once.
"""
