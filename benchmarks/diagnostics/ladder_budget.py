"""The force budget of moving the ladder (S01): what each way of moving it asks, what the robot gives.

    python benchmarks/diagnostics/ladder_budget.py [--part ladder|robot|horizon]   # all parts: about 10 min

Human-readable lines, then one JSON object. Four parts:

`ladder`: the ladder alone on the floor (the scene's physics options, no robot). Its weight W, centre
of mass and feet come from the compiled prop. The horizontal force that slides it on its four feet is
mu W (mu 1.5, the ladder's grip against the floor's 1.0: MuJoCo takes the larger). Pushed at a height
h, it tips about the far feet before it slides where mu h exceeds the far feet's lever L to its
centre of mass: every height the hands reach (0.6-1.0 m, against L = 0.43 m from the steps, 0.49
from the back, 0.27 from the side), from every side, so no push at the hands slides it. Lifting the
near end under a step and pulling it towards the robot, the far feet alone drag: about them
V Lh = W Lc + H h, and sliding H = mu (W - V), so V = W (Lc + mu h) / (Lh + mu h). Each strategy's
wrench is applied to the simulated ladder (ramped over 1 s, held 2 s, 5 % over the figure) and the
outcome read: how far it slid, how far it tilted.

`robot`: the Fiatlux robot under `balanced` (the research gains). The expert's lift (`expert/ladder.py`)
from 0.95 m out from the steps, on layout seeds 0-2: whether the steps end comes up, what the hands
carry, and the arm joint torques that takes at the lifting posture as the robot holds it (J^T F at
each hand's contacts, against each joint's effort limit and the torque its servo makes there: kp times
the distance to the end of the joint's range, as the targets are clipped to it); then the drag, the
lifted ladder pulled walking back at 0.03 m/s for 20 s: how far it comes, whether the robot stands.
Beside it, walking back unloaded from S01's start for 15 s at 0.03, 0.05 and 0.1 m/s: how long it stands.

`horizon`: over layout seeds 0-19 and 100-119, the straight-line distance from the robot's start to the
ladder's steps and from the ladder's tread to within the gate's radius of the seat, and the time
that takes at the speeds the robot walks, against the 120 s horizon.

`--smoke`: the `robot` part on seed 0 only, the lift whole but the drag and one unloaded walk back
1 s each, to show the script runs (those figures mean nothing); `ladder` and `horizon` are brief.
"""

from __future__ import annotations

import argparse
import json
import math

import humanoidtoolbench  # noqa: F401  (headless GL before MuJoCo loads)
import mujoco
import numpy as np

from humanoidtoolbench.sim import scene
from humanoidtoolbench.suites.fiatlux import gates, props
from humanoidtoolbench.suites.fiatlux.layout import ROOM_CENTRE, ROOM_SIZE, sample_layout
from humanoidtoolbench.suites.fiatlux.subtasks import HORIZON_S

G = 9.81
MU = max(props.LADDER_FRICTION[0], 1.0)  # the ladder's grip against the floor's: MuJoCo takes the larger
FEET_Y = props.LADDER_SIZE[1] / 2  # the feet's outer edges, about which the ladder tips (ladder frame)
FEET_X = props.LADDER_SIZE[0] / 2
PULLS = {  # grip points, ladder frame (the steps face -y): under a step's plank, pulled towards the robot
    "under step 1 (0.68 m)": (0.0, props.STEP_Y[1], props.STEP_HEIGHTS[1] - props.PLANK),
    "under step 2 (0.91 m)": (0.0, props.STEP_Y[2], props.STEP_HEIGHTS[2] - props.PLANK),
}
PUSH_HEIGHTS = (0.6, 0.8, 1.0)  # m: where the standing robot's hands reach
OVER = 1.05  # the applied wrench, over the figure
LIFT = 0.03  # m: how far a lifted end is held up
LIFT_STEPS = 1400  # control steps the expert's lift from 0.95 m out takes, at most
DRAG_S = 20.0


