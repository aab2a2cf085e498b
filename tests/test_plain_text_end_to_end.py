"""Both benchmark families and log-likelihood scoring in plain-text mode on the embedded model.

`-M transcript=default` makes the local backends prompt with the transcript instead of the
chat template. A spy on the backend's worker records every prompt it is given, so what is
checked is the text the model really read. Nothing depends on the model's wording.
"""

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.engine.store.database import Store
from rulebench.models.hf.batching import HFWorker
from rulebench.models.job_worker import JobWorker
from rulebench.models.llamacpp.engine import GenerationRequest, LlamaEngine
from rulebench.models.transcript import DEFAULT_TRANSCRIPT

pytestmark = pytest.mark.slow
runner = CliRunner()
PLAIN = ["-M", "transcript=default"]
INFERENTIAL = ["run", "inferential", "-t", "kinship", "--per-group", "2", "-q", "golden"]


def spy_on(worker_type: type[JobWorker[Any]], monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Record every request a backend's worker is given, then let it run as usual."""
    seen: list[Any] = []

    def submit(self: JobWorker[Any], job: Any) -> None:
        seen.append(job)
        JobWorker.submit(self, job)

    monkeypatch.setattr(worker_type, "submit", submit)
    return seen


def run(args: list[str], store: Path) -> str:
    """Run a command into `store`; the id of the run it made."""
    result = runner.invoke(app, [*args, "--store", str(store)])
    assert result.exit_code == 0, result.output
    with Store(store) as db:
        return db.list_runs()[0].id


def assert_plain_text(prompt: str) -> None:
    """A prompt written as a transcript: labelled turns, no chat-template markup."""
    assert prompt.startswith(("System: ", "User: ")) and prompt.endswith("\n\nAssistant:")
    assert "<|im_start|>" not in prompt


def test_inferential_in_plain_text_mode_never_shares_cached_replies_with_chat_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "s.sqlite"
    requests = spy_on(LlamaEngine, monkeypatch)
    plain = run([*INFERENTIAL, *PLAIN, "--max-tokens", "16"], store)
    assert len(requests) == 2
    for request in requests:
        assert_plain_text(request.prompt)
        assert isinstance(request, GenerationRequest) and "\nUser:" in request.config.stop
    again = run([*INFERENTIAL, *PLAIN, "--max-tokens", "16"], store)
    chat = run([*INFERENTIAL, "--max-tokens", "16"], store)
    assert len(requests) == 4  # the repeat came from the cache, chat mode asked the model
    assert "<|im_start|>" in requests[-1].prompt
    with Store(store) as db:
        runs = {r.id: r for r in db.list_runs()}
        assert str(runs[plain].notes["model_identity"]).endswith(
            f"+transcript:{DEFAULT_TRANSCRIPT.fingerprint}"
        )
        assert "+transcript" not in str(runs[chat].notes["model_identity"])
        hits = {r: [x.cache_hits for x in db.iter_results(r)] for r in (plain, again, chat)}
        replies = [x.reply for x in db.iter_results(plain)]
    assert hits == {plain: [0, 0], again: [1, 1], chat: [0, 0]}
    assert all(reply is not None and "\nUser:" not in reply for reply in replies)


def test_inferential_loglik_scoring_in_plain_text_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "s.sqlite"
    requests = spy_on(LlamaEngine, monkeypatch)
    plain = run([*INFERENTIAL, *PLAIN, "--scoring", "loglik"], store)
    assert len(requests) == 2
    for request in requests:
        assert_plain_text(request.prompt)
        assert len(request.choices) == 20  # kinship's candidate relations
    with Store(store) as db:
        results = list(db.iter_results(plain))
    assert len(results) == 2
    for result in results:
        assert result.outcome is not None and result.outcome.details["scoring"] == "loglik"
        assert result.outcome.answer in result.outcome.details["loglik"]  # type: ignore[operator]
        assert result.scoring_tokens > 0


def test_scenarios_in_plain_text_mode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = tmp_path / "s.sqlite"
    requests = spy_on(LlamaEngine, monkeypatch)
    args = ["run", "scenarios", "--per-group", "1", "--scenario", "Encryption"]
    plain = run([*args, "--scenario", "Integrity", "--max-tokens", "16", *PLAIN], store)
    assert requests
    for request in requests:
        assert_plain_text(request.prompt)
    with Store(store) as db:
        assert db.count_results(plain) == {"ok": 2, "error": 0}
        assert all(r.outcome is not None for r in db.iter_results(plain))


def test_inferential_in_plain_text_mode_on_the_hf_backend(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "s.sqlite"
    jobs = spy_on(HFWorker, monkeypatch)
    model = ["-m", "hf/SmolLM2-135M-Instruct", "-M", "device=cpu"]
    generated = run([*INFERENTIAL, *model, *PLAIN, "--max-tokens", "8"], store)
    scored = run([*INFERENTIAL, *model, *PLAIN, "--scoring", "loglik"], store)
    assert len(jobs) == 4
    for job in jobs:
        assert_plain_text(job.prompt)
    with Store(store) as db:
        for run_id in (generated, scored):
            assert db.count_results(run_id) == {"ok": 2, "error": 0}
            assert "+transcript:" in str(db.get_run(run_id).notes["model_identity"])
