"""Train a PPO baseline on one Fiatlux environment with RSL-RL, on CPU, for a bounded number of steps.

    python -m humanoidtoolbench.suites.fiatlux.learning.ppo ENV_ID --steps 200000 --output ppo-run

The environments are `learning.vecenv`'s (state vectors, no camera); every
setting of the run is `TrainConfig` and lands in the checkpoint's
configuration. The output directory holds:

    run/run_config.json                        the network, the observation it reads, the training settings
    run/checkpoints/ckpt_STEP/model.safetensors the actor and its observation normaliser (STEP: env steps)
    curve.json, curve.svg                      per iteration: mean return, length and reward terms of the
                                               episodes that ended in it (and the losses), plotted
    rsl_rl/                                    RSL-RL's own training state (model_ITER.pt), to resume from

Score the checkpoint like any model: `htb-eval ENV_ID --model DIR`
(with `--obs-mode privileged` for a policy trained in that mode). Training
seeds layouts from `--layout-start` (default 1000), away from the
evaluation's seeds 0-3; torch and the environments are seeded by `--seed`.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from ....record.files import write_bytes_atomic, write_json_atomic

DEFAULT_LAYOUT_START = 1000  # training layouts: seeds from here, never the evaluation's


@dataclass(frozen=True)
class TrainConfig:
    """Every setting of a PPO run. The network and PPO's numbers are RSL-RL's usual locomotion ones
    but for the action noise, which starts at 0.15 (of the [-1, 1] range) rather than 1.0, and the
    entropy bonus, 0.001 rather than 0.01: at 1.0 every episode starts as the random baseline, which
    falls within a second, and at 0.3 with 0.01 the entropy bonus outweighed the small per-step
    rewards on the climb and drove the noise up (0.30 to 0.40 over the first 36,000 steps, episodes
    still about 60 steps long)."""

    env_id: str
    steps: int
    num_envs: int = 4
    steps_per_env: int = 24  # per iteration
    seed: int = 0
    obs_mode: str = "standard"
    layouts: int = 4  # compiled scenes per environment (each about 75 MB)
    layout_start: int = DEFAULT_LAYOUT_START
    actor_hidden_dims: tuple[int, ...] = (256, 128, 64)
    critic_hidden_dims: tuple[int, ...] = (256, 128, 64)
    init_std: float = 0.15
    learning_rate: float = 1e-3
    num_learning_epochs: int = 5
    num_mini_batches: int = 4
    gamma: float = 0.99
    lam: float = 0.95
    entropy_coef: float = 0.001
    clip_param: float = 0.2
    desired_kl: float = 0.01
    save_interval: int = 50  # iterations between RSL-RL's own checkpoints (and curve.json writes)
    threads: int = 1  # torch threads

    @property
    def steps_per_iteration(self) -> int:
        return self.num_envs * self.steps_per_env

    @property
    def iterations(self) -> int:
        return max(1, math.ceil(self.steps / self.steps_per_iteration))

    def rsl_rl(self, curve_path: Path) -> dict:
        """The runner's configuration (RSL-RL 5)."""
        return {
            "num_steps_per_env": self.steps_per_env,
            "save_interval": self.save_interval,
            "obs_groups": {"actor": ["policy"], "critic": ["critic"]},
            "algorithm": {
                "class_name": "PPO", "learning_rate": self.learning_rate, "num_learning_epochs": self.num_learning_epochs,
                "num_mini_batches": self.num_mini_batches, "gamma": self.gamma, "lam": self.lam,
                "entropy_coef": self.entropy_coef, "clip_param": self.clip_param, "desired_kl": self.desired_kl,
                "schedule": "adaptive", "value_loss_coef": 1.0, "max_grad_norm": 1.0, "use_clipped_value_loss": True,
            },
            "actor": {"class_name": "MLPModel", "hidden_dims": list(self.actor_hidden_dims), "activation": "elu",
                      "obs_normalization": True,
                      "distribution_cfg": {"class_name": "GaussianDistribution", "init_std": self.init_std}},
            "critic": {"class_name": "MLPModel", "hidden_dims": list(self.critic_hidden_dims), "activation": "elu",
                       "obs_normalization": True},
            "logger": {"class_name": "humanoidtoolbench.suites.fiatlux.learning.curves:CurveWriter", "path": str(curve_path),
                       "steps_per_iteration": self.steps_per_iteration},
            "check_for_nan": True,
        }