def ladder_model() -> tuple[mujoco.MjModel, mujoco.MjData]:
    spec = scene.new_spec(room=scene.Room(ROOM_SIZE, ROOM_CENTRE, ceiling=True))
    props.add_ladder(spec, "ladder", [0.0, 0.0, 0.0], 0.0)
    m = spec.compile()
    return m, mujoco.MjData(m)


def statics(m: mujoco.MjModel) -> dict:
    b = m.body("ladder").id
    w = float(m.body_mass[b]) * G
    com = m.body_ipos[b]
    # Pushed from its steps (towards +y) it tips about its back feet, from its back about its front feet.
    return {"weight_n": w, "com": com.tolist(), "slide_n": MU * w,
            "lever_steps_m": FEET_Y - float(com[1]), "lever_back_m": FEET_Y + float(com[1]), "lever_side_m": FEET_X}


def lift_and_pull(st: dict, grip) -> dict:
    """The hands' wrench (V up, H towards the robot) that slides the ladder on its far feet, the near end held up."""
    w, lc = st["weight_n"], FEET_Y - st["com"][1]
    lh, h = FEET_Y - grip[1], grip[2]
    v = w * (lc + MU * h) / (lh + MU * h)
    return {"up_n": v, "pull_n": MU * (w - v), "far_feet_n": w - v}


def simulate(m, d, point, force, hold: float | None = None, seconds: float = 3.0) -> dict:
    """Apply `force` (world, N) at the ladder-frame `point`, ramped over 1 s and held; how far it
    slid (m) in the last second, its largest tilt (rad) and the mean upward force over that second.
    With `hold`, the point's height is held `hold` m above where it starts by a stiff vertical spring
    (as a hand holds what it lifts) instead of the force's vertical part."""
    mujoco.mj_resetData(m, d)
    b = m.body("ladder").id
    mujoco.mj_forward(m, d)
    tilt, up, last = 0.0, [], None
    z0 = (d.xpos[b] + d.xmat[b].reshape(3, 3) @ np.asarray(point))[2]
    steps = int(seconds / m.opt.timestep)
    for k in range(steps):
        s = min(k * m.opt.timestep, 1.0)
        p = d.xpos[b] + d.xmat[b].reshape(3, 3) @ np.asarray(point)
        f = s * np.asarray(force, float)
        if hold is not None:
            jac = np.zeros((3, m.nv))
            mujoco.mj_jac(m, d, jac, None, p, b)
            f[2] = 20000.0 * (z0 + hold * s - p[2]) - 400.0 * float(jac[2] @ d.qvel)
        d.xfrc_applied[b, :3] = f
        d.xfrc_applied[b, 3:] = np.cross(p - d.xipos[b], f)
        mujoco.mj_step(m, d)
        tilt = max(tilt, math.acos(min(1.0, d.xmat[b, 8])))
        if k == steps - int(1.0 / m.opt.timestep):
            last = d.xpos[b, :2].copy()
        if last is not None:
            up.append(f[2])
    return {"slid_last_s_m": float(np.linalg.norm(d.xpos[b, :2] - last)), "tilt_rad": tilt, "up_n": float(np.mean(up))}


