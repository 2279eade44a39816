"""Robot variants: the derived models built side by side from the same verified sources.

Each row is one recipe. `assisted` is the model the assisted controller
drives (gravity compensation on every body, no leg or foot contacts, no
self-collision): its files are unchanged from before variants existed.
`free` is the physical robot for balancing controllers and Fiatlux: the
floating base stays, feet and legs touch the world, hands touch the body,
and nothing cancels gravity. `balanced` is the free robot with stiff leg
servos: the balanced controller tracks a kinematic plan with them, where
the research gains (40 N m/rad at the ankles) leave the standing pendulum
unstable. A controller names the variant it drives.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import collision


@dataclass(frozen=True)
class Variant:
    name: str
    files: dict  # visual detail -> derived model file
    gravity_compensation: bool  # cancel every body's weight through the actuators
    leg_contacts: bool  # legs and feet keep their collision geometry
    partners: dict  # collision category -> categories it touches (robot side)
    leg_servo: tuple[float, float] | None = None  # (kp, kd) of all twelve leg servos; None keeps the joint table's
    sole_corners: tuple[float, float, float] | None = None  # foot spheres at (heel x, toe x, ±y) in the ankle frame


VARIANTS: dict[str, Variant] = {
    "assisted": Variant(
        name="assisted",
        files={"fast": "g1_htb.xml", "full": "g1_htb_full.xml"},
        gravity_compensation=True,
        leg_contacts=False,
        partners=collision.PARTNERS,
    ),
    "free": Variant(
        name="free",
        files={"fast": "g1_free.xml", "full": "g1_free_full.xml"},
        gravity_compensation=False,
        leg_contacts=True,
        partners=collision.FREE_PARTNERS,
    ),
    "balanced": Variant(
        name="balanced",
        files={"fast": "g1_balanced.xml", "full": "g1_balanced_full.xml"},
        gravity_compensation=False,
        leg_contacts=True,
        partners=collision.FREE_PARTNERS,
        leg_servo=(600.0, 40.0),
        sole_corners=(-0.06, 0.135, 0.033),
    ),
}
DEFAULT_VARIANT = "assisted"
