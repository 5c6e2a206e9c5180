"""Unit tests: pure logic in this process. No child process, no socket, no container; files only
under a temporary directory. tests/unit/conftest.py refuses processes and sockets here."""