def ladder_part() -> dict:
    m, d = ladder_model()
    st = statics(m)
    w = st["weight_n"]
    print(f"ladder: {w / G:.1f} kg (W {w:.0f} N), centre of mass {np.round(st['com'], 3).tolist()} m; "
          f"slides at mu W = {st['slide_n']:.0f} N")
    out = {"statics": st, "push": {}, "pull": {}}
    levers = {"steps": (st["lever_steps_m"], (0.0, 1.0)), "back": (st["lever_back_m"], (0.0, -1.0)), "side": (st["lever_side_m"], (1.0, 0.0))}
    for side, (lever, direction) in levers.items():
        for h in PUSH_HEIGHTS:
            tip = w * lever / h
            slide_first = MU * h < lever
            f = OVER * min(tip, st["slide_n"]) * np.array([*direction, 0.0])
            near = -0.5 * np.array([props.LADDER_SIZE[0] * direction[0], props.LADDER_SIZE[1] * direction[1]])
            sim = simulate(m, d, (*near, h), f)
            out["push"][f"{side}_{h}m"] = {"tips_n": tip, "slides_first": slide_first, **sim}
            print(f"  pushed from its {side} at {h} m: tips at {tip:.0f} N, {'slides' if slide_first else 'tips'} first; "
                  f"{OVER:.2f} x that: tilted {sim['tilt_rad']:.2f} rad, slid {100 * sim['slid_last_s_m']:.1f} cm in the last second")
    for name, grip in PULLS.items():
        need = lift_and_pull(st, grip)
        out["pull"][name] = need
        print(f"  near end lifted {name} and pulled: up {need['up_n']:.0f} N, pull {need['pull_n']:.0f} N "
              f"(far feet carry {need['far_feet_n']:.0f} N)")
        for share in (0.95, OVER):
            sim = simulate(m, d, grip, share * np.array([0.0, -need["pull_n"], 0.0]), hold=LIFT)
            out["pull"][name][f"held_{LIFT}m_pulled_x{share}"] = sim
            print(f"    held {100 * LIFT:.0f} cm up, pulled {share:.2f} x that: carries {sim['up_n']:.0f} N, "
                  f"slid {100 * sim['slid_last_s_m']:.1f} cm in the last second, tilted {sim['tilt_rad']:.2f} rad")
    return out


def distances(seeds) -> tuple[np.ndarray, np.ndarray]:
    """Per layout seed, straight-line: S01's start to where the robot stands to lift, and the ladder's
    tread to within the gate's radius of the seat."""
    walk, drag = [], []
    for seed in seeds:
        lay = sample_layout("layout", seed)
        yaw = lay.ladder_yaw
        c, s = math.cos(yaw), math.sin(yaw)
        ladder = np.array(lay.zones["ladder"])
        steps = ladder + np.array([s, -c]) * (props.LADDER_SIZE[1] / 2 + 0.3)  # where the robot stands to lift
        tread = ladder + np.array([c * props.TREAD_CENTRE[0] - s * props.TREAD_CENTRE[1], s * props.TREAD_CENTRE[0] + c * props.TREAD_CENTRE[1]])
        walk.append(float(np.linalg.norm(steps - np.array(lay.zones["robot"]))))
        drag.append(max(0.0, float(np.linalg.norm(tread - np.array(lay.fixture.pos[:2]))) - gates.LADDER_READY_RADIUS))
    return np.array(walk), np.array(drag)


def horizon_part() -> dict:
    """Straight-line distances of S01 over two seed ranges and the walking time they take."""
    out = {}
    for first in (0, 100):
        walk, drag = distances(range(first, first + 20))
        total = walk + drag
        key = f"seeds_{first}_{first + 19}"
        out[key] = {"walk_m": [float(walk.min()), float(np.median(walk)), float(walk.max())],
                    "drag_m": [float(drag.min()), float(np.median(drag)), float(drag.max())],
                    "total_m": [float(total.min()), float(np.median(total)), float(total.max())]}
        print(f"horizon, {key}: to the steps {walk.min():.1f}-{walk.max():.1f} m (median {np.median(walk):.1f}), "
              f"the ladder on {drag.min():.1f}-{drag.max():.1f} m (median {np.median(drag):.1f}); together median {np.median(total):.1f} m")
        for speed in (0.1, 0.15, 0.2):
            fits = int((total / speed < HORIZON_S).sum())
            out[key][f"fit_at_{speed}"] = fits
            print(f"  walked at {speed} m/s, turns and lifting not counted: {fits} of 20 within {HORIZON_S:.0f} s")
    return out


def placed_at_steps(seed: int, episode=None):
    """An S01 episode (balanced, or `episode` made and reset) with the robot standing `ladder.APPROACH`
    out from the steps, facing them."""
    from humanoidtoolbench.control.base import BasePose
    from humanoidtoolbench.suites.fiatlux.contract import Q0_VECTOR
    from humanoidtoolbench.suites.fiatlux import SUITE
    from humanoidtoolbench.suites.fiatlux.expert import ladder
    from humanoidtoolbench.suites.fiatlux.subtasks import BY_KEY

    ep = episode
    if ep is None:
        ep = SUITE.make_episode(BY_KEY["S01"], seed, SUITE.make_controller("balanced"), "fast")
        ep.reset()
    world = ep.privileged()
    xy, heading = ladder.approach_point(world), ladder.stand_point(world)[1]
    ep.controller.reset(ep.data, BasePose(xy[0], xy[1], 0.792, heading), Q0_VECTOR.copy())
    mujoco.mj_forward(ep.model, ep.data)
    ep.last = ep.snapshot()
    return ep


