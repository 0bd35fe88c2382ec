"""The ad-ops dialogs: cue-out duration, ID3 frames, and the "send this?" confirmation.

Each dialog only collects and returns what to send; sending happens in one place (AdOps) so the
once-only and audit rules cannot be bypassed from a dialog. Enter sends, Esc cancels.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from omeconsole.api.wire import Id3EventType, Id3Frame
from omeconsole.core.adops.plan import SendPlan, frame_problem
from omeconsole.core.config import Id3Template
from omeconsole.core.text import visible

CUE_OUT_PRESETS_S = (15, 30, 60, 90, 120)
MAX_FRAMES = 8
_DIALOG_CSS = """
{name} { align: center middle; }
{name} > Vertical { width: 76; max-width: 100%; height: auto; max-height: 100%; border: thick $primary;
                    padding: 1 2; background: $surface; }
{name} Horizontal { height: auto; }
{name} Button { margin: 0 1 0 0; min-width: 8; }
{name} .hint { margin-top: 1; color: $text-muted; }
{name} .error { color: $error; height: auto; }
"""


def _css(name: str) -> str:
    return _DIALOG_CSS.replace("{name}", name)


class CueOutDialog(ModalScreen[float | None]):
    """The break's duration: a preset button, or any number of seconds typed; Enter sends."""

    DEFAULT_CSS = _css("CueOutDialog") + "CueOutDialog #seconds { width: 20; }"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="cancel_cue_out")]

    def __init__(self, stream: str, default_s: float, warning: str = "") -> None:
        super().__init__()
        self._stream = stream
        self._default_s = default_s
        self._warning = warning

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "cue-out: start an ad break"
            yield Label(f"stream {self._stream}", markup=False)
            if self._warning:
                yield Static(self._warning, id="cue-out-warning", classes="error", markup=False)
            with Horizontal(id="presets"):
                for seconds in CUE_OUT_PRESETS_S:
                    yield Button(f"{seconds} s", id=f"preset-{seconds}", compact=True)
            yield Label("duration in seconds")
            yield Input(f"{self._default_s:g}", id="seconds", type="number")
            yield Static("", id="cue-out-error", classes="error")
            yield Label("Enter sends, Esc cancels", classes="hint")

    def on_mount(self) -> None:
        self.query_one("#seconds", Input).focus()

    @on(Button.Pressed)
    def _preset(self, event: Button.Pressed) -> None:
        if event.button.id and event.button.id.startswith("preset-"):
            self.query_one("#seconds", Input).value = event.button.id.removeprefix("preset-")
            self.query_one("#seconds", Input).focus()

    @on(Input.Submitted, "#seconds")
    def _submitted(self, event: Input.Submitted) -> None:
        seconds = parse_duration(event.value)
        if seconds is None:
            self.query_one("#cue-out-error", Static).update("a duration is a number of seconds above 0")
            return
        self.dismiss(seconds)

    def action_cancel(self) -> None:
        self.dismiss(None)


def parse_duration(text: str) -> float | None:
    """Seconds above 0 and at most a day, to millisecond precision; None for anything else."""
    try:
        value = round(float(text.strip()), 3)
    except ValueError:
        return None
    return value if 0 < value <= 86_400 else None


@dataclass(frozen=True)
class Id3Request:
    frames: list[Id3Frame]
    event_type: Id3EventType


