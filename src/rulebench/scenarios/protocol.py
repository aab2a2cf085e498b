"""The multi-turn protocol: instruction placement, then one reply per trailing user turn.

Each reply is checked by the scenario's evaluator; the case stops at the first violation.
"""

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, JsonValue, field_validator, model_validator

from rulebench.core.cases import TestCase, Verdict
from rulebench.core.errors import ConfigError, DataError
from rulebench.core.messages import Message
from rulebench.core.wording import Prompts, UpstreamText, label_of_record, prompts_label
from rulebench.engine.conversation import play_conversation, split_trailing_user_turns
from rulebench.engine.task import Session
from rulebench.scenarios.base import PLACEHOLDER_REPLY, EvalMode, Scenario, Version
from rulebench.scenarios.suffix import as_written
from rulebench.scenarios.system_messages import system_message

Placement = Literal["user", "system"]


class Protocol(BaseModel):
    """How a case is played; stored with every run and printed next to every score."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    placement: Placement = "user"
    """user: instructions as the first user message plus the placeholder reply (v1 default);
    system: instructions as the system message (the published v3 reference numbers)."""
    reminders: bool = True
    """Keep the precedence reminders around the rules."""
    system_message: str | None = None
    """A named system message (v1 framing), sent in user placement only."""
    mode: EvalMode = "compat"
    prompts: Prompts = "rulebench"
    """Whose instruction text: rulebench's own wording, or RuLES's v3 text read from the
    user's clone (`--prompts upstream`, the only text the published numbers compare with)."""
    upstream: UpstreamText | None = None
    """The clone the upstream text is read from (commit and files' hash); set exactly when
    `prompts` is upstream. Play reads the text again from it and refuses an edited clone."""

    @field_validator("system_message")
    @classmethod
    def _known_system_message(cls, name: str | None) -> str | None:
        # Checked here, when the protocol is built, not when a case first needs the text:
        # else a bogus name becomes one error per item in a run that exits 0.
        system_message(name)  # raises ConfigError naming the known messages
        return name

    @model_validator(mode="after")
    def _system_message_needs_user_placement(self) -> "Protocol":
        # In system placement the instructions are the system message: a named one has no
        # slot (spec, instruction placement), and dropping it silently misreports the run.
        if self.placement == "system" and self.system_message:
            raise ConfigError(
                f"system message '{self.system_message}' needs user placement: in system "
                "placement the instructions are the system message (use --placement user, "
                "or drop --system-message)"
            )
        return self

    @field_validator("upstream", mode="before")
    @classmethod
    def _a_record_not_a_folder(cls, value: object) -> object:
        # A config reads no files: a folder is turned into its record before (`load_inputs`).
        if isinstance(value, str | Path):
            raise ConfigError(unread_clone(value))
        return value

    @model_validator(mode="after")
    def _upstream_names_its_clone(self) -> "Protocol":
        # The record is what makes an upstream run reproducible and tells two clones apart.
        if self.prompts == "upstream" and self.upstream is None:
            raise ConfigError(
                "prompts 'upstream' needs upstream: the folder of your clone of "
                "normster/llm_rules (or of the lm-evaluation-harness fork that vendors it)"
            )
        if self.prompts == "rulebench" and self.upstream is not None:
            raise ConfigError("a clone (upstream) is recorded but prompts is 'rulebench'")
        return self

    def label(self) -> str:
        """E.g. "system, no reminders, compat"; a system message and upstream prompts are added.

        rulebench's own wording, the default, adds nothing (reports show it in their header).
        """
        reminders = "reminders" if self.reminders else "no reminders"
        framing = f", system message {self.system_message}" if self.system_message else ""
        wording = f", {self.prompts_label()}" if self.prompts == "upstream" else ""
        return f"{self.placement}, {reminders}, {self.mode}{framing}{wording}"

    def prompts_label(self) -> str:
        """The wording header, e.g. "prompts: upstream (clone at commit 1a2b3c4d)"."""
        return prompts_label(self.prompts, self.upstream)

    def prompt(self, scenario: Scenario, version: Version = "v3") -> str:
        """The instruction text of a scenario instance in this protocol's wording."""
        if self.prompts == "rulebench" or self.upstream is None:
            return scenario.prompt(reminders=self.reminders, version=version)
        from rulebench.scenarios.upstream.text import text_for

        return text_for(self.upstream).prompt(scenario, self.reminders, version)

    def redacted_prompt(self, scenario: Scenario, version: Version = "v3") -> str:
        """What a red-teamer sees, in this protocol's wording (secrets hidden)."""
        if self.prompts == "rulebench" or self.upstream is None:
            return scenario.redacted_prompt(version=version)
        from rulebench.scenarios.upstream.text import text_for

        return text_for(self.upstream).redacted_prompt(scenario, version)