def run_plan(ep, plan, steps: int, each=None):
    """Drive `ep` with the Fiatlux expert's machinery running `plan(ctx)`; stops at a fall."""
    from humanoidtoolbench.suites.fiatlux.expert import CHUNK
    from humanoidtoolbench.suites.fiatlux.expert.common import context, observe
    from humanoidtoolbench.planning.skills import PlanFollower

    class Follower(PlanFollower):
        def observe(self, request):
            return observe(request["privileged"])

        def start(self, request):
            ctx = context(self.kin, request["privileged"])
            return ctx, plan(ctx)

    follower = Follower()
    for k in range(steps):
        if k % CHUNK == 0:
            rows = follower({"privileged": ep.privileged(), "history": {"reset": k == 0}, "state": {}})
        ep.step(rows[k % CHUNK])
        if each is not None:
            each(k)
        if ep.controller.fallen(ep.data):
            return (k + 1) / 50
    return None


def hand_contacts(ep) -> dict:
    """Per hand: the world force the ladder puts on it (N) and the contact points."""
    m, d = ep.model, ep.data
    lb = m.body("ladder").id
    out = {s: [np.zeros(3), []] for s in ("left", "right")}
    f6 = np.zeros(6)
    for i in range(d.ncon):
        c = d.contact[i]
        b1, b2 = m.geom_bodyid[c.geom[0]], m.geom_bodyid[c.geom[1]]
        if lb not in (b1, b2):
            continue
        other = b2 if b1 == lb else b1
        name = m.body(other).name
        side = "left" if name.startswith("left_") else "right" if name.startswith("right_") else None
        if side is None or "ankle" in name:
            continue
        mujoco.mj_contactForce(m, d, i, f6)
        force = c.frame.reshape(3, 3).T @ f6[:3] * (1.0 if b1 == lb else -1.0)  # on the hand
        out[side][0] += force
        out[side][1].append((other, c.pos.copy(), force))
    return out


def arm_torques(ep, contacts: dict) -> list[dict]:
    """Static arm joint torques (gravity plus the hands' contact forces) against the servos at the posture held."""
    from humanoidtoolbench.robot.joints import ARM_JOINTS, BY_NAME
    from humanoidtoolbench.suites.fiatlux.robot import SERVOS

    m, d = ep.model, ep.data
    bias = np.zeros(m.nv)
    saved = d.qvel.copy()
    d.qvel[:] = 0.0
    mujoco.mj_rne(m, d, 0, bias)
    d.qvel[:] = saved
    jac = np.zeros((3, m.nv))
    rows = []
    for side, (_, points) in contacts.items():
        ext = np.zeros(m.nv)
        for body, pos, force in points:
            mujoco.mj_jac(m, d, jac, None, pos, body)
            ext += jac.T @ force
        for name in ARM_JOINTS[side]:
            j = m.joint(name).id
            dof, q = m.jnt_dofadr[j], d.qpos[m.jnt_qposadr[j]]
            tau = float(bias[dof] - ext[dof])
            sv, row = SERVOS[name], BY_NAME[name]
            servo = min(sv.effort, sv.kp * (row.hi - q)) if tau >= 0 else max(-sv.effort, sv.kp * (row.lo - q))
            rows.append({"joint": name, "torque_nm": tau, "servo_nm": float(servo), "effort_nm": sv.effort})
    return rows


