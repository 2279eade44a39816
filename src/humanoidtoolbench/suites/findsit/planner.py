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
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import logging
import os
import re
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlparse

import msgspec
import numpy as np

from ...record.png import encode_png
from .actions import (
    CLIMB_UP,
    DIRECTIONS,
    FALLBACK_WALK,
    STAND,
    TURN,
    VOCABULARY,
    WALK,
    WALK_SPEEDS_MPS,
    Action,
    parse_action,
)
from .metrics.recorded import CallUsage, DecisionRecord
from .metrics.scoring import call_usage

MAX_ATTEMPTS = 5
BACKOFF_S = (1.0, 2.0, 4.0, 8.0)  # sleeps after failed attempts 1-4
DECISION_DEADLINE_S = 300.0  # default: both stages of one decision, retries and pauses included
WAIT_REPORT_S = 10.0  # a line while a call is outstanding this long, and again every as long
ERROR_CHARS = 200  # of an error shown in a line
HISTORY_STEPS = 10  # the least number of past steps the planner sees
# Characters kept of each history field: enough for a sentence, small enough
# that a hundred-step episode's prompt stays the same size from step ten on.
CLIP_CHARS = {
    "visible_state": 220,
    "mid_level_progress_analysis": 220,
    "mid_level_goal": 160,
    "low_level_action_reasoning": 180,
    "action": 80,
    "verifier_rejection": 240,
}
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
NO_KEY = "EMPTY"  # what keyless local servers (vLLM, llama.cpp, Ollama) accept

PLANNER_STAGE, VERIFIER_STAGE = "planner", "verifier"

# The evaluator's logger: the run's log file receives every line (`eval.rundir.RunLog`). A NullHandler,
# so that outside a run (a policy server, a test) Python's last-resort handler does not print them twice.
log = logging.getLogger("humanoidtoolbench.eval.planner")
log.addHandler(logging.NullHandler())


class PlannerError(ValueError):
    """A model configuration that cannot be used; one line."""


class TransportError(RuntimeError):
    """The endpoint gave no completion (connection, status, timeout, a reply that is not one); one line."""


# ---------------------------------------------------------------------------
# The interface every planner implements


@dataclass(frozen=True)
class Observation:
    image: np.ndarray  # (H, W, 3) uint8 ego RGB; 448 x 448 in the benchmark
    step: int  # decision step, from 0
    privileged: Any = None  # simulator truth, for oracle planners only


@dataclass(frozen=True)
class CallRecord:
    """One attempt at one stage."""

    stage: str  # PLANNER_STAGE or VERIFIER_STAGE
    attempt: int  # from 1
    prompt: str
    output: str  # the raw reply ("" when the transport failed)
    error: str | None
    usage: CallUsage


@dataclass(frozen=True)
class Decision:
    """What a planner decided at one step, and what it cost."""

    action: Action  # executed by the runner
    proposed: Action  # the planner's proposal, before the verifier
    visible_state: str = ""  # the planner's description of the image (the FindSR rule reads it)
    planner_output: Mapping[str, Any] | None = None  # parsed JSON, None without a model answer
    verifier_output: Mapping[str, Any] | None = None
    verifier_route: str | None = None  # None: no verifier call (a synthetic accept)
    calls: tuple[CallRecord, ...] = ()
    planner_fallback: bool = False  # five planner failures: Walk<forward><slow>
    verifier_fallback: bool = False  # five verifier failures: the proposal accepted

    @property
    def retries(self) -> int:
        return len(self.calls) - len({c.stage for c in self.calls})

    def record(self, step: int, target_pixels: int | None) -> DecisionRecord:
        """The metrics' view of this decision, joined with the target pixels of the image it was made on."""
        return DecisionRecord(
            step=step,
            skill=self.action.skill,
            visible_state=self.visible_state,
            target_pixels=target_pixels,
            calls=tuple(c.usage for c in self.calls),
            retries=self.retries,
            invalid_action=self.proposed.invalid_action or self.action.invalid_action,
            unsupported_action=self.action.unsupported,
            planner_fallback=self.planner_fallback,
            verifier_fallback=self.verifier_fallback,
        )


