"""GCG attacks as runs: every step stored, resume after a kill or Ctrl-C on the same trajectory,
instances, refusals and `rulebench attack gcg` end to end.

Attacks here are tiny (4 steps of 8 candidates, a 4-token suffix, 1 held-out instance) on the
embedded model in float32 on the CPU, one torch thread: well under a second a step.
"""

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from rulebench.attack.attack_run import (
    AttackConfig,
    AttackResult,
    attack_config,
    resume_attack,
    run_attack,
)
from rulebench.attack.conversations import attack_case
from rulebench.attack.gcg.config import GcgConfig
from rulebench.attack.gcg.search import GcgState
from rulebench.attack.gcg.settings import gcg_settings
from rulebench.attack.instances import RulePrompts
from rulebench.attack.stored import last_state, stored_states, stored_suffix
from rulebench.attack.targets import target_for
from rulebench.cli.app import app
from rulebench.core.errors import ConfigError, StoreError
from rulebench.core.items import ItemResult
from rulebench.core.run_kinds import GCG_TASK
from rulebench.engine.store.database import Store
from rulebench.scenarios.protocol import Protocol
from rulebench.scenarios.registry import scenario_class

from tests.command import rulebench

MODEL = "hf/SmolLM2-135M-Instruct"
STEPS = 10  # enough that a kill after step 2 lands well before the end, on any CPU
TINY_GCG = {"num_steps": STEPS, "search_width": 8, "topk": 8, "optim_str_init": "x x x x"}
# Losses of one trajectory recomputed in another process or after a resume, on one thread.
LOSS_TOLERANCE = 1e-5

runner = CliRunner()


def tiny_flags(steps: int = STEPS) -> list[str]:
    """`tiny_config()` as the CLI spells it (its other options are GcgConfig's, seed 0)."""
    return [
        "--scenario", "Encryption", "--steps", str(steps), "--search-width", "8", "--topk", "8",
        "--init", "x x x x", "--heldout", "1", "--resample-every", "1", "--device", "cpu",
        "--dtype", "float32",
    ]  # fmt: skip


def tiny_config(**settings: object) -> AttackConfig:
    """The tiny Encryption attack, instances re-sampled every step."""
    values: dict[str, object] = {
        "gcg": GcgConfig(**TINY_GCG), "heldout": 1, "resample_every": 1, "device": "cpu",
        "dtype": "float32",
    }  # fmt: skip
    return attack_config(MODEL, "Encryption", None, **(values | settings))


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread() -> Iterator[None]:
    """Attacks run on one torch thread: fast on a busy 2-core machine, and one trajectory.

    The thread count changes float sums, so every run compared here (subprocesses too, via
    OMP_NUM_THREADS) uses one; the count is restored afterwards.
    """
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, AttackResult]:
    """An uninterrupted tiny attack: its store and result."""
    path = tmp_path_factory.mktemp("gcg-reference") / "store.sqlite"
    with Store(path) as db:
        return path, run_attack(tiny_config(), db)


def states_of(path: Path, run_id: str) -> list[GcgState]:
    with Store(path, readonly=True) as db:
        return list(stored_states(db, run_id))


def assert_same_trajectory(found: list[GcgState], expected: list[GcgState]) -> None:
    """Step by step: the same suffix ids, and losses equal within LOSS_TOLERANCE."""
    assert [s.step for s in found] == [s.step for s in expected] == list(range(STEPS + 1))
    for got, want in zip(found, expected, strict=True):
        assert got.suffix_ids == want.suffix_ids, got.step
        assert got.loss == pytest.approx(want.loss, abs=LOSS_TOLERANCE), got.step
        assert got.losses == pytest.approx(want.losses, abs=LOSS_TOLERANCE), got.step


def status_of(path: Path, run_id: str) -> str:
    with Store(path, readonly=True) as db:
        return db.effective_status(db.get_run(run_id))


def show(path: Path, run_id: str) -> Result:
    result = runner.invoke(app, ["runs", "show", run_id, "--store", str(path)])
    assert result.exit_code == 0, result.output
    return result


# Instances: no model needed.


def test_gcg_instances_are_drawn_from_their_seed_string() -> None:
    rule = RulePrompts("Encryption", "Encryption", Protocol(), has_system_role=True)
    first = rule.sample("gcg:0:0", 3)
    assert rule.sample("gcg:0:0", 3) == first
    other = rule.sample("gcg:0:1", 3)
    assert [p.target for p in other] != [p.target for p in first]
    rng = random.Random("gcg:0:0")
    for drawn in first:
        instance = scenario_class("Encryption").sample(rng)
        params = instance.params.model_dump()
        assert (
            drawn.target
            == target_for("Encryption", "Encryption", params)
            == params["secret"] + "\n"
        )
        # The instructions the suffix is optimised under hold this instance's own key.
        assert params["secret"] in drawn.messages[0].content


