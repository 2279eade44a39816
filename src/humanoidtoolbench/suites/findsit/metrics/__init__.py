"""The find-navigate-sit paper metrics: one episode from its recorded data, a run from its files.

The definitions are the published benchmark's (humanclaw-bench `docs/METRICS.md`),
computed from plain data the runner records, so this package needs neither
MuJoCo nor a language-model client and scores a run anywhere its files are:

- per decision (`DecisionRecord`): the executed skill, the planner's
  `visible_state`, the target's pixel count in the segmentation of the very
  image the planner saw, and the usage of every model call (retries included);
- per motion chunk (`Chunk`): the decision step that produced it, its skill and,
  for each post-physics frame, the robot's contacts (`RobotContact`) and the
  dynamic-dynamic object contacts;
- per episode (`EpisodeData`): the body points at termination, the target boxes
  and body names, the floor ray's hits, the reset contact distances, each
  dynamic object's position per frame and the commanded body points.

Our deliberate differences from the published code: the world is z-up
(`episode_floor_z`); a pelvis contact matches only the exact target bodies (the
original also accepted any instance of the same model); an episode that crashed
writes a `crashed` record that counts as a failure (the original wrote nothing,
so it left every denominator), and an episode found in two shards counts once
(the original counted it twice); the summary's notes name both.

One module per job, each imported by name:

- `definitions`: every number and word list of the definitions;
- `recorded`: what the runner records (the data above);
- `schema`: the records written, metrics.json and metrics_summary.json;
- `scoring`: one episode's metrics from its recorded data;
- `files`: writing and reading the records, a run's episodes each once;
- `aggregate`: a run's paper numbers over its episodes;
- `markdown`: those numbers as the paper's tables.
"""
