"""`python -m rulebench` is the `rulebench` command."""

from rulebench.cli.entry import main

main()
