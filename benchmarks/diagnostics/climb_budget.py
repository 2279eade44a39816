"""Static joint torques of climbing the ladder (S02 up, S12 down) on the Fiatlux robot, against its limits.

    python benchmarks/diagnostics/climb_budget.py [--json]   # about 1 min

For each key stance of a climb, on a ladder at the origin with its steps facing -y (treads at
0.47, 0.71, 0.94 m, each plank 0.12 m deep, the top tread at 1.18 m), the whole-body posture is
solved by inverse kinematics (mink + daqp: each foot flat on its tread with the front of the sole
on the plank, the heel over its front edge; the centre of mass over the foot that carries the
weight; the hands free), then the contact forces that hold that posture still with the least effort
by a QP (daqp): the floating base in equilibrium, every contact force inside its friction cone (a
pyramid, mu 1) and pushing only, the foot the weight has left carrying at most 10 N; the cost is
each joint's torque over what its servo can make there, squared.
The joint torques tau = g(q) - sum J^T f then stand against two limits per joint: its effort limit
and the torque its servo can make at q. The servo's targets are clipped to the joint's range, so it
pushes at most kp x (range end - q) in each direction (at the Fiatlux research gains: the ankles
40 N m/rad over a -0.87..0.52 rad range).

First, what the protocol's action contracts let a foot reach. `joint_position_v1` (the `servo`
controller, the original's action) sets each target to q0 + 0.5 a with a in [-1, 1]: a swing leg's
hip pitch, hip roll, knee and ankle pitch are searched over that box (11 values each), the other
leg at q0, for the highest the lowest point of a level sole (tilted under 0.3 rad) gets 0.1 m or
more ahead of the standing foot. `decoupled_v1` (the `balanced` controller) commands a velocity, a
heading and a pelvis height of 0.60-0.78 m over the ground the controller stands on: no command
places a foot on a tread.

Human-readable table rows per stance, the worst joints first, then one JSON object with --json.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass

import humanoidtoolbench  # noqa: F401  (headless GL before MuJoCo loads)
import daqp
import mink
import mujoco
import numpy as np

from humanoidtoolbench.robot import assets
from humanoidtoolbench.robot.joints import BY_NAME
from humanoidtoolbench.suites.fiatlux import props
from humanoidtoolbench.suites.fiatlux.robot import SERVOS

G = 9.81
MU = 1.0  # friction pyramid: the robot's soles on the ladder's aluminium
FOOT_PTS = np.array([[-0.05, 0.025, -0.035], [-0.05, -0.025, -0.035], [0.12, 0.03, -0.035], [0.12, -0.03, -0.035]])  # sole, ankle frame
FEET = {"left": "left_ankle_roll_link", "right": "right_ankle_roll_link"}
TOPS = (0.0, *props.STEP_HEIGHTS, props.TREAD_TOP)  # floor, steps 0-2, tread
FRONT = (None, *(y - 0.06 for y in props.STEP_Y), props.TREAD_CENTRE[1] - props.TREAD_SIZE[1] / 2)  # plank front edges (ladder y)
STANCE_X = 0.1  # m: each foot this far from the ladder's centre line
TOUCH = 10.0  # N: the most the foot the weight has moved off still carries


@dataclass(frozen=True)
class Stance:
    name: str
    feet: dict  # side -> level (0 floor, 1-3 steps 0-2, 4 the tread)
    carry: str  # the side whose foot carries the weight (the CoM over it)


# Up: a foot is put on the next tread, then the weight moves onto it while the other foot still
# touches below: that leg is then folded deepest, carrying everything (the same stance, reversed, is
# the last moment of a step down).
STANCES = (
    Stance("floor: left foot put on step 0 (0.47 m up), weight on the floor foot", {"left": 1, "right": 0}, "right"),
    Stance("floor -> step 0: weight moved onto the foot on step 0", {"left": 1, "right": 0}, "left"),
    Stance("step 0 -> step 1 (0.24 m): weight moved onto step 1", {"left": 2, "right": 1}, "left"),
    Stance("step 2 -> tread (0.24 m): weight moved onto the tread", {"left": 4, "right": 3}, "left"),
)
CROUCH = {"hip_pitch": -1.2, "knee": 1.8, "ankle_pitch": -0.6}  # the posture the solver starts from and is drawn towards


def other(side: str) -> str:
    return "right" if side == "left" else "left"


def robot_model() -> mujoco.MjModel:
    return mujoco.MjModel.from_xml_path(str(assets.installed().model_path("fast", "free")))


def foot_pose(level: int, side: str) -> mink.SE3:
    """A foot facing the ladder (+y) flat on its level: on a plank its front contacts sit just inside the
    plank's far edge, the heel over the front edge; on the floor its toes 0.12 m short of step 0."""
    x = STANCE_X if side == "right" else -STANCE_X
    if level == 0:
        y = FRONT[1] - 0.12 - 0.02 - 0.12
    else:
        y = FRONT[level] + (0.40 if level == 4 else 0.12) - 0.12 - 0.01
        if level == 4:
            y = FRONT[4] + 0.06
    rot = mink.SO3.from_rpy_radians(0.0, 0.0, np.pi / 2)
    return mink.SE3.from_rotation_and_translation(rot, np.array([x, y, TOPS[level] + 0.035]))


