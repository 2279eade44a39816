"""One Fiatlux episode: the seeded scene, its start and the 50 Hz step with its gate.

The layout depends on the seed alone (as the original draws it once per
scene), so a seed is the same room in every subtask; the start jitter and
the observation noise come from a generator of (subtask, seed). The episode
composes the scene (`scene.py`), the start placement (`start.py`), the
snapshot the gates read (`sensing.py`), the policy's observation
(`observation.py`) and the stage judging (`judging.py`): each step measures
one `Snapshot`, judges it and scores it. The bag row of the step is built
from the same measurements.
"""

from __future__ import annotations

import math

import numpy as np

from ...control.base import Controller
from ...control.contracts import get as get_contract
from ...control.contracts.joint_position import JOINT_NAMES
from ...sim import look as looks
from ...sim.simulation import Simulation
from ..base import Episode, StepResult
from . import props, scene
from .contract import JOINT_POSITION_V1, Q0_VECTOR, SCALE
from .gates import Snapshot
from .judging import StageProgress
from .layout import ROOM_CENTRE, ROOM_SIZE, generator, sample_layout
from .observation import POSED, Observer
from .props import BULBS
from .randomisation import HAND_FRICTION, Appearance, Lighting, PropScale, draw_appearance, draw_lighting, draw_prop_scale
from .rewards import REWARDS, MotionReader, distances
from .robot import apply_servos
from .rungs import RungSensor
from .seat import MagneticSeat
from .sensing import SnapshotSensor
from .start import StartPlacer
from .subtasks import FiatluxTask
from .views import OBS_MODES

RETURN = "return"  # the metrics' running episode return; `return/<term>` per reward term


