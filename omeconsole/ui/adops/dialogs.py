"""The ad-ops dialogs: the cue-out duration, the ID3 frames, and the "send this?" confirmation.

A dialog collects what the operator wants and hands back a *plan* from the stream's controller (the
one send path decides read-only, durations and warnings; a dialog decides nothing itself). It plans
as the operator types, so the warnings of the value on screen are always in view, and it says from
the start when nothing would leave (read-only, a send in flight). Sending happens in `flows`.
No dialog changes its size while open, so nothing moves under the pointer: the ID3 frame rows live in
a box of fixed height, and "+ frame" adds one row per click, however fast the clicks come. The ID3 dialog opens in the
first frame's id (TXXX, selected, so typing replaces it); an empty frame is not refused there but
planned with a warning that the confirmation asks about twice, so Enter on an empty value never
sends it silently.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Input, Label, Select, Static

from omeconsole.api.wire import Id3EventType, Id3Frame
from omeconsole.core.adops.plan import MAX_DURATION_S, SendPlan, WarningCode
from omeconsole.core.config import Id3Template
from omeconsole.ui.adops.changes import AdOpsChanged
from omeconsole.ui.adops.plan_text import STANDING_REFUSALS, banner_text, request_text, target_text, warnings_text
from omeconsole.ui.adops.untrusted_text import append_outside, outside

CUE_OUT_PRESETS_S = (15, 30, 60, 90, 120)
CSS_PATH = "adops.tcss"
MAX_FRAMES = 8
EVENT_TYPES: list[tuple[str, Id3EventType]] = [
    ("event (video and audio)", "event"), ("video", "video"), ("audio", "audio")]
Id3Planner = Callable[[Sequence[Id3Frame], Id3EventType], SendPlan]


def parse_duration(text: str) -> float | None:
    """Seconds above 0 and at most a day, to millisecond precision; None for anything else."""
    try:
        value = round(float(text.strip()), 3)
    except ValueError:
        return None
    return value if 0 < value <= MAX_DURATION_S else None


def show_plan_header(dialog: Screen[Any], plan: SendPlan) -> None:
    """Fill a dialog's `#target` and `#banner` from a plan (the banner hides when there is nothing to say)."""
    dialog.query_one("#target", Static).update(target_text(plan))
    banner = banner_text(plan)
    widget = dialog.query_one("#banner", Static)
    widget.display = banner is not None
    if banner is not None:
        widget.update(banner)


class CueOutDialog(ModalScreen[SendPlan | None]):
    """The break's duration: a preset, or any number of seconds typed; Enter hands back the plan."""

    CSS_PATH = CSS_PATH
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="cancel_cue_out")]

    def __init__(self, planner: Callable[[float], SendPlan], default_s: float,
                 templates: Sequence[tuple[str, Callable[[], SendPlan]]] = ()) -> None:
        """`templates`: the config's break templates, each (its words, its plan), picked with a button."""
        super().__init__()
        self._planner = planner
        self._default_s = default_s
        self._templates = list(templates)

    def compose(self) -> ComposeResult:
        with Vertical(classes="adops-dialog") as box:
            box.border_title = "cue-out: start an ad break"
            yield Static(id="target")
            yield Static(id="banner", classes="banner")
            with Horizontal(id="presets"):
                for seconds in CUE_OUT_PRESETS_S:
                    yield Button(f"{seconds} s", id=f"preset-{seconds}", compact=True)
            with Horizontal(classes="field"):
                yield Label("duration in seconds ")
                yield Input(f"{self._default_s:g}", id="seconds", type="number", compact=True)
            if self._templates:
                with Horizontal(id="templates"):
                    for index, (words, _plan) in enumerate(self._templates):
                        yield Button(Text(words), id=f"template-{index}", compact=True)
            yield Static(id="cue-out-warnings", classes="warnings")
            yield Static("", id="cue-out-error", classes="error")
            yield Static("Enter: review what will be sent · Esc: cancel", classes="hint")

    def on_mount(self) -> None:
        self._preview()
        self.query_one("#seconds", Input).focus()

    def _preview(self) -> SendPlan:
        """Plan the duration on screen (the default when it is not a duration yet) and show what it says."""
        seconds = parse_duration(self.query_one("#seconds", Input).value)
        plan = self._planner(seconds if seconds is not None else self._default_s)
        show_plan_header(self, plan)
        self.query_one("#cue-out-warnings", Static).update(warnings_text(plan) if seconds is not None else "")
        return plan

    @on(Input.Changed, "#seconds")
    def _typed(self) -> None:
        self.query_one("#cue-out-error", Static).update("")
        self._preview()

    def on_ad_ops_changed(self, message: AdOpsChanged) -> None:
        """The break changed while the dialog is open (the out spliced, a read came in): warn anew."""
        if self.is_mounted:
            self._preview()

    @on(Button.Pressed, "#presets Button")
    def _preset(self, event: Button.Pressed) -> None:
        if event.button.id is not None:
            seconds = self.query_one("#seconds", Input)
            seconds.value = event.button.id.removeprefix("preset-")
            seconds.focus()

    @on(Button.Pressed, "#templates Button")
    def _template(self, event: Button.Pressed) -> None:
        """A template's break (its duration, its ID3 frames in the same array) goes to the confirmation."""
        plan = self._templates[int((event.button.id or "template-0").removeprefix("template-"))][1]()
        if plan.refusal is not None and plan.refusal.code not in STANDING_REFUSALS:
            self.query_one("#cue-out-error", Static).update(outside(plan.refusal.message))
            return
        self.dismiss(plan)

    @on(Input.Submitted, "#seconds")
    def _submitted(self) -> None:
        if parse_duration(self.query_one("#seconds", Input).value) is None:
            self.query_one("#cue-out-error", Static).update(
                f"a duration is a number of seconds above 0 and at most {MAX_DURATION_S:g}")
            return
        plan = self._preview()
        if plan.refusal is not None and plan.refusal.code not in STANDING_REFUSALS:
            self.query_one("#cue-out-error", Static).update(outside(plan.refusal.message))
            return
        self.dismiss(plan)  # read-only and in-flight are the send path's to refuse, and to say

    def action_cancel(self) -> None:
        self.dismiss(None)


