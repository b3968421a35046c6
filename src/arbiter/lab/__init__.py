"""The lab: the tools that measure the bots' strength and tune them, apart from the product.

Each module is a command (``python -m arbiter.lab.NAME --help``): series between bots in process
(gomoku_strength, mcts_strength, soccer_strength), against a pbrain engine (gomoku_gauntlet) and
its judgement of our decisions (gomoku_judge), the fit of the gomoku evaluation that writes the
shipped ``arbiter/bots/gomoku/fitted_eval.json`` (gomoku_tune), and the ladder scheduler's
simulation (ladder_schedule). ``openings/`` holds the opening files the series replay and
``games/`` the game logs the judge and benchmarks/gomoku_table.py read. Results: docs/STRENGTH.md.
"""
