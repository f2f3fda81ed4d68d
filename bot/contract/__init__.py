"""The contract between the receiver and the workers: what is queued, where, and how.

- `events`: the `PrEvent` a worker acts on and the `DedupeKey` that marks it seen (pure);
- `messages`: the Celery message that carries an event, and the task name;
- `publish`: the one way to queue events, the message then its dedupe key, atomically.

The receiver, the workers, reconciliation and the replay of parked events all import this
package, and none of them imports another's internals for it: `workers` never imports
`bot.receiver` (an import-linter contract in `pyproject.toml`, run by `make lint`).
"""
