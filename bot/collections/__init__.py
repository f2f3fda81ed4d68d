"""Collection gates: named, versioned sets of benchmarks with thresholds and weights.

A collection (EvalHub's shape, `docs/collections.md`) says which benchmark results a model must
have, the bar for each, and a bar for their weighted aggregate. This package is pure: collection
bytes, benchmark definitions (through a `BenchmarkSource`) and validated result reports in,
diagnostics and a two-tier gate result out. Reading directories and the Hub happens at the edges
(`bot.adapters.collections_store`, `bot.hub.repo_results`).
"""