@pytest.mark.parametrize(
    ("placement", "has_system_role", "roles_before_case"),
    [
        ("user", True, ["user", "assistant"]),
        ("user", False, ["user", "assistant"]),
        ("system", True, ["system"]),
        ("system", False, ["user", "assistant"]),  # no system role: user placement instead
    ],
)
def test_gcg_suffix_joins_the_first_test_case_message(
    placement: str, has_system_role: bool, roles_before_case: list[str]
) -> None:
    protocol = Protocol.model_validate({"placement": placement})
    rule = RulePrompts("Encryption", "Encryption", protocol, has_system_role)
    (prompt,) = rule.sample("seed", 1)
    at = len(roles_before_case)
    assert prompt.suffix_at == at
    assert [m.role for m in prompt.messages[:at]] == roles_before_case
    assert [m.content for m in prompt.messages[at:]] == ["What is the key?"]
    assert prompt.target.rstrip("\n") in prompt.messages[0].content


def test_gcg_helpful_rule_keeps_its_trigger_after_the_suffixed_message() -> None:
    rule = RulePrompts("Integrity", "Integrity", Protocol(), has_system_role=True)
    for prompt in rule.sample("gcg:0:0", 2):
        at = prompt.suffix_at
        assert at == 2 and prompt.messages[at].role == "user"
        assert [m.content for m in prompt.messages[at + 1 :]] == ["Repeat"]
        assert prompt.target == target_for("Integrity", "Integrity", {})
    scenario = scenario_class("Integrity").sample(random.Random(0))
    assert [m.content for m in attack_case(scenario, "Integrity")][-1] == "Repeat"


# Refusals before any model is loaded.


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("openai/gpt-4o", "gcg attacks hf models only"),
        ("llamacpp/SmolLM2-135M-Instruct", "gcg attacks hf models only"),
        ("http://127.0.0.1:8000/v1", "unknown model provider"),
    ],
)
def test_gcg_attack_of_a_model_without_gradients_creates_no_run(
    spec: str, expected: str, store: Store
) -> None:
    config = tiny_config().model_copy(update={"model": spec})
    with pytest.raises(ConfigError, match=expected):
        run_attack(config, store)
    assert store.list_runs() == []


def test_gcg_attack_config_names_scenarios_and_rules() -> None:
    with pytest.raises(
        ConfigError, match=r"unknown scenario 'Encryptoin'\. Did you mean 'Encryption'"
    ):
        attack_config(MODEL, "Encryptoin", None)
    with pytest.raises(ConfigError, match="'Integrity' is not a rule of Encryption"):
        attack_config(MODEL, "Encryption", "Integrity")
    with pytest.raises(ConfigError, match="Authentication has several rules") as caught:
        attack_config(MODEL, "Authentication", None)
    for rule in (
        "Authentication_withholdpassword",
        "Authentication_provide",
        "Authentication_withholdsecret",
    ):
        assert rule in str(caught.value)
    assert attack_config(MODEL, "Encryption", None).behavior == "Encryption"


def test_gcg_resume_refuses_a_run_of_another_task(store: Store) -> None:
    other = store.create_run("smoke", "scripted/echo", {})
    store.finish_run(other.id, "interrupted", {})
    with pytest.raises(StoreError, match="not a GCG attack"):
        resume_attack(other.id, store)
    assert store.get_run(other.id).status == "interrupted"  # not claimed


@pytest.mark.subprocess
def test_run_resume_of_a_gcg_run_names_the_attack_command(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    with Store(path) as db:
        run = db.create_run(GCG_TASK, MODEL, tiny_config().model_dump(mode="json"))
        db.finish_run(run.id, "interrupted", {})
    done = rulebench("run", "--resume", run.id, "--store", str(path))
    assert done.returncode != 0, done.stdout
    assert f"rulebench attack gcg --resume {run.id}" in done.stderr
    assert "Traceback" not in done.stderr


def write_gcg_file(tmp_path: Path, content: str) -> Path:
    path = tmp_path / "gcg.json"
    path.write_text(content, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"num_steps": 2, "search_wdth": 8}', "search_wdth"),
        ("[1, 2]", "expected a JSON object of GCG options"),
        ("{not json", "cannot read it"),
    ],
)
def test_gcg_config_file_errors_are_named(tmp_path: Path, content: str, expected: str) -> None:
    file = write_gcg_file(tmp_path, content)
    store = tmp_path / "store.sqlite"
    args = ["attack", "gcg", "--scenario", "Encryption", "--gcg-config", str(file)]
    result = runner.invoke(app, [*args, "--store", str(store)])
    assert result.exit_code == 1
    assert isinstance(result.exception, ConfigError), result.output
    assert expected in str(result.exception)
    assert str(file) in str(result.exception) or expected == "search_wdth"
    with Store(store) as db:
        assert db.list_runs() == []


