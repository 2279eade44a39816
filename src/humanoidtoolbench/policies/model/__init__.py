"""Native model checkpoints as policies: `htb-eval --model` and `htb-serve --model`.

Resolution (`resolve`, `hub`), the run configuration (`runconfig`) and the
family table (`families`) import no model library, so a dry run, a bad path
or a broken configuration is answered without torch. The networks (`act`,
`dp`), the text encoder (`text`), LeRobot policies (`lerobot`) and the
policy wrapper (`policy`) import torch when a model is loaded.
"""

from __future__ import annotations

import importlib

from ..errors import PolicyLoadError

EXTRA_HINT = 'pip install "humanoidtoolbench[model]"'
# What a model policy adds to its info, in process or reported by `htb-serve --model`'s /info.
MODEL_KEYS = ("model", "weights_sha256", "config_sha256", "chunk_size")


class ModelError(PolicyLoadError):
    """A model that cannot be resolved or loaded; the message is one line."""


def require(module: str):
    """Import a library of the `model` extra, or say in one line which command installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ModelError(f"--model needs {module.split('.')[0]} ({exc.name or module} is not installed): {EXTRA_HINT}") from None
