"""A stored run written for other tools: JSONL, CSV and inspect_ai eval logs."""
