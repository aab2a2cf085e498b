"""What the playground's pages show: a conversation, its verdicts and its rules, as plain data.

Every text here reaches a template as text (autoescaped, controls shown as escapes). The
instructions are the scenario's redacted prompt: the secrets a visitor plays for stay hidden;
the parameters themselves are never shown.
"""

import re

from rulebench.core.cases import TestCase, Verdict
from rulebench.listing.scenarios import list_scenarios
from rulebench.scenarios.base import EvalMode
from rulebench.scenarios.play import EVAL_MODES, PlaySession
from rulebench.scenarios.played import note_of
from rulebench.web.playground.play_controls import LANE_NAMES, system_message_choices
from rulebench.web.playground.saved_cases import SavedFile, default_file_name
from rulebench.web.playground.state import (
    MAX_MESSAGE_CHARS,
    MAX_USER_TURNS,
    Conversation,
    Playground,
)
from rulebench.web.templating import excerpt

_TURN = re.compile(r"turn (\d+):")


def conversation_url(conversation_id: str) -> str:
    """The conversation's page (its id is URL-safe base64)."""
    return f"/play/conversations/{conversation_id}"


def scenario_choices() -> list[dict[str, object]]:
    """Every scenario for the new-game form: name, parameter names, multi-user or not."""
    return [
        {"name": found.name, "params": ", ".join(found.params) or "none", "users": found.multi_user}
        for found in list_scenarios()
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
            "model_b": form.get("model_b", ""),
            "system_message": form.get("system_message", ""),
            "temperature": form.get("temperature", ""),
            "max_tokens": form.get("max_tokens", ""),
        },
        "system_messages": system_message_choices(),
        "defaults": playground.generation_defaults(),
        "upstream": (
            None if playground.config.upstream is None else playground.config.upstream.short()
        ),
        "any_model": playground.config.any_model,
        "allowed_models": playground.models.allowed,
        "yours": [
            {
                "url": conversation_url(c.id),
                "scenario": c.scenario,
                "model": playground.hide_secrets(c.models),
                "turns": c.user_turns,
                "state": c.state,
            }
            for c in playground.conversations_of(visitor)
        ],
        "yours_total": playground.count_of(visitor),
    }


def conversation_view(
    playground: Playground, conversation: Conversation, draft: str = ""
) -> dict[str, object]:
    """Everything the conversation page shows, computed from the lanes' state."""
    play = conversation.play
    config = play.session.config
    sessions = [session for lane in conversation.lanes for session in lane.sessions()]
    return {
        "id": conversation.id,
        "url": conversation_url(conversation.id),
        "scenario": play.scenario.name,
        "users": list(getattr(play.scenario, "user_names", ())),
        "placement": play.placement,
        "asked_placement": play.protocol.placement,
        "mode": play.protocol.mode,
        "system_message": play.protocol.system_message or "none",
        "temperature": config.temperature,
        "max_tokens": config.max_tokens,
        "params_source": conversation.params_source,
        "instructions": play.redacted_prompt(),
        "prompts": play.protocol.prompts_label(),
        "lanes": [
            _lane(playground, conversation, index) for index in range(len(conversation.lanes))
        ],
        "side_by_side": len(conversation.lanes) > 1,
        # User turns are shared: one lane that has them all carries the edit forms.
        "edit_lane": next(
            index
            for index, lane in enumerate(conversation.lanes)
            if lane.user_turns == conversation.user_turns
        ),
        "is_over": not conversation.playing() or conversation.user_turns >= MAX_USER_TURNS,
        "rule_broke": conversation.state() == "failed",
        "max_message_chars": MAX_MESSAGE_CHARS,
        "draft": draft,
        "cost": {
            "model calls": sum(s.calls for s in sessions),
            "from the cache": sum(s.cache_hits for s in sessions),
            "prompt tokens": sum(s.usage.prompt_tokens for s in sessions),
            "completion tokens": sum(s.usage.completion_tokens for s in sessions),
            "of them thinking": sum(s.usage.reasoning_tokens for s in sessions),
            "seconds": round(sum(s.latency_s for s in sessions), 2),
        },
        "has_turns": bool(conversation.user_turns),
    }


def _lane(playground: Playground, conversation: Conversation, index: int) -> dict[str, object]:
    """One lane's column: its model, rules, verdicts, turns and save form."""
    lane = conversation.lanes[index]
    play = lane.play
    verdicts = play.verdicts()
    broken = {mode: play.broken_behavior(v) for mode, v in verdicts.items() if not v.passed}
    return {
        "index": index,
        "name": LANE_NAMES[index],
        # Lane A keeps the ids the page had before lanes: links and tests name them.
        "suffix": "" if index == 0 else f"-{LANE_NAMES[index].lower()}",
        "model": playground.hide_secrets(lane.model_spec),
        "identity": playground.hide_secrets(play.session.model.info.identity),
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
        "can_regenerate": bool(play.turns) and lane.user_turns == conversation.user_turns,
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
    reply_number = user_number = 0
    for message in play.turns:
        reply_number += message.role == "assistant"
        user_number += message.role == "user"
        broke_in = broke_at.get(reply_number, []) if message.role == "assistant" else []
        shown.append(
            {
                "role": message.role,
                "content": message.content,
                "reasoning": message.reasoning,
                # Thinking and no answer is read as thinking cut by the reply limit: a lane
                # keeps turns, not the completions' flags. The verdicts judged no answer.
                "is_reasoning_unfinished": bool(message.reasoning) and not message.content,
                "broke_in": broke_in,
                "turn": user_number,
            }
        )
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
        "strategy": case.category,
        "notes": (note.notes if (note := note_of(case)) is not None else ""),
    }
