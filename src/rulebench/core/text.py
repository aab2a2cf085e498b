r"""Text from outside (model replies, server messages, data files) made safe to store and keep.

JSON may carry a lone UTF-16 surrogate as the valid escape "\\ud83d" (servers emit one when a
token limit cuts an emoji in half). Python decodes it to a str that cannot be encoded as UTF-8,
so SQLite, files and terminals all fail on it. Such text is repaired once, where it enters,
and the repair is recorded, never silent.

Such text may also hold terminal controls and bidi overrides: `escape_controls` makes them
visible wherever it is shown or written as plain text (the stored text stays as it came).
"""

import re

REPLACEMENT = "\ufffd"
# C0 controls except tab and newline, DEL, and C1 controls (U+0080-U+009F: a terminal may read
# U+009B as CSI, so these are as dangerous as ESC itself); then the bidirectional controls
# (Unicode TR9: marks, embeddings, overrides, isolates), which reorder what a reader sees, so a
# reply can show text other than what it holds ("Trojan Source", CVE-2021-42574).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def escape_controls(text: str, *, is_json: bool = False) -> str:
    r"""Show every control and bidi-control character but newline and tab as its escape.

    ESC becomes `\x1b`, U+202E `\u202e`: printable characters, so a reader still sees that
    the text held a control sequence, but no terminal or viewer acts on it. `is_json`: `text`
    is JSON (as json.dumps writes it), so every escape is written `\uXXXX`, which keeps it
    valid JSON that decodes to the original (such text holds these characters only inside
    strings). Every terminal, CSV and other plain-text path for outside text uses this.
    """
    return _UNSAFE.sub(_json_escape if is_json else _visible, text)


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