def export_actor(actor, config: TrainConfig, keys: list[str], steps: int, output: Path) -> Path:
    """Write the actor in the native checkpoint layout `htb-eval --model` reads; returns the weight file."""
    import torch
    from safetensors.torch import save

    state = actor.state_dict()
    tensors = {"mean": state["obs_normalizer._mean"][0], "std": state["obs_normalizer._std"][0]}
    tensors |= {k: v for k, v in state.items() if k.startswith("mlp.")}
    tensors = {k: v.detach().to(torch.float32).contiguous() for k, v in tensors.items()}
    run = output / "run"
    model = {"actor_hidden_dims": list(config.actor_hidden_dims), "observation_keys": keys,
             "observation_dim": int(tensors["mean"].shape[0]), "action_dim": int(tensors[f"mlp.{2 * len(config.actor_hidden_dims)}.bias"].shape[0])}
    write_json_atomic(run / "run_config.json", {"model": model, "env_id": config.env_id, "obs_mode": config.obs_mode,
                                                "contract": "joint_position_v1", "controller": "servo",
                                                "training": {**asdict(config), "env_steps": steps}})
    return write_bytes_atomic(run / "checkpoints" / f"ckpt_{steps}" / "model.safetensors", save(tensors))


def train(config: TrainConfig, output: Path) -> dict:
    """Run PPO for `config.iterations` iterations; writes the checkpoint, curve and plot; returns a summary."""
    import torch
    from rsl_rl.runners import OnPolicyRunner

    from .curves import plot
    from .vecenv import FiatluxVecEnv

    torch.manual_seed(config.seed)
    torch.set_num_threads(config.threads)
    output.mkdir(parents=True, exist_ok=True)
    env = FiatluxVecEnv(config.env_id, config.num_envs, config.seed, config.obs_mode, config.layouts, config.layout_start)
    try:
        runner = OnPolicyRunner(env, config.rsl_rl(output / "curve.json"), log_dir=str(output / "rsl_rl"), device="cpu")
        runner.logger.git_status_repos = []  # RSL-RL would store the diff of whatever repository holds its install
        runner.learn(config.iterations)
        steps = config.iterations * config.steps_per_iteration
        weights = export_actor(runner.alg.get_policy(), config, env.keys, steps, output)
    finally:
        env.close()
    rows = runner.logger.writer.rows
    curve = [rows[k] for k in sorted(rows)]
    plot(curve, output / "curve.svg", f"PPO on {config.env_id} ({config.obs_mode} observation)")
    ended = [r for r in curve if "/return" in r]
    return {"steps": steps, "iterations": config.iterations, "weights": str(weights),
            "first_return": ended[0]["/return"] if ended else None, "last_return": ended[-1]["/return"] if ended else None}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m humanoidtoolbench.suites.fiatlux.learning.ppo", description=__doc__.splitlines()[0])
    p.add_argument("env", help="the environment ID to train on (the batched environments name what they train)")
    p.add_argument("--steps", type=int, required=True, help="environment steps in all (rounded up to whole iterations)")
    p.add_argument("--output", required=True, help="the run's directory")
    defaults = TrainConfig("", 0)
    for name in ("num_envs", "steps_per_env", "seed", "layouts", "layout_start"):
        p.add_argument(f"--{name.replace('_', '-')}", type=int, default=getattr(defaults, name),
                       help=f"default {getattr(defaults, name)}")
    p.add_argument("--obs-mode", choices=("standard", "privileged"), default=defaults.obs_mode)
    p.add_argument("--init-std", type=float, default=defaults.init_std, help=f"initial action noise (default {defaults.init_std})")
    args = p.parse_args(argv)
    try:
        from .vecenv import trainable_env_id

        env_id = trainable_env_id(args.env)
        if args.steps < 1 or args.num_envs < 1 or args.steps_per_env < 1 or args.layouts < 1:
            raise ValueError("--steps, --num-envs, --steps-per-env and --layouts must be at least 1")
    except ImportError as exc:
        print(f"ppo: needs the rl extra ({exc.name} is not installed): pip install \"humanoidtoolbench[rl]\"", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"ppo: {exc}", file=sys.stderr)
        return 2
    config = replace(TrainConfig(env_id, args.steps), **{
        k: getattr(args, k) for k in ("num_envs", "steps_per_env", "seed", "layouts", "layout_start", "obs_mode", "init_std")})
    summary = train(config, Path(args.output))
    print(f"ppo: {summary['steps']} steps in {summary['iterations']} iterations; mean episode return "
          f"{summary['first_return']} (first iteration) -> {summary['last_return']} (last); checkpoint {summary['weights']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
