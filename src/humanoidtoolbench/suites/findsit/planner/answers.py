"""Reading a model's reply: its JSON object, checked against what its stage must say."""

from __future__ import annotations

import json
import re
from typing import Any

import msgspec

from .interface import PLANNER_STAGE, VERIFIER_STAGE

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
