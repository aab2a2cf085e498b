"""`engine.interrupts`: the first signal stops the work cleanly, a second at once."""

import asyncio
import signal

import pytest

from rulebench.core.stop import stop_requested, watching_stop
from rulebench.engine.interrupts import Interrupts, command_again, stopped_line


def test_the_first_signal_cancels_the_async_task_it_runs() -> None:
    async def work() -> str:
        signal.raise_signal(signal.SIGTERM)
        await asyncio.sleep(5)
        return "finished"

    with Interrupts() as interrupts, pytest.raises(asyncio.CancelledError):
        asyncio.run(interrupts.run(work()))
    assert interrupts.signal_name == "SIGTERM" and interrupts.count == 1
    assert interrupts.exit_code == 143 and interrupts.how == "Terminated (SIGTERM)"


def test_a_watching_step_loop_is_asked_to_stop_and_a_second_signal_interrupts() -> None:
    with Interrupts() as interrupts, watching_stop():
        signal.raise_signal(signal.SIGINT)  # no task: the watching loop is asked instead
        assert stop_requested()
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)
    assert interrupts.count == 2 and interrupts.exit_code == 130


def test_the_handlers_before_are_back_afterwards() -> None:
    before = signal.getsignal(signal.SIGINT)
    with Interrupts():
        assert signal.getsignal(signal.SIGINT) is not before
    assert signal.getsignal(signal.SIGINT) is before


def test_the_stopped_line_says_how_what_is_kept_and_how_to_go_on() -> None:
    interrupts = Interrupts()
    assert stopped_line(interrupts, "Kept.", None) == "Interrupted. Kept."
    interrupts.count, interrupts.signal_name = 2, "SIGTERM"
    assert stopped_line(interrupts, "Kept.", "rulebench x") == (
        "Terminated (SIGTERM) twice: Kept. Resume with: rulebench x"
    )


def test_the_command_again_adds_its_flag_once_and_quotes_words() -> None:
    assert command_again(["run", "smoke", "-m", "a b"], "--resume") == (
        "rulebench run smoke -m 'a b' --resume"
    )
    assert command_again(["run", "--resume"], "--resume") == "rulebench run --resume"
    assert (
        command_again(["--base-url=http://u:pw@h/v1"]) == "rulebench '--base-url=http://***@h/v1'"
    )
