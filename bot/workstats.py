"""Where the workers count their runs and keep parked events in Redis: the key names the
workers write (`workers.deadletters`) and the receiver's `/metrics` reads, kept in one place.
"""

from __future__ import annotations

#: A list of parked events (JSON, newest first), capped.
DEAD_LETTERS = "evalbot:dead-letters"
#: A hash of counters: `outcome:<outcome>` per finished run, `parked:<reason>` per parked event.
STATS = "evalbot:stats"
OUTCOME_PREFIX = "outcome:"
PARKED_PREFIX = "parked:"
