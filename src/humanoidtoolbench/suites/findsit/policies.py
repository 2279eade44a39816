"""Planners as policies: `oracle`, `random` and `llm`, each answering one decision per request.

A request carries the 448 x 448 ego image, the instruction and (for the
privileged oracle) simulator geometry. The reply is one `discrete_skill_v1`
row `[action_id, value]` and, as metadata, the decision's record (visible
state, calls, token usage, fallbacks), which the episode joins with the
image's target pixels for the paper metrics.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import msgspec
import numpy as np
from scipy import ndimage

from ...angles import wrap
from ...policies.reply import EPISODE_SEED_KEY
from ...planning.navgrid import RESOLUTION
from ..per_controller import PerController
from . import actions
from .planner.interface import Decision, Observation
from .planner.language_model import LanguageModelPlanner
from .planner.random_planner import RandomPlanner

IMAGE_KEY = "rgb_ego"
MODEL_CONFIG_ENV = "HTB_MODEL_CONFIG"  # set by htb-eval --model-config
# Oracle: how close counts as touching, how it follows a path, how it sits.
TURN_TOLERANCE_DEG = 12.0
ARRIVE_M = 0.2  # a waypoint this close is passed
LOOKAHEAD_M = 3.0  # the robot heads for the furthest point of its path it sees along a clear lane, this far at most
LANE_CLEARANCE_M = 0.1  # a lane keeps this far beyond the grid's margin (the arms swing out), or as far as the path does
STALL_M = 0.03  # a walk or step that moved less than this met something
SEAT_ZONE_M = 1.0  # a walk that stalls this close to the seat's approach starts the sit from there
# Where the pelvis sits, behind the seat's front edge. The hands hang beside the hips, lower than the
# pelvis: on a seat wider than HAND_SPAN_M they land first and hold the pelvis up, so on those the
# pelvis sits at the edge (the hands, a little ahead of it, pass in front); a narrower seat (a toilet)
# is sat on in its middle, up to SIT_INSET_M deep.
SIT_INSET_M = 0.22
EDGE_INSET_M = 0.08
HAND_SPAN_M = 0.5
RETRY_INSET_STEP_M = 0.04  # each retried sit moves the pelvis this much nearer the front edge
SIT_RETRIES = 2
OVER_SPOT_M = 0.05  # the pelvis this close to its spot (along the seat's axis) sits down
LATERAL_M = 0.1  # off the seat's middle by more than this, side-step first (the least side step)
SIT_BELOW_SEAT_M = 0.05  # the pelvis is commanded a little below the seat, so it rests on it


@dataclass(frozen=True)
class Plan:
    """What the oracle tunes to the controller that carries it out."""

    touch_m: float = 0.18  # within NavSR@20cm's radius: a Stop does not move the robot
    align_deg: float = 6.0  # the heading error that turns the robot before it backs onto a seat
    turn_at_seat: bool = True  # whether it still turns once its body reaches over the seat
    # A walk that touched something and brought the body less than this nearer the target met it,
    # however far the swaying pelvis moved (None: only a walk that did not move met something).
    pressing_m: float | None = None
    # Touching anything but the target this near a target it only has to reach, it stops (None: never).
    stop_on_touch_m: float | None = None
    # Where the standing pelvis sits down from, behind the seat's front edge (negative: in front of it);
    # None: the assisted spots, behind the edge and nearer it on each retry.
    sit_inset_m: float | None = None
    # A sit that has not brought the pelvis onto the seat sits on where it is, rather than moving nearer
    # the edge and sitting again.
    sit_on: bool = False
    # A step back that moved under STALL_M met something only if the robot touches something.
    backing_stalls_on_touch: bool = False


# The balanced robot's pelvis sways about 8 degrees and 0.1 m with each step, so it reads nearer and
# further than it stands (it stops at the radius itself), and turning on the spot with its legs against
# the seat's edge tips it onto the seat: it aligns within the sway, and not at all once at the seat.
# Walking on with a knee or hip against a TV stand's edge 0.2 m from the TV tipped it over a few
# walks later (val100 episodes 2 and 11), as did walking on with a hand pressed on a bed or a wall.
# Its sit leans the hips about 10 cm back, and the steps that end a step back carry it about 12 cm
# further, so it sits down from 0.17 m in front of the seat's edge; a sit takes it more than one
# decision (0.25 m/s down), and its gait starts slowly (a step back may move under STALL_M at first).
# The suite lists the table in its `controller_tables`: a controller it runs without a row fails there.
PLANS = PerController("findsit PLANS", {
    "assisted": Plan(),
    "balanced": Plan(touch_m=0.195, align_deg=15.0, turn_at_seat=False, pressing_m=0.01, stop_on_touch_m=0.3,
                     sit_inset_m=-0.17, sit_on=True, backing_stalls_on_touch=True),
})
AT_SEAT_M = 0.05  # a body origin this near the seat's box: the legs touch its edge


def _value(action: actions.Action) -> float:
    return float(next(iter(action.parameters.values()), 0.0))


class PlannerPolicy:
    """One planner per episode, restarted on each episode's first request."""

    def __init__(self, make, name: str, privileged: bool = False) -> None:
        self._make, self.policy_name, self.privileged = make, name, privileged
        self._planner, self._step = None, 0

    def __call__(self, request: dict) -> dict:
        if self._planner is None or request["history"]["reset"]:
            self._planner = self._make()
            self._planner.reset(request["instruction"], int(request.get(EPISODE_SEED_KEY, 0)))
            self._step = 0
        decision: Decision = self._planner.decide(
            Observation(np.asarray(request["image"][IMAGE_KEY]), self._step, request.get("privileged"))
        )
        record = msgspec.to_builtins(decision.record(self._step, None))
        self._step += 1
        return {"action": np.array([[decision.action.id, _value(decision.action)]]), "metadata": {"decision": record}}


