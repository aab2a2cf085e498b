"""Freeing the process's local models in order, before the interpreter tears itself down.

When a command ends (a stop signal cancels the run, not the native call), a llama.cpp lane or
a torch worker may still be decoding on its own thread. Left to the interpreter's teardown, the
model's memory is freed while that thread reads it: a segmentation fault, exit 139 where 143 or
130 is promised. Each backend's free function ends its decode loop at the next step, joins its
threads, then frees their contexts and the model. This calls those of the backends the process
has loaded, and imports none that it has not.
"""

import sys

_FREE_FUNCTIONS = {
    "rulebench.models.llamacpp.engine": "free_llama_cache",
    "rulebench.models.hf.backend": "free_hf_cache",
}
"""Backend module -> the function that stops its threads and frees its shared models."""


def release_local_models() -> None:
    """Stop and free every shared local model this process loaded (none loaded: nothing)."""
    for module_name, function_name in _FREE_FUNCTIONS.items():
        module = sys.modules.get(module_name)
        if module is not None:
            getattr(module, function_name)()
