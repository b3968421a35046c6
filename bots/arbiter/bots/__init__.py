"""Bots: separate processes that play on an Arbiter server as ordinary clients."""

# The engine keys numba's cache folder by the kernels' sources (ours included, through the
# ``arbiter.kernels`` entry point); it must do so before any kernel of a bot is compiled.
import arbiter.engine  # noqa: F401
