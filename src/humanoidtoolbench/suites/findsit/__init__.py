"""Find, navigate, sit: the humanclaw-bench evaluation on a G1 in procedural apartments."""