def solve_posture(model: mujoco.MjModel, st: Stance, start: np.ndarray | None = None, share: float = 1.0) -> tuple[np.ndarray, dict]:
    """The posture of a stance, solved from the crouch (or from `start`); the CoM over the carrying
    foot, or `share` of the way to it from the other foot's support point."""
    cfg = mink.Configuration(model)
    q = cfg.q.copy()
    carry = foot_pose(st.feet[st.carry], st.carry).translation()
    q[:3] = [0.0, carry[1] - 0.05, carry[2] + 0.45]
    q[3:7] = [np.cos(np.pi / 4), 0.0, 0.0, np.sin(np.pi / 4)]  # facing +y
    for j in range(model.njnt):
        role = model.joint(j).name.removeprefix("left_").removeprefix("right_").removesuffix("_joint")
        if role in CROUCH:
            q[model.jnt_qposadr[j]] = CROUCH[role]
    cfg.update(q if start is None else start)
    tasks, targets = [], {}
    for side, level in st.feet.items():
        t = mink.FrameTask(FEET[side], "body", position_cost=100.0, orientation_cost=30.0)
        targets[side] = foot_pose(level, side)
        t.set_target(targets[side])
        tasks.append(t)
    com = mink.ComTask(cost=[30.0, 30.0, 0.0])
    support = {side: t.translation() + t.rotation().as_matrix() @ np.array([0.035, 0.0, 0.0]) for side, t in targets.items()}
    over = share * support[st.carry] + (1.0 - share) * support[other(st.carry)]
    com.set_target(np.array([over[0], over[1], 0.0]))
    pelvis = mink.FrameTask("pelvis", "body", position_cost=0.0, orientation_cost=[3.0, 3.0, 0.0])
    pelvis.set_target(mink.SE3.from_rotation_and_translation(mink.SO3.from_rpy_radians(0, 0, np.pi / 2), np.zeros(3)))
    posture = mink.PostureTask(model, cost=0.01)
    posture.set_target(cfg.q)
    tasks += [com, pelvis, posture]
    limits = [mink.ConfigurationLimit(model)]
    for _ in range(400):
        v = mink.solve_ik(cfg, tasks, 0.02, "daqp", damping=1e-3, limits=limits)
        cfg.integrate_inplace(v, 0.02)
    knee = model.jnt_qposadr[model.joint(f"{st.carry}_knee_joint").id]
    errors = {"feet_mm": max(1000 * np.linalg.norm(t.compute_error(cfg)[:3]) for t in tasks[:2]),
              "com_mm": 1000 * float(np.linalg.norm(com.compute_error(cfg)[:2])),
              "pelvis_z": float(cfg.q[2]), "carrying_knee_rad": float(cfg.q[knee])}
    return cfg.q.copy(), errors


