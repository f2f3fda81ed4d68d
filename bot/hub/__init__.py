"""The only code that talks to the Hub, through `huggingface_hub`."""
