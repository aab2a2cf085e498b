"""Every report names its runs' wording from one reader, and warns only when wordings differ."""

from pathlib import Path

from pydantic import JsonValue

import rulebench
from rulebench.engine.store.database import Store
from rulebench.report.build import inferential_report
from rulebench.report.document import to_markdown
from rulebench.report.run_wording import mixed_wording_warning, wording_header

from tests.inferential.upstream.clone_fixture import make_clone


def test_the_header_is_one_line_when_runs_agree_else_one_per_run() -> None:
    assert wording_header([], []) == ""
    same = ["prompts: rulebench", "prompts: rulebench"]
    assert wording_header(["a", "b"], same) == "prompts: rulebench"
    mixed = wording_header(["a", "b"], ["prompts: rulebench", "prompts: upstream"])
    assert mixed == "a: prompts: rulebench; b: prompts: upstream"


def test_the_warning_names_both_wordings_only_when_they_differ() -> None:
    assert mixed_wording_warning([]) is None
    assert mixed_wording_warning(["prompts: upstream", "prompts: upstream"]) is None
    warning = mixed_wording_warning(["prompts: upstream", "prompts: rulebench"])
    assert warning is not None
    assert "prompts: rulebench / prompts: upstream" in warning


def test_upstream_runs_of_one_clone_on_other_datasets_are_not_called_differently_worded(
    tmp_path: Path,
) -> None:
    # law-cf's label lists a substitution deer's does not; the text is the same clone's.
    clone = make_clone(tmp_path)
    store = tmp_path / "runs.db"
    common: dict[str, JsonValue] = {"data_root": str(clone / "dataset"), "prompts": "upstream"}
    deer: dict[str, JsonValue] = {**common, "tasks": ["deer"], "grid": {"quantities": ["golden"]}}
    law_cf: dict[str, JsonValue] = {
        **common,
        "tasks": ["law-cf"],
        "grid": {"quantities": ["golden"], "counterfactual": [True]},
    }
    ids = [
        rulebench.run("inferential", "scripted/echo", config=config, store=store).run.id
        for config in (deer, law_cf)
    ]
    with Store(store, readonly=True) as db:
        built = inferential_report(db, ids, render=True)
    assert built.document is not None
    text = to_markdown(built.document)
    assert "law_cf" in text  # each run's own label is still shown
    assert "different prompt text" not in text
    assert not [w for w in built.warnings if "different prompt text" in w]
