"""The vocabulary below the store: a match's clock, its rating pool and Glicko-2.

Pure rules with no I/O and no server state; the store, the settings and every feature use them.
"""
