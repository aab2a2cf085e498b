"""`ServeOptions` to `ServeConfig`, and what a starting server says (no server started)."""

from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError
from rulebench.engine.store.location import STORE_ENV_VAR
from rulebench.models.registry import DEFAULT_MODEL
from rulebench.web.playground.config import PlaygroundConfig
from rulebench.web.playground.quotas import Quotas
from rulebench.web.serve import ServeConfig
from rulebench.web.serve_notes import created_store_note, listening_line, remote_warning
from rulebench.web.serve_options import ServeOptions, parse_quotas, serve_config


def test_nothing_given_is_the_configs_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(STORE_ENV_VAR, str(tmp_path / "env.sqlite"))
    config = serve_config(ServeOptions())
    assert config.stores == (tmp_path / "env.sqlite",)
    assert (config.host, config.port) == (ServeConfig(store=Path("s")).host, 8765)
    assert config.quotas == Quotas() and config.token is None
    assert config.playground == PlaygroundConfig()
    assert config.playground.model == DEFAULT_MODEL


def test_the_options_given_fill_the_config() -> None:
    given = ServeOptions(
        stores=(Path("a.sqlite"), Path("b.sqlite"), Path("c")),
        port=9000,
        allow_remote=True,
        token="  twelve-characters  ",
        quotas=("saves_per_hour=none", "model_calls_per_minute=3"),
        model="scripted/echo",
        model_args={"reply": "hi"},
        save_dir=Path("cases"),
        allowed_models=("scripted/fixed",),
    )
    config = serve_config(given)
    assert config.store == Path("a.sqlite") and config.more_stores == (Path("b.sqlite"), Path("c"))
    assert config.port == 9000 and config.allow_remote
    assert config.token is not None and config.token.get_secret_value() == "twelve-characters"
    assert config.quotas.saves_per_hour is None and config.quotas.model_calls_per_minute == 3
    playground = config.playground
    assert (playground.model, playground.model_args) == ("scripted/echo", {"reply": "hi"})
    assert playground.save_dir == Path("cases")
    assert playground.allowed_models == ("scripted/fixed",)


@pytest.mark.parametrize(
    ("given", "problem"),
    [
        (ServeOptions(model=""), "empty"),
        (ServeOptions(quotas=("games_per_hour=3",)), "quotas.games_per_hour"),
        (ServeOptions(quotas=("=3",)), "expected NAME=N"),
        (ServeOptions(port=0), "port"),
        (ServeOptions(token="short"), "at least 12 characters"),
    ],
)
def test_a_bad_option_is_one_config_error_naming_it(given: ServeOptions, problem: str) -> None:
    with pytest.raises(ConfigError, match=problem):
        serve_config(given.model_copy(update={"stores": (Path("s.sqlite"),)}))


def test_quota_settings_keep_their_values_and_none_means_no_limit() -> None:
    assert parse_quotas(()) is None
    assert parse_quotas((" saves_per_hour = None ", "model_calls_per_minute=7")) == {
        "saves_per_hour": None,
        "model_calls_per_minute": "7",
    }


def test_a_loopback_server_warns_no_one_and_says_where_it_listens() -> None:
    config = ServeConfig(store=Path("a.sqlite"), more_stores=(Path("b.sqlite"),))
    assert remote_warning(config) is None
    line = listening_line(config)
    assert "http://127.0.0.1:8765/ (stores a.sqlite, b.sqlite)" in line
    assert f"(saves to {config.playground.save_dir})" in line
    assert "(store a.sqlite)" in listening_line(ServeConfig(store=Path("a.sqlite")))


def test_an_ipv6_host_is_bracketed_in_the_urls() -> None:
    line = listening_line(ServeConfig(store=Path("a.sqlite"), host="::1"))
    assert "http://[::1]:8765/play" in line


def test_a_remote_server_warns_what_others_read_and_play() -> None:
    playground = PlaygroundConfig(model="scripted/echo", allowed_models=("scripted/fixed",))
    config = ServeConfig(
        store=Path("a.sqlite"), host="0.0.0.0", allow_remote=True, playground=playground
    )
    warning = remote_warning(config)
    assert warning is not None and "anyone who reaches port 8765" in warning
    assert "plays scripted/echo (or scripted/fixed)" in warning and "(no login)" in warning
    with_token = config.model_copy(update={"token": "x" * 12})
    assert "anyone with the token" in (remote_warning(with_token) or "")
    assert "(a shared token, no login)" in (remote_warning(with_token) or "")


def test_the_created_store_note_names_the_store() -> None:
    note = created_store_note(ServeConfig(store=Path("new/s.sqlite")))
    assert "new/s.sqlite" in note and "--store new/s.sqlite" in note
