"""The one place that fetches a JWKS over HTTP: same-origin redirects, size and time caps
(docs/security.md, "JWKS caching")."""

from __future__ import annotations

import time
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import httpx2

from bot.tokens.jwks import (
    FETCH_TIMEOUT_S,
    MAX_JWKS_BYTES,
    MAX_REDIRECTS,
    JwksFetchError,
    check_jwks_url,
)


def _origin(url: str) -> tuple[str, str | None, int | None]:
    parts = urlsplit(url)
    return parts.scheme, parts.hostname, parts.port


@dataclass
class HttpxJwksFetcher:
    """Fetches a JWKS with httpx2 (the client `huggingface_hub` sends through, so the bot has
    one HTTP client family): same-origin redirects only, size and total-time caps."""

    timeout_s: float = FETCH_TIMEOUT_S
    max_bytes: int = MAX_JWKS_BYTES
    client: httpx2.Client | None = None

    def __call__(self, url: str) -> bytes:
        check_jwks_url(url)
        deadline = time.monotonic() + self.timeout_s
        client = self.client or httpx2.Client(follow_redirects=False, timeout=self.timeout_s)
        try:
            current = url
            for _ in range(MAX_REDIRECTS + 1):
                body, location = self._get_once(client, current, deadline)
                if location is None:
                    return body
                target = urljoin(current, location)
                if _origin(target) != _origin(url):
                    raise JwksFetchError(f"refusing redirect to another host: {target}")
                current = target
            raise JwksFetchError("too many redirects")
        except httpx2.HTTPError as error:
            raise JwksFetchError(f"fetching {url} failed: {error}") from error
        finally:
            if self.client is None:
                client.close()

    def _get_once(
        self, client: httpx2.Client, url: str, deadline: float
    ) -> tuple[bytes, str | None]:
        # identity encoding: the size cap then bounds what is read, not a decompressed bomb
        headers = {"Accept": "application/json", "Accept-Encoding": "identity"}
        with client.stream("GET", url, headers=headers) as response:
            if response.is_redirect:
                return b"", response.headers.get("location", "")
            if response.status_code != 200:
                raise JwksFetchError(f"{url} answered {response.status_code}")
            declared = response.headers.get("content-length")
            if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
                raise JwksFetchError(f"{url} is larger than {self.max_bytes} bytes")
            chunks: list[bytes] = []
            size = 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > self.max_bytes:
                    raise JwksFetchError(f"{url} is larger than {self.max_bytes} bytes")
                if time.monotonic() > deadline:
                    raise JwksFetchError(f"{url} took longer than {self.timeout_s} s")
                chunks.append(chunk)
            return b"".join(chunks), None
