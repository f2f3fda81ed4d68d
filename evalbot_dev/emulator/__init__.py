"""A local Hub for development, demos and tests. The production path never imports it."""
