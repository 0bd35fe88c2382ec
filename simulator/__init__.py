"""A simulator of an OvenMediaEngine-style server: management API, traffic model, LL-HLS/HLS publishing."""

__version__ = "0.1.0"
