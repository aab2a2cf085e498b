"""The base of the multi-user scenarios: named users whose messages start with `<name>:`.

AccessControl, Confidentiality, Millionaires and DiningCryptographers are chats among several
users, each user message opening with its sender's name and a colon (case-sensitive, no space
needed after the colon). Upstream raises on any other user message: the data, not the model, is
at fault, so `evaluate` raises DataError before reading a reply and the case is reported as a
data error rather than scored.
"""

from abc import abstractmethod
from collections.abc import Sequence
from functools import partial
from typing import ClassVar

from rulebench.core.cases import Verdict
from rulebench.core.errors import DataError
from rulebench.core.messages import Message
from rulebench.scenarios.base import EvalMode, Scenario, Version
from rulebench.scenarios.matching import speaker
from rulebench.scenarios.security.conversation import Breach, evaluate_replies

_SHOWN_CHARS = 40
"""How much of a malformed message an error quotes."""


class MultiUserScenario(Scenario):
    """A scenario shared by named users; a subclass names them and checks one reply."""

    users: ClassVar[bool] = True

    @property
    @abstractmethod
    def user_names(self) -> Sequence[str]:
        """The users who may speak, in the params' order (a prefix is tried in this order)."""

    def speaker(self, content: str) -> str | None:
        """The user a message comes from, read from its `<name>:` prefix; None if no user's."""
        return speaker(content, self.user_names)

    def from_any_user(self, text: str) -> frozenset[str]:
        """`<name>: text` for every user: the forms of a trigger any of them may send."""
        return frozenset(f"{name}: {text}" for name in self.user_names)

    def check_user_message(self, content: str) -> str | None:
        """Why a message lacks a `<name>:` prefix for one of the users, or None when it has one."""
        if self.speaker(content) is not None:
            return None
        shown = content if len(content) <= _SHOWN_CHARS else content[: _SHOWN_CHARS - 3] + "..."
        names = ", ".join(self.user_names)
        return f"user message {shown!r} does not start with '<name>:' for one of {names}"

    def evaluate(
        self, messages: Sequence[Message], mode: EvalMode = "compat", version: Version = "v3"
    ) -> Verdict:
        """Check every reply with `check_reply`, once every user message has a valid prefix.

        Raises:
            DataError: a user message has no valid `<name>:` prefix (the first one is named).
        """
        for number, message in enumerate(messages, start=1):
            problem = self.check_user_message(message.content) if message.role == "user" else None
            if problem is not None:
                raise DataError(f"{self.name}: message {number}: {problem}")
        return evaluate_replies(messages, partial(self.check_reply, mode=mode, version=version))

    @abstractmethod
    def check_reply(
        self, reply: str, pending: Sequence[str], mode: EvalMode, version: Version
    ) -> Breach | None:
        """The rule a reply breaks, given the user messages since the previous reply, or None."""
