"""The Fiatlux bag of one episode, written by a per-step sink from the episode's own measurements.

Every step adds one row: the action, joint states, the root's and every
prop's pose and velocity, the hand contact forces on the bulbs, the grip
force, one boolean per gate conjunct, the termination flags, the step's
reward and each of its terms (`reward`, `reward_<term>`, weighted), and in
the climbing task the limb forces (`rung_forces`). The meta says what
scoring needs (conjuncts, bulb floors, the glass limit) and names the reward
terms with their weights.
"""

from __future__ import annotations

from pathlib import Path

from ... import __version__
from ...control.contracts.joint_position import JOINT_NAMES
from ...record.recorder import Sink, StepRecord
from . import gates
from .rewards import DT, WEIGHTS
from .bag import REWARD_PREFIX, BagWriter, bag_path
from .subtasks import DROPPED

OBJECTS = ("ladder", "old_bulb", "fresh_bulb")


class BagSink(Sink):
    def __init__(self, episode, run_dir, seed: int) -> None:
        self.episode = episode
        task = episode.condition
        self.writer = BagWriter(
            bag_path(run_dir, seed),
            {
                "task_id": task.name,
                "gate_conjuncts": list(task.gate),
                "seed": int(seed),
                "code": {"package_version": __version__},
                "joint_names": list(JOINT_NAMES),
                "drop_min_height_by_bulb": dict(task.drop_floors),
                "glass_contact_limit_n": gates.GLASS_LIMIT,
                "action_dim": episode.contract.action_dim,
                "reward_terms": list(episode.reward.terms),
                "reward_weights": {t: WEIGHTS[t].value for t in episode.reward.terms},
                "reward_dt": DT,
            },
        )

    def step(self, record: StepRecord) -> None:
        e = self.episode
        d = e.data
        obs = e.observer
        row = {
            "actions": record.action,
            "joint_pos": d.qpos[obs.q],
            "joint_vel": d.qvel[obs.v],
            "robot_root_pos": d.qpos[obs.qadr : obs.qadr + 3],
            "robot_root_quat": d.qpos[obs.qadr + 3 : obs.qadr + 7],
            "robot_root_lin_vel": d.qvel[obs.vadr : obs.vadr + 3],
            "robot_root_ang_vel": d.qvel[obs.vadr + 3 : obs.vadr + 6],
            "contact_force": e.forces[0],
            "contact_force_left": e.forces[1],
            "grip_force": max(b.grip_force for b in e.last.bulbs.values()),
            "success_term": bool(record.result.success),
            "dropped_term": record.result.outcome == DROPPED,
            "timeout_term": bool(record.truncated),
            "terminated": bool(record.terminated),
            "truncated": bool(record.truncated),
            "step_in_episode": record.step,
            **{f"gate_{k}": v for k, v in e.progress.conjuncts.items()},
            "reward": sum(e.terms.values()),
            **{f"{REWARD_PREFIX}{k}": v for k, v in e.terms.items()},
        }
        if e.rung_forces is not None:
            row["rung_forces"] = e.rung_forces
        for name in OBJECTS:
            qa, va = e.free_adr[name]
            row.update({
                f"{name}_pos": d.qpos[qa : qa + 3], f"{name}_quat": d.qpos[qa + 3 : qa + 7],
                f"{name}_lin_vel": d.qvel[va : va + 3], f"{name}_ang_vel": d.qvel[va + 3 : va + 6],
            })
        self.writer.append(row)

    def close(self) -> list[Path]:
        return [self.writer.close()]

    def abort(self) -> None:
        self.writer.abort()
