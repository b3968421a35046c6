"""Per-connection rate limit: a token bucket that refills at ``rate`` per second up to ``burst``.

Past the limit, messages are dropped (the first of a run gets a rate_limited error); the bucket
goes into debt by one token per dropped message, and a client whose debt exceeds ``tolerance``
is flooding and gets closed. A client that slows down pays its debt back at ``rate`` per second.
"""

from __future__ import annotations

from enum import Enum


class Verdict(Enum):
    ALLOW = 0
    DROP_AND_WARN = 1  # the first message of an over-limit run: answer rate_limited
    DROP = 2  # later ones: drop silently (answering each would amplify the flood)
    CLOSE = 3  # debt beyond the tolerance: close the connection


class TokenBucket:
    __slots__ = ("burst", "last", "rate", "tokens", "tolerance")

    def __init__(self, rate: float, burst: int, tolerance: int, now: float) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tolerance = tolerance
        self.tokens = float(burst)
        self.last = now

    def take(self, now: float) -> Verdict:
        """Account for one message arriving at ``now``."""
        tokens = self.tokens + (now - self.last) * self.rate
        if tokens > self.burst:
            tokens = self.burst
        self.last = now
        if tokens >= 1.0:
            self.tokens = tokens - 1.0
            return Verdict.ALLOW
        warn = tokens >= 0.0
        tokens -= 1.0
        self.tokens = tokens
        if tokens < -self.tolerance:
            return Verdict.CLOSE
        return Verdict.DROP_AND_WARN if warn else Verdict.DROP
