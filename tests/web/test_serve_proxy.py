"""Behind a reverse proxy on the same machine, quotas see each visitor's own address.

The red-teaming guide says so and its nginx example sends `X-Forwarded-For` for it: `serve`
runs uvicorn with its proxy-header defaults, which trust that header from loopback only.
"""

import re
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from rulebench.web import serve as serving
from rulebench.web.clients import client_address
from rulebench.web.serve import ServeConfig

from tests.web.explorer_store import synthetic_run

GUIDE = Path(__file__).parents[2] / "docs" / "guides" / "red-teaming.md"


def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The ASGI app as uvicorn runs it for `serve` (its middleware included)."""
    import uvicorn

    store = tmp_path / "s.sqlite"
    synthetic_run(store, 1)
    given: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kwargs: given.update(app=app, **kwargs))
    monkeypatch.delenv("FORWARDED_ALLOW_IPS", raising=False)
    serving.serve(ServeConfig(store=store, allow_remote=True))
    app: FastAPI = given.pop("app")

    @app.get("/test-address")
    def address() -> dict[str, str | None]:
        return {"address": client_address.get()}

    config = uvicorn.Config(app, **given)
    config.load()
    return config.loaded_app


def test_a_local_proxy_passes_each_visitors_address(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = served(tmp_path, monkeypatch)
    headers = {"Host": "127.0.0.1:8765", "X-Forwarded-For": "203.0.113.7"}
    via_proxy = TestClient(app, base_url="http://127.0.0.1:8765", client=("127.0.0.1", 40000))
    assert via_proxy.get("/test-address", headers=headers).json() == {"address": "203.0.113.7"}
    # A visitor reaching the port itself cannot claim another address.
    direct = TestClient(app, base_url="http://127.0.0.1:8765", client=("198.51.100.2", 40000))
    assert direct.get("/test-address", headers=headers).json() == {"address": "198.51.100.2"}


def test_the_guides_nginx_example_sends_the_visitors_address() -> None:
    guide = GUIDE.read_text(encoding="utf-8")
    [nginx] = re.findall(r"```nginx\n(.*?)```", guide, re.S)
    assert re.search(r"proxy_set_header X-Forwarded-For \$remote_addr;", nginx)
    assert "proxy's address, so the per-address quota is the whole" not in guide