def robot_part(seeds=(0, 1, 2), drag_s: float = DRAG_S, walk_s: float = 15.0, speeds=(-0.03, -0.05, -0.1)) -> dict:
    from humanoidtoolbench.suites.fiatlux.expert import ladder
    from humanoidtoolbench.suites.fiatlux.expert.navigate import ENGAGE
    from humanoidtoolbench.planning.skills import wait

    out = {"lift": {}, "walk_back_unloaded": {}}
    for seed in seeds:
        ep = placed_at_steps(seed)
        seen = {}

        def lift_then_drag(ctx):
            yield from ladder.lift(ctx)
            seen["lifted"] = (ep.last, hand_contacts(ep), arm_torques(ep, hand_contacts(ep)), ep.data.time)
            ctx.cmd[32:36] = (-ladder.DRAG, 0.0, ENGAGE, float(ctx.obs.base[3]))
            yield from wait(ctx, drag_s)

        fell = run_plan(ep, lift_then_drag, LIFT_STEPS + round(drag_s * 50))
        row = {"fell_at_s": fell}
        if "lifted" in seen:
            s, hands, torques, t = seen["lifted"]
            carried = -sum(f[2] for f, _ in hands.values())
            worst = max(torques, key=lambda r: abs(r["torque_nm"]) / max(abs(r["servo_nm"]), 1e-9))
            moved = float(np.linalg.norm(ep.last.ladder_root[:2] - s.ladder_root[:2]))
            row |= {"lifted_at_s": t, "ladder_root_z_m": float(s.ladder_root[2]), "ladder_tilt_rad": s.ladder_tilt,
                    "hands_carry_n": float(carried), "arm_torques": torques, "drag_moved_m": moved}
            print(f"robot, seed {seed}: lifted at {t:.1f} s, the steps end up {100 * s.ladder_root[2]:.1f} cm at the ladder's middle "
                  f"(tilt {s.ladder_tilt:.3f} rad), the hands carry {carried:.0f} N; the arm joint nearest its servo's limit: "
                  f"{worst['joint']} {worst['torque_nm']:+.1f} N m of {worst['servo_nm']:+.1f}; dragged back at {ladder.DRAG} m/s: "
                  f"{'fell at %.1f s' % (fell - t) if fell else 'stands %.0f s' % drag_s}, the ladder moved {100 * moved:.0f} cm")
        elif fell is None:
            print(f"robot, seed {seed}: the lift did not hold within {LIFT_STEPS + round(drag_s * 50)} control steps")
        else:
            print(f"robot, seed {seed}: fell at {fell:.1f} s before the lift held")
        out["lift"][f"seed_{seed}"] = row
    for vx in speeds:
        runs = [walk_back(seed, vx, walk_s) for seed in seeds]
        out["walk_back_unloaded"][f"vx_{vx}"] = runs
        print(f"robot, walking back unloaded at {-vx} m/s for {walk_s:g} s from S01's start, seeds {seeds[0]}-{seeds[-1]}: "
              + ", ".join("stands" if r is None else f"falls at {r:.1f} s" for r in runs))
    return out


def walk_back(seed: int, vx: float, seconds: float = 15.0) -> float | None:
    from humanoidtoolbench.suites.fiatlux import SUITE
    from humanoidtoolbench.suites.fiatlux.subtasks import BY_KEY

    ep = SUITE.make_episode(BY_KEY["S01"], seed, SUITE.make_controller("balanced"), "fast")
    ep.reset()
    c, d = ep.controller, ep.data
    upper = d.ctrl[c._slot_act].copy()
    heading = c.base_pose(d).yaw
    for k in range(int(seconds * 50)):
        ep.step(np.concatenate([upper, [0.74, vx, 0.0, 0.5, heading]]))
        if c.fallen(d):
            return (k + 1) / 50
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("ladder", "robot", "horizon"), action="append")
    parser.add_argument("--smoke", action="store_true", help="the robot part on one seed, its drag and walk 1 s: the script runs, those figures mean nothing")
    args = parser.parse_args()
    parts = args.part or ["ladder", "robot", "horizon"]
    out = {}
    if "ladder" in parts:
        out["ladder"] = ladder_part()
    if "robot" in parts:
        out["robot"] = robot_part((0,), 1.0, 1.0, (-0.1,)) if args.smoke else robot_part()
    if "horizon" in parts:
        out["horizon"] = horizon_part()
    print(json.dumps(out, default=float))


if __name__ == "__main__":
    main()
