"""The pure validation core: strict YAML, the two dialects, semantic checks, diagnostics.

Nothing in this package performs I/O, reads a clock or touches Redis: bytes and mappings in,
reports out. That is what lets the same rules run in the bot, in `evalbot validate` and in a
pre-commit hook with identical verdicts.

What a results file goes through: `yamlload` reads it (strict YAML 1.2, a position for every
value), `validate` checks it (the entry alone, against its benchmark, across files, the
policy), speaking the types of `model` and reporting through `diagnostics` (every diagnostic
code with its text). Beside them: `benchmark` (a benchmark's eval.yaml), `limits` (the caps),
`clashes` and `impact` (results across PRs, and what an eval.yaml change does to them), `eee`
(Every Eval Ever records), `frameworks` (the Hub's framework list), `yamldump` (entries written
back as YAML).
"""
