"""What stops S01 (moving the ladder) at the protocol's robot, and on which settings it goes: a diagnostic.

    python benchmarks/diagnostics/ladder_diagnostic.py --part walk  [--setting protocol] [--seeds 0,1,2]
    python benchmarks/diagnostics/ladder_diagnostic.py --part drag  [--setting stiff-drag] [--seeds 0,1,2]
    python benchmarks/diagnostics/ladder_diagnostic.py --part s01   --setting quarter-ladder-stiff-drag --seeds 100,101
    python benchmarks/diagnostics/ladder_diagnostic.py --part horizon

Every setting but `protocol` changes the robot or its controller, so nothing measured under it is
reportable: it answers "what would it take", never "how well does it do". Human-readable lines,
then one JSON object naming the setting and its values.

`walk`: the balanced robot, unloaded, from S01's start, 15 s at vx -0.03, -0.05, -0.1 and +0.1 m/s
(the heading held): when it falls, the speed it made, at each touchdown how much longer the step
was made than planned (the swinging foot from the stance foot, along the walk), and the pelvis
pitch at the end (-: nose up, fallen backwards).

`drag`: placed 0.95 m out from the steps, the expert's lift (`expert/ladder.py`), then the walk back
at the setting's drag speed for 20 s: whether it stands, how far the ladder came, what the hands
carry, the largest CoM lean the arm load asked of the controller (`armload.py`, limit 12 cm), how
long no hand touched the ladder and how high its middle rose.

`horizon`: no simulation: on how many layout seeds (0-19, 100-119) the straight-line walk to the
steps at the setting's speed, the lift (28 s) and the straight-line drag at 0.03-0.15 m/s fit S01's
120 s (`ladder_budget.distances`; turns not counted).

`s01`: the whole S01 episode (120 s) under the expert with the setting's speeds, one per seed:
the outcome, when the lift and the drag began and how far the ladder moved.

Settings (`SETTINGS`, each a `Setting`): `protocol` is the Fiatlux robot at the research gains under
`balanced` with its Fiatlux tuning and slow gait, at the expert's speeds. The others change, in the
episode's compiled model and the controller's copy of it: every leg servo to the stiff `balanced`
robot variant's 600 N m/rad and 40 N m s/rad (effort limits kept); the step timing to the
controller's stock 0.4 + 0.1 s; the arm servos' gains; the controller's largest lean into an arm
load; a closed grasp (`Grip`, a spring between each wrist and the ladder); the ladder's mass and
inertia; and the drag's speed. `at_drag` waits with the robot's and
the controller's changes until the lift is done, so the walk to the steps and the lift are the
protocol's.

`--smoke` shortens each walk and the drag to 1 s and the S01 episode to 100 control steps (the
lift stays whole), to show the script runs: the figures mean nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys

import humanoidtoolbench  # noqa: F401  (headless GL before MuJoCo loads)
import mujoco
import numpy as np

from humanoidtoolbench.control.balanced.balanced import _roll_pitch
from humanoidtoolbench.control.balanced.footsteps import Timing
from humanoidtoolbench.eval.provenance import source_digest, source_hashes
from humanoidtoolbench.suites.fiatlux import SUITE
from humanoidtoolbench.suites.fiatlux.expert import ladder
from humanoidtoolbench.suites.fiatlux.expert.navigate import ENGAGE
from humanoidtoolbench.suites.fiatlux.subtasks import BY_KEY, HORIZON_S
from humanoidtoolbench.planning.skills import wait

ARM = ("shoulder", "elbow", "wrist")
STIFF_LEGS = (600.0, 40.0)  # kp, kd of the stiff `balanced` robot variant's leg servos
WALKS = (-0.03, -0.05, -0.1, 0.1)  # m/s
WALK_S, DRAG_S = 15.0, 20.0
HORIZON_BACK = (0.03, 0.05, 0.1, 0.15)  # m/s


@dataclasses.dataclass(frozen=True)
class Setting:
    leg_servo: tuple[float, float] | None = None  # kp, kd of every leg joint; None: the research table
    stock_gait: bool = False  # the balanced controller's stock step timing (0.4 + 0.1 s steps), not Fiatlux's STROLL (0.8 + 0.6 s)
    arm_servo: float = 1.0  # times every arm joint's kp and kd (shoulders, elbows, wrists)
    ladder_mass: float = 1.0  # times the ladder's 10.9 kg (and its inertia), from the start
    lean: float | None = None  # m: the largest CoM lean into the arms' load (`armload.Lean.limit`, 0.12)
    grip: float | None = None  # N/m: from the drag on, each wrist held to its place on the ladder by a spring (a closed grasp)
    at_drag: bool = False  # the changes above only from the drag on (the walk there and the lift on the protocol's)
    walk: float = ladder.SPEED  # m/s to the steps
    back: float = ladder.DRAG  # m/s, the drag


SETTINGS = {  # none of them the protocol's but the first
    "protocol": Setting(),
    "stiff-legs": Setting(leg_servo=STIFF_LEGS, stock_gait=True, walk=0.1, back=0.1),
    "stiff-drag": Setting(leg_servo=STIFF_LEGS, stock_gait=True, at_drag=True, walk=0.1, back=0.1),
    "stiff-drag-lean": Setting(leg_servo=STIFF_LEGS, stock_gait=True, lean=0.16, at_drag=True, walk=0.1, back=0.1),
    "stiff-drag-arms": Setting(leg_servo=STIFF_LEGS, stock_gait=True, arm_servo=4.0, at_drag=True, walk=0.1, back=0.1),
    "stiff-drag-grip": Setting(leg_servo=STIFF_LEGS, stock_gait=True, grip=3000.0, at_drag=True, walk=0.1, back=0.1),
    "half-ladder": Setting(ladder_mass=0.5),
    "half-ladder-stiff-drag": Setting(leg_servo=STIFF_LEGS, stock_gait=True, ladder_mass=0.5, at_drag=True, walk=0.1, back=0.1),
    "half-ladder-stiff-drag-grip": Setting(leg_servo=STIFF_LEGS, stock_gait=True, grip=3000.0, ladder_mass=0.5, at_drag=True, walk=0.1, back=0.1),
    "quarter-ladder-stiff-drag": Setting(leg_servo=STIFF_LEGS, stock_gait=True, ladder_mass=0.25, at_drag=True, walk=0.1, back=0.1),
    "light-ladder-stiff-drag": Setting(leg_servo=STIFF_LEGS, stock_gait=True, ladder_mass=0.02, at_drag=True, walk=0.1, back=0.1),
}


def change(ep, setting: Setting) -> None:
    """Put the setting on a running episode: the leg servos' gains in the model and in the
    controller's copy of them, its step timing and its tuning."""
    c, m = ep.controller, ep.model
    if setting.leg_servo is not None:
        kp, kd = setting.leg_servo
        m.actuator_gainprm[c._leg_act, 0] = kp
        m.actuator_biasprm[c._leg_act, 1:3] = (-kp, -kd)
        c._leg_kp[:], c._leg_kd[:] = kp, kd
    if setting.arm_servo != 1.0:
        arms = np.array([i for i, a in enumerate(c._slot_act) if any(j in m.actuator(a).name for j in ARM)])
        acts = c._slot_act[arms]
        m.actuator_gainprm[acts, 0] *= setting.arm_servo
        m.actuator_biasprm[acts, 1:3] *= setting.arm_servo
        c._slot_kp[arms] *= setting.arm_servo
    if setting.stock_gait:
        c.timing = c.schedule.timing = Timing()
    if setting.lean is not None:
        c.tuning = dataclasses.replace(c.tuning, lean=dataclasses.replace(c.tuning.lean, limit=setting.lean))
        c.arm_loads.lean = c.tuning.lean


