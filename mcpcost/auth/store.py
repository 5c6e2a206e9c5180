"""Where sign-ins are kept between runs: one record per (server URL, resource).

The OS keyring holds the record when the optional ``keyring`` package finds a usable backend;
otherwise a JSON file readable by its owner only (0600) in the user's state directory
(``$XDG_STATE_HOME/mcpcost`` or ``~/.local/state/mcpcost``). Either way an index of the keys
(server URL and resource, never a secret) lives in that directory so ``auth status`` can list
sign-ins. Files are written by the one writer (``runtime.output_tree``, owner-only access): atomic,
0600, never through a symbolic link, and read the same way; nothing here prints a value.
"""

from __future__ import annotations

import importlib
import json
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from mcpcost.auth.grants import ClientAuthMethod, ClientIdentity, TokenSet
from mcpcost.runtime.output_tree import Access, read_in_tree, write_in_tree

KEYRING_SERVICE = "mcp-context-cost"
TOKENS_FILE = "oauth-tokens.json"
INDEX_FILE = "oauth-index.json"


def state_dir(environ: Mapping[str, str]) -> Path:
    base = environ.get("XDG_STATE_HOME") or ""
    if not os.path.isabs(base):
        home = environ.get("HOME") or str(Path.home())
        base = os.path.join(home, ".local", "state")
    return Path(base) / "mcpcost"


def record_key(server_url: str, resource: str) -> str:
    return f"{server_url} {resource}"


@dataclass(frozen=True, slots=True)
class SignIn:
    """One stored sign-in: the tokens plus what refreshing and revoking them needs."""

    server_url: str
    resource: str
    token_endpoint: str
    tokens: TokenSet
    client: ClientIdentity = field(repr=False)
    revocation_endpoint: str | None = None
    issuer: str | None = None

    def to_json(self) -> dict[str, Any]:
        client: dict[str, Any] = {
            "client_id": self.client.client_id,
            "auth_method": self.client.auth_method.value,
        }
        if self.client.client_secret is not None:
            client["client_secret"] = self.client.client_secret
        return {
            "server_url": self.server_url,
            "resource": self.resource,
            "token_endpoint": self.token_endpoint,
            "revocation_endpoint": self.revocation_endpoint,
            "issuer": self.issuer,
            "client": client,
            "tokens": self.tokens.to_json(),
        }

    @classmethod
    def from_json(cls, doc: Any) -> SignIn | None:
        if not isinstance(doc, dict):
            return None
        tokens = TokenSet.from_json(doc.get("tokens"))
        client = doc.get("client")
        texts = [doc.get(k) for k in ("server_url", "resource", "token_endpoint")]
        if (
            tokens is None
            or not isinstance(client, dict)
            or not all(isinstance(t, str) for t in texts)
        ):
            return None
        method = client.get("auth_method")
        methods = {m.value: m for m in ClientAuthMethod}
        secret = client.get("client_secret")
        client_id = client.get("client_id")
        if not isinstance(client_id, str):
            return None
        revocation = doc.get("revocation_endpoint")
        issuer = doc.get("issuer")
        return cls(
            server_url=str(texts[0]),
            resource=str(texts[1]),
            token_endpoint=str(texts[2]),
            tokens=tokens,
            client=ClientIdentity(
                client_id=client_id,
                client_secret=secret if isinstance(secret, str) else None,
                auth_method=methods.get(
                    method if isinstance(method, str) else "", ClientAuthMethod.NONE
                ),
            ),
            revocation_endpoint=revocation if isinstance(revocation, str) else None,
            issuer=issuer if isinstance(issuer, str) else None,
        )


class TokenStore(Protocol):
    """Load, save and forget sign-ins."""

    where: str

    def load(self, server_url: str, resource: str) -> SignIn | None: ...

    def save(self, sign_in: SignIn) -> None: ...

    def forget(self, server_url: str, resource: str) -> bool: ...

    def keys(self) -> list[tuple[str, str]]: ...


def _write_private(path: Path, doc: Any) -> None:
    """Write JSON atomically, readable by its owner only (0600; the directory 0700)."""
    text = json.dumps(doc, indent=1, sort_keys=True)
    write_in_tree(path.parent, path.name, text, access=Access.OWNER)


def _read_json(path: Path) -> Any:
    raw = read_in_tree(path.parent, path.name)  # None: missing, or not a plain file
    try:
        return None if raw is None else json.loads(raw.decode("utf-8"))
    except ValueError:  # a bad encoding or bad JSON: nothing usable is stored
        return None


