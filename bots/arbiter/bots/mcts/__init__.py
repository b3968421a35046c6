"""Monte-Carlo tree search: one bot for every game, over the engine's generic kernels."""
