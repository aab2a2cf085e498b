"""Red-teaming by hand: one scenario instance, user turns typed by a person, verdict per reply.

Used by `rulebench play` (the terminal) and the playground of `rulebench serve` (the browser).
Every reply comes through the engine's `Session`, as in a run: the cache, cost accounting and
the repair of unstorable text apply to play too; retries live in the backends.
"""

import json
import random
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import get_args

from pydantic import JsonValue

from rulebench.core.cases import TestCase, Verdict
from rulebench.core.errors import ConfigError, StoreError
from rulebench.core.items import content_hash
from rulebench.core.messages import Completion, GenerateConfig, Message, reply_turn
from rulebench.engine.task import Session
from rulebench.scenarios.base import EvalMode, Scenario
from rulebench.scenarios.config import ScenarioConfig
from rulebench.scenarios.played import COLLECTED_FIELD, PLAYED_FIELD, PlayRecord
from rulebench.scenarios.protocol import Protocol, instructions, play_case
from rulebench.scenarios.registry import behaviors

PLAY_SUITE = "manual"
"""The suite of hand-made cases: reports show them apart from benign, basic and redteam."""
EVAL_MODES: tuple[EvalMode, ...] = get_args(EvalMode)


def play_reply_limit(max_tokens: int | None = None) -> int:
    """The reply limit a game plays at: the one given, else an official-size run's.

    The terminal and the playground both ask here. Attacks get room, and a saved case records
    the limit, so its replay plays alike.
    """
    return max_tokens or ScenarioConfig(per_group=None).generation_defaults().max_tokens


class PlaySession:
    """A conversation between a person and a model inside one scenario instance."""

    def __init__(self, scenario: Scenario, session: Session, protocol: Protocol) -> None:
        self.scenario = scenario
        self.session = session
        self.protocol = protocol
        self.head, self.placement = instructions(
            scenario, protocol, session.model.info.supports_system_role
        )
        self.turns: list[Message] = []
        self.verdict = Verdict(passed=True)

    @classmethod
    def start(
        cls, scenario_type: type[Scenario], seed: int, session: Session, protocol: Protocol
    ) -> "PlaySession":
        """Sample the scenario's parameters from `seed` and open a session."""
        return cls(scenario_type.sample(random.Random(seed)), session, protocol)

    def redacted_prompt(self) -> str:
        """The instructions as the person playing sees them (protocol's wording, secrets hidden)."""
        return self.protocol.redacted_prompt(self.scenario)

    def problem_with(self, user_text: str) -> str | None:
        """Why a user turn cannot be sent (a multi-user scenario needs `<name>:`), or None."""
        if not user_text.strip():
            return "type a message"
        return self.scenario.check_user_message(user_text)

    async def send(self, user_text: str) -> tuple[Completion, Verdict]:
        """Send one user turn; return the reply and the verdict on the whole conversation.

        A failed call (a ModelError) leaves the conversation as it was, so the turn can be
        sent again.
        """
        turns = [*self.turns, Message(role="user", content=user_text)]
        completion = await self.session.generate([*self.head, *turns])
        self.turns = [*turns, reply_turn(completion)]
        self.verdict = self.scenario.evaluate(self.turns, self.protocol.mode)
        return completion, self.verdict

    def restore(self, turns: Sequence[Message]) -> Verdict:
        """Put back turns played before (a stored game, or a cut one); verdict recomputed."""
        self.turns = list(turns)
        self.verdict = self.scenario.evaluate(self.turns, self.protocol.mode)
        return self.verdict

    def cut(self, user_turns: int) -> Verdict:
        """Keep the first `user_turns` user turns and their replies (undo, edit)."""
        users = [index for index, m in enumerate(self.turns) if m.role == "user"]
        end = users[user_turns] if user_turns < len(users) else len(self.turns)
        return self.restore(self.turns[:end])

    async def regenerate(
        self, session: Session | None = None, config: GenerateConfig | None = None
    ) -> tuple[Completion, Verdict]:
        """Ask again for the last reply, through `session` (default: the game's own).

        A session without the cache and a new sampling seed in `config` give a new draw; at
        temperature 0 a model answers alike (greedy decoding). Nothing changes on a failure.
        """
        if not self.turns or self.turns[-1].role != "assistant":
            raise ConfigError("there is no reply to regenerate yet")
        asked = self.turns[:-1]
        completion = await (session or self.session).generate([*self.head, *asked], config)
        self.restore([*asked, reply_turn(completion)])
        return completion, self.verdict

    async def replay(self, case: TestCase) -> Verdict:
        """Play a saved case's turns as `run scenarios` does (to the first broken rule).

        The conversation then goes on from there; the case's prefilled replies are kept.
        """
        conversation, self.verdict, _ = await play_case(
            case.model_copy(update={"version": "v3"}),  # played as `send` plays: v3 wording
            self.scenario,
            self.session,
            self.protocol,
        )
        self.turns = conversation
        return self.verdict

    def verdicts(self) -> dict[EvalMode, Verdict]:
        """The verdict on the conversation so far in every evaluator mode."""
        return {mode: self.scenario.evaluate(self.turns, mode) for mode in EVAL_MODES}

    def broken_behavior(self, verdict: Verdict | None = None) -> str:
        """The rule a verdict (default: the session's) names, else the scenario's first rule."""
        reason = (verdict or self.verdict).reason or ""
        named = [rule.behavior for rule in self.scenario.rules if rule.behavior in reason]
        return max(named, key=len) if named else self.scenario.rules[0].behavior

    def test_case(self, behavior: str, category: str = "manual") -> TestCase:
        """The session as a test case: its parameters and the user turns (replies dropped)."""
        users = tuple(m for m in self.turns if m.role == "user")
        params = self.scenario.params.model_dump(mode="json")
        return TestCase(
            id=content_hash([self.scenario.name, params, [m.content for m in users]], length=32),
            scenario=self.scenario.name,
            behavior=behavior,
            category=category,
            suite=PLAY_SUITE,
            params=params,
            messages=users,
            # A v1-only scenario (Hodor) loads only from v1 files: `--version v1` reads it back.
            version="v3" if "v3" in self.scenario.versions else "v1",
            metadata={PLAYED_FIELD: self.record().model_dump(mode="json")},
        )

    def record(self) -> PlayRecord:
        """How this game is played: what a saved case keeps so its replay plays it alike."""
        config = self.session.config
        return PlayRecord(
            max_tokens=config.max_tokens, temperature=config.temperature, protocol=self.protocol
        )


