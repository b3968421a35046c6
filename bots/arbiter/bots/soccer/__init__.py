"""``soccer``: the paper-soccer bot — the source's step minimax and an alpha-beta over whole turns.

``evaluation`` holds the two judgements of a position (the source's heuristic and ours),
``turns`` lists the distinct turns of a position, ``search`` is the alpha-beta over them,
``source`` the source document's player, and ``brain`` the bot the runtime loads.
"""
