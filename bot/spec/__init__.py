"""The pure validation core: strict YAML, the two dialects, semantic checks, diagnostics.

Nothing in this package performs I/O, reads a clock or touches Redis: bytes and mappings in,
reports out. That is what lets the same rules run in the bot, in `evalbot validate` and in a
pre-commit hook with identical verdicts.
"""
