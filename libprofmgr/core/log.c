#include "log.h"

#include "clrie/os/env.h"
#include "clrie/os/error.h"
#include "clrie/os/log_file.h"
#include "env.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define ENV_PREFIX "MicrosoftInstrumentationEngine_"
#define LEVEL_PREFIX ENV_PREFIX "LogLevel_"

static const struct {
    const char *word;
    unsigned kinds;
} level_words[] = {
    {"All", CLRIE_PM_LOG_ALL},
    {"Errors", CLRIE_PM_LOG_ERRORS},
    {"Messages", CLRIE_PM_LOG_MESSAGES},
    {"Dumps", CLRIE_PM_LOG_DUMPS},
    {"None", 0},
};

/* Whether the n bytes at text contain word. */
static bool contains(const char *text, size_t n, const char *word)
{
    size_t w = strlen(word);
    for (size_t i = 0; w <= n && i <= n - w; i++)
        if (memcmp(text + i, word, w) == 0)
            return true;
    return false;
}

static unsigned parse_word(const char *word, size_t n, bool *unknown)
{
    const size_t count = sizeof(level_words) / sizeof(level_words[0]);
    for (size_t i = 0; i < count; i++)
        if (strlen(level_words[i].word) == n && strncasecmp(word, level_words[i].word, n) == 0)
            return level_words[i].kinds;
    /* Not a word of ours: what CLRIE would find in it, the words as case-sensitive substrings. */
    unsigned kinds = 0;
    bool found = false;
    for (size_t i = 0; i < count; i++) {
        if (level_words[i].kinds && contains(word, n, level_words[i].word)) {
            kinds |= level_words[i].kinds;
            found = true;
        }
    }
    if (!found)
        *unknown = true;
    return kinds;
}

unsigned clrie_pm_log_parse_kinds(const char *text, bool *unknown)
{
    unsigned kinds = 0;
    bool strange = false;
    const char *p = text ? text : "";
    for (;;) {
        while (*p && !isalpha((unsigned char)*p))
            p++;
        const char *word = p;
        while (isalpha((unsigned char)*p))
            p++;
        if (p == word)
            break;
        kinds |= parse_word(word, (size_t)(p - word), &strange);
    }
    if (unknown)
        *unknown = strange;
    return kinds;
}

static int read_overrides(struct clrie_pm_log *log, char *const *envp)
{
    size_t prefix = strlen(LEVEL_PREFIX);
    for (char *const *e = envp; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!clrie_os_env_entry_after(*e, LEVEL_PREFIX) || !eq ||
            eq - *e != (ptrdiff_t)prefix + 36)
            continue;
        void *grown = realloc(log->overrides, (log->override_count + 1) * sizeof(*log->overrides));
        if (!grown)
            return -ENOMEM;
        log->overrides = grown;
        struct clrie_pm_log_override *o = &log->overrides[log->override_count++];
        for (size_t i = 0; i < 36; i++)
            o->guid[i] = (char)toupper((unsigned char)(*e)[prefix + i]);
        o->guid[36] = '\0';
        bool strange = false;
        o->kinds = clrie_pm_log_parse_kinds(eq + 1, &strange) | CLRIE_PM_LOG_ERRORS;
        if (strange) /* the stream is open and takes errors already */
            clrie_pm_log_write(log, CLRIE_PM_LOG_ERRORS, NULL,
                               "%.*s='%s' has a word other than Errors, Messages, Dumps, All or "
                               "None",
                               (int)(eq - *e), *e, eq + 1);
    }
    return 0;
}

/* The log holding the stream and the per-plugin levels. */
static struct clrie_pm_log *shared_of(struct clrie_pm_log *log)
{
    return log->shared ? log->shared : log;
}

static void update_kinds(struct clrie_pm_log *log)
{
    const struct clrie_pm_log *shared = shared_of(log);
    unsigned kinds = atomic_load(&log->stream_kinds) | log->host.kinds;
    for (size_t i = 0; i < shared->override_count; i++)
        kinds |= shared->overrides[i].kinds;
    atomic_store(&log->kinds, kinds);
}

