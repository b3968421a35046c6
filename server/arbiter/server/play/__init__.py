"""Live play on a node: the door (guard), a connection's session and its rate limit, presence, the
lobby, challenges and seeks, and the matches with their pure state machine.
"""
