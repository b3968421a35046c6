"""What runs the server and the bots together: ``arbiter up`` (the whole stack, supervised) and
``arbiter series`` (two bots over a private server, scored)."""
