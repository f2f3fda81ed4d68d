"""Celery app, thin tasks, and the pipeline tying hub, validation, tokens and report together."""
