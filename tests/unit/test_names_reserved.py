"""A result name never takes the place of a file the published tree keeps for itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpcost.core.calibration import CALIBRATION_REL
from mcpcost.core.divergence import COLUMNS
from mcpcost.core.names import RESERVED_NAMES, name_problem
from mcpcost.sweep.data_json import DATASET_REL
from mcpcost.sweep.interim import NOT_YET_RUN_REL
from mcpcost.sweep.publish import publish
from mcpcost.sweep.registry_source import listing_from


def tree_files(root: Path, rel: str) -> set[str]:
    return {p.name for p in (root / rel).iterdir() if p.is_file()}


def test_every_file_a_publish_keeps_beside_the_results_is_a_reserved_name(tmp_path: Path) -> None:
    written = publish(tmp_path, None).written
    assert written  # an empty tree still gets its history, leaderboard, dataset and index
    results = tree_files(tmp_path, "results")
    pages = {name.removesuffix(".md") for name in tree_files(tmp_path, "docs/servers")}
    conditional = [CALIBRATION_REL, NOT_YET_RUN_REL, DATASET_REL, "results/estimator.json"]
    conditional += [c.rel for c in COLUMNS.values()]
    kept = results | pages | {rel.rsplit("/", 1)[-1] for rel in conditional}
    assert kept <= RESERVED_NAMES


@pytest.mark.parametrize("name", ["history.csv", "DATA.JSON", "index", "leaderboard.md"])
def test_a_reserved_name_is_no_result_name(name: str) -> None:
    assert "the published tree keeps" in (name_problem(name) or "")


def test_registry_entries_named_like_the_trees_files_get_other_slugs() -> None:
    items = [
        {"server": {"name": name, "version": "1"}, "_meta": {}}
        for name in ("history.csv", "History.CSV", "index", "data.json")
    ]
    listing = listing_from(items, 1)
    slugs = [r.slug for r in listing.recorded]
    assert len(set(slugs)) == 4
    assert all(name_problem(s) is None for s in slugs)
