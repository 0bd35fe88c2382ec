"""Ad operations in the console: keys o / i / m / a, dialogs, the ad-break panel, the events screen.

The app mixes in `AdOpsActions`, adds `ADOPS_BINDINGS` to its bindings and `AdOpsCommands` to its
command providers; everything else lives here.
"""

from omeconsole.ui.adops.actions import ADOPS_BINDINGS, AdOpsActions, AdOpsChanged, AdOpsCommands

__all__ = ["ADOPS_BINDINGS", "AdOpsActions", "AdOpsChanged", "AdOpsCommands"]
