"""Planners of find-navigate-sit: a language model behind an OpenAI-compatible endpoint, and the random floor.

Every planner answers `decide(observation) -> Decision` once per decision
step; the runner executes `Decision.action` and records `Decision.record(...)`
for the metrics. An oracle planner (simulator geometry, written with the
scenes) implements the same two methods and reads `Observation.privileged`.

The language-model planner follows the published two-stage protocol: the
planner sees the goal, the step, its last ten or more steps of history and
the ego image, and proposes one action; a verifier, called only for Walk,
Stop, Climb upstairs, the first turn of a turn-to-sit sequence and a Stop
after sitting, accepts or replaces it. A stage that fails (a transport error,
a reply that is not a chat completion, an answer that is no JSON object or
not the stage's schema) is retried at the same state, at most five attempts
with 1/2/4/8 s between them; five planner failures execute
Walk<forward><slow> without a verifier, five verifier failures accept the
proposal. A decision has a total deadline (`decision_deadline_s`): a stage
that has not answered by then falls back the same way, so a hanging endpoint
costs one deadline per decision, not five timeouts per stage. Each retry and
fallback is one line on the terminal and in the run log, and while a call is
outstanding a line every ten seconds says what it waits for. Every attempt is
kept with its token usage, so retries cost what they cost.

One module per job, each imported by name:

- `interface`: what every planner answers (`Observation` in, `Decision` out);
- `random_planner`: the random floor;
- `config`: the model config file and its API key;
- `client`: the OpenAI-compatible endpoint, one call at a time;
- `prompts`: what the planner and the verifier are asked;
- `answers`: reading their replies;
- `language_model`: the two-stage planner, its retries, fallbacks and deadline.
"""
