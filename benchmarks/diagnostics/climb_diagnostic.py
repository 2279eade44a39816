"""On which settings a tread step becomes possible: a foot on step 0, the weight moved onto it, held.

    python benchmarks/diagnostics/climb_diagnostic.py [--seed 0] [--move 2.0] [--hold 2.0]   # about 1 min

Not the protocol: the joint targets here leave `joint_position_v1`'s band (q0 +- 0.5 rad), so
nothing measured is reportable. It answers how wide the band would have to be, and whether the
Fiatlux robot at its published servo gains then holds the step.

The first two stances of `climb_budget.py` (the left foot put on step 0, 0.47 m up, the weight on
the floor foot; then the weight on the foot on step 0) and ten postures between them (the feet
held, the CoM moved in equal steps from over the floor foot to over the foot on step 0, each
solved from the last) come from its inverse kinematics; the static torques of the two ends from
its contact QP, blended between them. The band a contract would need is, per joint, the largest
distance of any of these angles from q0. Then, in S02's scene (the seed's layout, the ladder at
its anchor), the robot is set in the first stance at rest, and every servo is given the posture's
angle plus its static torque over the servo's stiffness (q + tau / kp, the feedforward through the
targets; targets are clipped to the joint's range); the targets run through the postures over
`--move` s and are held `--hold` s. Read: when it falls (pelvis 0.15 m under the last posture's or
tilted over 0.5 rad), what each foot carries at the end (contact normal forces on the ladder and
the floor), the largest share of an effort limit a leg actuator reached, how far the ladder moved.
`--leg-servo KP,KD` sets every leg servo's gains first (the robot's are the research table's).
Human-readable lines, then one JSON object.
"""

from __future__ import annotations

import argparse
import json
import math

import humanoidtoolbench  # noqa: F401  (headless GL before MuJoCo loads)
import mujoco
import numpy as np

from climb_budget import STANCES, robot_model, solve_posture, static_torques
from humanoidtoolbench.eval.provenance import source_digest, source_hashes
from humanoidtoolbench.suites.fiatlux import SUITE
from humanoidtoolbench.suites.fiatlux.contract import SCALE, STANDING_POSE
from humanoidtoolbench.suites.fiatlux.robot import SERVOS
from humanoidtoolbench.suites.fiatlux.subtasks import BY_KEY

FEET = ("left_ankle_roll_link", "right_ankle_roll_link")
LEG = ("hip", "knee", "ankle")
PATH = 10  # postures along the weight's move


def stances(model: mujoco.MjModel, points: int = PATH) -> list[dict]:
    """The path of the weight onto step 0: the first stance, then postures with the feet held and
    the CoM `points` steps of the way from the floor foot to the foot on step 0 (each solved from
    the last), the static torques blended from the two ends'."""
    q, err = solve_posture(model, STANCES[0])
    ends = [static_torques(model, q, STANCES[0])]
    path = [(q, err)]
    for k in range(1, points + 1):
        q, err = solve_posture(model, STANCES[1], start=q, share=k / points)
        path.append((q, err))
    ends.append(static_torques(model, q, STANCES[1]))
    torques = [{j["joint"]: j["torque_nm"] for j in e["joints"]} for e in ends]
    out = []
    for k, (q, err) in enumerate(path):
        s = k / points
        tau = {n: (1 - s) * torques[0].get(n, 0.0) + s * torques[1].get(n, 0.0) for n in torques[0].keys() | torques[1].keys()}
        out.append({"q": q, "tau": tau, "ik": err})
    out[0] |= {"name": STANCES[0].name, "solved": ends[0]["solved"]}
    out[-1] |= {"name": STANCES[1].name, "solved": ends[1]["solved"]}
    return out


def band(model: mujoco.MjModel, found: list[dict]) -> dict:
    """Per joint: the largest |angle - q0| over the stances (rad), the widest first."""
    width = {}
    for name in SERVOS:
        if "hand" in name:
            continue
        adr = model.jnt_qposadr[model.joint(name).id]
        width[name] = max(abs(float(s["q"][adr]) - STANDING_POSE.get(name, 0.0)) for s in found)
    return dict(sorted(width.items(), key=lambda kv: -kv[1]))


def targets(model: mujoco.MjModel, stance: dict, scene: mujoco.MjModel) -> np.ndarray:
    """Per scene actuator: the stance's joint angle plus its static torque over kp."""
    ctrl = np.zeros(scene.nu)
    for a in range(scene.nu):
        joint = scene.joint(scene.actuator_trnid[a, 0]).name
        q = float(stance["q"][model.jnt_qposadr[model.joint(joint).id]])
        ctrl[a] = q + stance["tau"].get(joint, 0.0) / scene.actuator_gainprm[a, 0]
    return ctrl


def place(model: mujoco.MjModel, stance: dict, ep) -> None:
    """Set the scene's robot in the stance, its ladder frame mapped onto the episode's ladder."""
    m, d = ep.model, ep.data
    yaw = ep.placement.ladder_yaw
    c, s = math.cos(yaw), math.sin(yaw)
    rot = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    q = stance["q"]
    base = m.jnt_qposadr[m.joint("floating_base_joint").id]
    d.qpos[base : base + 3] = np.array([*ep.placement.ladder_pos, 0.0]) + rot @ q[:3]
    turn = np.array([math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2)])
    mujoco.mju_mulQuat(d.qpos[base + 3 : base + 7], turn, q[3:7])
    for j in range(1, model.njnt):
        name = model.joint(j).name
        d.qpos[m.jnt_qposadr[m.joint(name).id]] = q[model.jnt_qposadr[j]]
    d.qvel[:] = 0.0
    mujoco.mj_forward(m, d)


