"""The webhook receiver: authenticate, parse, filter, dedupe, enqueue; never the work itself."""
