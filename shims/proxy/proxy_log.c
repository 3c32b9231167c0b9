#include "proxy_log.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static _Thread_local FILE *line;
static _Thread_local char *line_text;
static _Thread_local size_t line_len;

__attribute__((format(printf, 2, 0))) static void begin(const char *kind, const char *fmt,
                                                        va_list ap)
{
    if (line)
        proxy_log_end();
    line = open_memstream(&line_text, &line_len);
    if (!line)
        return;
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    fprintf(line, "%s[%02d:%02d:%02d]: clrie proxy: ", kind, tm.tm_hour, tm.tm_min, tm.tm_sec);
    vfprintf(line, fmt, ap);
}

void proxy_log_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    begin("LogError", fmt, ap);
    va_end(ap);
}

void proxy_log_message(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    begin("LogMessage", fmt, ap);
    va_end(ap);
}

void proxy_log_append(const char *fmt, ...)
{
    if (!line)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(line, fmt, ap);
    va_end(ap);
}

void proxy_log_append_escaped(const char *text)
{
    if (!line || !text)
        return;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p < 0x20 || *p >= 0x7f || *p == '\\')
            fprintf(line, "\\x%02x", *p);
        else
            fputc(*p, line);
    }
}

/* Opens the log file named by the environment, or returns -1 to mean stderr. */
static int open_log_file(void)
{
    const char *path = getenv("MicrosoftInstrumentationEngine_FileLogPath");
    if (!path || !*path)
        return -1;
    struct stat st;
    char *file = NULL;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        size_t n = strlen(path) + 64;
        file = malloc(n);
        if (!file)
            return -1;
        snprintf(file, n, "%s/ProfilerLog_%ld.txt", path, (long)getpid());
    }
    int fd = open(file ? file : path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    free(file);
    return fd;
}

static void write_all(int fd, const char *text, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, text, len);
        if (n <= 0)
            return;
        text += n;
        len -= (size_t)n;
    }
}

void proxy_log_end(void)
{
    if (!line)
        return;
    fputc('\n', line);
    fclose(line);
    line = NULL;
    int fd = open_log_file();
    write_all(fd >= 0 ? fd : STDERR_FILENO, line_text, line_len);
    if (fd >= 0)
        close(fd);
    free(line_text);
    line_text = NULL;
}

bool proxy_log_messages_enabled(void)
{
    const char *level = getenv("MicrosoftInstrumentationEngine_LogLevel");
    return level && (strstr(level, "Messages") || strstr(level, "All"));
}
