"""`rulebench serve`: loopback by default, a remote bind only when asked (with a warning)."""

import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from rulebench.engine.store.database import Store
from rulebench.web.playground.config import PlaygroundConfig

from tests.command import assert_one_line_error, rulebench, rulebench_command
from tests.llama_server import free_port
from tests.web.explorer_store import synthetic_run

pytestmark = pytest.mark.subprocess  # spawns rulebench processes: not in `make test-fast`


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "s.sqlite"
    synthetic_run(path, 5)
    return path


def test_a_host_other_machines_reach_needs_allow_remote(store: Path) -> None:
    for host in ("0.0.0.0", "192.168.1.20", "::", "box.lan"):
        result = rulebench("serve", "--host", host, "--store", str(store))
        assert_one_line_error(
            result, f"--host {host} is reachable from other machines", "--allow-remote"
        )


def test_a_missing_web_extra_is_an_install_hint(store: Path) -> None:
    hide = "import sys; sys.modules['uvicorn'] = None"
    result = rulebench("serve", "--store", str(store), preamble=hide)
    assert_one_line_error(result, "serve needs uvicorn", "pip install 'rulebench[web]'")


def test_a_missing_further_store_is_one_line_and_creates_nothing(
    store: Path, tmp_path: Path
) -> None:
    new = tmp_path / "new" / "first.sqlite"
    result = rulebench("serve", "--store", str(new), "--store", str(tmp_path / "none.sqlite"))
    assert_one_line_error(result, "no results store at")
    assert not new.parent.exists() and not (tmp_path / "none.sqlite").exists()


def test_help_loads_no_web_library() -> None:
    code = (
        "import sys; from rulebench.cli.app import main; sys.argv = ['rulebench', '--help']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "web = {'fastapi', 'uvicorn', 'starlette'}\n"
        "print('LOADED', sorted(m for m in sys.modules if m.split('.')[0] in web))"
    )
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert "LOADED []" in output and "serve" in output


def get(url: str, host: str | None = None) -> int:
    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


