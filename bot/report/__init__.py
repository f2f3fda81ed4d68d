"""Verdicts to badges to the PR comment's markdown, the validation report's formats, and the
escaping of everything a user wrote."""
