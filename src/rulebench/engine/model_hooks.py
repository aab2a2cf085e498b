"""What the runner asks of a model beyond generating: optional hooks a backend may offer.

Kept apart from the runner so the list of hooks reads in one place: a served backend that
finds its concurrency (`adapt_concurrency`, `concurrency_note`), a local one that lays out its
work by the prompts in flight (`expect_in_flight`), and notes a backend keeps (`run_notes`).
"""

from pydantic import JsonValue

from rulebench.models.base import Model


def worker_count(model: Model, concurrency: int, adaptive: bool) -> int:
    """Items worked on at once: `concurrency`, or the ceiling of a backend that adapts.

    An adapting backend (`adapt_concurrency`) gates its own requests below that ceiling, so
    the workers only need to offer it enough. A local backend that lays out its work by the
    prompts in flight (`expect_in_flight`: llamacpp's lanes) is told the count.
    """
    adapt = getattr(model, "adapt_concurrency", None)
    count = concurrency
    if adaptive and adapt is not None:
        count = int(adapt(concurrency))
    expect = getattr(model, "expect_in_flight", None)
    if expect is not None:
        expect(count)
    return count


def model_notes(model: Model, reason: str) -> dict[str, JsonValue]:
    """What a reader of a run's results must know of its model, and why the run ended."""
    notes: dict[str, JsonValue] = {"model_identity": model.info.identity}
    concurrency = getattr(model, "concurrency_note", None)
    if concurrency:  # the concurrency an adapting backend found
        notes["concurrency"] = str(concurrency)
    if model.info.transcript is not None:
        # The exact template the prompts were written with: a file named in -M may change.
        notes["transcript_template"] = model.info.transcript
    if reason:
        notes["reason"] = reason
    # What a backend sent differently from the run's settings, or saw of its server.
    backend_notes: list[JsonValue] = [str(note) for note in getattr(model, "run_notes", ())]
    if backend_notes:
        notes["backend_notes"] = backend_notes
    return notes