class OraclePlanner:
    """Privileged geometry and the navigation grid's path: the ceiling of what planning can score.

    It acts only through the discrete vocabulary. It follows the grid's path
    (kept clear of door frames), turning towards the next waypoint and walking;
    past its end it walks straight at the nearest target until touching it and
    stops. For bed, couch and toilet it walks to the reachable spot in front of
    the seat, faces the way the seat faces, side-steps onto the seat's middle,
    steps back until the pelvis is just behind the seat's front edge, sits at
    the seat's height and stops once the pelvis rests on the seat (otherwise it
    moves nearer the edge and sits again). A walk or step that did not move met
    something: it steps back and aside, away from the contact, and goes on. On
    `balanced` (`PLANS`) a walk that touched something and made no progress met
    it too, touching anything near a target it only has to reach, it stops, and
    it sits down from in front of the seat's edge and sits on until the pelvis
    rests on the seat.
    """

    name = "oracle"

    def reset(self, instruction: str, seed: int) -> None:
        self._seating = False
        self._sits = 0
        self._queue: list[actions.Action] = []
        self._last: tuple[tuple[float, float], actions.Action, float] | None = None  # pose, action, target distance
        self._escapes = 0
        self._plan = Plan()

    def decide(self, observation: Observation) -> Decision:
        p = observation.privileged
        self._plan = PLANS[p["controller"]]
        action = self._choose(p)
        self._last = (tuple(p["pose"][:2]), action, p["target_distance"])
        state = "The target is reached." if action.active_stop else "The target is being approached."
        return Decision(action=action, proposed=action, visible_state=state)

    def _stalled(self, x: float, y: float) -> bool:
        """The last walk or step moved the robot less than STALL_M."""
        if self._last is None or self._last[1].skill not in (actions.WALK, actions.STEP_BACK, actions.SIDE_STEP):
            return False
        return math.dist((x, y), self._last[0]) < STALL_M

    def _pressing(self, p: dict) -> bool:
        """The last walk touches something and brought the body no nearer the target (see `Plan.pressing_m`)."""
        if self._plan.pressing_m is None or self._last is None or self._last[1].skill != actions.WALK:
            return False
        return bool(p["contacts"]) and p["target_distance"] > self._last[2] - self._plan.pressing_m

    def _choose(self, p: dict) -> actions.Action:
        x, y, yaw = p["pose"]
        stalled = self._stalled(x, y)
        if self._queue:
            return self._queue.pop(0)
        near = self._plan.stop_on_touch_m is not None and p["target_distance"] <= self._plan.stop_on_touch_m
        if not p["interact"] and p["contacts"] and near:
            return actions.STOP
        stalled = stalled or self._pressing(p)
        target = min(p["targets"], key=lambda t: math.dist((x, y), t["approach"] if p["interact"] else t["centre"][:2]))
        if p["interact"]:
            if self._last is not None and self._last[1].skill == actions.SIT:
                if p["pelvis_on_target"] or self._sits > SIT_RETRIES:
                    return actions.STOP
                if self._plan.sit_on:
                    self._sits += 1
                    return self._last[1]
            if self._seating or math.dist((x, y), target["approach"]) < ARRIVE_M or (
                stalled and math.dist((x, y), target["approach"]) < SEAT_ZONE_M
            ):
                self._seating = True
                return self._sit(x, y, yaw, target, stalled, p["target_distance"] <= AT_SEAT_M, bool(p["contacts"]))
        elif p["target_distance"] <= self._plan.touch_m:
            return actions.STOP
        if stalled:
            return self._escape(x, y, yaw, p["contacts"])
        end = target["approach"] if p["interact"] else _nearest_point(target["aabb"], (x, y))
        goal = _lookahead(p["grid"], (x, y), p["path"]) or end
        return self._head_for(x, y, yaw, goal, remaining=math.dist((x, y), goal))

    def _escape(self, x, y, yaw, contacts) -> actions.Action:
        """Step back, then aside away from what the robot touches (alternating sides when it touches nothing)."""
        self._escapes += 1
        if contacts:
            cx, cy = np.mean(contacts, axis=0)
            left = -(cx - x) * math.sin(yaw) + (cy - y) * math.cos(yaw)  # the contact's offset to the robot's left
            side = "right" if left > 0 else "left"
        else:
            side = "left" if self._escapes % 2 else "right"
        self._queue = [actions.parse_action(6, f"Side step<{side}><0.30>")]
        return actions.parse_action(5, "Step back<0.25>")

    def _head_for(self, x, y, yaw, goal, remaining: float) -> actions.Action:
        err = math.degrees(wrap(math.atan2(goal[1] - y, goal[0] - x) - yaw))
        if abs(err) > TURN_TOLERANCE_DEG:
            return _turn(err)
        speed = "fast" if remaining > 1.5 else "normal" if remaining > 0.6 else "slow"
        return actions.parse_action(0, f"Walk<forward><{speed}>")

    def _sit(self, x, y, yaw, target, stalled: bool, at_seat: bool, touching: bool) -> actions.Action:
        """Face the way the seat faces, get in line with its middle, back over the sit spot, sit."""
        front = target["yaw"]
        err = math.degrees(wrap(front - yaw))
        if abs(err) > self._plan.align_deg and (self._plan.turn_at_seat or not at_seat):
            return _turn(err)
        hx = target["half_extents"][0]
        depth = 2 * hx - (target["backrest"] or 0.0)
        wide = 2 * target["half_extents"][1] > HAND_SPAN_M
        inset = max((EDGE_INSET_M if wide else min(SIT_INSET_M, depth / 2)) - self._sits * RETRY_INSET_STEP_M, 0.0)
        if self._plan.sit_inset_m is not None:
            inset = self._plan.sit_inset_m
        cx, cy = target["centre"][:2]
        c, s = math.cos(front), math.sin(front)
        ahead = (x - cx) * c + (y - cy) * s - (hx - inset)  # how far the pelvis is in front of its spot
        lateral = -(x - cx) * s + (y - cy) * c  # the pelvis' offset to the seat's left of its middle line
        backing = self._last is not None and self._last[1].skill == actions.STEP_BACK
        if self._plan.backing_stalls_on_touch:
            stalled = stalled and touching
        if abs(lateral) > LATERAL_M and not (stalled and self._last[1].skill == actions.SIDE_STEP):
            # facing the seat's front, the seat's left is the robot's left
            return actions.parse_action(6, f"Side step<{'right' if lateral > 0 else 'left'}><{min(abs(lateral), 0.5):.2f}>")
        if ahead > OVER_SPOT_M and not (stalled and backing):
            return actions.parse_action(5, f"Step back<{min(max(ahead, 0.1), 0.6):.2f}>")
        if ahead < -OVER_SPOT_M and not stalled and self._sits:
            return actions.parse_action(0, "Walk<forward><slow>")  # a retry nearer the edge: 0.1 m forward
        self._sits += 1
        return actions.parse_action(4, f"Sit down<{(target['seat_height'] or 0.5) - SIT_BELOW_SEAT_M:.2f}>")


