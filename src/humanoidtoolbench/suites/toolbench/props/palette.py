"""Colours (RGBA) and surface finishes shared by the procedural props.

Finishes are MuJoCo material parameters; reflectance stays 0 because the
renderer's reflections cost more than they show at the head camera's range.
"""

from __future__ import annotations

RGBA = tuple[float, float, float, float]

FINISHES = {
    "matte": dict(specular=0.05, shininess=0.1),
    "satin": dict(specular=0.25, shininess=0.35),
    "glossy": dict(specular=0.55, shininess=0.75),
    "metal": dict(specular=0.9, shininess=0.9),
    "glow": dict(specular=0.0, shininess=0.0, emission=0.9),  # candle flames
}

# Woods and painted handles.
BIRCH = (0.82, 0.68, 0.47, 1.0)
OAK = (0.66, 0.49, 0.30, 1.0)
WALNUT = (0.40, 0.26, 0.16, 1.0)
BAMBOO = (0.85, 0.76, 0.50, 1.0)
WOODS = (BIRCH, OAK, WALNUT, BAMBOO)
# Plastics, rubbers and paints.
BLACK = (0.08, 0.08, 0.09, 1.0)
CHARCOAL = (0.22, 0.22, 0.24, 1.0)
WHITE = (0.92, 0.92, 0.90, 1.0)
CREAM = (0.93, 0.88, 0.76, 1.0)
GREY = (0.55, 0.56, 0.58, 1.0)
RED = (0.80, 0.12, 0.10, 1.0)
DARK_RED = (0.55, 0.08, 0.08, 1.0)
ORANGE = (0.95, 0.50, 0.08, 1.0)
YELLOW = (0.96, 0.82, 0.12, 1.0)
LIME = (0.55, 0.78, 0.15, 1.0)
GREEN = (0.15, 0.55, 0.22, 1.0)
DARK_GREEN = (0.10, 0.33, 0.14, 1.0)
TEAL = (0.05, 0.55, 0.55, 1.0)
BLUE = (0.12, 0.32, 0.75, 1.0)
NAVY = (0.10, 0.14, 0.35, 1.0)
PURPLE = (0.45, 0.20, 0.60, 1.0)
PINK = (0.92, 0.45, 0.62, 1.0)
BROWN = (0.42, 0.27, 0.14, 1.0)
TERRACOTTA = (0.72, 0.36, 0.22, 1.0)
# Metals.
STEEL = (0.62, 0.64, 0.67, 1.0)
DARK_STEEL = (0.30, 0.31, 0.33, 1.0)
BLUE_STEEL = (0.26, 0.32, 0.42, 1.0)
BRASS = (0.78, 0.62, 0.28, 1.0)
# Translucent.
GLASS = (0.80, 0.90, 0.92, 0.35)
AMBER_GLASS = (0.80, 0.45, 0.10, 0.6)
FLAME = (1.0, 0.72, 0.20, 0.9)