# Attacks on the embedded model.


@pytest.mark.slow
def test_gcg_stores_every_step_and_its_suffix(reference: tuple[Path, AttackResult]) -> None:
    from transformers import AutoTokenizer

    from rulebench.models.hf.loading import transformers_weights

    path, result = reference
    tokenizer = AutoTokenizer.from_pretrained(transformers_weights("SmolLM2-135M-Instruct")[0])
    with Store(path, readonly=True) as db:
        stored = sorted(db.iter_results(result.run_id), key=lambda r: r.item_id)
        states = list(stored_states(db, result.run_id))
        run = db.get_run(result.run_id)
        assert stored_suffix(db, result.run_id) == result.suffix
        assert db.effective_status(run) == "completed"
    assert [r.item_id for r in stored] == [f"step-{n:05d}" for n in range(STEPS + 1)]
    for n, (item, state) in enumerate(zip(stored, states, strict=True)):
        assert item.outcome is not None
        details = item.outcome.details
        assert state.step == n and len(state.losses) == n
        assert details["suffix_ids"] == list(state.suffix_ids)
        assert details["suffix"] == state.suffix == tokenizer.decode(list(state.suffix_ids))
        assert details["loss"] == state.loss
        assert len(state.suffix_ids) == len(states[0].suffix_ids)
        if n:
            assert state.losses[:-1] == states[n - 1].losses and state.losses[-1] == state.loss
    assert states[-1] == result.state
    assert len({s.suffix_ids for s in states}) > 1  # else a trajectory compares trivially
    assert run.config == result.config.model_dump(mode="json")
    assert run.notes["suffix"] == result.suffix and run.notes["steps"] == STEPS
    assert run.notes["heldout_initial"] == result.initial.model_dump(mode="json")
    assert run.notes["heldout_final"] == result.final.model_dump(mode="json")
    assert result.initial.suffix == "x x x x" == states[0].suffix
    assert result.final.suffix == result.suffix
    assert result.initial.instances == result.final.instances == 1
    assert result.seconds_per_step is not None and result.seconds_per_step > 0


class StopAtStep:
    """A progress display whose user presses Ctrl-C once step `stop` is stored."""

    def __init__(self, stop: int) -> None:
        self.stop = stop
        self.run_id = ""
        self.begun: list[tuple[int, int]] = []

    def begin(self, run_id: str, total_steps: int, done_steps: int) -> None:
        self.run_id = run_id
        self.begun.append((total_steps, done_steps))

    def update(self, step: int, loss: float, suffix: str) -> None:
        if step == self.stop:
            raise KeyboardInterrupt


@pytest.mark.slow
def test_gcg_interrupted_attack_resumes_on_the_same_trajectory(
    reference: tuple[Path, AttackResult], tmp_path: Path
) -> None:
    path = tmp_path / "store.sqlite"
    stopper = StopAtStep(2)
    with Store(path) as db:
        with pytest.raises(KeyboardInterrupt):
            run_attack(tiny_config(), db, stopper)
        run_id = stopper.run_id
        assert db.get_run(run_id).status == "interrupted"
        assert [s.step for s in stored_states(db, run_id)] == [0, 1, 2]
        resumer = StopAtStep(-1)
        resumed = resume_attack(run_id, db, resumer)
    assert resumer.begun == [(STEPS, 2)]
    assert resumed.run_id == run_id and status_of(path, run_id) == "completed"
    expected = states_of(reference[0], reference[1].run_id)
    assert_same_trajectory(states_of(path, run_id), expected)
    assert resumed.suffix == reference[1].suffix


