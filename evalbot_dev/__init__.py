"""evalbot's development tools, run from a checkout and never shipped in the wheel.

The Hub emulator (`python -m evalbot_dev.emulator`), the local stack the tests and the demo
start (`evalbot_dev.devstack`) and the demo (`make demo`: `python -m evalbot_dev.demo`).
Product code never imports this package (the import contracts in pyproject.toml check it):
the emulator plays the Hub, and sharing code with the product would hide the product's bugs.
"""
