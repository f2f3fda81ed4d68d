#!/bin/sh
# The image's entry point (run under tini, which reaps orphans and forwards signals).
#
# On a Hugging Face Space (the platform sets SPACE_ID), or with EVALBOT_SUPERVISE=1, or when
# the command is "supervise": run the whole bot in this one container with `python -m
# bot.supervise` (embedded redis-server when REDIS_URL is unset, receiver on $PORT, workers).
# Otherwise run the given command: `evalbot serve ...` (the default) or `evalbot worker ...`.
set -eu

if [ "${1:-}" = "supervise" ]; then
    exec python -m bot.supervise
fi
if [ -n "${SPACE_ID:-}" ] || [ "${EVALBOT_SUPERVISE:-0}" = "1" ]; then
    exec python -m bot.supervise
fi
exec "$@"
