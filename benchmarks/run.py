"""How fast an evaluation runs on this machine, measured.

    python benchmarks/run.py [--quick] [--controller NAME]
    python benchmarks/run.py --against OTHER/src [--rounds 3] [--quick]

1. Control steps/s of a task scene without rendering, and the ratio of an
   env step to the raw `mj_step` calls of the same steps (replayed from the
   same state with the same actuator inputs, in the same run).
2. Head-camera frames/s at 640 x 360 on one core (a child process pinned to
   one CPU, Mesa llvmpipe with LP_NUM_THREADS=1), in the protocol's look and
   in the fast look.
3. A recorded episode's seconds split into physics, rendering, encoding,
   policy and video probing (from the episode summaries), also per recorded
   step, and the video bytes per recorded step.
4. The same episodes with 1 and with 2 workers: the speed-up, and which of
   the two `--workers auto` runs here; and with 2 workers in the fast look:
   what the protocol's look costs a recorded run.
5. The projected wall time of a standard condition (100 episodes, full
   recording) with the expert policy.

1 also prints the controller's median time per control step (the same run,
the same steps), and, where the other suites run the same controller, the
same two figures for a Fiatlux subtask (S07, stand / walk / stand at the
home pose) and a find-navigate-sit episode (FINDSIT-val100, six skills).
The last human-readable lines list the four targets, each met or missed,
and sum up the figures with the machine's load average at the start and the
end.

`--against` measures only 1, for this checkout and another one's `src`
in turns (fresh processes, `--rounds` each), and prints the medians side
by side: a before/after under the same load. With `--recorded` it also
compares the CPU time of one recorded expert episode on one worker
rasterizing on its own thread, as with a worker per core (all threads,
recording = the same episode with videos minus without): CPU time barely
changes with other processes' load, where wall time does.

`--quick` finishes in under a minute (short pose-hold episodes; the expert's
episode length from one unrecorded episode); the full mode records expert
episodes with 1 and 2 workers and feeds docs/PERFORMANCE.md. Human-readable
lines first; the last line is one JSON object with the figures. Everything
runs on one controller, the tool-use protocol's unless `--controller` names
another; every look-dependent figure is measured in the protocol's look
unless it says fast. `benchmarks/look_cost.py` breaks the look's cost down by
setting.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import multiprocessing
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import humanoidtoolbench  # noqa: F401  (headless GL before MuJoCo loads)
import mujoco
import numpy as np

from humanoidtoolbench import suites
from humanoidtoolbench.cli import eval as eval_cli
from humanoidtoolbench.cli.common import worker_count
from humanoidtoolbench.control import make_controller
from humanoidtoolbench.control.contracts import decoupled_v1 as contract
from humanoidtoolbench.robot.cameras import POLICY_CAMERA
from humanoidtoolbench.sim.render import CameraRenderer, backend_info
from humanoidtoolbench.sim.scene import SUBSTEPS
from humanoidtoolbench.sim.simulation import home_upper_pose
from humanoidtoolbench.suites.toolbench.episode import TaskEpisode
from humanoidtoolbench.suites.toolbench.registry import DEFAULT_ENV, EPISODES, MAX_STEPS, SEED_START, parse
from humanoidtoolbench.suites.toolbench.suite import SUITE

CONDITION = parse(DEFAULT_ENV)
ASSUMED_STEPS = 1000  # mean episode length assumed when there is no expert policy to measure
STATE = mujoco.mjtState.mjSTATE_INTEGRATION
PARTS = ("physics", "render", "encode", "policy", "probe")
PROTOCOL_LOOK = SUITE.protocol.look
LOOK_BUDGET = 1.3  # a recorded run in the protocol's look may take this many times the fast look's
# The targets: (figure, label, limit, True where the figure must stay at or under the limit).
TARGETS = (
    ("controller_median_us", "controller median per control step, us", 500, True),
    ("step_overhead_ratio", "env step / raw physics", 1.5, True),
    ("worker_speedup", "2 workers vs 1 on recorded episodes", 1.7, False),
    ("condition_minutes", "standard recorded condition with 2 workers, min", 15, True),
)


def commands(base_yaw: float) -> list[np.ndarray]:
    """A cycle of 250 commands: stand, walk forward and back, turn and turn back."""
    def row(vx=0.0, flag=0.0, yaw=base_yaw):
        return np.concatenate([home_upper_pose(), [contract.DEFAULT_BASE_HEIGHT, vx, 0.0, flag, yaw]])

    return [row()] * 50 + [row(0.2)] * 50 + [row(-0.2)] * 50 + [row(0.0, 1.0, base_yaw + 0.5)] * 50 + [row(0.0, 1.0)] * 50


def toolbench_cycle(episode) -> list[np.ndarray]:
    """The tool-use cycle as one chunk."""
    return [np.array(commands(episode.sim.base_pose().yaw))]


def fiatlux_cycle(episode) -> list[np.ndarray]:
    """A Fiatlux robot at the home pose: stand 1 s, walk at 0.1 m/s 2 s, stand 2 s (`decoupled_v1`)."""
    def row(vx=0.0):
        return np.concatenate([home_upper_pose(), [contract.DEFAULT_BASE_HEIGHT, vx, 0.0, 0.0, 0.0]])

    return [np.array([row()] * 50 + [row(0.1)] * 100 + [row()] * 100)]


def findsit_cycle(episode) -> list[np.ndarray]:
    """Find-navigate-sit skills, 25 rows each (`discrete_skill_v1`): walk, turn, side step, step back, turn, walk."""
    plan = [(0, 0.4), (2, 30.0), (6, 0.2), (5, 0.2), (2, -20.0), (0, 0.2)]
    return [np.column_stack([np.tile([skill, value], (25, 1)), np.arange(25)]) for skill, value in plan]


# The step-overhead cases: the tool-use protocol's condition, and the other suites' where they share the controller.
SUITE_CASES = {"toolbench": (DEFAULT_ENV, toolbench_cycle), "fiatlux": ("S07", fiatlux_cycle), "findsit": ("FINDSIT-val100", findsit_cycle)}


def step_overhead(seconds: float, controller: str, env: str = DEFAULT_ENV, cycle=toolbench_cycle) -> dict:
    """Env step vs the raw physics of the same steps, and the controller's time per control step.

    Each cycle of commands is stepped through the episode (controller, the suite's per-step
    rules and metrics), then replayed from the saved state with raw `mj_step` and the inputs
    the episode gave the physics (actuator inputs, and applied forces where a scene hook sets
    them), which reproduces the same trajectory: the benchmark checks it. Inputs set before
    every physics step are recorded there (a copy, inside the env time). Each figure also comes
    as CPU time of this thread (`_cpu`), which other processes on a busy machine barely change."""
    condition = suites.parse(env)
    suite = suites.suite_of(condition)
    ep = suite.make_episode(condition, suite.protocol.seed_start, suite.make_controller(controller), "fast")
    ep.reset()
    sim, m, d = ep.sim, ep.model, ep.data
    inputs: list[tuple[np.ndarray, np.ndarray]] = []
    per_physics_step = bool(sim.controller.physics_step_hook or sim.physics_step_hooks)
    if per_physics_step:
        sim.physics_step_hooks.append(lambda data: inputs.append((data.ctrl.copy(), data.xfrc_applied.copy())))
    apply, control, control_cpu = sim.controller.apply, [], []

    def timed_apply(data, cmd, dt):
        t, c = time.perf_counter(), time.thread_time()
        apply(data, cmd, dt)
        control.append(time.perf_counter() - t)
        control_cpu.append(time.thread_time() - c)

    sim.controller.apply = timed_apply

    def run_cycle() -> tuple[float, float]:
        wall = cpu = 0.0
        for chunk in cycle(ep):
            ep.on_chunk(chunk, {})
            for row in chunk:
                t, c = time.perf_counter(), time.thread_time()
                ep.step(row)
                wall += time.perf_counter() - t
                cpu += time.thread_time() - c
                if not per_physics_step:
                    inputs.append((d.ctrl.copy(), d.xfrc_applied.copy()))
        return wall, cpu

    run_cycle()  # warm up
    state = np.empty(mujoco.mj_stateSize(m, STATE))
    stepped = raw = stepped_cpu = raw_cpu = 0.0
    steps, started = 0, time.perf_counter()
    control.clear()
    control_cpu.clear()
    while time.perf_counter() - started < seconds:
        mujoco.mj_getState(m, d, state, STATE)
        inputs.clear()
        wall, cpu = run_cycle()
        stepped, stepped_cpu = stepped + wall, stepped_cpu + cpu
        n = len(inputs) // (SUBSTEPS if per_physics_step else 1)
        after = d.qpos.copy()
        mujoco.mj_setState(m, d, state, STATE)
        for ctrl, xfrc in inputs:
            d.ctrl[:], d.xfrc_applied[:] = ctrl, xfrc
            t, c = time.perf_counter(), time.thread_time()
            mujoco.mj_step(m, d, 1 if per_physics_step else SUBSTEPS)
            raw += time.perf_counter() - t
            raw_cpu += time.thread_time() - c
        assert np.array_equal(d.qpos, after), f"the replay left the episode's trajectory ({env})"
        steps += n
    return {
        "condition": condition.name,
        "control_steps_per_s": round(steps / stepped, 1),
        "raw_mj_step_per_s": round(steps * SUBSTEPS / raw, 1),
        "env_step_us": round(stepped / steps * 1e6, 1),
        "raw_physics_us": round(raw / steps * 1e6, 1),
        "step_overhead_ratio": round(stepped / raw, 3),
        "controller_median_us": round(statistics.median(control) * 1e6, 1),
        "controller_p90_us": round(statistics.quantiles(control, n=10)[-1] * 1e6, 1),
        "step_overhead_ratio_cpu": round(stepped_cpu / raw_cpu, 3),
        "controller_median_cpu_us": round(statistics.median(control_cpu) * 1e6, 1),
    }


def rate(fn, seconds: float) -> float:
    """Calls of `fn` per second over `seconds` of wall time."""
    n, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        fn()
        n += 1
    return n / (time.perf_counter() - started)


def cameras(seconds: float, controller: str, look: str) -> dict:
    """Frames/s of the head camera alone and of all four cameras (runs in a child pinned to one core)."""
    ep = TaskEpisode(CONDITION, SEED_START, controller=make_controller(controller), look=look)
    ep.reset()

    with CameraRenderer(ep.model, (POLICY_CAMERA,)) as head:
        head_fps = rate(lambda: head.render(ep.data, POLICY_CAMERA), seconds)
    with CameraRenderer(ep.model) as cams:
        four = rate(lambda: cams.render_all(ep.data), seconds)
    return {"head_camera_fps": round(head_fps, 1), "four_camera_frames_per_s": round(four, 1),
            "renderer": backend_info().get("renderer"), "camera_cpus": sorted(os.sched_getaffinity(0))}


def evaluate(policy: str, controller: str, episodes: int, max_steps: int, workers: int, video: bool = True,
             look: str = PROTOCOL_LOOK) -> dict:
    """One htb-eval run into a scratch directory (runs in a child): wall seconds and the summaries."""
    with tempfile.TemporaryDirectory(prefix="htb-bench-") as out:
        args = ["--policy", policy, "--controller", controller, "--episodes", str(episodes), "--max-steps", str(max_steps),
                "--workers", str(workers), "--look", look, "--output", out] + ([] if video else ["--no-video"])
        log = io.StringIO()  # htb-eval's progress lines would bury the figures
        started, cpu = time.perf_counter(), _cpu_seconds()
        with contextlib.redirect_stderr(log):
            rc = eval_cli.main(args)
        wall, cpu = time.perf_counter() - started, _cpu_seconds() - cpu
        if rc != 0:
            raise RuntimeError(f"htb-eval {' '.join(args)} exited with {rc}:\n{log.getvalue()}")
        summaries = [json.loads(p.read_text()) for p in sorted(Path(out).glob("*/run-*/summaries/*.json"))]
        video_bytes = sum(p.stat().st_size for p in Path(out).glob("*/run-*/videos/*/*.mp4"))
    return {"wall": wall, "cpu": cpu, "summaries": summaries, "video_bytes": video_bytes}


def _cpu_seconds() -> float:
    """CPU time of this process's threads and of its finished worker processes."""
    return sum(r.ru_utime + r.ru_stime for r in map(resource.getrusage, (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)))


