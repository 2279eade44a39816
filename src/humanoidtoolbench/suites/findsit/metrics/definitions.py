"""The constants of the paper metrics' definitions: thresholds, find-rule words, body groups, token sources.

A module of their own because both the scoring (`scoring`) and the records
it writes (`schema`, whose rows state two of the thresholds) need them.
"""

from __future__ import annotations

# Every number of the definitions, in one place.
FIND_PIXEL_THRESHOLD = 100  # target pixels in the 448 x 448 segmentation for objective visibility
NAV_RADIUS_M = 0.2  # NavSR@20cm and GeoNavSR@20cm: distance <= this
NAV_RELAXED_RADIUS_M = 1.0  # NavSR@1m: distance < this
FIXED_CONTACT_MIN_HEIGHT_M = 0.0205  # a fixed contact counts when its height above the floor exceeds this
FLOOR_SELECT_MARGIN_M = 0.05  # the floor is the highest ray hit at most this far above the robot's lowest point
INITIAL_PENETRATION_M = 0.01  # reset penetration deeper than this is flagged (diagnostic only)
FRAME_RATE_HZ = 30.0  # motion frames per second
JERK_STRIDE = 8  # frames between the samples of the third difference
JERK_WINDOW = 3  # centred moving average before differencing
INTERACT_CATEGORIES = frozenset({"bed", "couch", "toilet"})

# The subjective find rule: a sentence of visible_state acknowledges the target
# when it mentions "target" or a word of its category and has none of these
# negations. Reproduced as published, misses included ("doesn't", "nothing",
# a curly apostrophe), and substrings count ("bedside" mentions a bed).
CATEGORY_WORDS = {
    "couch": ("couch", "sofa", "loveseat", "sectional"),
    "bed": ("bed", "mattress"),
    "toilet": ("toilet", "commode"),
    "chair": ("chair", "armchair", "stool", "seat"),
    "tv": ("tv", "television", "screen", "monitor"),
    "potted_plant": ("potted plant", "plant", "flower pot", "flowerpot"),
}
NEGATIONS = ("no", "not", "cannot", "can't", "don't", "isn't", "aren't", "n't", "without", "unable", "none")

# G1 link -> collision body group, first match wins; any other link is torso
# (pelvis, torso_link, waist_*). The G1's head is a mesh on torso_link, so a
# head contact is a torso_link contact above the top of the torso mesh (0.300 m
# in the torso_link frame; the head mesh spans 0.271-0.477 m there). The robot
# variants of this package drop the head mesh from collision (it duplicates the
# torso hull), so with them the head score is 0 by construction.
BODY_GROUPS = (
    ("hand_arm", ("*_shoulder_*_link", "*_elbow_link", "*_wrist_*_link", "*_hand_*")),
    ("leg", ("*_hip_*_link", "*_knee_link", "*_ankle_*_link")),
)
GROUPS = ("hand_arm", "torso", "leg", "head")
HEAD_LINK = "torso_link"
HEAD_MIN_Z_IN_LINK_M = 0.300
PELVIS = "pelvis"

TOKEN_SOURCES = ("provider_exact", "estimated_chars_div_4", "mixed_exact_and_estimated", "unavailable_no_calls")
PROVIDER_EXACT, ESTIMATED, MIXED, NO_CALLS = TOKEN_SOURCES
