"""Ice blocks that break when a tool hits them hard enough.

Rule (checked once per 50 Hz command, after its physics steps, as published;
`TaskEpisode.step` calls `IceFracture.update`): a block breaks when the normal
force between it and a tool body, summed over their contact points and
multiplied by the 0.005 s physics step, reaches 0.042 N s while that tool body
was closing on the block at 0.5 m/s or faster. The closing speed is the one
measured while the tool was not yet touching the block, so a tool resting on
the ice cannot break it. Hands and other objects never break ice.

Each block has eight shards (its octants), built with the block but parked
out of sight without contacts. At the break they take the block's place and
velocity plus a small outward velocity, and the block is parked instead. A
block counts as broken once its shards have spread: some shard's distance
from the shards' centroid has grown by at least 0.03 m since the break (it
stays broken if they later gather again).

In a dressed look the block is translucent, glossy ice with a milky cloud and
a few internal cracks (visual-only panes inside it, parked with it when it
breaks), and the shards show freshly fractured, whiter ice.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mujoco
import numpy as np

from ...robot import collision
from ...sim.look import Wardrobe, visual

ICE_SIZE = 0.16
ICE_MASS = 2.8
ICE_RGBA = (0.72, 0.88, 1.0, 0.65)
# Ice is slippery: its contact parameters win over the bench's and rigid tools' (higher priority),
# so shards slide apart and a hammer glances off; compliant decoy heads rank higher still.
ICE_CONTACT = dict(friction=(0.3, 0.005, 0.0005), condim=4, priority=12)
IMPULSE_THRESHOLD = 0.042  # N s
CLOSING_SPEED_MIN = 0.5  # m/s
SCATTER_MIN = 0.03  # m
# Fast enough that the shards, sliding on the bench (friction 2), spread well past SCATTER_MIN:
# at 0.4 m/s they stopped at 0.012-0.014 m, at 0.6 m/s at 0.028-0.033 m, at 0.8 m/s ~0.10 m.
SHARD_OUTWARD_SPEED = 0.8  # m/s
PARK_DEPTH = -3.0  # z where inactive bodies wait, below the floor
OFFSETS = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], float) * ICE_SIZE / 4
# A dressed look: the block's material colour, and its internal cracks (thin white panes through the
# block: centre offset and normal, in block units), the same in every block.
ICE_LOOK_RGBA = (0.80, 0.92, 1.0, 0.6)
CRACK_RGBA = (1.0, 1.0, 1.0, 0.35)
CRACKS = (((0.1, -0.15, 0.05), (0.3, 0.2, 0.93)), ((-0.2, 0.1, -0.1), (0.8, -0.4, 0.45)), ((0.15, 0.2, -0.2), (-0.2, 0.9, 0.4)))
SHARD_SEED = 1  # the shards' texture: another draw of the same ice


def breaks(impulse: float, closing_speed: float) -> bool:
    """The impact rule: impulse over one physics step and the tool's approach speed."""
    return impulse >= IMPULSE_THRESHOLD and closing_speed >= CLOSING_SPEED_MIN


def shard_name(block: str, k: int) -> str:
    return f"{block}_shard_{k}"


def add_ice_block(spec: mujoco.MjSpec, name: str, xy, surface_z: float, wardrobe: Wardrobe | None = None) -> None:
    """A whole block resting on the surface and its eight parked shards (dressed with a wardrobe)."""
    mat = spec.add_material(name=f"{name}_mat", rgba=list(ICE_RGBA), specular=0.6, shininess=0.8)
    half = ICE_SIZE / 2
    block = spec.worldbody.add_body(name=name, pos=[xy[0], xy[1], surface_z + half])
    block.add_freejoint(name=f"{name}_joint")
    g = block.add_geom(
        name=name, type=mujoco.mjtGeom.mjGEOM_BOX, size=[half] * 3, mass=ICE_MASS, material=mat.name, rgba=list(ICE_RGBA)
    )
    _contact(g)
    for k, off in enumerate(OFFSETS):
        shard = spec.worldbody.add_body(
            name=shard_name(name, k), pos=[xy[0] + off[0], xy[1] + off[1], PARK_DEPTH - 0.1 * k], gravcomp=1.0
        )
        shard.add_freejoint(name=f"{shard_name(name, k)}_joint")
        sg = shard.add_geom(
            name=shard_name(name, k),
            type=mujoco.mjtGeom.mjGEOM_BOX,
            size=[half / 2] * 3,
            mass=ICE_MASS / 8,
            material=mat.name,
            rgba=[0, 0, 0, 0],
        )
        _contact(sg)
        sg.contype = sg.conaffinity = 0
        if wardrobe is not None:  # the rgba stays transparent until the break sets ICE_RGBA
            sg.material = wardrobe.material("ice", ICE_LOOK_RGBA, seed=SHARD_SEED)
    if wardrobe is not None:
        _dress_block(spec, block, g, name, wardrobe)


