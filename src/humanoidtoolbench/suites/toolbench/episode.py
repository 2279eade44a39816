"""One task episode: the scene of a seeded layout, its settling, and the 50 Hz step with metrics.

The Gymnasium environments, the evaluator and the tests all drive episodes
through this class.
"""

from __future__ import annotations

import mujoco
import numpy as np

from ...angles import yaw_quat
from ...control.assisted.assisted import AssistedController
from ...control.base import Controller
from ...control.contracts import decoupled_v1 as contract
from ...robot.joints import PELVIS
from ...sim import look as looks
from ...sim import scene
from ...sim.simulation import Simulation, home_upper_pose
from ..base import Episode, HoldCounter, StandardProtocol, StepResult, terminal_outcome
from . import bench, markers
from .contacts import ContactIndex, is_hand_body, subtree_bodies
from .fracture import IceFracture, add_ice_block, shard_name
from .layout import BALL, DECOY, ICE, TOOL, Layout, sample_layout
from .metrics import Bodies, EpisodeMetrics
from .registry import HOLD_STEPS, Condition

SETTLE_MIN_STEPS = 25
SETTLE_MAX_STEPS = 500
REST_SPEED = 1e-3  # m/s and rad/s: every object slower than this counts as at rest
DROP_CLEARANCE = 0.0005  # objects start this far above the bench top
# The room around the bench; a dressed look's shadow lamp (where it has one) aims at the bench.
ROOM = scene.Room(focus=(0.0, 0.0, bench.TOP), focus_radius=1.2)


def build_scene(layout: Layout, controller: Controller, detail: str = "fast", look: looks.Look = looks.FAST) -> mujoco.MjSpec:
    """The episode's scene; a dressed look dresses the room, bench, tools, objects, ring and ice."""
    spec = scene.new_spec(layout.style, ROOM, look)
    wardrobe = looks.Wardrobe(spec, look) if look.dressed else None
    bench.add_bench(spec, layout.bench_rgba, wardrobe)
    top = bench.TOP + DROP_CLEARANCE
    for item in layout.items:
        if item.role == BALL:
            markers.add_ball(spec, item.xy, top, wardrobe)
        elif item.role == ICE:
            add_ice_block(spec, item.name, item.xy, top, wardrobe)
        else:
            body = spec.worldbody.add_body(name=item.name, pos=[*item.xy, top], quat=yaw_quat(item.yaw))
            body.add_freejoint(name=f"{item.name}_joint")
            item.prop.build(spec, body, f"{item.name}/", wardrobe)
    if layout.ring is not None:
        markers.add_ring(spec, layout.ring, bench.TOP, wardrobe)
    scene.add_robot(spec, controller, detail)
    return spec


