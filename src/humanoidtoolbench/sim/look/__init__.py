"""Looks: how a suite's scenes are drawn, without touching their physics.

A look (`looks.Look`) is data: whether the scene is dressed (textured
materials, a ceiling, a soft headlight) and the settings that cost render
time (texture size, shadow map, multisampling). `LOOKS` holds `standard`
(every suite's protocol look) and `fast` (flat colours: the cheapest, for
diagnostics; a result drawn in it is not reportable). The look is part of a
suite's `StandardProtocol`, chosen with `htb-eval --look`, recorded in the
run configuration and `benchmark_result.json`, and its code is covered by the
source digest.

Pieces:
- `textures`: seeded, tileable procedural images (wood, floorboards,
  plaster, tiles, fabric, brushed metal, ceramic, glass, plastic, rubber,
  peel, cardboard, ice), pale so a colour tints them, cached per process.
- `materials.SURFACES`: named surfaces (a pattern, a default colour, how it
  shines); `Wardrobe(spec, look)` adds a surface's texture and material to a
  spec on first use and returns the material's name.
- `visual`: visual-only geoms and meshes (a `trimesh.Trimesh` or arrays):
  contype = conaffinity = 0, no mass, drawn in `visual.VISUAL_GROUP`.

How to dress a suite
--------------------
1. Build the room with the look: `spec = scene.new_spec(style, room, look)`.
   A dressed look draws the floor, walls and ceiling in the room style's
   surfaces (`RoomStyle.floor`, `walls`, `ceiling`, tinted by its colours;
   walls default to untextured paint, which costs little) and adds a visual
   ceiling where the room has none.
2. After building the physics as before, and only if `look.dressed`, make a
   wardrobe (`wardrobe = Wardrobe(spec, look)`; any number of wardrobes may
   share one spec) and dress:
   - an existing geom, collision or not: `wardrobe.dress(geom, "wood", rgba)`
     (only its material and rgba change; nothing the physics reads);
   - extra detail on a body: `visual.add_geom(body, "box", size, pos=...,
     material=wardrobe.material("brushed_metal", rgba))` or
     `visual.add_mesh(spec, body, name, trimesh_mesh, material=...)`.
   Never add a collision geom, a mass, a joint or a body for a look, and
   keep every collision geom's parameters (and group: rays may filter on it)
   as they are. A geom hidden by setting its alpha to 0 is skipped by the
   renderer; a visual copy may then draw it instead.
3. Pass the look down: `make_episode(..., look=...)` receives the look's
   name (None: the protocol's); `looks.get(name)` gives the `Look`.
4. Give the suite a gallery (`Suite.gallery`): a `Subject` per object
   category and variant (`build(spec, look)` adds it to an empty room and
   returns where to look) and a few (condition, seed) pairs whose first
   policy image is shown; `htb-gallery SUITE --output DIR` shoots them.
5. `tests/test_look.py` compiles each suite in every look and requires the
   same collision geoms, masses, inertias and trajectories; add the new
   scenes to its `SCENES`.

The tool-use suite is the worked example: `suites/toolbench/bench.py`,
`markers.py`, `fracture.py` and `props/` take an optional wardrobe.
"""

from . import textures, visual
from .looks import FAST, LOOKS, STANDARD, Look, LookError, get
from .materials import SURFACES, Surface, Wardrobe

__all__ = ["FAST", "LOOKS", "STANDARD", "Look", "LookError", "get", "SURFACES", "Surface", "Wardrobe", "textures", "visual"]
