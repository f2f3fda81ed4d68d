"""Verdicts to badges to the PR comment's markdown; escaping of everything a user wrote."""
