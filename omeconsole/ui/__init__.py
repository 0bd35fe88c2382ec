"""The Textual console: a live view of virtual hosts, applications and streams.

Everything here draws what the console core (`omeconsole.core`) gathered, through the live session
(`omeconsole.live`); no HTTP happens in this package. Every module here uses Textual (or Rich): headless
code lives below, in `omeconsole.live` (tests/unit/test_ui_textual_only.py checks it).
"""
