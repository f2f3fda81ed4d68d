"""Every message the supervisor prints, kept together."""

from __future__ import annotations

PREFIX = "evalbot-supervise"

NO_REDIS_BINARY = (
    "REDIS_URL is not set and no redis-server was found ({binary!r}); install redis-server "
    "or point REDIS_URL at a Redis"
)
INVALID_CONFIG = "{prefix}: invalid settings:\n  - {problems}"

CANNOT_LISTEN = (
    "cannot listen on {host}:{port} ({variable}): {error}; stop what uses the port or set "
    "{variable} to another one"
)
CANNOT_LISTEN_INTERNAL = "cannot listen on {host}:{port} (the web pages' loopback port): {error}"
BAD_LISTEN_FD = (
    "EVALBOT_LISTEN_FD={fd} is not a listening TCP socket this process inherited ({error}); "
    "unset it to bind PORT instead"
)
LISTENING = "{name} will serve on port {port} (a socket bound here, passed down with --fd)"
STARTED = "started {name} (pid {pid}): {command}"
EMBEDDED_REDIS = (
    "no REDIS_URL given: running an embedded redis-server on 127.0.0.1:{port}, AOF in {directory}"
)
REDIS_NOT_READY = "embedded redis-server did not answer PING within {seconds:.0f} s"
CHILD_DIED = "{name} (pid {pid}) exited with status {status}; stopping the others"
SIGNAL_RECEIVED = "received {signal}; stopping children"
STOPPING = "sending SIGTERM to {names}"
KILLING = "{name} (pid {pid}) still running after {seconds:.0f} s; sending SIGKILL"
STOPPED = "all children stopped; exiting with status {status}"
