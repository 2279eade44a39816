"""The balanced controller (`balanced.py`) and its parts: ZMP preview (`preview`), footstep timing and
placement (`footsteps`), whole-body inverse kinematics and static torques (`wholebody`), arm loads (`armload`)."""