def wait_for_step(path: Path, step: int, process: subprocess.Popen[bytes], log: Path) -> str:
    """Poll the store read-only until its one run has stored `step`; the run's id."""
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        assert process.poll() is None, log.read_text(errors="replace")
        try:
            with Store(path, readonly=True) as db:
                runs = db.list_runs()
                state = last_state(db, runs[0].id) if runs else None
        except StoreError:  # the store is not created (or migrated) yet
            state = None
        if state is not None and state.step >= step:
            return runs[0].id
        time.sleep(0.02)
    raise AssertionError(f"no step {step} stored in time: {log.read_text(errors='replace')}")


@pytest.mark.slow
@pytest.mark.subprocess
def test_gcg_killed_attack_resumes_on_the_uninterrupted_trajectory(
    reference: tuple[Path, AttackResult], tmp_path: Path
) -> None:
    path = tmp_path / "store.sqlite"
    log = tmp_path / "attack.log"
    env = os.environ | {"OMP_NUM_THREADS": "1", "COLUMNS": "200"}
    command = [sys.executable, "-m", "rulebench", "attack", "gcg", *tiny_flags()]
    command += ["--store", str(path), "-o", str(tmp_path / "out")]
    with log.open("wb") as output:
        process = subprocess.Popen(command, stdout=output, stderr=output, env=env)
        try:
            run_id = wait_for_step(path, 2, process, log)
            process.send_signal(signal.SIGKILL)
        finally:
            process.kill()
            process.wait(timeout=30)
    killed_at = states_of(path, run_id)[-1].step
    assert 2 <= killed_at < STEPS, "the attack finished before the kill: nothing to resume"
    assert status_of(path, run_id) == "killed"
    shown = show(path, run_id).output
    assert "status: killed" in shown and f"{killed_at} of {STEPS}" in shown
    assert f"rulebench attack gcg --resume {run_id}" in shown
    with Store(path, readonly=True) as db:
        assert db.get_run(run_id).config == reference[1].config.model_dump(mode="json")

    with Store(path) as db:
        resumed = resume_attack(run_id, db)
    assert status_of(path, run_id) == "completed"
    assert "status: completed" in show(path, run_id).output
    assert_same_trajectory(states_of(path, run_id), states_of(reference[0], reference[1].run_id))
    assert resumed.suffix == reference[1].suffix


def attack(tmp_path: Path, *args: str) -> Result:
    store = tmp_path / "store.sqlite"
    return runner.invoke(app, ["attack", "gcg", *args, "--store", str(store)])


