"""omeconsole: a terminal console for OvenMediaEngine-style live-streaming servers."""

__version__ = "0.1.0"
