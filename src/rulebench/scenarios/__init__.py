"""Rule-obeying scenarios (RuLES): games and security scenarios with programmatic evaluators."""
