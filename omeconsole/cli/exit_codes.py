"""The command line's exit statuses: what a script can tell apart, each with its own number.

Kept with the command line (the core says what happened; only here is that a number).
"""

from __future__ import annotations

import signal
from typing import TYPE_CHECKING

from omeconsole.api.errors import OmeError, OutcomeUnknown, RequestTimeout, UnreachableError

if TYPE_CHECKING:  # the statuses are read by every command's parser: they import no ad operations
    from omeconsole.core.adops.controller import SendOutcome

OK = 0
REFUSED = 1
"""The server refused the request or failed."""
USAGE = 2
"""Bad usage or configuration."""
UNREACHABLE = 3
"""The server could not be reached or did not answer (for a send: nothing was sent)."""
UNKNOWN = 4
"""A send whose outcome is unknown: check the playlist before sending again (a POST is never retried)."""
NOT_CONFIRMED = 5
"""`--wait-confirm`: accepted, but the playlist did not show it in time (or could not be read)."""
READ_ONLY = 6
"""Read-only mode: nothing was sent."""
AUDIT_UNWRITABLE = 7
"""The audit log could not be written: nothing was sent."""
NEEDS_FORCE = 8
"""The server would drop it (a break already on air, a break too short, a cue-in with no break, ...), or
that could not be checked (the playlist could not be read), or the console warned (an empty ID3 frame):
nothing was sent; `--force` sends anyway."""
SPLICE_NO_MARKER = 9
"""`--wait-confirm` on a server that writes no marker (open source 0.18 to 0.20): the splice was seen as
the segment it cut, and no marker was written (players and ad insertion downstream see no break)."""
BROKEN_PIPE = 128 + signal.SIGPIPE
"""141: whoever read the output stopped reading (`| head -1`), as a program ended by SIGPIPE reports."""

EPILOG = f"""exit status:
  {OK}    success
  {REFUSED}    the server refused or failed
  {USAGE}    bad usage or configuration
  {UNREACHABLE}    server unreachable or no answer (a send: nothing was sent)
  {UNKNOWN}    a send whose outcome is unknown: check the playlist before sending again
  {NOT_CONFIRMED}    --wait-confirm: accepted, but not seen in the playlist within --confirm-timeout
  {READ_ONLY}    read-only mode: nothing was sent
  {AUDIT_UNWRITABLE}    the audit log cannot be written: nothing was sent
  {NEEDS_FORCE}    the server would drop it (break on air, too short, cue-in with no break) or that could
       not be checked (playlist unreadable): nothing was sent; --force sends
  {SPLICE_NO_MARKER}    --wait-confirm: splice seen (segment cut), no marker written (server writes none)
  {BROKEN_PIPE}  the output was closed by its reader (e.g. | head -1)
  128+N interrupted by signal N (130 ctrl+c, 129 SIGHUP, 143 SIGTERM); a send in flight is logged as unknown"""


def for_error(error: OmeError) -> int:
    if isinstance(error, OutcomeUnknown):
        return UNKNOWN
    if isinstance(error, UnreachableError | RequestTimeout):
        return UNREACHABLE
    return REFUSED


def for_outcome(outcome: SendOutcome) -> int:
    if outcome.status == "accepted":
        return OK
    if outcome.status == "blocked":
        return {"read-only": READ_ONLY, "audit-unwritable": AUDIT_UNWRITABLE,
                "needs-confirmation": NEEDS_FORCE}.get(outcome.blocked_by or "", USAGE)
    return {"rejected": REFUSED, "not-sent": UNREACHABLE, "unknown": UNKNOWN}[outcome.status]
