"""Verdicts to badges to the PR comment's markdown; escaping of everything a user wrote.

`comment` renders the PR comment (with the badges and the escaping of user text), `texts` holds
every text it and the validation report use; `validation` is `evalbot validate`'s report (text,
JSON, annotations); `campaign` and `benchmark_impact` render the comment's sections about other
PRs, collections and benchmark changes, with their texts in `campaign_texts`.
"""