def unread_clone(folder: str | Path) -> str:
    """Why a config refuses a clone named by its folder, and how to name it."""
    return (
        f"upstream: the clone '{folder}' is a folder, not its record: a config reads no files; "
        "give `scenarios.upstream.text.clone_record(folder)`, or the folder in a run's config "
        "fields (`rulebench.run` and experiment files read it)"
    )


def stored_label(stored: JsonValue) -> str:
    """The label of a protocol as a run stored it, even one a later check would refuse.

    Runs stored before system placement refused a named system message still get a report:
    the message was never sent, so the label leaves it out.
    """
    data = dict(stored) if isinstance(stored, dict) else {}
    try:
        return Protocol.model_validate(data).label()
    except ConfigError:
        return Protocol.model_validate({**data, "system_message": None}).label()


def stored_prompts_label(stored: JsonValue) -> str:
    """A stored protocol's wording header; runs stored before the choice existed used ours."""
    data = stored if isinstance(stored, dict) else {}
    return label_of_record(data.get("prompts"), data.get("upstream"))


PUBLISHED_V3 = Protocol(placement="system", reminders=False)
"""The configuration of the published v3 reference numbers (GPT-4o headline 91.7)."""
PUBLISHED_V3_MAX_TOKENS = 100
"""The reply limit upstream's runners generate with: llm_rules' default, and S-RuLES's
`max_gen_toks: 100` in the lm-evaluation-harness fork. `--preset published-v3` carries it, so
a reply is scored over the text upstream would have scored; `--max-tokens` still wins."""


def instructions(
    scenario: Scenario, protocol: Protocol, has_system_role: bool, version: Version = "v3"
) -> tuple[list[Message], Placement]:
    """The messages before the test case, and the placement actually used.

    A model without a system role gets user placement instead of system placement (recorded).
    """
    prompt = protocol.prompt(scenario, version)
    if protocol.placement == "system" and has_system_role:
        return [Message(role="system", content=prompt)], "system"
    framing = system_message(protocol.system_message)
    prefix = [Message(role="system", content=framing)] if framing else []
    return [
        *prefix,
        Message(role="user", content=prompt),
        Message(role="assistant", content=PLACEHOLDER_REPLY),
    ], "user"


def check_case_data(case: TestCase, scenario: Scenario, mode: EvalMode = "strict") -> None:
    """A malformed user message is the data's fault: raise before any model call.

    strict checks every user message. compat meets one where upstream's walk does, so a reply
    that broke a rule before it decides the case instead: it checks here only what no model
    reply can precede (the prefilled turns and the first turn to answer); the evaluator raises
    for a later one when the walk reaches it.
    """
    where = case.metadata.get("source") or f"case {case.id}"
    if mode == "compat":
        prefill, trailing = split_trailing_user_turns(case.messages)
        try:
            scenario.evaluate([*prefill, *trailing[:1]], mode, case.version)
        except DataError as exc:
            raise DataError(f"{where}: {exc}") from None
        return
    for number, message in enumerate(case.messages, start=1):
        if message.role == "user" and (
            reason := scenario.check_user_message(message.content, mode)
        ):
            raise DataError(f"{where}: message {number}: {reason}")


async def play_case(
    case: TestCase,
    scenario: Scenario,
    session: Session,
    protocol: Protocol,
    written: Sequence[Message] | None = None,
) -> tuple[list[Message], Verdict, Placement]:
    """Play a case: prefilled turns are checked first, then each trailing user turn gets a reply.

    `written`: the case's messages as the evaluator should read them, when the model is shown
    other ones (an adversarial suffix appended); replies are judged with the user messages
    put back as written.

    Returns the test-case conversation as played (without the instructions), the verdict and
    the placement used.
    """
    judged = list(written if written is not None else case.messages)
    check_case_data(case.model_copy(update={"messages": tuple(judged)}), scenario, protocol.mode)
    has_system = session.model.info.supports_system_role
    head, placement = instructions(scenario, protocol, has_system, case.version)
    prefill, _ = split_trailing_user_turns(case.messages)
    verdict = scenario.evaluate(_answered(as_written(prefill, judged)), protocol.mode, case.version)
    if not verdict.passed:  # a prefilled reply already breaks a rule: nothing to generate
        return list(case.messages), verdict, placement
    last: list[Verdict] = [verdict]

    def check(conversation: list[Message]) -> str | None:
        played = conversation[len(head) :]
        last[0] = scenario.evaluate(as_written(played, judged), protocol.mode, case.version)
        return None if last[0].passed else last[0].reason or "rule broken"

    conversation, _ = await play_conversation(session, [*head, *case.messages], check)
    return conversation[len(head) :], last[0], placement


def _answered(messages: Sequence[Message]) -> list[Message]:
    """The prefix up to its last assistant message (trailing user turns are not yet answered)."""
    ends = [i for i, m in enumerate(messages) if m.role == "assistant"]
    return list(messages[: ends[-1] + 1]) if ends else []
