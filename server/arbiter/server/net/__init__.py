"""The plumbing of the one port: websocket connections, the HTTP route table, cookies, client addresses.

Nothing here knows a player, a match or the store.
"""