def server_heading(plan: SendPlan) -> Text:
    """The server a send goes to, as the confirmation's first and widest line: `ON SERVER edge-2 ·
    127.0.0.1:8081` (the profile first when there is one: it is the name the operator chose)."""
    text = Text("ON SERVER ")
    append_outside(text, plan.profile or plan.server, "bold")
    if plan.profile:
        text.append(" · ")
        append_outside(text, plan.server, "")
    return text


class ConfirmSend(ModalScreen[frozenset[WarningCode] | None]):
    """ "Send this?" with exactly what will be sent, and every warning of the plan.

    Hands back the warning codes the operator confirmed (None: do not send). `y` or the Send button
    sends; a plan with a warning to confirm asks again (`y` a second time), and then Enter, which is
    on Cancel, never sends: a plan that needs thought is not sent by Enter pressed twice."""

    CSS_PATH = CSS_PATH
    BINDINGS = [
        Binding("y", "send", "Send", id="confirm_send"),
        Binding("n,escape", "cancel", "Don't send", id="refuse_send"),
    ]

    def __init__(self, plan: SendPlan, question: str) -> None:
        super().__init__()
        self.plan = plan
        self._question = question
        self._armed = False

    def compose(self) -> ComposeResult:
        plan = self.plan
        with Vertical(classes="adops-dialog") as box:
            box.border_title = "send?"
            yield Static(server_heading(plan), id="send-server", classes="send-server")
            yield Static(outside(self._question, "bold"), id="question")
            yield Static(id="target")
            yield Static(id="banner", classes="banner")
            if plan.warnings:
                yield Static(warnings_text(plan), id="warnings", classes="warnings")
            with VerticalScroll(id="plan-box") as shown:
                shown.border_title = "exactly what will be sent"
                yield Static(request_text(plan), id="plan")
            with Horizontal(classes="buttons"):
                yield Button("Send anyway (y)" if plan.to_confirm else "Send (y)", id="yes", variant="warning",
                             compact=True)
                yield Button("Cancel (n)", id="no", compact=True)
            yield Static(self._hint(), id="confirm-hint", classes="hint")

    def _hint(self) -> Text:
        if self._armed:
            return Text("⚠ y again sends despite the warning above · n or Esc cancels", style="bold")
        if self.plan.to_confirm:
            return Text("y sends despite the warning (then asks once more) · n, Esc or Enter cancels")
        return Text("y or Enter sends · n or Esc cancels")

    def on_mount(self) -> None:
        show_plan_header(self, self.plan)
        self.query_one("#no" if self.plan.to_confirm else "#yes", Button).focus()

    @on(Button.Pressed, "#yes")
    def action_send(self) -> None:
        if self.plan.to_confirm and not self._armed:
            self._armed = True
            self.query_one("#yes", Button).label = "Yes, send it (y)"
            self.query_one("#confirm-hint", Static).update(self._hint())
            return
        self.dismiss(self.plan.warning_codes)

    @on(Button.Pressed, "#no")
    def action_cancel(self) -> None:
        self.dismiss(None)


