/* The diagnostics socket of a process on POSIX: $TMPDIR/dotnet-diagnostic-<pid>-<key>-socket
 * (/tmp without TMPDIR), <key> the process's start time from /proc/<pid>/stat. The socket
 * belongs to the process's user with mode 0600: the system decides who may connect. */
#define _GNU_SOURCE
#include "endpoint.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

struct attach_endpoint {
    int fd;
};

static const char *temp_dir(void)
{
    const char *dir = getenv("TMPDIR");
    return dir && *dir ? dir : "/tmp";
}

/* The process start time in jiffies: field 22 of /proc/<pid>/stat. */
static bool start_time(unsigned long pid, unsigned long long *out)
{
    char path[64], text[1024];
    snprintf(path, sizeof(path), "/proc/%lu/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, text, sizeof(text) - 1);
    close(fd);
    if (n <= 0)
        return false;
    text[n] = '\0';
    char *p = strrchr(text, ')'); /* the command name may hold spaces */
    if (!p)
        return false;
    p++;
    for (int field = 3; field <= 22 && p; field++) {
        while (*p == ' ')
            p++;
        if (field == 22)
            return sscanf(p, "%llu", out) == 1;
        p = strchr(p, ' ');
    }
    return false;
}

/* The socket's path in dir: the exact name, else any dotnet-diagnostic-<pid>-*-socket. */
static bool find_socket(const char *dir, unsigned long pid, unsigned long long key, bool have_key,
                        char *out, size_t size)
{
    struct stat st;
    if (have_key) {
        snprintf(out, size, "%s/dotnet-diagnostic-%lu-%llu-socket", dir, pid, key);
        if (stat(out, &st) == 0 && S_ISSOCK(st.st_mode))
            return true;
    }
    char prefix[64];
    snprintf(prefix, sizeof(prefix), "dotnet-diagnostic-%lu-", pid);
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool found = false;
    for (struct dirent *e; !found && (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 && n > 7 &&
            strcmp(e->d_name + n - 7, "-socket") == 0) {
            snprintf(out, size, "%s/%s", dir, e->d_name);
            found = stat(out, &st) == 0 && S_ISSOCK(st.st_mode);
        }
    }
    closedir(d);
    return found;
}

int attach_endpoint_open(unsigned long pid, unsigned timeout_ms, struct attach_endpoint **out,
                         char *why, size_t why_size)
{
    (void)timeout_ms; /* a Unix socket is never busy: connect queues */
    unsigned long long key = 0;
    bool have_key = start_time(pid, &key);
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    if (!find_socket(temp_dir(), pid, key, have_key, path, sizeof(path)) &&
        !find_socket("/tmp", pid, key, have_key, path, sizeof(path))) {
        snprintf(why, why_size,
                 "process %lu has no diagnostics socket in %s: it is not a .NET process, its "
                 "diagnostics are off (DOTNET_EnableDiagnostics=0), or it has another TMPDIR",
                 pid, temp_dir());
        return -ENOENT;
    }
    struct attach_endpoint *e = malloc(sizeof(*e));
    if (!e)
        return -ENOMEM;
    e->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
    if (e->fd < 0 || connect(e->fd, (struct sockaddr *)&addr, sizeof(addr)) != 0) {
        int err = errno;
        struct stat st;
        char proc[64];
        snprintf(proc, sizeof(proc), "/proc/%lu", pid);
        if ((err == EACCES || err == EPERM) && stat(proc, &st) == 0)
            snprintf(why, why_size,
                     "permission denied on %s: process %lu belongs to user %u; run as that "
                     "user (or as root, where the system allows it)",
                     path, pid, (unsigned)st.st_uid);
        else
            snprintf(why, why_size, "cannot connect to %s: %s (has the process exited?)", path,
                     strerror(err));
        attach_endpoint_close(e);
        return err == EACCES || err == EPERM ? -EACCES : -err;
    }
    *out = e;
    return 0;
}

static long remaining_ms(const struct timespec *deadline)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (deadline->tv_sec - now.tv_sec) * 1000 + (deadline->tv_nsec - now.tv_nsec) / 1000000;
}

int attach_endpoint_exchange(struct attach_endpoint *e, const uint8_t *request, size_t len,
                             uint8_t *answer, size_t answer_len, unsigned timeout_ms, char *why,
                             size_t why_size)
{
    for (size_t sent = 0; sent < len;) {
        ssize_t n = send(e->fd, request + sent, len - sent, MSG_NOSIGNAL);
        if (n <= 0) {
            int err = n < 0 ? errno : EPIPE;
            snprintf(why, why_size, "sending the request failed: %s", strerror(err));
            return err == EPIPE || err == ECONNRESET ? -EPIPE : -err;
        }
        sent += (size_t)n;
    }
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
    if (deadline.tv_nsec >= 1000000000) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000;
    }
    for (size_t got = 0; got < answer_len;) {
        long wait = remaining_ms(&deadline);
        struct pollfd p = {.fd = e->fd, .events = POLLIN};
        int ready = wait > 0 ? poll(&p, 1, (int)wait) : 0;
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready == 0)
            return -ETIMEDOUT;
        ssize_t n = ready < 0 ? -1 : recv(e->fd, answer + got, answer_len - got, 0);
        if (n == 0 || (n < 0 && errno == ECONNRESET))
            return -EPIPE;
        if (n < 0) {
            int err = errno;
            if (err == EINTR)
                continue;
            snprintf(why, why_size, "reading the answer failed: %s", strerror(err));
            return -err;
        }
        got += (size_t)n;
    }
    return 0;
}

void attach_endpoint_close(struct attach_endpoint *e)
{
    if (!e)
        return;
    if (e->fd >= 0)
        close(e->fd);
    free(e);
}
