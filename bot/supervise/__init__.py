"""Run the whole bot in one container (a Hugging Face Docker Space): `python -m bot.supervise`
decides what to start from the environment and hands the processes to supervisord
(`supervisord.conf`); docs/deploy.md, "On a Hugging Face Space", and docs/decisions.md,
"The Space's processes"."""
