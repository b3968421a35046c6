"""What finished games leave, and what is computed from them: the rating updates of a result, the
restart rule for games a stop left unfinished, text records and game files, a player's report, and
``arbiter check``, which replays every stored game by the same rules.
"""
