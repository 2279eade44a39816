"""What `htb-gallery findsit` shoots: every variant of each target category and of the tables, one of each
other furniture and clutter kind, as the first apartments build them, and the policy's first image of four
val100 episodes (rooms, floors, doors, rugs and lights)."""

from __future__ import annotations

import dataclasses

from ...sim.look import Wardrobe
from ..base import Gallery, Subject
from .apartments import TARGET_CATEGORIES, build_apartment
from .furnishings import VARIANT_NAMES, VARIANTS, Choice, dress_piece
from .kit import FABRICS, WOODS, Kit
from .scene import add_piece

APARTMENTS = range(8)  # searched in order for the first piece of each category
EPISODES = (0, 1, 2, 3)  # val100 seeds


def _choice(variant: int) -> Choice:
    return Choice(variant, WOODS[variant % len(WOODS)], FABRICS[variant % len(FABRICS)], FABRICS[(variant + 3) % len(FABRICS)],
                  seed=variant)


def _subject(label: str, pieces, variant: int) -> Subject:
    """The pieces (a TV and its stand) placed at the origin, the last on top of the one before."""
    placed, z = [], 0.0
    for piece in pieces:
        hz = piece.half_extents[2]
        placed.append(dataclasses.replace(piece, centre=(0.0, 0.0, z + hz), yaw=0.0, name=f"gallery_{piece.name}"))
        z += 2 * hz
    hx, hy, _ = pieces[0].half_extents

    def build(spec, look):
        wardrobe = Wardrobe(spec, look) if look.dressed else None
        for piece in placed:
            body = add_piece(spec, piece)
            if wardrobe is not None:
                dress_piece(spec, body, piece, Kit(spec, body, wardrobe, f"look/{piece.name}"), _choice(variant))
        return (0.0, 0.0, z / 2)

    return Subject(label, build, distance=1.3 * max(hx, hy, z / 2) * 2 + 0.5, elevation=-22.0, azimuth=210.0)


def gallery() -> Gallery:
    from .suite import CONDITIONS

    seen: dict[str, list] = {}
    for index in APARTMENTS:
        apartment = build_apartment(index)
        by_name = {p.name: p for p in apartment.furniture}
        for piece in apartment.furniture:
            support = by_name.get(piece.support) if piece.category == "tv" else None
            if piece.category == "tv" and support is None:
                continue  # show the TV on its stand
            seen.setdefault(piece.category, [support, piece] if support else [piece])
    subjects = []
    for category in TARGET_CATEGORIES + tuple(c for c in VARIANTS if c not in TARGET_CATEGORIES):
        for v, name in enumerate(VARIANT_NAMES[category]):
            subjects.append(_subject(f"{category.replace('_', ' ')}, {name}", seen[category], v))
    subjects += [_subject(c.replace("_", " "), seen[c], 0) for c in sorted(seen) if c not in VARIANTS and c != "tv_stand"]
    return Gallery(tuple(subjects), tuple((CONDITIONS[0], seed) for seed in EPISODES))
