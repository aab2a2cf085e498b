"""The playground's model pool: allowed specs only when remote, least recently used evicted."""

import asyncio
from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError
from rulebench.core.messages import GenerateConfig, Message
from rulebench.models.base import BackendOptions, Model
from rulebench.models.registry import create_model
from rulebench.web.playground import model_pool
from rulebench.web.playground.model_pool import ModelPool

ASK = [Message(role="user", content="hello")]
CONFIG = GenerateConfig(max_tokens=16)


def test_a_remote_pool_refuses_a_spec_outside_its_list_before_looking_at_it(
    tmp_path: Path,
) -> None:
    pool = ModelPool("scripted/echo", BackendOptions(), any_model=False, allowed=["scripted/fixed"])
    for spec in ("hf//etc", f"gguf/{tmp_path}/missing.gguf", "scripted/rules"):
        with pytest.raises(ConfigError) as refused:
            asyncio.run(pool.get(spec))
        message = str(refused.value)
        assert "plays scripted/echo, scripted/fixed only" in message
        assert "/etc" not in message and str(tmp_path) not in message  # nothing looked up
    assert pool.loaded_specs() == []


def test_allowed_specs_play(tmp_path: Path) -> None:
    async def play() -> str:
        pool = ModelPool("scripted/echo", BackendOptions(), False, ["scripted/fixed"])
        model = await pool.get("scripted/fixed")
        reply = await model.generate(ASK, CONFIG)
        await pool.aclose()
        return reply.text

    assert isinstance(asyncio.run(play()), str)


def test_past_the_cap_the_least_recently_used_model_is_closed_and_comes_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(model_pool, "MAX_MODELS", 2)

    async def play() -> None:
        pool = ModelPool("scripted/echo", BackendOptions(), any_model=True)
        echo = await pool.get("scripted/echo")
        fixed = await pool.get("scripted/fixed")
        await echo.generate(ASK, CONFIG)  # echo is now used more recently than fixed
        await pool.get("scripted/echo")  # the same spec: no load
        assert pool.loaded_specs() == ["scripted/echo", "scripted/fixed"]
        await pool.get("scripted/rules")  # a third spec evicts fixed, the idle one used last
        assert sorted(pool.loaded_specs()) == ["scripted/echo", "scripted/rules"]
        reply = await fixed.generate(ASK, CONFIG)  # a conversation holding it still plays
        assert reply.text  # the fixed model's reply
        assert "scripted/fixed" in pool.loaded_specs() and len(pool.loaded_specs()) == 2
        await pool.aclose()

    asyncio.run(play())


def test_a_busy_model_is_not_evicted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_pool, "MAX_MODELS", 1)

    async def play() -> None:
        pool = ModelPool("scripted/echo", BackendOptions(), any_model=True)
        busy = await pool.acquire("scripted/echo")  # a reply in flight
        with pytest.raises(ConfigError, match="answering already"):
            await pool.get("scripted/fixed")
        pool.release(busy)
        await pool.get("scripted/fixed")
        assert pool.loaded_specs() == ["scripted/fixed"]
        await pool.aclose()

    asyncio.run(play())


def test_a_remote_form_offers_the_allowed_models(tmp_path: Path) -> None:
    from rulebench.web.app import create_app
    from rulebench.web.playground.config import PlaygroundConfig

    from tests.web.explorer_store import synthetic_run
    from tests.web.playground_app import player

    synthetic_run(tmp_path / "s.sqlite", 1)
    config = PlaygroundConfig(
        save_dir=tmp_path / "cases",
        model="scripted/echo",
        any_model=False,
        allowed_models=("scripted/fixed",),
    )
    with player(create_app(tmp_path / "s.sqlite", playground=config)) as client:
        for path in ("/play", "/play/saved"):
            page = client.get(path).text
            assert 'list="allowed-models"' in page
            assert '<option value="scripted/echo"><option value="scripted/fixed">' in page


def counting_loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The specs the pool builds, in order (the real models are built)."""
    built: list[str] = []
    create = create_model

    def counted(spec: str, options: BackendOptions) -> Model:
        built.append(spec)
        return create(spec, options)

    monkeypatch.setattr(model_pool, "create_model", counted)
    return built


def test_two_visitors_asking_for_one_new_spec_at_once_load_it_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built = counting_loads(monkeypatch)

    async def play() -> None:
        pool = ModelPool("scripted/echo", BackendOptions(), any_model=True)
        first, second = await asyncio.gather(pool.get("scripted/fixed"), pool.get("scripted/fixed"))
        assert first.info == second.info and pool.loaded_specs() == ["scripted/fixed"]
        await pool.aclose()

    asyncio.run(play())
    assert built == ["scripted/fixed"]


def test_specs_loading_at_once_never_pass_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_pool, "MAX_MODELS", 1)
    built = counting_loads(monkeypatch)

    async def play() -> None:
        pool = ModelPool("scripted/echo", BackendOptions(), any_model=True)
        results = await asyncio.gather(
            pool.get("scripted/echo"), pool.get("scripted/fixed"), return_exceptions=True
        )
        refused = [r for r in results if isinstance(r, ConfigError)]
        assert len(refused) == 1 and "try again in a moment" in str(refused[0])
        assert len(pool.loaded_specs()) == 1
        await pool.aclose()

    asyncio.run(play())
    assert len(built) == 1
