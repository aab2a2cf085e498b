"""What the OpenAI-compatible backend sends: a chat body, or a completions body with a transcript.

`-M api=completions` reaches completion-only models (gpt-3.5-turbo-instruct, a base model
behind vLLM): the conversation is written out with the transcript template, the template's
stop sequences join the request's, and the reply text is cleaned as every plain-text backend
cleans it (`transcript.clean_reply`).
"""

from collections.abc import Sequence
from typing import Any, Protocol

from rulebench.core.errors import ConfigError
from rulebench.core.messages import GenerateConfig, Message
from rulebench.models.openai.config import ApiKind, OpenAIConfig
from rulebench.models.transcript import TranscriptTemplate, clean_reply, load_transcript


class RequestFormat(Protocol):
    """One API's request body and reply text."""

    api: ApiKind
    path: str
    """Appended to the base URL: /chat/completions or /completions."""
    identity_suffix: str
    """Joins the model identity: whatever changes the request keys the cache apart."""
    transcript_json: str | None

    def body(
        self, model: str, messages: Sequence[Message], config: GenerateConfig
    ) -> dict[str, Any]:
        """The JSON body for one request."""
        ...

    def finish(self, text: str) -> str:
        """The reply text as the task sees it."""
        ...


def _sampling(model: str, config: GenerateConfig) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": config.max_tokens,
        "temperature": config.temperature,
        "top_p": config.top_p,
    }
    if config.seed is not None:
        body["seed"] = config.seed
    return body


class ChatFormat:
    """POST /chat/completions with the messages; the server applies its chat template."""

    api: ApiKind = "chat"
    path = "/chat/completions"
    identity_suffix = ""
    transcript_json: str | None = None

    def body(
        self, model: str, messages: Sequence[Message], config: GenerateConfig
    ) -> dict[str, Any]:
        """Messages plus every generation parameter; seed, stop and reasoning only when set."""
        body = _sampling(model, config)
        body["messages"] = [{"role": m.role, "content": m.content} for m in messages]
        if config.stop:
            body["stop"] = list(config.stop)
        reasoning = config.reasoning
        if reasoning.thinking is not None:  # vLLM, SGLang and llama.cpp pass it to the template
            body["chat_template_kwargs"] = {"enable_thinking": reasoning.thinking}
        if reasoning.effort is not None:
            body["reasoning_effort"] = reasoning.effort
        return body

    def finish(self, text: str) -> str:
        """The reply as the server sent it."""
        return text


class CompletionsFormat:
    """POST /completions with the conversation as one transcript prompt."""

    api: ApiKind = "completions"
    path = "/completions"

    def __init__(self, template: TranscriptTemplate) -> None:
        self.template = template
        self.identity_suffix = f"+api:completions+transcript:{template.fingerprint}"
        self.transcript_json: str | None = template.to_json()

    def body(
        self, model: str, messages: Sequence[Message], config: GenerateConfig
    ) -> dict[str, Any]:
        """The rendered prompt, and the template's stop sequences plus the request's.

        OpenAI's own /completions takes at most 4 stop sequences; vLLM and llama.cpp take any.
        """
        prompt, stop = self.template.prompt_and_stop(messages, config)
        body = _sampling(model, config)
        body["prompt"] = prompt
        if stop:
            body["stop"] = list(stop)
        return body

    def finish(self, text: str) -> str:
        """The text the model wrote after the generation prompt, without the surrounding blanks."""
        return clean_reply(text)


CHAT = ChatFormat()


def choose_format(config: OpenAIConfig, label: str) -> RequestFormat:
    """The request format `-M api` and `-M transcript` ask for.

    Raises:
        ConfigError: a transcript without api=completions (a chat server applies its own chat
            template), or a transcript file that cannot be loaded.
    """
    if config.api == "chat":
        if config.transcript is not None:
            raise ConfigError(
                f"{label}: -M transcript={config.transcript} needs -M api=completions: over the "
                "chat API the server writes the prompt with its own chat template"
            )
        return CHAT
    try:
        template = load_transcript(config.transcript or "default")
    except ConfigError as exc:
        raise ConfigError(f"{label}: {exc}") from None
    return CompletionsFormat(template)
