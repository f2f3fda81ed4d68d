"""The bot's web pages for people (`evalbot web`, docs/web.md): rendered on the server,
autoescaped, no JavaScript."""
