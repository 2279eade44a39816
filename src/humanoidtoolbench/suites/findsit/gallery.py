"""What `htb-gallery findsit` shoots: one piece of each furniture category, as the first apartments
build it, and the policy's first image of three val100 episodes."""

from __future__ import annotations

import dataclasses

from ..base import Gallery, Subject
from .apartments import build_apartment
from .scene import add_piece

APARTMENTS = range(6)  # searched in order for the first piece of each category
EPISODES = (0, 1, 2)  # val100 seeds


def _piece(piece) -> Subject:
    hx, hy, hz = piece.half_extents
    placed = dataclasses.replace(piece, centre=(0.0, 0.0, hz), yaw=0.0, name=f"gallery_{piece.name}")

    def build(spec, look):
        add_piece(spec, placed)
        return (0.0, 0.0, hz)

    return Subject(piece.category.replace("_", " "), build, distance=1.4 * max(hx, hy, hz) * 2 + 0.4, elevation=-25.0,
                   azimuth=200.0)


def gallery() -> Gallery:
    from .suite import CONDITIONS

    seen: dict[str, object] = {}
    for index in APARTMENTS:
        for piece in build_apartment(index).furniture:
            seen.setdefault(piece.category, piece)
    subjects = tuple(_piece(p) for _, p in sorted(seen.items()))
    return Gallery(subjects, tuple((CONDITIONS[0], seed) for seed in EPISODES))
