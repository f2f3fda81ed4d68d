"""Signed evidence that a result is verified: canonical claims, digests, issuers, verification.

Pure: tokens, entries and key sets in, verdicts out. The shared state and the network sit behind
small protocols (`JtiBinder`, `KeyCache`, `JwksFetcher`) implemented in `bot.adapters`.

`verify` gives the verdict on an entry's token: `jws` reads its form, `checks` its signature and
claims against what it vouches for (`claims`: the content claims, canonical JSON, digest), and
`binding` ties its jti to one repo and digest; `issuers` says who may sign, with which keys
(`jwks` parses them, `keycache` keeps them); `reasons` holds every reason code with its text;
`offline` wires verification for the command line; `signer` is the reference signer.
"""
