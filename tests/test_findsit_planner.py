"""The find-navigate-sit planners against a scripted OpenAI-compatible server on 127.0.0.1, and the action parser."""

from __future__ import annotations

import base64
import json
import logging
import math
import os
import struct
import subprocess
import sys
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

import humanoidtoolbench
from humanoidtoolbench.suites.findsit.actions import FALLBACK_WALK, STOP, parse_action
from humanoidtoolbench.suites.findsit.metrics import scoring
from humanoidtoolbench.suites.findsit.metrics.recorded import CallUsage
from humanoidtoolbench.suites.findsit.planner.answers import parse_json_object
from humanoidtoolbench.suites.findsit.planner.client import ChatClient
from humanoidtoolbench.suites.findsit.planner.config import ModelConfig, PlannerError, api_key, load_model_config
from humanoidtoolbench.suites.findsit.planner.interface import Observation
from humanoidtoolbench.suites.findsit.planner.language_model import BACKOFF_S, MAX_ATTEMPTS, LanguageModelPlanner
from humanoidtoolbench.suites.findsit.planner.random_planner import RandomPlanner

GOAL = "Find the bed and move until your body is touching it. Finally, sit on the bed."
IMAGE = np.zeros((448, 448, 3), dtype=np.uint8)
USAGE = {"prompt_tokens": 1000, "completion_tokens": 120, "completion_tokens_details": {"reasoning_tokens": 20}}
VERIFIER_USAGE = {"prompt_tokens": 800, "completion_tokens": 30}


def plan(action_id, action_name, additional_info=None, visible_state="A bed is ahead on the left."):
    return json.dumps(
        {
            "visible_state": visible_state,
            "mid_level_progress_analysis": "The bed is about two metres away.",
            "mid_level_goal": "Reach the bed.",
            "low_level_action_reasoning": "The lane is clear.",
            "action_id": action_id,
            "action_name": action_name,
            "additional_info": additional_info or {},
        }
    )


def verdict(kind="accept", action_id=None, action_name=None, reason="ok"):
    return json.dumps({"verdict": kind, "reason": reason, "final_action_id": action_id, "final_action_name": action_name})


def ok(content, usage=USAGE):
    body = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": "test-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
    }
    if usage is not None:
        body["usage"] = usage
    return 200, body


FAIL = (500, {"error": {"message": "overloaded", "type": "server_error"}})
HANG = 0  # a status that makes the server wait instead of answering
TRICKLE = 1  # a status that makes the server send a 200 whose body never ends, a byte every `payload` seconds
TRICKLE_CHUNKED = 2  # the same, in chunked transfer encoding


class Provider:
    """Answers /v1/chat/completions from a queue of (status, body); keeps every request."""

    def __init__(self):
        self.replies: deque = deque()
        self.requests: list[dict] = []
        self.headers: list = []  # email.message.Message: case-insensitive
        self.released = threading.Event()  # set when the test ends: hanging requests give up
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                provider.requests.append(body)
                provider.headers.append(self.headers)
                status, payload = provider.replies.popleft() if self.path == "/v1/chat/completions" else (404, {})
                if status == HANG:  # answer only after `payload` seconds (or never, once the test has ended)
                    provider.released.wait(payload)
                    return
                if status in (TRICKLE, TRICKLE_CHUNKED):  # until the test ends or the client hangs up
                    chunked = status == TRICKLE_CHUNKED
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    if chunked:
                        self.send_header("Transfer-Encoding", "chunked")
                    else:
                        self.send_header("Content-Length", str(10**9))
                    self.end_headers()
                    try:
                        while not provider.released.wait(payload):
                            self.wfile.write(b"1\r\n \r\n" if chunked else b" ")
                            self.wfile.flush()
                    except OSError:
                        pass
                    return
                raw = isinstance(payload, str)  # a body sent as it is, e.g. an HTML error page
                data = payload.encode() if raw else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/html" if raw else "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def script(self, *replies):
        self.replies.extend(replies)

    def prompt(self, index):
        return self.requests[index]["messages"][0]["content"][0]["text"]