class _Index:
    """The keys of stored sign-ins (no secrets), for listing."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / INDEX_FILE

    def read(self) -> list[tuple[str, str]]:
        doc = _read_json(self.path)
        entries = doc.get("signIns") if isinstance(doc, dict) else None
        out: list[tuple[str, str]] = []
        for item in entries if isinstance(entries, list) else []:
            if isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item):
                out.append((item[0], item[1]))
        return out

    def write(self, keys: list[tuple[str, str]]) -> None:
        _write_private(self.path, {"signIns": [list(k) for k in sorted(set(keys))]})


class FileTokenStore:
    """Sign-ins in one 0600 JSON file in the state directory."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / TOKENS_FILE
        self._index = _Index(directory)
        self._lock = threading.Lock()
        self.where = f"file {self.path}"

    def _entries(self) -> dict[str, Any]:
        doc = _read_json(self.path)
        entries = doc.get("signIns") if isinstance(doc, dict) else None
        return dict(entries) if isinstance(entries, dict) else {}

    def load(self, server_url: str, resource: str) -> SignIn | None:
        with self._lock:
            return SignIn.from_json(self._entries().get(record_key(server_url, resource)))

    def save(self, sign_in: SignIn) -> None:
        with self._lock:
            entries = self._entries()
            entries[record_key(sign_in.server_url, sign_in.resource)] = sign_in.to_json()
            _write_private(self.path, {"signIns": entries})
            self._index.write([*self._index.read(), (sign_in.server_url, sign_in.resource)])

    def forget(self, server_url: str, resource: str) -> bool:
        with self._lock:
            entries = self._entries()
            found = entries.pop(record_key(server_url, resource), None) is not None
            if found:
                _write_private(self.path, {"signIns": entries})
            self._index.write([k for k in self._index.read() if k != (server_url, resource)])
            return found

    def keys(self) -> list[tuple[str, str]]:
        return self._index.read()


class KeyringTokenStore:
    """Sign-ins in the OS keyring (one secret per key); the key index in the state directory."""

    def __init__(self, keyring_module: Any, directory: Path) -> None:
        self._keyring = keyring_module
        self._index = _Index(directory)
        self._lock = threading.Lock()
        self.where = "the OS keyring"

    def load(self, server_url: str, resource: str) -> SignIn | None:
        try:
            text = self._keyring.get_password(KEYRING_SERVICE, record_key(server_url, resource))
        except Exception:  # a locked or broken keyring reads as "nothing stored"
            return None
        if not isinstance(text, str):
            return None
        try:
            return SignIn.from_json(json.loads(text))
        except ValueError:
            return None

    def save(self, sign_in: SignIn) -> None:
        key = record_key(sign_in.server_url, sign_in.resource)
        with self._lock:
            self._keyring.set_password(KEYRING_SERVICE, key, json.dumps(sign_in.to_json()))
            self._index.write([*self._index.read(), (sign_in.server_url, sign_in.resource)])

    def forget(self, server_url: str, resource: str) -> bool:
        with self._lock:
            found = True
            try:
                self._keyring.delete_password(KEYRING_SERVICE, record_key(server_url, resource))
            except Exception:
                found = False
            self._index.write([k for k in self._index.read() if k != (server_url, resource)])
            return found

    def keys(self) -> list[tuple[str, str]]:
        return self._index.read()


def _usable_keyring() -> Any:
    """The ``keyring`` module when it is installed and has a real backend, else None."""
    try:
        keyring: Any = importlib.import_module("keyring")
        backend = keyring.get_keyring()
    except Exception:  # not installed, or no backend can load
        return None
    name = type(backend).__module__ + "." + type(backend).__name__
    if name.startswith("keyring.backends.fail") or name.endswith(".null.Keyring"):
        return None
    if type(backend).__name__ == "ChainerBackend" and not getattr(backend, "backends", None):
        return None
    return keyring


def open_token_store(environ: Mapping[str, str]) -> TokenStore:
    """The keyring when one exists (and ``MCPCOST_TOKEN_STORE`` is not ``file``), else the file."""
    directory = state_dir(environ)
    if environ.get("MCPCOST_TOKEN_STORE", "").lower() != "file":
        module = _usable_keyring()
        if module is not None:
            return KeyringTokenStore(module, directory)
    return FileTokenStore(directory)
