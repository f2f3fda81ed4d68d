# evalbot: one image for every role.
#   docker run IMAGE                          -> evalbot serve on :7860 (the receiver)
#   docker run IMAGE evalbot worker ...       -> a Celery worker
#   on a Hugging Face Space (SPACE_ID set), or `docker run IMAGE supervise`
#                                             -> everything in one container (bot.supervise)
# Settings (and secrets) come from the environment at run time; none is baked in.
# docs/deploy.md explains every mode.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# redis-server: the embedded broker of the one-container (Space) mode; tini: PID 1 that reaps
# orphans and passes signals on.
RUN apt-get update \
    && apt-get install -y --no-install-recommends redis-server tini \
    && rm -rf /var/lib/apt/lists/*

# A Space runs the container as uid 1000; use the same id everywhere.
RUN useradd --create-home --uid 1000 --shell /usr/sbin/nologin evalbot

WORKDIR /app
# The server install (`evalbot[server]`, no [dev] extras), exactly its lock with its hashes, in
# a layer of their own that a code change does not rebuild; the build backend from its own
# lock, so the build without isolation below downloads nothing (docs/operating.md,
# "Dependencies").
COPY requirements/server.txt requirements/build.txt ./requirements/
RUN pip install --require-hashes -r requirements/build.txt \
    && pip install --require-hashes -r requirements/server.txt \
    && rm -rf requirements
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY workers ./workers
# The source tree goes once installed: with WORKDIR /app, `python -m bot...` would otherwise
# import /app/bot instead of the installed package that the `evalbot` script runs, two copies
# of the code in one image.
RUN pip install --no-deps --no-build-isolation . \
    && rm -rf build ./*.egg-info bot workers pyproject.toml README.md

COPY config ./config
COPY deploy/space/entrypoint.sh /usr/local/bin/evalbot-entrypoint
# chmod: files uploaded to a Space repository carry no mode (the Hub's commits name none), so
# the script arrives without its x bit. var/: the embedded Redis's AOF when no persistent /data
# volume is mounted.
RUN chmod 0755 /usr/local/bin/evalbot-entrypoint \
    && mkdir -p /app/var && chown evalbot:evalbot /app/var

USER evalbot

ENV PORT=7860 \
    EVALBOT_CONFIG_DIR=/app/config \
    HF_HUB_DISABLE_TELEMETRY=1

EXPOSE 7860

HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-m", "bot.supervise.healthcheck"]

ENTRYPOINT ["tini", "--", "evalbot-entrypoint"]
CMD ["evalbot", "serve", "--host", "0.0.0.0", "--port", "7860"]