class Planner(Protocol):
    name: str

    def reset(self, instruction: str, seed: int) -> None:
        """Start an episode: its instruction and the seed of its generator."""

    def decide(self, observation: Observation) -> Decision: ...


# ---------------------------------------------------------------------------
# The random floor


_SPEEDS = tuple(WALK_SPEEDS_MPS)


class RandomPlanner:
    """Uniform over the eight actions, parameters uniform over their ranges: the score of no understanding."""

    name = "random"

    def __init__(self) -> None:
        self._rng = np.random.default_rng(0)

    def reset(self, instruction: str, seed: int) -> None:
        self._rng = np.random.default_rng(seed)

    def decide(self, observation: Observation) -> Decision:
        rng = self._rng
        spec = VOCABULARY[int(rng.integers(len(VOCABULARY)))]
        speed = _SPEEDS[int(rng.integers(len(_SPEEDS)))]
        direction = DIRECTIONS[int(rng.integers(len(DIRECTIONS)))]
        name = spec.template.replace("<speed>", f"<{speed}>").replace("<direction>", f"<{direction}>")
        if spec.range is not None:
            value = rng.uniform(spec.range.low, spec.range.high)
            name = re.sub(r"<(degrees|height|distance)>", f"<{value:.2f}>", name)
        action = parse_action(spec.id, name)
        return Decision(action=action, proposed=action)


# ---------------------------------------------------------------------------
# The model endpoint


