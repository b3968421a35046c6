"""Arbiter: an online match server with a bot ladder for two-player board games."""

__version__ = "0.1.0"
