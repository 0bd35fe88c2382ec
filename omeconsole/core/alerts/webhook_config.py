"""`[[webhooks]]` as the config file writes them; secret header values come from the environment or a file.

```toml
[[webhooks]]
name = "ops"                                  # shown in metrics and messages; defaults to the URL's host
url = "https://hooks.example.net/ome"
headers = { "X-Team" = "video" }              # plain values (not secret)
headers_from_env = { Authorization = "OME_HOOK_AUTH" }          # header -> environment variable
headers_from_file = { "X-Api-Key" = "~/.config/ome-hook-key" }  # header -> file (first non-empty line; 0600)
timeout = 5.0
queue = 1000                                  # messages waiting at most; the oldest is dropped past it
max_attempts = 8
```

Header values are resolved when the sender starts, never written to a log, a message or an error.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

_HEADER_NAME = re.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$")
MAX_SECRET_FILE_BYTES = 16_384


class WebhookConfigError(ValueError):
    """A header source cannot be read; the message names the header and its source, never a value."""


class WebhookConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(default="", max_length=100)
    url: str = Field(repr=False)
    """Kept out of reprs: a receiver's URL may carry a token in its path or query."""
    headers: dict[str, str] = Field(default_factory=dict)
    headers_from_env: dict[str, str] = Field(default_factory=dict)
    headers_from_file: dict[str, str] = Field(default_factory=dict)
    timeout: float = Field(default=5.0, gt=0, le=120)
    queue: int = Field(default=1000, ge=1, le=100_000)
    max_attempts: int = Field(default=8, ge=1, le=100)
    insecure: bool = False
    """Do not verify the receiver's TLS certificate."""

    @field_validator("url")
    @classmethod
    def _http_url(cls, url: str) -> str:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("url must be an http(s) URL")
        return url

    @field_validator("headers", "headers_from_env", "headers_from_file")
    @classmethod
    def _header_names(cls, headers: dict[str, str]) -> dict[str, str]:
        for name, value in headers.items():
            if not _HEADER_NAME.fullmatch(name):
                raise ValueError(f"{name!r} is not an HTTP header name")
            if "\r" in value or "\n" in value:
                raise ValueError(f"the value for header {name} spans lines")
        return headers

    @property
    def label(self) -> str:
        """The name, else the receiver's host[:port] (never its path or query, where tokens hide)."""
        if self.name:
            return self.name
        parts = urlsplit(self.url)
        return f"{parts.hostname}:{parts.port}" if parts.port else str(parts.hostname)

    def resolve_headers(self, environ: Mapping[str, str] | None = None,
                        warn: Callable[[str], None] | None = None) -> dict[str, str]:
        """Every header with its value; WebhookConfigError names what is missing (never a value)."""
        environ = os.environ if environ is None else environ
        resolved = dict(self.headers)
        for header, variable in self.headers_from_env.items():
            value = environ.get(variable)
            if not value:
                raise WebhookConfigError(f"webhook {self.label}: header {header}: ${variable} is not set")
            resolved[header] = value.strip()
        for header, file_name in self.headers_from_file.items():
            path = Path(file_name).expanduser()
            try:
                if path.stat().st_mode & 0o077 and warn is not None:
                    warn(f"webhook {self.label}: {path} is readable by other users; run: chmod 600 {path}")
                with path.open("rb") as handle:
                    raw = handle.read(MAX_SECRET_FILE_BYTES)
            except OSError as error:
                raise WebhookConfigError(f"webhook {self.label}: header {header}: cannot read {path}: "
                                         f"{error.strerror or type(error).__name__}") from None
            lines = [line.strip() for line in raw.decode("utf-8", "replace").splitlines() if line.strip()]
            resolved[header] = lines[0] if lines else ""
        for header, value in resolved.items():
            if "\r" in value or "\n" in value or not value:
                raise WebhookConfigError(f"webhook {self.label}: header {header} has no usable value")
        return resolved
