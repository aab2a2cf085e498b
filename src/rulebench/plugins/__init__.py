"""Code rulebench finds at run time: the lazy registries, entry points, `--include` folders.

It sits above `core` because finding that code is I/O: reading installed packages' metadata,
globbing a folder and executing the user's files. `core` keeps only the pure parts
(`core.did_you_mean`).
"""
