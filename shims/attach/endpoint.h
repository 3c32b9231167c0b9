/* The runtime's diagnostics endpoint of a process, and one request and its answer over it:
 * a Unix socket $TMPDIR/dotnet-diagnostic-<pid>-<key>-socket on POSIX (endpoint_posix.c), the
 * named pipe \\.\pipe\dotnet-diagnostic-<pid> on Windows (endpoint_win32.c). The bytes that go
 * over it are the same on both. */
#ifndef CLRIE_ATTACH_ENDPOINT_H
#define CLRIE_ATTACH_ENDPOINT_H

#include <stddef.h>
#include <stdint.h>

/* A connection to a process's diagnostics endpoint. */
struct attach_endpoint;

/* Connects to the diagnostics endpoint of process pid, waiting at most timeout_ms for a busy
 * one: 0 and the connection in *out (close it with attach_endpoint_close). Else a negative
 * errno value and why[] a sentence for the user without the program's name: -ENOENT when the
 * process has no endpoint ("process 42 has no diagnostics socket in /tmp: it is not a .NET
 * process, ..."), -EACCES when the system denies it ("permission denied on ...: ..."), other
 * values when connecting failed ("cannot connect to ...: ..."). */
int attach_endpoint_open(unsigned long pid, unsigned timeout_ms, struct attach_endpoint **out,
                         char *why, size_t why_size);

/* Sends the len bytes of request, then reads exactly answer_len bytes of the answer, waiting
 * at most timeout_ms for them: 0; -ETIMEDOUT when they did not come in time; -EPIPE when the
 * process closed the connection first; another negative errno value when the system failed,
 * with why[] saying how. */
int attach_endpoint_exchange(struct attach_endpoint *endpoint, const uint8_t *request, size_t len,
                             uint8_t *answer, size_t answer_len, unsigned timeout_ms, char *why,
                             size_t why_size);

/* Closes the connection; NULL is fine. */
void attach_endpoint_close(struct attach_endpoint *endpoint);

#endif
