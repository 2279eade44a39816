"""The balanced controller on the Fiatlux robot (research servo gains), at a subtask's layout: standing, walks, turns and the ladder's forces.

    python benchmarks/diagnostics/fiatlux_balance.py --balanced [--subtask S07] [--seed 0]
    python benchmarks/diagnostics/fiatlux_balance.py --turns [--subtask S07] [--seeds 6]
    python benchmarks/diagnostics/fiatlux_balance.py --walks [--subtask S01] [--seeds 6]
    python benchmarks/diagnostics/fiatlux_balance.py --ladder [--seed 0]

(Split from `benchmarks/fiatlux.py`, which keeps the step-rate benchmark.)

`--balanced`: a zero-velocity command for 60 s (pelvis drift, largest foot
slip); vx 0.1 m/s for 10 s, 0.15 m/s for 6 s and 0.3 m/s for 3 s, each
holding the start heading (slots 34-35) then standing 2 s; and a heading
command of +pi/2 held 14 s then standing 2 s; each run stops at a fall.

`--turns` counts how many turns of +-1.4 rad (one the navigation expert
makes standing: it walks those under 1.2 rad) the balanced robot survives
at a subtask's start, one fresh episode per seed, direction and way: in
place (the heading held 14 s, then standing 4 s); walked (vx 0.07 m/s,
slower than the expert's 0.1, the heading swung at 0.1 rad/s as the
expert's legs swing it, 3 s more,
then standing 4 s); and in place, walked off (the turn in place, standing
3 s, vx 0.07 m/s on the new heading for 6 s, then standing 4 s: the
expert's move after every turn in place). Every run also reports the first piece of furniture
the robot touched, if any: a walk from a start beside the workbench can
reach it, and such a fall measures the collision rather than the balance.

`--walks` walks 30 s straight on at vx 0.07, 0.1, 0.13 and 0.157 m/s (the
last the longest step over the step time), holding the start heading, then
stands 2 s, one fresh episode per layout seed and speed: how fast the
navigation expert may walk. From S01's start the robot faces the ladder,
2.6-7.8 m off, and the way is open on most seeds; the furniture touched, if
any, is reported as by `--turns`.

`--ladder` measures what moving the ladder (S01) asks of the robot, at S01's
layout, the robot standing under `balanced` meanwhile: a horizontal force
ramped at 5 N/s on the ladder at 0.3, 0.84 and 1.0 m above its footprint,
from its steps, its back and its side, until it slides (5 mm) or tips
(0.02 rad); then one ramped at the standing robot's two wrists, forward
and backward, until it falls; and, its arms held forward at three heights,
one ramped down at both wrists (a lifted ladder's weight) until it falls or
the wrists sag 10 cm.

`--smoke` (with any of them) runs every part once at a twentieth of its
length and one seed, to show the script still runs; its figures mean nothing.
Several parts may be named at once. Human-readable lines, then one JSON object
per part.
"""

from __future__ import annotations

import argparse
import json
import math

import humanoidtoolbench  # noqa: F401  (headless GL before MuJoCo loads)
import numpy as np

from humanoidtoolbench.control.contracts.decoupled_v1 import JOINT_SLOTS
from humanoidtoolbench.suites.fiatlux import SUITE
from humanoidtoolbench.suites.fiatlux.episode import FiatluxEpisode
from humanoidtoolbench.suites.fiatlux.subtasks import BY_KEY

FURNITURE = ("workbench", "ladder", "crate")


def furniture_watch(episode: FiatluxEpisode):
    """A check, for each step, of the piece of furniture the robot touches now, if any (body ids
    resolved once): a run that walks into the workbench measures the collision, not the balance."""
    m, d = episode.model, episode.data
    robot = int(m.body_rootid[m.body("pelvis").id])
    pieces = {b: m.body(b).name for b in range(m.nbody) if m.body(b).name in FURNITURE}
    root_of_geom = m.body_rootid[m.geom_bodyid]

    def touched() -> str | None:
        for a, b in root_of_geom[d.contact.geom[: d.ncon]].tolist():
            if robot in (a, b) and (piece := pieces.get(b if a == robot else a)):
                return piece
        return None
    return touched


