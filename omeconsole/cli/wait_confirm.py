"""`--wait-confirm` on cue-out, cue-in and id3: the command waits until the playlist shows the send.

Kept apart from the other commands so the send path stays as it is: `open_if_asked` before the
request (baseline read, expectation registered), `cancel` if the request failed, `report` after
it (prints the delay, or why not, and gives the exit status).
"""

from __future__ import annotations

import argparse
import sys

from omeconsole.api.wire import Id3Frame
from omeconsole.cli import format as fmt
from omeconsole.core.adops.audit import AuditLog
from omeconsole.core.adops.confirm import PlaylistConfirmer
from omeconsole.core.adops.watcher import ExpectKind
from omeconsole.model.paths import NodePath

CONFIRMABLE = ("cue-out", "cue-in", "id3")
EXIT_NOT_CONFIRMED = 5
"""Sent and accepted, but the playlist did not show it in time (or could not be read)."""
DEFAULT_CONFIRM_TIMEOUT_S = 15.0


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--wait-confirm", action="store_true",
                        help="wait until the stream's LL-HLS playlist (or media, for id3) shows the send; "
                             f"exit {EXIT_NOT_CONFIRMED} if it does not within --confirm-timeout")
    parser.add_argument("--confirm-timeout", type=_positive_seconds, default=DEFAULT_CONFIRM_TIMEOUT_S,
                        help=f"seconds to wait with --wait-confirm (default {DEFAULT_CONFIRM_TIMEOUT_S:g})")


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError("must be more than 0 and at most 3600 seconds")
    return value


async def open_if_asked(
    args: argparse.Namespace, path: NodePath, action: str, frames: list[Id3Frame] | None = None
) -> PlaylistConfirmer | None:
    if not getattr(args, "wait_confirm", False) or action not in CONFIRMABLE:
        return None
    publisher: str = args.publisher_base  # set by main from the settings (default: API host, port 3333)
    kind: ExpectKind = "cue-out" if action == "cue-out" else "cue-in" if action == "cue-in" else "id3"
    return await PlaylistConfirmer.open(publisher, path, kind, timeout_s=args.confirm_timeout, frames=frames or (),
                                        event_type=getattr(args, "event_type", "event"),
                                        verify=not getattr(args, "insecure", False))


async def report(confirmer: PlaylistConfirmer, audit: AuditLog, send_id: str | None, *, as_json: bool) -> int:
    """Wait for the sighting, print it, and return 0 (seen) or EXIT_NOT_CONFIRMED."""
    sighting = await confirmer.finish(audit, send_id)
    if as_json:
        print(fmt.dumps({"confirmed": sighting.seen, "seen_after_s": sighting.seen_after_s,
                         "detail": sighting.detail, "line": sighting.line}))
    elif sighting.seen:
        print(sighting.detail)
    if not sighting.seen:
        print(f"omeconsole: {sighting.detail}", file=sys.stderr)
        return EXIT_NOT_CONFIRMED
    return 0
