"""Break templates, schedules of breaks, and the one runner that sends each planned break at most once."""
