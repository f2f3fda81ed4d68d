"""All Hub I/O, through `huggingface_hub`: the `HubClient` seam, error kinds, benchmarks.

Public: `bot.hub.client` (`HubClient`, `HfHubClient`, `PullRequest`, `PrStatus`...),
`bot.hub.errors` (`HubTransientError`, `HubPermanentError`, `to_hub_error`),
`bot.hub.benchmarks` (`HubBenchmarkSource`, `BenchmarkCache`),
`bot.hub.provenance` (`token_commit_time`).
"""
