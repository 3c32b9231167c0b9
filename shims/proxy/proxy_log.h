/* The proxy's log: one line per event, to MicrosoftInstrumentationEngine_FileLogPath (a file,
 * or a folder that gets ProfilerLog_<pid>.txt) or else to stderr, in CLRIE's line format.
 * A line is started with proxy_log_error()/proxy_log_message(), extended with the append
 * functions and written whole by proxy_log_end(). Lines are per thread. */
#ifndef CLRIE_PROXY_LOG_H
#define CLRIE_PROXY_LOG_H

#include <stdbool.h>

void proxy_log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void proxy_log_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void proxy_log_append(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Appends text with control and non-ASCII bytes written as \xNN, so a hostile folder name
 * cannot break the line or the terminal. */
void proxy_log_append_escaped(const char *text);
void proxy_log_end(void);

/* True if MicrosoftInstrumentationEngine_LogLevel asks for Messages (or All). */
bool proxy_log_messages_enabled(void);

#endif
