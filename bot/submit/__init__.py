"""`evalbot submit` as a library: result entries in, one PR with verified entries out.

    from bot.submit import submit
    outcome = submit(entries, model_repo="acme/llama-9b", issuer_url="https://tokens.example")
    print(outcome.pr_url)

The CI identity is found in the environment (`bot.submit.credentials`), tokens come from the
issuer (`bot.submit.issuerclient`), files are merged with the repo's main
(`bot.submit.merge`) and the PR is opened or updated (`bot.submit.pulls`). docs/frameworks.md.
"""

from bot.submit.api import Submission, submit
from bot.submit.converted import ConvertedOutput
from bot.submit.errors import SubmitError

__all__ = ["ConvertedOutput", "Submission", "SubmitError", "submit"]
