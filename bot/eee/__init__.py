"""Every Eval Ever datastores: the checks a submission PR gets, without I/O: bytes (and chunk
streams for samples files) in through a `DatastoreFiles` the caller implements, a
`SubmissionReport` out (docs/eee.md)."""