def _dress_block(spec: mujoco.MjSpec, block: mujoco.MjsBody, geom: mujoco.MjsGeom, name: str, wardrobe: Wardrobe) -> None:
    """Translucent glossy ice (the geom keeps MuJoCo's default rgba, which a break turns transparent)
    with internal cracks: visual panes, each a thin box across the block."""
    wardrobe.dress(geom, "ice", ICE_LOOK_RGBA)
    crack = wardrobe.material("glass", CRACK_RGBA)
    half = ICE_SIZE / 2
    for k, (centre, normal) in enumerate(CRACKS):
        quat = np.zeros(4)
        mujoco.mju_quatZ2Vec(quat, np.asarray(normal, float) / np.linalg.norm(normal))
        visual.add_geom(block, "box", (0.45 * half, 0.35 * half, 0.0008), pos=tuple(half * np.asarray(centre)), quat=quat,
                        material=crack, name=f"{name}_crack_{k}")


def _contact(geom) -> None:
    collision.assign(geom, collision.OBJECT)
    collision.set_contact(geom, ICE_CONTACT)


@dataclass
class _Block:
    name: str
    body: int
    geom: int
    qpos: int  # address of the free joint
    dof: int
    shard_bodies: list[int]
    shard_geoms: list[int]
    shard_qpos: list[int]
    shard_dof: list[int]
    fractured: bool = False
    scattered: bool = False  # latched: once spread, a block stays broken
    fracture_radii: np.ndarray | None = None
    approach: dict[int, float] = field(default_factory=dict)  # tool body -> last closing speed


