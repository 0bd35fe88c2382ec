"""Ad operations: one send path for the TUI and the CLI, its audit log, and playlist confirmation."""
