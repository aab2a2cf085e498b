"""How a GCG attack lives in the store: a run of task "gcg" whose items are its steps.

Step n is the result with item id "step-NNNNN" (step 0: the initial suffix); its outcome's
details hold the loss, the suffix and the full `GcgState` (no score: a loss is no accuracy,
and summaries must not average it as one), so a killed
attack resumes from its last stored step and the suffix of any attack, finished or not, can be
read back by run id (`rulebench run scenarios --suffix RUN`).
"""

from collections.abc import Iterator

from pydantic import JsonValue, ValidationError

from rulebench.attack.gcg.search import GcgState, StepResult
from rulebench.core.errors import StoreError
from rulebench.core.items import ItemResult, Outcome
from rulebench.core.run_kinds import GCG_TASK
from rulebench.engine.store.database import Store

_STEP_PREFIX = "step-"


def step_item_id(step: int) -> str:
    """The item id of step `step` (zero-padded so ids sort in step order)."""
    return f"{_STEP_PREFIX}{step:05d}"


def step_result(state: GcgState, candidates_kept: int, seconds: float) -> ItemResult:
    """The stored result of the step that produced `state` (step 0: the initial suffix)."""
    details: dict[str, JsonValue] = {
        "loss": state.loss,
        "suffix": state.suffix,
        "suffix_ids": list(state.suffix_ids),
        "candidates_kept": candidates_kept,
        "state": state.model_dump(mode="json"),
    }
    return ItemResult(
        item_id=step_item_id(state.step),
        outcome=Outcome(reason=f"loss {state.loss:.4f}", details=details),
        latency_s=seconds,
        metadata={"step": state.step},
    )


def initial_result(state: GcgState, seconds: float) -> ItemResult:
    """Step 0's stored result: the initial suffix and its loss."""
    return step_result(state, 0, seconds)


def as_step_result(result: StepResult, seconds: float) -> ItemResult:
    """A finished step as stored."""
    return step_result(result.state, result.candidates_kept, seconds)


def stored_states(store: Store, run_id: str) -> Iterator[GcgState]:
    """The states of a GCG run's stored steps, in step order.

    Raises:
        StoreError: the run is not a GCG attack, or a step row is not one this module wrote.
    """
    run = store.get_run(run_id)
    if run.task != GCG_TASK:
        raise StoreError(
            f"run {run.id} is a '{run.task}' run, not a GCG attack (`rulebench attack gcg`)"
        )
    results = sorted(
        (r for r in store.iter_results(run.id) if r.item_id.startswith(_STEP_PREFIX)),
        key=lambda r: r.item_id,
    )
    for result in results:
        yield _state_of(run.id, result)


def last_state(store: Store, run_id: str) -> GcgState | None:
    """The state after the last stored step of a GCG run, or None before its first."""
    last = None
    for last in stored_states(store, run_id):  # noqa: B007 - keep the final one
        pass
    return last


def stored_suffix(store: Store, run_id: str) -> str:
    """The suffix a GCG run ended with (or has reached so far, if it was stopped).

    Raises:
        StoreError: not a GCG run, or one with no stored step yet.
    """
    state = last_state(store, run_id)
    if state is None:
        raise StoreError(f"GCG run {run_id} has no stored step yet: no suffix to read")
    return state.suffix


def _state_of(run_id: str, result: ItemResult) -> GcgState:
    details = result.outcome.details if result.outcome is not None else {}
    try:
        return GcgState.model_validate(details.get("state"))
    except ValidationError as exc:
        raise StoreError(
            f"run {run_id}, {result.item_id}: the stored GCG state is unreadable ({exc})"
        ) from None
