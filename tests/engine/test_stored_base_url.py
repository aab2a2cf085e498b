"""A run's base URL never reaches the store, or leaves it, with its password or query key."""

import json
from pathlib import Path

from rulebench.engine.store.database import Store

KEY = "sk-stored-query-8a41f0c6"


def test_a_run_is_stored_without_the_secrets_of_its_base_url(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    url = f"http://alice:hunter2-pw@127.0.0.1:8000/v1?api_key={KEY}"
    with Store(path) as db:
        run = db.create_run("smoke", "openai-api/mock/echo", {"base_url": url, "limit": 3})
        assert db.get_run(run.id).config == {
            "base_url": "http://***@127.0.0.1:8000/v1?api_key=***",
            "limit": 3,
        }
    for file in tmp_path.glob("s.sqlite*"):
        assert KEY.encode() not in file.read_bytes() and b"hunter2" not in file.read_bytes()


def test_a_run_stored_with_a_query_key_in_clear_is_read_without_it(tmp_path: Path) -> None:
    # A run written by an older version: what reads it (runs show, exports, pages) gets the
    # URL redacted, and a resume is asked for the URL again rather than sending `api_key=***`.
    with Store(tmp_path / "s.sqlite") as db:
        run = db.create_run("smoke", "openai-api/mock/echo", {})
        config = json.dumps({"base_url": f"http://127.0.0.1:8000/v1?api_key={KEY}"})
        db._db.execute("UPDATE runs SET config = ? WHERE id = ?", (config, run.id))
        [listed] = db.list_runs()
        assert db.get_run(run.id).config == listed.config
    assert listed.config == {"base_url": "http://127.0.0.1:8000/v1?api_key=***"}
