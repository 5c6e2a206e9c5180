"""Runtime helpers: the one file writer, worker threads, process trees and exit, the clock,
templates; and the boundaries for what comes from the world: bounded HTTP body reads
(``http_body``), the one HTTP session class (``http_session``), the address policy
(``addresses``) and bounded reads of files (``world_files``)."""
