"""The server's subcommands: ``arbiter serve`` and the database tools (player, export, leaderboard)."""