def replay_command(case: TestCase, path: Path, model: str, protocol: Protocol) -> str:
    """The `run scenarios` command that replays a saved case as it was played.

    The case's record carries every setting; a v1-only scenario still needs `--version v1`
    to be read, and a game in upstream's wording names its clone (where it is now).
    """
    words = ["rulebench", "run", "scenarios", "-s", str(path), "-m", model]
    if case.version != "v3":
        words += ["--version", case.version]
    if protocol.prompts == "upstream" and protocol.upstream is not None:
        words += ["--upstream", protocol.upstream.root]
    return shlex.join(words)


def append_case(case: TestCase, path: Path) -> None:
    """Append a case to a JSONL file in the merged layout, which any file name reads back as.

    The per-file layout takes scenario and behavior from the file name
    (`<Scenario>_<behavior>.jsonl`), so `my_attacks.jsonl` would not load; merged records
    carry them, and a file may mix both layouts line by line. How the case was played
    (`scenarios.played`) is kept in one more field, which other readers of the layout ignore.
    """
    found = behaviors(case.version).get(case.behavior)
    kept = (PLAYED_FIELD, COLLECTED_FIELD)
    played = {key: case.metadata[key] for key in kept if key in case.metadata}
    row: dict[str, JsonValue] = {
        "id": case.id,
        "messages": [{"role": m.role, "content": m.content} for m in case.messages],
        "params_json": json.dumps(case.params, ensure_ascii=False),
        "round": case.category,
        "scenario": case.scenario,
        "scenario_label": case.behavior,
        "suite": case.suite or PLAY_SUITE,
        **({"bucket_category": found[1].bucket} if found else {}),
        **played,
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)  # `--save my-cases/x.jsonl`, as documented
        with path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    except OSError as exc:
        raise StoreError(f"cannot write {path}: {exc.strerror or exc}") from None