def _child(conn, env: dict, cpus: set | None, fn, args) -> None:
    os.environ.update(env)  # before the child creates its first GL context
    if cpus:
        os.sched_setaffinity(0, cpus)
    try:
        conn.send(("ok", fn(*args)))
    except BaseException as exc:
        conn.send(("error", f"{type(exc).__name__}: {exc}"))


def in_child(fn, *args, env: dict | None = None, cpus: set | None = None):
    """Run `fn(*args)` in a fresh spawned process (its own GL state and environment, optionally pinned)."""
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=_child, args=(child, env or {}, cpus, fn, args))
    proc.start()
    kind, value = parent.recv()
    proc.join()
    if kind != "ok":
        raise RuntimeError(value)
    return value


def split(summaries: list[dict]) -> dict:
    """Mean seconds per episode by part, and the main thread's fixed cost (scene, settling, files)."""
    mean = {k: statistics.fmean(s["seconds"].get(k, 0.0) for s in summaries) for k in PARTS}
    total = statistics.fmean(s["episode_seconds"] for s in summaries)
    steps = statistics.fmean(s["step"] for s in summaries)
    on_thread = sum(mean[k] for k in PARTS if k != "encode")  # encoding runs on its own thread
    return {**{k: round(v, 3) for k, v in mean.items()}, "total": round(total, 3), "steps": steps,
            "fixed": round(total - on_thread, 3), "ms_per_step": {k: round(1e3 * mean[k] / steps, 2) for k in PARTS}}


