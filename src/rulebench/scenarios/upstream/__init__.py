"""RuLES's own instruction text, read from the user's clone at run time (`--prompts upstream`)."""
