"""The recipes in examples/cluster/ run as written: each merges its shards into one whole run.

Real shell scripts, real rulebench processes and stores, the scripted model: the shell recipe
runs N shards at once (locally and through stand-ins for ssh and scp), the Slurm script's body
runs once per array index with the variables Slurm would set (and once more with a stand-in
vLLM that is the package's mock server), and the Kubernetes manifest's pod and merge commands
run with the index a Job would give. Only the scheduler and the remote machines are faked.
"""

import os
import re
import socket
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rulebench.engine.store.database import Store

from tests.command import rulebench

pytestmark = pytest.mark.subprocess  # runs shell scripts that spawn rulebench processes

RECIPES = Path(__file__).resolve().parents[2] / "examples" / "cluster"
RUN_ARGS = ("inferential", "-m", "scripted/echo", "--per-group", "3")
STAND_INS = {
    "rulebench": f'#!/bin/sh\nexec "{sys.executable}" -m rulebench "$@"\n',
    # ssh HOST COMMAND: the command runs here, as the remote shell would run it there.
    "ssh": '#!/bin/bash\nshift\nexec bash -c "$*"\n',
    # scp -q HOST:PATH DEST: the path is on this machine.
    "scp": '#!/bin/bash\n[[ $1 == -q ]] && shift\nexec cp "${1#*:}" "$2"\n',
    # curl -sf -o /dev/null URL (the health check): exit 0 when the URL answers 2xx, else 22.
    "curl": (
        f'#!/bin/sh\nfor url; do :; done\nexec "{sys.executable}" -c '
        "'import sys, urllib.request\n"
        "try: urllib.request.urlopen(sys.argv[1], timeout=5)\n"
        'except Exception: sys.exit(22)\' "$url"\n'
    ),
    # vllm serve MODEL --host H --port P ...: the mock OpenAI server on that port.
    "vllm": (
        "#!/bin/bash\nwhile (($#)); do [[ $1 == --port ]] && port=$2; shift; done\n"
        f'exec "{sys.executable}" -m rulebench.testing.mock_openai --port "$port" '
        '--log "$MOCK_LOG"\n'
    ),
}


def environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    """This process's environment with the stand-in commands first on PATH."""
    bin_dir = tmp_path / "bin"
    if not bin_dir.exists():
        bin_dir.mkdir()
        for name, text in STAND_INS.items():
            (bin_dir / name).write_text(text, encoding="utf-8")
            (bin_dir / name).chmod(stat.S_IRWXU)
    env = dict(os.environ) | {"COLUMNS": "200", "PYTHONIOENCODING": "utf-8"}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    return env | extra


