"""The token issuer (`evalbot issuer`): CI and Hub identities in, one signed verify token per
validated result entry out (docs/issuer.md; the token contract: docs/verification.md)."""
