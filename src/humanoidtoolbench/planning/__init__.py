"""What the scripted experts of several suites share; imports the core only, never a suite.

`skills`: the command being built (`Context`), the plan driver
(`PlanFollower`) and generic skills over `decoupled_v1` rows (glides, walks,
arm reaches); `caution`: how careful they are per controller, a table each
suite's expert declares; `kinematics`: the expert's kinematic copy of the
robot and its arm inverse kinematics; `navgrid`: floor footprints (`Rect`),
occupancy grids, shortest paths and view points.
"""
