"""What a Fiatlux policy is shown: the head camera, its image size and the observation modes.

Plain constants, so the suite declares them without loading MuJoCo and the
episode and its observation read them without importing the suite.
"""

CAMERA = "head_d435"
IMAGE_SIZE = 256
OBS_MODES = ("standard", "privileged")  # privileged: the policy also reads simulator state
