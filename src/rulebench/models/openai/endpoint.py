"""Where an OpenAI-compatible model lives and which key it takes, read from spec and environment.

Kept apart from the HTTP client so the rules for URLs and keys (which variable, which override,
what never to show) can be read and tested on their own.
"""

import base64
import os
import re
from urllib.parse import SplitResult, unquote, urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from rulebench.core.credentials import REDACTED, query_start, query_values, redact_url
from rulebench.core.errors import ConfigError
from rulebench.models.base import BackendOptions

OPENAI_BASE_URL = "https://api.openai.com/v1"
_OPENAI_HOST = "api.openai.com"
# Where a list of base URLs splits: at a comma followed by the next URL's scheme, so a comma
# inside user:password stays in its URL.
_NEXT_URL = re.compile(r"\s*,\s*(?=[A-Za-z][A-Za-z0-9+.\-]*://)")
_MIN_QUERY_SECRET_CHARS = 6
"""Shortest query value scrubbed from server texts: keys run 20+ characters, while a short
value (a flag, a format) is a setting, and hiding it would hide words of every message."""


class Endpoint(BaseModel):
    """Where requests go and with which key: resolved once per model."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    provider: str
    """The registry's provider, "openai" or "openai-api"."""
    name: str
    """The spec after the provider: "gpt-4o-mini" or "vllm/meta-llama/Llama-3.1-8B-Instruct"."""
    model: str
    """The model name sent in the request body."""
    base_url: str = Field(repr=False)
    """Base URL without a trailing slash, e.g. http://127.0.0.1:8000/v1; may hold user:password
    or a key in its query, hence out of the repr (show `shown_url`)."""
    api_key: SecretStr | None = None
    """From the environment only; SecretStr keeps it out of reprs and dumps."""

    @property
    def label(self) -> str:
        """The model spec, "openai-api/vllm/x", which starts every message about this model."""
        return f"{self.provider}/{self.name}"

    @property
    def is_openai_api(self) -> bool:
        """Whether requests go to OpenAI's own API, which refuses other servers' extensions."""
        return urlsplit(self.base_url).hostname == _OPENAI_HOST

    @property
    def shown_url(self) -> str:
        """The base URL fit for identities, messages and logs (no user:password, no query)."""
        return redact_url(self.base_url, "drop")

    def url(self, path: str) -> str:
        """Where a request for `path` goes: the base URL's path, then `path`, then its query.

        `http://h/v1?api_key=k` and "/models" give `http://h/v1/models?api_key=k`.
        """
        start = query_start(self.base_url)
        return f"{self.base_url[:start]}{path}{self.base_url[start:]}"

    @property
    def secrets(self) -> tuple[str, ...]:
        """Every form of the key and URL credentials a server could echo back in a text."""
        found: list[str] = []
        if self.api_key is not None:
            found.append(self.api_key.get_secret_value())
        parts = urlsplit(self.base_url)
        user, password = parts.username or "", parts.password or ""
        if user or password:
            basic = f"{unquote(user)}:{unquote(password)}".encode()
            found.append(base64.b64encode(basic).decode())  # as sent in "Basic ..." headers
            # A lone user name is a token (https://TOKEN@host); with a password, the password.
            secret = password or user
            found += [secret, unquote(secret)]
        for value in query_values(self.base_url):
            if len(value) >= _MIN_QUERY_SECRET_CHARS:
                found += [value, unquote(value)]
        return tuple(sorted({s for s in found if s}, key=len, reverse=True))


def env_prefix(provider: str, name: str) -> str:
    """The environment prefix of a spec: OPENAI for `openai/`, MY_LLM for `openai-api/my-llm/`."""
    if provider == "openai":
        return "OPENAI"
    return name.partition("/")[0].upper().replace("-", "_")


def _env(name: str) -> str | None:
    return os.environ.get(name) or None  # an empty variable counts as unset


def split_base_urls(value: str) -> list[str]:
    """The URLs of a `--base-url` or `<PROVIDER>_BASE_URL` value: one URL or a comma list.

    A comma splits only where the next URL's scheme follows, so a password holding a comma
    stays whole; `_check_url` refuses any comma left in a host or path.
    """
    return [part.strip() for part in _NEXT_URL.split(value.strip())]


