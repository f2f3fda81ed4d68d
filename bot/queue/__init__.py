"""The queue between the receiver and the workers: what is queued (`events`), the one way to
queue it (`publishing`), and the receiver's batching of it (`enqueuer`)."""
