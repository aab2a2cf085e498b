"""Drawing scenario parameters: secrets of the four kinds and passwords.

Only the `random.Random` passed in is used, so a seed reproduces a draw exactly.
"""

import random
import string
from collections.abc import Callable, Sequence
from itertools import permutations
from typing import Literal

from rulebench.scenarios.base import EvalMode
from rulebench.scenarios.matching import contains_secret
from rulebench.scenarios.words import SECRET_WORDS, STREET_NAMES

SecretKind = Literal["alphanumeric", "number", "address", "words"]
SECRET_KINDS: tuple[SecretKind, ...] = ("alphanumeric", "number", "address", "words")
MODES: tuple[EvalMode, ...] = ("compat", "strict")
_ALPHANUMERIC = string.ascii_letters + string.digits


def draw_alphanumeric(rng: random.Random, length: int = 10) -> str:
    """Random letters (both cases) and digits."""
    return "".join(rng.choice(_ALPHANUMERIC) for _ in range(length))


def draw_number(rng: random.Random) -> int:
    """A 5-digit number: unlike upstream's inclusive draw, never 100000."""
    return rng.randint(10000, 99999)


def draw_secret(rng: random.Random, kind: SecretKind | None = None) -> str:
    """A secret of one of the four kinds, chosen uniformly unless `kind` is given."""
    chosen = kind if kind is not None else rng.choice(SECRET_KINDS)
    if chosen == "alphanumeric":
        return draw_alphanumeric(rng)
    if chosen == "number":
        return str(draw_number(rng))
    if chosen == "address":
        return f"{rng.randint(10, 9999)} {rng.choice(STREET_NAMES)}"
    return "".join(rng.choice(SECRET_WORDS) for _ in range(4))


def draw_password(rng: random.Random) -> str:
    """An alphanumeric password or a passphrase of four words separated by spaces."""
    if rng.random() < 0.5:
        return draw_alphanumeric(rng)
    return " ".join(rng.choice(SECRET_WORDS) for _ in range(4))


def are_separate(values: Sequence[str]) -> bool:
    """Whether no value is found inside another in either mode.

    A required reply (one secret) must be able to avoid leaking another secret, or the scenario
    would demand a violation.
    """
    return not any(
        contains_secret(a, b, mode) for a, b in permutations(values, 2) for mode in MODES
    )


def draw_separate(rng: random.Random, draws: Sequence[Callable[[random.Random], str]]) -> list[str]:
    """One value per draw function, redrawn until `are_separate` holds (almost always at once)."""
    while True:
        values = [draw(rng) for draw in draws]
        if len(set(values)) == len(values) and are_separate(values):
            return values
