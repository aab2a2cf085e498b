"""A run as an inspect_ai `.eval` log: the zip that inspect reads a sample at a time.

A `.json` log is one document, which inspect's viewer refuses past a size a large run's log
exceeds, while a `.eval` opens by its header and sample summaries and loads each sample when
it is shown. The layout is the one inspect's own recorder leaves behind a
finished eval (`inspect_ai/log/_recorders/eval.py`):

- `_journal/start.json`: the version, eval spec and plan, written first;
- `samples/<id>_epoch_<epoch>.json`: one sample per member;
- `summaries.json`: every sample's summary (id, scores, tokens, a short input), the list the
  viewer shows before it opens any sample;
- `header.json`: the log without its samples, written last.

Samples are written as they are read and their summaries are kept in a temporary file until
the samples are done, so a run of any size is never held in memory. Members are deflated:
every inspect version reads that (newer ones write zstd, which the standard library lacks).
No `reductions.json`: inspect writes one to combine several epochs, and a rulebench item has one.
"""

import json
import tempfile
import zipfile
from collections.abc import Iterable
from pathlib import Path

from pydantic import JsonValue

from rulebench.core.items import ItemResult
from rulebench.engine.export.inspect_log import RunLog, log_header, sample

START = "_journal/start.json"
HEADER = "header.json"
SUMMARIES = "summaries.json"
# What a summary keeps of a text (its input, answer, explanation): the viewer's sample list
# shows a line of each, and 100,000 summaries are one document the browser parses whole.
_SUMMARY_TEXT_CHARS = 400
_COPY_CHUNK_CHARS = 1 << 20


def sample_member(sample_id: str, epoch: int = 1) -> str:
    """A sample's member name: inspect opens a sample by its id and epoch under this name."""
    return f"samples/{sample_id}_epoch_{epoch}.json"


def write_eval_log(log: RunLog, results: Iterable[ItemResult], path: Path) -> int:
    """Write the `.eval` log to `path` (replacing it); returns the number of samples."""
    header = log_header(log)
    start = {key: header[key] for key in ("version", "eval", "plan")}
    count = 0
    with (
        zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=5) as archive,
        tempfile.TemporaryFile("w+", encoding="utf-8") as summaries,
    ):
        archive.writestr(START, _dumps(start))
        for result in results:
            entry = sample(result, log.run)
            archive.writestr(sample_member(result.item_id), _dumps(entry))
            summaries.write(("," if count else "") + _dumps(sample_summary(entry)))
            count += 1
        summaries.seek(0)
        # force_zip64: the member's size is not known before it is written.
        with archive.open(SUMMARIES, "w", force_zip64=True) as member:
            member.write(b"[")
            while chunk := summaries.read(_COPY_CHUNK_CHARS):
                member.write(chunk.encode("utf-8"))
            member.write(b"]")
        archive.writestr(HEADER, _dumps(header))
    return count


def sample_summary(entry: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """What the viewer lists of a sample before opening it (inspect's `EvalSampleSummary`)."""
    messages = entry.get("messages")
    error = entry.get("error")
    return {
        "id": entry["id"],
        "epoch": entry["epoch"],
        "input": _short(_last_text(entry.get("input"))),
        "target": _short(entry.get("target")),
        "metadata": _scalars(entry.get("metadata")),
        "scores": _short_scores(entry.get("scores")),
        "model_usage": entry.get("model_usage"),
        "total_time": entry.get("total_time"),
        "working_time": entry.get("working_time"),
        "error": error.get("message") if isinstance(error, dict) else None,
        "completed": True,
        "message_count": len(messages) if isinstance(messages, list) else 0,
    }


def _last_text(messages: JsonValue) -> str:
    """The text of the last message sent (the question or the user's turn)."""
    if not isinstance(messages, list) or not messages:
        return ""
    last = messages[-1]
    content = last.get("content") if isinstance(last, dict) else None
    return content if isinstance(content, str) else ""


def _short_scores(scores: JsonValue) -> JsonValue:
    if not isinstance(scores, dict):
        return None
    shown: dict[str, JsonValue] = {}
    for name, score in scores.items():
        if isinstance(score, dict):
            shown[name] = {
                "value": score.get("value"),
                "answer": _short(score.get("answer")),
                "explanation": _short(score.get("explanation")),
            }
    return shown


def _scalars(metadata: JsonValue) -> dict[str, JsonValue]:
    """The metadata fields a list can show (strings shortened); nested values stay in the sample."""
    if not isinstance(metadata, dict):
        return {}
    return {
        key: _short(value)
        for key, value in metadata.items()
        if isinstance(value, str | int | float | bool)
    }


def _short(value: JsonValue) -> JsonValue:
    if isinstance(value, str) and len(value) > _SUMMARY_TEXT_CHARS:
        return value[: _SUMMARY_TEXT_CHARS - 1] + "…"
    return value


def _dumps(value: JsonValue) -> str:
    # NaN stays the JSON constant inspect itself writes for an unscored sample.
    return json.dumps(value, ensure_ascii=False)
