"""All Hub I/O, through `huggingface_hub`: the `HubClient` seam, error kinds, benchmarks.

Public: `bot.hub.client` (`HubClient`, `HfHubClient`, `DatasetRevision`, `RepoCommit`),
`bot.hub.pulls` (`PullRequest`, `PrComment`, `PrCommit`, `PrStatus`, `parse_pull_request`),
`bot.hub.errors` (`HubTransientError`, `HubPermanentError`, `to_hub_error`),
`bot.hub.benchmarks` (`HubBenchmarkSource`, `BenchmarkCache`),
`bot.hub.provenance` (`token_commit_time`), `bot.hub.paths` (`classify_path`),
`bot.hub.diff` (`parse_diff`).
"""
