"""Find, navigate, sit: the humanclaw-bench evaluation on the HumanoidToolBench core."""
