"""Sweeps: measure a catalog of servers, guard against a broken harness, publish the results."""
