"""Where a sweep's files live under an output root, and atomic writes."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from mcpcost.core.jsonvalue import parse_json
from mcpcost.core.model import Measurement
from mcpcost.errors import InputError


def measurement_path(root: Path, name: str) -> Path:
    return root / "results" / name / "measurement.json"


def badge_path(root: Path, name: str) -> Path:
    return root / "badges" / f"{name}.json"


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write via a temp file in the same directory and ``os.replace``; readers never see half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def load_measurement(path: Path) -> Measurement | None:
    """A measurement file, or None when it is missing or unparseable (never raises)."""
    data = read_bytes(path)
    if data is None:
        return None
    try:
        return Measurement.from_dict(parse_json(data))
    except InputError:
        return None


def load_measurements(root: Path) -> dict[str, Measurement]:
    """Every readable ``results/<name>/measurement.json`` under root, by directory name."""
    out: dict[str, Measurement] = {}
    results = root / "results"
    if not results.is_dir():
        return out
    for sub in sorted(results.iterdir()):
        if sub.is_dir():
            m = load_measurement(sub / "measurement.json")
            if m is not None:
                out[sub.name] = m
    return out
