"""Verdicts to badges to the PR comment's markdown; escaping of everything a user wrote.

`comment` renders the PR comment (with the badges and the escaping of user text),
`comment_texts` holds every text it and the validation report use; `validation_formats` is
`evalbot validate`'s report (text, JSON, annotations); `standing_and_clashes` and
`benchmark_impact` render the comment's sections about other PRs, collections and benchmark
changes, with their texts in `standing_and_clashes_texts`.
"""
