"""RuleBench extraction reads the answer, never the thinking, however a server sends it.

The thinking of a reasoning model tries wrong answers before it settles; the extracted answer
must be the final one, in paper and robust modes, whether the thinking arrives as think tags
in the content or as `reasoning_content` (issue 33).
"""

from pathlib import Path
from typing import Any

import pytest

from rulebench.core.items import Item
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.inferential.analysis import to_records
from rulebench.inferential.task import InferentialTask
from rulebench.models.base import BackendOptions
from rulebench.models.registry import create_model
from rulebench.testing.mock_replies import ThinkingStyle
from rulebench.testing.mock_server import MockOpenAIServer, MockServerConfig


def _wrong(target: str) -> str:
    return "uncle" if target != "uncle" else "aunt"


def _replier(items: list[Item]) -> Any:
    targets = {item.messages[-1].content: str(item.target) for item in items}

    def reply(body: dict[str, Any]) -> str:
        target = targets[body["messages"][-1]["content"]]
        wrong = _wrong(target)
        return f"<think>Maybe the answer is {wrong}. Answer: {wrong}</think> {target}"

    return reply


@pytest.mark.parametrize("style", ["tags", "preopened", "reasoning_content", "reasoning"])
async def test_the_extracted_answer_is_the_final_one_not_the_thinking(
    tmp_path: Path, style: ThinkingStyle
) -> None:
    task = InferentialTask(tasks=["kinship"], per_group=3, seed=1)
    items = task.items()
    name = "openai-api/mock/thinker"
    config = MockServerConfig(thinking=style)
    async with MockOpenAIServer(config, reply_fn=_replier(items)) as server:
        model = create_model(name, BackendOptions(base_url=server.url))
        spec = RunSpec(task="inferential", model=name, task_config=task.config())
        with Store(tmp_path / "s.sqlite") as store:
            report = await Runner(store).run(task, model, spec)
            results = list(store.iter_results(report.run.id))
        await model.aclose()
    assert len(results) == len(items) > 0
    for mode in ("paper", "robust"):
        assert all(record.correct for record in to_records(results, mode)), mode
    for result in results:
        assert result.reply is not None and "Answer" not in result.reply
        assert result.reasoning is not None and "Maybe the answer is" in result.reasoning
