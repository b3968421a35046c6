"""The ladder and its standings: the queue per game, pairing, balanced openings (with their books),
leaderboards and crosstables over HTTP, and the BayesElo fit beside Glicko-2.
"""
