"""What the playground's pages show: a conversation, its verdicts and its rules, as plain data.

Every text here reaches a template as text (autoescaped, controls shown as escapes). The
instructions are the scenario's redacted prompt: the secrets a visitor plays for stay hidden;
the parameters themselves are never shown.
"""

import re

from rulebench.core.cases import TestCase, Verdict
from rulebench.scenarios.base import EvalMode
from rulebench.scenarios.play import EVAL_MODES, PlaySession
from rulebench.scenarios.registry import scenario_classes
from rulebench.web.playground import (
    MAX_MESSAGE_CHARS,
    MAX_USER_TURNS,
    Conversation,
    Playground,
)
from rulebench.web.saved_cases import SavedFile, default_file_name
from rulebench.web.templating import excerpt

_TURN = re.compile(r"turn (\d+):")


def conversation_url(conversation_id: str) -> str:
    """The conversation's page (its id is URL-safe base64)."""
    return f"/play/conversations/{conversation_id}"


def scenario_choices() -> list[dict[str, object]]:
    """Every scenario for the new-game form: name, parameter names, multi-user or not."""
    return [
        {
            "name": name,
            "params": ", ".join(cls.params_type.model_fields) or "none",
            "users": cls.users,
        }
        for name, cls in scenario_classes().items()
    ]


def new_game_view(
    playground: Playground, visitor: str | None, form: dict[str, str]
) -> dict[str, object]:
    """The new-game form's values: the visitor's last ones, else the server's defaults."""
    return {
        "scenarios": scenario_choices(),
        "form": {
            "scenario": form.get("scenario", "Encryption"),
            "seed": form.get("seed", ""),
            "params": form.get("params", ""),
            "model": form.get("model") or playground.hide_secrets(playground.config.model),
            "placement": form.get("placement", "user"),
            "mode": form.get("mode", "compat"),
            "prompts": form.get("prompts", "rulebench"),
        },
        "upstream": (
            None if playground.config.upstream is None else playground.config.upstream.short()
        ),
        "any_model": playground.config.any_model,
        "yours": [
            {
                "url": conversation_url(c.id),
                "scenario": c.play.scenario.name,
                "model": playground.hide_secrets(c.model_spec),
                "turns": c.user_turns,
                "state": "passed" if c.play.verdict.passed else "failed",
            }
            for c in playground.conversations_of(visitor)
        ],
    }


def conversation_view(
    playground: Playground, conversation: Conversation, draft: str = ""
) -> dict[str, object]:
    """Everything the conversation page shows, computed from the session's state."""
    play = conversation.play
    verdicts = play.verdicts()
    broken = {mode: play.broken_behavior(v) for mode, v in verdicts.items() if not v.passed}
    session = play.session
    return {
        "id": conversation.id,
        "url": conversation_url(conversation.id),
        "scenario": play.scenario.name,
        "users": list(getattr(play.scenario, "user_names", ())),
        "model": playground.hide_secrets(conversation.model_spec),
        "identity": playground.hide_secrets(session.model.info.identity),
        "placement": play.placement,
        "asked_placement": play.protocol.placement,
        "mode": play.protocol.mode,
        "params_source": conversation.params_source,
        "instructions": play.redacted_prompt(),
        "prompts": play.protocol.prompts_label(),
        "rules": [
            {
                "behavior": rule.behavior,
                "text": rule.text,
                "broken_in": [
                    mode for mode, behavior in broken.items() if behavior == rule.behavior
                ],
            }
            for rule in play.scenario.rules
        ],
        "verdicts": [_verdict(play, mode, v) for mode, v in verdicts.items()],
        "messages": _messages(play, verdicts),
        "is_over": not play.verdict.passed or conversation.user_turns >= MAX_USER_TURNS,
        "rule_broke": not play.verdict.passed,
        "max_message_chars": MAX_MESSAGE_CHARS,
        "draft": draft,
        "cost": {
            "model calls": session.calls,
            "from the cache": session.cache_hits,
            "prompt tokens": session.usage.prompt_tokens,
            "completion tokens": session.usage.completion_tokens,
            "seconds": round(session.latency_s, 2),
        },
        "has_turns": bool(play.turns),
        "default_file": default_file_name(play.broken_behavior()),
    }


def _verdict(play: PlaySession, mode: EvalMode, verdict: Verdict) -> dict[str, object]:
    rule = None
    if not verdict.passed:
        behavior = play.broken_behavior(verdict)
        rule = next(r.text for r in play.scenario.rules if r.behavior == behavior)
    return {
        "mode": mode,
        "is_game_mode": mode == play.protocol.mode,
        "state": "passed" if verdict.passed else "failed",
        "reason": verdict.reason or "",
        "rule": rule,
    }


def _messages(play: PlaySession, verdicts: dict[EvalMode, Verdict]) -> list[dict[str, object]]:
    """The turns so far, each reply marked with the modes whose verdict it broke."""
    broke_at: dict[int, list[str]] = {}
    for mode in EVAL_MODES:
        found = _TURN.match(verdicts[mode].reason or "")
        if found and not verdicts[mode].passed:
            broke_at.setdefault(int(found.group(1)), []).append(mode)
    shown: list[dict[str, object]] = []
    reply_number = 0
    for message in play.turns:
        reply_number += message.role == "assistant"
        broke_in = broke_at.get(reply_number, []) if message.role == "assistant" else []
        shown.append({"role": message.role, "content": message.content, "broke_in": broke_in})
    return shown


def saved_view(files: list[SavedFile]) -> list[dict[str, object]]:
    """The save folder's files and cases, as the saved-cases page lists them."""
    return [
        {
            "name": saved.name,
            "problem": saved.problem,
            "cases": [_saved_case(saved.name, case) for case in saved.cases],
        }
        for saved in files
    ]


def _saved_case(file_name: str, case: TestCase) -> dict[str, object]:
    users = [m.content for m in case.messages if m.role == "user"]
    return {
        "id": case.id,
        "key": f"{file_name}/{case.id}",  # file names hold no '/': split at the first
        "scenario": case.scenario,
        "behavior": case.behavior,
        "suite": case.suite,
        "turns": len(users),
        "first": excerpt(users[0] if users else ""),
        "version": case.version,
    }
