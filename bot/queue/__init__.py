"""The queue between the receiver and the workers: what is queued (`events`), and the one way to
queue it (`publishing`)."""
