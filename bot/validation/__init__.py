"""The pure validation core: strict YAML, the two dialects, semantic checks, diagnostics.

Nothing in this package performs I/O, reads a clock or touches Redis: bytes and mappings in,
reports out. That is what lets the same rules run in the bot, in `evalbot validate` and in a
pre-commit hook with identical verdicts.

What a results file goes through: `yamlload` reads it (strict YAML 1.2, a position for every
value, kept in the terms of `positions`; what YAML 1.1 reads otherwise noted with `yaml11`),
`validate` checks it: the entry alone (`entry`), against its benchmark
(`against_benchmark`), across files (`repo_rules`), the policy (`policy`); all speak the types
of `model` and report through `diagnostics` (with every code's text in `catalogue`). Beside
them: `benchmark` (a benchmark's eval.yaml), `limits` (the caps), `clashes` and `impact`
(results across PRs, and what an eval.yaml change does to them), `eee` (Every Eval Ever
records), `frameworks` (the Hub's framework list), `yamldump` (entries written back as YAML).
"""