class Grip:
    """A closed grasp, as a diagnostic: from `hold`, a damped spring of `stiffness` pulls each wrist
    and the point of the ladder where that wrist then was together, with equal and opposite forces
    applied to both bodies (so the controller counts them as an arm load)."""

    DAMPING = 0.05  # s: damping over stiffness

    def __init__(self, ep, stiffness: float) -> None:
        self.ep, self.k = ep, stiffness
        m = ep.model
        self.ladder = m.body("ladder").id
        self.wrists = [m.body(f"{s}_wrist_yaw_link").id for s in ("left", "right")]
        self.points = None

    def hold(self) -> None:
        d = self.ep.data
        rot, origin = d.xmat[self.ladder].reshape(3, 3), d.xpos[self.ladder]
        self.points = [rot.T @ (d.xpos[w] - origin) for w in self.wrists]

    def apply(self) -> None:
        if self.points is None:
            return
        m, d = self.ep.model, self.ep.data
        rot, origin = d.xmat[self.ladder].reshape(3, 3), d.xpos[self.ladder]
        d.xfrc_applied[[self.ladder, *self.wrists]] = 0.0
        for w, local in zip(self.wrists, self.points):
            p = origin + rot @ local
            vel = np.zeros(6)
            mujoco.mj_objectVelocity(m, d, mujoco.mjtObj.mjOBJ_BODY, w, vel, 0)
            there = np.zeros(6)
            mujoco.mj_objectVelocity(m, d, mujoco.mjtObj.mjOBJ_BODY, self.ladder, there, 0)
            v_point = there[3:] + np.cross(there[:3], p - origin)
            f = self.k * (d.xpos[w] - p) + self.k * self.DAMPING * (vel[3:] - v_point)
            d.xfrc_applied[self.ladder, :3] += f
            d.xfrc_applied[self.ladder, 3:] += np.cross(p - d.xipos[self.ladder], f)
            d.xfrc_applied[w, :3] -= f
            d.xfrc_applied[w, 3:] -= np.cross(d.xpos[w] - d.xipos[w], f)


