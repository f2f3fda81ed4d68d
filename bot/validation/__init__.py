"""The pure validation core: strict YAML, the two dialects, semantic checks, diagnostics. No I/O,
no clock, no Redis, so the bot, `evalbot validate` and the pre-commit hook reach the same
verdicts (the path of a file: docs/architecture.md)."""