class TaskEpisode(Episode):
    def __init__(
        self,
        condition: Condition,
        seed: int,
        controller: Controller | None = None,
        detail: str = "fast",
        look: str = StandardProtocol.look,
    ) -> None:
        """Made by the suite (`ToolBench.make_episode`), which hands it the controller and the look (a name
        of `sim.look.LOOKS`); built directly, it runs on `assisted` in the protocol's default look."""
        self.condition = condition
        self.seed = int(seed)
        self.layout = sample_layout(condition, seed)
        self.controller = controller or AssistedController()
        self.look = looks.get(look)
        self.sim = Simulation(build_scene(self.layout, self.controller, detail, self.look), self.controller)
        m = self.sim.model
        self.state_reader = contract.DECOUPLED_V1.state_reader(m)
        robot = set(subtree_bodies(m, m.body(PELVIS).id))
        self._object_dofs = np.array([d for d in range(m.nv) if m.dof_bodyid[d] not in robot])
        owners = {p.name: subtree_bodies(m, m.body(p.name).id) for p in self.layout.items if p.role != ICE}
        blocks = [p.name for p in self.layout.by_role(ICE)]
        if blocks:
            owners[ICE] = [m.body(n).id for n in blocks] + [m.body(shard_name(n, k)).id for n in blocks for k in range(8)]
        for side in ("left", "right"):
            owners[f"hand_{side}"] = [b for b in range(m.nbody) if is_hand_body(m.body(b).name, side)]
        self.contacts = ContactIndex(m, owners)
        tool_bodies = owners[TOOL] + owners.get(DECOY, [])
        self.fracture = IceFracture(m, blocks, tool_bodies) if blocks else None
        qpos = lambda name: int(m.jnt_qposadr[m.joint(f"{name}_joint").id])  # noqa: E731
        bodies = Bodies(tool=qpos(TOOL), ball=qpos(BALL) if any(p.role == BALL for p in self.layout.items) else None)
        self.metrics = EpisodeMetrics(self.layout, self.contacts, bodies, self.fracture)
        self.hold = HoldCounter(HOLD_STEPS)
        self.previous_height = contract.DEFAULT_BASE_HEIGHT
        self.steps = 0
        self.settle_steps = 0


    def reset(self) -> None:
        """Place the robot, let the scene come to rest, take the metric baselines."""
        home = home_upper_pose()
        if self.fracture is not None:
            self.fracture.reset()  # fractures change the model, which a data reset leaves alone
        self.sim.reset(self.layout.spawn, home)
        hold = contract.decode(np.concatenate([home, [contract.DEFAULT_BASE_HEIGHT, 0, 0, 0, 0]]))
        for k in range(1, SETTLE_MAX_STEPS + 1):
            self.sim.step(hold)
            if k >= SETTLE_MIN_STEPS and self._at_rest():
                break
        self.settle_steps = k
        self.metrics.start(self.data, self.sim.base_pose())
        self.hold = HoldCounter(HOLD_STEPS)
        self.previous_height = contract.DEFAULT_BASE_HEIGHT
        self.steps = 0

    def _at_rest(self) -> bool:
        return bool(np.abs(self.data.qvel[self._object_dofs]).max(initial=0.0) < REST_SPEED)

    def state(self) -> np.ndarray:
        return self.state_reader.read(self.data, self.previous_height)

    def on_chunk(self, chunk: np.ndarray, metadata: dict | None = None) -> None:
        """State slot 31 reports slot 31 of the last row of the most recent chunk."""
        self.previous_height = float(chunk[-1, 31])

    def step(self, row: np.ndarray) -> StepResult:
        """Execute one command row."""
        self.sim.step(contract.decode(row))
        if self.fracture is not None:
            self.fracture.update(self.data)  # the impact rule samples once per command, as published
        self.steps += 1
        values = self.metrics.update(self.data, self.sim.base_pose())
        ok = self.metrics.success(values)
        success = self.hold.update(ok)
        return StepResult(values, ok, success, terminal_outcome(success, self.sim.fallen()))

    def privileged(self) -> dict:
        """Simulator truth for privileged policies (never sent to others)."""
        d, m = self.data, self.model
        objects = {}
        for p in self.layout.items:
            body = m.body(p.name).id
            adr = m.jnt_qposadr[m.joint(f"{p.name}_joint").id]
            dof = m.jnt_dofadr[m.joint(f"{p.name}_joint").id]
            rot = d.xmat[body].reshape(3, 3)
            entry = {
                "role": p.role,
                "pos": d.qpos[adr : adr + 3].copy(),
                "quat": d.qpos[adr + 3 : adr + 7].copy(),
                "linvel": d.qvel[dof : dof + 3].copy(),
                "angvel": d.qvel[dof + 3 : dof + 6].copy(),
            }
            if p.prop is not None:
                entry.update(
                    kind=p.prop.kind,
                    family=p.prop.family,
                    half_extent=p.prop.half_extent,
                    grasp=d.xpos[body] + rot @ np.asarray(p.prop.grasp),
                    tip=d.xpos[body] + rot @ np.asarray(p.prop.tip),
                    axis=rot[:, 1].copy(),
                )
            objects[p.name] = entry
        base = self.sim.base_pose()
        info = {
            "objects": objects,
            "correct_tool": TOOL,
            "ring": None if self.layout.ring is None else np.asarray(self.layout.ring),
            "work_spot": np.asarray(self.layout.work_spot),
            "base": np.array([base.x, base.y, base.z, base.yaw]),
            "bench_top": bench.TOP,
            "scenario": self.condition.scenario,
            "level": self.condition.level,
            "controller": self.controller.name,
        }
        if self.fracture is not None:
            info["ice_broken"] = self.fracture.broken(d)
        return info
