"""Inferential rule-following (RuleBench): tasks, settings, prompts, extraction and analyses."""
