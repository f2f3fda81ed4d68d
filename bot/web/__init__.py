"""The bot's web pages for people: landing, validation playground, PR history, status.

Served by `evalbot web`, a process of its own beside the receiver (docs/web.md says why),
rendered on the server with Jinja2 (autoescaping on), no JavaScript, one small stylesheet.
"""
