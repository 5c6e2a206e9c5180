"""A stand-in for a person's browser, named by ``BROWSER`` in tests: it GETs the URL it is given
and follows redirects, as a browser does once the person has approved the sign-in (the fake
authorization server approves at once). Exit 0 when the chain ends on a 200 page."""

from __future__ import annotations

import sys

import requests

if __name__ == "__main__":
    resp = requests.get(sys.argv[1], allow_redirects=True, timeout=30)
    sys.exit(0 if resp.status_code == 200 else 1)