def run_script(
    args: list[str], env: dict[str, str], cwd: Path, ok: bool = True
) -> subprocess.CompletedProcess[str]:
    """Run a recipe with bash; `ok`: it must exit 0."""
    done = subprocess.run(
        ["bash", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    if ok:
        assert done.returncode == 0, done.stdout + done.stderr
    return done


def whole_item_ids(tmp_path: Path) -> list[str]:
    """The item ids of the same spec run unsharded, in one process."""
    store = tmp_path / "whole.sqlite"
    made = rulebench("run", *RUN_ARGS, "--store", str(store))
    assert made.returncode == 0, made.stderr
    return merged_item_ids(store, "completed")


def merged_item_ids(store: Path, status: str) -> list[str]:
    """The one run's item ids, sorted, once its status is checked."""
    with Store(store, readonly=True) as db:
        [run] = db.list_runs()
        assert db.get_run(run.id).status == status
        return sorted(result.item_id for result in db.iter_results(run.id))


def assert_every_item_once(store: Path, tmp_path: Path) -> None:
    merged = merged_item_ids(store, "completed")
    assert len(merged) == len(set(merged))
    assert merged == whole_item_ids(tmp_path)


def test_local_shards_runs_n_processes_and_merges_every_item_once(tmp_path: Path) -> None:
    script = str(RECIPES / "local-shards.sh")
    run_script([script, "3", "out", *RUN_ARGS], environment(tmp_path), tmp_path)
    assert sorted(p.name for p in (tmp_path / "out").glob("shard-*.sqlite")) == [
        "shard-1.sqlite",
        "shard-2.sqlite",
        "shard-3.sqlite",
    ]
    assert_every_item_once(tmp_path / "out" / "merged.sqlite", tmp_path)


def test_local_shards_over_ssh_copies_each_store_back(tmp_path: Path) -> None:
    script = str(RECIPES / "local-shards.sh")
    env = environment(tmp_path, HOSTS="node1 node2")
    run_script([script, "3", "out", *RUN_ARGS], env, tmp_path)
    assert len(list((tmp_path / "out").glob("shard-*.sqlite"))) == 3
    assert_every_item_once(tmp_path / "out" / "merged.sqlite", tmp_path)


def test_local_shards_refuses_a_count_that_is_not_a_number(tmp_path: Path) -> None:
    script = str(RECIPES / "local-shards.sh")
    done = run_script([script, "x", "out", *RUN_ARGS], environment(tmp_path), tmp_path, ok=False)
    assert done.returncode == 2
    assert "N is 'x'" in done.stderr
    assert not (tmp_path / "out").exists()


def slurm_task(tmp_path: Path, index: int, count: int, **extra: str) -> dict[str, str]:
    """The environment of array task `index` of `count`, stores under tmp_path."""
    return environment(
        tmp_path,
        SLURM_ARRAY_TASK_ID=str(index),
        SLURM_ARRAY_TASK_COUNT=str(count),
        LOCAL_DISK=str(tmp_path / f"node{index}"),
        SHARED_DIR=str(tmp_path / "shared"),
        MODEL=extra.pop("MODEL", "scripted/echo"),
        TASK_ARGS=" ".join(a for a in RUN_ARGS if a not in ("-m", "scripted/echo")),
        **extra,
    )


def merge_env(tmp_path: Path) -> dict[str, str]:
    shared, local = str(tmp_path / "shared"), str(tmp_path / "merge-node")
    return environment(tmp_path, SHARED_DIR=shared, LOCAL_DISK=local)


def test_slurm_array_body_per_index_then_merge_gives_one_whole_run(tmp_path: Path) -> None:
    for index in range(3):
        run_script([str(RECIPES / "slurm-array.sh")], slurm_task(tmp_path, index, 3), tmp_path)
        assert (tmp_path / f"node{index}" / f"shard-{index}.sqlite").exists()
    run_script([str(RECIPES / "merge.sh")], merge_env(tmp_path), tmp_path)
    assert_every_item_once(tmp_path / "shared" / "merged.sqlite", tmp_path)


def test_slurm_merge_with_a_shard_missing_is_partial_and_names_it(tmp_path: Path) -> None:
    for index in range(2):
        run_script([str(RECIPES / "slurm-array.sh")], slurm_task(tmp_path, index, 3), tmp_path)
    run_script([str(RECIPES / "merge.sh")], merge_env(tmp_path), tmp_path)
    merged = tmp_path / "shared" / "merged.sqlite"
    merged_item_ids(merged, "partial")
    with Store(merged, readonly=True) as db:
        [run] = db.list_runs()
    shown = rulebench("runs", "show", run.id, "--store", str(merged))
    assert shown.returncode == 0, shown.stderr
    assert "3/3" in shown.stdout + shown.stderr
    # The late shard arrives; merging again completes the run.
    run_script([str(RECIPES / "slurm-array.sh")], slurm_task(tmp_path, 2, 3), tmp_path)
    run_script([str(RECIPES / "merge.sh")], merge_env(tmp_path), tmp_path)
    assert_every_item_once(merged, tmp_path)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_slurm_array_with_a_server_per_node_waits_for_it_and_sends_it_the_shard(
    tmp_path: Path,
) -> None:
    logs = [tmp_path / f"server{index}.jsonl" for index in range(2)]
    for index, log in enumerate(logs):
        env = slurm_task(
            tmp_path,
            index,
            2,
            MODEL="openai-api/vllm/some/model",
            SERVER="node",
            VLLM_PORT=str(free_port()),
            HEALTH_POLL_S="0.2",
            MOCK_LOG=str(log),
        )
        run_script([str(RECIPES / "slurm-array.sh")], env, tmp_path)
    run_script([str(RECIPES / "merge.sh")], merge_env(tmp_path), tmp_path)
    merged = merged_item_ids(tmp_path / "shared" / "merged.sqlite", "completed")
    assert len(merged) == len(set(merged)) == len(whole_item_ids(tmp_path))
    # Each node's own server answered exactly its shard's requests (no cache: a fresh store).
    requests = [len(log.read_text(encoding="utf-8").splitlines()) for log in logs]
    assert sum(requests) == len(merged)
    for index, sent in enumerate(requests):
        with Store(tmp_path / "shared" / f"shard-{index}.sqlite", readonly=True) as db:
            [run] = db.list_runs()
            assert sent == len(list(db.iter_results(run.id)))


def manifest_jobs() -> tuple[dict[str, Any], dict[str, Any]]:
    """The manifest's indexed Job and its merge Job."""
    yaml = pytest.importorskip("yaml")  # the `yaml` extra; the shell recipes need none
    documents = list(yaml.safe_load_all((RECIPES / "k8s-indexed-job.yaml").read_text("utf-8")))
    jobs = [d for d in documents if d["kind"] == "Job"]
    [indexed] = [j for j in jobs if j["spec"].get("completionMode") == "Indexed"]
    [merge] = [j for j in jobs if j is not indexed]
    return indexed, merge


def container(job: dict[str, Any]) -> dict[str, Any]:
    [only] = job["spec"]["template"]["spec"]["containers"]
    return dict(only)


def pod_script(job: dict[str, Any]) -> str:
    """The script the pod's `bash -c` runs."""
    spec = container(job)
    assert spec["command"] == ["bash", "-c"]
    [script] = spec["args"]
    return str(script)


def test_k8s_manifest_shards_as_many_as_completions_and_merges_each_store() -> None:
    indexed, merge = manifest_jobs()
    count = indexed["spec"]["completions"]
    assert indexed["spec"]["parallelism"] == count
    assert f"--shard auto/{count}" in pod_script(indexed)
    assert "--shard auto/" not in pod_script(indexed).replace(f"--shard auto/{count}", "")
    script = pod_script(merge)
    assert "rulebench runs merge" in script
    named = set(re.findall(r"shard-\d+\.sqlite", script))
    assert named >= {f"shard-{index}.sqlite" for index in range(count)}
    assert f"shard-{count}.sqlite" not in named
    volumes = indexed["spec"]["template"]["spec"]["volumes"]
    assert {"emptyDir", "persistentVolumeClaim"} <= {key for v in volumes for key in v}


def test_k8s_pod_and_merge_commands_run_as_a_job_would_run_them(tmp_path: Path) -> None:
    indexed, merge = manifest_jobs()
    results = tmp_path / "pvc"
    task_args = " ".join(a for a in RUN_ARGS if a not in ("-m", "scripted/echo"))
    for index in range(indexed["spec"]["completions"]):
        scratch = tmp_path / f"pod{index}"
        scratch.mkdir()
        env = environment(
            tmp_path,
            JOB_COMPLETION_INDEX=str(index),
            SCRATCH=str(scratch),
            RESULTS=str(results),
            MODEL="scripted/echo",
            TASK_ARGS=task_args,
            BASE_URL="",
        )
        run_script(["-c", pod_script(indexed)], env, tmp_path)
    scratch = tmp_path / "merge-pod"
    scratch.mkdir()
    env = environment(tmp_path, SCRATCH=str(scratch), RESULTS=str(results), WAIT_S="0")
    run_script(["-c", pod_script(merge)], env, tmp_path)
    assert_every_item_once(results / "merged.sqlite", tmp_path)


def test_a_killed_shards_writes_still_in_its_wal_file_are_copied(tmp_path: Path) -> None:
    # A process killed mid-run leaves its last commits in the -wal file: `cp` of the main file
    # alone would lose them; the recipes' copy_store (SQLite's backup) must not.
    store, copy = tmp_path / "shard.sqlite", tmp_path / "copy.sqlite"
    killed = (
        "import os, sqlite3, sys\n"
        "db = sqlite3.connect(sys.argv[1])\n"
        "db.execute('PRAGMA journal_mode=WAL'); db.execute('PRAGMA wal_autocheckpoint=0')\n"
        "db.execute('CREATE TABLE t (n)')\n"
        "db.executemany('INSERT INTO t VALUES (?)', [(n,) for n in range(100)]); db.commit()\n"
        "os._exit(0)\n"  # no close: nothing checkpointed
    )
    subprocess.run([sys.executable, "-c", killed, str(store)], check=True)
    assert Path(f"{store}-wal").stat().st_size > 0
    copier = re.search(
        r"^copy_store\(\) \{.*?^\}", (RECIPES / "slurm-array.sh").read_text(), re.M | re.S
    )
    assert copier is not None
    script = f'{copier.group()}\ncopy_store "$1" "$2"\n'
    env = {**os.environ, "PYTHON": sys.executable}
    subprocess.run(["bash", "-c", script, "copy", str(store), str(copy)], check=True, env=env)
    with sqlite3.connect(copy) as db:
        assert db.execute("SELECT COUNT(*) FROM t").fetchone() == (100,)
