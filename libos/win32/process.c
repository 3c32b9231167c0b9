/* The process and its clocks on Windows (clrie/os/process.h). */
#include "clrie/os/process.h"

#include <errno.h>
#include <stdlib.h>
#include <windows.h>
#include <shellapi.h>

#include "text.h"

unsigned long clrie_os_process_id(void)
{
    return (unsigned long)GetCurrentProcessId();
}

int clrie_os_process_program(char **out)
{
    DWORD capacity = MAX_PATH;
    for (;;) {
        wchar_t *path = malloc(capacity * sizeof(*path));
        if (!path)
            return -ENOMEM;
        DWORD n = GetModuleFileNameW(NULL, path, capacity);
        if (n > 0 && n < capacity) {
            int r = clrie_os__utf8(path, out);
            free(path);
            return r;
        }
        free(path);
        if (n == 0)
            return clrie_os__error(GetLastError());
        if (capacity >= 32768)
            return -ENAMETOOLONG;
        capacity *= 2;
    }
}

/* The command line split as the C runtime of a program splits it. */
int clrie_os_process_arguments(char ***out, size_t *count)
{
    int n = 0;
    wchar_t **wide = CommandLineToArgvW(GetCommandLineW(), &n);
    if (!wide)
        return -ENOMEM;
    char **argv = calloc((size_t)n + 1, sizeof(*argv));
    int r = argv ? 0 : -ENOMEM;
    for (int i = 0; r == 0 && i < n; i++)
        r = clrie_os__utf8(wide[i], &argv[i]);
    LocalFree(wide);
    if (r != 0) {
        clrie_os_process_arguments_free(argv);
        return r;
    }
    *out = argv;
    *count = (size_t)n;
    return 0;
}

uint64_t clrie_os_monotonic_ns(void)
{
    static LARGE_INTEGER frequency; /* fixed at boot: a race writes the same value */
    if (frequency.QuadPart == 0)
        QueryPerformanceFrequency(&frequency);
    LARGE_INTEGER now;
    QueryPerformanceCounter(&now);
    uint64_t f = (uint64_t)frequency.QuadPart, c = (uint64_t)now.QuadPart;
    return c / f * 1000000000u + c % f * 1000000000u / f;
}

uint64_t clrie_os_thread_cpu_ns(void)
{
    FILETIME created, exited, kernel, user;
    if (!GetThreadTimes(GetCurrentThread(), &created, &exited, &kernel, &user))
        return 0;
    uint64_t k = (uint64_t)kernel.dwHighDateTime << 32 | kernel.dwLowDateTime;
    uint64_t u = (uint64_t)user.dwHighDateTime << 32 | user.dwLowDateTime;
    return (k + u) * 100; /* FILETIME counts 100 ns */
}

void clrie_os_wall_clock(int64_t *seconds, uint32_t *nanoseconds)
{
    FILETIME now;
    GetSystemTimePreciseAsFileTime(&now);
    /* 100 ns units since 1601-01-01; 11644473600 seconds before 1970. */
    uint64_t t = (uint64_t)now.dwHighDateTime << 32 | now.dwLowDateTime;
    *seconds = (int64_t)(t / 10000000u) - INT64_C(11644473600);
    *nanoseconds = (uint32_t)(t % 10000000u) * 100u;
}
