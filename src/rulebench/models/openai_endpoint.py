"""Where an OpenAI-compatible model lives and which key it takes, read from spec and environment.

Kept apart from the HTTP client so the rules for URLs and keys (which variable, which override,
what never to show) can be read and tested on their own.
"""

import os
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, SecretStr

from rulebench.core.errors import ConfigError
from rulebench.models.base import BackendOptions

OPENAI_BASE_URL = "https://api.openai.com/v1"
_OPENAI_HOST = "api.openai.com"


class Endpoint(BaseModel):
    """Where requests go and with which key: resolved once per model."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    provider: str
    """The registry's provider, "openai" or "openai-api"."""
    name: str
    """The spec after the provider: "gpt-4o-mini" or "vllm/meta-llama/Llama-3.1-8B-Instruct"."""
    model: str
    """The model name sent in the request body."""
    base_url: str
    """Base URL without a trailing slash, e.g. http://127.0.0.1:8000/v1."""
    api_key: SecretStr | None = None
    """From the environment only; SecretStr keeps it out of reprs and dumps."""

    @property
    def label(self) -> str:
        """The model spec, "openai-api/vllm/x", which starts every message about this model."""
        return f"{self.provider}/{self.name}"

    @property
    def shown_url(self) -> str:
        """The base URL fit for identities, messages and logs (no user:password)."""
        return redact_url(self.base_url)


def redact_url(url: str) -> str:
    """Drop any user:password@ from a URL."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def env_prefix(provider: str, name: str) -> str:
    """The environment prefix of a spec: OPENAI for `openai/`, MY_LLM for `openai-api/my-llm/`."""
    if provider == "openai":
        return "OPENAI"
    return name.partition("/")[0].upper().replace("-", "_")


def _env(name: str) -> str | None:
    return os.environ.get(name) or None  # an empty variable counts as unset


def resolve_endpoint(provider: str, name: str, model: str, options: BackendOptions) -> Endpoint:
    """Find the base URL and key for a spec: --base-url, else the environment, else OpenAI's.

    `openai/` reads OPENAI_*, `openai-api/<p>/` reads <P>_*, as inspect_ai does, so one
    environment serves both tools. Without a key, a custom URL gets no Authorization header
    (local servers need none); OpenAI's own URL is a ConfigError naming the variable.
    """
    prefix = env_prefix(provider, name)
    label = f"{provider}/{name}"
    source = "--base-url" if options.base_url else f"{prefix}_BASE_URL"
    base_url = options.base_url or _env(f"{prefix}_BASE_URL")
    if base_url is None:
        if provider != "openai":
            raise ConfigError(f"{label}: no server URL: set {prefix}_BASE_URL or pass --base-url")
        base_url = OPENAI_BASE_URL
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{label}: {source} is not an http(s) URL: '{redact_url(base_url)}'")
    key = _env(f"{prefix}_API_KEY")
    if key is None and parts.hostname == _OPENAI_HOST:
        raise ConfigError(
            f"{label}: set {prefix}_API_KEY; the OpenAI API needs a key "
            "(keys are read only from the environment)"
        )
    return Endpoint(
        provider=provider,
        name=name,
        model=model,
        base_url=base_url.rstrip("/"),
        api_key=SecretStr(key) if key else None,
    )
