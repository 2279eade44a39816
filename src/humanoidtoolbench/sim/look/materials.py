"""The material library: named surfaces (a texture pattern and how it shines) and the wardrobe that
adds them to a spec.

A surface names a pattern of `textures.PATTERNS` (or none: a flat paint), a
default colour and MuJoCo's lighting parameters. `Wardrobe.material(surface, rgba)` adds the
texture once per spec and one material per (surface, colour) on first use,
and returns the material's name for a geom. Reflectance stays 0: MuJoCo's
reflections redraw the scene (a second pass per reflecting surface), far
more than they show at the cameras' range. Software rendering pays for a
texture per pixel it covers (docs/PERFORMANCE.md): large surfaces seen from
afar, where a pattern would not show, take the untextured `paint`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

import mujoco

from .looks import Look
from .textures import PATTERNS

RGBA = tuple[float, float, float, float]


@dataclass(frozen=True)
class Surface:
    pattern: str | None  # a key of textures.PATTERNS; None: untextured
    rgba: RGBA  # the default colour, multiplied into the texture
    specular: float = 0.2
    shininess: float = 0.3
    # Repeats of the texture per metre (texuniform): how large the pattern is drawn.
    repeat: float = 4.0


SURFACES: dict[str, Surface] = {
    # Woods: tint with an oak, birch or walnut colour.
    "wood": Surface("wood", (0.66, 0.49, 0.30, 1.0), specular=0.25, shininess=0.35, repeat=2.5),
    "varnished_wood": Surface("wood", (0.62, 0.44, 0.26, 1.0), specular=0.5, shininess=0.7, repeat=2.5),
    "floorboards": Surface("planks", (0.62, 0.47, 0.32, 1.0), specular=0.3, shininess=0.5, repeat=0.6),
    # Walls, ceilings and floors.
    "paint": Surface(None, (0.86, 0.85, 0.81, 1.0), specular=0.05, shininess=0.1),
    "plaster": Surface("plaster", (0.86, 0.85, 0.81, 1.0), specular=0.05, shininess=0.1, repeat=0.5),
    "floor_tiles": Surface("tiles", (0.78, 0.76, 0.72, 1.0), specular=0.35, shininess=0.6, repeat=1.0),
    # Soft goods.
    "fabric": Surface("fabric", (0.55, 0.60, 0.80, 1.0), specular=0.02, shininess=0.05, repeat=8.0),
    # Metals: steel, brass, a hammer's head.
    "brushed_metal": Surface("brushed_metal", (0.70, 0.72, 0.75, 1.0), specular=0.9, shininess=0.85, repeat=6.0),
    # Glazed and glossy.
    "ceramic": Surface("ceramic", (0.93, 0.93, 0.91, 1.0), specular=0.7, shininess=0.85, repeat=4.0),
    "glass": Surface("glass", (0.80, 0.90, 0.92, 0.35), specular=0.9, shininess=0.95, repeat=4.0),
    "plastic": Surface("plastic", (0.80, 0.12, 0.10, 1.0), specular=0.45, shininess=0.6, repeat=8.0),
    "rubber": Surface("rubber", (0.10, 0.10, 0.11, 1.0), specular=0.08, shininess=0.1, repeat=40.0),
    "peel": Surface("peel", (0.80, 0.12, 0.10, 1.0), specular=0.4, shininess=0.55, repeat=20.0),
    "cardboard": Surface("cardboard", (0.80, 0.30, 0.15, 1.0), specular=0.1, shininess=0.2, repeat=6.0),
    "ice": Surface("ice", (0.78, 0.90, 1.0, 0.55), specular=0.9, shininess=0.95, repeat=5.0),
    # A sealed concrete floor: plaster's mottle, large and grey.
    "concrete": Surface("plaster", (0.58, 0.57, 0.55, 1.0), specular=0.12, shininess=0.2, repeat=0.4),
    # Untextured metal and glossy paint, for parts whose grain would not show at a policy camera's
    # range but whose texture would cost its pixels: a ladder's rails, a lamp's enamel shade.
    "aluminium": Surface(None, (0.80, 0.82, 0.85, 1.0), specular=0.8, shininess=0.7),
    "enamel": Surface(None, (0.94, 0.93, 0.90, 1.0), specular=0.5, shininess=0.6),
}


class Wardrobe:
    """The look's materials in one spec, each added on first use.

    Texture and material names start with `look/` and are made from what
    they hold, so they never collide with a scene's own, and any number of
    wardrobes may dress one spec (the room's and a suite's) and share them.
    A pattern is drawn at the look's texture size with `seed` (different
    seeds: different grain, same kind of surface).
    """

    def __init__(self, spec: mujoco.MjSpec, look: Look, seed: int = 0) -> None:
        if not look.dressed:
            raise ValueError(f"the {look.name!r} look is not dressed: it has no textured materials")
        self.spec = spec
        self.look = look
        self.seed = seed

    def texture(self, pattern: str, seed: int | None = None) -> str:
        """The name of a pattern's texture in the spec, adding it once."""
        seed = self.seed if seed is None else seed
        name = f"look/{pattern}/{seed}"
        if self.spec.texture(name) is None:
            image = PATTERNS[pattern](seed, self.look.texture_size)
            tex = self.spec.add_texture(name=name, type=mujoco.mjtTexture.mjTEXTURE_2D, width=image.shape[1],
                                        height=image.shape[0], nchannel=3)
            tex.data = image.tobytes()
        return name

    def material(self, surface: str, rgba=None, *, seed: int | None = None, repeat: float | None = None,
                 specular: float | None = None, shininess: float | None = None) -> str:
        """The name of a material of `surface` tinted `rgba` (default: the surface's own), adding it once.

        `repeat` overrides how many times per metre the pattern repeats; `specular` and `shininess`
        override the surface's."""
        s = SURFACES[surface]
        colour = [round(float(c), 4) for c in (s.rgba if rgba is None else rgba)]
        seed = self.seed if seed is None else seed
        reps = s.repeat if repeat is None else repeat
        shine = (s.specular if specular is None else specular, s.shininess if shininess is None else shininess)
        key = json.dumps([surface, colour, seed, reps, shine])
        name = f"look/{surface}/{hashlib.sha256(key.encode()).hexdigest()[:10]}"
        if self.spec.material(name) is None:
            mat = self.spec.add_material(name=name, rgba=colour, texuniform=True, texrepeat=[reps, reps], specular=shine[0],
                                         shininess=shine[1], reflectance=0.0)
            if s.pattern is not None:
                mat.textures[mujoco.mjtTextureRole.mjTEXROLE_RGB] = self.texture(s.pattern, seed)
        return name

    def dress(self, geom: mujoco.MjsGeom, surface: str, rgba=None, **kw) -> mujoco.MjsGeom:
        """Give an existing geom (collision or visual) a material of the library: its look changes,
        nothing the physics reads does. The geom's own rgba is reset so the material's colour shows."""
        geom.material = self.material(surface, rgba, **kw)
        geom.rgba = list(DEFAULT_GEOM_RGBA)
        return geom


