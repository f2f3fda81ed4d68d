"""The I/O adapters of the pure core: HTTP and files on one side, protocols on the other.

`bot.validation`, `bot.tokens` and `bot.report` take bytes, mappings and small protocols
(`JtiBinder`, `KeyCache`, `JwksFetcher`, `BenchmarkSource`) and return verdicts; the modules
here implement those protocols over HTTP (`jwks_http`) and the file system (`issuers_file`,
`benchmarks_dir`); the worker runtime implements the Redis ones (`workers.runtime`) and wires
them in, as the CLI does. The import-linter contracts in `pyproject.toml` keep the core from
importing them.
"""
