/* The engine's log, configured as CLRIE's is:
 *
 *   MicrosoftInstrumentationEngine_LogLevel          Errors|Messages|Dumps|All|None (any case)
 *   MicrosoftInstrumentationEngine_LogLevel_<GUID>   the same for one plugin (36 chars, no braces)
 *   MicrosoftInstrumentationEngine_FileLogPath       a file, or a folder for ProfilerLog_<pid>.txt
 *   MicrosoftInstrumentationEngine_FileLog           the level for the file alone
 *   MicrosoftInstrumentationEngine_DisableLogMethodPrefix   (set) no "[IM:guid]" prefix
 *
 * Unlike CLRIE, errors are always on: with no log file they go to stderr, so a plugin that
 * fails to load is never silent. Messages and dumps go where errors go once asked for. Lines
 * read "LogError[HH:MM:SS]:text" and "LogMessage[HH:MM:SS]:text", a plugin's with
 * "[IM:<lower-case guid>]" before the text, as CLRIE writes them; dumps have no time. A host sink
 * (IProfilerManagerLoggingHost) can be added at run time.
 *
 * Views: several profiler managers (one per runtime) share one process, one log file and one set
 * of variables, but each has its own host sink and its own levels (a plugin's SetLoggingHost or
 * SetLoggingFlags concerns its runtime only). A view (clrie_pm_log_init_view) is a log of its
 * own that writes to the stream of a shared log, the process log, and reads that log's
 * per-plugin levels; its host and its kinds are its own. The file, its failure and the
 * per-plugin levels stay with the shared log.
 *
 * The engine and the proxy both log through this (the proxy links only log.o and env.o), so
 * they read the variables alike, open the same file the same way and write the same lines.
 *
 * The log file is never a way to hang or hijack the process. It is opened without blocking
 * (a FIFO with no reader cannot stall startup) and kept only when it is a regular file or a
 * character device (/dev/tty, /dev/null), or the process's own stderr whatever it is
 * (/dev/stderr under a pipe); a FIFO, a socket, a folder or a block device is refused with one
 * error line on stderr. The last component is not followed when
 * it is a symbolic link in a folder that group or others can write to (sticky or not), and
 * a folder named for ProfilerLog_<pid>.txt is refused when group or others can write to it
 * and it is not sticky; the file in it is never followed. When a write to the file fails
 * (EIO, ENOSPC, EBADF), one error line on stderr says so and why, and every later line goes
 * to stderr. Interrupted and short writes are retried; nothing is retried in a loop.
 *
 * Thread safety: every function may be called from any thread at any time after init. Checking
 * whether a kind is enabled is one atomic load, so callers format nothing for disabled kinds. */
#ifndef CLRIE_PM_LOG_H
#define CLRIE_PM_LOG_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "clrie/os/thread.h"

enum clrie_pm_log_kind {
    CLRIE_PM_LOG_ERRORS = 0x1,
    CLRIE_PM_LOG_MESSAGES = 0x2,
    CLRIE_PM_LOG_DUMPS = 0x4,
    CLRIE_PM_LOG_ALL = 0x7,
};

/* Receives every line the host asked for, already formatted, without the trailing newline. */
struct clrie_pm_log_host {
    void (*write)(void *context, enum clrie_pm_log_kind kind, const char *line);
    void *context;
    unsigned kinds;
};

struct clrie_pm_log_override {
    char guid[37]; /* upper case, no braces */
    unsigned kinds;
};

struct clrie_pm_log {
    /* The log whose stream (fd, file_failed, file_path) and per-plugin levels (overrides) this
     * one uses: itself, or for a view the shared log, which must outlive it. NULL reads as
     * itself. */
    struct clrie_pm_log *shared;
    atomic_uint kinds;        /* union of what some sink takes: the fast check */
    atomic_uint stream_kinds; /* to the file, or else stderr */
    int fd;                   /* the log file, or -1 for stderr; open until finish */
    atomic_bool file_failed;  /* a write to fd failed: every line since goes to stderr */
    char *file_path;          /* FileLogPath as given: for the lines about the file, and to
                               * make it again when it is deleted */
    struct clrie_os_mutex renew_lock; /* one thread makes a deleted log file again */
    const char *tag;          /* written after the prefix of every line but dumps, or NULL */
    bool method_prefix;
    size_t override_count;
    struct clrie_pm_log_override *overrides;
    struct clrie_os_mutex host_lock; /* protects host, and serialises calls into it */
    struct clrie_pm_log_host host;
};

/* Parses a level: words of letters, any case, between any other characters ("Errors|Messages",
 * "all", "dumps, errors"). A word that is none of Errors, Messages, Dumps, All and None still
 * counts for what CLRIE finds in it (CLRIE looks for those words as case-sensitive substrings
 * anywhere: "ErrorsMessages"); a word with nothing in it sets *unknown (may be NULL). */
unsigned clrie_pm_log_parse_kinds(const char *text, bool *unknown);

/* Configures the log from an environment (NAME=VALUE strings, NULL-terminated; the engine
 * passes environ). Problems with the configuration itself (a log file that cannot be opened,
 * unknown level words) are logged as errors once the log is usable. Returns 0 or -ENOMEM. */
