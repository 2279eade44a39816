"""One find-navigate-sit episode: the split's start in its apartment, decisions run as 0.5 s skills.

A decision arrives as a `discrete_skill_v1` chunk of 25 control rows (one
for Stop) with the planner's record in the reply's metadata. Each row
becomes one `decoupled_v1` command for the controller: walk, step back and
side step as base velocities, a turn as a heading target, a sit as a pelvis
height (the pelvis then rests on whatever is under it), Stop as the end; how
each controller carries them out (speeds, arms, a sit's lean) is its row of
`profiles.PROFILES`. Every control step
records the robot's contacts (fixed and dynamic) and the dynamic objects'
positions for the paper metrics; the segmentation render of each decision's
image counts the target's pixels.
"""

from __future__ import annotations

import math
import weakref

import mujoco
import msgspec
import numpy as np

from ...angles import wrap
from ...control.base import BasePose
from ...control.contracts import decoupled_v1
from ...control.contracts.discrete_skill import SkillStep
from ...sim import look as looks
from ...sim.simulation import Simulation, home_upper_pose
from ..base import SUCCESS, Episode, StepResult, terminal_outcome
from ...planning.navgrid import NavGrid, Rect
from . import actions
from .apartments import build_apartment
from .contract import DISCRETE_SKILL_V1, SKILL_STEPS, STOP_ID
from .metrics.definitions import FRAME_RATE_HZ, INTERACT_CATEGORIES, NAV_RADIUS_M
from .metrics.recorded import DYNAMIC, FIXED, Chunk, DecisionRecord, EpisodeData, Frame, RobotContact
from .metrics.scoring import body_target_distance, interact_success
from .profiles import PROFILES
from .scene import EGO_CAMERA, EGO_SIZE, build_scene

STOPPED = "stopped"  # an active stop that does not meet the success rule
SKILL_SECONDS = 0.5
SETTLE_STEPS = 10
SKILL_BY_ID = {spec.id: spec.skill for spec in actions.VOCABULARY}


SIT_PRESS_M = 0.01  # how far below where the pelvis first touched a stopped sit holds it


def carriage(controller: str) -> np.ndarray:
    """The 31 upper-body slots the skills hold: the home pose with the shoulders rolled to the profile's."""
    upper = home_upper_pose()
    roll = PROFILES[controller].shoulder_roll
    upper[decoupled_v1.JOINT_SLOTS.index("left_shoulder_roll_joint")] = roll
    upper[decoupled_v1.JOINT_SLOTS.index("right_shoulder_roll_joint")] = -roll
    return upper


def sit_posture(controller: str) -> np.ndarray:
    """The upper body a sit leans to: the carriage with the profile's `sit_lean`."""
    upper = carriage(controller)
    for name, value in PROFILES[controller].sit_lean:
        upper[decoupled_v1.JOINT_SLOTS.index(name)] = value
    return upper


def _approach(piece, clearance: float = 0.35) -> tuple[float, float]:
    """Where to stand before sitting: in front of the middle of the seat's front edge (+x is the front)."""
    reach = piece.half_extents[0] + clearance
    return (piece.centre[0] + reach * math.cos(piece.yaw), piece.centre[1] + reach * math.sin(piece.yaw))


