"""A sample's transcript events in inspect_ai's log format: the model calls and the scores.

inspect's Transcript tab draws a sample from its `events`; a sample with messages but no
events is shown with a notice that its events "were removed because this sample exceeds the
browser's size limit" (the viewer's test: `events.length === 0 && messages.length > 0`). So
each reply becomes a model event (what the model was sent, what it answered), and each score
a score event, built from the sample's own messages (already in inspect's shape).

rulebench keeps no per-call timing or tokens, only the item's totals (the sample's
`model_usage`), so the events carry neither: every event has the run's start as its time.
"""

from pydantic import JsonValue

from rulebench.core.items import ItemResult


def sample_events(
    result: ItemResult, entry: dict[str, JsonValue], config: dict[str, JsonValue], started: str
) -> list[JsonValue]:
    """The model events, then the score events, of one sample.

    Args:
        result: the item (for its error).
        entry: the sample as written (`export_inspect.sample`): its messages, output, scores.
        config: the generation settings under inspect's names (`generate_config`).
        started: when the run started, the time of every event.
    """
    model = str(entry["output"]["model"]) if isinstance(entry["output"], dict) else ""
    events = _model_events(_dicts(entry["messages"]), _output(entry), model, config)
    if result.error is not None and not _ends_with_reply(entry):
        # The call that did not return (or the case that could not be played): said where
        # inspect says it, on a model event without output.
        sent = _dicts(entry["messages"])
        events.append(_model_event(model, sent, {"model": model, "choices": []}, config))
        events[-1]["error"] = result.error
    scores = entry.get("scores")
    if isinstance(scores, dict):
        for name, score in scores.items():
            events.append(
                {
                    "event": "score",
                    "score": score,
                    "target": entry.get("target"),
                    "intermediate": False,
                    "scorer": name,
                }
            )
    for event in events:
        event["timestamp"] = started
        event["working_start"] = 0.0
    return list[JsonValue](events)


def _model_events(
    messages: list[dict[str, JsonValue]],
    last: dict[str, JsonValue],
    model: str,
    config: dict[str, JsonValue],
) -> list[dict[str, JsonValue]]:
    """One event per assistant message: the conversation before it in, the message out.

    The last reply's output is the sample's own (its stop reason, thinking and text); a reply
    not among the messages (a task that stores only the answer) is a call of its own.
    """
    events = []
    for index, message in enumerate(messages):
        if message.get("role") != "assistant":
            continue
        is_last = index == len(messages) - 1 and _has_choice(last)
        output = last if is_last else _as_output(message, model)
        events.append(_model_event(model, messages[:index], output, config))
    if _has_choice(last) and not (messages and messages[-1].get("role") == "assistant"):
        events.append(_model_event(model, messages, last, config))
    return events


def _model_event(
    model: str,
    sent: list[dict[str, JsonValue]],
    output: dict[str, JsonValue],
    config: dict[str, JsonValue],
) -> dict[str, JsonValue]:
    return {
        "event": "model",
        "model": model,
        "input": list[JsonValue](sent),
        "tools": [],
        "tool_choice": "none",
        "config": config,
        "output": output,
    }


def _as_output(message: dict[str, JsonValue], model: str) -> dict[str, JsonValue]:
    """An earlier reply of the conversation as the output of its call."""
    content = message.get("content")
    text = content if isinstance(content, str) else ""
    return {
        "model": model,
        "choices": [{"message": message, "stop_reason": "unknown"}],
        "completion": text,
    }


def _output(entry: dict[str, JsonValue]) -> dict[str, JsonValue]:
    output = entry.get("output")
    return output if isinstance(output, dict) else {}


def _has_choice(output: dict[str, JsonValue]) -> bool:
    return bool(output.get("choices"))


def _ends_with_reply(entry: dict[str, JsonValue]) -> bool:
    return _has_choice(_output(entry))


def _dicts(value: JsonValue) -> list[dict[str, JsonValue]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []
