#define _GNU_SOURCE /* memmem */
#include "log.h"

#include "env.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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
        if (level_words[i].kinds &&
            memmem(word, n, level_words[i].word, strlen(level_words[i].word))) {
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

/* Why a log file was refused: what the path turned out to be. */
static const char *refusal(mode_t mode)
{
    if (S_ISFIFO(mode))
        return "it is a FIFO, not a regular file or a character device";
    if (S_ISSOCK(mode))
        return "it is a socket, not a regular file or a character device";
    if (S_ISDIR(mode))
        return "it is a folder, not a regular file or a character device";
    if (S_ISBLK(mode))
        return "it is a block device, not a regular file or a character device";
    return "it is not a regular file or a character device";
}

/* Group or others may write to the folder: they can plant a link or a FIFO in it. */
static bool shared_folder(int dirfd)
{
    struct stat st;
    return fstat(dirfd, &st) != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
}

/* The process's own stderr, whatever it is: /dev/stderr under a pipe or a socket is what the
 * log would write to anyway, so it is no hazard. */
static bool is_stderr(const struct stat *st)
{
    struct stat err;
    return fstat(STDERR_FILENO, &err) == 0 && err.st_dev == st->st_dev && err.st_ino == st->st_ino;
}

/* Opens name in the folder dirfd for appending without blocking, then checks what it opened
 * (fstat on the descriptor, so nothing can be swapped in between). Returns the descriptor, in
 * blocking mode again, or -1 with *why or *error set. */
static int open_in(int dirfd, const char *name, int nofollow, const char **why, int *error)
{
    int fd =
        openat(dirfd, name,
               O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | nofollow, 0644);
    struct stat st;
    if (fd < 0) {
        *error = errno;
        if (*error == ELOOP && nofollow) {
            *why = "it is a symbolic link in a folder that group or others can write to";
        } else if (*error == ENXIO || *error == EISDIR) {
            /* A FIFO with no reader (ENXIO), a socket, a folder: say which, for the line. */
            if (fstatat(dirfd, name, &st, nofollow ? AT_SYMLINK_NOFOLLOW : 0) == 0 &&
                !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode) && !S_ISLNK(st.st_mode)) {
                if (*error == ENXIO && is_stderr(&st)) { /* a socket cannot be opened */
                    fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 0);
                    *error = fd < 0 ? errno : 0;
                    return fd;
                }
                *why = refusal(st.st_mode);
            }
        }
        return -1;
    }
    if (fstat(fd, &st) != 0) {
        *error = errno;
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode) && !is_stderr(&st)) {
        *error = 0;
        *why = refusal(st.st_mode);
        close(fd);
        return -1;
    }
    /* Ordinary writes block: a terminal that is busy must not lose lines. */
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}

/* Opens the file FileLogPath names: the file itself, or ProfilerLog_<pid>.txt in a folder.
 * Returns the descriptor or -1 with *why (a refusal) or *error (an errno) set. */
static int open_log_file(const char *path, const char **why, int *error)
{
    int fd = -1, dirfd = -1, folder = -1;
    char *copy = strdup(path);
    if (!copy) {
        *error = ENOMEM;
        return -1;
    }
    /* The folder that holds the last component, and that component (never with a '/'). */
    size_t len = strlen(copy);
    while (len > 1 && copy[len - 1] == '/')
        copy[--len] = '\0';
    char *slash = strrchr(copy, '/');
    const char *dir = ".", *base = copy;
    if (slash) {
        base = slash + 1;
        dir = slash == copy ? "/" : copy;
        *slash = '\0';
    }
    if (!*base)
        base = ".";

    dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0) {
        *error = errno;
        goto out;
    }
    /* The user's own folders are the user's choice (/dev/stderr is a link); a link in a folder
     * others can write to may have been planted there. */
    int nofollow = shared_folder(dirfd) ? O_NOFOLLOW : 0;
    fd = open_in(dirfd, base, nofollow, why, error);
    if (fd >= 0 || *error != EISDIR)
        goto out;

    /* A folder: ProfilerLog_<pid>.txt in it, where only its owner can put things (or where,
     * being sticky, others cannot replace what is not theirs). */
    *why = NULL;
    folder = openat(dirfd, base, O_PATH | O_DIRECTORY | O_CLOEXEC | nofollow);
    struct stat st;
    if (folder < 0 || fstat(folder, &st) != 0) {
        *error = errno;
        goto out;
    }
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
        *why = "it is a folder that group or others can write to and that is not sticky";
        goto out;
    }
    char name[64];
    snprintf(name, sizeof(name), "ProfilerLog_%ld.txt", (long)getpid());
    fd = open_in(folder, name, O_NOFOLLOW, why, error);
    if (fd < 0 && *error == ELOOP)
        *why = "the ProfilerLog file in the folder is a symbolic link, which is never followed";
