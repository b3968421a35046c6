"""Helpers that more than one test folder uses: the protocol client (``wsclient``), a real ``arbiter serve``
process (``serve_process``), ``arbiter check`` on a store (``store_check``), the browser's HTTP client
(``accounts``), a guest's moves in the page (``guest``) and where the benchmark scripts are. A folder's own
helpers stay beside its tests; the PostgreSQL and Redis servers the tests start are arbiter.soak.services
(the benchmarks start them too)."""
