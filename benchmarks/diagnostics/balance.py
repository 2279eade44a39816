"""The balanced controller, measured: standing, reach, walking, pushes and cost.

    python benchmarks/diagnostics/balance.py [--quick]

1. Standing 60 s with a constant command: pelvis drift and foot slip.
2. The expert's largest reach (waist pitch 0.52, both arms forward, a
   0.15 kg tool 0.25 m past the right wrist): the margin of the CoM's
   ground projection inside the support polygon (the foot spheres' hull).
3. Walking 3 s at vx 0.3, -0.3 and vy +-0.2 m/s (distance covered), a
   heading command of +pi/2 (time to within 0.05 rad, largest error after),
   and a height command 0.74 -> 0.64 m.
4. Push recovery: the largest impulse (a 0.1 s horizontal force on the
   pelvis) the robot survives for 4 s, by bisection on the force, standing
   and at mid single support while walking at 0.3 m/s.
5. A steady pull at both wrists, ramped at 5 N/s forward, backward and
   sideways until the robot falls: the load it leans into (`armload.py`).
6. Cost on one core: controller time per control step, and an env step of
   a task scene under balanced against the assisted controller.
7. Upper-body targets that jump: drawn anew every control step, uniformly
   in the action table's ranges (as the `random` baseline does), for the
   waist alone, the arms and hands alone, and all 31 joints; the seconds
   until the robot falls, over 10 seeds (at most 10 s).

`--quick` shortens the standing run to 10 s, the bisection to 5 steps and
the jumps to 3 seeds. `--smoke` runs every part once at a small fraction of
its length (one walk, push, pull and jump seed of each kind, one bisection
step), to show the script still runs: its figures mean nothing.
Human-readable lines, then one JSON object.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import time

import humanoidtoolbench  # noqa: F401  (headless GL before MuJoCo loads)
import mujoco
import numpy as np
from scipy.spatial import ConvexHull

from humanoidtoolbench.control import make_controller
from humanoidtoolbench.control.balanced.balanced import BalancedController
from humanoidtoolbench.control.base import BasePose
from humanoidtoolbench.control.contracts import decoupled_v1 as contract
from humanoidtoolbench.control.contracts.decoupled_v1 import JOINT_SLOTS
from humanoidtoolbench.robot.joints import BY_NAME
from humanoidtoolbench.sim.scene import add_robot, new_spec
from humanoidtoolbench.sim.simulation import Simulation, home_upper_pose, robot_in_room
from humanoidtoolbench.suites.toolbench.episode import TaskEpisode
from humanoidtoolbench.suites.toolbench.registry import DEFAULT_ENV, parse

HZ = 50
PUSH_S = 0.1
SURVIVE_S = 4.0
FEET = ("left_ankle_roll_link", "right_ankle_roll_link")


def row(height=contract.DEFAULT_BASE_HEIGHT, vx=0.0, vy=0.0, flag=0.0, yaw=0.0, upper=None) -> np.ndarray:
    return np.concatenate([home_upper_pose() if upper is None else upper, [height, vx, vy, flag, yaw]])


def run(sim: Simulation, action: np.ndarray, seconds: float) -> bool:
    """Step a constant command; False as soon as the robot falls."""
    cmd = contract.decode(action)
    for _ in range(int(round(seconds * HZ))):
        sim.step(cmd)
        if sim.fallen():
            return False
    return True


def standing(seconds: float) -> dict:
    sim = robot_in_room(BalancedController())
    m, d = sim.model, sim.data
    feet = [m.body(f).id for f in FEET]
    start, p0 = d.xpos[feet].copy(), sim.base_pose()
    slip = 0.0
    cmd = contract.decode(row())
    for _ in range(int(seconds * HZ)):
        sim.step(cmd)
        slip = max(slip, float(np.linalg.norm(d.xpos[feet, :2] - start[:, :2], axis=1).max()))
    p = sim.base_pose()
    return {"seconds": seconds, "pelvis_drift_m": math.hypot(p.x - p0.x, p.y - p0.y), "foot_slip_m": slip, "fallen": sim.fallen()}


def reach() -> dict:
    """Waist pitch 0.52 rad, both arms straight forward, a 0.15 kg tool at the right hand."""
    controller = BalancedController()
    spec = new_spec()
    add_robot(spec, controller)
    tool = spec.body("right_wrist_yaw_link").add_body(name="tool", pos=[0.25, 0, 0])
    tool.add_geom(type=mujoco.mjtGeom.mjGEOM_SPHERE, size=[0.02, 0, 0], mass=0.15, contype=0, conaffinity=0)
    sim = Simulation(spec, controller)
    upper = home_upper_pose()
    sim.reset(BasePose(0.0, 0.0, contract.DEFAULT_BASE_HEIGHT, 0.0), upper)
    target = upper.copy()
    target[JOINT_SLOTS.index("waist_pitch_joint")] = 0.52
    for side in ("left", "right"):
        target[JOINT_SLOTS.index(f"{side}_shoulder_pitch_joint")] = -1.57
        target[JOINT_SLOTS.index(f"{side}_elbow_joint")] = 0.0
    for k in range(100):  # 2 s ramp, then 2 s hold
        run(sim, row(upper=upper + (target - upper) * min(k / 50, 1.0)), 1 / HZ)
    run(sim, row(upper=target), 2.0)
    m, d = sim.model, sim.data
    spheres = [g for g in range(m.ngeom) if m.body(m.geom_bodyid[g]).name in FEET and m.geom_type[g] == mujoco.mjtGeom.mjGEOM_SPHERE]
    hull = ConvexHull(d.geom_xpos[spheres, :2])
    com = d.subtree_com[m.body("pelvis").id, :2]
    # Hull facets are (normal, offset) with normal . x + offset <= 0 inside: the margin is the smallest distance in.
    margin = float(-(hull.equations[:, :2] @ com + hull.equations[:, 2]).max())
    return {"support_margin_m": margin, "hips_moved_back_m": -sim.base_pose().x, "fallen": sim.fallen()}


def walk(vx=0.0, vy=0.0, seconds=3.0, rest=2.0) -> dict:
    sim = robot_in_room(BalancedController())
    p0 = sim.base_pose()
    ok = run(sim, row(vx=vx, vy=vy), seconds)
    p = sim.base_pose()
    ok = ok and run(sim, row(), rest)
    return {"vx": vx, "vy": vy, "seconds": seconds, "dx_m": p.x - p0.x, "dy_m": p.y - p0.y, "stood_after": ok}


def turn(seconds: float = 6.0) -> dict:
    sim = robot_in_room(BalancedController())
    cmd = contract.decode(row(flag=0.5, yaw=math.pi / 2))
    reached, worst = None, 0.0
    for k in range(1, int(round(seconds * HZ)) + 1):
        sim.step(cmd)
        err = abs(math.remainder(sim.base_pose().yaw - math.pi / 2, 2 * math.pi))
        if reached is None and err <= 0.05:
            reached = k / HZ
        if reached is not None:
            worst = max(worst, err)
    return {"reached_s": reached, "max_error_after_rad": worst, "fallen": sim.fallen()}


def height(seconds: float = 3.0) -> dict:
    sim = robot_in_room(BalancedController())
    cmd = contract.decode(row(height=0.64))
    reached = None
    for k in range(1, int(round(seconds * HZ)) + 1):
        sim.step(cmd)
        if reached is None and sim.base_pose().z <= 0.645:
            reached = k / HZ
    return {"reached_s": reached, "final_z_m": sim.base_pose().z, "fallen": sim.fallen()}


def survives(force: np.ndarray, walking: bool, survive_s: float = SURVIVE_S) -> bool:
    sim = robot_in_room(BalancedController())
    c, d = sim.controller, sim.data
    pelvis = sim.model.body("pelvis").id
    action = row(vx=0.3) if walking else row()
    if not run(sim, action, 1.5):
        return False
    if walking:  # wait for mid single support
        cmd = contract.decode(action)
        while not (c.schedule.phase == "single" and c.schedule.t >= c.schedule.duration / 2 - 1e-9):
            sim.step(cmd)
    cmd = contract.decode(action)
    for _ in range(int(round(PUSH_S * HZ))):
        d.xfrc_applied[pelvis, :3] = force
        sim.step(cmd)
    d.xfrc_applied[pelvis] = 0.0
    return run(sim, action, survive_s)


def push_limit(direction, walking: bool, steps: int, survive_s: float = SURVIVE_S) -> float:
    """The largest impulse (N s) survived, bisecting the force over [0, 800] N."""
    lo, hi = 0.0, 800.0
    unit = np.array([*direction, 0.0])
    for _ in range(steps):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if survives(mid * unit, walking, survive_s) else (lo, mid)
    return lo * PUSH_S


PULL_RAMP = 5.0  # N/s


def pull_limit(direction, fmax: float = 200.0) -> float | None:
    """The horizontal force (N, split between the wrists) at which the standing robot falls, the
    force ramped from 0 at PULL_RAMP; None if it holds `fmax`."""
    sim = robot_in_room(BalancedController())
    wrists = [sim.model.body(f"{s}_wrist_yaw_link").id for s in ("left", "right")]
    cmd = contract.decode(row())
    for k in range(int(round(fmax / PULL_RAMP * HZ))):
        force = PULL_RAMP * k / HZ
        sim.data.xfrc_applied[wrists, :3] = force / 2 * np.array([*direction, 0.0])
        sim.step(cmd)
        if sim.fallen():
            return force
    return None


def cost(seconds: float, cycle_scale: int = 50) -> dict:
    """Controller time per control step (walking and turning), and env steps of a task scene per controller."""
    sim = robot_in_room(BalancedController())
    cmd = contract.decode(row(vx=0.3, flag=0.5, yaw=1.0))
    times = []
    for _ in range(int(seconds * HZ)):
        t = time.perf_counter()
        sim.controller.apply(sim.data, cmd, 1 / HZ)
        times.append(time.perf_counter() - t)
        mujoco.mj_step(sim.model, sim.data, 4)
    per_env_step = {}
    cycle = [row(vx=0.3, flag=0.5, yaw=0.0)] * (2 * cycle_scale) + [row(flag=0.5, yaw=1.0)] * (2 * cycle_scale) + [row()] * cycle_scale
    for name in ("assisted", "balanced"):
        ep = TaskEpisode(parse(DEFAULT_ENV), 1, make_controller(name))
        ep.reset()
        t = time.perf_counter()
        for r in cycle:
            ep.step(r)
        per_env_step[name] = (time.perf_counter() - t) / len(cycle)
    return {
        "controller_ms_median": 1e3 * statistics.median(times),
        "controller_ms_p95": 1e3 * float(np.percentile(times, 95)),
        "env_step_ms": {k: 1e3 * v for k, v in per_env_step.items()},
        "env_step_ratio": per_env_step["balanced"] / per_env_step["assisted"],
    }


JUMP_SETS = {
    "waist": [i for i, n in enumerate(JOINT_SLOTS) if n.startswith("waist")],
    "arms and hands": [i for i, n in enumerate(JOINT_SLOTS) if not n.startswith("waist")],
    "all": list(range(len(JOINT_SLOTS))),
}
JUMP_LIMIT_S = 10.0


def jumps(slots: list[int], seed: int, limit_s: float = JUMP_LIMIT_S) -> float | None:
    """Seconds until the fall with `slots` drawn anew every step (the rest at home), or None if it stands."""
    rng = np.random.default_rng(seed)
    lo, hi = (np.array([getattr(BY_NAME[JOINT_SLOTS[i]], b) for i in slots]) for b in ("lo", "hi"))
    sim = robot_in_room(BalancedController())
    upper = home_upper_pose()
    for k in range(int(limit_s * HZ)):
        upper[slots] = rng.uniform(lo, hi)
        if not run(sim, row(upper=upper), 1 / HZ):
            return (k + 1) / HZ
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="10 s standing, 5 bisection steps, 3 jump seeds")
    parser.add_argument("--smoke", action="store_true", help="every part once, a small fraction of its length: the script runs, the figures mean nothing")
    args = parser.parse_args()
    smoke = args.smoke
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    out = {"standing": standing(1.0 if smoke else 10.0 if args.quick else 60.0)}
    s = out["standing"]
    print(f"standing {s['seconds']:.0f} s: pelvis drift {100 * s['pelvis_drift_m']:.2f} cm, foot slip {100 * s['foot_slip_m']:.2f} cm")
    out["reach"] = reach()
    print(f"largest reach + 0.15 kg tool: support margin {100 * out['reach']['support_margin_m']:.1f} cm, hips back {100 * out['reach']['hips_moved_back_m']:.1f} cm, fallen {out['reach']['fallen']}")
    out["walk"] = [walk(vx=0.3, seconds=0.5, rest=0.5)] if smoke else [walk(vx=0.3), walk(vx=-0.3), walk(vy=0.2), walk(vy=-0.2)]
    for w in out["walk"]:
        print(f"walk vx {w['vx']:+.1f} vy {w['vy']:+.1f} for {w['seconds']:g} s: dx {w['dx_m']:+.3f} m, dy {w['dy_m']:+.3f} m, stood after {w['stood_after']}")
    out["turn"], out["height"] = (turn(1.0), height(0.5)) if smoke else (turn(), height())
    print(f"heading +pi/2: within 0.05 rad after {out['turn']['reached_s']} s, then within {out['turn']['max_error_after_rad']:.3f} rad")
    print(f"height 0.74 -> 0.64: reached after {out['height']['reached_s']} s, final {out['height']['final_z_m']:.3f} m")
    steps = 1 if smoke else 5 if args.quick else 8
    out["push_Ns"] = {}
    pushes = (
        ("standing forward", (1, 0), False),
        ("standing backward", (-1, 0), False),
        ("standing lateral", (0, 1), False),
        ("walking forward", (1, 0), True),
        ("walking lateral", (0, 1), True),
    )
    for label, direction, walking in (pushes[0], pushes[3]) if smoke else pushes:
        out["push_Ns"][label] = push_limit(direction, walking, steps, 0.5 if smoke else SURVIVE_S)
        print(f"push {label}: survives {out['push_Ns'][label]:.1f} N s")
    out["pull_N"] = {}
    pulls, fmax = (("forward", (1, 0)), ("backward", (-1, 0)), ("lateral", (0, 1))), 10.0 if smoke else 200.0
    for label, direction in pulls[:1] if smoke else pulls:
        out["pull_N"][label] = pull_limit(direction, fmax)
        held = out["pull_N"][label]
        print(f"pull {label} at both wrists: " + (f"falls at {held:.0f} N" if held is not None else f"holds {fmax:.0f} N"))
    out["cost"] = cost(0.2, 5) if smoke else cost(5.0 if args.quick else 20.0)
    c = out["cost"]
    print(f"controller per control step: median {c['controller_ms_median']:.2f} ms, p95 {c['controller_ms_p95']:.2f} ms")
    print(f"env step: assisted {c['env_step_ms']['assisted']:.2f} ms, balanced {c['env_step_ms']['balanced']:.2f} ms, ratio {c['env_step_ratio']:.2f}")
    seeds, limit = (1, 0.5) if smoke else (3 if args.quick else 10, JUMP_LIMIT_S)
    out["jumps_fall_s"] = {name: [jumps(slots, seed, limit) for seed in range(seeds)] for name, slots in JUMP_SETS.items()}
    for name, falls in out["jumps_fall_s"].items():
        fell = sorted(f for f in falls if f is not None)
        span = f", after {fell[0]:.2f}-{fell[-1]:.2f} s (median {statistics.median(fell):.2f})" if fell else ""
        print(f"targets jumping every step, {name}: {len(fell)} of {len(falls)} fell{span}")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
