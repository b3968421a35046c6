"""Persistence: players and tokens, game records with every move, ratings and their history."""
