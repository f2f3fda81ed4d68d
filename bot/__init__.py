"""evalbot: guards evaluation results on the Hugging Face Hub."""

from __future__ import annotations


def __getattr__(name: str) -> str:
    # The version is written once, in pyproject.toml; read from the installed metadata when
    # asked, so that `import bot` (every command's start) does not pay for the lookup.
    if name == "__version__":
        from importlib import metadata  # noqa: PLC0415 - only when asked

        return metadata.version("evalbot")
    raise AttributeError(f"module 'bot' has no attribute {name!r}")
