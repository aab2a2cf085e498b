"""The shared access token: every page 401 without it, a cookie once given, no leak of it."""

from pathlib import Path

from fastapi.testclient import TestClient

from rulebench.web.app import create_app
from rulebench.web.token_gate import ACCESS_COOKIE, TOKEN_PATH, protect

from tests.web.explorer_store import BASE_URL, synthetic_run

TOKEN = "team-token-0123456789"


def gated(tmp_path: Path) -> TestClient:
    store = tmp_path / "s.sqlite"
    synthetic_run(store, 2)
    app = protect(create_app(store), TOKEN)
    return TestClient(app, base_url=BASE_URL, headers={"Origin": BASE_URL})


def test_without_the_token_every_page_is_a_401_form(tmp_path: Path) -> None:
    with gated(tmp_path) as client:
        for path in ("/", "/play", "/play/saved", "/static/live.js", "/nope"):
            response = client.get(path, follow_redirects=False)
            assert response.status_code == 401, path
            assert "Access token needed" in response.text
            assert "default-src 'none'" in response.headers["content-security-policy"]
            assert "s.sqlite" not in response.text  # nothing of the store shows
        assert client.post("/play", data={"scenario": "Encryption"}).status_code == 401


def test_a_wrong_token_is_refused(tmp_path: Path) -> None:
    with gated(tmp_path) as client:
        response = client.post(TOKEN_PATH, data={"token": TOKEN + "x", "next": "/"})
        assert response.status_code == 401 and "not the token" in response.text
        assert ACCESS_COOKIE not in client.cookies
        assert client.get("/?token=guess").status_code == 401


def test_the_form_sets_an_httponly_cookie_holding_no_token(tmp_path: Path) -> None:
    with gated(tmp_path) as client:
        response = client.post(
            TOKEN_PATH, data={"token": TOKEN, "next": "/play"}, follow_redirects=False
        )
        assert response.status_code == 303 and response.headers["location"] == "/play"
        cookie = response.headers["set-cookie"]
        assert "HttpOnly" in cookie and TOKEN not in cookie
        assert client.get("/play/saved").status_code == 200
        assert client.get("/play").status_code == 200


def test_a_link_with_the_token_drops_it_from_the_address(tmp_path: Path) -> None:
    with gated(tmp_path) as client:
        response = client.get(f"/play/saved?token={TOKEN}&page=1", follow_redirects=False)
        assert response.status_code == 303
        assert response.headers["location"] == "/play/saved?page=1"
        assert client.get("/play/saved").status_code == 200


def test_the_form_never_redirects_to_another_site(tmp_path: Path) -> None:
    with gated(tmp_path) as client:
        for target in ("//evil.example/x", "https://evil.example/", "\\\\evil"):
            client.cookies.clear()
            response = client.post(
                TOKEN_PATH, data={"token": TOKEN, "next": target}, follow_redirects=False
            )
            assert response.headers["location"] == "/"


def test_a_bearer_header_lets_a_script_in(tmp_path: Path) -> None:
    with gated(tmp_path) as client:
        assert client.get("/play", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
        assert client.get("/", headers={"Authorization": "Bearer nope"}).status_code == 401


def test_the_token_form_refuses_other_sites_and_big_bodies(tmp_path: Path) -> None:
    with gated(tmp_path) as client:
        other = client.post(
            TOKEN_PATH, data={"token": TOKEN}, headers={"Origin": "http://evil.example"}
        )
        assert other.status_code == 403
        big = client.post(TOKEN_PATH, content=b"token=" + b"x" * 100_000)
        assert big.status_code == 403


def browser_sends(set_cookie: str, cross_site_navigation: bool) -> bool:
    """Whether a browser sends the cookie with a request, by its SameSite attribute."""
    attributes = {part.strip().split("=")[0].lower(): part for part in set_cookie.split(";")}
    same_site = attributes.get("samesite", "samesite=lax").split("=")[1].strip().lower()
    return not cross_site_navigation or same_site in ("lax", "none")


def test_a_link_from_another_site_keeps_the_access_but_changes_nothing(tmp_path: Path) -> None:
    with gated(tmp_path) as client:
        response = client.post(
            TOKEN_PATH, data={"token": TOKEN, "next": "/"}, follow_redirects=False
        )
        set_cookie = response.headers["set-cookie"]
        # A top-level GET from a link on another site: with SameSite=Strict the browser
        # would leave the cookie behind and the visitor would meet the token form again.
        assert browser_sends(set_cookie, cross_site_navigation=True)
        arriving = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}
        assert client.get("/play", headers=arriving).status_code == 200
        # State changes stay same-origin POSTs: the cookie alone does not let another
        # site's form start a game.
        posted = client.post(
            "/play",
            data={"scenario": "Encryption"},
            headers={"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"},
        )
        assert posted.status_code == 403