class IceFracture:
    def __init__(self, model: mujoco.MjModel, blocks: list[str], tool_bodies: list[int]) -> None:
        self.model = model
        self.tool_bodies = list(tool_bodies)
        self.blocks = []
        for name in blocks:
            shards = [shard_name(name, k) for k in range(len(OFFSETS))]
            self.blocks.append(
                _Block(
                    name=name,
                    body=model.body(name).id,
                    geom=model.geom(name).id,
                    qpos=model.jnt_qposadr[model.joint(f"{name}_joint").id],
                    dof=model.jnt_dofadr[model.joint(f"{name}_joint").id],
                    shard_bodies=[model.body(s).id for s in shards],
                    shard_geoms=[model.geom(s).id for s in shards],
                    shard_qpos=[model.jnt_qposadr[model.joint(f"{s}_joint").id] for s in shards],
                    shard_dof=[model.jnt_dofadr[model.joint(f"{s}_joint").id] for s in shards],
                )
            )
        geoms = [g for b in self.blocks for g in (b.geom, *b.shard_geoms)]
        bodies = [i for b in self.blocks for i in (b.body, *b.shard_bodies)]
        # What a fracture changes in the model, as compiled (see `reset`).
        self._compiled = {
            name: (idx, getattr(model, name)[idx].copy())
            for name, idx in (("geom_contype", geoms), ("geom_conaffinity", geoms), ("geom_rgba", geoms),
                              ("body_contype", bodies), ("body_conaffinity", bodies), ("body_gravcomp", bodies))
        }
        self._geom_block = np.full(model.ngeom, -1)
        for i, b in enumerate(self.blocks):
            self._geom_block[b.geom] = i
        self._is_tool = np.zeros(model.nbody, dtype=bool)
        self._is_tool[self.tool_bodies] = True
        self._force = np.zeros(6)
        self._vel = np.zeros(6)
        self.peak_impulse = 0.0

    def reset(self) -> None:
        """Make every block whole again in the model; reset the data afterwards."""
        for name, (idx, values) in self._compiled.items():
            getattr(self.model, name)[idx] = values
        for b in self.blocks:
            b.fractured, b.scattered, b.fracture_radii = False, False, None
            b.approach.clear()
        self.peak_impulse = 0.0

    # -- per control step ------------------------------------------------
    def update(self, data: mujoco.MjData) -> None:
        m = self.model
        # Normal force between each tool body and each block, summed over their contact points
        # (how many points MuJoCo makes for one face-on hit is an artefact of the geometry).
        force: dict[tuple[int, int], float] = {}
        geoms = data.contact.geom[: data.ncon]
        block_1, block_2 = self._geom_block[geoms[:, 0]], self._geom_block[geoms[:, 1]]
        block = np.where(block_1 >= 0, block_1, block_2)
        other = m.geom_bodyid[np.where(block_1 >= 0, geoms[:, 1], geoms[:, 0])]
        # Contacts of a block with a tool, in contact order (the sums below keep that order).
        for i in np.flatnonzero((block >= 0) & self._is_tool[other]).tolist():
            key = (int(block[i]), int(other[i]))
            mujoco.mj_contactForce(m, data, i, self._force)
            force[key] = force.get(key, 0.0) + abs(self._force[0])
        for (block, tool), normal in force.items():
            b = self.blocks[block]
            if b.fractured:
                continue
            impulse = normal * m.opt.timestep
            speed = b.approach.get(tool, 0.0)
            if speed >= CLOSING_SPEED_MIN:
                self.peak_impulse = max(self.peak_impulse, impulse)
            if breaks(impulse, speed):
                self._fracture(data, b)
        tool_vel = {}
        for bi, b in enumerate(self.blocks):
            if b.fractured:
                b.scattered |= self.scatter(data, bi) >= SCATTER_MIN
                continue
            for tool in self.tool_bodies:
                if (bi, tool) not in force:
                    if tool not in tool_vel:
                        tool_vel[tool] = self._velocity(data, tool)
                    b.approach[tool] = self._closing_speed(data, tool, tool_vel[tool], b)

    def _velocity(self, data: mujoco.MjData, body: int) -> np.ndarray:
        mujoco.mj_objectVelocity(self.model, data, mujoco.mjtObj.mjOBJ_BODY, body, self._vel, 0)
        return self._vel[3:].copy()

    def _closing_speed(self, data: mujoco.MjData, tool: int, v_tool: np.ndarray, block: _Block) -> float:
        v_block = self._velocity(data, block.body)
        direction = data.xipos[block.body] - data.xipos[tool]
        dist = np.linalg.norm(direction)
        if dist < 1e-9:
            return 0.0
        return float((v_tool - v_block) @ (direction / dist))

    def _fracture(self, data: mujoco.MjData, b: _Block) -> None:
        m = self.model
        pos = data.qpos[b.qpos : b.qpos + 3].copy()
        quat = data.qpos[b.qpos + 3 : b.qpos + 7].copy()
        lin = data.qvel[b.dof : b.dof + 3].copy()
        ang = data.qvel[b.dof + 3 : b.dof + 6].copy()
        rot = np.empty(9)
        mujoco.mju_quat2Mat(rot, quat)
        rot = rot.reshape(3, 3)
        for k, off in enumerate(OFFSETS):
            r = rot @ off
            qa, da = b.shard_qpos[k], b.shard_dof[k]
            data.qpos[qa : qa + 3] = pos + r
            data.qpos[qa + 3 : qa + 7] = quat
            data.qvel[da : da + 3] = lin + np.cross(ang, r) + SHARD_OUTWARD_SPEED * r / np.linalg.norm(r)
            data.qvel[da + 3 : da + 6] = ang
            g, body = b.shard_geoms[k], b.shard_bodies[k]
            # The broad phase also filters on the body-level flags compiled from the (then
            # contactless) geoms: without them the shards fall through the bench.
            m.geom_contype[g] = m.body_contype[body] = collision.OBJECT
            m.geom_conaffinity[g] = m.body_conaffinity[body] = collision.PARTNERS[collision.OBJECT]
            m.geom_rgba[g] = ICE_RGBA
            m.body_gravcomp[body] = 0.0
        # The whole block leaves the scene where the shards came from.
        m.geom_contype[b.geom] = m.geom_conaffinity[b.geom] = 0
        m.body_contype[b.body] = m.body_conaffinity[b.body] = 0
        m.geom_rgba[b.geom, 3] = 0.0
        m.body_gravcomp[b.body] = 1.0
        data.qpos[b.qpos : b.qpos + 3] = (pos[0], pos[1], PARK_DEPTH + 1.0)
        data.qvel[b.dof : b.dof + 6] = 0.0
        b.fractured = True
        centre = data.qpos[[q + i for q in b.shard_qpos for i in range(3)]].reshape(-1, 3)
        b.fracture_radii = np.linalg.norm(centre - centre.mean(axis=0), axis=1)

    # -- queries ---------------------------------------------------------
    def scatter(self, data: mujoco.MjData, index: int) -> float:
        """Largest growth of a shard's distance from the shard centroid since the break (0 if whole)."""
        b = self.blocks[index]
        if not b.fractured:
            return 0.0
        pts = data.qpos[[q + i for q in b.shard_qpos for i in range(3)]].reshape(-1, 3)
        radii = np.linalg.norm(pts - pts.mean(axis=0), axis=1)
        return float(np.max(radii - b.fracture_radii))

    def broken(self, data: mujoco.MjData) -> list[bool]:
        """Fractured and spread: once the shards have spread (at an update), the block stays broken."""
        return [b.fractured and (b.scattered or self.scatter(data, i) >= SCATTER_MIN) for i, b in enumerate(self.blocks)]
