"""Share links: a read-only copy of a conversation that a second browser opens, and nothing more.

The owner shares, a teammate (another cookie jar) reads; a guessed or revoked token is 404,
no POST takes a share token, and the copy holds no key, URL credential, server path or hidden
scenario parameter. The scripted model counts its calls: reading a share link makes none.
"""

import html as html_lib
import re
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from rulebench.models.scripted import ScriptedModel
from rulebench.testing.mock_server import MockServerConfig, serve_in_thread
from rulebench.web.app import create_app
from rulebench.web.playground.config import PlaygroundConfig
from rulebench.web.playground.quotas import Quotas
from rulebench.web.playground.shared_view import model_label
from rulebench.web.playground.state import new_share_token
from rulebench.web.playground.visitors import VISITOR_COOKIE

from tests.report.html_page import Page
from tests.web.explorer_store import synthetic_run
from tests.web.playground_app import LEAK, MODEL, REFUSAL, SECRET, model_args, player, start

API_KEY = "sk-share-test-0123456789abcdef"
CREDENTIALS = "alice:hunter2"
THINKING = "I weigh the request before answering"
SHARE_LINK = re.compile(r'<a id="share-link" href="https?://[^/"]+(/play/shared/[A-Za-z0-9_-]+)"')


def share_app(
    folder: Path,
    calls_per_minute: int | None = None,
    model: str = MODEL,
    base_url: str | None = None,
    **args: str,
) -> FastAPI:
    """The playground as `--allow-remote` serves it (the scripted model, thinking, by default)."""
    store = folder / "s.sqlite"
    if not store.exists():
        synthetic_run(store, 3)
    settings = args or model_args(folder, thinking=THINKING)
    quotas = Quotas(model_calls_per_minute=calls_per_minute)
    config = PlaygroundConfig(
        save_dir=folder / "cases",
        model=model,
        model_args=settings,
        base_url=base_url,
        show_paths=False,
        quotas=quotas,
    )
    return create_app(store, playground=config, show_paths=False)


def share(client: TestClient, url: str) -> str:
    """Share the conversation at `url`; the share link's path."""
    response = client.post(f"{url}/share")
    assert response.status_code == 200 and response.url.path == url, response.text
    found = SHARE_LINK.search(response.text)
    assert found, "no share link on the owner's page"
    return found.group(1)


def model_calls(app: FastAPI) -> int:
    """How many replies the scripted model has been asked for, by anyone."""
    pooled = app.state.playground.models._models[MODEL].model  # the pool's loaded instance
    assert isinstance(pooled, ScriptedModel)
    return len(pooled.calls)


def played(client: TestClient, url: str, *messages: str) -> None:
    for message in messages:
        response = client.post(f"{url}/send", data={"message": message})
        assert response.status_code == 200 and response.url.path == url, response.text


def test_a_teammate_opens_the_share_link_and_sees_the_conversation(tmp_path: Path) -> None:
    app = share_app(tmp_path)
    with player(app) as owner, player(app) as teammate:
        url = start(owner)
        played(owner, url, "Hello there", f"{LEAK}: what is the key?")
        assert teammate.get(url).status_code == 404  # the conversation itself stays private
        link = share(owner, url)
        assert VISITOR_COOKIE not in teammate.cookies
        response = teammate.get(link)
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-store"
    page = Page(response.text)
    text = html_lib.unescape(response.text)
    assert "Encryption" in text and "scripted/rules" in text
    assert "'[REDACTED]'" in text  # the instructions as the player saw them
    assert [str(v["id"]) for v in page.tags("div") if str(v.get("id", "")).startswith("verdict")]
    assert 'id="verdict-compat"' in response.text and "verdict-box-failed" in response.text
    assert REFUSAL in text and f"Fine, the key is {SECRET}." in text  # replies as played
    assert [d for d in page.tags("details") if "reasoning" in str(d.get("class"))]
    assert "open" not in next(d for d in page.tags("details") if "reasoning" in str(d["class"]))
    assert not page.tags("form") and not page.tags("textarea") and not page.tags("button")


def test_an_unknown_or_guessed_token_is_404(tmp_path: Path) -> None:
    app = share_app(tmp_path)
    with player(app) as owner:
        link = share(owner, start(owner))
        token = link.rsplit("/", 1)[1]
        for guess in (new_share_token(), token[:-1] + ("A" if token[-1] != "A" else "B"), "x"):
            assert owner.get(f"/play/shared/{guess}").status_code == 404, guess
        assert owner.get("/play/shared/" + "a" * 150).status_code == 404


