"""The I/O adapters of the pure core: Redis, HTTP and files on one side, protocols on the other.

`bot.spec`, `bot.tokens` and `bot.report` take bytes, mappings and small protocols
(`JtiBinder`, `KeyCache`, `JwksFetcher`, `BenchmarkSource`) and return verdicts; the modules
here implement those protocols over Redis (`redis_tokens`), HTTP (`jwks_http`) and the file
system (`issuers_file`, `benchmarks_dir`). The worker runtime and the CLI wire them in; the
import-linter contracts in `pyproject.toml` keep the core from importing them.
"""
