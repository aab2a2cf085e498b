"""The base of the multi-user scenarios: named users whose messages start with `<name>:`.

AccessControl, Confidentiality, Millionaires and DiningCryptographers are chats among several
users, each user message opening with its sender's name and a colon (case-sensitive, no space
needed after the colon). Upstream raises on any other user message: the data, not the model, is
at fault, so `evaluate` raises DataError and the case is reported as a data error rather than
scored. When it raises follows the mode: compat walks the conversation in order as upstream
does, so a reply that breaks a rule before the malformed message is reached fails the case;
strict checks every user message before reading any reply, so a case holding a malformed
message is always a data error (the spec: never a model failure).
"""

from abc import abstractmethod
from collections.abc import Sequence
from functools import partial
from typing import ClassVar

from rulebench.core.cases import Verdict
from rulebench.core.errors import DataError
from rulebench.core.messages import Message
from rulebench.scenarios.base import EvalMode, Scenario, Version
from rulebench.scenarios.matching import has_user_prefix, speaker
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

    def speaker(self, content: str, mode: EvalMode = "strict") -> str | None:
        """The user a message comes from, read from its `<name>:` prefix; None if no user's."""
        return speaker(content, self.user_names, mode)

    def from_any_user(self, text: str) -> frozenset[str]:
        """`<name>: text` for every user: the forms of a trigger any of them may send."""
        return frozenset(f"{name}: {text}" for name in self.user_names)

    def check_user_message(self, content: str, mode: EvalMode = "compat") -> str | None:
        """Why a message lacks a `<name>:` prefix for one of the users, or None when it has one.

        Raises:
            DataError: compat only, a user name is not a valid regular expression.
        """
        if has_user_prefix(content, self.user_names, mode):
            return None
        shown = content if len(content) <= _SHOWN_CHARS else content[: _SHOWN_CHARS - 3] + "..."
        names = ", ".join(self.user_names)
        return f"user message {shown!r} does not start with '<name>:' for one of {names}"

    def evaluate(
        self, messages: Sequence[Message], mode: EvalMode = "compat", version: Version = "v3"
    ) -> Verdict:
        """Check every reply with `check_reply`; a malformed user message is a data error.

        compat meets user messages in order (upstream's walk); strict checks them all first.

        Raises:
            DataError: a user message has no valid `<name>:` prefix (the first one met is named).
        """

        def check_user(position: int, content: str) -> None:
            try:
                problem = self.check_user_message(content, mode)
            except DataError as exc:  # a name that is no valid expression (compat)
                problem = str(exc)
            if problem is not None:
                raise DataError(f"{self.name}: message {position}: {problem}")

        check = partial(self.check_reply, mode=mode, version=version)
        if mode == "compat":
            return evaluate_replies(messages, check, check_user)
        for position, message in enumerate(messages, start=1):
            if message.role == "user":
                check_user(position, message.content)
        return evaluate_replies(messages, check)

    @abstractmethod
    def check_reply(
        self, reply: str, pending: Sequence[str], mode: EvalMode, version: Version
    ) -> Breach | None:
        """The rule a reply breaks, given the user messages since the previous reply, or None."""
