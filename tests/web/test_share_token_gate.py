"""With `serve --token`, a share link opens its one read-only page without the token, and no more.

The link is itself the capability (256 random bits): a teammate without the server's token
reads that copy; every other page, any POST and any other token still meet the gate.
"""

from pathlib import Path

from fastapi.testclient import TestClient

from rulebench.web.playground.state import new_share_token
from rulebench.web.token_gate import TOKEN_PATH, is_share_page, protect

from tests.web.explorer_store import BASE_URL
from tests.web.playground_app import start
from tests.web.test_playground_share import share, share_app

TOKEN = "team-token-0123456789"


def test_a_share_link_passes_the_gate_and_nothing_else_does(tmp_path: Path) -> None:
    app = protect(share_app(tmp_path), TOKEN)
    with TestClient(app, base_url=BASE_URL, headers={"Origin": BASE_URL}) as owner:
        admitted = owner.post(TOKEN_PATH, data={"token": TOKEN, "next": "/play"})
        assert admitted.status_code == 200
        url = start(owner)
        link = share(owner, url)
    with TestClient(app, base_url=BASE_URL, headers={"Origin": BASE_URL}) as stranger:
        page = stranger.get(link)
        assert page.status_code == 200 and "Encryption" in page.text
        assert stranger.get("/static/web.css").status_code == 200  # the page's own style
        assert stranger.get(f"/play/shared/{new_share_token()}").status_code == 404
        for refused in (url, "/play", "/", f"{link}/x", f"{link}x" * 2, "/static/live.js"):
            assert stranger.get(refused).status_code == 401, refused
        assert stranger.post(link).status_code == 401
        assert stranger.post(f"{url}/unshare").status_code == 401
        assert stranger.get(link).status_code == 200  # still shared


def test_only_a_get_of_a_share_page_shaped_path_is_let_through() -> None:
    token = new_share_token()
    assert is_share_page("GET", f"/play/shared/{token}")
    assert is_share_page("HEAD", f"/play/shared/{token}")
    assert not is_share_page("POST", f"/play/shared/{token}")
    assert not is_share_page("GET", f"/play/shared/{token}/send")
    assert not is_share_page("GET", "/play/shared/short")
    assert not is_share_page("GET", f"/play/shared/{token}/../../conversations/x")
    assert not is_share_page("GET", f"/play/conversations/{token}")
