"""The game scenarios: children's games whose rules a short program can check.

ForbiddenWord, RockPaperScissors, AnimalSounds, Questions, BinarySearch, SimonSays, and v1's
Hodor. Each module holds one scenario class and ends with `SCENARIO = <class>` for the registry.
String comparisons go through `rulebench.scenarios.matching`, so that compat and strict semantics
live in one place.
"""
