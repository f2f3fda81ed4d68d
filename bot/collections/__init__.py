"""Collection gates: named, versioned sets of benchmarks with thresholds and weights
(docs/collections.md). Pure: bytes, benchmarks and validated reports in, diagnostics and a
two-tier gate result out; files and the Hub are read at the edges."""
