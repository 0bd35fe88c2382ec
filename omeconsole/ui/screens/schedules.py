"""The break schedules: each with its stream, template, timing and next run, who runs them, what they did.

Read from the config and the schedule file (as `omeconsole schedule list` does) on every clock tick, so an
edit made with `omeconsole schedule …` shows within a second. The line above the table says who runs the
schedules: an `omeconsole scheduler` (the lock's holder, named), this console, or nobody — then `R` runs
them here, with the same runner, lock, rules and audit log as the headless one (and `R` again stops them).
Below the table, the newest things the console's runner said. Escape or S closes.
"""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import DataTable, Static
from textual.widgets.data_table import ColumnKey

from omeconsole.core.config import config_path
from omeconsole.core.polling.engine import EngineUpdate
from omeconsole.core.schedule.edits import Files
from omeconsole.core.schedule.events import RunnerEvent, run_time
from omeconsole.core.schedule.store import Book, schedule_file_path
from omeconsole.core.text import visible
from omeconsole.live.console_scheduler import ConsoleScheduler, console_scheduler
from omeconsole.live.session import LiveSession
from omeconsole.model.paths import NodePath
from omeconsole.ui.actions import bindings
from omeconsole.ui.engine_feed import EVERYTHING
from omeconsole.ui.screens.live_screen import LiveScreen
from omeconsole.ui.widgets.fitted_footer import FittedFooter
from omeconsole.ui.widgets.status_bar import Banner, StatusBar

COLUMNS = ("schedule", "stream", "template", "when", "next run", "in", "state")
EVENTS_SHOWN = 8


def _until(run: datetime | None, now: datetime) -> str:
    if run is None:
        return "—"
    seconds = max(0, int((run - now).total_seconds()))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


class SchedulesScreen(LiveScreen):
    BINDINGS = bindings("close_schedules", "run_schedules")

    def __init__(self, live: LiveSession) -> None:
        super().__init__(live)
        self.scheduler: ConsoleScheduler = console_scheduler(live.session.adops,
                                                             Files(config_path(), schedule_file_path()))
        self._columns: list[ColumnKey] = []
        self._drawn: list[tuple[str, ...]] = []

    def compose(self) -> ComposeResult:
        yield Banner(id="banner")
        yield Static(id="schedules-summary", markup=False)
        yield DataTable(id="schedules", cursor_type="row", zebra_stripes=True)
        yield Static(id="schedule-events", markup=False)
        yield StatusBar(id="status")
        yield FittedFooter()

    def on_mount(self) -> None:
        self._columns = self.query_one(DataTable).add_columns(*COLUMNS)
        self.query_one(DataTable).focus()

    def selected_path(self) -> NodePath | None:
        return None

    def declare_on_screen(self) -> None:
        """Nothing of its own: what the screen below polls stays polled."""

    def redraw(self, changes: EngineUpdate) -> None:
        try:
            book: Book | None = self.scheduler.book()
            problem = None
        except ValueError as error:  # ScheduleError: the file, the table and the key
            book, problem = None, str(error)
        self.query_one("#schedules-summary", Static).update(self._summary(book, problem))
        rows = self._rows(book) if book is not None else []
        if rows != self._drawn:
            table = self.query_one(DataTable)
            cursor = table.cursor_row
            table.clear()
            for row in rows:
                table.add_row(*(Text(cell) for cell in row))
            if rows:
                table.move_cursor(row=min(cursor, len(rows) - 1), animate=False)
            self._drawn = rows
        self.query_one("#schedule-events", Static).update(self._events())

    def _summary(self, book: Book | None, problem: str | None) -> str:
        if problem is not None:
            return f"the schedules cannot be read: {visible(problem, 500)}"
        assert book is not None
        count = f"{len(book.schedules)} schedule(s)"
        if self.scheduler.running:
            return f"{count}, run by this console (R stops them)"
        holder = self.scheduler.holder()
        if holder is not None:
            return f"{count}, run by {holder}"
        if self.live.context.read_only:
            return f"{count}, not run: read-only mode sends nothing"
        return f"{count}, run by nobody: no scheduler holds the lock ({self.scheduler.lock_file}) — R runs them here"

    def _rows(self, book: Book) -> list[tuple[str, ...]]:
        now = self.live.clock.wall()
        rows: list[tuple[str, ...]] = []
        for schedule in book.schedules:
            control = book.control(schedule.name)
            run = schedule.timing.next_after(now)
            state = "paused" if control.paused else "next skipped" if run in control.skip else "active"
            rows.append((visible(schedule.name, 60), visible(schedule.stream, 80), visible(schedule.template.name, 40),
                         schedule.timing.describe(), run_time(run, schedule.timing.zone) if run else "none",
                         _until(run, now), state))
        return rows

    def _events(self) -> str:
        events = list(self.scheduler.events)[-EVENTS_SHOWN:]
        if not events:
            return "Nothing run in this console yet."
        return "\n".join(f"{event.kind}: {event.text()}" for event in events)

    def action_run_schedules(self) -> None:
        if self.scheduler.running:
            self.run_worker(self.scheduler.stop(), exclusive=True, group="schedules")
            self.say("the schedules stop running in this console")
            return
        app = self.app

        def tell(event: RunnerEvent) -> None:  # a toast on whichever screen is shown
            app.notify(event.text(), title=f"schedule · {event.kind}", markup=False,
                       severity="information" if event.kind == "sent" else "warning")

        self.scheduler.tell = tell
        self.say(self.scheduler.start())
        self.redraw(EVERYTHING)
