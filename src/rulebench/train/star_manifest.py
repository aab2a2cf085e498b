"""What a STaR data folder's manifest records about how its chain-of-thought targets were made.

Its own module so that the manifest (`train.data`) can name the section without knowing how
the rounds run (`train.star`), which itself reads and writes data folders.
"""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

TeacherReasoning = Literal["keep", "drop"]
"""What a kept target makes of a reasoning teacher's thinking. keep: the thinking, then the
reply, is the chain of thought; drop: the reply alone (which the teacher was asked to reason
in too). A teacher that shows no thinking gives the same targets either way."""
DEFAULT_TEACHER_REASONING: TeacherReasoning = "drop"
"""Drop: the reply is what the judge read and found right, in the length and register the
teacher was asked for; a reasoning model's raw thinking is unchecked, often many times longer,
and a model tuned on it learns to write that much before every answer. Keep is the opt-in for
a teacher whose thinking is the rationale wanted. Folders built before the option dropped it."""


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
    teacher_reasoning: TeacherReasoning = DEFAULT_TEACHER_REASONING
    """Whether the kept replies' thinking opens their completions (keep) or was left out."""
    kept: int = Field(ge=0)
    """Training examples whose completion is a teacher's reasoning."""
    kept_with_thinking: int = Field(default=0, ge=0)
    """Of them, those whose reply came with thinking: with keep their completion opens with it,
    with drop it was left out (0: the teacher showed none)."""
    fallbacks: int = Field(ge=0)
    """Training examples no attempt solved: their completion is the plain target."""
