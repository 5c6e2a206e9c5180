"""Errors raised by mcpcost, and the exit codes the command line maps them to.

McpcostError                 base of everything we raise on purpose
├── UsageError               bad flags or arguments            -> exit 2
├── InputError               unreadable or malformed input     -> exit 2
│   └── JSONSyntaxError      text that ECMAScript JSON.parse would reject
│       └── JSONTooDeep      valid JSON nested past the one depth limit we parse
├── ConfigError              a client config we cannot use     -> exit 2
├── OutputError              a file we cannot write            -> exit 2
├── TokenizerError           the bundled tokenizer is missing or corrupt
└── TransportError           talking to a server failed (mapped to a status, not an exit)

Every exception class defined anywhere in mcpcost derives from ``McpcostError``; one that must
also be caught as a builtin (``IncomparableUnits`` as a ``TypeError``) takes it as a second base.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_USAGE = 2


class McpcostError(Exception):
    """Base class of every error mcpcost raises on purpose."""


class UsageError(McpcostError):
    """The command line or an API call was used wrongly."""


class InputError(McpcostError):
    """Input could not be read or has the wrong shape."""


class JSONSyntaxError(InputError, ValueError):
    """Text that ECMAScript ``JSON.parse`` would reject."""


class JSONTooDeep(JSONSyntaxError):
    """Valid JSON nested deeper than ``core.jsonvalue.MAX_DEPTH``: refused, never half-parsed.

    A subclass of JSONSyntaxError so every reader of files reports it as unreadable input; the
    transports catch it first and report the server's message as a protocol error.
    """


class ConfigError(InputError):
    """A client configuration file that cannot be used."""


class OutputError(McpcostError):
    """A file could not be written (disk full, permissions, a symbolic link in the way)."""


class TokenizerError(McpcostError):
    """The bundled tokenizer data is missing or does not match its pinned hash."""


class TransportError(McpcostError):
    """Talking to an MCP server failed."""
