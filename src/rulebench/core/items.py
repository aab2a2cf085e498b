"""Items (units of work), their outcomes and results, and the content-hash ids that name them."""

import hashlib
import json
from collections import Counter
from collections.abc import Mapping
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from rulebench.core.errors import StoreError
from rulebench.core.messages import Message, Usage

MetaT = TypeVar("MetaT", bound=BaseModel)


class Item(BaseModel):
    """One unit of work: a single question or a multi-turn test case, run against a model.

    A single-turn question and a multi-turn conversation are the same shape: prefilled turns
    followed by the user turns that each get a reply. What the runner does with them is up to
    the task that made the item.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    """Stable id: a hash of what defines the item, never its position in a file."""
    messages: tuple[Message, ...]
    """The conversation to play: prefilled turns, then the user turn(s) that get replies."""
    target: str | None = None
    """The gold answer, for tasks that have one."""
    choices: tuple[str, ...] = ()
    """Candidate answers, for tasks with a closed answer set (log-likelihood scoring)."""
    metadata: dict[str, JsonValue] = Field(default_factory=dict)
    """Task facts reports group by (hops, scenario, behavior, ...); stored with the result."""
    repeat: int = Field(default=0, ge=0)
    """Which evaluation of the same content this is (`--repeats`): each repeat samples with
    its own seed and has its own cache entries, so repeats are independent draws."""


class Outcome(BaseModel):
    """What a task concludes about an item once the model has replied: answer and score."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    answer: str | None = None
    """The answer extracted from the reply, if the task extracts one."""
    score: float | None = None
    """1.0 correct, 0.0 wrong; None when the item does not count (a refusal excluded by rule)."""
    passed: bool | None = None
    """Verdict of a rule check (multi-turn scenarios), None for tasks that only score."""
    reason: str | None = None
    """Why the verdict or score is what it is, in words (which turn broke which rule)."""
    details: dict[str, JsonValue] = Field(default_factory=dict)


ResultStatus = Literal["ok", "error"]


class ItemResult(BaseModel):
    """Everything stored about one finished item: transcript, outcome or error, cost."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    item_id: str
    messages: tuple[Message, ...] = ()
    """The last conversation sent to the model, followed by its reply when there was one."""
    reply: str | None = None
    """The model's last reply: its answer, the thinking split off into `reasoning`."""
    reasoning: str | None = None
    """The thinking of the model's last reply; None when the model showed none."""
    is_reasoning_unfinished: bool = False
    """True when a reply's thinking never closed (cut by the reply limit), so that reply has
    no answer: the item is counted as cut short and not scored (`engine.task.unscored`),
    never read as a wrong answer or as rule-following."""
    outcome: Outcome | None = None
    error: str | None = None
    """Why the item could not be finished (after retries); never counted as a wrong answer."""
    usage: Usage = Usage()
    """Tokens the model read and wrote for this item (replies from the response cache aside),
    replies that came back yet were retried included."""
    cached_usage: Usage = Usage()
    """Tokens of the replies served from the response cache: no model saw them this time."""
    scoring_tokens: int = 0
    """Tokens read to score choices by log-likelihood (see ChoiceScores.tokens)."""
    latency_s: float = 0.0
    """Wall time of the item's model calls, summed."""
    calls: int = 0
    attempts: int = 0
    """Requests the calls sent, retries included (a call that timed out once sent two); 0
    in results stored before attempts were counted. Above `calls` the server struggled."""
    cache_hits: int = 0
    endpoints: tuple[str, ...] = ()
    """The servers that answered this item's calls, in order of first use, when the model
    names them (a model spread over several replicas); cached replies name none."""
    system_merged: bool = False
    """True when the backend folded the system message into the first user turn."""
    metadata: dict[str, JsonValue] = Field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    """What had to change to keep the result (a reply's lone surrogates replaced, a reply cut
    at the size cap); empty when everything was kept as it came."""

    @property
    def status(self) -> ResultStatus:
        """Whether the item finished ("ok") or ended in an error that a resume retries."""
        return "error" if self.error is not None else "ok"


CANONICAL_JSON = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode
"""json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False), the text every
content hash is taken of, without building an encoder per call."""


def content_hash(content: JsonValue, length: int = 16) -> str:
    """Hash JSON content canonically (sorted keys, no spaces) so equal content gets equal ids."""
    canonical = CANONICAL_JSON(content)
    # surrogatepass: a lone surrogate (half an emoji) must hash, not crash; it is repaired later.
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()[:length]


class ItemIds:
    """Assigns item ids from content, numbering exact duplicates so each id stays unique.

    Some releases hold identical records more than once; the n-th copy gets the occurrence number
    n in its hash, so ids stay stable when records are added or reordered elsewhere in a file.
    """

    def __init__(self) -> None:
        self._seen: Counter[str] = Counter()

    def __call__(self, content: JsonValue, repeat: int = 0) -> str:
        """Return the id for this content; `repeat` is the index of a repeated evaluation."""
        base = content_hash(content)
        occurrence = self._seen[base]
        self._seen[base] += 1
        if occurrence == 0 and repeat == 0:
            return base
        return content_hash([base, occurrence, repeat])


def read_metadata(model: type[MetaT], metadata: Mapping[str, JsonValue], item_id: str) -> MetaT:
    """An item's stored metadata as its family's typed model (`model`).

    Raises:
        StoreError: the record does not fit the model; names the item and the field.
    """
    try:
        return model.model_validate(dict(metadata))
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(part) for part in error["loc"])
        where = f"item {item_id}" if item_id else f"a stored {model.__name__}"
        raise StoreError(f"{where}: metadata field '{field}': {error['msg']}") from None
