"""results/data.json: every entry with its status, numbers and source, valid against the
versioned schema in spec/; the leaderboard's coverage table counts the same rows."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from mcpcost.core.jsonvalue import parse_json, stringify
from mcpcost.core.model import render_measurement
from mcpcost.core.status import Status
from mcpcost.sweep.catalog import Catalog, CatalogEntry
from mcpcost.sweep.data_json import COVERAGE_ORDER
from mcpcost.sweep.estimator import fit
from mcpcost.sweep.files import parse_measurement
from mcpcost.sweep.publish import publish
from tests.helpers.paths import ROOT
from tests.helpers.sweep_sites import (
    CATALOG,
    measured,
    site_fixture,  # noqa: F401  (the fixture)
    tools,
    write,
)

SCHEMA = json.loads((ROOT / "spec" / "dataset.schema.json").read_text())


def test_schema_and_coverage_know_every_status() -> None:
    assert set(SCHEMA["$defs"]["status"]["enum"]) == {str(s) for s in Status}
    assert set(COVERAGE_ORDER) == set(Status)


def test_data_json_lists_every_entry_with_status_source_and_numbers(site: Path) -> None:
    registry = CatalogEntry(
        name="io.github.x-y",
        command="npx -y @x/y@1.0.0",
        category="registry",
        version="1.0.0",
        registry_name="io.github.x/y",
    )
    catalog = Catalog((*CATALOG.entries, registry), "servers.yaml")
    publish(site, catalog)
    doc = parse_json((site / "results" / "data.json").read_bytes())
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    assert isinstance(doc, dict)
    entries = {e["name"]: e for e in doc["entries"]}
    assert list(entries) == sorted(entries)
    assert doc["entryCount"] == len(entries) == 6
    alpha = entries["alpha"]
    assert alpha["status"] == "measured" and alpha["toolCount"] == 5
    assert alpha["totalTokens"] > 0 and len(alpha["canonicalSha256"]) == 64
    assert alpha["sessionStart"]["isFloor"] is False
    assert alpha["isolation"] == {"docker": False}
    assert alpha["source"] == {"kind": "catalog", "package": None, "version": None}
    broken = entries["broken"]
    assert broken["status"] == "startup-failure" and broken["totalTokens"] is None
    assert broken["canonicalSha256"] is None and broken["sessionStart"] is None
    assert entries["walled"]["status"] == "remote-auth-wall"
    assert entries["walled"]["measuredAt"] is None
    assert entries["io.github.x-y"]["status"] == "not-yet-run"
    assert entries["io.github.x-y"]["source"] == {
        "kind": "registry",
        "name": "io.github.x/y",
        "version": "1.0.0",
    }
    coverage = doc["coverage"]
    assert list(coverage) == [str(s) for s in COVERAGE_ORDER]
    assert coverage["measured"] == 3 and coverage["startup-failure"] == 1
    assert coverage["not-yet-run"] == 1 and coverage["gone"] == 0
    assert sum(coverage.values()) == 6
    board = (site / "results" / "leaderboard.md").read_text()
    assert "## Coverage" in board
    assert "| measured | 3 |" in board and "| needs-config | 0 |" in board
    assert doc["estimator"]["n"] == 3 and doc["estimator"]["heldOut"] is not None
    html = (site / "docs" / "dashboard.html").read_text()
    assert "<h2>Coverage</h2>" in html
    assert '<tr><td><span class="chip">measured</span></td><td>3</td></tr>' in html


def test_held_out_error_is_each_server_against_the_fit_on_the_others() -> None:
    samples = [(100, 25), (200, 50), (400, 120)]
    est = fit(samples)
    assert est is not None and est.held_out_mape is not None
    # without (400, 120): k = 0.25, estimate 100 -> 20 off of 120 (16.67%)
    # without (100, 25): k = (10000 + 48000) / 200000 = 0.29, estimate 29 -> 16%
    # without (200, 50): k = (2500 + 48000) / 170000, estimate 59 -> 18%
    assert est.held_out_max_abs_pct_error is not None
    assert round(est.held_out_max_abs_pct_error, 2) == 18.0
    assert round(est.held_out_mape, 2) == round((16.0 + 18.0 + 100 * 20 / 120) / 3, 2)
    assert est.held_out_mape > est.mape  # held out, the error a new server should expect
    assert fit([(100, 25)]) is not None and fit([(100, 25)]).held_out_mae is None  # type: ignore[union-attr]


def test_the_registry_entry_travels_in_the_measurement_and_names_the_source(
    tmp_path: Path,
) -> None:
    m = measured("io.github.x-y", tools(2)).with_(
        registry_entry={"name": "io.github.x/y", "version": "2.1.0"}
    )
    text = render_measurement(m)
    back = parse_measurement(text.encode())
    assert back is not None and back.registry_entry == {"name": "io.github.x/y", "version": "2.1.0"}
    assert back.extras == {}
    odd = parse_json(text.encode())
    assert isinstance(odd, dict)
    odd["registryEntry"] = {"name": 3}
    kept = parse_measurement(stringify(odd).encode())
    assert kept is not None and kept.registry_entry is None
    assert kept.extras == {"registryEntry": {"name": 3}}  # another shape is kept as read
    write(tmp_path, "io.github.x-y", m)
    publish(tmp_path, None)  # no catalog: the source comes from the record itself
    doc = parse_json((tmp_path / "results" / "data.json").read_bytes())
    assert isinstance(doc, dict)
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    (entry,) = doc["entries"]
    assert entry["source"] == {"kind": "registry", "name": "io.github.x/y", "version": "2.1.0"}


def test_what_the_registry_says_of_an_entry_travels_to_the_source(tmp_path: Path) -> None:
    said = {
        "name": "io.github.x/y",
        "version": "2.1.0",
        "status": "deprecated",
        "statusMessage": "Moved to io.github.x/z",
        "statusChangedAt": "2026-11-02T09:00:00Z",
        "postInstallInstructions": [{"description": "Log in once", "command": "y login"}],
    }
    m = measured("io.github.x-y", tools(2)).with_(registry_entry=said)
    back = parse_measurement(render_measurement(m).encode())
    assert back is not None and back.registry_entry == said and back.extras == {}
    write(tmp_path, "io.github.x-y", m)
    publish(tmp_path, None)
    doc = parse_json((tmp_path / "results" / "data.json").read_bytes())
    assert isinstance(doc, dict)
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    (entry,) = doc["entries"]
    assert entry["source"] == {"kind": "registry", **said}