class ModelConfig(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A model config file (JSON). The key is read from `api_key_env`, never stored in the file."""

    base_url: str
    model: str
    max_tokens: int
    api_key_env: str | None = None
    temperature: float = 0.0
    response_format: dict[str, Any] | None = None  # e.g. {"type": "json_object"}
    extra_body: dict[str, Any] | None = None  # provider options, passed through
    timeout_s: float = 120.0  # one call
    decision_deadline_s: float = DECISION_DEADLINE_S  # one decision: every call and pause of both stages

    def __post_init__(self) -> None:
        if self.temperature != 0.0:
            raise PlannerError(f"temperature must be 0.0 (the benchmark decodes greedily), got {self.temperature}")
        url = urlparse(self.base_url)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise PlannerError(f"base_url must be an http(s) URL with a host, got {self.base_url!r}")
        for name in ("max_tokens", "timeout_s", "decision_deadline_s"):
            if not getattr(self, name) > 0:
                raise PlannerError(f"{name} must be more than 0, got {getattr(self, name)}")


def parse_model_config(data: bytes) -> ModelConfig:
    """A model config from a file's bytes; PlannerError with one line saying what is wrong."""
    try:
        return msgspec.json.decode(data, type=ModelConfig)
    except msgspec.DecodeError as exc:
        raise PlannerError(f"not a model config ({exc})") from None


def load_model_config(path: str | Path) -> ModelConfig:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise PlannerError(f"{path}: cannot read it ({exc.strerror})") from None
    try:
        return parse_model_config(data)
    except PlannerError as exc:
        raise PlannerError(f"{path}: {exc}") from None


def model_identity(config: ModelConfig) -> dict:
    """What a result records of the planner's model: its name, endpoint and a hash of every setting."""
    text = json.dumps(msgspec.to_builtins(config), sort_keys=True, separators=(",", ":"))
    return {"model": config.model, "base_url": config.base_url, "sha256": hashlib.sha256(text.encode()).hexdigest()}


def api_key(config: ModelConfig, environ: Mapping[str, str] = os.environ) -> str:
    """The key from the environment; a local endpoint without one gets the placeholder keyless servers accept."""
    if config.api_key_env and environ.get(config.api_key_env):
        return environ[config.api_key_env]
    if urlparse(config.base_url).hostname in LOCAL_HOSTS:
        return NO_KEY
    raise PlannerError(f"no API key for {config.base_url}: set {config.api_key_env or 'api_key_env in the model config'}")


@dataclass(frozen=True)
class Reply:
    text: str
    usage: Mapping[str, Any] | None  # the provider's usage block, as sent


class _Message(msgspec.Struct):
    content: str | None = None


class _Choice(msgspec.Struct):
    message: _Message


class _Completion(msgspec.Struct):
    """The part of a chat completion the planner reads; anything else in the reply is ignored."""

    choices: list[_Choice]
    usage: dict[str, Any] | None = None


class ChatClient:
    """Chat completions with one text + PNG user message, through the `openai` package (the `llm` extra).

    The SDK's own retries are off: the planner's five attempts are the only
    ones, so that every attempt is counted and backed off the same way. The
    reply's body is decoded here, against the fields the planner reads, so a
    200 that is no chat completion (an HTML page from a proxy, another schema)
    is a `TransportError` like any other failed call.
    """

    def __init__(self, config: ModelConfig, environ: Mapping[str, str] = os.environ) -> None:
        import openai  # only the language-model planner needs it

        self.config = config
        self.where = config.base_url
        self.deadline_s = config.decision_deadline_s
        self._openai = openai
        self._client = openai.OpenAI(
            base_url=config.base_url, api_key=api_key(config, environ), max_retries=0, timeout=config.timeout_s
        )

    def complete(self, prompt: str, png: bytes, timeout: float | None = None) -> Reply:
        """One call, given at most `timeout` seconds (and never more than the config's `timeout_s`)."""
        image_url = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
        content = [{"type": "text", "text": prompt}, {"type": "image_url", "image_url": {"url": image_url}}]
        options: dict[str, Any] = {}
        if self.config.response_format is not None:
            options["response_format"] = self.config.response_format
        if self.config.extra_body is not None:
            options["extra_body"] = self.config.extra_body
        limit = self.config.timeout_s if timeout is None else min(self.config.timeout_s, timeout)
        request = dict(model=self.config.model, messages=[{"role": "user", "content": content}],
                       max_tokens=self.config.max_tokens, temperature=self.config.temperature, timeout=limit, **options)
        body = self._within(limit, request)
        try:
            response = msgspec.json.decode(body, type=_Completion)
        except msgspec.DecodeError as exc:
            raise TransportError(f"malformed reply: not a chat completion ({exc})") from None
        if not response.choices:
            raise TransportError("the reply has no choices")
        return Reply(response.choices[0].message.content or "", response.usage)


    def _within(self, limit: float, request: dict) -> bytes:
        """The reply's body, complete within `limit` seconds in all, else a `TransportError`.

        The SDK's timeout bounds each read, so a reply that trickles in (a byte a
        second, chunked or not) would never time out. The call runs in a thread
        the caller waits on for `limit` seconds at most; the thread reads the body
        in pieces and gives up at the first piece after the deadline, so it ends
        too rather than reading a reply that never ends.
        """
        import httpx  # the SDK's own HTTP client

        deadline = time.monotonic() + limit
        outcome: dict[str, Any] = {}

        def call() -> None:
            try:
                with self._client.chat.completions.with_streaming_response.create(**request) as raw:
                    pieces = []
                    for piece in raw.iter_bytes():
                        pieces.append(piece)
                        if time.monotonic() > deadline:
                            outcome["late"] = True
                            return
                    outcome["body"] = b"".join(pieces)
            except self._openai.APITimeoutError:
                outcome["late"] = True
            except (self._openai.OpenAIError, httpx.HTTPError, OSError) as exc:  # reported by the caller, one line
                outcome["error"] = exc
            except Exception as exc:  # a bug: raised in the caller's thread as it is
                outcome["bug"] = exc

        thread = threading.Thread(target=call, name="htb-planner-call", daemon=True)
        thread.start()
        thread.join(max(0.0, deadline - time.monotonic()))
        if thread.is_alive() or outcome.get("late"):
            raise TransportError(f"timed out: no complete reply within {round(limit, 1):g} s")
        if "bug" in outcome:
            raise outcome["bug"]
        exc = outcome.get("error")
        if exc is not None:  # an SDK error (connection, status), or the connection dropped mid-body
            raise TransportError(f"{type(exc).__name__}: {exc}".splitlines()[0])
        return outcome["body"]


class Transport(Protocol):
    where: str  # the endpoint, as the wait lines name it
    deadline_s: float  # one decision's total

    def complete(self, prompt: str, png: bytes, timeout: float | None = None) -> Reply: ...


# ---------------------------------------------------------------------------
# Prompts (our own wording of the published contract)

# The planner's text fields its history shows again, clipped (the answer has three more: the action).
HISTORY_FIELDS = ("visible_state", "mid_level_progress_analysis", "mid_level_goal", "low_level_action_reasoning")

_ROBOT = (
    "You steer a Unitree G1 humanoid robot through an apartment. The attached image is the robot's own "
    "head-camera view right now; the robot's body and feet are just below its bottom edge."
)

_PLANNER_RULES = """\
Each step you choose one action. Every action except Stop/Stand moves the robot for 0.5 seconds.
- Search: if the goal object is not in view, turn to look around or walk into open space.
- Approach: walk until your body touches the object; a gap of even a few centimetres is not done.
- Sit (when the goal asks for it): with the seat touching you, turn until it is behind you (mark those turns
  "turn_for_sit": true), then Sit down<height> at the seat's height, then Stop/Stand with "stop_after_sit": true.
- Stop/Stand ends the episode: choose it only when the whole goal is done.
- additional_info is a JSON object: {} unless one of the two flags above applies."""

_PLANNER_ANSWER = """\
{
  "visible_state": "<what the image shows, the goal object included if it is there>",
  "mid_level_progress_analysis": "<how far the goal is, given the history>",
  "mid_level_goal": "<the next sub-goal>",
  "low_level_action_reasoning": "<why this action now>",
  "action_id": <0-7>,
  "action_name": "<the action name, exactly as listed, with its values>",
  "additional_info": {}
}"""

# Route -> what the verifier checks before accepting the proposal.
VERIFIER_ROUTES = {
    "walk": "Look at the straight lane ahead. Accept the walk if the lane is clear for the next 0.5 s and it "
    "brings the robot closer to the goal; if a wall, door or furniture is right ahead, replace it with a turn or "
    "side step toward open space (touching the goal object itself is wanted).",
    "stop": "Decide whether the whole goal is done: the robot's body touches the goal object (and, if asked, the "
    "robot sits on it). Accept Stop/Stand only then; otherwise replace it with the move that best continues.",
    "climb_up": "Accept only if a stair step is right at the feet and the robot faces the stairs; otherwise "
    "replace it with the smallest walk or turn that serves the goal.",
    "turn_for_sit": "Accept the turn only if the seat already touches the robot and this turn puts the seat "
    "behind it for sitting down; if there is still distance to the seat, replace it with a move toward the seat.",
    "stop_after_sit": "Accept unless the image clearly shows that sitting failed (legs not resting on the seat); "
    "an ambiguous view of the body is no reason to replace.",
}
_REPLACEMENT_IDS = (0, 2, 3, 5, 6, 7)  # the verifier may neither stop nor sit in the planner's place

_VERIFIER_ANSWER = """\
{
  "verdict": "accept" | "replace",
  "reason": "<one sentence>",
  "final_action_id": <id>,
  "final_action_name": "<the action to execute, exactly as listed, with its values>"
}"""


def action_space(ids: tuple[int, ...] | None = None) -> str:
    return "\n".join(f"{s.id}: {s.template} - {s.help}" for s in VOCABULARY if ids is None or s.id in ids)


def clip(text: Any, limit: int) -> str:
    flat = " ".join(str(text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def planner_prompt(goal: str, step: int, history: list[dict[str, Any]]) -> str:
    payload = {"goal": goal, "current_step": step, "current_ego_view_image": "attached", "history": history}
    return "\n\n".join(
        (
            _ROBOT,
            _PLANNER_RULES,
            "Actions (action_id: action_name - values):\n" + action_space(),
            "Answer with this JSON object and nothing else:\n" + _PLANNER_ANSWER,
            "Input:\n" + json.dumps(payload, ensure_ascii=False, indent=1),
        )
    )


def verifier_prompt(route: str, goal: str, proposed: Action, recent_actions: list[str]) -> str:
    payload: dict[str, Any] = {"goal": goal, "proposed_action": proposed.name}
    if proposed.turn_for_sit or proposed.stop_after_sit:
        payload["additional_info"] = {"turn_for_sit": True} if proposed.turn_for_sit else {"stop_after_sit": True}
    if route == "stop_after_sit":
        payload["recent_actions"] = recent_actions
    return "\n\n".join(
        (
            _ROBOT,
            f"You check the planner's proposed action: {proposed.name}. " + VERIFIER_ROUTES[route],
            "If it is right, accept it. Otherwise replace it with one of these:\n" + action_space(_REPLACEMENT_IDS),
            "Answer with this JSON object and nothing else:\n" + _VERIFIER_ANSWER,
            "Input:\n" + json.dumps(payload, ensure_ascii=False, indent=1),
        )
    )


def verifier_route(proposed: Action, sit_turn_verified: bool) -> str | None:
    """Which check a proposal gets; None for the actions that are accepted without a call.

    Of consecutive turn-to-sit turns only the first is checked: once the
    verifier agreed the seat is at the robot, the rest of the turn follows.
    """
    if proposed.turn_for_sit:
        return None if sit_turn_verified else "turn_for_sit"
    if proposed.stop_after_sit:
        return "stop_after_sit"
    return {WALK: "walk", STAND: "stop", CLIMB_UP: "climb_up"}.get(proposed.skill)


_THINK_END = "</think>"
_FENCE = re.compile(r"```[a-zA-Z]*")


def parse_json_object(text: str) -> dict[str, Any]:
    """The outermost JSON object of a reply, after any <think> block and code fences; ValueError if none."""
    body = text.rsplit(_THINK_END, 1)[-1] if _THINK_END in text else text
    body = _FENCE.sub("", body)
    start, end = body.find("{"), body.rfind("}")
    if start < 0 or end < start:
        raise ValueError("no JSON object in the reply")
    value = json.loads(body[start : end + 1])
    if not isinstance(value, dict):
        raise ValueError("the reply's JSON is not an object")
    return value


class PlannerAnswer(msgspec.Struct):
    """The fields of a planner answer the run reads: an action (by id, name or both) and the visible state."""

    visible_state: str = ""
    action_id: int | str | None = None
    action_name: str | None = None
    additional_info: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.action_id is None and self.action_name is None:
            raise ValueError("no action_id or action_name")


class VerifierAnswer(msgspec.Struct):
    """The fields of a verifier answer the run reads: a verdict and, to replace, the action to run instead."""

    verdict: str
    final_action_id: int | str | None = None
    final_action_name: str | None = None
    reason: str | None = None

    def __post_init__(self) -> None:
        if self.verdict.strip().lower() not in ("accept", "replace"):
            raise ValueError(f"verdict {self.verdict!r} is neither accept nor replace")


SCHEMAS = {PLANNER_STAGE: PlannerAnswer, VERIFIER_STAGE: VerifierAnswer}


def check_answer(stage: str, answer: dict[str, Any]) -> None:
    """ValueError (one line) where an answer lacks what its stage must say or holds a field of the wrong type."""
    try:
        msgspec.convert(answer, SCHEMAS[stage])
    except msgspec.ValidationError as exc:
        raise ValueError(f"malformed answer: {exc}") from None


def notify(line: str, level: int = logging.WARNING) -> None:
    """A line on the terminal and in the run's log: how a run learns that its model is failing or slow."""
    print(line, file=sys.stderr, flush=True)
    log.log(level, "%s", line)


def _short(error: str | None) -> str:
    return clip(error, ERROR_CHARS) if error else "none"


# ---------------------------------------------------------------------------
# The language-model planner


class LanguageModelPlanner:
    """The two-stage planner over any `Transport` (a `ChatClient` in a run, a fake in tests).

    `notify` receives each line about retries, fallbacks and waits (default:
    the terminal and the run log); `wait_interval` is how long a call waits
    before its first wait line, and between them.
    """

    def __init__(
        self,
        transport: Transport,
        *,
        name: str = "llm",
        history_steps: int = HISTORY_STEPS,
        sleep: Callable[[float], None] = time.sleep,
        notify: Callable[..., None] = notify,
        wait_interval: float = WAIT_REPORT_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.transport = transport
        self.name = name
        self.history_steps = max(HISTORY_STEPS, history_steps)
        self.sleep = sleep  # injectable, so that tests see the backoff without waiting for it
        self.notify, self.wait_interval, self.clock = notify, wait_interval, clock
        self._goal = ""
        self._rows: list[dict[str, Any]] = []  # one per past step, as the prompt shows it
        self._executed: list[str] = []  # the executed action names, for the stop-after-sit check
        self._sit_turn_verified = False

    def reset(self, instruction: str, seed: int) -> None:
        """Seed unused: the model decodes greedily."""
        self._goal = instruction
        self._rows, self._executed = [], []
        self._sit_turn_verified = False

    def _stage(
        self, stage: str, prompt: str, png: bytes, step: int, started: float
    ) -> tuple[list[CallRecord], dict[str, Any] | None, str]:
        """The calls of one stage, its answer (None: none usable) and, without one, why (for the fallback line)."""
        calls: list[CallRecord] = []
        deadline_s = self.transport.deadline_s
        error = None
        for attempt in range(1, MAX_ATTEMPTS + 1):
            remaining = started + deadline_s - self.clock()
            if remaining <= 0:
                return calls, None, f"before the {deadline_s:g} s decision deadline (last: {_short(error)})"
            try:
                with self._reporting_wait(step, started):
                    reply = self.transport.complete(prompt, png, timeout=remaining)
            except TransportError as exc:
                # The request may have been billed: its prompt is counted, estimated.
                error = str(exc)
                calls.append(CallRecord(stage, attempt, prompt, "", error, call_usage(None, prompt, "")))
            else:
                usage = call_usage(reply.usage, prompt, reply.text)
                try:
                    parsed = parse_json_object(reply.text)
                except ValueError as exc:
                    error = f"unparseable reply: {exc}"
                else:
                    try:
                        check_answer(stage, parsed)
                    except ValueError as exc:
                        error = str(exc)
                    else:
                        calls.append(CallRecord(stage, attempt, prompt, reply.text, None, usage))
                        return calls, parsed, ""
                calls.append(CallRecord(stage, attempt, prompt, reply.text, error, usage))
            if attempt == MAX_ATTEMPTS:
                break
            pause = BACKOFF_S[attempt - 1]
            if self.clock() + pause >= started + deadline_s:
                return calls, None, f"before the {deadline_s:g} s decision deadline (last: {_short(error)})"
            self.notify(f"llm planner, step {step}: {stage} attempt {attempt} of {MAX_ATTEMPTS} failed "
                        f"({_short(error)}); retrying in {pause:g} s")
            self.sleep(pause)
        return calls, None, f"after {MAX_ATTEMPTS} attempts (last: {_short(error)})"

    @contextlib.contextmanager
    def _reporting_wait(self, step: int, started: float):
        """A line every `wait_interval` seconds while the block (one call) runs."""
        done = threading.Event()

        def report() -> None:
            while not done.wait(self.wait_interval):
                self.notify(f"llm planner, step {step}: waiting for the model at {self.transport.where} "
                            f"({self.clock() - started:.1f} s of the {self.transport.deadline_s:g} s decision deadline)",
                            logging.INFO)

        thread = threading.Thread(target=report, name="htb-planner-wait", daemon=True)
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join()

    def decide(self, observation: Observation) -> Decision:
        started, step = self.clock(), observation.step
        png = encode_png(observation.image)
        prompt = planner_prompt(self._goal, step, self._rows[-self.history_steps :])
        planner_calls, plan, why = self._stage(PLANNER_STAGE, prompt, png, step, started)
        if plan is None:
            self.notify(f"llm planner, step {step}: no usable planner answer {why}; walking forward slowly "
                        "(planner fallback)")
            decision = Decision(FALLBACK_WALK, FALLBACK_WALK, calls=tuple(planner_calls), planner_fallback=True)
            self._remember(step, decision, {}, None)
            return decision
        proposed = parse_action(plan.get("action_id"), plan.get("action_name"), plan.get("additional_info"))
        if proposed.invalid_action:  # executed as Stop, which ends the episode: say why on the terminal
            self.notify(f"llm planner, step {step}: the planner named no action of the vocabulary "
                        f"(action_id {clip(plan.get('action_id'), 40)}, action_name {clip(plan.get('action_name'), 80)}); "
                        "executing Stop/Stand as an invalid active stop")
        route = verifier_route(proposed, self._sit_turn_verified)
        verifier_calls: list[CallRecord] = []
        verdict = None
        final = proposed
        if route is not None:
            prompt = verifier_prompt(route, self._goal, proposed, self._executed[-self.history_steps :])
            verifier_calls, verdict, why = self._stage(VERIFIER_STAGE, prompt, png, step, started)
            if verdict is not None:
                final = _verified(verdict, proposed)
            else:
                self.notify(f"llm planner, step {step}: no usable verifier answer {why}; accepting the proposal "
                            f"{proposed.name} (verifier fallback)")
        decision = Decision(
            action=final,
            proposed=proposed,
            visible_state=str(plan.get("visible_state") or ""),
            planner_output=plan,
            verifier_output=verdict,
            verifier_route=route,
            calls=tuple(planner_calls + verifier_calls),
            verifier_fallback=route is not None and verdict is None,
        )
        self._sit_turn_verified = proposed.turn_for_sit and final.skill == TURN
        self._remember(step, decision, plan, verdict)
        return decision

    def _remember(
        self, step: int, decision: Decision, plan: Mapping[str, Any], verdict: Mapping[str, Any] | None
    ) -> None:
        row: dict[str, Any] = {"step": step}
        row.update({key: clip(plan.get(key), CLIP_CHARS[key]) for key in HISTORY_FIELDS})
        row["proposed_action"] = clip(decision.proposed.name, CLIP_CHARS["action"])
        row["executed_action"] = clip(decision.action.name, CLIP_CHARS["action"])
        if decision.planner_fallback:
            row["note"] = "no usable planner answer after five attempts; walked forward slowly"
        elif decision.action != decision.proposed:
            reason = (verdict or {}).get("reason") or "no reason given"
            rejection = f"verifier replaced {decision.proposed.name} with {decision.action.name}: {reason}"
            row["verifier_rejection"] = clip(rejection, CLIP_CHARS["verifier_rejection"])
        self._rows.append(row)
        self._executed.append(decision.action.name)


def _verified(verdict: Mapping[str, Any], proposed: Action) -> Action:
    """The verifier's final action: its replacement when it replaces (parsed like a planner answer), else the proposal."""
    chosen_id, chosen_name = verdict.get("final_action_id"), verdict.get("final_action_name")
    if str(verdict["verdict"]).strip().lower() == "replace" and (chosen_id is not None or chosen_name):
        return parse_action(chosen_id, chosen_name)
    return proposed