int clrie_pm_log_init(struct clrie_pm_log *log, char *const *envp)
{
    return clrie_pm_log_init_tagged(log, envp, NULL);
}

int clrie_pm_log_init_tagged(struct clrie_pm_log *log, char *const *envp, const char *tag)
{
    *log = (struct clrie_pm_log){.fd = -1, .tag = tag};
    log->shared = log;
    clrie_os_mutex_init(&log->host_lock);
    clrie_os_mutex_init(&log->renew_lock);

    bool strange_level = false, strange_file_level = false;
    const char *level = clrie_pm_env_lookup(envp, ENV_PREFIX "LogLevel");
    const char *file_level = clrie_pm_env_lookup(envp, ENV_PREFIX "FileLog");
    const char *path = clrie_pm_env_path(envp, ENV_PREFIX "FileLogPath");
    unsigned kinds = clrie_pm_log_parse_kinds(level, &strange_level) | CLRIE_PM_LOG_ERRORS;
    int file_error = 0;
    const char *file_refusal = NULL;

    log->method_prefix = clrie_pm_env_lookup(envp, ENV_PREFIX "DisableLogMethodPrefix") == NULL;
    atomic_init(&log->stream_kinds, kinds);
    if (path) {
        file_error = -clrie_os_log_file_open(path, &log->fd, &file_refusal);
        if (log->fd >= 0)
            log->file_path = strdup(path); /* NULL only costs the path in a later line */
        if (log->fd >= 0 && file_level)
            atomic_init(&log->stream_kinds,
                        clrie_pm_log_parse_kinds(file_level, &strange_file_level) |
                            CLRIE_PM_LOG_ERRORS);
    }
    int r = read_overrides(log, envp);
    update_kinds(log);

    if (log->fd < 0 && (file_refusal || file_error)) {
        struct clrie_pm_log_line line;
        clrie_pm_log_line_begin(&line, log, CLRIE_PM_LOG_ERRORS, NULL,
                                "cannot open the log file '");
        clrie_pm_log_line_append_escaped(&line, path);
        char buf[128];
        clrie_pm_log_line_append(&line, "' (%s); logging to stderr",
                                 file_refusal ? file_refusal
                                              : clrie_os_strerror(file_error, buf, sizeof(buf)));
        clrie_pm_log_line_end(&line);
    }
    if (strange_level)
        clrie_pm_log_write(log, CLRIE_PM_LOG_ERRORS, NULL,
                           ENV_PREFIX "LogLevel='%s' has a word other than Errors, Messages, "
                                      "Dumps, All or None",
                           level);
    if (strange_file_level)
        clrie_pm_log_write(log, CLRIE_PM_LOG_ERRORS, NULL,
                           ENV_PREFIX "FileLog='%s' has a word other than Errors, Messages, "
                                      "Dumps, All or None",
                           file_level);
    return r;
}

int clrie_pm_log_init_view(struct clrie_pm_log *log, struct clrie_pm_log *shared)
{
    shared = shared_of(shared);
    *log = (struct clrie_pm_log){
        .shared = shared, .fd = -1, .tag = shared->tag, .method_prefix = shared->method_prefix};
    clrie_os_mutex_init(&log->host_lock);
    clrie_os_mutex_init(&log->renew_lock);
    atomic_init(&log->stream_kinds, atomic_load(&shared->stream_kinds));
    update_kinds(log);
    return 0;
}

void clrie_pm_log_finish(struct clrie_pm_log *log)
{
    if (!log)
        return;
    if (shared_of(log) == log) {
        if (log->fd >= 0)
            clrie_os_close(log->fd);
        free(log->file_path);
        free(log->overrides);
    }
    clrie_os_mutex_finish(&log->host_lock);
    clrie_os_mutex_finish(&log->renew_lock);
    *log = (struct clrie_pm_log){.fd = -1};
}

