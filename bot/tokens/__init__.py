"""Signed evidence that a result is verified: canonical claims, digests, issuers, verification.

Pure except for key fetching (`jwks`), which lives at the edge of this package.
"""