def targets(figures: dict) -> dict:
    """Each target's figure, limit and whether it is met (a figure not measured in this mode is left out)."""
    out = {}
    for key, label, limit, at_most in TARGETS:
        value = figures.get(key)
        if value is not None:
            out[key] = {"label": label, "value": value, "bound": "<=" if at_most else ">=", "limit": limit,
                        "met": value <= limit if at_most else value >= limit}
    return out


def projection(recorded: dict, expert: dict | None, speedup: float) -> dict:
    """Minutes for a standard condition: episode = fixed + steps x (render + probe + physics + policy per step)."""
    per_step = (recorded["render"] + recorded["probe"]) / recorded["steps"]
    if expert is not None:
        source, steps = expert, expert["steps"]
        method = f"expert: mean length {steps:.0f} steps measured over {expert['episodes']} episode(s)"
    else:
        source, steps = recorded, ASSUMED_STEPS
        method = f"no expert policy: pose-hold costs with an ASSUMED mean length of {ASSUMED_STEPS} steps"
    per_step += (source["physics"] + source["policy"]) / source["steps"]
    episode = recorded["fixed"] + steps * per_step
    return {"method": method, "mean_steps": round(steps, 1), "episode_seconds": round(episode, 2),
            "workers_1_min": round(EPISODES * episode / 60, 1), "workers_2_min": round(EPISODES * episode / speedup / 60, 1)}