int clrie_pm_log_fd(struct clrie_pm_log *log)
{
    return shared_of(log)->fd;
}

unsigned clrie_pm_log_kinds_for(struct clrie_pm_log *log, const char *guid36)
{
    const struct clrie_pm_log *shared = shared_of(log);
    for (size_t i = 0; guid36 && i < shared->override_count; i++)
        if (strcasecmp(shared->overrides[i].guid, guid36) == 0)
            return shared->overrides[i].kinds;
    return atomic_load(&log->stream_kinds);
}

/* The log file was deleted under the process (by an operator, a clean-up, a rotation that
 * does not signal): what is written to it reaches nobody. Makes it again at its path, the line
 * saying so at its top (written before the file takes other threads' lines), or else goes to
 * stderr from now on, saying why there. */
static void renew_deleted_file(struct clrie_pm_log *log)
{
    const char *path = log->file_path ? log->file_path : "?";
    struct clrie_pm_log_line renewed;
    clrie_pm_log_line_begin(&renewed, log, CLRIE_PM_LOG_ERRORS, NULL, "the log file '");
    clrie_pm_log_line_append_escaped(&renewed, path);
    clrie_pm_log_line_append(&renewed, "' was deleted; this is a new one at the same path");
    bool whole = renewed.active && renewed.text;
    if (whole)
        renewed.text[renewed.len] = '\n'; /* line_vput keeps room for it */
    const char *refusal = NULL;
    int error = 0;
    bool renewing = false;
    clrie_os_mutex_lock(&log->renew_lock);
    if (clrie_os_log_file_deleted(log->fd)) { /* not made again by another thread meanwhile */
        renewing = true;
        error = log->file_path ? -clrie_os_log_file_replace(log->fd, log->file_path,
                                                            whole ? renewed.text : "",
                                                            whole ? renewed.len + 1 : 0,
                                                            &refusal)
                               : ENOMEM;
        if (error || refusal)
            atomic_store_explicit(&log->file_failed, true, memory_order_release);
    }
    clrie_os_mutex_unlock(&log->renew_lock);
    if (whole)
        renewed.text[renewed.len] = '\0';
    if (renewing && !error && !refusal) {
        /* in the new file already: the debugger and the host get it */
        if (whole)
            clrie_os_debug_output(renewed.text, renewed.len);
        renewed.to_stream = false;
        clrie_pm_log_line_end(&renewed);
        return;
    }
    renewed.active = false; /* not this line: none, or the one below */
    clrie_pm_log_line_end(&renewed);
    if (!renewing)
        return;
    struct clrie_pm_log_line line;
    clrie_pm_log_line_begin(&line, log, CLRIE_PM_LOG_ERRORS, NULL, "the log file '");
    clrie_pm_log_line_append_escaped(&line, path);
    char buf[128];
    clrie_pm_log_line_append(&line,
                             "' was deleted and cannot be made again (%s); logging to stderr "
                             "from now on",
                             refusal ? refusal : clrie_os_strerror(error, buf, sizeof(buf)));
    clrie_pm_log_line_end(&line);
}

static void line_to_stream(struct clrie_pm_log *view, const char *text, size_t len)
{
    struct clrie_pm_log *log = shared_of(view);
    clrie_os_debug_output(text, len); /* a debugger's view, as CLRIE on Windows; no-op elsewhere */
    if (log->fd >= 0 && !atomic_load_explicit(&log->file_failed, memory_order_acquire) &&
        clrie_os_log_file_deleted(log->fd))
        renew_deleted_file(log);
    if (log->fd >= 0 && !atomic_load_explicit(&log->file_failed, memory_order_acquire)) {
        int error = -clrie_os_write_all(log->fd, text, len);
        if (error == 0)
            return;
        /* The first writer to see the file fail says so; the descriptor stays open until
         * finish, since other threads may still be writing to it. */
        bool already = false;
        if (atomic_compare_exchange_strong(&log->file_failed, &already, true)) {
            char buf[128];
            struct clrie_pm_log_line line;
            clrie_pm_log_line_begin(&line, log, CLRIE_PM_LOG_ERRORS, NULL,
                                    "writing to the log file '");
            clrie_pm_log_line_append_escaped(&line, log->file_path ? log->file_path : "?");
            clrie_pm_log_line_append(&line, "' failed (%s); logging to stderr from now on",
                                     clrie_os_strerror(error, buf, sizeof(buf)));
            clrie_pm_log_line_end(&line);
        }
    }
    clrie_os_write_all(CLRIE_OS_STDERR, text, len); /* nowhere left to say that this failed */
}

