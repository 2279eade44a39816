"""Find-navigate-sit paper metrics on scripted episodes whose answers are known by hand."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import msgspec
import numpy as np
import pytest

import humanoidtoolbench
from humanoidtoolbench.suites.findsit.metrics import aggregate, definitions, files, markdown, scoring
from humanoidtoolbench.suites.findsit.metrics.recorded import (
    DYNAMIC,
    FIXED,
    CallUsage,
    Chunk,
    DecisionRecord,
    EpisodeData,
    Frame,
    RobotContact,
)
from humanoidtoolbench.suites.findsit.metrics.schema import BodyGroups, Counts, CrashedEpisode, EpisodeKey

TARGET = "bed_0"
UNIT_BOX = np.array([[[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]])


def decision(step, skill="walk_forward", pixels=None, text="", calls=()):
    return DecisionRecord(step=step, skill=skill, visible_state=text, target_pixels=pixels, calls=tuple(calls))


def touch(link, other, kind=FIXED, z=0.5, z_in_link=None):
    return RobotContact(link=link, other=other, kind=kind, z=z, z_in_link=z_in_link)


def frames(*contact_lists):
    return tuple(Frame(robot=tuple(cs)) for cs in contact_lists)


def episode(decisions, chunks=(), points=((3.0, 0.5, 0.5),), category="bed", episode_id="1", **extra):
    return EpisodeData(
        episode_id=episode_id,
        scene_id="apt0",
        category=category,
        decisions=decisions,
        chunks=chunks,
        final_body_points=np.array(points, dtype=float),
        target_aabbs=UNIT_BOX,
        targets=frozenset({TARGET}),
        floor_ray_hits_z=(0.0,),
        robot_min_z=0.0,
        **extra,
    )


def walks_then_stop(n):
    return [decision(i) for i in range(n)] + [decision(n, "stand")]


# --- Find ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("pixels, visible", [(99, False), (100, True), (None, False)])
def test_objective_visibility_threshold_is_100_pixels(pixels, visible):
    find, geo, max_pixels = scoring.find_success([decision(0, pixels=pixels, text="The bed is ahead.")], "bed")
    assert (find, geo, max_pixels) == (visible, visible, pixels or 0)


@pytest.mark.parametrize("negation", definitions.NEGATIONS)
def test_each_negation_rejects_the_sentence(negation):
    assert scoring.acknowledges_target("The bed is in view.", "bed")
    assert not scoring.acknowledges_target(f"The bed is {negation} in view.", "bed")


@pytest.mark.parametrize(
    "text, category, acknowledged",
    [
        ("A sofa is on the left.", "couch", True),  # category word
        ("The target is close.", "tv", True),  # "target" always counts
        ("The bed is visible. No chair is nearby.", "bed", True),  # the negation is in another sentence
        ("No bed here. A lamp is visible.", "bed", False),
        ("I see a chair.", "bed", False),  # another category
        ("The bed doesn't appear.", "bed", True),  # published miss, reproduced
        ("A bedside lamp.", "bed", True),  # substring match, reproduced
        ("A flower pot by the window.", "potted_plant", True),
        ("A television on the wall.", "tv", True),
    ],
)
def test_subjective_rule(text, category, acknowledged):
    assert scoring.acknowledges_target(text, category) is acknowledged


def test_find_needs_visibility_and_acknowledgement_at_the_same_step():
    apart = [decision(0, pixels=500, text="A hallway."), decision(1, pixels=0, text="The bed is ahead.")]
    assert scoring.find_success(apart, "bed") == (False, True, 500)
    together = apart + [decision(2, pixels=120, text="The bed is ahead.")]
    assert scoring.find_success(together, "bed") == (True, True, 500)


# --- Nav ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "gap, nav20, nav1m",
    [(0.19, True, True), (0.21, False, True), (0.99, False, True), (1.0, False, False)],
)
def test_nav_thresholds_with_an_active_stop(gap, nav20, nav1m):
    record = scoring.episode_metrics(episode(walks_then_stop(3), points=[(1.0 + gap, 0.5, 0.5), (5.0, 5.0, 5.0)]))
    s = record.success
    assert s.final_body_target_aabb_distance_m == pytest.approx(gap, abs=1e-12)
    assert (s.active_stop, s.nav_sr_20cm, s.geo_nav_sr_20cm, s.nav_sr_1m) == (True, nav20, nav20, nav1m)


def test_distance_is_the_3d_minimum_over_points_and_boxes():
    boxes = np.array([[[0, 0, 0], [1, 1, 1]], [[4, 0, 0], [5, 1, 1]]], dtype=float)
    assert scoring.body_target_distance([[1.3, 1.4, 0.5], [7.0, 0.5, 0.5]], boxes) == pytest.approx(0.5)
    assert scoring.body_target_distance([[3.0, 0.5, 0.5]], boxes) == 1.0  # nearest of the two boxes
    assert scoring.body_target_distance([[0.5, 0.5, 0.5]], boxes) == 0.0  # inside


def test_reaching_the_step_cap_is_not_an_active_stop():
    record = scoring.episode_metrics(episode([decision(i) for i in range(100)], points=[(1.1, 0.5, 0.5)]))
    s = record.success
    assert (s.active_stop, s.geo_nav_sr_20cm, s.nav_sr_20cm, s.nav_sr_1m) == (False, True, False, False)
    assert record.cost.decision_steps == 100


# --- Interact -----------------------------------------------------------------------------------

PELVIS_ON_BED = touch("pelvis", TARGET)


def sit_chunk(step, *contact_lists):
    return Chunk(step=step, skill="sit", frames=frames(*contact_lists))


def test_a_transient_contact_inside_a_sit_chunk_does_not_count():
    chunks = [sit_chunk(0, [PELVIS_ON_BED], [PELVIS_ON_BED], [])]
    assert scoring.interact_success(chunks, frozenset({TARGET}), True, True) == (False, False, 1)


def test_a_final_frame_contact_counts():
    chunks = [sit_chunk(0, [], [], [PELVIS_ON_BED])]
    assert scoring.interact_success(chunks, frozenset({TARGET}), True, True) == (True, True, 1)
    assert scoring.interact_success(chunks, frozenset({TARGET}), False, True) == (False, True, 1)  # no active stop
    assert scoring.interact_success(chunks, frozenset({TARGET}), True, False) == (False, False, 1)  # chair, tv, plant


def test_interact_judges_the_last_motion_before_the_stop():
    stood_up = [sit_chunk(0, [PELVIS_ON_BED]), Chunk(step=1, skill="walk_forward", frames=frames([]))]
    assert scoring.interact_success(stood_up, frozenset({TARGET}), True, True) == (False, True, 1)
    other_body = [sit_chunk(0, [touch("pelvis", "bed_1")])]  # another bed, not a target instance
    assert scoring.interact_success(other_body, frozenset({TARGET}), True, True) == (False, False, 1)
    no_sit = [Chunk(step=0, skill="walk_forward", frames=frames([PELVIS_ON_BED]))]
    assert scoring.interact_success(no_sit, frozenset({TARGET}), True, True) == (False, False, 0)


# --- Collision ----------------------------------------------------------------------------------


def test_floor_is_the_highest_ray_hit_near_the_feet():
    assert scoring.episode_floor([0.75, 0.02, 0.0], 0.01) == (0.02, "spawn_raycast")  # the table at 0.75 m is above
    assert scoring.episode_floor([0.75], 0.01) == (0.01, "robot_min_z_fallback")


@pytest.mark.parametrize("z, counted", [(0.020, False), (0.0205, False), (0.021, True)])
def test_fixed_contact_height_rule(z, counted):
    result = scoring.collision([Chunk(step=0, skill="walk_forward", frames=frames([touch("left_ankle_roll_link", "rug", z=z)]))], 0.0)
    assert result.collision_steps == int(counted)


def test_collision_fraction_counts_unique_motion_steps_per_group():
    chunks = [
        Chunk(step=0, skill="walk_forward", frames=frames([])),
        Chunk(step=1, skill="turn", frames=frames([touch("left_wrist_yaw_link", "wall")], [touch("right_elbow_link", "wall")])),
        Chunk(step=2, skill="walk_forward", frames=frames([touch("left_ankle_roll_link", "floor", z=0.02)])),
        Chunk(step=3, skill="walk_forward", frames=frames([touch("pelvis", "box", kind=DYNAMIC)])),
        Chunk(step=4, skill="walk_forward", frames=frames([touch("torso_link", "shelf", z_in_link=0.35), touch("left_knee_link", "shelf")])),
        Chunk(step=5, skill="step_back", frames=frames([touch("torso_link", "shelf", z_in_link=0.25)])),
    ]
    result = scoring.collision(chunks, 0.0)
    assert (result.collision_steps, result.motion_steps, result.step_fraction) == (3, 6, 0.5)
    assert result.groups == BodyGroups(hand_arm=1 / 6, torso=1 / 6, leg=1 / 6, head=1 / 6)


@pytest.mark.parametrize(
    "link, group",
    [
        ("pelvis", "torso"),
        ("waist_yaw_link", "torso"),
        ("torso_link", "torso"),
        ("left_hip_pitch_link", "leg"),
        ("right_ankle_roll_link", "leg"),
        ("left_shoulder_roll_link", "hand_arm"),
        ("right_wrist_pitch_link", "hand_arm"),
        ("left_hand_thumb_2_link", "hand_arm"),
        ("right_hand_middle_1_link", "hand_arm"),
    ],
)
def test_g1_body_groups(link, group):
    assert scoring.body_group(link) == group


def test_initial_penetration_is_a_flag_over_1_cm():
    assert scoring.initial_penetration_depth([0.002, -0.005, -0.0125]) == 0.0125
    record = scoring.episode_metrics(episode(walks_then_stop(1), reset_contact_distances=(-0.0125,)))
    assert record.body_scene.initial_penetration_detected and record.body_scene.physical_metrics_eligible
    record = scoring.episode_metrics(episode(walks_then_stop(1), reset_contact_distances=(-0.01,)))
    assert not record.body_scene.initial_penetration_detected


# --- Disturbance --------------------------------------------------------------------------------


def disturbance_chunks():
    return [
        Chunk(
            step=0,
            skill="walk_forward",
            frames=(
                Frame(dynamic_pairs=(("vase", "cup"),)),  # frame 0: neither is affected yet
                Frame(robot=(touch("left_hand_index_1_link", "box", kind=DYNAMIC),)),  # frame 1: box, directly
            ),
        ),
        Chunk(
            step=1,
            skill="walk_forward",
            frames=(
                Frame(dynamic_pairs=(("box", "vase"),)),  # frame 2: vase, through the box
                Frame(dynamic_pairs=(("vase", "plate"), ("plate", "bowl"))),  # frame 3: a chain in one frame
                Frame(),
            ),
        ),
    ]


def x_track(*xs):
    return np.array([[x, 0.0, 0.0] for x in xs])


def test_disturbance_propagates_forward_in_time_only():
    positions = {
        "box": x_track(0, 0, 0.125, 0.375, 0.375),  # 0.375 m from frame 1
        "vase": x_track(0, 0.5, 0.5, 0.75, 0.75),  # moved at frame 1, before it was affected: 0.25 m counts
        "bowl": x_track(1, 1, 1, 1, 1),
        "cup": x_track(0, 2, 4, 6, 8),  # touched the vase before the vase was affected: not disturbed
    }
    objects = scoring.affected_objects(disturbance_chunks(), positions)
    summary = [(o.name, o.source, o.first_affected_step, o.first_affected_frame, o.path_length_m) for o in objects]
    assert summary == [
        ("box", "direct", 0, 1, 0.375),
        ("vase", "indirect", 1, 2, 0.25),
        ("plate", "indirect", 1, 3, None),  # no trajectory: counted in #Dtb, not in dDtb
        ("bowl", "indirect", 1, 3, 0.0),
    ]
    body = scoring.episode_metrics(episode(walks_then_stop(2), disturbance_chunks(), object_positions=positions)).body_scene
    assert (body.affected_dynamic_object_count, body.direct_dynamic_object_count, body.indirect_dynamic_object_count) == (4, 1, 3)
    assert (body.mapped_affected_dynamic_object_count, body.affected_object_path_length_sum_m) == (3, 0.625)
    assert body.affected_object_path_length_mean_m == 0.625 / 3


def run_of(records, notes=(), duplicates=0):
    return files.RunRecords(tuple(records), duplicates, tuple(notes))


def test_ddtb_is_pooled_over_objects_not_a_mean_of_episode_means():
    pushes_one = [Chunk(step=0, skill="walk_forward", frames=frames([touch("pelvis", "a", kind=DYNAMIC)], []))]
    pushes_three = [
        Chunk(step=0, skill="walk_forward", frames=frames([touch("pelvis", n, kind=DYNAMIC) for n in "bcd"], []))
    ]
    one = scoring.episode_metrics(episode(walks_then_stop(1), pushes_one, object_positions={"a": x_track(0, 1)}))
    three = scoring.episode_metrics(
        episode(walks_then_stop(1), pushes_three, episode_id="2", object_positions={n: x_track(0, 0) for n in "bcd"})
    )
    assert (one.body_scene.affected_object_path_length_mean_m, three.body_scene.affected_object_path_length_mean_m) == (1.0, 0.0)
    body = aggregate.summarize(run_of([one, three])).body_scene
    assert body.disturbed_object_path_length_mean_m == 0.25  # (1 + 0 + 0 + 0) / 4, not (1 + 0) / 2
    assert body.disturbed_objects_per_episode == 2.0


# --- Motion jerk --------------------------------------------------------------------------------


def test_jerk_of_a_cubic_is_its_third_derivative():
    t = np.arange(40) / definitions.FRAME_RATE_HZ
    points = np.stack([np.stack([t**3, t**3, t**3], axis=-1), np.stack([t**3 + 1, -(t**3), 2 * t**3], axis=-1)], axis=1)
    jerk = scoring.jerk_vectors(points)
    assert jerk.shape == (40 - 24, 2, 3)
    # Rows whose stencil avoids the edge-padded first and last frames.
    interior = jerk[1 : 40 - 25]
    np.testing.assert_allclose(interior[:, 0], 6.0, rtol=0, atol=1e-9)
    np.testing.assert_allclose(interior[:, 1], [[6.0, -6.0, 12.0]] * len(interior), rtol=0, atol=1e-9)


def test_jerk_edge_padding_and_length_rule():
    t = np.arange(25) / definitions.FRAME_RATE_HZ
    line = np.stack([t, 0 * t, 0 * t], axis=-1)[:, None, :]  # 1 m/s along x
    # Edge padding moves the smoothed first and last frames 1/90 m inward: |(-2/90) / (8/30)^3| = 1.171875.
    assert scoring.motion_jerk(line) == pytest.approx(1.171875, abs=1e-12)
    assert scoring.motion_jerk(line[:24]) is None
    assert scoring.motion_jerk(np.zeros((30, 4, 3))) == 0.0
    assert scoring.motion_jerk(None) is None


# --- Cost ---------------------------------------------------------------------------------------


def test_usage_normalisation():
    openai = {"prompt_tokens": 100, "completion_tokens": 50, "completion_tokens_details": {"reasoning_tokens": 20}}
    assert scoring.normalize_usage(openai) == CallUsage(exact=True, input_tokens=100, visible_output_tokens=30, reasoning_tokens=20)
    visible = {"input_tokens": 10, "output_tokens": 5, "thoughts_token_count": 7}
    assert scoring.normalize_usage(visible) == CallUsage(exact=True, input_tokens=10, visible_output_tokens=5, reasoning_tokens=7)
    assert scoring.normalize_usage({"prompt_tokens": 3}) is None
    assert scoring.call_usage(None, "x" * 9, "y" * 8) == CallUsage(exact=False, input_tokens=3, visible_output_tokens=2)


@pytest.mark.parametrize(
    "calls, source",
    [
        ((), "unavailable_no_calls"),
        ((True, True), "provider_exact"),
        ((False,), "estimated_chars_div_4"),
        ((True, False), "mixed_exact_and_estimated"),
    ],
)
def test_token_source_labels(calls, source):
    assert scoring.token_source([CallUsage(exact=e, input_tokens=1, visible_output_tokens=1) for e in calls]) == source


def test_cost_counts_every_decision_and_attempt():
    calls = [CallUsage(exact=True, input_tokens=100, visible_output_tokens=10, reasoning_tokens=5)] * 3
    decisions = [decision(0, calls=calls[:2]), decision(1, "stand", calls=calls[2:])]
    c = scoring.cost(decisions)
    assert (c.decision_steps, c.vlm_calls, c.input_tokens, c.visible_output_tokens, c.reasoning_tokens) == (2, 3, 300, 30, 15)
    assert (c.input_tokens_per_step, c.visible_output_tokens_per_step, c.token_source) == (150.0, 15.0, "provider_exact")


# --- A run --------------------------------------------------------------------------------------


def completed(episode_id, category, *, find, steps, input_tokens, collided):
    pixels = 200 if find else 0
    decisions = [
        decision(i, pixels=pixels, text="The target is ahead.", calls=[CallUsage(exact=True, input_tokens=input_tokens, visible_output_tokens=1)])
        for i in range(steps - 1)
    ] + [decision(steps - 1, "stand")]
    contacts = [touch("left_elbow_link", "wall")] if collided else []
    chunks = [Chunk(step=i, skill="walk_forward", frames=frames(contacts)) for i in range(steps - 1)]
    return scoring.episode_metrics(episode(decisions, chunks, points=[(1.1, 0.5, 0.5)], category=category, episode_id=episode_id))


def test_shards_count_an_overlapping_episode_once_and_a_crash_as_a_failure(tmp_path):
    bed = completed("1", "bed", find=True, steps=3, input_tokens=50, collided=True)  # 100 tokens / 3 steps
    chair = completed("2", "chair", find=False, steps=5, input_tokens=21, collided=False)  # 84 tokens / 5 steps
    crashed = CrashedEpisode(
        profile="", planner="", episode=EpisodeKey(episode_id="3", scene_id="apt0", object_category="couch"), note="RuntimeError: boom"
    )
    files.write_episode_metrics(tmp_path / "shard_a" / "ep1" / "metrics.json", bed)
    files.write_episode_metrics(tmp_path / "shard_a" / "ep2" / "metrics.json", chair)
    files.write_episode_metrics(tmp_path / "shard_b" / "ep2" / "metrics.json", chair)
    files.write_episode_metrics(tmp_path / "shard_b" / "ep3" / "metrics.json", crashed)

    run = files.read_run(tmp_path)
    assert [r.episode.episode_id for r in run.records] == ["1", "2", "3"] and run.duplicates == 1
    assert run.notes == (
        "duplicate apt0/2 (chair, rollout 0): counted once from shard_a/ep2/metrics.json; also in shard_b/ep2/metrics.json (identical)",
        "crashed apt0/3 (couch, rollout 0): counted as a failure: RuntimeError: boom",
    )
    summary = aggregate.summarize(run)
    assert summary.counts == Counts(
        episodes=3,
        interact_episodes=2,
        physical_metric_episodes=2,
        initial_penetration_excluded=0,
        initial_penetration_detected=0,
        crashed_episodes=1,
        duplicate_episodes=1,
    )
    s = summary.high_level_success_percent
    assert (s.find_sr, s.geo_find_sr, s.nav_sr_20cm, s.nav_sr_1m) == (100 / 3, 100 / 3, 200 / 3, 200 / 3)
    assert (s.interact_sr, s.geo_interact_sr) == (0.0, 0.0)  # bed (no sit) and the crashed couch
    assert summary.body_scene.collision_step_percent == 50.0  # mean of 1.0 and 0.0
    assert summary.body_scene.collision_by_body_group_percent.hand_arm == 50.0
    assert summary.body_scene.disturbed_object_path_length_mean_m is None
    assert (summary.cost.average_steps, summary.cost.input_tokens_per_step) == (4.0, 23.0)  # pooled 184 / 8, not (100/3 + 84/5) / 2

    files.write_summary(tmp_path, summary)
    assert json.loads((tmp_path / "metrics_summary.json").read_text())["schema"] == "humanoidtoolbench_findsit_metrics_summary_v1"
    assert markdown.format_summary(summary).splitlines() == [
        "Find-navigate-sit paper metrics",
        "Episodes: 3 | Interact: 2 | Physical: 2 | Initial-penetration excluded: 0 | Crashed: 1 | Duplicates: 1",
        "",
        "Main",
        "| FindSR | NavSR@20cm | InteractSR | Coll. | #Dtb/ep | dDtb(m) | Motion Jerk | avg steps | in tok/step | out tok/step |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        "| 33.3% | 66.7% | 0.0% | 50.0% | 0.00 | -- | -- | 4.0 | 23 | 1 |",
        "",
        "Variants",
        "| GeoFindSR | GeoNavSR@20cm | NavSR@1m | GeoInteractSR |",
        "|---:|---:|---:|---:|",
        "| 33.3% | 66.7% | 66.7% | 0.0% |",
        "",
        "Collision by body group",
        "| Arm/Hand | Torso | Leg/Foot | Head |",
        "|---:|---:|---:|---:|",
        "| 50.0% | 0.0% | 0.0% | 0.0% |",
        "",
        "Token source: provider_exact",
        "Planner fallbacks: 0 | Verifier fallbacks: 0 | Retries: 0 | Invalid actions: 0",
        "",
        "Notes",
        "- " + run.notes[0],
        "- " + run.notes[1],
    ]


def test_a_complete_record_wins_over_a_crashed_copy_and_differences_are_reported(tmp_path):
    done = completed("1", "bed", find=True, steps=2, input_tokens=1, collided=False)
    crashed = CrashedEpisode(profile="", planner="", episode=done.episode, note="killed")
    files.write_episode_metrics(tmp_path / "a" / "metrics.json", crashed)
    files.write_episode_metrics(tmp_path / "b" / "metrics.json", done)
    run = files.read_run(tmp_path)
    assert run.records == (done,)
    assert run.notes == ("duplicate apt0/1 (bed, rollout 0): counted once from b/metrics.json; also in a/metrics.json (records differ)",)


def test_a_run_of_crashes_prints_dashes():
    crashed = CrashedEpisode(profile="", planner="", episode=EpisodeKey(episode_id="1", scene_id="s", object_category="tv"), note="x")
    text = markdown.format_summary(aggregate.summarize(run_of([crashed])))
    assert "| 0.0% | 0.0% | -- | -- | -- | -- | -- | -- | -- | -- |" in text
    assert "Token source: --" in text


def test_a_foreign_file_is_one_line_naming_it(tmp_path):
    (tmp_path / "metrics.json").write_text('{"schema": "humanclaw_paper_metrics_v1"}')
    with pytest.raises(files.MetricsFileError, match="metrics.json: not a findsit metrics record"):
        files.read_run(tmp_path)


def test_reading_and_printing_need_neither_mujoco_nor_openai(tmp_path):
    files.write_episode_metrics(tmp_path / "metrics.json", completed("1", "bed", find=True, steps=2, input_tokens=1, collided=False))
    code = (
        "import sys; sys.modules['mujoco'] = None; sys.modules['openai'] = None\n"
        "from humanoidtoolbench.suites.findsit.metrics import aggregate, files, markdown\n"
        f"print(markdown.format_summary(aggregate.summarize(files.read_run({str(tmp_path)!r}))).splitlines()[1])\n"
    )
    src = str(Path(humanoidtoolbench.__file__).parents[1])
    env = {**os.environ, "PYTHONPATH": src}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.startswith("Episodes: 1 |")


def test_records_of_two_planners_are_refused_together(tmp_path):
    for planner in ("oracle", "random"):
        record = msgspec.structs.replace(completed("1", "bed", find=True, steps=3, input_tokens=50, collided=False),
                                         planner=planner)
        files.write_episode_metrics(tmp_path / planner / "metrics.json", record)
    with pytest.raises(files.MetricsFileError, match=r"records of 2 planners \(oracle, random\); score each planner's runs apart"):
        files.read_run(tmp_path)
