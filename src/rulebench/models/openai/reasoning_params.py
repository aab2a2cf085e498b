"""Request parameters a model refuses, known by name or learned from its 400, and said aloud.

OpenAI's reasoning models (o1, o3, o4-mini, gpt-5...) refuse `max_tokens`, taking the same
limit as `max_completion_tokens`, and refuse any temperature or top_p but their default, 1.
Other servers in front of such models say the same in the same words. One policy per model
rewrites every request body once a refusal is known: the limit under its other name, a
refused sampling parameter left out. Leaving one out changes how replies are sampled, so it is
never silent: each reply it touched carries a warning, the run's notes say it once, and it is
logged once when learned.
"""

import logging
import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from rulebench.core.errors import ConfigError, ModelError
from rulebench.core.messages import GenerateConfig
from rulebench.models.openai.endpoint import Endpoint

logger = logging.getLogger(__name__)

REASONING_MODEL = re.compile(r"^(?:o\d+(?:-|$)|gpt-5(?:[.-]|$))")
"""OpenAI's reasoning models by name (o1, o3-mini, o4-mini, gpt-5, gpt-5.1, gpt-5-mini...):
they take `max_completion_tokens` from the first request, saving every request a 400."""
_LIMIT, _LIMIT_NEW_NAME = "max_tokens", "max_completion_tokens"
_SAMPLING = frozenset({"temperature", "top_p"})
"""The only parameters left out when refused: the rest change what a reply means (stop)."""
# OpenAI: "Unsupported parameter: 'max_tokens' is not supported with this model. Use
# 'max_completion_tokens' instead." and "Unsupported value: 'temperature' does not support 0
# with this model. Only the default (1) value is supported."
_UNSUPPORTED = re.compile(r"Unsupported (?P<kind>parameter|value): '(?P<param>\w+)'")
_DEFAULT = re.compile(r"Only the default \((?P<default>[^)]+)\) value is supported")


class ParamsRefused(ModelError):
    """A 400 refusing a parameter this policy can adapt the request to; never retried as is."""

    def __init__(self, message: str, detail: str) -> None:
        super().__init__(message, kind="parameter refused")
        self.detail = detail
        """The server's message, which names the parameter."""


class Refusal(NamedTuple):
    """A parameter a server refused, read from its message."""

    param: str
    default: str | None
    """The only value the server takes, when it says ("1"); None when it takes none."""


def refused_params(message: str, detail: str) -> ParamsRefused | None:
    """The error for a 400 refusing a parameter a request can do without, else None."""
    return ParamsRefused(message, detail) if read_refusal(detail) is not None else None


def read_refusal(detail: str) -> Refusal | None:
    """The refused parameter of a 400's message, when it is one a request can do without."""
    match = _UNSUPPORTED.search(detail)
    if match is None:
        return None
    param = match.group("param")
    if param == _LIMIT and _LIMIT_NEW_NAME in detail:
        return Refusal(param, None)
    if param not in _SAMPLING:
        return None
    default = _DEFAULT.search(detail) if match.group("kind") == "value" else None
    return Refusal(param, default.group("default") if default else None)


class RequestParams:
    """How one model's request bodies differ from what the run asked, and why."""

    def __init__(self, label: str, takes_completion_tokens: bool, is_openai_api: bool) -> None:
        self._label = label
        self._is_openai_api = is_openai_api
        self._renames_limit = takes_completion_tokens
        self._left_out: dict[str, str | None] = {}
        """Refused sampling parameters, with the only value the model takes (if it said)."""
        self.notes: list[str] = []
        """One line per adaptation, in the order learned, for the run's stored notes."""
        if takes_completion_tokens:
            self.notes.append(
                f"{label}: the reply limit was sent as max_completion_tokens, which OpenAI's "
                "reasoning models take instead of max_tokens"
            )

    @classmethod
    def for_endpoints(cls, endpoints: Sequence[Endpoint]) -> "RequestParams":
        """The policy of a model: by its name and where its requests go."""
        first = endpoints[0]
        is_openai = first.provider == "openai"
        is_reasoning_model = is_openai and REASONING_MODEL.match(first.model) is not None
        is_openai_api = is_openai and any(e.is_openai_api for e in endpoints)
        return cls(first.label, is_reasoning_model, is_openai_api)

    def check(self, config: GenerateConfig) -> None:
        """Refuse settings this model's API cannot take, before any request is sent.

        Raises:
            ConfigError: the thinking switch for OpenAI's own API: it travels in
                `chat_template_kwargs`, which that API refuses (its models think as
                `reasoning_effort` says).
        """
        if self._is_openai_api and config.reasoning.thinking is not None:
            raise ConfigError(
                f"{self._label}: --thinking is sent as chat_template_kwargs, which the OpenAI "
                "API refuses; use --reasoning-effort to set how much its reasoning models think"
            )

    def apply(self, body: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
        """The body to send, and a warning for each setting it could not send as asked."""
        sent = dict(body)
        if self._renames_limit and _LIMIT in sent:
            sent[_LIMIT_NEW_NAME] = sent.pop(_LIMIT)
        warnings = []
        for param, default in self._left_out.items():
            if param not in sent:
                continue
            value = sent.pop(param)
            if default is None:
                warnings.append(
                    f"{param} {value:g} was not sent: the model refuses it, so the reply was "
                    "sampled at the model's own default"
                )
            elif _number(default) != value:
                warnings.append(
                    f"{param} {value:g} was not sent: the model takes only its default "
                    f"({default}), which the reply was sampled at"
                )
        return sent, warnings

    def learn(self, refused: ParamsRefused, sent: Mapping[str, Any]) -> str | None:
        """Adapt to a refusal of a parameter `sent` held; a warning for this reply, if any.

        A parameter left out needs none here: `apply` warns of it on every reply it changes.

        Raises:
            ModelError: the refusal names nothing this policy can change (it already left the
                parameter out, or the server refuses something else).
        """
        refusal = read_refusal(refused.detail)
        if refusal is None or refusal.param not in sent:
            raise ModelError(str(refused), kind=refused.kind)
        if refusal.param == _LIMIT:
            return self._rename_limit()
        self._leave_out(refusal, sent[refusal.param])
        return None

    def _rename_limit(self) -> str:
        if not self._renames_limit:
            self._renames_limit = True
            note = f"{self._label}: the server refused max_tokens: the reply limit is sent as "
            self.notes.append(note + "max_completion_tokens")
            logger.warning("%s", self.notes[-1])
        return "the server refused max_tokens: resent with the same limit as max_completion_tokens"

    def _leave_out(self, refusal: Refusal, value: Any) -> None:
        param, default = refusal
        if param not in self._left_out:
            self._left_out[param] = default
            takes = "none" if default is None else f"only {default}"
            self.notes.append(
                f"{self._label}: the model refuses {param} {value:g} (it takes {takes}): "
                f"{param} is left out of every request, so replies are sampled at the model's "
                "default, not at the run's setting"
            )
            logger.warning("%s", self.notes[-1])


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None
