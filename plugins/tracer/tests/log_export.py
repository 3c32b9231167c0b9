"""The plugin's export clrie_tracer_log, called as the managed library calls it (by name, from
outside the engine): without a running tracer plugin in the process it refuses with -1, for
every level and for a NULL message, and writes nothing.

Usage: log_export.py PLUGIN_SO
Exit: 0 passed, 1 failed."""
import ctypes
import sys

plugin = ctypes.CDLL(sys.argv[1])
log = plugin.clrie_tracer_log
log.argtypes = [ctypes.c_int, ctypes.c_char_p]
log.restype = ctypes.c_int
failures = []
for level in (0, 1, 2, 3, -1):
    got = log(level, "cannot make the tracer factory 'X'\nsecond line".encode("utf-8"))
    if got != -1:
        failures.append("level %d without a plugin instance: %d, expected -1" % (level, got))
if log(0, None) != -1:
    failures.append("a NULL message: expected -1")
for failure in failures:
    print("FAILED: " + failure)
print("%d checks, %d failed" % (6, len(failures)))
sys.exit(1 if failures else 0)