@pytest.fixture
def provider():
    p = Provider()
    thread = threading.Thread(target=p.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield p
    p.released.set()
    p.server.shutdown()
    p.server.server_close()
    assert not p.replies, "scripted replies left unused"


@pytest.fixture
def sleeps():
    return []


@pytest.fixture
def planner(provider, sleeps):
    config = ModelConfig(base_url=provider.url, model="test-model", max_tokens=512, response_format={"type": "json_object"})
    p = LanguageModelPlanner(ChatClient(config, environ={}), sleep=sleeps.append)
    p.reset(GOAL, seed=0)
    return p


def decide(planner, step=0):
    return planner.decide(Observation(image=IMAGE, step=step))


def test_a_decision_sends_one_image_message_and_sums_exact_tokens(provider, planner, sleeps):
    provider.script(ok(plan(0, "Walk<forward><normal>")), ok(verdict(), VERIFIER_USAGE))
    d = decide(planner)
    assert (d.action.name, d.action.parameters, d.verifier_route, d.retries, sleeps) == (
        "Walk<forward><normal>",
        {"speed_mps": 0.4},
        "walk",
        0,
        [],
    )
    assert [c.usage for c in d.calls] == [
        CallUsage(exact=True, input_tokens=1000, visible_output_tokens=100, reasoning_tokens=20),
        CallUsage(exact=True, input_tokens=800, visible_output_tokens=30, reasoning_tokens=0),
    ]
    cost = scoring.cost([d.record(0, target_pixels=150)])
    assert (cost.input_tokens, cost.visible_output_tokens, cost.reasoning_tokens, cost.token_source) == (1800, 130, 20, "provider_exact")

    request = provider.requests[0]
    assert (request["model"], request["temperature"], request["max_tokens"], request["response_format"]) == (
        "test-model",
        0.0,
        512,
        {"type": "json_object"},
    )
    assert provider.headers[0]["Authorization"] == "Bearer EMPTY"  # keyless local endpoint
    (message,) = request["messages"]
    text, image = message["content"]
    assert message["role"] == "user" and text["type"] == "text" and image["type"] == "image_url"
    png = base64.b64decode(image["image_url"]["url"].removeprefix("data:image/png;base64,"))
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", png[16:24]) == (448, 448)
    assert '"goal": "' + GOAL in text["text"] and "Walk<forward><speed>" in text["text"]
    assert "Walk<forward><normal>" in provider.prompt(1)  # the verifier checks the proposal


def test_json_inside_think_and_fences_is_parsed_and_a_turn_needs_no_verifier(provider, planner):
    reply = "<think>The bed {maybe} is left.</think>\n```json\n" + plan(2, "Turn<left><45>") + "\n```"
    provider.script(ok(reply))
    d = decide(planner)
    assert (d.action.parameters, d.verifier_route, len(d.calls), d.visible_state) == (
        {"yaw_deg": 45.0},
        None,
        1,
        "A bed is ahead on the left.",
    )
    assert parse_json_object('Sure: {"a": {"b": 1}} done') == {"a": {"b": 1}}
    with pytest.raises(ValueError):
        parse_json_object("<think>{}</think> no object")


def test_two_failures_then_success_are_three_attempts_with_backoff(provider, planner, sleeps):
    provider.script(FAIL, ok("I would turn left."), ok(plan(2, "Turn<right><30>")))
    d = decide(planner)
    assert (d.action.name, len(d.calls), d.retries, sleeps) == ("Turn<right><30>", 3, 2, [1.0, 2.0])
    assert [c.error is None for c in d.calls] == [False, False, True]
    assert d.calls[0].output == "" and d.calls[0].error.startswith("InternalServerError")
    assert d.record(0, None).retries == 2
    # The failed transport attempt is estimated, the other two are exact.
    assert scoring.cost([d.record(0, None)]).token_source == "mixed_exact_and_estimated"


def test_five_planner_failures_walk_slowly_without_a_verifier(provider, planner, sleeps):
    provider.script(*[FAIL] * 5)
    d = decide(planner)
    assert (d.action, d.planner_fallback, d.verifier_route, len(d.calls), sleeps) == (
        FALLBACK_WALK,
        True,
        None,
        5,
        list(BACKOFF_S),
    )
    assert FALLBACK_WALK.name == "Walk<forward><slow>" and len(provider.requests) == 5
    assert d.record(0, None).planner_fallback


def test_five_verifier_failures_accept_the_proposal(provider, planner, sleeps):
    provider.script(ok(plan(1, "Stop/Stand")), *[ok("{not json")] * 5)
    d = decide(planner)
    assert (d.action, d.verifier_fallback, d.verifier_route, len(d.calls), sleeps) == (STOP, True, "stop", 6, list(BACKOFF_S))
    assert d.action.active_stop


def test_a_non_json_200_reply_is_retried_like_a_transport_error(provider, planner, sleeps):
    provider.script((200, "<html><body>502 Bad Gateway</body></html>"), ok(plan(2, "Turn<left><30>")))
    d = decide(planner)
    assert (d.action.name, len(d.calls), d.retries, sleeps, d.planner_fallback) == ("Turn<left><30>", 2, 1, [1.0], False)
    assert d.calls[0].error.startswith("malformed reply: ") and d.calls[0].output == ""


@pytest.mark.parametrize(
    "bad",
    [
        (200, {"id": "x", "object": "chat.completion"}),  # no choices
        (200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": 5}}]}),  # content not text
        (200, [1, 2]),  # not an object
        ok(json.dumps({"visible_state": "A bed."})),  # an answer without an action
        ok(json.dumps({"visible_state": "A bed.", "action_id": 2, "action_name": ["Turn"]})),  # a name that is no text
    ],
    ids=["no choices", "content not text", "a list", "no action", "action name a list"],
)
def test_a_reply_of_the_wrong_schema_is_retried(provider, planner, sleeps, bad):
    provider.script(bad, ok(plan(2, "Turn<left><30>")))
    d = decide(planner)
    assert (d.action.name, len(d.calls), d.planner_fallback, sleeps) == ("Turn<left><30>", 2, False, [1.0])
    assert d.calls[0].error is not None and d.calls[1].error is None


def test_a_verifier_answer_without_a_verdict_is_retried(provider, planner, sleeps):
    provider.script(ok(plan(0, "Walk<forward><normal>")), ok(json.dumps({"reason": "fine"})), ok(verdict()))
    d = decide(planner)
    assert (len(d.calls), d.verifier_fallback, sleeps) == (3, False, [1.0])
    assert d.calls[1].error.startswith("malformed answer")


def test_each_retry_and_fallback_is_one_line_on_the_terminal_and_in_the_run_log(provider, planner, sleeps, capsys, caplog):
    provider.script(*[FAIL] * MAX_ATTEMPTS)
    capsys.readouterr()
    with caplog.at_level(logging.INFO, logger="humanoidtoolbench.eval"):
        d = decide(planner, step=7)
    assert d.planner_fallback
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == MAX_ATTEMPTS  # four retries, then the fallback
    for attempt, (line, pause) in enumerate(zip(lines, BACKOFF_S), start=1):
        assert line.startswith(f"llm planner, step 7: planner attempt {attempt} of {MAX_ATTEMPTS} failed (InternalServerError")
        assert line.endswith(f"; retrying in {pause:g} s")
    assert lines[-1].startswith(f"llm planner, step 7: no usable planner answer after {MAX_ATTEMPTS} attempts "
                                "(last: InternalServerError")
    assert lines[-1].endswith("; walking forward slowly (planner fallback)")
    assert [r.getMessage() for r in caplog.records if r.name.startswith("humanoidtoolbench.eval")] == lines


def test_a_verifier_fallback_is_one_line_naming_the_accepted_proposal(provider, planner, capsys):
    provider.script(ok(plan(1, "Stop/Stand")), *[ok("{not json")] * MAX_ATTEMPTS)
    capsys.readouterr()
    assert decide(planner).verifier_fallback
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == MAX_ATTEMPTS and "verifier attempt 1 of 5 failed (unparseable reply" in lines[0]
    assert lines[-1] == (f"llm planner, step 0: no usable verifier answer after {MAX_ATTEMPTS} attempts "
                         "(last: unparseable reply: no JSON object in the reply); accepting the proposal Stop/Stand "
                         "(verifier fallback)")


def test_a_hanging_endpoint_costs_one_decision_deadline_with_wait_lines(provider, sleeps, capsys):
    config = ModelConfig(base_url=provider.url, model="test-model", max_tokens=512, decision_deadline_s=1.0)
    planner = LanguageModelPlanner(ChatClient(config, environ={}), sleep=sleeps.append, wait_interval=0.25)
    planner.reset(GOAL, seed=0)
    provider.script((HANG, 60))
    capsys.readouterr()
    started = time.monotonic()
    d = decide(planner)
    took = time.monotonic() - started
    assert (d.action, d.planner_fallback, len(d.calls)) == (FALLBACK_WALK, True, 1)
    assert 0.9 < took < 10
    lines = capsys.readouterr().err.splitlines()
    waits = [line for line in lines if "waiting for the model" in line]
    assert len(waits) >= 2 and waits[0].startswith(f"llm planner, step 0: waiting for the model at {provider.url} (")
    assert waits[0].endswith("of the 1 s decision deadline)")
    assert lines[-1].startswith("llm planner, step 0: no usable planner answer before the 1 s decision deadline "
                                "(last: timed out: no complete reply within 1 s")
    assert lines[-1].endswith("; walking forward slowly (planner fallback)")


@pytest.mark.parametrize("trickle", [TRICKLE, TRICKLE_CHUNKED])
def test_a_reply_that_never_ends_costs_one_decision_deadline(provider, sleeps, capsys, trickle):
    config = ModelConfig(base_url=provider.url, model="test-model", max_tokens=512, timeout_s=0.5,
                         decision_deadline_s=2.5)
    planner = LanguageModelPlanner(ChatClient(config, environ={}), sleep=sleeps.append)
    planner.reset(GOAL, seed=0)
    provider.script(*[(trickle, 0.1)] * 2)  # a byte every 0.1 s: no read ever waits for timeout_s
    capsys.readouterr()
    started = time.monotonic()
    outcome: list = []
    worker = threading.Thread(target=lambda: outcome.append(decide(planner)), daemon=True)
    worker.start()
    worker.join(15)  # today's code would read forever: bound the test, not the planner
    took = time.monotonic() - started
    assert not worker.is_alive(), "the decision never ended"
    [d] = outcome
    assert (d.action, d.planner_fallback) == (FALLBACK_WALK, True)
    assert [c.error for c in d.calls] == ["timed out: no complete reply within 0.5 s"] * 2
    assert sleeps == [1.0] and 0.9 < took < 5  # two calls of 0.5 s; the 2 s pause would pass the deadline
    lines = capsys.readouterr().err.splitlines()
    assert lines[-1].startswith("llm planner, step 0: no usable planner answer before the 2.5 s decision deadline "
                                "(last: timed out: no complete reply within 0.5 s")


def test_a_reply_without_usage_is_estimated_at_four_characters_a_token(provider, planner):
    content = plan(5, "Step back<0.3>")
    provider.script(ok(content, usage=None))
    d = decide(planner)
    (call,) = d.calls
    assert call.usage == CallUsage(
        exact=False, input_tokens=math.ceil(len(call.prompt) / 4), visible_output_tokens=math.ceil(len(content) / 4)
    )
    assert scoring.cost([d.record(0, None)]).token_source == "estimated_chars_div_4"


def test_an_unknown_action_is_an_invalid_active_stop(provider, planner, capsys):
    provider.script(ok(plan(42, "Dance<wildly>")), ok(verdict()))
    capsys.readouterr()
    d = decide(planner)
    assert capsys.readouterr().err == ("llm planner, step 0: the planner named no action of the vocabulary "
                                       "(action_id 42, action_name Dance<wildly>); executing Stop/Stand as an "
                                       "invalid active stop\n")
    assert (d.proposed.invalid_action, d.action.skill, d.action.active_stop, d.verifier_route) == (True, "stand", True, "stop")
    record = d.record(3, 0)
    assert (record.invalid_action, record.skill) == (True, "stand")


def test_a_verifier_replacement_is_executed_and_remembered_with_at_least_ten_steps(provider, planner):
    for step in range(11):
        provider.script(ok(plan(2, f"Turn<left><{10 + step}>")))
        decide(planner, step)
    provider.script(ok(plan(0, "Walk<forward><fast>")), ok(verdict("replace", 2, "Turn<right><30>", reason="a wall is ahead")))
    d = decide(planner, 11)
    assert (d.proposed.name, d.action.name) == ("Walk<forward><fast>", "Turn<right><30>")
    provider.script(ok(plan(2, "Turn<left><10>")))
    decide(planner, 12)

    history = json.loads(provider.prompt(-1).split("Input:\n", 1)[1])["history"]
    assert [row["step"] for row in history] == list(range(2, 12))  # the last ten steps
    assert history[0]["executed_action"] == "Turn<left><12>"
    assert history[-1]["proposed_action"] == "Walk<forward><fast>" and history[-1]["executed_action"] == "Turn<right><30>"
    assert history[-1]["verifier_rejection"] == "verifier replaced Walk<forward><fast> with Turn<right><30>: a wall is ahead"
    assert history[-1]["visible_state"] == "A bed is ahead on the left."


def test_only_the_first_turn_for_sit_and_the_stop_after_sit_are_verified(provider, planner):
    sit_turn = plan(2, "Turn<left><90>", {"turn_for_sit": True})
    provider.script(ok(sit_turn), ok(verdict()))
    assert decide(planner, 0).verifier_route == "turn_for_sit"
    provider.script(ok(sit_turn))
    assert decide(planner, 1).verifier_route is None  # the sequence continues
    provider.script(ok(plan(4, "Sit down<0.45>")))
    assert decide(planner, 2).action.parameters == {"height_m": 0.45}
    provider.script(ok(sit_turn), ok(verdict()))
    assert decide(planner, 3).verifier_route == "turn_for_sit"  # a new sequence
    provider.script(ok(plan(1, "Stop/Stand", {"stop_after_sit": True})), ok(verdict()))
    assert decide(planner, 4).verifier_route == "stop_after_sit"
    assert json.loads(provider.prompt(-1).split("Input:\n", 1)[1])["recent_actions"] == [
        "Turn<left><90>",
        "Turn<left><90>",
        "Sit down<0.45>",
        "Turn<left><90>",
    ]


def test_the_random_planner_is_seeded_and_costs_nothing():
    def run(seed):
        p = RandomPlanner()
        p.reset(GOAL, seed)
        return [p.decide(Observation(image=IMAGE, step=i)) for i in range(200)]

    first, again, other = run(7), run(7), run(8)
    assert [d.action for d in first] == [d.action for d in again] != [d.action for d in other]
    assert {d.action.id for d in first} == set(range(8))
    assert not any(d.action.invalid_action for d in first)
    assert scoring.cost([d.record(i, None) for i, d in enumerate(first)]).token_source == "unavailable_no_calls"


def test_model_config_and_key(tmp_path):
    path = tmp_path / "model.json"
    path.write_text(json.dumps({"base_url": "https://api.example.com/v1", "model": "m", "max_tokens": 64, "api_key_env": "TEST_KEY"}))
    config = load_model_config(path)
    assert api_key(config, {"TEST_KEY": "sk-1"}) == "sk-1"
    with pytest.raises(PlannerError, match="set TEST_KEY"):
        api_key(config, {})
    assert api_key(ModelConfig(base_url="http://localhost:8000/v1", model="m", max_tokens=64), {}) == "EMPTY"
    path.write_text(json.dumps({"base_url": "http://localhost/v1", "model": "m", "max_tokens": 64, "temperature": 0.7}))
    with pytest.raises(PlannerError, match="temperature must be 0.0"):
        load_model_config(path)
    with pytest.raises(PlannerError, match="temperature must be 0.0"):
        ModelConfig(base_url="http://localhost/v1", model="m", max_tokens=64, temperature=0.2)
    for bad, message in (({"base_url": "localhost:8000/v1"}, "base_url must be an http"),
                         ({"max_tokens": 0}, "max_tokens must be"),
                         ({"timeout_s": 0}, "timeout_s must be"),
                         ({"decision_deadline_s": -1}, "decision_deadline_s must be")):
        with pytest.raises(PlannerError, match=message):
            ModelConfig(**{"base_url": "http://localhost/v1", "model": "m", "max_tokens": 64, **bad})


@pytest.mark.parametrize(
    "action_id, name, expected_id, expected_name, parameters",
    [
        (0, "Walk<forward><fast>", 0, "Walk<forward><fast>", {"speed_mps": 0.6}),
        (0, "Walk<forward><sprint>", 0, "Walk<forward><slow>", {"speed_mps": 0.2}),  # unknown speed: slow
        (2, "Turn<right><200>", 2, "Turn<right><120>", {"yaw_deg": -120.0}),
        (2, "Turn<left><5>", 2, "Turn<left><10>", {"yaw_deg": 10.0}),
        (2, "Turn", 2, "Turn<left><10>", {"yaw_deg": 10.0}),  # default: left 10
        (4, "Sit down<0.9>", 4, "Sit down<0.85>", {"height_m": 0.85}),
        (4, "Sit down<0.1>", 4, "Sit down<0.15>", {"height_m": 0.15}),
        (4, "Sit down", 4, "Sit down<0.50>", {"height_m": 0.5}),
        (5, "Step back<0.05>", 5, "Step back<0.10>", {"distance_m": 0.1}),
        (5, "Step back<0.7>", 5, "Step back<0.60>", {"distance_m": 0.6}),
        (5, "Step back", 5, "Step back<0.25>", {"distance_m": 0.25}),
        (6, "Side step<right><0.8>", 6, "Side step<right><0.50>", {"lateral_m": -0.5}),
        (6, "Side step<left><0.02>", 6, "Side step<left><0.10>", {"lateral_m": 0.1}),
        (6, "Side step", 6, "Side step<left><0.25>", {"lateral_m": 0.25}),
        (None, "Turn<right><30>", 2, "Turn<right><30>", {"yaw_deg": -30.0}),  # id inferred from the name
        ("4", "Sit down<0.4>", 4, "Sit down<0.40>", {"height_m": 0.4}),
        (None, "Walk downstairs<normal>", 7, "Walk downstairs<normal>", {}),
        (None, "Climb upstairs<normal>", 3, "Climb upstairs<normal>", {}),
        (None, "Stop/Stand", 1, "Stop/Stand", {}),
    ],
)
def test_action_parser_clamps_and_defaults(action_id, name, expected_id, expected_name, parameters):
    action = parse_action(action_id, name)
    assert (action.id, action.name, dict(action.parameters), action.invalid_action) == (expected_id, expected_name, parameters, False)


@pytest.mark.parametrize("action_id, name", [(8, "Walk<forward><slow>"), (-1, ""), (None, "Dance"), (None, "")])
def test_an_unknown_id_or_name_is_a_flagged_stop(action_id, name):
    action = parse_action(action_id, name)
    assert (action.skill, action.active_stop, action.invalid_action) == ("stand", True, True)


def test_climbs_are_flagged_no_motion_steps_and_flags_follow_their_skill():
    assert parse_action(3, "").unsupported and parse_action(7, "").unsupported and not parse_action(0, "").unsupported
    assert parse_action(2, "Turn<left><90>", {"turn_for_sit": "true"}).turn_for_sit
    assert not parse_action(0, "Walk", {"turn_for_sit": True}).turn_for_sit  # a flag on the wrong skill is ignored
    assert parse_action(1, "Stop/Stand", {"stop_after_sit": True}).stop_after_sit


def test_the_random_planner_needs_no_openai():
    code = (
        "import sys; sys.modules['openai'] = None\n"
        "import numpy as np\n"
        "from humanoidtoolbench.suites.findsit.planner.interface import Observation\n"
        "from humanoidtoolbench.suites.findsit.planner.random_planner import RandomPlanner\n"
        "p = RandomPlanner(); p.reset('goal', 1)\n"
        "print(p.decide(Observation(image=np.zeros((4, 4, 3), np.uint8), step=0)).action.name)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(humanoidtoolbench.__file__).parents[1])}
    subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True)
