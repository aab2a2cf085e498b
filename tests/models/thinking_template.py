"""A Qwen3-style chat template that reads `enable_thinking`, for the local backends' tests.

Thinking off pre-fills an empty think block in the generation prompt (as Qwen3's template does);
thinking on opens one, so the reply starts as thinking (as DeepSeek-R1's does); unset, the
generation prompt is the bare assistant header.
"""

from collections.abc import Sequence
from pathlib import Path

from rulebench.core.messages import Completion

THINKING_TEMPLATE = (
    "{%- for m in messages -%}"
    "{{ '<|im_start|>' + m.role + '\\n' + m.content + '<|im_end|>\\n' }}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}"
    "{{ '<|im_start|>assistant\\n' }}"
    "{%- if enable_thinking is defined and not enable_thinking -%}"
    "{{ '<think>\\n\\n</think>\\n\\n' }}"
    "{%- elif enable_thinking is defined -%}"
    "{{ '<think>\\n' }}"
    "{%- endif -%}"
    "{%- endif -%}"
)
HEADER = "<|im_start|>assistant\n"
"""Where every rendering's generation prompt starts."""
OFF_TAIL = "<think>\n\n</think>\n\n"
ON_TAIL = "<think>\n"


def write_thinking_template(folder: Path) -> Path:
    """The template as a `-M chat_template=` file in `folder`."""
    path = folder / "thinking.jinja"
    path.write_text(THINKING_TEMPLATE, encoding="utf-8")
    return path


def check_switched_replies(
    prompts: Sequence[str], replies: Sequence[Completion], raw_on: str, raw_off: str
) -> None:
    """What a local backend did with the switch unset, on and off, on the embedded model.

    The prompts end in the template's tails, the tails are tokens the model read, and the
    raw text of each reply is split as the switch left it, whatever the model wrote.
    """
    unset, on, off = replies
    assert prompts[1] == prompts[0] + ON_TAIL and prompts[2] == prompts[0] + OFF_TAIL
    # The tails are real tokens the model read: the longer the prompt, the more of them.
    assert unset.usage.prompt_tokens < on.usage.prompt_tokens < off.usage.prompt_tokens
    end = "</think>"
    if end in raw_on:  # the model closed its thinking: what follows is the answer
        thought, answer = raw_on.split(end, 1)
        assert (on.reasoning, on.text) == (thought.strip(), answer.strip())
    else:  # it never did: all of it is thinking, and no answer
        assert (on.reasoning, on.text, on.is_reasoning_unfinished) == (raw_on.strip(), "", True)
    if end not in raw_off and "<think>" not in raw_off:
        assert (off.text, off.reasoning) == (raw_off, "")
    assert on.usage.completion_tokens > 0 and off.usage.completion_tokens > 0
