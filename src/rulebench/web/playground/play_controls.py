"""The playground's game controls as form fields: reply settings, system message, lanes, turns.

A new game's form may set the temperature, the reply limit, a named system message and a
second model (side by side); a saved case reopens with the settings it was played with (its
`played` record), so the game in the browser is the game its replay plays. Empty fields mean
the server's defaults, which live in `PlaygroundConfig` and `GenerateConfig`.
"""

from rulebench.core.cases import TestCase
from rulebench.scenarios.played import record_of
from rulebench.scenarios.system_messages import SYSTEM_MESSAGES
from rulebench.web.playground.forms import FormError
from rulebench.web.playground.state import Conversation

LANE_NAMES = ("A", "B")
"""How the page names the lanes of a side-by-side game."""


def controls(form: dict[str, str]) -> dict[str, object]:
    """The new-game form's controls as `GameSetup` fields (None where left empty)."""
    return {
        "model_b": form.get("model_b", "").strip() or None,
        "system_message": form.get("system_message", "").strip() or None,
        "temperature": form.get("temperature", "").strip() or None,
        "max_tokens": form.get("max_tokens", "").strip() or None,
        "reminders": form.get("reminders", "on") != "off",
    }


def recorded_form(case: TestCase) -> dict[str, str]:
    """A saved case's recorded settings as form fields; none for a case without a record."""
    record = record_of(case)
    if record is None:
        return {}
    protocol = record.protocol
    return {
        "placement": protocol.placement,
        "mode": protocol.mode,
        "prompts": protocol.prompts,
        "system_message": protocol.system_message or "",
        "reminders": "on" if protocol.reminders else "off",
        "temperature": str(record.temperature),
        "max_tokens": str(record.max_tokens),
    }


def system_message_choices() -> list[str]:
    """The named system messages the form offers (besides none)."""
    return list(SYSTEM_MESSAGES)


def lane_index(conversation: Conversation, raw: str) -> int:
    """The lane a form names by number (empty: the first); FormError for any other value."""
    if not raw:
        return 0
    if raw.isdigit() and int(raw) < len(conversation.lanes):
        return int(raw)
    raise FormError(f"lane {raw!r}: this conversation has {len(conversation.lanes)} lane(s)")


def turn_number(raw: str) -> int:
    """A user turn's number as the edit form posts it; FormError if it is not a number."""
    if not raw.isdigit() or len(raw) > 6:
        raise FormError(f"turn {raw!r}: expected the number of a user turn")
    return int(raw)
