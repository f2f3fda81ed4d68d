"""All Hub I/O, through `huggingface_hub`: the `HubClient` seam, error kinds, benchmarks.

Public: `bot.hub.client` (`HubClient`, `HfHubClient`, `DatasetRevision`, `RepoCommit`),
`bot.hub.timeouts` (`use_hub_timeout`), `bot.hub.capped_read` (`read_capped`),
`bot.hub.pulls` (`PullRequest`, `PrComment`, `PrCommit`, `PrStatus`, `parse_pull_request`,
`parse_diff`, `classify_path`), `bot.hub.errors` (`HubTransientError`, `HubPermanentError`,
`to_hub_error`), `bot.hub.sources` (`HubBenchmarkSource`, `BenchmarkCache`,
`token_commit_time`).
"""
