"""The results store: runs, results and the response cache in one SQLite file.

How a store is found, opened, migrated, written in batches, read, searched, merged and
checked for liveness; `database.Store` is the one entry point.
"""
