"""`python -m rulebench` is the `rulebench` command."""

from rulebench.cli.app import main

main()
