"""Greedy Coordinate Gradient: the search, its config and settings, prompts, losses, tokens."""