/* Appends formatted text to the line's buffer, which keeps room for a '\n' and a NUL. */
__attribute__((format(__printf__, 2, 0))) static void line_vput(struct clrie_pm_log_line *line,
                                                            const char *fmt, va_list ap)
{
    if (!line->active)
        return;
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(line->text + line->len, line->capacity - line->len - 1, fmt, ap);
    if (n >= 0 && (size_t)n >= line->capacity - line->len - 1) {
        size_t wanted = line->len + (size_t)n + 2;
        size_t capacity = line->capacity * 2 > wanted ? line->capacity * 2 : wanted;
        char *bigger = realloc(line->text, capacity);
        if (bigger) {
            line->text = bigger;
            line->capacity = capacity;
            n = vsnprintf(line->text + line->len, capacity - line->len - 1, fmt, again);
        } else {
            n = -1;
        }
    }
    va_end(again);
    if (n < 0) { /* out of memory, or a format the C library refuses: the line is dropped */
        line->active = false;
        return;
    }
    line->len += (size_t)n;
}

__attribute__((format(__printf__, 2, 3))) static void line_put(struct clrie_pm_log_line *line,
                                                           const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    line_vput(line, fmt, ap);
    va_end(ap);
}

__attribute__((format(__printf__, 5, 0))) static void
line_begin(struct clrie_pm_log_line *line, struct clrie_pm_log *log, enum clrie_pm_log_kind kind,
           const char *guid36, const char *fmt, va_list ap)
{
    /* A plugin's own level decides for its lines; the engine's lines follow the stream's. */
    unsigned to_stream =
        guid36 ? clrie_pm_log_kinds_for(log, guid36) : atomic_load(&log->stream_kinds);
    *line = (struct clrie_pm_log_line){
        .log = log, .kind = kind, .to_stream = (to_stream & (unsigned)kind) != 0};
    if (!line->to_stream && !clrie_pm_log_enabled(log, kind))
        return;
    line->capacity = 256;
    line->text = malloc(line->capacity);
    if (!line->text)
        return;
    line->text[0] = '\0';
    line->active = true;
    /* CLRIE's prefixes, byte for byte, so that what parses its logs parses these:
     * "LogError[HH:MM:SS]:" and then "[IM:<guid, lower case, no braces>]" for a plugin's line,
     * both with no space after them; a plugin's dump line has the second alone. */
    if (kind != CLRIE_PM_LOG_DUMPS) {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        line_put(line, "%s[%02d:%02d:%02d]:%s",
                 kind == CLRIE_PM_LOG_ERRORS ? "LogError" : "LogMessage", tm.tm_hour, tm.tm_min,
                 tm.tm_sec, log->tag ? log->tag : "");
    }
    if (guid36 && log->method_prefix) {
        char lower[40];
        size_t n = 0;
        for (const char *c = guid36; *c && n < sizeof(lower) - 1; c++)
            lower[n++] = (char)tolower((unsigned char)*c);
        lower[n] = '\0';
        line_put(line, "[IM:%s]", lower);
    }
    line_vput(line, fmt, ap);
}

void clrie_pm_log_line_begin(struct clrie_pm_log_line *line, struct clrie_pm_log *log,
                             enum clrie_pm_log_kind kind, const char *guid36, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    line_begin(line, log, kind, guid36, fmt, ap);
    va_end(ap);
}