def step_figures(quick: bool, controller: str) -> dict:
    """Step overhead and controller time on the tool-use condition, then on the other suites that run `controller`."""
    figures = step_overhead(3.0 if quick else 20.0, controller)
    figures["suites"] = {}
    for name, (env, cycle) in SUITE_CASES.items():
        suite = suites.suite_of(suites.parse(env))
        if name != "toolbench" and controller in suite.controllers:
            figures["suites"][name] = step_overhead(2.0 if quick else 10.0, controller, env, cycle)
    return figures


def print_steps(figures: dict, controller: str) -> None:
    print(f"control steps/s without rendering ({CONDITION.name}, {controller}): {figures['control_steps_per_s']:.0f} "
          f"({figures['env_step_us']:.0f} us/step; raw physics {figures['raw_physics_us']:.0f} us = "
          f"{figures['raw_mj_step_per_s']:.0f} mj_step/s); ratio {figures['step_overhead_ratio']:.3f} (target <= 1.5); "
          f"controller median {figures['controller_median_us']:.0f} us per control step (90th percentile "
          f"{figures['controller_p90_us']:.0f}; target <= 500); in CPU time of the thread: controller median "
          f"{figures['controller_median_cpu_us']:.0f} us, ratio {figures['step_overhead_ratio_cpu']:.3f}")
    for name, other in figures["suites"].items():
        print(f"  {name} ({other['condition']}, {controller}): env step {other['env_step_us']:.0f} us, raw physics "
              f"{other['raw_physics_us']:.0f} us, ratio {other['step_overhead_ratio']:.3f}; controller median "
              f"{other['controller_median_us']:.0f} us (90th percentile {other['controller_p90_us']:.0f}); CPU time: "
              f"controller median {other['controller_median_cpu_us']:.0f} us, ratio {other['step_overhead_ratio_cpu']:.3f}")


