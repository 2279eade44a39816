"""Reinforcement learning on the Fiatlux environments: a PPO baseline through RSL-RL (the paper's choice).

`vecenv` batches Fiatlux Gymnasium environments as RSL-RL's `VecEnv` (torch
tensors, each episode's reward terms summed for the learning curve); `ppo`
is the training command, writing a checkpoint `htb-eval --model` scores,
the learning curve and its plot (`curves`). Needs the `rl` extra
(`pip install ".[rl]"`). Nothing else in the suite imports it: evaluation never loads torch or RSL-RL.
"""
