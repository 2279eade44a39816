"""The six canonical instructions: they depend on the scenario and on L0 versus L1/L2 only."""

from __future__ import annotations

INSTRUCTIONS: dict[tuple[str, bool], str] = {
    ("BallMove", True): "Pick the tool for moving the ball to the target.",
    ("BallMove", False): "Pick the tool and move the ball to the target.",
    ("BallRetrieve", True): "Pick the tool for retrieving the ball to the target.",
    ("BallRetrieve", False): "Pick the tool and retrieve the ball to the target.",
    ("IceBreak", True): "Pick the tool for breaking the ice blocks.",
    ("IceBreak", False): "Pick the tool and break the ice blocks.",
}


def instruction(scenario: str, level: int) -> str:
    return INSTRUCTIONS[(scenario, level == 0)]