def resolve_endpoints(
    provider: str, name: str, model: str, options: BackendOptions
) -> tuple[Endpoint, ...]:
    """Find the base URLs and key for a spec: --base-url, else the environment, else OpenAI's.

    `openai/` reads OPENAI_*, `openai-api/<p>/` reads <P>_*, as inspect_ai does, so one
    environment serves both tools. Either may hold a comma list of URLs, the replicas of one
    model; one key serves them all. A URL given twice is refused (a typo for another port is
    likelier than a wish to weigh one replica double). Without a key, a custom URL gets no
    Authorization header (local servers need none); OpenAI's own URL is a ConfigError naming
    the variable.
    """
    prefix = env_prefix(provider, name)
    label = f"{provider}/{name}"
    source = "--base-url" if options.base_url else f"{prefix}_BASE_URL"
    value = options.base_url or _env(f"{prefix}_BASE_URL")
    if value is None:
        if provider != "openai":
            raise ConfigError(f"{label}: no server URL: set {prefix}_BASE_URL or pass --base-url")
        value = OPENAI_BASE_URL
    urls = split_base_urls(value)
    key = _env(f"{prefix}_API_KEY")
    seen: dict[str, int] = {}
    for position, url in enumerate(urls, 1):
        where = f"{label}: {source}"
        if len(urls) > 1:
            where += f" (URL {position} of {len(urls)})"
        _check_credentials(_check_url(url, where), key, label, where, prefix)
        base_url = _strip_slash(url)
        if base_url in seen:
            raise ConfigError(
                f"{where} repeats URL {seen[base_url]} ('{redact_url(base_url)}'): "
                "list each replica once"
            )
        seen[base_url] = position
    secret = SecretStr(key) if key else None
    return tuple(
        Endpoint(provider=provider, name=name, model=model, base_url=url, api_key=secret)
        for url in seen
    )


def _strip_slash(url: str) -> str:
    """The URL without a trailing slash on its path (before any query, which is kept)."""
    start = query_start(url)
    return f"{url[:start].rstrip('/')}{url[start:]}"


def resolve_endpoint(provider: str, name: str, model: str, options: BackendOptions) -> Endpoint:
    """The one endpoint of a spec (see `resolve_endpoints`); a ConfigError if it has several."""
    first, *rest = resolve_endpoints(provider, name, model, options)
    if rest:
        raise ConfigError(f"{first.label}: expected one server URL, got {len(rest) + 1}")
    return first


def _check_credentials(
    parts: SplitResult, key: str | None, label: str, where: str, prefix: str
) -> None:
    """Refuse OpenAI's own URL without a key, and a key together with URL credentials."""
    if key is None and parts.hostname == _OPENAI_HOST:
        raise ConfigError(
            f"{label}: set {prefix}_API_KEY; the OpenAI API needs a key "
            "(keys are read only from the environment)"
        )
    if key is not None and (parts.username or parts.password):
        # aiohttp would refuse the request ("Cannot combine AUTHORIZATION header with ...
        # credentials encoded in URL"): a request carries one Authorization header.
        raise ConfigError(
            f"{where} has credentials (user:password@) and {prefix}_API_KEY is set; "
            f"a request can carry only one of them: drop one ('{redact_url(parts.geturl())}')"
        )


def _check_url(url: str, option: str) -> SplitResult:
    """Split an http(s) URL, turning each way it can be malformed into a ConfigError."""
    shown = redact_url(url)
    if not url:
        raise ConfigError(f"{option} is empty")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port out of range or not a number
    except ValueError as exc:
        raise ConfigError(f"{option} is not a valid URL ({exc}): '{shown}'") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{option} is not an http(s) URL: '{shown}'")
    if "," in f"{parts.hostname}{parts.path}{parts.query}":
        raise ConfigError(
            f"{option} holds a comma: to list several servers, separate whole URLs, each with "
            f"its http:// or https://, by commas ('{shown}')"
        )
    if parts.username == REDACTED:
        raise ConfigError(
            f"{option}: the run's server URL had credentials, which are never stored: "
            f"pass --base-url again ('{shown}')"
        )
    if REDACTED in query_values(url):
        raise ConfigError(
            f"{option}: the run's server URL had a query or fragment, whose values are never "
            f"stored: pass --base-url again ('{shown}')"
        )
    return parts
