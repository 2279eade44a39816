"""Find, navigate, sit: a planner-driven humanoid in procedural apartments, scored by the paper metrics."""
from .suite import SUITE

__all__ = ["SUITE"]
