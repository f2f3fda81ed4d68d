"""Build the Dockerfile and run docker-compose.yml for real, on a machine with no Docker engine.

The image is built the way Docker would build it, instruction by instruction, in a
debootstrapped Debian 12 root that stands in for `python:3.11-slim`; its "containers" are
chroot processes in namespaces of their own (mount, pid, uts, ipc, one network namespace per
scenario). docs/deploy.md, "How the image is checked without Docker", says what this proves
and what it does not. Development tooling: nothing in `bot` imports it.
"""
