"""Run the whole bot in one container (a Hugging Face Space) under supervisord (docs/deploy.md,
"On a Hugging Face Space"; docs/decisions.md, "The Space's processes")."""