def _lookahead(grid, xy, path) -> tuple[float, float] | None:
    """The furthest point of the path (within LOOKAHEAD_M) on a straight lane from the robot that keeps clear of
    the margins; the first point past ARRIVE_M when none is; None at the path's end.

    Heading for it cuts the path's grid zigzags without cutting a door frame's corner.
    """
    start = np.asarray(xy, dtype=float)
    dense = _densify([xy, *path])
    far = np.linalg.norm(dense - start, axis=1)
    ahead = np.flatnonzero(far > ARRIVE_M)
    if len(ahead) == 0:
        return None
    clearance = _clearance(grid)
    along = np.minimum.accumulate(clearance[_cells(grid, dense)])  # the least clearance of the path so far
    best = dense[ahead[0]]
    for i in ahead:
        if far[i] > LOOKAHEAD_M:
            break
        t = np.arange(0.0, far[i], RESOLUTION / 2)[:, None]
        lane = start + t / far[i] * (dense[i] - start)
        lane = lane[t[:, 0] > ARRIVE_M]  # the robot may stand in a margin itself
        if len(lane) == 0 or clearance[_cells(grid, lane)].min() >= min(LANE_CLEARANCE_M, along[i]) - 1e-9:
            best = dense[i]
    return float(best[0]), float(best[1])


