"""The two-stage language-model planner: planner and verifier calls, their retries, fallbacks and decision deadline.

Every attempt is kept with its token usage, and every retry, fallback and
long wait is one line on the terminal and in the run log.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any

from ....policies.heartbeat import heartbeat
from ....record.png import encode_png
from ..actions import FALLBACK_WALK, TURN, Action, parse_action
from ..metrics.scoring import call_usage
from .answers import check_answer, parse_json_object
from .client import Transport, TransportError
from .interface import PLANNER_STAGE, VERIFIER_STAGE, CallRecord, Decision, Observation
from .prompts import CLIP_CHARS, HISTORY_FIELDS, clip, planner_prompt, verifier_prompt, verifier_route

MAX_ATTEMPTS = 5
BACKOFF_S = (1.0, 2.0, 4.0, 8.0)  # sleeps after failed attempts 1-4
WAIT_REPORT_S = 10.0  # a line while a call is outstanding this long, and again every as long
ERROR_CHARS = 200  # of an error shown in a line
HISTORY_STEPS = 10  # the least number of past steps the planner sees

# The evaluator's logger: the run's log file receives every line (`eval.rundir.RunLog`). A NullHandler,
# so that outside a run (a policy server, a test) Python's last-resort handler does not print them twice.
log = logging.getLogger("humanoidtoolbench.eval.planner")
log.addHandler(logging.NullHandler())


def notify(line: str, level: int = logging.WARNING) -> None:
    """A line on the terminal and in the run's log: how a run learns that its model is failing or slow."""
    print(line, file=sys.stderr, flush=True)
    log.log(level, "%s", line)


def _short(error: str | None) -> str:
    return clip(error, ERROR_CHARS) if error else "none"


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
        def report() -> None:
            self.notify(f"llm planner, step {step}: waiting for the model at {self.transport.where} "
                        f"({self.clock() - started:.1f} s of the {self.transport.deadline_s:g} s decision deadline)",
                        logging.INFO)

        with heartbeat(self.wait_interval, report, "htb-planner-wait"):
            yield

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
