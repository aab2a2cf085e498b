r"""Text from outside (model replies, server messages, data files) made safe to store and keep.

JSON may carry a lone UTF-16 surrogate as the valid escape "\\ud83d" (servers emit one when a
token limit cuts an emoji in half). Python decodes it to a str that cannot be encoded as UTF-8,
so SQLite, files and terminals all fail on it. Such text is repaired once, where it enters,
and the repair is recorded, never silent.
"""

REPLACEMENT = "\ufffd"


def count_lone_surrogates(text: str) -> int:
    """How many characters of `text` are lone surrogates (0 for any text UTF-8 can encode)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return sum(0xD800 <= ord(char) <= 0xDFFF for char in text)
    return 0


def repair_surrogates(text: str) -> tuple[str, int]:
    """Replace lone surrogates by U+FFFD; return the text and how many were replaced.

    Fast for the common case: text that encodes as UTF-8 is returned as it is.
    """
    count = count_lone_surrogates(text)
    if not count:
        return text, 0
    repaired = "".join(REPLACEMENT if 0xD800 <= ord(char) <= 0xDFFF else char for char in text)
    return repaired, count


def surrogate_warning(count: int, where: str) -> str:
    """The note recorded when `where` (e.g. "reply") held lone surrogates that were replaced."""
    plural = "s" if count != 1 else ""
    return f"{where} held {count} lone UTF-16 surrogate{plural} (cut emoji?), replaced by U+FFFD"
