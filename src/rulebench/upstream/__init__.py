"""Reading the user's own clone of an upstream project (its prompt text), never shipping it."""
