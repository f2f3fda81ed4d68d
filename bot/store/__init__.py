"""The bot's state in Redis: every key, and every reader of the state others show.

The receiver, the workers, reconciliation and the web pages share one Redis, so a key is an
interface between processes. Each is spelled once (`keys`), and each piece of state that more
than one process reads has its one reader here, beside its writer where the format is shared:

- `keys`: every key the bot writes, with who writes and who reads it;
- `history`: the PR history the workers record and the web pages list;
- `deadletters`: parked events (the workers park, `evalbot parked`/`replay` and the pages read);
- `workerbeats`: the workers' heartbeats and the fleet's status (`evalbot status`, `/readyz`);
- `workerstats`: the workers' counters and the queue's depth (`/metrics`, the status page).

Nothing here imports a process (`bot.receiver`, `workers`, `bot.web`, `bot.cli`): each of them
imports this package instead (import-linter contracts in `pyproject.toml`).
"""
