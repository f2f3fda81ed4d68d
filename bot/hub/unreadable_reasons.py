"""User-facing texts of `bot.hub`: why a file the Hub answered for could not be read."""

from __future__ import annotations

TOO_MANY_REDIRECTS = "the Hub redirected more than {count} times (a redirect loop?)"
REDIRECT_WITHOUT_LOCATION = "the Hub answered {status} without saying where the file is"
REDIRECT_SCHEME = "the Hub redirected to a `{scheme}:` URL; only http(s) is followed"
REDIRECT_INVALID = "the Hub redirected to an invalid URL"
CDN_REFUSED = "the file's storage ({host}) answered {status} to the Hub's redirect"
CDN_UNAVAILABLE = "the file's storage ({host}) answered {status}; retrying"
DECLARED_TOO_LARGE = "the Hub declares {size} bytes, over the cap of {limit} bytes"
