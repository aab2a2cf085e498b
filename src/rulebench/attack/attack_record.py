"""Where a stored GCG attack stands, as `rulebench runs show` lists it: plain facts."""

from rulebench.attack.stored import last_state
from rulebench.engine.store.database import Store
from rulebench.engine.store.records import RunRecord


def attack_facts(store: Store, run: RunRecord) -> list[tuple[str, object]]:
    """Steps, loss and suffix so far and, once finished, the held-out test (None: not shown)."""
    state = last_state(store, run.id)
    gcg = run.config.get("gcg")
    total = gcg.get("num_steps", "?") if isinstance(gcg, dict) else "?"
    facts: list[tuple[str, object]] = [
        ("steps", f"{state.step if state else 0} of {total}"),
        ("loss (last step)", f"{state.loss:.4f}" if state else None),
        ("suffix", repr(state.suffix) if state else None),
    ]
    for name in ("heldout_initial", "heldout_final"):
        held = run.notes.get(name)
        if isinstance(held, dict):
            facts.append(
                (name.replace("_", " "), f"loss {held.get('loss')}, targets reproduced "
                 f"{held.get('reached')}/{held.get('instances')}")
            )  # fmt: skip
    return facts
