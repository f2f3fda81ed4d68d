"""Verdicts to badges to the PR comment's markdown; escaping of everything a user wrote.

`comment` renders the PR comment, `badges` decides a result's badges, `escaping` makes user text
inert, `counts` counts a PR's results and problems, `help_reply` and `unchecked_comment` render
the `help` reply and the comment of a head that was not checked; `comment_texts` holds every
text they and the validation report use; `validation_formats` is
`evalbot validate`'s report (text, JSON, annotations); `standing_and_clashes` and
`benchmark_impact` render the comment's sections about other PRs, collections and benchmark
changes, with their texts in `standing_and_clashes_texts`.
"""