def balanced_run(subtask: str, seed: int, nav, seconds: float) -> dict:
    """One command schedule (`nav(t)` -> slots 32-35) from the start of a subtask under `balanced`."""
    episode = SUITE.make_episode(BY_KEY[subtask], seed, SUITE.make_controller("balanced"), "fast")
    episode.reset()
    c, d = episode.controller, episode.data
    upper = d.ctrl[c._slot_act].copy()  # the start pose's commanded joints, held
    feet = [episode.model.body(f"{s}_ankle_roll_link").id for s in ("left", "right")]
    p0, start = c.base_pose(d), d.xpos[feet, :2].copy()
    slip, fell_at, outcome, touched = 0.0, None, None, None
    furniture_touched = furniture_watch(episode)
    for k in range(int(round(seconds * 50))):
        outcome = episode.step(np.concatenate([upper, [0.74, *nav(k / 50)]])).outcome
        slip = max(slip, float(np.linalg.norm(d.xpos[feet, :2] - start, axis=1).max()))
        if touched is None and (piece := furniture_touched()):
            touched = {"furniture": piece, "at_s": (k + 1) / 50}
        if c.fallen(d):
            fell_at = (k + 1) / 50
            break
    p = c.base_pose(d)
    forward = np.array([math.cos(p0.yaw), math.sin(p0.yaw)])
    moved = np.array([p.x - p0.x, p.y - p0.y])
    return {"seconds": seconds, "fell_at_s": fell_at, "drift_m": float(np.linalg.norm(moved)),
            "forward_m": float(moved @ forward), "foot_slip_m": slip,
            "yaw_change_rad": math.remainder(p.yaw - p0.yaw, 2 * math.pi), "outcome": outcome, "touched": touched}


def start_heading(subtask: str, seed: int) -> float:
    """The pelvis yaw at a subtask's start under `balanced` (the start jitter is the seed's)."""
    episode = SUITE.make_episode(BY_KEY[subtask], seed, SUITE.make_controller("balanced"), "fast")
    episode.reset()
    return episode.controller.base_pose(episode.data).yaw


def balanced(subtask: str, seed: int, scale: float = 1.0) -> None:
    """`scale`: every duration times this (the run names keep the full lengths)."""
    start = start_heading(subtask, seed)

    def walk(vx: float, seconds: float):
        return lambda t: (vx, 0.0, 0.5, start) if t < seconds * scale else (0.0, 0.0, 0.0, 0.0)

    runs = {"stand_60s": balanced_run(subtask, seed, lambda t: (0.0, 0.0, 0.0, 0.0), 60.0 * scale)}
    for vx, seconds in ((0.1, 10.0), (0.15, 6.0), (0.3, 3.0)):
        runs[f"walk_vx{vx}_{seconds:.0f}s"] = balanced_run(subtask, seed, walk(vx, seconds), (seconds + 2.0) * scale)
    turn = start + math.pi / 2
    runs["turn_+pi/2"] = balanced_run(subtask, seed, lambda t: (0.0, 0.0, 0.5, turn) if t < 14 * scale else (0.0, 0.0, 0.0, 0.0), 16.0 * scale)
    for name, r in runs.items():
        fell = f"fell at {r['fell_at_s']} s" if r["fell_at_s"] else "standing"
        print(f"balanced, {BY_KEY[subtask].name} seed {seed}, {name}: {fell}; drift {100 * r['drift_m']:.1f} cm, "
              f"forward {r['forward_m']:+.2f} m, foot slip {100 * r['foot_slip_m']:.1f} cm, yaw {r['yaw_change_rad']:+.2f} rad"
              f"{touch_note(r)}")
    print(json.dumps({"subtask": BY_KEY[subtask].name, "seed": seed, "controller": "balanced", **runs}))