# A geom whose rgba is MuJoCo's default takes its material's colour; any other rgba overrides it.
DEFAULT_GEOM_RGBA = (0.5, 0.5, 0.5, 1.0)

# Interiors (find-navigate-sit): upholstery, bedding, rugs, wall tiles, a screen, pots and plants.
SURFACES.update({
    "upholstery": Surface("fabric", (0.42, 0.50, 0.72, 1.0), specular=0.02, shininess=0.05, repeat=5.0),
    "linen": Surface("fabric", (0.95, 0.95, 0.94, 1.0), specular=0.02, shininess=0.05, repeat=12.0),
    "leather": Surface("plastic", (0.36, 0.20, 0.12, 1.0), specular=0.35, shininess=0.5, repeat=6.0),
    "rug": Surface("fabric", (0.60, 0.30, 0.25, 1.0), specular=0.0, shininess=0.02, repeat=2.5),
    "wall_tiles": Surface("tiles", (0.92, 0.93, 0.93, 1.0), specular=0.5, shininess=0.7, repeat=3.3),
    "small_tiles": Surface("tiles", (0.85, 0.86, 0.86, 1.0), specular=0.4, shininess=0.6, repeat=2.5),
    "screen": Surface(None, (0.02, 0.02, 0.03, 1.0), specular=0.9, shininess=0.9),
    "terracotta": Surface("plaster", (0.72, 0.40, 0.26, 1.0), specular=0.08, shininess=0.15, repeat=6.0),
    "soil": Surface("plaster", (0.26, 0.19, 0.13, 1.0), specular=0.02, shininess=0.05, repeat=8.0),
    "leaf": Surface(None, (0.22, 0.50, 0.22, 1.0), specular=0.3, shininess=0.45),
})
