"""Unit tests: pure logic in this process. No child process, no socket, no container; they write
files only under a temporary directory. tests/unit/conftest.py refuses processes and sockets here."""