def episode(setting: Setting, seed: int):
    """An S01 episode, reset, on the setting's robot and controller (unless they wait for the drag)."""
    ep = SUITE.make_episode(BY_KEY["S01"], seed, SUITE.make_controller("balanced"), "fast")
    ep.reset()
    b = ep.model.body("ladder").id
    ep.model.body_mass[b] *= setting.ladder_mass
    ep.model.body_inertia[b] *= setting.ladder_mass
    if not setting.at_drag:
        change(ep, setting)
    return ep


def walk(setting: Setting, seed: int, vx: float, seconds: float = WALK_S) -> dict:
    ep = episode(setting, seed)
    c, d = ep.controller, ep.data
    upper = d.ctrl[c._slot_act].copy()
    heading = c.base_pose(d).yaw
    ahead = np.array([math.cos(heading), math.sin(heading)])
    start = d.xpos[c._pelvis, :2].copy()
    landing, phase, swing, fell = [], None, None, None
    for k in range(int(seconds * 50)):
        ep.step(np.concatenate([upper, [0.74, vx, 0.0, ENGAGE, heading]]))
        sch = c.schedule
        if phase == "single" and sch.phase != "single":  # a touchdown: the step as made against the step planned
            stance = "left" if swing == "right" else "right"
            made = d.xpos[c._foot_body[swing], :2] - d.xpos[c._foot_body[stance], :2]
            planned = sch.feet[swing][:2] - sch.feet[stance][:2]
            landing.append(float((made - planned) @ ahead) * math.copysign(1.0, vx))
        phase, swing = sch.phase, sch.swing
        if c.fallen(d):
            fell = (k + 1) / 50
            break
    t = (k + 1) / 50
    return {"vx": vx, "fell_at_s": fell, "made_m_s": float((d.xpos[c._pelvis, :2] - start) @ ahead) / t,
            "landing_cm": [round(100 * x, 1) for x in landing], "pitch_end_rad": _roll_pitch(d.xmat[c._pelvis])[1]}


def placed_at_steps(setting: Setting, seed: int):
    """As `ladder_budget.placed_at_steps`, on the setting's robot."""
    from ladder_budget import placed_at_steps as place

    return place(seed, episode(setting, seed))


