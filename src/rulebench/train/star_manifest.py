"""What a STaR data folder's manifest records about how its chain-of-thought targets were made.

Its own module so that the manifest (`train.data`) can name the section without knowing how
the rounds run (`train.star`), which itself reads and writes data folders.
"""

from pydantic import BaseModel, ConfigDict, Field


class StarRound(BaseModel):
    """One attempt over the examples no earlier attempt solved: one stored `irft-star` run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    attempt: int = Field(ge=1)
    run_id: str
    """The stored run holding every reply of the round (`rulebench runs show`)."""
    items: int = Field(ge=0)
    """Examples the teacher was asked about in this round."""
    kept: int = Field(ge=0)
    """Of them, those whose reply reached the right answer: the reply became the completion."""
    kept_without_golden_rule: int = Field(default=0, ge=0)
    """Kept replies whose answer line does not name the golden rule (the number is right, the
    attribution wrong or missing): how clean the kept reasoning is."""


class StarSection(BaseModel):
    """How the train split's completions were made: the teacher, its rounds, what fell back."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    teacher: str
    """The teacher's model spec (its exact identity is in each round's run notes)."""
    source: str
    """The data folder the examples were read from."""
    source_hash: str
    """That folder's data hash: the prompts, answers and test splits came from this data."""
    max_attempts: int = Field(ge=1)
    max_tokens: int = Field(ge=1)
    temperature: float = Field(ge=0.0)
    rounds: tuple[StarRound, ...]
    kept: int = Field(ge=0)
    """Training examples whose completion is a teacher's reasoning."""
    fallbacks: int = Field(ge=0)
    """Training examples no attempt solved: their completion is the plain target."""
