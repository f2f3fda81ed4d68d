"""The token issuer (`evalbot issuer`): machine identities in, signed verify tokens out.

A framework's CI job authenticates (an OIDC ID token from its CI provider, a Hub access token,
or an OAuth client-credentials pair), is mapped to one integration of
`config/integrations.yaml`, and asks for one token per result entry. The issuer validates each
entry against its benchmark at the pinned revisions, computes the claims and digest itself
(`bot.tokens.claims`) and signs them (`bot.tokens.signer`), so the bot verifies them unchanged
(docs/verification.md). Operators: docs/issuer.md.
"""
