"""HumanoidToolBench: reproducible evaluation of humanoid tool-use policies on a simulated Unitree G1."""

from . import _gl

_gl.configure()

__version__ = "0.1.0"


from .suites import register_gymnasium_envs  # noqa: E402

register_gymnasium_envs()
