"""The queue between the receiver and the workers: what is queued, and the one way to queue it.

- `events`: the `PrEvent` a worker acts on and the `DedupeKey` that marks it seen (pure);
- `publishing`: the ledger of accepted events and the one way to queue them (accepted in the
  ledger, then sent with Celery), for every publisher: the receiver, reconciliation, the
  workers' sweep and the replay of parked events.

None of them imports another's internals for it: `workers` never imports `bot.receiver` (an
import-linter contract in `pyproject.toml`, run by `make lint`).
"""
