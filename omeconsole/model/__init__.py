"""The console's domain types, at the bottom of the layers: no HTTP, no Textual, no I/O.

`cli > ui > core > api > model`: every layer may use these; they use nothing of the console.
"""
