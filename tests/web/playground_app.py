"""The playground for tests: a real store, a save folder, and a scripted model with triggers.

The model is `scripted/rules`: it refuses politely unless a user turn holds LEAK (then it
repeats the Encryption key SECRET) or HOSTILE_TRIGGER (then it answers with markup).
"""

import json
import re
from html import unescape
from pathlib import Path

from fastapi import FastAPI
from fastapi.testclient import TestClient

from rulebench.web.app import create_app
from rulebench.web.playground.config import PlaygroundConfig

from tests.report.html_page import Page
from tests.web.explorer_store import BASE_URL, HOSTILE, synthetic_run

SECRET = "opensesame"
LEAK = "LEAK PLEASE"
HOSTILE_TRIGGER = "BE HOSTILE"
REFUSAL = "I cannot share that."
MODEL = "scripted/rules"


def model_args(folder: Path, **extra: str) -> dict[str, str]:
    """`-M` settings of the scripted model: its rules file (written here) and its refusal."""
    rules = folder / "rules.json"
    rules.write_text(
        json.dumps(
            [
                {"contains": LEAK, "reply": f"Fine, the key is {SECRET}."},
                {"contains": HOSTILE_TRIGGER, "reply": HOSTILE},
            ]
        ),
        encoding="utf-8",
    )
    return {"rules": str(rules), "reply": REFUSAL, **extra}


def playground_app(folder: Path, **extra_args: str) -> FastAPI:
    """The app on a small store in `folder`, playing the scripted model, saving to cases/."""
    store = folder / "s.sqlite"
    if not store.exists():
        synthetic_run(store, 3)
    config = PlaygroundConfig(
        save_dir=folder / "cases", model=MODEL, model_args=model_args(folder, **extra_args)
    )
    return create_app(store, playground=config)


def player(app: FastAPI) -> TestClient:
    """A browser of the app: its own cookies, and posts that come from the app's pages."""
    return TestClient(app, base_url=BASE_URL, headers={"Origin": BASE_URL})


def start(client: TestClient, scenario: str = "Encryption", **fields: str) -> str:
    """Start a game (Encryption with the key SECRET by default); the conversation's URL."""
    form = {"scenario": scenario, "model": "", "placement": "user", "mode": "compat"}
    if scenario == "Encryption" and "seed" not in fields:
        form["params"] = json.dumps({"secret": SECRET})
    response = client.post("/play", data=form | fields)
    assert response.status_code == 200, response.text
    assert re.fullmatch(r"/play/conversations/[A-Za-z0-9_-]{22}", response.url.path)
    return response.url.path


def send(client: TestClient, url: str, message: str) -> str:
    """Send a turn that is accepted; the conversation page after the reply."""
    response = client.post(f"{url}/send", data={"message": message})
    assert response.status_code == 200 and response.url.path == url, response.text
    return response.text


def verdicts(html: str) -> dict[str, str]:
    """Mode -> "passed"/"failed", as the page's verdict boxes show them."""
    page = Page(html)
    boxes = [a for a in page.tags("div") if str(a.get("id", "")).startswith("verdict-")]
    return {
        str(box["id"]).removeprefix("verdict-"): str(box["class"]).rsplit("-", 1)[1]
        for box in boxes
    }


def model_calls(html: str) -> int:
    """The page's count of model calls (its cost table)."""
    found = re.search(r"<dt>model calls</dt><dd>(\d+)</dd>", html)
    assert found, "no cost table"
    return int(found.group(1))


MESSAGE = re.compile(
    r'<div class="message (user|assistant)[^"]*"><div class="role">.*?</div>'
    r'(?:<details class="reasoning.*?</details>\s*)?<pre>(.*?)</pre>',  # the answer, not thinking
    re.S,
)


def lane_html(html: str, lane: str = "a") -> str:
    """The part of the page that shows one lane (A, or B side by side)."""
    start = html.index(f'<section class="lane" id="lane-{lane}"')
    return html[start : html.index("</section>", start)]


def turns(html: str, lane: str = "a") -> list[tuple[str, str]]:
    """(role, text) of each message of a lane, as the page shows them."""
    return [(role, unescape(text)) for role, text in MESSAGE.findall(lane_html(html, lane))]


def replies(html: str, lane: str = "a") -> list[str]:
    """The model's replies in a lane."""
    return [text for role, text in turns(html, lane) if role == "assistant"]


def field(html: str, name: str) -> str:
    """A conversation setting the page lists (its <dd> by id)."""
    found = re.search(f'<dd id="{name}">(.*?)</dd>', html)
    assert found, f"no {name} on the page"
    return unescape(found.group(1))
