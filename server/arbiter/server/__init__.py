"""The match server: lobby, challenges, matches with clocks, spectators and reconnects, over websockets.

Start one with ``arbiter serve`` or, in code and tests, ``async with run_server(config) as server``.
"""

from .app import RunningServer, run_server
from .config import ServerConfig

__all__ = ["RunningServer", "ServerConfig", "run_server"]
