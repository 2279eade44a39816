"""Fiatlux environments as one RSL-RL `VecEnv`: batched torch tensors, resets on the step an episode ends.

Each of the `num_envs` `FiatluxEnv`s runs without camera or lidar (what a
state-based policy reads); env i is first reset with seed `seed + i` and
later from its own generator, so a run is the same for the same seed. With
`layouts`, the environments cycle through that many compiled scenes (seeds
`layout_start` onwards: keep them apart from the evaluation seeds) while every
episode draws its own start jitter (`FiatluxEnv`'s `layouts`).

Observation groups: `policy`, the observation mode's vectors (`state`, and
`rung_forces` in the climbing task, `privileged` in the privileged mode),
concatenated in `POLICY_KEYS` order; `critic`, the same plus the privileged
vector (the paper's privileged state is for critic training). When episodes
end, `extras["log"]` holds their return, length and per-term reward sums
(`/return`, `/length`, `/reward/<term>`), which RSL-RL's logger averages per
iteration: the learning curve.
"""

from __future__ import annotations

import numpy as np
import torch
from rsl_rl.env import VecEnv
from tensordict import TensorDict

from ..env import FiatluxEnv

POLICY_KEYS = ("state", "rung_forces", "privileged")  # the order the policy's vector concatenates them in


def policy_keys(env: FiatluxEnv) -> list[str]:
    """The observation keys of the policy vector for this environment's mode and task."""
    return [k for k in POLICY_KEYS if k in env.observation_space.spaces]


def trainable_env_id(text: str) -> str:
    """The Gymnasium ID of the condition `text` names (full ID or short key), if these environments train it."""
    from ..suite import SUITE

    condition = SUITE.parse(text)
    if condition is None:
        raise ValueError(f"{text} is not a Fiatlux environment ID")
    return condition.env_id


class FiatluxVecEnv(VecEnv):
    def __init__(self, env_id: str, num_envs: int, seed: int = 0, obs_mode: str = "standard",
                 layouts: int | None = None, layout_start: int = 0, device: str = "cpu") -> None:
        import gymnasium

        self.envs = [gymnasium.make(env_id, obs_mode=obs_mode, vision=False, layouts=layouts,
                                    layout_start=layout_start).unwrapped for _ in range(num_envs)]
        first = self.envs[0]
        self.keys = policy_keys(first)
        self.terms = first.reward_terms
        self.num_envs = num_envs
        self.num_actions = first.action_space.shape[0]
        self._low, self._high = first.action_space.low.astype(np.float64), first.action_space.high.astype(np.float64)
        self.max_episode_length = first.task.max_steps
        self.device = device
        self.cfg = {"env_id": env_id, "num_envs": num_envs, "seed": seed, "obs_mode": obs_mode,
                    "layouts": layouts, "layout_start": layout_start}
        self.episode_length_buf = torch.zeros(num_envs, dtype=torch.long)
        self._sums = np.zeros((num_envs, len(self.terms)))
        self._obs = [env.reset(seed=seed + i)[0] for i, env in enumerate(self.envs)]

    def _group(self, obs: dict, env: FiatluxEnv) -> tuple[np.ndarray, np.ndarray]:
        policy = np.concatenate([obs[k] for k in self.keys])
        privileged = obs["privileged"] if "privileged" in obs else env.episode.privileged_vector()
        return policy, np.concatenate([policy, privileged])

    def get_observations(self) -> TensorDict:
        policy, critic = zip(*(self._group(o, e) for o, e in zip(self._obs, self.envs)))
        return TensorDict({"policy": torch.from_numpy(np.stack(policy)), "critic": torch.from_numpy(np.stack(critic))},
                          batch_size=[self.num_envs], device=self.device)

    def step(self, actions: torch.Tensor) -> tuple[TensorDict, torch.Tensor, torch.Tensor, dict]:
        # Gaussian samples leave the action space; the environments refuse such rows, so clip them here.
        rows = np.clip(actions.detach().cpu().numpy().astype(np.float64), self._low, self._high)
        rewards, dones, time_outs = np.zeros(self.num_envs), np.zeros(self.num_envs), np.zeros(self.num_envs)
        finished = []
        for i, env in enumerate(self.envs):
            obs, rewards[i], terminated, truncated, info = env.step(rows[i])
            self._sums[i] += [info["reward_terms"][t] for t in self.terms]
            self.episode_length_buf[i] += 1
            if terminated or truncated:
                dones[i], time_outs[i] = 1.0, float(truncated and not terminated)
                finished.append((self._sums[i].copy(), int(self.episode_length_buf[i])))
                self._sums[i] = 0.0
                self.episode_length_buf[i] = 0
                obs, _ = env.reset()
            self._obs[i] = obs
        extras = {"time_outs": torch.from_numpy(time_outs).float()}
        if finished:
            sums = np.stack([s for s, _ in finished])
            log = {f"/reward/{t}": torch.from_numpy(sums[:, k]).float() for k, t in enumerate(self.terms)}
            log["/return"] = torch.from_numpy(sums.sum(axis=1)).float()
            log["/length"] = torch.tensor([n for _, n in finished], dtype=torch.float)
            extras["log"] = log
        return (self.get_observations(), torch.from_numpy(rewards).float(), torch.from_numpy(dones).float(), extras)

    def close(self) -> None:
        for env in self.envs:
            env.close()