void clrie_pm_log_line_append(struct clrie_pm_log_line *line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    line_vput(line, fmt, ap);
    va_end(ap);
}

/* The length of the UTF-8 sequence at p that a log line may show as it is: a well-formed
 * sequence of a character from U+00A0 on that is not a line or paragraph separator or a
 * bidirectional control (U+2028-U+202E, U+2066-U+2069: they would make a terminal show the
 * line in another order). 0 for anything else. */
static size_t printable_utf8(const unsigned char *p)
{
    size_t n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
    if (n == 0 || p[0] > 0xf4)
        return 0;
    uint32_t c = p[0] & (0x7f >> n);
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        c = c << 6 | (p[i] & 0x3f);
    }
    static const uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < smallest[n] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff) || c < 0xa0 ||
        (c >= 0x2028 && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069))
        return 0;
    return n;
}

void clrie_pm_log_line_append_escaped(struct clrie_pm_log_line *line, const char *text)
{
    if (!line->active || !text)
        return;
    for (const unsigned char *p = (const unsigned char *)text; *p;) {
        size_t n = *p >= 0x80 ? printable_utf8(p) : 0;
        if (n > 0) {
            line_put(line, "%.*s", (int)n, (const char *)p);
            p += n;
            continue;
        }
        if (*p < 0x20 || *p >= 0x7f || (*p == '\\' && p[1] == 'x'))
            line_put(line, "\\x%02x", *p);
        else
            line_put(line, "%c", *p);
        p++;
    }
}

void clrie_pm_log_line_end(struct clrie_pm_log_line *line)
{
    if (!line->active) {
        free(line->text);
        line->text = NULL;
        return;
    }
    line->active = false;
    struct clrie_pm_log *log = line->log;
    if (line->to_stream) {
        line->text[line->len] = '\n'; /* line_vput keeps room for it */
        line_to_stream(log, line->text, line->len + 1);
        line->text[line->len] = '\0';
    }
    clrie_os_mutex_lock(&log->host_lock);
    if (log->host.write && (log->host.kinds & (unsigned)line->kind))
        log->host.write(log->host.context, line->kind, line->text);
    clrie_os_mutex_unlock(&log->host_lock);
    free(line->text);
    line->text = NULL;
}

void clrie_pm_log_write(struct clrie_pm_log *log, enum clrie_pm_log_kind kind, const char *guid36,
                        const char *fmt, ...)
{
    struct clrie_pm_log_line line;
    va_list ap;
    va_start(ap, fmt);
    line_begin(&line, log, kind, guid36, fmt, ap);
    va_end(ap);
    clrie_pm_log_line_end(&line);
}

void clrie_pm_log_set_kinds(struct clrie_pm_log *log, unsigned kinds)
{
    clrie_os_mutex_lock(&log->host_lock);
    atomic_store(&log->stream_kinds, kinds | CLRIE_PM_LOG_ERRORS);
    update_kinds(log);
    clrie_os_mutex_unlock(&log->host_lock);
}

void clrie_pm_log_set_host(struct clrie_pm_log *log, const struct clrie_pm_log_host *host)
{
    clrie_os_mutex_lock(&log->host_lock);
    log->host = host ? *host : (struct clrie_pm_log_host){0};
    update_kinds(log);
    clrie_os_mutex_unlock(&log->host_lock);
}

/* The process-wide log: the logging variables describe the process, so every manager (and
 * GetInstrumentationEngineLogger, which needs no manager, and every object reporting a surplus
 * Release) shares one, configured once. This and the factory's object count are the library's
 * only mutable process-wide state. */
static struct clrie_os_once process_log_once = CLRIE_OS_ONCE_INIT;
static struct clrie_pm_log process_log;

static void process_log_init(void)
{
    /* Out of memory here leaves a log without per-plugin levels; it still works. */
    clrie_pm_log_init(&process_log, clrie_pm_env_engine());
}

struct clrie_pm_log *clrie_pm_process_log(void)
{
    clrie_os_once_run(&process_log_once, process_log_init);
    return &process_log;
}