class FiatluxEpisode(Episode):
    def __init__(self, task: FiatluxTask, seed: int, controller: Controller, contract: str, look: str,
                 detail: str = "fast", randomize: bool = True, prop_scale: bool = False,
                 obs_mode: str = "standard") -> None:
        """Made by the suite (`Fiatlux.make_episode`), which hands it the controller, the action contract
        that controller executes and the look (a name of `sim.look.LOOKS`). `randomize=False` turns every
        randomisation off (lights, tint, jitter, hand friction, prop scale); `prop_scale` scales the
        ladder, socket and fresh bulb per layout seed; `obs_mode` picks what `observation()` gives
        (`OBS_MODES`)."""
        if obs_mode not in OBS_MODES:
            raise ValueError(f"obs_mode {obs_mode!r}: use one of {', '.join(OBS_MODES)}")
        self.condition = task
        self.obs_mode = obs_mode
        self.seed = int(seed)
        self.randomize = randomize
        self.layout = sample_layout("layout", self.seed)
        self.rng = generator(task.key, self.seed)
        self.lighting = draw_lighting(generator(f"{task.key}/lights", self.seed)) if randomize else Lighting()
        self.scale = draw_prop_scale(generator("prop-scale", self.seed)) if randomize and prop_scale else PropScale()
        sx, sy, sz = self.scale.ladder
        self.tread_centre, self.tread_top = (props.TREAD_CENTRE[0] * sx, props.TREAD_CENTRE[1] * sy), props.TREAD_TOP * sz
        self.plug = {b: props.PLUG_OFFSET * self.scale.bulb(b) for b in BULBS}
        self.controller = controller
        self.contract = get_contract(contract)
        self.placement = scene.place_props(self.layout, task.start.ladder, self.tread_centre)
        self.look = looks.get(look)
        # Colours of a dressed look, from their own generator: no other draw moves with them.
        drawn = randomize and self.look.dressed
        self.appearance = draw_appearance(generator(f"{task.key}/appearance", self.seed)) if drawn else Appearance()
        hand_friction = generator("hand-friction", self.seed).uniform(*HAND_FRICTION) if randomize else None
        spec = scene.build(self.layout, self.placement, self.scale, self.lighting, self.look, self.appearance,
                           self.controller, detail, self.rng if randomize else None, hand_friction)
        self.sim = Simulation(spec, self.controller)
        m = self.sim.model
        apply_servos(m)
        self._act = np.array([m.actuator(n.removesuffix("_joint")).id for n in JOINT_NAMES])
        self.seat = MagneticSeat(m, BULBS, seat_offset=props.PLUG_OFFSET * self.scale.socket, plug_offsets=self.plug)
        self.sim.physics_step_hooks.append(self.seat.apply_forces)
        self.observer = Observer(m, generator(f"{task.key}/noise", self.seed))
        self._body = {n: m.body(n).id for n in ("pelvis", "ladder", "crate", "fixture", *BULBS)}
        self.free_adr = {n: (int(m.jnt_qposadr[m.joint(f"{n}_joint").id]), int(m.jnt_dofadr[m.joint(f"{n}_joint").id]))
                      for n in ("ladder", *BULBS)}
        tread = (self.tread_centre, self.tread_top)
        self.sensor = SnapshotSensor(m, self.placement, self.scale, tread, self.seat, self._body, self.free_adr)
        self.starter = StartPlacer(m, task.start, self.layout, self.placement, self.scale, tread, self.plug,
                                   self.seat.seat_offset, self._body, self.free_adr)
        self.motion = MotionReader(m)
        self.reward = REWARDS[task.reward](self.motion.ankle_range)
        self.rungs = RungSensor(m) if task.reward == "climb" else None
        self.progress = StageProgress(task.stages)
        self.steps = 0
        # Where the start's and the noise's draws begin: every reset starts from here, so a reset
        # episode repeats its first run exactly (a vectorised environment reuses its compiled scene).
        self._draws = (self.rng.bit_generator.state, self.observer.rng.bit_generator.state)

    def reset(self, start_seed: int | None = None) -> None:
        """Place everything for the episode's start. Every reset repeats the first; `start_seed` draws
        the start jitter and the observation noise from that seed instead (in the same scene)."""
        if start_seed is None:
            self.rng.bit_generator.state, self.observer.rng.bit_generator.state = self._draws
        else:
            self.rng = generator(f"{self.condition.key}/start", int(start_seed))
            self.observer.rng = generator(f"{self.condition.key}/noise/start", int(start_seed))
        jitter = self.rng if self.randomize and not self.condition.start.pinned else None
        self.seat.reset(self.starter.place(self.data, self.controller, jitter))
        self.observer.last_action = np.zeros(len(JOINT_NAMES))
        self.steps, self._state_step = 0, -1
        self.last = self.snapshot()
        self.progress.restart(self.last)
        self.reward.reset(self.last)
        self.terms = dict.fromkeys(self.reward.terms, 0.0)
        self.returns = dict.fromkeys(self.reward.terms, 0.0)
        self.rung_forces = self.rungs.read(self.data) if self.rungs else None

    def snapshot(self) -> Snapshot:
        """This step's measurements; the hand contacts stay in `forces` for the policy's state."""
        self.forces, per_bulb = self.sensor.hand_contacts(self.data)
        return self.sensor.snapshot(self.data, self.controller.base_pose(self.data), per_bulb)

    def state(self) -> np.ndarray:
        """The noisy state of this step: drawn once, so the policy and the recorder see the same values."""
        if self._state_step != self.steps:
            self._state, self._state_step = self.observer.state(self.data, self.forces), self.steps
        return self._state

    def lidar(self) -> np.ndarray:
        return self.observer.lidar(self.data)

    def observation(self) -> dict[str, np.ndarray]:
        """The vectors of the observation mode, float32. Standard: `state` (the noisy state of
        `state()`); privileged: `state` without noise and `privileged` (`privileged_vector`). The
        climbing task adds `rung_forces`: F_rung as sensed, or measured in the privileged mode."""
        if self.obs_mode == "standard":
            obs = {"state": self.state()}
        else:
            obs = {"state": self.observer.exact_state(self.data, self.forces), "privileged": self.privileged_vector()}
        if self.rungs is not None:
            rungs = self.rung_forces if self.obs_mode == "standard" else self.rungs.exact(self.data)
            obs["rung_forces"] = np.asarray(rungs, dtype=np.float32)
        return obs

    def privileged_vector(self) -> np.ndarray:
        """The paper's privileged observation (III-B, eq. 2): the poses of `POSED`, the four score
        distances, and whether the old and the fresh bulb are seated; (48,) float32."""
        d, s = self.data, self.last
        poses = [np.concatenate([d.xpos[self._body[n]], d.xquat[self._body[n]]]) for n in POSED]
        dist = list(distances(s).values())
        seated = [float(s.bulbs[b].seated) for b in ("old_bulb", "fresh_bulb")]
        return np.concatenate([*poses, dist, seated]).astype(np.float32)

    def step(self, row: np.ndarray) -> StepResult:
        self.sim.step(self.contract.decode(row))
        last_action = self.observer.last_action
        if self.contract is JOINT_POSITION_V1:
            self.observer.last_action = np.asarray(row, dtype=np.float64)
        else:  # the observation's last action: the servo targets the controller set, as a joint-position action
            self.observer.last_action = (self.data.ctrl[self._act] - Q0_VECTOR) / SCALE
        self.seat.update(self.data)
        self.steps += 1
        s = self.last = self.snapshot()
        progress = self.progress
        stage = progress.stage
        now, success, outcome = progress.judge(s)
        if self.rungs is not None:
            self.rung_forces = self.rungs.read(self.data)
        motion = self.motion.read(self.data, self.observer.last_action, last_action)
        self.terms = self.reward.step(s, motion, outcome, success, self.rung_forces)
        for k, v in self.terms.items():
            self.returns[k] += v
        metrics = {
            "pelvis_z": float(s.pelvis[2]),
            "pelvis_tilt": s.pelvis_tilt,
            "ladder_tilt": s.ladder_tilt,
            "grip_force": float(max(b.grip_force for b in s.bulbs.values())),
            "conjuncts_true": sum(progress.stage_conjuncts.values()),
            **{f"gate_{k}": v for k, v in progress.conjuncts.items()},
            RETURN: math.fsum(self.returns.values()),
            **{f"{RETURN}/{k}": v for k, v in self.returns.items()},
        }
        if len(progress.stages) > 1:  # which stage (1 = S01) this step judged, and its conjuncts
            metrics["stage"] = stage + 1
            metrics |= {f"stage_{k}": v for k, v in progress.stage_conjuncts.items()}
        return StepResult(metrics, now and progress.stage == len(progress.stages) - 1, success, outcome)

    def privileged(self) -> dict:
        """The original's privileged observation (six poses, four distances, two seat flags), plus
        what a scripted expert needs beside it: the subtask, the controller, the base pose, every
        joint angle (JOINT_NAMES order), the seat and the socket's axis, the largest force a hand
        body puts on each bulb (what the crush limit reads), the floor footprints and the room's
        walls (x0, y0, x1, y1)."""
        d, s = self.data, self.last
        poses = {n: np.concatenate([d.xpos[b], d.xquat[b]]) for n, b in self._body.items()}
        base = self.controller.base_pose(d)
        seat = self.model.site("fixture/seat").id
        return {
            "subtask": self.progress.current.key,
            "controller": self.controller.name,
            "base": np.array([base.x, base.y, base.z, base.yaw]),
            "joints": d.qpos[self.observer.q].copy(),
            "seat": d.site_xpos[seat].copy(),
            "seat_axis": d.site_xmat[seat].reshape(3, 3)[:, 2].copy(),
            "poses": poses,
            "distances": {
                "pelvis_to_ladder": float(np.linalg.norm(s.pelvis[:2] - s.ladder_root[:2])),
                "pelvis_to_crate": s.crate_distance,
                "old_bulb_to_seat": s.bulbs["old_bulb"].plug_to_seat,
                "fresh_bulb_to_seat": s.bulbs["fresh_bulb"].plug_to_seat,
            },
            "seated": {b: s.bulbs[b].seated for b in BULBS},
            "grip_force": {b: s.bulbs[b].grip_force for b in BULBS},
            "footprints": self.footprints(),
            "room": (ROOM_CENTRE[0] - ROOM_SIZE[0] / 2, ROOM_CENTRE[1] - ROOM_SIZE[1] / 2,
                     ROOM_CENTRE[0] + ROOM_SIZE[0] / 2, ROOM_CENTRE[1] + ROOM_SIZE[1] / 2),
        }

    def footprints(self) -> dict[str, tuple[float, float, float, float, float]]:
        """(centre x, centre y, half length, half width, yaw) of what stands on the floor: the workbench
        and crate where they were placed, the ladder where it stands now (it can be pushed)."""
        d, at = self.data, self.placement
        ladder = self._body["ladder"]
        lr = d.xmat[ladder].reshape(3, 3)
        half = (props.LADDER_SIZE[0] / 2 * self.scale.ladder[0], props.LADDER_SIZE[1] / 2 * self.scale.ladder[1])
        return {
            "workbench": (*map(float, at.bench_pos), *props.BENCH_HALF, float(at.bench_yaw)),
            "crate": (*map(float, at.crate_pos), props.CRATE_SIZE[0] / 2, props.CRATE_SIZE[1] / 2, float(at.crate_yaw)),
            "ladder": (*map(float, d.xpos[ladder, :2]), *half, math.atan2(lr[1, 0], lr[0, 0])),
        }
