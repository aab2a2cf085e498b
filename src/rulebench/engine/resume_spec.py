"""The spec a stopped run is finished with: the stored one, with the settings given again."""

from collections.abc import Mapping
from pathlib import Path

from rulebench.core.errors import StoreError
from rulebench.engine.run_specs import stored_spec
from rulebench.engine.runner import RunSpec
from rulebench.engine.store.database import Store


def spec_to_resume(path: Path, run_id: str, overrides: Mapping[str, object]) -> tuple[RunSpec, str]:
    """The stored run's spec, with `overrides` where given (not None), and the run's full id.

    Only the settings that may change between sessions are given again (concurrency, a
    server's base_url: it moved, or its user:password, which is never stored).

    Raises:
        StoreError: no results store at `path` (opening would create an empty one for
            nothing), no such run, or one the runner did not start (`NotAnEvaluation`).
    """
    if not path.exists():
        raise StoreError(
            f"no run '{run_id}' to resume: there is no results store at {path} "
            "(pass the --store the run used)"
        )
    with Store(path) as store:
        spec = stored_spec(store, run_id)
        full_id = store.get_run(run_id).id
    given = {name: value for name, value in overrides.items() if value is not None}
    concurrency = given.pop("concurrency", None)
    if isinstance(concurrency, int):
        spec = spec.with_concurrency(concurrency)
    return spec.model_copy(update=given), full_id