def support(ep) -> dict:
    """Normal force (N) under each foot, on the ladder and on the floor."""
    m, d = ep.model, ep.data
    lb, out, f6 = m.body("ladder").id, {}, np.zeros(6)
    feet = {m.body(n).id: n.split("_")[0] for n in FEET}
    for i in range(d.ncon):
        b = m.geom_bodyid[d.contact.geom[i]]
        foot = next((feet[x] for x in b if x in feet), None)
        if foot is None:
            continue
        where = "ladder" if lb in b else "floor" if 0 in b else None
        if where is None:
            continue
        mujoco.mj_contactForce(m, d, i, f6)
        key = f"{foot}_on_{where}"
        out[key] = out.get(key, 0.0) + float(f6[0])
    return out


def stiffen(m: mujoco.MjModel, kp: float, kd: float) -> None:
    """Every leg servo at kp, kd (the stiff `balanced` robot variant's are 600 and 40)."""
    for a in range(m.nu):
        if any(k in m.actuator(a).name for k in LEG):
            m.actuator_gainprm[a, 0] = kp
            m.actuator_biasprm[a, 1:3] = (-kp, -kd)


def run(seed: int, move_s: float, hold_s: float, legs: tuple[float, float] | None = None) -> dict:
    model = robot_model()
    found = stances(model)
    need = band(model, found)
    ep = SUITE.make_episode(BY_KEY["S02"], seed, SUITE.make_controller("servo"), "fast")
    ep.reset()
    m, d = ep.model, ep.data
    if legs is not None:
        stiffen(m, *legs)
    place(model, found[0], ep)
    path = np.array([targets(model, p, m) for p in found])
    lo, hi = m.actuator_ctrlrange[:, 0], m.actuator_ctrlrange[:, 1]
    pelvis, lb = m.body("pelvis").id, m.body("ladder").id
    ladder0 = d.xpos[lb].copy()
    leg_acts = [a for a in range(m.nu) if any(k in m.actuator(a).name for k in LEG)]
    worst, fell, hz = 0.0, None, 1.0 / m.opt.timestep
    steps = round((move_s + hold_s) * hz)
    base = m.jnt_qposadr[m.joint("floating_base_joint").id]
    rest_z = float(found[-1]["q"][2])
    for k in range(steps):
        x = min(k / (move_s * hz), 1.0) * (len(path) - 1)
        i = min(int(x), len(path) - 2)
        d.ctrl[:] = np.clip(path[i] + (x - i) * (path[i + 1] - path[i]), lo, hi)
        mujoco.mj_step(m, d)
        worst = max(worst, float(np.max(np.abs(d.actuator_force[leg_acts]) / m.actuator_forcerange[leg_acts, 1])))
        tilt = math.acos(min(1.0, d.xmat[pelvis, 8]))
        if fell is None and (d.qpos[base + 2] < rest_z - 0.15 or tilt > 0.5):
            fell = k / hz
            break
    return {"seed": seed, "leg_servo": legs, "band_needed_rad": need, "contract_band_rad": SCALE,
            "stances": [{"name": s["name"], "solved": s["solved"], "pelvis_z": s["ik"]["pelvis_z"], "knee_rad": s["ik"]["carrying_knee_rad"]} for s in (found[0], found[-1])],
            "fell_at_s": fell, "support_n": support(ep), "leg_effort_share": worst,
            "ladder_moved_m": float(np.linalg.norm(d.xpos[lb] - ladder0)), "targets_clipped": int(np.sum((path[-1] < lo) | (path[-1] > hi)))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--move", type=float, default=2.0, help="s the targets take from the first stance to the second")
    parser.add_argument("--leg-servo", default=None, metavar="KP,KD", help="every leg servo at these gains (not the robot's: 600,40 is the stiff variant's)")
    parser.add_argument("--hold", type=float, default=2.0, help="s the second stance is held")
    args = parser.parse_args()
    try:
        legs = None if args.leg_servo is None else tuple(float(v) for v in args.leg_servo.split(","))
        if legs is not None and len(legs) != 2:
            raise ValueError
    except ValueError:
        parser.exit(2, f"climb_diagnostic: --leg-servo takes KP,KD, not {args.leg_servo!r}\n")
    out = run(args.seed, args.move, args.hold, legs)
    print(f"source digest {source_digest(source_hashes(SUITE))[:12]} (the Fiatlux suite's)")
    print("not the protocol's action band" + ("" if legs is None else f", leg servos at {legs[0]:g} / {legs[1]:g}") + ": not reportable")
    wide = [(n, w) for n, w in out["band_needed_rad"].items() if w > SCALE]
    print(f"band needed (|stance - q0|, rad), beyond the contract's {SCALE}: " + ", ".join(f"{n} {w:.2f}" for n, w in wide))
    for s in out["stances"]:
        print(f"  {s['name']}: pelvis {s['pelvis_z']:.2f} m, carrying knee {s['knee_rad']:.2f} rad, {'held' if s['solved'] else 'NO equilibrium'} (statics)")
    print(f"seed {args.seed}: weight moved onto step 0 over {args.move} s, held {args.hold} s: "
          f"{'fell at %.2f s' % out['fell_at_s'] if out['fell_at_s'] is not None else 'stands'}; "
          f"support {', '.join(f'{k} {v:.0f} N' for k, v in sorted(out['support_n'].items()))}; "
          f"leg actuators at most {100 * out['leg_effort_share']:.0f} % of their effort limits; ladder moved {100 * out['ladder_moved_m']:.1f} cm")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
