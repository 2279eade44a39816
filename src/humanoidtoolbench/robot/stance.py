"""The home stance as the walking controllers take it: which joints they set directly, and the pelvis height.

A walking controller (assisted, balanced) poses the legs itself and takes
targets for the other 31 joints, the upper body, in the order below (hands,
arms, waist roll/pitch/yaw; decoupled_v1 lays out its joint slots the same
way). A robot is placed with its pelvis at HOME_PELVIS_HEIGHT over the home
stance.
"""

from __future__ import annotations

from .joints import ARM_JOINTS, HAND_JOINTS

UPPER_BODY: tuple[str, ...] = (
    HAND_JOINTS["left"] + HAND_JOINTS["right"] + ARM_JOINTS["left"] + ARM_JOINTS["right"]
    + ("waist_roll_joint", "waist_pitch_joint", "waist_yaw_joint")
)
HOME_PELVIS_HEIGHT = 0.74  # m
