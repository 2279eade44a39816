"""Serve a policy over HTTP for the evaluator (same as the `htb-serve` command):

    python examples/serve_policy.py --policy my_adapter.py:predict --checkpoint run-42 --port 21000

Without --policy it serves the diagnostic pose-holding example.
"""

import sys

from humanoidtoolbench.cli.serve import main

if __name__ == "__main__":
    sys.exit(main())
