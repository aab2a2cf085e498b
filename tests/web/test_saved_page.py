"""/play/saved lists every file of the save folder, a page at a time, and says how many."""

import shutil
from pathlib import Path

from tests.web.playground_app import player, playground_app, send, start


def test_every_saved_file_is_listed_across_pages(tmp_path: Path) -> None:
    with player(playground_app(tmp_path)) as client:
        url = start(client)
        send(client, url, "hello")
        assert client.post(f"{url}/save", data={"file": "f000.jsonl"}).status_code == 200
        cases = tmp_path / "cases"
        for number in range(1, 130):
            shutil.copy(cases / "f000.jsonl", cases / f"f{number:03}.jsonl")
        first = client.get("/play/saved").text
        assert "files 1&ndash;100 of 130 (page 1 of 2)" in first
        assert "f099.jsonl" in first and "f100.jsonl" not in first
        second = client.get("/play/saved?page=2").text
        assert "files 101&ndash;130 of 130" in second
        assert "f100.jsonl" in second and "f129.jsonl" in second and "f099.jsonl" not in second
        assert client.get("/play/saved?page=0").status_code == 422
