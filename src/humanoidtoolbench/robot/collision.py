"""Collision categories shared by the robot model and the scenes built around it.

Each geom gets `contype` = its category bit and `conaffinity` = the bits of
the categories it touches. Two geoms collide when either lists the other, so
`PARTNERS` is the whole contact matrix of the assisted robot: no robot
self-collision, no leg or foot contacts (the assisted base carries the
robot), the torso and upper arms are stopped by the bench, and only forearms
and hands touch objects. The free robot (`FREE_PARTNERS`) also stands on its
feet, kicks objects with its legs, and its hands collide with its body.
Scenery keeps `PARTNERS`: a pair collides when either side lists the other.
"""

from __future__ import annotations

WORLD = 1  # floor, bench and other static scenery
OBJECT = 2  # tools, balls, ice, household objects
BODY = 4  # pelvis, torso, upper arms
HAND = 8  # forearms, wrists, palms and fingers
LEG = 16  # hips, knees, ankles and the foot contact spheres

PARTNERS = {
    WORLD: OBJECT | BODY | HAND,
    OBJECT: WORLD | OBJECT | HAND,
    BODY: WORLD,
    HAND: WORLD | OBJECT,
}

FREE_PARTNERS = {
    **PARTNERS,
    BODY: WORLD | HAND,
    HAND: WORLD | OBJECT | BODY,
    LEG: WORLD | OBJECT,
}


def assign(geom, category: int, partners: dict = PARTNERS) -> None:
    """Put an MjsGeom in a category (0 disables all contacts)."""
    geom.contype = category
    geom.conaffinity = partners.get(category, 0)


def set_contact(geom, params: dict) -> None:
    """Give an MjsGeom the contact parameters of a table (friction, condim, priority, solref, solimp...)."""
    for key, value in params.items():
        setattr(geom, key, list(value) if isinstance(value, tuple) else value)
