/* The process and its clocks on POSIX systems (clrie/os/process.h): Linux's /proc. */
#define _DEFAULT_SOURCE /* readlink */
#include "clrie/os/process.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

unsigned long clrie_os_process_id(void)
{
    return (unsigned long)getpid();
}

int clrie_os_process_program(char **out)
{
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
    if (n <= 0)
        return n < 0 ? -errno : -ENOENT;
    path[n] = '\0';
    char *copy = strdup(path);
    if (!copy)
        return -ENOMEM;
    *out = copy;
    return 0;
}

/* /proc/self/cmdline: the arguments, each ending with a NUL byte. */
int clrie_os_process_arguments(char ***out, size_t *count)
{
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t len = 0, capacity = 4096;
    char *data = malloc(capacity + 1);
    int r = data ? 0 : -ENOMEM;
    while (r == 0) {
        if (len == capacity) {
            char *bigger = capacity < (1u << 24) ? realloc(data, capacity * 2 + 1) : NULL;
            if (!bigger) {
                r = -ENOMEM;
                break;
            }
            data = bigger;
            capacity *= 2;
        }
        ssize_t got = read(fd, data + len, capacity - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            r = -errno;
        else if (got == 0)
            break;
        else
            len += (size_t)got;
    }
    close(fd);
    if (r != 0) {
        free(data);
        return r;
    }
    data[len] = '\0';
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += data[i] == '\0';
    if (len > 0 && data[len - 1] != '\0')
        n++;
    char **argv = calloc(n + 1, sizeof(*argv));
    for (size_t i = 0, at = 0; argv && i < n; i++) {
        argv[i] = strdup(data + at);
        if (!argv[i]) {
            clrie_os_process_arguments_free(argv);
            argv = NULL;
            break;
        }
        at += strlen(data + at) + 1;
    }
    free(data);
    if (!argv)
        return -ENOMEM;
    *out = argv;
    *count = n;
    return 0;
}

static uint64_t read_clock(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t clrie_os_monotonic_ns(void)
{
    return read_clock(CLOCK_MONOTONIC);
}

uint64_t clrie_os_thread_cpu_ns(void)
{
    return read_clock(CLOCK_THREAD_CPUTIME_ID);
}

void clrie_os_wall_clock(int64_t *seconds, uint32_t *nanoseconds)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    *seconds = (int64_t)ts.tv_sec;
    *nanoseconds = (uint32_t)ts.tv_nsec;
}