out:
    if (folder >= 0)
        close(folder);
    if (dirfd >= 0)
        close(dirfd);
    free(copy);
    return fd;
}

static int read_overrides(struct clrie_pm_log *log, char *const *envp)
{
    size_t prefix = strlen(LEVEL_PREFIX);
    for (char *const *e = envp; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (strncmp(*e, LEVEL_PREFIX, prefix) != 0 || !eq || eq - *e != (ptrdiff_t)prefix + 36)
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
        log->fd = open_log_file(path, &file_refusal, &file_error);
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
        clrie_pm_log_line_append(&line, "' (%s); logging to stderr",
                                 file_refusal ? file_refusal : strerror(file_error));
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
            close(log->fd);
        free(log->file_path);
        free(log->overrides);
    }
    clrie_os_mutex_finish(&log->host_lock);
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

/* Writes all of text, retrying interrupted and short writes. Returns 0 or the errno that
 * stopped it (EIO for a write that took nothing, so a stuck file cannot make a loop). */
static int write_all(int fd, const char *text, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, text, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            return EIO;
        text += n;
        len -= (size_t)n;
    }
    return 0;
}

static void line_to_stream(struct clrie_pm_log *view, const char *text, size_t len)
{
    struct clrie_pm_log *log = shared_of(view);
    if (log->fd >= 0 && !atomic_load_explicit(&log->file_failed, memory_order_acquire)) {
        int error = write_all(log->fd, text, len);
        if (error == 0)
            return;
        /* The first writer to see the file fail says so; the descriptor stays open until
         * finish, since other threads may still be writing to it. */
        bool already = false;
        if (atomic_compare_exchange_strong(&log->file_failed, &already, true)) {
            struct clrie_pm_log_line line;
            clrie_pm_log_line_begin(&line, log, CLRIE_PM_LOG_ERRORS, NULL,
                                    "writing to the log file '");
            clrie_pm_log_line_append_escaped(&line, log->file_path ? log->file_path : "?");
            clrie_pm_log_line_append(&line, "' failed (%s); logging to stderr from now on",
                                     strerror(error));
            clrie_pm_log_line_end(&line);
        }
    }
    write_all(STDERR_FILENO, text, len); /* nowhere left to say that this failed */
}

__attribute__((format(printf, 5, 0))) static void
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
    line->out = open_memstream(&line->text, &line->len);
    if (!line->out)
        return;
    /* CLRIE's prefixes, byte for byte, so that what parses its logs parses these:
     * "LogError[HH:MM:SS]:" and then "[IM:<guid, lower case, no braces>]" for a plugin's line,
     * both with no space after them; a plugin's dump line has the second alone. */
    if (kind != CLRIE_PM_LOG_DUMPS) {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        fprintf(line->out,
                "%s[%02d:%02d:%02d]:", kind == CLRIE_PM_LOG_ERRORS ? "LogError" : "LogMessage",
                tm.tm_hour, tm.tm_min, tm.tm_sec);
        if (log->tag)
            fputs(log->tag, line->out);
    }
    if (guid36 && log->method_prefix) {
        fputs("[IM:", line->out);
        for (const char *c = guid36; *c; c++)
            fputc(tolower((unsigned char)*c), line->out);
        fputc(']', line->out);
    }
    vfprintf(line->out, fmt, ap);
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
    if (!line->out)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(line->out, fmt, ap);
    va_end(ap);
}

void clrie_pm_log_line_append_escaped(struct clrie_pm_log_line *line, const char *text)
{
    if (!line->out || !text)
        return;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p < 0x20 || *p >= 0x7f || *p == '\\')
            fprintf(line->out, "\\x%02x", *p);
        else
            fputc(*p, line->out);
    }
}

void clrie_pm_log_line_end(struct clrie_pm_log_line *line)
{
    if (!line->out)
        return;
    fclose(line->out);
    line->out = NULL;
    if (!line->text)
        return;
    struct clrie_pm_log *log = line->log;
    if (line->to_stream) {
        line->text[line->len] = '\n'; /* open_memstream keeps a NUL after the text: room */
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
