"""A Qwen3-style chat template that reads `enable_thinking`, for the local backends' tests.

Thinking off pre-fills an empty think block in the generation prompt (as Qwen3's template does);
thinking on opens one, so the reply starts as thinking (as DeepSeek-R1's does); unset, the
generation prompt is the bare assistant header.
"""

from pathlib import Path

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
