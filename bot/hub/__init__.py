"""All Hub I/O, through `huggingface_hub`: the `HubClient` seam, error kinds, benchmarks, records
(docs/hub.md)."""
