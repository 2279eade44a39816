"""The scripted expert: solves the conditions through the public 36-value action, with privileged truth.

It knows which tool is correct and where everything is (the `privileged`
entry of its requests, which only privileged in-process policies receive),
walks with the navigation slots, moves the arm with inverse kinematics and
closes the Dex3 fingers on the handle: the tool rises by friction alone.
Each chunk is planned from the latest observation, so a slipped tool or a
rolling ball is corrected rather than ignored. Its results are never
reportable.

The policy is `policy.predict`; this package imports nothing, so the suite
reads the expert's per-controller cautions (`caution.CAUTIONS`) without the
simulator.
"""
