"""How careful the tool-use expert's plans are, per controller: its rows of `planning.caution`.

On `assisted` the pelvis is held up by the simulator, so the expert walks at
0.25 m/s, side-steps along the bench edge and rests its elbow just above the
bench top. On `balanced` the robot can fall: replays showed a hip striking the
bench while side-stepping along it, an elbow pressing on the bench, and falls
while walking at 0.2-0.25 m/s low and with a tool. There it walks slower,
backs away from the bench before moving along it, stands a little further back
and keeps its arm higher. It also drops the heading flag while standing: an
engaged heading makes the controller step to correct the yaw that the arm's
reaction gives the feet, and an arm reaching from a stepping robot misses. And
it walks upright: at the 0.66 m work height the knees reach 0.2 m ahead of the
pelvis and strike the bench legs. Its arm moves at most 2 rad/s on average: a
new arm posture found by a search swung the shoulder 4 rad in 0.5 s and the
reaction spun the robot off its feet. It pushes and pulls with the arm alone,
from where it stands: walking sideways the pelvis sways 4 cm each step, and a
stick along the bench struck the ball off it. There the arm lags its command
under the load and then catches up, which flicked balls 0.3-0.5 m/s past the
ring, so a stroke's command waits for the measured tool, and the stroke ends
only when the tool stops advancing (a stick's end dragging on the bench is
slow, not stuck); a hook drawn back drifted sideways with the ball in its
corner and lifted a wedged ball on the way up, so it holds the ring's line and
moves on past the ball before lifting; and it stands where the arm's stroke is
long (further back for a pull, ahead along a push). A walk's last steps go on
after its command stops, and a pelvis lowered during them spun the stance foot
0.2-0.4 rad (a turned body's hook fell 10 cm short): after a walk it stands
still before coming down, comes down slowly, and turns back to face the bench
first if the yaw has slipped (turning in the low posture fell). Near the
bench's ends a stand put a knee against a bench leg (the feet about 0.1 m
either side of the pelvis, the legs at x +-0.84), and the robot fell walking
in or swinging the hammer: at the +x end in BallRetrieve L2 and IceBreak L2,
at the -x end in BallMove, BallRetrieve L1 and IceBreak L1 (40 of 57 falls
over 1400 episodes followed a knee or hip at the bench). Every stand keeps
the pelvis 0.25 m in from the legs; past that the left arm reaches out
sideways, and a pull's stand there, where the torso met the bench's edge at
the closest stand, keeps 2 cm further back (at 4 cm, 5 of 10 sampled L2
episodes that had succeeded failed).

A ball more than 0.2 m from its ring is struck, not pushed: a push from one
stand moves it about 0.12 m and each new stand costs 8-14 s, so pushes cover
neither the 1.2-1.4 m of BallMove L2 nor the episode; a strike's roll is
repeatable enough to aim, and a short strike at the end costs less time than
the pushes it replaces.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ....planning.caution import Caution
from ...per_controller import PerController
from .geometry import ARM_FLOOR, BENCH_LEG_X


@dataclass(frozen=True)
class BenchCaution(Caution):
    """The generic skills' caution plus what the plans at the bench read."""

    step_back: float = 0.2  # m/s of the step back while raising the arm
    stand_back: float = 0.0  # m added to the closest pelvis y at the bench
    clear_bench: float = 0.0  # m to back away from the bench before a move along it (0: walk straight)
    along_bench: float = 0.15  # m of movement along the bench (x) that needs the back-away
    arm_floor: float = ARM_FLOOR  # elbow and wrist links stay this high
    walk_while_working: bool = True  # walk along with a push or a pull (else push as far as the arm reaches)
    work_reach: float = 0.2  # m a push or a pull may carry the tool's end without walking
    walk_height: float | None = None  # pelvis height for a walk along the bench (None: stay at the work height)
    work_lead: float | None = None  # m a push's or pull's commanded tool end may lead the measured one (None: open loop)
    approach_gap: float = 0.0  # m added to the gap behind the ball where a push's stick comes down
    push_stand_ahead: float = 0.0  # m along the push to stand, so the arm's stroke starts behind the body's side
    pull_stand_back: float = 0.0  # m further from the bench to stand for a pull (a longer stroke for the arm)
    leg_room: float | None = None  # m (x) a stand at the bench keeps the pelvis in from its legs (None: anywhere)
    side_reach_back: float = 0.0  # m further from the bench a stand is whose arm reaches out sideways past leg_room
    release: float = 0.0  # m the hook moves on past the ball after a pull, before it lifts
    pull_on_ring_line: bool = False  # a pull keeps the hook on the ring's line rather than following the ball
    settle_walk: float = 0.0  # s to stand after a walk before the pelvis lowers (0: lower at once)
    lower_time: float = 0.4  # s the pelvis takes to come down from the walking height after a walk
    face_tol: float | None = None  # rad of yaw off the bench beyond which the robot turns back to face it (None: never)
    strike_beyond: float | None = None  # m: a ball further than this from the ring is struck to roll there, not pushed (None: always pushed)
    strike_short: float = 0.0  # m before the ring centre a strike aims the ball's roll to end

    def clear_of_legs(self, x: float) -> float:
        """A stand's pelvis x, kept `leg_room` in from the bench's legs."""
        if self.leg_room is None:
            return x
        return float(np.clip(x, -BENCH_LEG_X + self.leg_room, BENCH_LEG_X - self.leg_room))


CAUTIONS = PerController("tool-use expert CAUTIONS", {  # a row for each controller (`ToolBench.controller_tables`)
    "assisted": BenchCaution(),
    "balanced": BenchCaution(
        walk_speed=0.18,
        low_speed=0.12,
        step_back=0.2,
        walk_timeout=20.0,
        walk_tol=0.04,
        stand_back=0.03,
        clear_bench=0.10,
        arm_floor=ARM_FLOOR + 0.03,
        distance_first=True,
        resolve_reach=2,
        hold_heading_standing=False,
        walk_height=0.74,
        joint_speed=2.0,
        walk_while_working=False,
        work_lead=0.03,
        pull_stand_back=0.08,
        leg_room=0.25,
        side_reach_back=0.02,
        push_stand_ahead=0.10,
        clip_start=True,
        settle_walk=1.2,
        lower_time=1.5,
        face_tol=0.04,
        approach_gap=0.04,
        release=0.04,
        pull_on_ring_line=True,
        strike_beyond=0.2,
        strike_short=0.04,
    ),
})

