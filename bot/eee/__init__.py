"""Every Eval Ever datastores: the checks a submission PR gets, without I/O.

A datastore is a Hub dataset repo of EEE records, `data/<collection>/<developer>/<model>/
<uuid4>.json` with an optional `<uuid4>_samples.jsonl` beside it. Bytes (and chunk streams for
instance files) come in through a `bot.eee.submission.DatastoreFiles` the caller implements; a
`SubmissionReport` comes out. The modules, one job each: `paths` (the path rule, the folders a
record belongs in), `records` (strict JSON, the declared schema version, scores), `instances`
(instance files streamed: rows, ids, checksum), `pairing` (aggregate <-> instance file),
`dedupe` (EEE's normalised hash), `submission` (a PR's changes checked against the datastore),
`impact` (what a schema would do to records already accepted), `publish` (a record and its
samples laid out as a datastore holds them), `datastore_diagnostics` (every `EEE-*` code with
its message and fix), `comment_texts` (the texts of `comment`, the PR's living comment).
"""
