"""Soaks: the whole stack run for a while under real traffic, then checked for what must hold.

``python -m arbiter.soak.ladder`` runs ``arbiter up``'s ladder; ``python -m arbiter.soak.public``
the server as the public meets it (guests, browsers' sockets, bad frames, reconnects). The tests
run both on a short load (tests/run/test_soak.py, tests/run/test_public_soak.py).

``arbiter.soak.services`` starts throwaway PostgreSQL, Redis and HAProxy servers on free loopback ports:
what the tests and the benchmarks run a store or a cluster on (benchmarks import nothing of the tests).
"""