class Id3Dialog(ModalScreen[Id3Request | None]):
    """Frames (TXXX description+value, T*** text, PRIV owner+data), the event type, templates."""

    DEFAULT_CSS = _css("Id3Dialog") + """
    Id3Dialog .frame-row Input { width: 1fr; }
    Id3Dialog .frame-row .frame-type { width: 12; }
    Id3Dialog Select { width: 1fr; }
    """
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="cancel_id3"),
        Binding("ctrl+s", "send", "Send", id="send_id3"),
        Binding("ctrl+n", "add_frame", "Add frame", id="add_id3_frame", tooltip="Another frame in the same event"),
    ]

    def __init__(self, stream: str, templates: list[Id3Template]) -> None:
        super().__init__()
        self._stream = stream
        self._templates = {t.name: t for t in templates}
        self._rows = 1

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "ID3 timed metadata"
            yield Label(f"stream {self._stream}")
            with Horizontal():
                yield Select([(name, name) for name in self._templates], prompt="template…", id="template",
                             disabled=not self._templates)
                yield Select([("event (video and audio)", "event"), ("video", "video"), ("audio", "audio")],
                             value="event", allow_blank=False, id="event-type")
            yield Label("frame type / description or owner / value")
            for index in range(MAX_FRAMES):
                with Horizontal(classes="frame-row", id=f"row-{index}") as row:
                    row.display = index == 0
                    yield Input("TXXX" if index == 0 else "", placeholder="TXXX", id=f"type-{index}",
                                classes="frame-type")
                    yield Input(placeholder="description (TXXX) / owner (PRIV)", id=f"info-{index}")
                    yield Input(placeholder="value", id=f"data-{index}")
            with Horizontal():
                yield Button("+ frame (ctrl+n)", id="add-frame", compact=True)
                yield Button("Send", id="send", variant="primary", compact=True)
            yield Static("", id="id3-error", classes="error")
            yield Label("Enter in a value (or ctrl+s) sends, Esc cancels", classes="hint")

    def on_mount(self) -> None:
        self.query_one("#data-0", Input).focus()

    @on(Select.Changed, "#template")
    def _template(self, event: Select.Changed) -> None:
        template = self._templates.get(str(event.value))
        if template is not None:
            self.fill(template.frames, template.event_type)

    def fill(self, frames: list[Id3Frame], event_type: Id3EventType) -> None:
        """Put frames into the rows (a template, or a test)."""
        self._rows = max(1, min(len(frames), MAX_FRAMES))
        for index in range(MAX_FRAMES):
            frame = frames[index] if index < len(frames) else None
            self.query_one(f"#row-{index}").display = index < self._rows
            self.query_one(f"#type-{index}", Input).value = frame.frameType if frame else ""
            self.query_one(f"#info-{index}", Input).value = (frame.info or "") if frame else ""
            self.query_one(f"#data-{index}", Input).value = (frame.data or "") if frame else ""
        self.query_one("#event-type", Select).value = event_type

    @on(Button.Pressed, "#add-frame")
    def action_add_frame(self) -> None:
        if self._rows >= MAX_FRAMES:
            self.query_one("#id3-error", Static).update(f"at most {MAX_FRAMES} frames in one event")
            return
        self.query_one(f"#row-{self._rows}").display = True
        self.query_one(f"#type-{self._rows}", Input).focus()
        self._rows += 1

    @on(Button.Pressed, "#send")
    @on(Input.Submitted)
    def action_send(self) -> None:
        try:
            frames = [f for f in (self._frame(i) for i in range(self._rows)) if f is not None]
        except ValueError as error:
            self.query_one("#id3-error", Static).update(str(error))
            return
        if not frames:
            self.query_one("#id3-error", Static).update("fill in at least one frame")
            return
        event_type = self.query_one("#event-type", Select).value
        self.dismiss(Id3Request(frames, event_type if event_type in ("video", "audio") else "event"))

    def _frame(self, index: int) -> Id3Frame | None:
        frame_type = self.query_one(f"#type-{index}", Input).value.strip().upper()
        info = self.query_one(f"#info-{index}", Input).value
        data = self.query_one(f"#data-{index}", Input).value
        if not frame_type and not info and not data:
            return None
        problem = frame_problem(frame_type)
        if problem is not None:
            raise ValueError(f"frame {index + 1}: {problem}")
        if frame_type in ("TXXX", "PRIV"):
            return Id3Frame(frameType=frame_type, info=info, data=data)
        return Id3Frame(frameType=frame_type, data=data)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmSend(ModalScreen[bool]):
    """ "Send this?" with exactly what will be sent and every warning to confirm — y or Enter sends,
    n or Esc does not. Shown unless the config turns it off and the plan has nothing to confirm."""

    DEFAULT_CSS = _css("ConfirmSend")
    BINDINGS = [
        Binding("y,enter", "answer(True)", "Send", id="confirm_send"),
        Binding("n,escape", "answer(False)", "Don't send", id="refuse_send"),
    ]

    def __init__(self, question: str, plan: SendPlan | None = None) -> None:
        super().__init__()
        self._question = question
        self._plan = plan

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "send?"
            yield Label(visible(self._question), id="question", markup=False)
            if self._plan is not None:
                for warning in self._plan.warnings:
                    yield Static(visible(f"⚠ {warning.message}"), classes="error", markup=False)
                lines = self._plan.describe().split("\n")
                yield Static("\n".join(visible(line) for line in lines), id="plan", classes="hint", markup=False)
            with Horizontal():
                yield Button("Send (y)", id="yes", variant="warning", compact=True)
                yield Button("Cancel (n)", id="no", compact=True)

    def on_mount(self) -> None:
        self.query_one("#yes", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
