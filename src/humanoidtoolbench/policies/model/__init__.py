"""Native model checkpoints as policies: `htb-eval --model` and `htb-serve --model`.

Resolution (`resolve`, `hub`), the run configuration (`runconfig`) and the
family table (`families`) import no model library, so a dry run, a bad path
or a broken configuration is answered without torch. The networks (`act`,
`dp`), the text encoder (`text`), LeRobot policies (`lerobot`) and the
policy wrapper (`policy`) import torch when a model is loaded.
"""

from __future__ import annotations

import importlib
import sys

from ..errors import PolicyLoadError

EXTRA_HINT = 'pip install "humanoidtoolbench[model]"'
# What a model policy adds to its info, in process or reported by `htb-serve --model`'s /info.
MODEL_KEYS = ("model", "weights_sha256", "config_sha256", "chunk_size")


def keep_triton_out() -> None:
    """Make `import triton` fail in this process unless it already happened.

    Mesa's software renderer and Triton each carry their own LLVM, and
    importing Triton into a process that has rendered through Mesa's EGL
    crashes it (torchvision, transformers and LeRobot import it when it is
    installed). Inference here never compiles kernels, so torch runs without
    it; a policy that wants Triton imports it before the first render.
    """
    sys.modules.setdefault("triton", None)


keep_triton_out()


class ModelError(PolicyLoadError):
    """A model that cannot be resolved or loaded; the message is one line."""


def require(module: str):
    """Import a library of the `model` extra, or say in one line which command installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ModelError(f"--model needs {module.split('.')[0]} ({exc.name or module} is not installed): {EXTRA_HINT}") from None
