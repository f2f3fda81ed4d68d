"""The I/O adapters of the pure core: the protocols `bot.validation`, `bot.tokens` and
`bot.report` take, over HTTP and files (docs/architecture.md, "The layers")."""