@contextmanager
def serving(*args: str) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """`rulebench serve ARGS` on a free port until it answers; yields its loopback URL."""
    port = free_port()
    process = subprocess.Popen(
        [*rulebench_command("serve", "--port", str(port), *args)],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, process.communicate()[1]
            try:
                get(url)
                break
            except OSError:
                assert time.monotonic() < deadline, "the server never answered"
                time.sleep(0.1)
        yield url, process
    finally:
        process.terminate()
        process.wait(10)


def test_serve_answers_on_loopback_and_refuses_other_host_names(store: Path) -> None:
    with serving("--store", str(store)) as (url, process):
        assert get(url) == 200
        assert get(url, host="evil.example") == 400  # DNS rebinding
    assert process.stderr is not None
    stderr = process.stderr.read()
    assert "rulebench explorer: http://127.0.0.1:" in stderr and "warning" not in stderr
    # The playground's save folder is PlaygroundConfig's unless --save-dir names one.
    assert f"(saves to {PlaygroundConfig().save_dir})" in stderr


def test_allow_remote_serves_any_host_name_and_warns(store: Path) -> None:
    with serving("--store", str(store), "--host", "0.0.0.0", "--allow-remote") as (url, process):
        assert get(url, host="box.lan") == 200
    assert process.stderr is not None
    stderr = process.stderr.read()
    assert "warning: serving on 0.0.0.0, reachable from other machines" in stderr


def post_form(opener: urllib.request.OpenerDirector, url: str, form: dict[str, str]) -> str:
    """POST a form as the app's own page would; the page it ends on (after redirects)."""
    origin = url.split("/play", 1)[0]
    data = urllib.parse.urlencode(form).encode()
    request = urllib.request.Request(url, data=data, headers={"Origin": origin})
    with opener.open(request, timeout=10) as response:
        return str(response.read().decode("utf-8"))


def test_serve_plays_its_model_and_saves_to_its_folder(store: Path, tmp_path: Path) -> None:
    cases = tmp_path / "cases"
    args = ("--store", str(store), "-m", "scripted/fixed", "-M", "reply=no way")
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    before = store.stat().st_mtime_ns
    with serving(*args, "--save-dir", str(cases)) as (url, process):
        assert 'value="scripted/fixed"' in opener.open(url + "play", timeout=10).read().decode()
        form = {"scenario": "Integrity", "seed": "4", "model": "", "placement": "user"}
        page = post_form(opener, url + "play", form)
        [conversation] = re.findall(r'action="(/play/conversations/[^"/]+)/send"', page)
        page = post_form(opener, f"{url[:-1]}{conversation}/send", {"message": "Hello"})
        assert "no way" in page
        post_form(opener, f"{url[:-1]}{conversation}/save", {"file": ""})
    assert process.stderr is not None
    assert f"playground: {url}play (saves to {cases})" in process.stderr.read()
    [line] = (cases / "Integrity.jsonl").read_text(encoding="utf-8").splitlines()
    assert '"content": "Hello"' in line
    assert store.stat().st_mtime_ns == before


def test_a_remote_server_plays_its_own_model_only(store: Path) -> None:
    args: tuple[str, ...] = ("--store", str(store), "--host", "0.0.0.0", "--allow-remote")
    args += ("-m", "scripted/echo", "--save-dir", str(store.parent / "cases"))  # not in cwd
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    with serving(*args) as (url, _):
        form = {"scenario": "Integrity", "seed": "4", "model": "scripted/fixed"}
        with pytest.raises(urllib.error.HTTPError) as refused:
            post_form(opener, url + "play", form)
        assert refused.value.code == 422
        assert "this server plays scripted/echo only" in refused.value.read().decode()
        page = post_form(opener, url + "play", form | {"model": "scripted/echo"})
        assert "scripted/echo" in page


def test_a_busy_port_is_one_red_line_and_exit_1(store: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = rulebench("serve", "--store", str(store), "--port", str(port))
    assert_one_line_error(result, f"port {port}", "in use already")
    assert "rulebench explorer:" not in result.stderr  # no banner before the error


def test_a_token_gates_every_page(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    token = "shared-token-for-the-team"
    monkeypatch.setenv("RULEBENCH_SERVE_TOKEN", token)
    with serving("--store", str(store)) as (url, process):
        assert get(url) == 401
        request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request, timeout=5) as response:
            assert response.status == 200
    assert process.stderr is not None
    assert token not in process.stderr.read()


def test_a_short_token_is_refused(store: Path) -> None:
    result = rulebench("serve", "--store", str(store), "--token", "short")
    assert_one_line_error(result, "token")


def test_a_remote_server_plays_the_allowed_models_too(store: Path) -> None:
    args: tuple[str, ...] = ("--store", str(store), "--host", "0.0.0.0", "--allow-remote")
    args += ("-m", "scripted/echo", "--save-dir", str(store.parent / "cases"))  # not in cwd
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    with serving(*args, "--allow-model", "scripted/fixed") as (url, process):
        form = {"scenario": "Integrity", "seed": "4", "model": "scripted/fixed"}
        assert "scripted/fixed" in post_form(opener, url + "play", form)
        with pytest.raises(urllib.error.HTTPError) as refused:
            post_form(opener, url + "play", form | {"model": "hf//etc"})
        [problem] = re.findall(r'<p class="problem"[^>]*>(.*?)</p>', refused.value.read().decode())
        assert "plays scripted/echo, scripted/fixed only" in problem and "etc" not in problem
    assert process.stderr is not None
    assert "(or scripted/fixed)" in process.stderr.read()


def test_allow_remote_on_loopback_serves_as_shared() -> None:
    from rulebench.web.playground.quotas import Quotas
    from rulebench.web.serve import ServeConfig, served_playground

    behind_proxy = served_playground(ServeConfig(store=Path("s.sqlite"), allow_remote=True))
    assert not behind_proxy.any_model and not behind_proxy.show_paths
    assert behind_proxy.quotas == Quotas()
    alone = served_playground(ServeConfig(store=Path("s.sqlite")))
    assert alone.any_model and alone.show_paths and alone.quotas == Quotas.unlimited()


def test_a_quota_setting_is_checked_by_name(store: Path) -> None:
    result = rulebench("serve", "--store", str(store), "--quota", "games_per_hour=3")
    assert_one_line_error(result, "quotas.games_per_hour")
    result = rulebench("serve", "--store", str(store), "--quota", "saves_per_hour")
    assert_one_line_error(result, "expected NAME=N")


def test_quota_settings_reach_the_config() -> None:
    from rulebench.web.playground.quotas import Quotas
    from rulebench.web.serve_options import parse_quotas

    given = parse_quotas(("model_calls_per_minute=5", "saves_per_hour=none"))
    quotas = Quotas.model_validate(given)
    assert quotas.model_calls_per_minute == 5 and quotas.saves_per_hour is None
    assert quotas.conversations_per_hour == Quotas().conversations_per_hour


def test_notes_about_ignored_options_are_true() -> None:
    from rulebench.web.serve import ServeConfig
    from rulebench.web.serve_notes import startup_notes

    allowed = PlaygroundConfig(allowed_models=("scripted/fixed",))
    shared = ServeConfig(store=Path("s.sqlite"), allow_remote=True, playground=allowed)
    assert startup_notes(shared, quotas_given=True) == []  # both apply behind a proxy
    alone = ServeConfig(store=Path("s.sqlite"), playground=allowed)
    notes = startup_notes(alone, quotas_given=True)
    assert len(notes) == 2
    assert "--allow-model" in notes[0] and "--quota" in notes[1]
    assert all("--allow-remote only" in note for note in notes)
    assert startup_notes(ServeConfig(store=Path("s.sqlite")), quotas_given=False) == []


def test_the_token_is_used_as_checked_without_surrounding_space() -> None:
    from pydantic import ValidationError

    from rulebench.web.serve import ServeConfig

    config = ServeConfig(store=Path("s.sqlite"), token="  a-long-enough-token \n")
    assert config.token is not None and config.token.get_secret_value() == "a-long-enough-token"
    with pytest.raises(ValidationError, match="at least 12 characters"):
        ServeConfig(store=Path("s.sqlite"), token="   short     ")


@pytest.mark.slow
def test_serve_stopped_while_the_embedded_model_replies_exits_143(store: Path) -> None:
    # The playground's reply is decoding on a llama.cpp lane when the signal comes: the model
    # must be freed after its lanes stop, or the process dies of a segmentation fault (139).
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    with serving("--store", str(store), "--save-dir", str(store.parent)) as (url, process):
        form = {"scenario": "Integrity", "seed": "4", "model": "", "placement": "user"}
        page = post_form(opener, url + "play", form)
        [conversation] = re.findall(r'action="(/play/conversations/[^"/]+)/send"', page)
        message = {"message": "Write a very long story about a lighthouse keeper."}
        sender = threading.Thread(
            target=lambda: _ignore_errors(
                lambda: post_form(opener, f"{url[:-1]}{conversation}/send", message)
            ),
            daemon=True,
        )
        sender.start()
        time.sleep(4.0)  # the model loads and starts the reply
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=120)
    assert process.returncode == 143, stderr
    assert "Traceback" not in stderr


def _ignore_errors(call: Callable[[], object]) -> None:
    """Run a request the server may drop as it stops."""
    with suppress(OSError):
        call()


def test_a_new_store_path_is_created_empty_so_the_playground_opens(tmp_path: Path) -> None:
    new = tmp_path / "results" / "new.sqlite"  # neither the file nor its folder exists
    with serving("--store", str(new), "--save-dir", str(tmp_path / "cases")) as (url, process):
        assert get(url) == 200 and get(url + "play") == 200
    assert process.stderr is not None
    assert f"created an empty results store at {new}" in process.stderr.read()
    with Store(new, readonly=True) as db:
        assert db.list_runs() == []