class FindSitEpisode(Episode):
    def __init__(self, condition, seed: int, controller, look: str, detail: str = "fast") -> None:
        """Made by the suite (`FindSit.make_episode`), which hands it the controller and the look (a name
        of `sim.look.LOOKS`)."""
        self.condition = condition
        self.seed = int(seed)
        self.spec = condition.episode(self.seed)
        self.apartment = build_apartment(self.spec.apartment_index)
        if self.apartment.digest() != self.spec.apartment_digest:
            raise RuntimeError(f"apartment {self.spec.scene_id} no longer matches the split; regenerate the split")
        self.controller = controller
        self.profile = PROFILES[self.controller.name]
        self.limits = self.profile.limits
        self.profile.fit(self.controller)
        self._carriage, self._sit_posture = carriage(self.controller.name), sit_posture(self.controller.name)
        self.look = looks.get(look)
        self.sim = Simulation(build_scene(self.apartment, self.controller, detail, self.look,
                                          (self.spec.scene_id, self.spec.episode_id)), self.controller)
        m = self.sim.model
        self.state_reader = decoupled_v1.DECOUPLED_V1.state_reader(m)  # the skills' commands, and the state, are decoupled_v1's
        self.targets = frozenset(self.apartment.furniture[g.object_id].name for g in self.spec.goals)
        self._target_bodies = {m.body(n).id for n in self.targets}
        self._pelvis = m.body("pelvis").id
        self._robot = {b for b in range(m.nbody) if m.body_rootid[b] == m.body_rootid[self._pelvis]}
        self._dynamic = {m.body(p.name).id: p.name for p in self.apartment.furniture if p.movable}
        self._seg = None
        self.grid: NavGrid | None = None
        self._route_grids: tuple[NavGrid, ...] = ()  # what the oracle's routes are planned on, in preference order


    # -- episode ---------------------------------------------------------------------
    def reset(self) -> None:
        x, y = self.spec.start_position[:2]
        upper = carriage(self.controller.name)
        self.sim.reset(BasePose(x, y, decoupled_v1.DEFAULT_BASE_HEIGHT, self.spec.start_yaw), upper)
        self.reset_distances = [float(self.data.contact[i].dist) for i in range(self.data.ncon)]
        self.floor_hits, self.robot_min_z = self._floor_ray()
        self._row = np.concatenate([upper, [decoupled_v1.DEFAULT_BASE_HEIGHT, 0, 0, 0, 0]])
        self._skill_upper = upper.copy()
        self._sit_hold: float | None = None  # the height a sit's pelvis first touched something at, less SIT_PRESS_M
        for _ in range(SETTLE_STEPS):  # let clutter come to rest before the first image
            self.sim.step(decoupled_v1.decode(self._row))
        self.decisions: list[DecisionRecord] = []
        self.chunks: list[Chunk] = []
        self._frames: list[Frame] = []
        self._positions: dict[str, list[np.ndarray]] = {n: [] for n in self._dynamic.values()}
        self._commanded: list[np.ndarray] = []
        self.target_pixels: int | None = None
        self.steps = 0
        self.outcome: str | None = None

    def _floor_ray(self) -> tuple[list[float], float]:
        """Heights under the spawn (one ray straight down) and the robot's lowest point."""
        m, d = self.model, self.data
        pelvis = d.xpos[m.body("pelvis").id]
        hits, origin = [], np.array([pelvis[0], pelvis[1], 50.0])
        geomid = np.zeros(1, dtype=np.int32)
        groups = np.array([1, 0, 0, 0, 0, 0], dtype=np.uint8)
        exclude = -1
        while True:
            dist = mujoco.mj_ray(m, d, origin, np.array([0.0, 0.0, -1.0]), groups, 1, exclude, geomid)
            if dist < 0:
                break
            z = float(origin[2] - dist)
            hits.append(z)
            exclude = int(m.geom_bodyid[geomid[0]])
            origin = np.array([origin[0], origin[1], z - 1e-4])
            if z <= 0.0:
                break
        robot_geoms = [g for g in range(m.ngeom) if m.geom_bodyid[g] in self._robot]
        low = min(float(d.geom_xpos[g][2] - m.geom_rbound[g]) for g in robot_geoms if m.geom_rbound[g] > 0)
        return hits, max(low, 0.0)

    def state(self) -> np.ndarray:
        return self.state_reader.read(self.data, decoupled_v1.DEFAULT_BASE_HEIGHT)

    def count_target_pixels(self) -> int:
        """Pixels of the ego segmentation image showing a target instance (the same pose as the RGB image)."""
        if self._seg is None:
            self._seg = mujoco.Renderer(self.model, EGO_SIZE, EGO_SIZE)
            self._seg.enable_segmentation_rendering()
            weakref.finalize(self, self._seg.close)  # freed with the episode, before the GL libraries unload
            self._geom_body = self.model.geom_bodyid
        self._seg.update_scene(self.data, camera=EGO_CAMERA)
        ids = self._seg.render()
        geoms = ids[..., 0][ids[..., 1] == mujoco.mjtObj.mjOBJ_GEOM]
        return int(np.isin(self._geom_body[geoms[geoms >= 0]], list(self._target_bodies)).sum())

    def on_chunk(self, chunk: np.ndarray, metadata: dict | None = None) -> None:
        """A decision: its record (from the planner's metadata) joined with the image's target pixels."""
        raw = dict((metadata or {}).get("decision") or {})
        skill = SKILL_BY_ID[int(chunk[0, 0])]
        raw.update(step=len(self.decisions), skill=skill, target_pixels=self.target_pixels)
        raw.setdefault("visible_state", "")
        self.decisions.append(msgspec.convert(raw, DecisionRecord))
        base = self.sim.base_pose()
        self._skill_start = (base.x, base.y, base.yaw)
        self._skill_upper = self._row[:31].copy()
        self._frames = []

    def _command(self, step: SkillStep) -> np.ndarray:
        row = self._row.copy()
        skill, value = SKILL_BY_ID[step.skill_id], step.value
        _, _, yaw0 = self._skill_start
        lim = self.limits
        if skill == actions.WALK:
            row[32] = min(value, lim.forward)
        elif skill == actions.TURN:
            row[34], row[35] = 1.0, wrap(yaw0 + math.radians(value))
        elif skill == actions.STEP_BACK:
            row[32] = -min(value / SKILL_SECONDS, lim.backward)
        elif skill == actions.SIDE_STEP:
            row[33] = math.copysign(min(abs(value) / SKILL_SECONDS, lim.lateral), value)
        elif skill == actions.SIT:  # the height, and the upper body eased into the sit's lean over the skill
            row[31] = value
            row[:31] = self._skill_upper + (step.k + 1) / SKILL_STEPS * (self._sit_posture - self._skill_upper)
        if skill != actions.SIT and step.skill_id != STOP_ID:
            row[:31] = self._carriage
        return row

    def _pelvis_partners(self) -> np.ndarray:
        """The bodies the pelvis touches now (one entry per contact)."""
        pairs = self.model.geom_bodyid[self.data.contact.geom]
        hit = pairs == self._pelvis
        return np.where(hit[:, 0], pairs[:, 1], pairs[:, 0])[hit.any(axis=1)]

    def step(self, row: np.ndarray) -> StepResult:
        step = DISCRETE_SKILL_V1.decode(row)
        command = self._command(step)
        # A sit's height carries into the next skill's first row (so a Stop keeps sitting); others stand.
        sitting = SKILL_BY_ID[step.skill_id] == actions.SIT
        if not sitting and step.skill_id != STOP_ID:
            self._sit_hold = None
        elif sitting and self.profile.sit_stops_on_touch and self._sit_hold is None and self._pelvis_partners().size:
            self._sit_hold = self.sim.base_pose().z - SIT_PRESS_M
        if sitting and self._sit_hold is not None:
            command[31] = max(command[31], self._sit_hold)
        self._row[31] = command[31] if sitting else decoupled_v1.DEFAULT_BASE_HEIGHT
        self._row[:31] = command[:31] if sitting else self._carriage
        self.sim.step(decoupled_v1.decode(command))
        self.steps += 1
        fallen = self.sim.fallen()  # a fall ends the episode as a failure, whatever the skill
        if step.skill_id != STOP_ID:
            self._record_frame()
            self._commanded.append(self._commanded_points())
            if step.k == SKILL_STEPS - 1:
                self.chunks.append(Chunk(len(self.decisions) - 1, SKILL_BY_ID[step.skill_id], tuple(self._frames)))
            self.outcome = terminal_outcome(False, fallen)
            return StepResult({"steps": self.steps}, False, False, self.outcome)
        self.outcome = terminal_outcome(self._succeeded(), fallen) or STOPPED
        return StepResult({"steps": self.steps}, self.outcome == SUCCESS, self.outcome == SUCCESS, self.outcome)

    def _record_frame(self) -> None:
        m, d = self.model, self.data
        robot, pairs = [], []
        for i in range(d.ncon):
            c = d.contact[i]
            b1, b2 = int(m.geom_bodyid[c.geom[0]]), int(m.geom_bodyid[c.geom[1]])
            r1, r2 = b1 in self._robot, b2 in self._robot
            if r1 != r2:
                mine, other = (b1, b2) if r1 else (b2, b1)
                kind = DYNAMIC if other in self._dynamic else FIXED
                name = m.body(other).name or "world"
                local = (c.pos - d.xpos[mine]) @ d.xmat[mine].reshape(3, 3)
                robot.append(RobotContact(m.body(mine).name, name, kind, float(c.pos[2]), float(local[2])))
            elif b1 in self._dynamic and b2 in self._dynamic:
                pairs.append((self._dynamic[b1], self._dynamic[b2]))
        self._frames.append(Frame(tuple(robot), tuple(pairs)))
        for body, name in self._dynamic.items():
            self._positions[name].append(d.xpos[body].copy())

    def _commanded_points(self) -> np.ndarray:
        """The commanded base pose applied to the robot's body origins at their home offsets."""
        x, y, z, yaw = self.controller.commanded_base
        c, s = math.cos(yaw), math.sin(yaw)
        R = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
        return np.array([x, y, z]) + self._home_offsets() @ R.T

    def _home_offsets(self) -> np.ndarray:
        if not hasattr(self, "_offsets"):
            m, d = self.model, self.data
            pelvis = m.body("pelvis").id
            base = self.sim.base_pose()
            c, s = math.cos(base.yaw), math.sin(base.yaw)
            R = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
            bodies = sorted(self._robot)
            self._offsets = (d.xpos[bodies] - d.xpos[pelvis]) @ R
        return self._offsets

    def body_points(self) -> np.ndarray:
        return self.data.xpos[sorted(self._robot)].copy()

    def target_aabbs(self) -> np.ndarray:
        return np.array([self.apartment.furniture[g.object_id].aabb() for g in self.spec.goals])

    def _succeeded(self) -> bool:
        near = body_target_distance(self.body_points(), self.target_aabbs()) <= NAV_RADIUS_M
        if self.spec.object_category not in INTERACT_CATEGORIES:
            return near
        return interact_success(self.chunks, self.targets, active_stop=True, is_interact=True)[0]

    def episode_data(self, planner: str = "") -> EpisodeData:
        positions = {n: np.array(p).reshape(-1, 3) for n, p in self._positions.items() if p}
        commanded = np.array(self._commanded) if self._commanded else None
        if commanded is not None:  # 50 Hz control rows resampled to the metric's 30 frames/s
            t50 = np.arange(len(commanded)) / 50.0
            t30 = np.arange(0.0, t50[-1] + 1e-9, 1.0 / FRAME_RATE_HZ)
            flat = commanded.reshape(len(commanded), -1)
            commanded = np.stack([np.interp(t30, t50, flat[:, k]) for k in range(flat.shape[1])], axis=1)
            commanded = commanded.reshape(len(t30), -1, 3)
        return EpisodeData(
            episode_id=self.spec.episode_id, scene_id=self.spec.scene_id, category=self.spec.object_category,
            decisions=self.decisions, chunks=self.chunks, final_body_points=self.body_points(),
            target_aabbs=self.target_aabbs(), targets=self.targets, floor_ray_hits_z=self.floor_hits,
            robot_min_z=self.robot_min_z, reset_contact_distances=self.reset_distances, object_positions=positions,
            commanded_points=commanded, profile=self.condition.name, planner=planner,
        )

    def privileged(self) -> dict:
        """Geometry for the oracle: the controller, the robot's pose, the targets, and the way there on the
        navigation grid."""
        if self.grid is None:
            self.grid = NavGrid.build(self.apartment)
            around = self.profile.route_around_clutter
            self._route_grids = (NavGrid.build(self.apartment, clutter=True), self.grid) if around else (self.grid,)
        base = self.sim.base_pose()
        grid, path = self._route((base.x, base.y))
        goals = [self.apartment.furniture[g.object_id] for g in self.spec.goals]
        return {
            "controller": self.controller.name,
            "pose": (base.x, base.y, base.yaw),
            "category": self.spec.object_category,
            "interact": self.spec.object_category in INTERACT_CATEGORIES,
            "target_distance": body_target_distance(self.body_points(), self.target_aabbs()),
            "targets": [{"centre": g.centre, "yaw": g.yaw, "half_extents": g.half_extents, "backrest": g.backrest,
                         "seat_height": g.seat_height, "aabb": g.aabb(), "approach": approach}
                        for g, approach in zip(goals, self._approaches((base.x, base.y)))],
            "grid": grid,
            "path": path,
            "contacts": self._obstacle_contacts(),
            "pelvis_on_target": bool(np.isin(self._pelvis_partners(), list(self._target_bodies)).any()),
            "sits": sum(1 for d in self.decisions if d.skill == actions.SIT),
        }

    def _obstacle_contacts(self) -> list[tuple[float, float]]:
        """Where the robot touches anything but a target, above the floor (xy): what a stuck walk pushes against."""
        m, d = self.model, self.data
        points = []
        for i in range(d.ncon):
            c = d.contact[i]
            b1, b2 = int(m.geom_bodyid[c.geom[0]]), int(m.geom_bodyid[c.geom[1]])
            if (b1 in self._robot) != (b2 in self._robot) and not {b1, b2} & self._target_bodies and c.pos[2] > 0.05:
                points.append((float(c.pos[0]), float(c.pos[1])))
        return points

    def _start(self, xy, grid: NavGrid | None = None) -> tuple[float, float]:
        """The robot's position, or the nearest free cell's centre when it stands in a wall or furniture margin."""
        grid = grid or self.grid
        if grid.navigable(xy):
            return xy
        free = np.argwhere(grid.free)
        row, col = grid.cell(xy)
        nearest = free[np.argmin(np.hypot(free[:, 0] - row, free[:, 1] - col))]
        return tuple(float(c) for c in grid.centres(nearest[None])[0])

    def _route(self, xy) -> tuple[NavGrid, list[tuple[float, float]]]:
        """The first route grid with a path to a goal cell, and that path, kept clear of the margins
        where it can be, from the nearest free cell if need be; the last grid and no path when none has one."""
        goals = self._goal_cells(xy)
        for grid in self._route_grids:
            free = [g for g in goals if grid.free[g]]  # clutter may cover a goal cell
            start = self._start(xy, grid)
            path = grid.path(start, free, keep_clear=True) if free else []
            if path:
                return grid, path if start == xy else [start, *path]
        return grid, []

    def _goal_cells(self, xy) -> list[tuple[int, int]]:
        """The view points of the targets; for a seat, its approach cell."""
        if self.spec.object_category in INTERACT_CATEGORIES:
            return [self.grid.cell(a) for a in self._approaches(xy)]
        return [self.grid.cell(vp.agent_state.position[:2]) for g in self.spec.goals for vp in g.view_points]

    def _approaches(self, xy) -> list[tuple[float, float]]:
        """Per goal seat, the centre of the free cell the robot can reach that is nearest the spot in front
        of it, preferring cells in front of the seat; fixed at the first call (the grid holds no clutter)."""
        if not hasattr(self, "_approach_points"):
            labels = self.grid.components()
            reachable = np.argwhere(labels == labels[self.grid.cell(self._start(xy))])
            centres = self.grid.centres(reachable)
            self._approach_points = []
            for goal in self.spec.goals:
                piece = self.apartment.furniture[goal.object_id]
                u, v = Rect.of(piece).local(centres).T
                aside = (u < piece.half_extents[0]) | (np.abs(v) > piece.half_extents[1])
                score = np.hypot(*(centres - _approach(piece)).T) + aside
                self._approach_points.append(tuple(float(c) for c in centres[np.argmin(score)]))
        return self._approach_points
