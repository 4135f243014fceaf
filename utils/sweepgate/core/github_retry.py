"""Bounded retries of GitHub API requests: PyGithub's GithubRetry (rate limits, 5xx, timeouts)
with a few tries, no wait over a cap and one line on stderr before each wait.

Imported with PyGithub, by ``core.github`` (``_client`` sets the tries and the cap).
"""

from __future__ import annotations

import math
import sys
import time

from github import GithubRetry
from github.GithubException import RateLimitExceededExceedsMaxWait
from urllib3.exceptions import NewConnectionError

RATE_LIMIT_STATUSES = (403, 429)  # GitHub answers a primary or secondary rate limit with either


class BoundedRetry(GithubRetry):
    """GithubRetry that never waits longer than ``max_rate_limit_wait`` seconds: GithubRetry caps the
    wait for a rate-limit reset only, so a longer Retry-After (429, a secondary rate limit) raises
    RateLimitExceededExceedsMaxWait here instead of sleeping through it."""

    def sleep(self, response=None) -> None:
        wait = self._wait(response)
        if response is not None and self.max_rate_limit_wait is not None and wait > self.max_rate_limit_wait:
            raise RateLimitExceededExceedsMaxWait(response.status, None, dict(response.headers), wait=wait)
        done = len(self.history)
        print(f"sweepgate: {self._reason()}: {f'waiting {math.ceil(wait)} s' if wait > 0 else 'retrying'} "
              f"(try {done + 1} of {done + 1 + self._left()})", file=sys.stderr, flush=True)
        if wait > 0:
            time.sleep(wait)

    def is_retry(self, method: str, status_code: int, has_retry_after: bool = False) -> bool:
        """Also a rate limit's answer to a method not retried otherwise (a comment's POST, which a 5xx
        may have made anyway): a rate limit refused it, so nothing was made."""
        if status_code in RATE_LIMIT_STATUSES and not self._is_method_retryable(method):
            method = "GET"
        return super().is_retry(method, status_code, has_retry_after)

    def _left(self) -> int:
        """Retries left: of ``total``, or of ``read`` after a timeout when that is fewer."""
        last = self.history[-1] if self.history else None
        read_error = last is not None and last.error is not None and self._is_read_error(last.error)
        return min(n for n in (self.total, self.read if read_error else None) if n is not None)

    def _wait(self, response) -> float:
        """What urllib3 would sleep: the Retry-After header, else the backoff (a rate limit's reset)."""
        after = self.get_retry_after(response) if response is not None and self.respect_retry_after_header else None
        return after if after is not None else self.get_backoff_time()

    def _reason(self) -> str:
        last = self.history[-1] if self.history else None
        if last is None:
            return "GitHub API request failed"
        if last.status in RATE_LIMIT_STATUSES:
            return "GitHub API rate limit"
        if last.status:
            return f"GitHub API answered {last.status}"
        if isinstance(last.error, NewConnectionError):  # refused, or a name that does not resolve
            return f"cannot connect to the GitHub API ({connection_failure(last.error)})"
        return f"GitHub API did not answer ({type(last.error).__name__})"


def connection_failure(exc: BaseException) -> str:
    """The innermost system error's words ("Connection refused", "Name or service not known")
    under requests' and urllib3's wrappers, else the error as it reads."""
    seen, at = set(), exc
    while at is not None and id(at) not in seen:
        seen.add(id(at))
        if isinstance(at, OSError) and at.strerror:
            return at.strerror
        inner = [a for a in getattr(at, "args", ()) if isinstance(a, BaseException)]
        at = inner[0] if inner else (getattr(at, "reason", None) or at.__cause__ or at.__context__)
    return str(exc)
