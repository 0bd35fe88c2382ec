"""`omeconsole serve`: the console in a browser (textual-serve), one console process per browser session.

The web layer only: it imports neither the UI nor the simulator. Each session runs the console as a child
process (`python -m omeconsole.cli.main ... ui|demo`) whose screen textual-serve's page draws with xterm.js.
This layer decides who gets a console (loopback, or a password), how many at once, for how long idle, and
whether they may send.
"""