class Id3Dialog(ModalScreen[SendPlan | None]):
    CSS_PATH = CSS_PATH
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="cancel_id3"),
        Binding("ctrl+s", "send", "Send", id="send_id3"),
        Binding("ctrl+n", "add_frame", "Add frame", id="add_id3_frame", tooltip="Another frame in the same event"),
    ]

    def __init__(self, planner: Id3Planner, templates: Sequence[Id3Template]) -> None:
        super().__init__()
        self._planner = planner
        self._templates = {t.name: t for t in templates}
        self._rows = 1

    def compose(self) -> ComposeResult:
        with Vertical(classes="adops-dialog") as box:
            box.border_title = "ID3 timed metadata"
            yield Static(id="target")
            yield Static(id="banner", classes="banner")
            with Horizontal(classes="field"):
                yield Select([(outside(name), name) for name in self._templates], prompt="template…",
                             id="template", disabled=not self._templates, compact=True)
                yield Select(EVENT_TYPES, value="event", allow_blank=False, id="event-type", compact=True)
            with Horizontal(classes="frame-head"):
                yield Label("frame id", classes="frame-type")
                yield Label("description (TXXX) / owner (PRIV)", classes="frame-info")
                yield Label("value", classes="frame-data")
            with Vertical(id="frames"):
                for index in range(MAX_FRAMES):
                    with Horizontal(classes="frame-row", id=f"row-{index}") as row:
                        row.display = index == 0
                        yield Input("TXXX" if index == 0 else "", placeholder="TXXX", id=f"type-{index}",
                                    classes="frame-type", compact=True, max_length=4)
                        yield Input(placeholder="description / owner", id=f"info-{index}", classes="frame-info",
                                    compact=True)
                        yield Input(placeholder="value", id=f"data-{index}", classes="frame-data", compact=True)
            with Horizontal(classes="buttons"):
                add = Button("+ frame (ctrl+n)", id="add-frame", compact=True)
                # A button ignores clicks for a moment after each press (against double sends); here
                # every click is one more frame, however fast they come.
                add.active_effect_duration = 0
                yield add
                yield Button("Send (ctrl+s)", id="send", variant="primary", compact=True)
            yield Static("", id="id3-error", classes="error")
            yield Static("Tab: next field · Enter or ctrl+s: review what will be sent · Esc: cancel", classes="hint")

    def on_mount(self) -> None:
        self._preview()
        self.query_one("#type-0", Input).focus()

    def _preview(self) -> SendPlan:
        plan = self._planner(self._frames(), self._event_type())
        show_plan_header(self, plan)
        return plan

    def on_ad_ops_changed(self, message: AdOpsChanged) -> None:
        if self.is_mounted:
            self._preview()  # a send finished meanwhile: the banner goes

    @on(Select.Changed, "#template")
    def _template(self, event: Select.Changed) -> None:
        template = self._templates.get(str(event.value))
        if template is not None:
            self.fill(template.frames, template.event_type)

    def fill(self, frames: Sequence[Id3Frame], event_type: Id3EventType) -> None:
        """Put frames into the rows (a template)."""
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
        plan = self._preview()
        if plan.refusal is not None and plan.refusal.code not in STANDING_REFUSALS:
            self.query_one("#id3-error", Static).update(outside(plan.refusal.message))
            return
        self.dismiss(plan)  # read-only and in-flight are the send path's to refuse, and to say

    def _frames(self) -> list[Id3Frame]:
        """The rows on screen that have anything in them, as typed (the plan normalises and checks them)."""
        frames = []
        for index in range(self._rows):
            kind = self.query_one(f"#type-{index}", Input).value.strip()
            info = self.query_one(f"#info-{index}", Input).value
            data = self.query_one(f"#data-{index}", Input).value
            if kind or info or data:
                frames.append(Id3Frame(frameType=kind, info=info if kind.upper() in ("TXXX", "PRIV") else None,
                                       data=data))
        return frames

    def _event_type(self) -> Id3EventType:
        value = self.query_one("#event-type", Select).value
        return value if value in ("video", "audio") else "event"

    def action_cancel(self) -> None:
        self.dismiss(None)
