"""The run tests drive the stack with the server suite's protocol client."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
