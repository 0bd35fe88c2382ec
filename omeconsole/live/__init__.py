"""A running console session without Textual: what the screens read and listen to, below `ui`.

The session as the screens see it (`session.LiveSession`: engine, ticker, view options, notes), the ad
breaks on tree rows (`ad_board`), the alert rules run on the console's own readings (`alert_watch`) and
the desktop notices they ring (`alert_notices`), the history store read in front of the charts
(`recorded_past`) and for the ended streams (`recorded_ended`) and written from every poll
(`history_recording`), the schedules the console runs itself (`console_scheduler`) and their next
breaks (`next_breaks`), and a fleet's sessions (`fleet`). Threads, sqlite and asyncio tasks, no widget:
`ui` imports this layer, never the other way (the layers contract in pyproject.toml), and it imports no
Textual (the "Only the UI knows Textual" contract).
"""
