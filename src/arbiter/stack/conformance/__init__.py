"""``arbiter conformance``: the protocol's corners, checked and shown as a table a stranger can act on.

Against a server (``ws://HOST/``) it is a client and checks the server keeps SPEC.md; against a
bot (``--bot -- COMMAND …``) it runs a throwaway server, starts the bot pointed at it through a
relay that sees and can cut its connection, plays it with scripted opponents and checks the bot.
"""
