"""Who may come in and how much: people's accounts and their HTTP API, bans, attempt limits, connection
caps and the limit on heavy reads. ``play.guard`` applies them to the sessions at the door.
"""
