"""`evalbot submit` as a library: result entries in, one PR with verified entries out
(docs/frameworks.md, "From Python")."""

from bot.submit.api import Submission, submit
from bot.submit.converted import ConvertedOutput
from bot.submit.errors import SubmitError

__all__ = ["ConvertedOutput", "Submission", "SubmitError", "submit"]
