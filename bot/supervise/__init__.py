"""Run the whole bot in one container: `python -m bot.supervise`.

A Hugging Face Docker Space runs ONE container on one port, with no docker-compose. The
supervisor starts a local `redis-server` with AOF (when no `REDIS_URL` is given), one receiver
on `$PORT` and N Celery workers, forwards SIGTERM to them (workers get a warm shutdown, Redis
stops last so their acks land), and exits non-zero as soon as any child dies, so the platform
restarts the whole container instead of leaving it half alive.

`plan` decides what to run (pure, tested with plain inputs); `runner` runs it (I/O).
"""
