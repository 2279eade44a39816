"""Fiatlux: a G1 places a ladder, climbs it and swaps a light bulb, as twelve subtasks scored on gates."""

from .suite import SUITE

__all__ = ["SUITE"]
