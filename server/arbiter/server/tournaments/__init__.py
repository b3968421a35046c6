"""Tournaments: round robins, Swiss events and leagues with promotion, run on the server."""