@pytest.mark.slow
def test_gcg_command_writes_the_suffix_record_and_loss_curve(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    result = attack(tmp_path, *tiny_flags(2), "-o", str(folder))
    assert result.exit_code == 0, result.output
    with Store(tmp_path / "store.sqlite", readonly=True) as db:
        (run,) = db.list_runs()
        suffix = stored_suffix(db, run.id)
    assert run.task == GCG_TASK and run.status == "completed"
    assert (folder / "suffix.txt").read_text(encoding="utf-8") == suffix + "\n"
    record = json.loads((folder / "attack.json").read_text(encoding="utf-8"))
    assert record["run_id"] == run.id and record["state"]["suffix"] == suffix
    assert record["config"]["gcg"]["num_steps"] == 2
    assert (folder / "loss-curve.png").stat().st_size > 0
    assert f"run {run.id}: 2 steps" in result.stdout
    assert f"--suffix {run.id}" in result.stdout
    shown = show(tmp_path / "store.sqlite", run.id).output
    assert "status: completed" in shown
    assert "steps" in shown and "2 of 2" in shown
    assert "heldout final" in shown


@pytest.mark.slow
def test_gcg_command_stores_the_config_the_python_api_builds(tmp_path: Path) -> None:
    result = attack(tmp_path, *tiny_flags(1), "--json", "-o", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    gcg = gcg_settings(num_steps=1, search_width=8, topk=8, optim_str_init="x x x x")
    settings = {"heldout": 1, "resample_every": 1, "device": "cpu", "dtype": "float32"}
    expected = attack_config(None, "Encryption", None, gcg=gcg, **settings)
    with Store(tmp_path / "store.sqlite", readonly=True) as db:
        (run,) = db.list_runs()
    assert run.config == expected.model_dump(mode="json")


@pytest.mark.slow
def test_gcg_flags_override_the_gcg_config_file(tmp_path: Path) -> None:
    file = write_gcg_file(
        tmp_path, '{"num_steps": 3, "search_width": 8, "topk": 8, "n_replace": 2}'
    )
    args = ["--scenario", "Encryption", "--gcg-config", str(file), "--steps", "2"]
    args += ["--init", "x x x x", "--heldout", "1", "--device", "cpu", "--json"]
    result = attack(tmp_path, *args, "-o", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    printed: dict[str, Any] = json.loads(result.stdout)
    with Store(tmp_path / "store.sqlite", readonly=True) as db:
        run = db.get_run(printed["run_id"])
    gcg = run.config["gcg"]
    assert isinstance(gcg, dict)
    assert (gcg["num_steps"], gcg["n_replace"], gcg["search_width"], gcg["topk"]) == (2, 2, 8, 8)
    assert printed["config"]["gcg"] == gcg and printed["state"]["step"] == 2


@pytest.mark.slow
def test_gcg_initial_suffix_that_tokenizes_to_nothing_is_refused(tmp_path: Path) -> None:
    args = ["--scenario", "Encryption", "--steps", "1", "--search-width", "8", "--topk", "8"]
    result = attack(tmp_path, *args, "--init", "", "--heldout", "1", "--device", "cpu")
    assert result.exit_code == 1
    assert isinstance(result.exception, ConfigError), result.output
    assert "optim_str_init '' tokenizes to nothing" in str(result.exception)


def test_gcg_suffix_length_flag_overrides_the_file_suffix(tmp_path: Path) -> None:
    file = write_gcg_file(tmp_path, '{"optim_str_init": "a b c"}')
    # A model without gradients stops the attack right after the settings are printed.
    args = ["--scenario", "Encryption", "--model", "openai/gpt-4o", "--gcg-config", str(file)]
    result = attack(tmp_path, *args, "--suffix-length", "2")
    assert isinstance(result.exception, ConfigError), result.output
    assert "suffix 'x x'" in result.stderr


@pytest.mark.slow
def test_gcg_failed_attack_leaves_no_unexplained_run(tmp_path: Path) -> None:
    args = ["--scenario", "Encryption", "--steps", "1", "--search-width", "8", "--topk", "8"]
    result = attack(tmp_path, *args, "--init", "", "--heldout", "1", "--device", "cpu")
    assert isinstance(result.exception, ConfigError), result.output
    with Store(tmp_path / "store.sqlite", readonly=True) as db:
        runs = db.list_runs()
    # The suffix is refused before a run exists that could only fail the same way on resume.
    assert runs == []


def test_gcg_resume_refuses_settings_it_would_ignore(tmp_path: Path) -> None:
    result = attack(tmp_path, "--resume", "some-run", "--steps", "9", "--search-width", "4")
    assert isinstance(result.exception, ConfigError), result.output
    message = str(result.exception)
    assert "drop --steps, --search-width" in message and "own stored settings" in message


@pytest.mark.slow
def test_gcg_ctrl_c_leaves_a_resumable_attack_and_says_how(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    log = tmp_path / "attack.log"
    env = os.environ | {"OMP_NUM_THREADS": "1", "COLUMNS": "200"}
    command = [sys.executable, "-m", "rulebench", "attack", "gcg", *tiny_flags(50)]
    command += ["--store", str(path)]
    with log.open("wb") as output:
        process = subprocess.Popen(command, stdout=output, stderr=output, env=env)
        try:
            run_id = wait_for_step(path, 1, process, log)
            process.send_signal(signal.SIGINT)
            code = process.wait(timeout=60)
        finally:
            process.kill()
            process.wait(timeout=30)
    said = log.read_text()
    assert code == 130, said
    assert f"rulebench attack gcg --resume {run_id} --store {path}" in said
    assert "Traceback" not in said
    assert status_of(path, run_id) == "interrupted"
    assert 1 <= states_of(path, run_id)[-1].step < 50


@pytest.mark.slow
def test_gcg_a_step_the_store_refuses_fails_the_attack(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refused row must not leave a gap in a run that then says "completed"."""
    from rulebench.engine.store.writer import StoreWriter

    original = StoreWriter.put_result

    def refuse_step_two(writer: StoreWriter, run_id: str, result: ItemResult) -> None:
        if result.item_id == "step-00002":
            writer.rejected.append((result.item_id, "CHECK constraint failed"))
            return
        original(writer, run_id, result)

    monkeypatch.setattr(StoreWriter, "put_result", refuse_step_two)
    path = tmp_path / "store.sqlite"
    with Store(path) as db, pytest.raises(StoreError, match="refused step-00002"):
        run_attack(tiny_config(), db)
    with Store(path, readonly=True) as db:
        (run,) = db.list_runs()
        assert run.status == "failed" and "refused step-00002" in str(run.notes["reason"])
    assert [s.step for s in states_of(path, run.id)] == [0, 1]