def contacts(model, data, st: Stance) -> list[tuple[int, np.ndarray]]:
    """(body, world point) of each contact: the sole points that rest on their plank or the floor
    (a plank carries the points over it), and the plank's front edge under an overhanging heel."""
    out = []
    for side, level in st.feet.items():
        b = model.body(FEET[side]).id
        for p in FOOT_PTS:
            w = data.xpos[b] + data.xmat[b].reshape(3, 3) @ p
            if level == 0 or (FRONT[level] - 0.005 <= w[1] <= FRONT[level] + (0.40 if level == 4 else 0.12) + 0.005):
                out.append((b, w))
        if level:  # the sole rests on the plank's front edge where its heel overhangs
            heel = data.xpos[b] + data.xmat[b].reshape(3, 3) @ FOOT_PTS[0]
            if heel[1] < FRONT[level]:
                for dx in (-0.025, 0.025):
                    out.append((b, np.array([data.xpos[b][0] + dx, FRONT[level], TOPS[level]])))
    return out


def servo_limits(model, q: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Per actuated joint (dof order): the most negative and most positive torque its servo makes at q."""
    lo, hi, names = [], [], []
    for j in range(model.njnt):
        name = model.joint(j).name
        if name not in SERVOS:
            continue
        s, row = SERVOS[name], BY_NAME[name]
        x = q[model.jnt_qposadr[j]]
        lo.append(max(-s.effort, s.kp * (row.lo - x)))
        hi.append(min(s.effort, s.kp * (row.hi - x)))
        names.append(name)
    return np.array(lo), np.array(hi), names


def static_torques(model, q: np.ndarray, st: Stance) -> dict:
    data = mujoco.MjData(model)
    data.qpos[:] = q
    mujoco.mj_forward(model, data)
    bias = data.qfrc_bias.copy()  # gravity, at rest
    pts = contacts(model, data, st)
    jac = np.zeros((3, model.nv))
    jt = np.zeros((model.nv, 3 * len(pts)))
    for i, (b, p) in enumerate(pts):
        mujoco.mj_jac(model, data, jac, None, p, b)
        jt[:, 3 * i : 3 * i + 3] = jac.T
    lo, hi, names = servo_limits(model, q)
    scale = np.maximum(np.maximum(np.abs(lo), np.abs(hi)), 1.0)  # normalise by what the servo makes either way
    # tau = bias_j - J_j^T f ; base: bias_b = J_b^T f (6 equalities)
    jb, jj = jt[:6], jt[6:]
    w = 1.0 / scale
    h = (jj * w[:, None]).T @ (jj * w[:, None]) + 1e-6 * np.eye(jt.shape[1])
    c = -((jj * w[:, None]).T @ (bias[6:] * w))
    rows, up, low, sense = [jb], list(bias[:6]), list(bias[:6]), [5] * 6
    for i in range(len(pts)):  # pyramid: |fx|, |fy| <= mu fz, fz >= 0 (world axes)
        for k in (0, 1):
            for sgn in (1.0, -1.0):
                r = np.zeros(jt.shape[1])
                r[3 * i + k], r[3 * i + 2] = sgn, -MU
                rows.append(r[None]), up.append(0.0), low.append(-1e9), sense.append(0)
        r = np.zeros(jt.shape[1])
        r[3 * i + 2] = 1.0
        rows.append(r[None]), up.append(1e9), low.append(0.0), sense.append(0)
    trailing = [i for i, (b, _) in enumerate(pts) if b == model.body(FEET[other(st.carry)]).id]
    if trailing:  # the foot the weight has left only touches
        r = np.zeros(jt.shape[1])
        r[[3 * i + 2 for i in trailing]] = 1.0
        rows.append(r[None]), up.append(TOUCH), low.append(0.0), sense.append(0)
    a = np.vstack(rows)
    x, _, flag, _ = daqp.solve(h, c, a, np.array(up), np.array(low), np.array(sense, dtype=np.int32))
    tau = bias[6:] - jj @ x
    ratio = np.where(tau >= 0, tau / np.maximum(hi, 1e-9), tau / np.minimum(lo, -1e-9))
    ratio = np.where((tau >= 0) & (hi <= 0) | (tau < 0) & (lo >= 0), np.inf, ratio)
    effort = np.array([SERVOS[n].effort for n in names])
    order = [k for k in np.argsort(-ratio) if "hand" not in names[k] and abs(tau[k]) > 0.5]
    forces = {}
    for i, (b, _) in enumerate(pts):
        forces[model.body(b).name] = forces.get(model.body(b).name, 0.0) + float(x[3 * i + 2])  # normal forces
    return {"solved": bool(flag == 1), "support_n": forces,
            "joints": [{"joint": names[k], "torque_nm": float(tau[k]), "effort_nm": float(effort[k]),
                        "servo_nm": float(hi[k] if tau[k] >= 0 else lo[k]), "share_of_servo": float(ratio[k])} for k in order]}


def contract_reach(model: mujoco.MjModel) -> dict:
    """The highest level sole ahead of the standing foot that joint_position_v1's targets reach."""
    import itertools

    from humanoidtoolbench.suites.fiatlux.contract import SCALE, STANDING_POSE as Q0

    data = mujoco.MjData(model)
    swing = [f"left_{j}_joint" for j in ("hip_pitch", "hip_roll", "knee", "ankle_pitch")]
    ranges = {n: np.linspace(max(BY_NAME[n].lo, Q0.get(n, 0.0) - SCALE), min(BY_NAME[n].hi, Q0.get(n, 0.0) + SCALE), 11) for n in swing}
    stand = {n: v for n, v in Q0.items() if n.startswith("right_")}
    soles = {s: [g for g in range(model.ngeom) if model.geom_bodyid[g] == model.body(FEET[s]).id and model.geom_type[g] == mujoco.mjtGeom.mjGEOM_SPHERE]
             for s in FEET}
    best = (-np.inf, None)
    for values in itertools.product(*ranges.values()):
        data.qpos[:] = 0.0
        data.qpos[2], data.qpos[3] = 1.0, 1.0
        for n, v in (stand | dict(zip(swing, values))).items():
            data.qpos[model.jnt_qposadr[model.joint(n).id]] = v
        mujoco.mj_kinematics(model, data)
        low = {s: min(data.geom_xpos[g][2] - model.geom_size[g][0] for g in gs) for s, gs in soles.items()}
        ahead = np.mean([data.geom_xpos[g][0] for g in soles["left"]]) - np.mean([data.geom_xpos[g][0] for g in soles["right"]])
        tilt = float(np.arccos(np.clip(data.xmat[model.body(FEET["left"]).id][8], -1.0, 1.0)))
        if ahead >= 0.1 and tilt < 0.3 and low["left"] - low["right"] > best[0]:
            best = (low["left"] - low["right"], dict(zip(swing, (float(v) for v in values))))
    knee = "left_knee_joint"
    return {"highest_level_sole_m": float(best[0]), "at": best[1],
            "knee_target_max_rad": float(min(BY_NAME[knee].hi, Q0[knee] + SCALE)), "treads_m": list(TOPS[1:])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    model = robot_model()
    reach = contract_reach(model)
    print(f"joint_position_v1 (targets q0 +- 0.5 rad): the highest a level sole gets 0.1 m ahead of the standing foot is "
          f"{reach['highest_level_sole_m']:.3f} m (knee target at most {reach['knee_target_max_rad']:.2f} rad); "
          f"the treads are at {', '.join(f'{t:.2f}' for t in reach['treads_m'])} m")
    out = [{"contract_reach": reach}]
    for st in STANCES:
        q, err = solve_posture(model, st)
        res = static_torques(model, q, st)
        out.append({"stance": st.name, "ik_error": err, **res})
        print(f"{st.name}: pelvis at {err['pelvis_z']:.2f} m, carrying knee {err['carrying_knee_rad']:.2f} rad; posture {err['feet_mm']:.0f} mm off the feet's holds, CoM {err['com_mm']:.0f} mm off its support; "
              f"{'held' if res['solved'] else 'NO equilibrium'}; support " + ", ".join(f"{k.split('_')[0]} foot {v:.0f} N" for k, v in res["support_n"].items()))
        for j in res["joints"][:5]:
            print(f"    {j['joint']:28s} {j['torque_nm']:+7.1f} N m  (servo at this angle {j['servo_nm']:+6.1f}, effort {j['effort_nm']:.0f}): "
                  f"{100 * j['share_of_servo']:.0f} %")
    if args.json:
        print(json.dumps(out))


if __name__ == "__main__":
    main()
