"""The explorer: stored and live runs, their items, charts, comparisons and search."""
