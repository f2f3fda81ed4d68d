"""`python -m bot.supervise.healthcheck`: exit 0 when the receiver's `/healthz` answers 200 (the
image's `HEALTHCHECK`; stdlib only, since the slim image has no curl)."""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request
from collections.abc import Mapping

from bot.supervise.plan import DEFAULT_PORT


def healthz_url(environ: Mapping[str, str]) -> str:
    port = environ.get("PORT", "").strip() or str(DEFAULT_PORT)
    return f"http://127.0.0.1:{port}/healthz"


def main() -> int:
    url = healthz_url(os.environ)
    try:
        with urllib.request.urlopen(url, timeout=4) as response:  # noqa: S310 - fixed http URL
            status: int = response.status
    except (urllib.error.URLError, OSError) as error:
        print(f"unhealthy: {url}: {error}", file=sys.stderr)
        return 1
    return 0 if status == 200 else 1


if __name__ == "__main__":
    raise SystemExit(main())