WALK_SPEEDS = (0.07, 0.1, 0.13, 0.157)  # m/s; 0.157: STROLL's longest step (0.22 m) every 1.4 s


def walks(subtask: str, seeds: int, seconds: float = 30.0, speeds=WALK_SPEEDS) -> None:
    counts = {}
    for vx in speeds:
        runs = []
        for seed in range(seeds):
            start = start_heading(subtask, seed)
            r = balanced_run(subtask, seed, lambda t: (vx, 0.0, 0.5, start) if t < seconds else (0.0, 0.0, 0.0, 0.0), seconds + min(2.0, seconds))
            runs.append(r)
            fell = f"fell at {r['fell_at_s']} s" if r["fell_at_s"] else "standing"
            print(f"balanced, {BY_KEY[subtask].name} seed {seed}, vx {vx} m/s for {seconds:.0f} s: {fell}, "
                  f"forward {r['forward_m']:+.2f} m{touch_note(r)}")
        clear = [r for r in runs if r["touched"] is None]
        counts[f"vx{vx}"] = {"walks": len(runs), "survived": sum(r["fell_at_s"] is None for r in runs),
                             "clear": len(clear), "clear_survived": sum(r["fell_at_s"] is None for r in clear)}
        n = counts[f"vx{vx}"]
        print(f"vx {vx} m/s for {seconds:.0f} s survived: {n['survived']}/{n['walks']}; "
              f"of the walks that touched no furniture {n['clear_survived']}/{n['clear']}")
    print(json.dumps({"subtask": BY_KEY[subtask].name, "seconds": seconds, **counts}))


def turns(subtask: str, seeds: int, angle: float = 1.4, scale: float = 1.0) -> None:
    """`scale`: every duration times this (the walked turn swings its heading faster to match)."""
    rate, speed = 0.1 / scale, 0.07  # rad/s of the navigation expert's walked turns; m/s, below its 0.1
    swing, stand = angle / rate, 4.0 * scale  # s: the walked turn's swing of the heading; standing after each turn
    turn = 14.0 * scale  # s the heading is held in place
    settle, walk_off = 3.0 * scale, 6.0 * scale  # s: standing after the turn in place, then walking on (as the expert does)
    hold = {"in place": turn, "walked": swing + 3.0 * scale, "in place, walked off": turn + settle + walk_off}  # s until the last stand

    def command(way: str, heading: float, sign: float):
        turned = math.remainder(heading + sign * angle, 2 * math.pi)

        def nav(t: float):
            if t >= hold[way]:
                return (0.0, 0.0, 0.0, 0.0)
            if way == "walked":
                return (speed, 0.0, 0.5, math.remainder(heading + sign * rate * min(t, swing), 2 * math.pi))
            if t < turn:
                return (0.0, 0.0, 0.5, turned)
            return (0.0, 0.0, 0.0, 0.0) if t < turn + settle else (speed, 0.0, 0.5, turned)
        return nav

    runs = {way: [] for way in hold}
    for seed in range(seeds):
        start = start_heading(subtask, seed)
        for sign in (1, -1):
            for way in hold:
                r = balanced_run(subtask, seed, command(way, start, sign), hold[way] + stand)
                runs[way].append(r)
                fell = f"fell at {r['fell_at_s']} s" if r["fell_at_s"] else "standing"
                print(f"balanced, {BY_KEY[subtask].name} seed {seed}, turn {sign * angle:+.1f} rad {way}: {fell}, "
                      f"turned {r['yaw_change_rad']:+.2f} rad{touch_note(r)}")
    counts = {way: {"turns": len(rs), "survived": sum(r["fell_at_s"] is None for r in rs),
                    "touched_furniture": sum(r["touched"] is not None for r in rs)} for way, rs in runs.items()}
    for way, n in counts.items():
        print(f"turns {way} survived: {n['survived']}/{n['turns']} ({n['touched_furniture']} touched the furniture)")
    print(json.dumps({"subtask": BY_KEY[subtask].name, "angle_rad": angle, **{way.replace(", ", "_").replace(" ", "_"): n for way, n in counts.items()}}))


