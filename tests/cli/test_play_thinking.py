"""`rulebench play` folds a reasoning model's thinking to one line above the answer, prints it
whole on /thinking, and judges the answer only."""

from typer.testing import CliRunner

from rulebench.cli.app import app

runner = CliRunner()


def _play(typed: str, *options: str) -> str:
    """The session's output on one line (the console wraps at its width)."""
    args = ["play", "Encryption", "-m", "scripted/fixed", "-M", "reply=nope", "--seed", "3"]
    result = runner.invoke(app, [*args, *options], input=typed)
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def _folded(output: str) -> str:
    """The folded thinking line: from its label to the answer."""
    return output.split("model thinking", 1)[1].split("model>", 1)[0]


def test_thinking_is_one_line_above_the_answer_and_shown_whole_on_request() -> None:
    thinking = "weighing it up " + "at length " * 20 + "end of thought"
    output = _play("Hello\n/thinking\n/quit\n", "-M", f"thinking={thinking}")
    folded = _folded(output)  # above the answer
    assert "/thinking shows it" in folded and folded.strip().endswith("…")
    assert "end of thought" not in folded
    assert "model> nope verdict: pass" in output
    assert f"you> {' '.join(thinking.split())} you>" in output  # /thinking printed it whole


def test_a_thinking_that_never_closes_is_labelled_and_leaves_no_answer() -> None:
    output = _play("Hello\n/quit\n", "-M", "thinking=on and on and on", "--max-tokens", "3")
    assert "cut short by the reply limit, so no answer" in _folded(output)
    assert "model> verdict: pass" in output  # no answer, so no rule broken


def test_the_terminal_never_gets_control_sequences_from_the_thinking() -> None:
    output = _play("Hello\n/thinking\n/quit\n", "-M", "thinking=a \x1b[2J b")
    assert "\x1b[2J" not in output and "model thinking" in output