int clrie_pm_log_init(struct clrie_pm_log *log, char *const *envp);
/* The same, for a log whose lines say who wrote them: tag (a string that outlives the log, such
 * as "clrie proxy: ") is written after the "LogError[HH:MM:SS]: " prefix of every line. */
int clrie_pm_log_init_tagged(struct clrie_pm_log *log, char *const *envp, const char *tag);
/* A view of shared (see the top of this file): its levels start as shared's; it has no host.
 * shared must outlive it. Returns 0. */
int clrie_pm_log_init_view(struct clrie_pm_log *log, struct clrie_pm_log *shared);
/* Closes the file of a log that owns one; for a view, only the view's own state goes. */
void clrie_pm_log_finish(struct clrie_pm_log *log);
/* The descriptor lines are written to: the shared log's file, or -1 for stderr. */
int clrie_pm_log_fd(struct clrie_pm_log *log);

static inline bool clrie_pm_log_enabled(struct clrie_pm_log *log, enum clrie_pm_log_kind kind)
{
    return (atomic_load_explicit(&log->kinds, memory_order_relaxed) & (unsigned)kind) != 0;
}

/* The kinds written for one plugin: its own LogLevel_<GUID> if set, else the global kinds. */
unsigned clrie_pm_log_kinds_for(struct clrie_pm_log *log, const char *guid36);

/* Writes one line of the given kind, on behalf of the plugin guid36 (NULL for the engine). */
void clrie_pm_log_write(struct clrie_pm_log *log, enum clrie_pm_log_kind kind, const char *guid36,
                        const char *fmt, ...) __attribute__((format(__printf__, 4, 5)));

/* A line built in pieces and written whole, for text said in parts (a list, a name that must
 * be escaped). Caller-owned storage used by one thread; every begun line must be ended. When
 * the line goes nowhere (its kind is off, or memory ran out) the calls do nothing. */
struct clrie_pm_log_line {
    struct clrie_pm_log *log;
    enum clrie_pm_log_kind kind;
    bool to_stream; /* the file (or stderr) takes it; the host decides for itself */
    bool active;    /* false when the line goes nowhere (or memory ran out) */
    char *text;     /* malloc'd, NUL-terminated, with room for one more byte */
    size_t len, capacity;
};

/* Starts a line as clrie_pm_log_write would write it. */
void clrie_pm_log_line_begin(struct clrie_pm_log_line *line, struct clrie_pm_log *log,
                             enum clrie_pm_log_kind kind, const char *guid36, const char *fmt, ...)
    __attribute__((format(__printf__, 5, 6)));
void clrie_pm_log_line_append(struct clrie_pm_log_line *line, const char *fmt, ...)
    __attribute__((format(__printf__, 2, 3)));
/* Appends text with control characters, bytes that are not well-formed UTF-8, line separators
 * and bidirectional controls written as \xNN (each byte), and '\' as \x5c where an 'x'
 * follows it, so a hostile name (a folder called "x\nLogError[...]") can neither forge a
 * line nor reach a terminal, and "\xNN" in a line is always an escape. Windows paths and names
 * in other scripts read as they are: C:\Program Files\plügin-中. */
void clrie_pm_log_line_append_escaped(struct clrie_pm_log_line *line, const char *text);
/* Writes the line and frees what it held. */
void clrie_pm_log_line_end(struct clrie_pm_log_line *line);

/* The process-wide log, configured from environ the first time it is asked for: the one the
 * managers' views share (their file and per-plugin levels), and the log of what writes for no
 * manager (the class factory, GetInstrumentationEngineLogger, surplus Releases). */
struct clrie_pm_log *clrie_pm_process_log(void);

/* Changes what the file (or stderr) receives; errors stay on. */
void clrie_pm_log_set_kinds(struct clrie_pm_log *log, unsigned kinds);

/* Installs (or, with host NULL, removes) the host sink. */
void clrie_pm_log_set_host(struct clrie_pm_log *log, const struct clrie_pm_log_host *host);

#define CLRIE_PM_LOG_ERROR(log, ...)                                                               \
    do {                                                                                           \
        if (clrie_pm_log_enabled((log), CLRIE_PM_LOG_ERRORS))                                      \
            clrie_pm_log_write((log), CLRIE_PM_LOG_ERRORS, NULL, __VA_ARGS__);                     \
    } while (0)
#define CLRIE_PM_LOG_MESSAGE(log, ...)                                                             \
    do {                                                                                           \
        if (clrie_pm_log_enabled((log), CLRIE_PM_LOG_MESSAGES))                                    \
            clrie_pm_log_write((log), CLRIE_PM_LOG_MESSAGES, NULL, __VA_ARGS__);                   \
    } while (0)

/* A name only some lines need, made when one does (a method's full name costs metadata reads,
 * and most methods never have a line): get(ctx) returns it, owned by ctx. */
struct clrie_pm_log_name {
    const char *(*get)(void *ctx);
    void *ctx;
};

static inline const char *clrie_pm_log_name_get(const struct clrie_pm_log_name *name)
{
    const char *made = name->get ? name->get(name->ctx) : NULL;
    return made ? made : "(unnamed method)";
}

#endif
