"""Signed evidence that a result is verified: canonical claims, digests, issuers, verification.

Pure: tokens, entries and key sets in, verdicts out. The shared state and the network sit behind
small protocols (`JtiBinder`, `KeyCache`, `JwksFetcher`) implemented in `bot.adapters`.

`verify` checks a token (with the canonical claims and digest it vouches for, the strict JSON of
its segments and the jti binding); `issuers` says who may sign, with which keys (`jwks` parses
them, `keycache` keeps them); `reasons` holds every reason code with its text; `offline` wires
verification for the command line; `signer` is the reference signer for issuers and tests.
"""
