"""Adoption: badge sightings found by code search, and the page that lists them."""
