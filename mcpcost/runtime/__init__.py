"""Runtime helpers: the one file writer, worker threads, process trees and exit, the clock, templates."""
