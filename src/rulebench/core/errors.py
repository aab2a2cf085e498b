"""One error hierarchy, so the CLI can turn any expected failure into a one-line message."""


class RulebenchError(Exception):
    """Base of every error rulebench raises on purpose (bad input, dead server, ...)."""


class ConfigError(RulebenchError):
    """A setting, option or model spec is wrong; the message names it and what would be right."""


class DataError(RulebenchError):
    """A data file or record is malformed; the message names the file, record and field."""


class ModelError(RulebenchError):
    """A model call failed for good (bad request, refused credentials, retries used up).

    Attributes:
        kind: what failed, without the parts that vary from call to call (the reply body,
            the prompt): "malformed reply", "400 Bad Request". Two failures of one kind are
            the same failure, which is how a run tells a broken server from bad luck.
        attempts: the requests the failed call sent, retries included, when the backend
            counts them (0 otherwise): counted with the item's result, as a reply's are.
    """

    def __init__(self, message: str, kind: str | None = None, attempts: int = 0) -> None:
        super().__init__(message)
        self.kind = kind
        self.attempts = attempts


class TransientModelError(ModelError):
    """A model call failed in a way worth retrying (429, 5xx, timeout, dropped connection).

    Attributes:
        retry_after_s: the server's Retry-After hint in seconds, when it sent one.
    """

    def __init__(self, message: str, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class StoreError(RulebenchError):
    """The results store cannot be opened, written or does not hold what was asked for."""
