"""Signed evidence that a result is verified: canonical claims, digests, issuers, verification.

Pure: tokens, entries and key sets in, verdicts out. The shared state and the network sit behind
small protocols (`JtiBinder`, `KeyCache`, `JwksFetcher`) implemented in `bot.adapters`.
"""
