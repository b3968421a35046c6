"""Bots: separate processes that play on an Arbiter server as ordinary clients."""
