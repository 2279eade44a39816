"""The assisted controller (`assisted.py`): an idealised driven base, and its kinematic stepping gait (`gait`)."""
