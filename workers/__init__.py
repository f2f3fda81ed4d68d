"""Celery app, thin tasks, and the pipeline tying hub, spec, tokens and report together."""
