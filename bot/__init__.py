"""evalbot: guards evaluation results on the Hugging Face Hub."""

__version__ = "0.1.0"
