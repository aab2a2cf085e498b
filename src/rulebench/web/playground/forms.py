"""The playground's forms as the browser posts them: URL-encoded fields, read with a size cap.

Parsed here rather than by Starlette, whose form parser needs python-multipart for this
encoding too; a form is a few short fields, so a cap on the body is the first size check and
the fields' own limits come after it.
"""

from urllib.parse import parse_qsl

from starlette.requests import Request

MAX_FORM_BYTES = 256 * 1024
"""A typed message, hand-set parameters and a few choices; far below this."""
MAX_FIELDS = 32
FORM_TYPE = "application/x-www-form-urlencoded"


class FormError(Exception):
    """A request the playground cannot read as one of its forms (an error page says why)."""

    def __init__(self, message: str, status_code: int = 400) -> None:
        super().__init__(message)
        self.status_code = status_code


async def read_form(request: Request) -> dict[str, str]:
    """The form's fields by name (the last value of a repeated one), CRLF turned into LF."""
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type != FORM_TYPE:
        raise FormError(f"expected a form ({FORM_TYPE}), got {media_type or 'no body type'}", 415)
    body = bytearray()
    async for chunk in request.stream():
        body.extend(chunk)
        if len(body) > MAX_FORM_BYTES:
            raise FormError(f"the form is larger than {MAX_FORM_BYTES // 1024} KiB", 413)
    try:
        text = body.decode("utf-8")
        pairs = parse_qsl(text, keep_blank_values=True, max_num_fields=MAX_FIELDS, errors="strict")
    except UnicodeDecodeError:
        raise FormError("the form is not UTF-8 text") from None
    except ValueError:  # more fields than MAX_FIELDS
        raise FormError(f"the form has more than {MAX_FIELDS} fields") from None
    # Browsers send a textarea's line breaks as CRLF; the model and the saved case get LF.
    return {name: value.replace("\r\n", "\n") for name, value in pairs}
