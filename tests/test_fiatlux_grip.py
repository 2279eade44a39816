"""Starts that carry a bulb hold it in the right hand's fingers by physics (never welded)."""

import numpy as np
import pytest

from humanoidtoolbench.suites.fiatlux import gates
from humanoidtoolbench.suites.fiatlux.observation import HAND_LINKS
from humanoidtoolbench.suites.fiatlux.subtasks import TASKS
from humanoidtoolbench.suites.fiatlux.suite import SUITE

GRIPPED = [(t, b) for t in TASKS for b in ("old_bulb", "fresh_bulb") if getattr(t.start, b) == "grip"]


def episode(task, seed, controller="servo"):
    ep = SUITE.make_episode(task, seed, SUITE.make_controller(controller), "fast")
    ep.reset()
    return ep


def test_the_carrying_subtasks_start_with_a_grip():
    assert sorted(t.key for t, _ in GRIPPED) == ["S04", "S05", "S09", "S10", "S11"]
    assert all(t.start.pinned for t, _ in GRIPPED)


@pytest.mark.parametrize("task,bulb", GRIPPED, ids=[t.key for t, _ in GRIPPED])
@pytest.mark.parametrize("seed", [0, 3])
def test_the_bulb_is_gripped_at_reset_and_not_crushed(task, bulb, seed):
    ep = episode(task, seed)
    b = ep.last.bulbs[bulb]
    assert gates.CONJUNCTS[f"{bulb}_held"](ep.last)
    assert gates.HELD_FORCE < b.right_force and b.grip_force < gates.GLASS_LIMIT
    assert b.hand_bodies_over_1n >= 2  # fingers and palm, not the bulb's weight on one body
    if f"{bulb}_held" in task.gate:
        assert ep.progress.stage_conjuncts[f"{bulb}_held"]


@pytest.mark.parametrize("seed,mount", [(0, "ceiling"), (3, "wall")])
def test_the_cap_points_out_of_the_hand_the_way_the_socket_takes_it(seed, mount):
    """The bulb's axis lies along the socket's (cap up under a ceiling socket, forward at a wall one)
    and the cap lies beyond the centre of every hand collision geom that way, so the hand can
    present it to the seat (cap first, the fingers behind it)."""
    ep = episode(next(t for t, _ in GRIPPED if t.key == "S11"), seed)
    assert ep.layout.fixture.mount == mount
    d, m = ep.data, ep.model
    R = d.xmat[m.body("fresh_bulb").id].reshape(3, 3)
    world = ep.privileged()
    assert float(R[:, 2] @ world["seat_axis"]) > np.cos(0.35)  # cap to glass along the socket's out axis
    cap = -R[:, 2]
    plug = d.site_xpos[m.site("fresh_bulb/plug").id]
    right = {m.body(b).id for b in HAND_LINKS["right"]}
    hand = [g for g in range(m.ngeom) if m.geom_bodyid[g] in right and m.geom_contype[g]]
    assert max(float((d.geom_xpos[g] - plug) @ cap) for g in hand) < 0.0


def test_a_pinned_grip_start_is_the_same_every_reset():
    task, bulb = GRIPPED[1]
    a, b = episode(task, 2), episode(task, 2)
    np.testing.assert_array_equal(a.data.qpos, b.data.qpos)
    a.reset()
    np.testing.assert_array_equal(a.data.qpos, b.data.qpos)


# floor, tread; ceiling, wall grip; two layouts where a grip without the thumb let the bulb slide out
@pytest.mark.parametrize("key,seed", [("S05", 1), ("S04", 1), ("S11", 3), ("S09", 7), ("S09", 10)])
def test_the_grip_holds_5_s_under_a_zero_balanced_command(key, seed):
    task, bulb = next((t, b) for t, b in GRIPPED if t.key == key)
    ep = episode(task, seed, "balanced")
    c, d = ep.controller, ep.data
    row = np.concatenate([d.ctrl[c._slot_act].copy(), [0.74, 0.0, 0.0, 0.0, 0.0]])
    for _ in range(250):
        assert ep.step(row).outcome is None
        b = ep.last.bulbs[bulb]
        assert b.right_force > gates.HELD_FORCE and b.grip_force < gates.GLASS_LIMIT
