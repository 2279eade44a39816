"""The tool-use suite: BallMove, BallRetrieve and IceBreak at levels L0-L2, modes S and R."""

from .suite import SUITE

__all__ = ["SUITE"]
