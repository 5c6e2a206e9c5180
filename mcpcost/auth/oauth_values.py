"""OAuth values that are text but not any text: a scope and a state (RFC 6749).

They are kept apart from the package's other words: a *scope* elsewhere is where a config file
sits (``configs``), and a *state* is how a file was read.
"""

from __future__ import annotations

from typing import NewType

# Space-separated scope tokens (RFC 6749 section 3.3), as a server, a token endpoint or the user
# wrote them: asked for in an authorization request, granted in a token response.
OAuthScope = NewType("OAuthScope", str)
# The unguessable value an authorization request carries and its redirect must bring back
# (RFC 6749 section 10.12).
OAuthState = NewType("OAuthState", str)
