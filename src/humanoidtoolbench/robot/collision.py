"""Collision categories shared by the robot model and the scenes built around it.

Each geom gets `contype` = its category bit and `conaffinity` = the bits of
the categories it touches. Two geoms collide when either lists the other, so
the table below is the whole contact matrix: no robot self-collision, no leg
or foot contacts (the assisted base carries the robot), the torso and upper
arms are stopped by the bench, and only forearms and hands touch objects.
"""

from __future__ import annotations

WORLD = 1  # floor, bench and other static scenery
OBJECT = 2  # tools, balls, ice, household objects
BODY = 4  # pelvis, torso, upper arms
HAND = 8  # forearms, wrists, palms and fingers

PARTNERS = {
    WORLD: OBJECT | BODY | HAND,
    OBJECT: WORLD | OBJECT | HAND,
    BODY: WORLD,
    HAND: WORLD | OBJECT,
}


def assign(geom, category: int) -> None:
    """Put an MjsGeom in a category (0 disables all contacts)."""
    geom.contype = category
    geom.conaffinity = PARTNERS.get(category, 0)