RAMP = 5.0  # N/s: slow enough that what gives, gives within a few newtons of where it starts to


def ramp(seed: int, load, gave_way, fmax: float, arms: float | None = None) -> tuple[float, str] | None:
    """The force (N) and the way something gave as `load(episode, F)` ramps F from 0 to `fmax` at
    RAMP, the robot commanded to stand at S01's layout (with `arms`, its shoulders first pitched
    to that angle and its elbows to 0.3 rad over 1.5 s, then held 1.5 s); `gave_way(episode,
    start)` compares with the snapshot as the ramp starts. None if nothing gave."""
    episode = SUITE.make_episode(BY_KEY["S01"], seed, SUITE.make_controller("balanced"), "fast")
    episode.reset()
    c, d = episode.controller, episode.data
    upper = d.ctrl[c._slot_act].copy()
    if arms is not None:
        held = upper.copy()
        for side in ("left", "right"):
            held[JOINT_SLOTS.index(f"{side}_shoulder_pitch_joint")] = arms
            held[JOINT_SLOTS.index(f"{side}_elbow_joint")] = 0.3
        for k in range(150):
            episode.step(np.concatenate([upper + (held - upper) * min(k / 75, 1.0), [0.74, 0.0, 0.0, 0.0, 0.0]]))
        upper = held
    start = episode.last
    row = np.concatenate([upper, [0.74, 0.0, 0.0, 0.0, 0.0]])
    for k in range(int(round(fmax / RAMP * 50))):
        force = RAMP * k / 50
        load(episode, force)
        episode.step(row)
        if way := gave_way(episode, start):
            return force, way
    return None


def ladder(seed: int, smoke: bool = False) -> None:
    """`smoke`: one ramp of each kind, to a twentieth of its force."""
    scale = 0.05 if smoke else 1.0

    def on_ladder(height: float, local: tuple[float, float]):
        def load(episode: FiatluxEpisode, force: float) -> None:
            d, b = episode.data, episode.model.body("ladder").id
            R = d.xmat[b].reshape(3, 3)
            along = R @ np.array([*local, 0.0])
            f = force * np.array([along[0], along[1], 0.0]) / math.hypot(along[0], along[1])
            d.xfrc_applied[b, :3] = f
            d.xfrc_applied[b, 3:] = np.cross(d.xpos[b] + R @ np.array([0.0, 0.0, height]) - d.xipos[b], f)
        return load

    def ladder_gave(episode: FiatluxEpisode, start) -> str | None:
        s = episode.last
        if s.ladder_tilt > 0.02:  # its far feet 1-2 cm up
            return "tips"
        return "slides" if np.linalg.norm(s.ladder_root[:2] - start.ladder_root[:2]) > 0.005 else None

    def at_wrists(sign: float):
        def load(episode: FiatluxEpisode, force: float) -> None:
            d, m = episode.data, episode.model
            yaw = episode.controller.base_pose(d).yaw
            for side in ("left", "right"):
                d.xfrc_applied[m.body(f"{side}_wrist_yaw_link").id, :3] = sign * force / 2 * np.array([math.cos(yaw), math.sin(yaw), 0.0])
        return load

    def pressed_down(episode: FiatluxEpisode, force: float) -> None:
        for side in ("left", "right"):
            episode.data.xfrc_applied[episode.model.body(f"{side}_wrist_yaw_link").id, 2] = -force / 2

    def wrists_gave():
        """A check that the robot fell or a wrist sank 10 cm below where the ramp found it."""
        start = {}

        def gave(episode: FiatluxEpisode, _) -> str | None:
            d, m = episode.data, episode.model
            z = np.array([d.xpos[m.body(f"{side}_wrist_yaw_link").id, 2] for side in ("left", "right")])
            if episode.controller.fallen(d):
                return "falls"
            return "sags 10 cm" if (start.setdefault("z", z) - z).max() > 0.1 else None
        return gave

    pushes = {}
    heights, sides = (0.3, 0.84, 1.0), (("steps", (0.0, 1.0)), ("back", (0.0, -1.0)), ("side", (1.0, 0.0)))  # its steps face local -y
    wrists, pitches = (("forward", 1.0), ("backward", -1.0)), (-0.2, -0.5, -1.0)
    if smoke:
        heights, sides, wrists, pitches = heights[1:2], sides[:1], wrists[:1], pitches[:1]
    for height in heights:  # 0.84 m: the standing robot's wrists
        for way, local in sides:
            gave = pushes[f"ladder_from_{way}_{height}m"] = ramp(seed, on_ladder(height, local), ladder_gave, 200.0 * scale)
            print(f"ladder, pushed from its {way} at {height} m: " + (f"{gave[1]} at {gave[0]:.0f} N" if gave else f"holds {200 * scale:g} N"))
    for way, sign in wrists:
        gave = pushes[f"robot_wrists_{way}"] = ramp(seed, at_wrists(sign), lambda e, _: "falls" if e.controller.fallen(e.data) else None, 150.0 * scale)
        print(f"standing robot, pulled {way} at both wrists: " + (f"falls at {gave[0]:.0f} N" if gave else f"holds {150 * scale:g} N"))
    for pitch in pitches:  # wrists about 0.23, 0.28 and 0.31 m ahead of the pelvis, 0.83, 0.91 and 1.06 m up
        gave = pushes[f"robot_wrists_down_shoulders_{pitch}"] = ramp(seed, pressed_down, wrists_gave(), 250.0 * scale, arms=pitch)
        print(f"standing robot, arms forward (shoulder pitch {pitch} rad), pressed down at both wrists: "
              + (f"{gave[1]} at {gave[0]:.0f} N" if gave else f"holds {250 * scale:g} N"))
    print(json.dumps({"subtask": "MoveLadder", "seed": seed, "controller": "balanced", "ramp_n_per_s": RAMP,
                      **{k: (None if v is None else {"force_n": round(v[0], 1), "gave": v[1]}) for k, v in pushes.items()}}))