def recorded_cpu(controller: str, steps: int) -> dict:
    """CPU milliseconds per step of one episode with and without videos (LP_NUM_THREADS=0, one worker)."""
    policy = "expert" if "expert" in SUITE.builtin_policies_for(controller) else "pose-hold"
    env = {"LP_NUM_THREADS": "0"}
    video = in_child(evaluate, policy, controller, 1, steps, 1, env=env)
    bare = in_child(evaluate, policy, controller, 1, steps, 1, False, env=env)
    frames = video["summaries"][0]["step"] + 1
    return {"policy": policy, "steps": frames - 1, "cpu_ms_per_step": round(1e3 * video["cpu"] / frames, 2),
            "recording_cpu_ms_per_step": round(1e3 * (video["cpu"] - bare["cpu"]) / frames, 2),
            "encode_cpu_ms_per_step": round(1e3 * video["summaries"][0]["seconds"]["encode"] / frames, 2),
            "video_kib_per_step": round(video["video_bytes"] / 1024 / frames, 1)}


def against(other_src: str, rounds: int, quick: bool, controller: str, recorded: bool = False) -> None:
    """The step figures of this checkout and of another one's `src`, measured in turns (each in a fresh
    process, `rounds` times), so both see the same load; the median of the rounds side by side."""
    here = str(Path(humanoidtoolbench.__file__).resolve().parents[1])
    runs: dict[str, list[dict]] = {"other": [], "this": []}
    for _ in range(rounds):
        for key, src in (("other", other_src), ("this", here)):
            cmd = [sys.executable, __file__, "--steps-only", "--controller", controller] + (["--quick"] if quick else [])
            out = subprocess.run(cmd, env={**os.environ, "PYTHONPATH": src}, capture_output=True, text=True, check=True)
            runs[key].append(json.loads(out.stdout.splitlines()[-1]))
            if recorded:
                cmd = [sys.executable, __file__, "--recorded-only", "--controller", controller] + (["--quick"] if quick else [])
                out = subprocess.run(cmd, env={**os.environ, "PYTHONPATH": src}, capture_output=True, text=True, check=True)
                runs[key][-1]["recorded"] = json.loads(out.stdout.splitlines()[-1])
    print(f"{rounds} rounds in turns, medians; other = {other_src}, this = {here}")
    cases = [("toolbench", lambda f: f)] + [(n, lambda f, n=n: f["suites"][n]) for n in runs["this"][0]["suites"]]
    summary = {}
    for name, pick in cases:
        keys = ("controller_median_us", "step_overhead_ratio", "env_step_us", "raw_physics_us", "controller_median_cpu_us", "step_overhead_ratio_cpu")
        row = {key: {k: statistics.median(pick(f)[k] for f in runs[key]) for k in keys} for key in runs}
        summary[name] = row
        o, t = row["other"], row["this"]
        print(f"  {name}: controller median {o['controller_median_us']:.0f} -> {t['controller_median_us']:.0f} us "
              f"({o['controller_median_us'] / t['controller_median_us']:.2f} x); env step / raw physics "
              f"{o['step_overhead_ratio']:.2f} -> {t['step_overhead_ratio']:.2f} (env step {o['env_step_us']:.0f} -> "
              f"{t['env_step_us']:.0f} us, raw physics {o['raw_physics_us']:.0f} / {t['raw_physics_us']:.0f} us); CPU time: "
              f"controller median {o['controller_median_cpu_us']:.0f} -> {t['controller_median_cpu_us']:.0f} us, ratio "
              f"{o['step_overhead_ratio_cpu']:.2f} -> {t['step_overhead_ratio_cpu']:.2f}")
    if recorded:
        keys = ("cpu_ms_per_step", "recording_cpu_ms_per_step", "encode_cpu_ms_per_step", "video_kib_per_step")
        row = {key: {k: statistics.median(f["recorded"][k] for f in runs[key]) for k in keys} for key in runs}
        summary["recorded"] = row
        o, t, r = row["other"], row["this"], runs["this"][0]["recorded"]
        print(f"  recorded {r['policy']} episode ({r['steps']} steps, one worker, LP_NUM_THREADS=0), CPU ms per recorded step: "
              f"all {o['cpu_ms_per_step']:.1f} -> {t['cpu_ms_per_step']:.1f} ({o['cpu_ms_per_step'] / t['cpu_ms_per_step']:.2f} x), "
              f"recording (rendering, encoding, probe) {o['recording_cpu_ms_per_step']:.1f} -> {t['recording_cpu_ms_per_step']:.1f}, "
              f"of which encoding {o['encode_cpu_ms_per_step']:.1f} -> {t['encode_cpu_ms_per_step']:.1f}; video "
              f"{o['video_kib_per_step']:.0f} -> {t['video_kib_per_step']:.0f} KiB per recorded step")
    print(json.dumps({"rounds": rounds, "controller": controller, "load_average_end": round(os.getloadavg()[0], 2), "cases": summary}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="under a minute: short episodes, projected expert costs")
    parser.add_argument("--controller", choices=SUITE.controllers, default=SUITE.protocol.controller,
                        help="what executes the commands (default: the protocol's, %(default)s)")
    parser.add_argument("--steps-only", action="store_true", help="only the step overhead and controller figures (one JSON line)")
    parser.add_argument("--against", metavar="SRC", help="only the step figures, of this checkout and of another checkout's src directory, in turns")
    parser.add_argument("--rounds", type=int, default=3, help="turns of --against (default 3)")
    parser.add_argument("--recorded", action="store_true", help="with --against: also the CPU time of a recorded episode")
    parser.add_argument("--recorded-only", action="store_true", help="only the recorded episode's CPU figures (one JSON line)")
    args = parser.parse_args()
    quick, controller = args.quick, args.controller
    load = os.getloadavg()[0]
    if args.steps_only:
        print(json.dumps({"load_average": round(load, 2), **step_figures(quick, controller)}))
        return
    if args.recorded_only:
        print(json.dumps(recorded_cpu(controller, 100 if quick else 300)))
        return
    print(f"machine: {os.cpu_count()} cores, load average {load:.2f}" + (" (busy: figures may be low)" if load > 0.5 else ""))
    if args.against:
        against(args.against, args.rounds, quick, controller, args.recorded)
        return
    expert = "expert" in SUITE.builtin_policies_for(controller)

    figures: dict = {"quick": quick, "controller": controller, "cores": os.cpu_count(), "load_average": round(load, 2)}
    figures.update(step_figures(quick, controller))
    print_steps(figures, controller)

    cam, fast_cam = (in_child(cameras, 2.0 if quick else 10.0, controller, look, env={"LP_NUM_THREADS": "1"}, cpus={0})
                     for look in (PROTOCOL_LOOK, "fast"))
    figures.update(cam)
    figures.update(fast_head_camera_fps=fast_cam["head_camera_fps"], fast_four_camera_frames_per_s=fast_cam["four_camera_frames_per_s"])
    print(f"head camera 640x360 on one core (CPU {cam['camera_cpus'][0]}, LP_NUM_THREADS=1): {cam['head_camera_fps']:.0f} frames/s "
          f"in the {PROTOCOL_LOOK} look (target >= 60), {fast_cam['head_camera_fps']:.0f} in the fast look; all four cameras: "
          f"{cam['four_camera_frames_per_s']:.0f} recorded steps/s ({fast_cam['four_camera_frames_per_s']:.0f} fast) ({cam['renderer']})")

    if quick or not expert:
        policy, episodes, steps = "pose-hold", (2 if quick else 4), (100 if quick else 1000)
    else:
        policy, episodes, steps = "expert", 4, MAX_STEPS
    serial = in_child(evaluate, policy, controller, episodes, steps, 1)
    parallel = in_child(evaluate, policy, controller, episodes, steps, 2)
    fast = in_child(evaluate, policy, controller, episodes, steps, 2, True, "fast")
    recorded = split(serial["summaries"])
    speedup = serial["wall"] / parallel["wall"]
    figures.update(fast_parallel_seconds=round(fast["wall"], 2), look_wall_ratio=round(parallel["wall"] / fast["wall"], 3))
    figures.update(
        episode_seconds=recorded, serial_seconds=round(serial["wall"], 2), parallel_seconds=round(parallel["wall"], 2),
        video_kib_per_step=round(serial["video_bytes"] / 1024 / sum(s["step"] + 1 for s in serial["summaries"]), 1),
        workers_auto=worker_count("auto"), faster_workers=1 if speedup < 1 else 2,
        worker_speedup=round(speedup, 3), speedup_episodes=f"{episodes} x {policy}, up to {steps} steps, recorded",
        serial_cores_used=round(serial["cpu"] / serial["wall"], 2), parallel_cores_used=round(parallel["cpu"] / parallel["wall"], 2),
        parallel_cpu_overhead=round(parallel["cpu"] / serial["cpu"] - 1, 3),
    )
    if not quick:  # how well workers scale: against one worker held to one core
        one_core = in_child(evaluate, policy, controller, episodes, steps, 1, cpus={0})
        figures["worker_speedup_vs_one_core"] = round(one_core["wall"] / parallel["wall"], 3)
    print(f"recorded {policy} episode ({recorded['steps']:.0f} steps), seconds: " +
          ", ".join(f"{k} {recorded[k]:.2f}" for k in (*PARTS, "fixed")) +
          f"; wall {recorded['total']:.2f} (encoding runs beside the simulation thread); per recorded step, ms: " +
          ", ".join(f"{k} {recorded['ms_per_step'][k]:.1f}" for k in PARTS) + f"; video {figures['video_kib_per_step']:.0f} KiB "
          "per recorded step (four cameras)")
    print(f"{episodes} episodes: 1 worker {serial['wall']:.1f} s, 2 workers {parallel['wall']:.1f} s: "
          f"speed-up {speedup:.2f} (target >= 1.7); cores busy: {figures['serial_cores_used']:.2f} with 1 worker "
          f"(parallel rasterization, background encoding), {figures['parallel_cores_used']:.2f} with 2; "
          f"CPU time {100 * figures['parallel_cpu_overhead']:+.0f}% with 2 workers"
          + (f"; against 1 worker held to one core: {figures['worker_speedup_vs_one_core']:.2f}" if not quick else "")
          + f"; --workers auto runs {figures['workers_auto']} here, the faster of the two is {figures['faster_workers']}")
    print(f"{episodes} episodes, 2 workers: {parallel['wall']:.1f} s in the {PROTOCOL_LOOK} look, {fast['wall']:.1f} s in the fast "
          f"look: {figures['look_wall_ratio']:.2f} x (target <= {LOOK_BUDGET})")

    measured = None
    if expert:
        runs = serial["summaries"] if policy == "expert" else in_child(evaluate, "expert", controller, 1, MAX_STEPS, 1, False)["summaries"]
        measured = {**split(runs), "episodes": len(runs)}
    else:
        print("no 'expert' built-in policy: projecting from pose-hold costs with an assumed episode length")
    figures["projection"] = projection(recorded, measured, speedup)
    if policy == "expert":
        figures["projection"]["measured_workers_2_min"] = round(EPISODES * parallel["wall"] / episodes / 60, 1)
    # The floor: the 2-worker run's CPU time per recorded frame (every thread, fixed costs included) on two fully busy cores.
    frames = sum(s["step"] + 1 for s in parallel["summaries"])
    figures["projection"]["cpu_floor_2_cores_min"] = round(EPISODES * (figures["projection"]["mean_steps"] + 1) * parallel["cpu"] / frames / 2 / 60, 1)
    p = figures["projection"]
    print(f"standard condition ({EPISODES} episodes, full recording), {p['method']}: "
          f"{p['workers_1_min']:.0f} min with 1 worker, {p['workers_2_min']:.0f} min with 2 (target <= 15 on two idle cores)"
          + (f"; from the measured 2-worker wall time: {p['measured_workers_2_min']:.0f} min" if "measured_workers_2_min" in p else "")
          + f"; its CPU time on two fully busy cores: {p['cpu_floor_2_cores_min']:.0f} min ({1e3 * parallel['cpu'] / frames:.1f} ms CPU "
          "per recorded step with 2 workers)")
    figures["load_average_end"] = round(os.getloadavg()[0], 2)
    figures["condition_minutes"] = p["workers_2_min"]
    figures["targets"] = targets(figures)
    for t in figures["targets"].values():
        print(f"target: {t['label']} {t['bound']} {t['limit']}: {t['value']:g}, {'met' if t['met'] else 'MISSED'}")
    print(f"summary ({controller}; load average {load:.2f} at the start, {figures['load_average_end']:.2f} at the end): "
          f"controller median {figures['controller_median_us']:.0f} us ({figures['controller_median_cpu_us']:.0f} us CPU); "
          f"env step / raw physics {figures['step_overhead_ratio']:.2f} ({figures['step_overhead_ratio_cpu']:.2f} in CPU time); 2 workers vs 1 {speedup:.2f} x; standard condition "
          f"{p['workers_2_min']:.0f} min with 2 workers ({p['workers_1_min']:.0f} with 1)")
    print(json.dumps(figures))


if __name__ == "__main__":
    sys.exit(main())
