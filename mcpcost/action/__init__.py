"""The GitHub Action: a thin adapter that reads ``INPUT_*``, routes by event and writes results.

``main.main()`` builds the real collaborators (HTTP session, git, the measure function) from the
environment; everything below it takes them as parameters.
"""