def touch_note(run: dict) -> str:
    t = run["touched"]
    return f", touched the {t['furniture']} at {t['at_s']} s" if t else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    what = parser.add_argument_group("parts (one or more, run in this order)")
    what.add_argument("--balanced", action="store_true", help="standing, walks and a turn at a subtask's start")
    what.add_argument("--turns", action="store_true", help="count the balanced robot's turns, in place, walked and walked off, that end standing")
    what.add_argument("--walks", action="store_true", help="30 s straight walks at the navigation speeds over layout seeds (--seeds)")
    what.add_argument("--ladder", action="store_true", help="the forces that slide or tip S01's ladder, and those the standing robot holds at its wrists")
    parser.add_argument("--subtask", default="S07", help="the subtask of --balanced, --turns and --walks")
    parser.add_argument("--seed", type=int, default=0, help="the layout seed of --balanced and --ladder")
    parser.add_argument("--seeds", type=int, default=6, help="layout seeds 0..N-1 of --turns (each turned both ways, in place, walked and walked off) and --walks")
    parser.add_argument("--smoke", action="store_true", help="every part once, a twentieth of its length, one seed: the script runs, the figures mean nothing")
    args = parser.parse_args()
    if not (args.balanced or args.turns or args.walks or args.ladder):
        parser.error("name a part: --balanced, --turns, --walks or --ladder")
    scale, seeds = (0.05, 1) if args.smoke else (1.0, args.seeds)
    if args.balanced:
        balanced(args.subtask, args.seed, scale)
    if args.turns:
        turns(args.subtask, seeds, scale=scale)
    if args.walks:
        walks(args.subtask, seeds, 30.0 * scale, WALK_SPEEDS[:1] if args.smoke else WALK_SPEEDS)
    if args.ladder:
        ladder(args.seed, smoke=args.smoke)


if __name__ == "__main__":
    main()
