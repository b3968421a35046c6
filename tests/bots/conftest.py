"""The bot tests drive the server with the server suite's protocol client where a plain client will do."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