def _cells(grid, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of world points (n, 2), clipped to the grid."""
    rows, cols = grid.shape
    return (np.clip((points[:, 1] / RESOLUTION).astype(int), 0, rows - 1),
            np.clip((points[:, 0] / RESOLUTION).astype(int), 0, cols - 1))


def _densify(points) -> np.ndarray:
    """The polyline through `points`, sampled every grid cell."""
    out = [np.asarray(points[0], dtype=float)]
    for a, b in zip(points[:-1], points[1:]):
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        n = max(int(math.ceil(np.linalg.norm(b - a) / RESOLUTION)), 1)
        out += [a + (b - a) * k / n for k in range(1, n + 1)]
    return np.array(out)


_CLEARANCE: list = [None, None]  # the last grid (held, so no later grid can take its id) and its clearance


def _clearance(grid) -> np.ndarray:
    """Per cell, how far (m) its centre lies beyond the margin (0 in a blocked cell); one grid per episode kept."""
    if _CLEARANCE[0] is not grid:
        _CLEARANCE[:] = [grid, (ndimage.distance_transform_edt(grid.free) - 0.5) * RESOLUTION]
    return _CLEARANCE[1]


def _turn(err_deg: float) -> actions.Action:
    return actions.parse_action(2, f"Turn<{'left' if err_deg > 0 else 'right'}><{abs(err_deg):.0f}>")


def _nearest_point(aabb, xy) -> tuple[float, float]:
    lo, hi = np.asarray(aabb)[0], np.asarray(aabb)[1]
    return float(np.clip(xy[0], lo[0], hi[0])), float(np.clip(xy[1], lo[1], hi[1]))


def _language_model():
    from .planner.client import ChatClient
    from .planner.config import load_model_config

    path = os.environ.get(MODEL_CONFIG_ENV)
    if not path:
        raise RuntimeError(f"the llm planner needs a model configuration: htb-eval --model-config FILE (or {MODEL_CONFIG_ENV})")
    return LanguageModelPlanner(ChatClient(load_model_config(path)))


oracle = PlannerPolicy(OraclePlanner, "oracle", privileged=True)
random_planner = PlannerPolicy(RandomPlanner, "random")
llm = PlannerPolicy(_language_model, "llm")