def drag(setting: Setting, seed: int, drag_s: float = DRAG_S) -> dict:
    from ladder_budget import LIFT_STEPS, run_plan

    ep = placed_at_steps(setting, seed)
    c, seen, lean = ep.controller, {}, [0.0]
    grip = Grip(ep, setting.grip) if setting.grip else None

    def lift_then_drag(ctx):
        yield from ladder.lift(ctx)
        seen["lifted"] = (ep.last, ep.data.time)
        seen["carry"] = -(c.arm_loads.wrench["left"][2] + c.arm_loads.wrench["right"][2])
        if setting.at_drag:
            change(ep, setting)
        if grip is not None:
            grip.hold()
        ctx.cmd[32:36] = (-setting.back, 0.0, ENGAGE, float(ctx.obs.base[3]))
        yield from wait(ctx, drag_s)

    lb = ep.model.body("ladder").id
    gone, high = [0], [0.0]  # control steps of the drag with no hand on the ladder; its highest lift

    def each(_):
        if "lifted" not in seen:
            return
        if grip is not None:
            grip.apply()
        asked = c.arm_loads.lean_into(ep.data, np.array([*c.schedule.zmp(), c.ground]), c.ff.mass)
        if asked is not None:
            lean[0] = max(lean[0], float(np.abs(asked[0]).max()))
        pairs = ep.model.geom_bodyid[ep.data.contact.geom[: ep.data.ncon]]
        held = any(lb in (a, b) and c.arm_loads.side_of[b if a == lb else a] >= 0 for a, b in pairs)
        gone[0] += not held
        high[0] = max(high[0], float(ep.last.ladder_root[2]))

    fell = run_plan(ep, lift_then_drag, LIFT_STEPS + round(drag_s * 50), each)
    if "lifted" not in seen:
        return {"seed": seed, "fell_at_s": fell, "lifted": False}
    s, t = seen["lifted"]
    return {"seed": seed, "lifted": True, "lift_up_cm": 100 * float(s.ladder_root[2]), "hands_carry_n": float(seen["carry"]),
            "fell_s_into_drag": None if fell is None else fell - t, "ladder_moved_m": float(np.linalg.norm(ep.last.ladder_root[:2] - s.ladder_root[:2])),
            "largest_lean_m": lean[0], "hands_off_s": gone[0] / 50, "highest_lift_cm": 100 * high[0]}


def s01(setting: Setting, seed: int, steps: int | None = None) -> dict:
    """`steps`: at most this many control steps (None: the subtask's whole horizon)."""
    from humanoidtoolbench.suites.fiatlux.expert import PLANS, Expert
    from humanoidtoolbench.suites.fiatlux.expert.navigate import go
    from humanoidtoolbench.planning.skills import hold_still

    ep, marks = episode(setting, seed), {}

    def plan(ctx):  # `ladder.plan` at the setting's speeds, the setting put on as the drag starts
        yield from go(ctx, lambda w: [ladder.approach_point(w)], lambda w: ladder.ladder_frame(w)[0][:2], setting.walk)
        marks["lift_s"] = ep.data.time
        yield from ladder.lift(ctx)
        marks["drag_s"] = ep.data.time
        if setting.at_drag:
            change(ep, setting)
        yield from ladder.drag(ctx, setting.back)
        yield from hold_still(ctx)

    expert, saved = Expert(), PLANS["S01"]
    PLANS["S01"] = plan
    try:
        for k in range(BY_KEY["S01"].max_steps if steps is None else min(steps, BY_KEY["S01"].max_steps)):
            if k % expert.chunk == 0:
                rows = expert({"privileged": ep.privileged(), "history": {"reset": k == 0}, "state": {}})
            result = ep.step(rows[k % expert.chunk])
            if result.outcome is not None:
                break
    finally:
        PLANS["S01"] = saved
    return {"seed": seed, "success": bool(result.success), "outcome": result.outcome, "steps": k + 1, **marks,
            "ladder_moved_m": float(np.linalg.norm(ep.last.ladder_root[:2] - np.asarray(ep.placement.ladder_pos)))}


