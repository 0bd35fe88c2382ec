"""The Textual console: a live view of virtual hosts, applications and streams.

Everything here draws what the console core (`omeconsole.core`) gathered; no HTTP happens in this package.
"""