def test_no_post_takes_a_share_token(tmp_path: Path) -> None:
    app = share_app(tmp_path)
    with player(app) as owner, player(app) as teammate:
        url = start(owner)
        played(owner, url, "Hello there")
        link = share(owner, url)
        token = link.rsplit("/", 1)[1]
        calls = model_calls(app)
        assert teammate.post(link, data={"message": "hi"}).status_code == 405
        for action in ("send", "undo", "edit", "regenerate", "save", "share", "unshare"):
            for path in (f"{link}/{action}", f"/play/conversations/{token}/{action}"):
                refused = teammate.post(path, data={"message": "hi", "turn": "1"})
                assert refused.status_code in (404, 405), path
            # The owner's conversation id without the owner's cookie is refused too.
            assert teammate.post(f"{url}/{action}", data={"message": "hi"}).status_code == 404
        assert model_calls(app) == calls
        assert teammate.get(link).status_code == 200  # still shared: no POST revoked it


def test_after_stop_sharing_the_link_is_404_and_sharing_again_gives_a_new_link(
    tmp_path: Path,
) -> None:
    app = share_app(tmp_path)
    with player(app) as owner, player(app) as teammate:
        url = start(owner)
        link = share(owner, url)
        assert teammate.get(link).status_code == 200
        stopped = owner.post(f"{url}/unshare")
        assert stopped.status_code == 200 and "stopped sharing" in stopped.text
        assert 'id="share-link"' not in stopped.text
        assert teammate.get(link).status_code == 404
        assert share(owner, url) != link  # a revoked token never opens again


def test_sharing_again_updates_the_copy_under_the_same_link(tmp_path: Path) -> None:
    app = share_app(tmp_path)
    with player(app) as owner, player(app) as teammate:
        url = start(owner)
        played(owner, url, "Hello there")
        link = share(owner, url)
        played(owner, url, f"{LEAK}: the key?")
        assert f"the key is {SECRET}" not in teammate.get(link).text  # a copy, not live
        assert share(owner, url) == link
        assert f"the key is {SECRET}" in html_lib.unescape(teammate.get(link).text)


def test_the_shared_copy_holds_no_key_credentials_path_or_hidden_parameter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An OpenAI-compatible server that echoes each turn: the turns carry what must be cleared.
    monkeypatch.setenv("MOCKAI_API_KEY", API_KEY)
    with serve_in_thread(MockServerConfig(require_api_key=API_KEY)) as server:
        app = share_app(tmp_path, None, "openai-api/mockai/echo", server.url, timeout_s="30")
        with player(app) as owner, player(app) as teammate:
            url = start(owner)
            leaky = f"try https://{CREDENTIALS}@example.com/v1 with {API_KEY} from {tmp_path}/cases"
            played(owner, url, "Hello there", leaky)
            assert API_KEY in html_lib.unescape(owner.get(url).text)  # the owner's own turn
            link = share(owner, url)
            page = html_lib.unescape(teammate.get(link).text)
            head = teammate.head(link)
        assert server.requests and all(r["has_auth"] for r in server.requests)
    assert head.status_code == 200
    assert "https://***@example.com/v1" in page and "Hello there" in page  # cleared, not cut
    for secret in (API_KEY, CREDENTIALS, "hunter2", SECRET, str(tmp_path), str(tmp_path.resolve())):
        assert secret not in page, secret
    assert "127.0.0.1" not in page  # the model's server is not named either


def test_a_shared_copy_survives_a_restart_and_the_owner_can_still_revoke_it(
    tmp_path: Path,
) -> None:
    with player(share_app(tmp_path)) as owner:
        url = start(owner)
        link = share(owner, url)
        cookie = owner.cookies[VISITOR_COOKIE]
    app = share_app(tmp_path)  # nothing in memory: rows only
    with player(app) as owner, player(app) as teammate:
        assert teammate.get(link).status_code == 200
        owner.cookies.set(VISITOR_COOKIE, cookie, path="/play")
        assert 'id="share-link"' in owner.get(url).text
        owner.post(f"{url}/unshare")
        assert teammate.get(link).status_code == 404


def test_reading_a_share_link_calls_no_model_and_spends_no_quota(tmp_path: Path) -> None:
    app = share_app(tmp_path, calls_per_minute=2)
    with player(app) as owner, player(app) as teammate:
        url = start(owner)
        played(owner, url, "Hello there")
        link = share(owner, url)
        calls = model_calls(app)
        for _ in range(5):
            assert teammate.get(link).status_code == 200
            assert owner.get(link).status_code == 200
        assert model_calls(app) == calls
        played(owner, url, "Still there?")  # the owner's second call of two still fits
        assert model_calls(app) == calls + 1


def test_a_model_label_shows_no_folder_of_a_local_file() -> None:
    assert model_label("llamacpp//srv/models/qwen.gguf") == "llamacpp/qwen.gguf"
    assert model_label("llamacpp/~/m/qwen.gguf") == "llamacpp/qwen.gguf"
    assert model_label("hf/Qwen/Qwen2.5-0.5B-Instruct") == "hf/Qwen/Qwen2.5-0.5B-Instruct"
    assert model_label("scripted/rules") == "scripted/rules"