def horizon(setting: Setting) -> list[dict]:
    """Per seed range: on how many seeds the walk there (at `walk`), the lift and the drag (at each
    speed) fit S01's horizon, straight lines, no turns."""
    from ladder_budget import LIFT_STEPS, distances

    rows = []
    for first in (0, 100):
        walk, drag = distances(range(first, first + 20))
        for back in HORIZON_BACK:
            total = walk / setting.walk + LIFT_STEPS / 50 + drag / back
            rows.append({"seeds": f"{first}-{first + 19}", "back_m_s": back, "fit": int((total <= HORIZON_S).sum()), "of": 20,
                         "median_s": float(np.median(total))})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("walk", "drag", "s01", "horizon"), required=True)
    parser.add_argument("--setting", choices=tuple(SETTINGS), default="protocol")
    parser.add_argument("--seeds", default="0,1,2", help="layout seeds, comma-separated")
    parser.add_argument("--smoke", action="store_true", help="walks and the drag 1 s, S01 100 steps: the script runs, the figures mean nothing")
    args = parser.parse_args()
    try:
        seeds = [int(s) for s in args.seeds.split(",")]
    except ValueError:
        print(f"ladder_diagnostic: --seeds takes integers separated by commas, not {args.seeds!r}", file=sys.stderr)
        sys.exit(2)
    setting = SETTINGS[args.setting]
    walk_s, drag_s, s01_steps = (1.0, 1.0, 100) if args.smoke else (WALK_S, DRAG_S, None)
    if args.part == "s01" and setting.grip:
        print(f"ladder_diagnostic: {args.setting} holds the ladder with a spring that nothing lets go: --part drag only", file=sys.stderr)
        sys.exit(2)
    print(f"source digest {source_digest(source_hashes(SUITE))[:12]} (the Fiatlux suite's)")
    print(f"setting {args.setting}: {dataclasses.asdict(setting)}" + ("" if args.setting == "protocol" else " (not the protocol's: not reportable)"))
    rows = []
    if args.part == "horizon":
        rows = horizon(setting)
        for r in rows:
            print(f"  seeds {r['seeds']}, dragged at {r['back_m_s']} m/s: {r['fit']} of 20 fit {HORIZON_S:.0f} s (median {r['median_s']:.0f} s)")
        seeds = []
    for seed in seeds:
        if args.part == "walk":
            for vx in WALKS:
                row = {"seed": seed, **walk(setting, seed, vx, walk_s)}
                rows.append(row)
                print(f"  seed {seed}, vx {vx:+.2f} m/s: {'fell at %.1f s' % row['fell_at_s'] if row['fell_at_s'] else 'stands %.0f s' % walk_s}, "
                      f"made {row['made_m_s']:+.3f} m/s, steps longer than planned by {row['landing_cm']} cm, pelvis pitch {row['pitch_end_rad']:+.2f} rad", flush=True)
        elif args.part == "drag":
            row = drag(setting, seed, drag_s)
            rows.append(row)
            if row["lifted"]:
                fell = row["fell_s_into_drag"]
                print(f"  seed {seed}: lifted {row['lift_up_cm']:.1f} cm, hands carry {row['hands_carry_n']:.0f} N; dragged back at {setting.back} m/s: "
                      f"{'fell %.1f s in' % fell if fell is not None else 'stands %.0f s' % drag_s}, the ladder moved {100 * row['ladder_moved_m']:.0f} cm, "
                      f"largest lean asked {100 * row['largest_lean_m']:.1f} cm; no hand on it {row['hands_off_s']:.1f} s, lifted at most "
                      f"{row['highest_lift_cm']:.1f} cm", flush=True)
            else:
                print(f"  seed {seed}: fell at {row['fell_at_s']} s before the lift held", flush=True)
        else:
            row = s01(setting, seed, s01_steps)
            rows.append(row)
            print(f"  seed {seed}: {'success' if row['success'] else row['outcome'] or 'timeout'} after {row['steps']} steps, "
                  f"the lift from {row.get('lift_s', math.nan):.0f} s, the drag from {row.get('drag_s', math.nan):.0f} s; "
                  f"the ladder moved {row['ladder_moved_m']:.2f} m", flush=True)
    if args.part == "s01":
        print(f"S01 under {args.setting}: {sum(r['success'] for r in rows)} / {len(rows)}")
    print(json.dumps({"setting": args.setting, "values": dataclasses.asdict(setting), "part": args.part, "rows": rows}, default=float))


if __name__ == "__main__":
    main()
