/* What the crash handler asks of a POSIX system (crash_os.h): a thread's storage, a module's
 * code, the name of a signal, the time of day and writing, all async-signal-safe. The handler
 * itself is crash_posix.c. */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <errno.h>
#include <link.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "crash_os.h"

static int line_fd = -1; /* the log file, or -1 */
static long utc_offset;  /* seconds east of UTC when installed: localtime is not signal-safe */

void clrie_pm__crash_os_init(int log_fd)
{
    line_fd = log_fd;
    time_t now = time(NULL);
    struct tm tm;
    if (localtime_r(&now, &tm))
        utc_offset = tm.tm_gmtoff;
}

bool clrie_pm__crash_os_is_fault(int fault)
{
    (void)fault; /* the handler takes only the signals of faults */
    return true;
}

/* ---- what crash.c asks of the system ---------------------------------------------------- */

/* Initial-exec so that the handler reads it without calling into the dynamic linker. A
 * thread's has its line: a runtime that aborts after a plugin's fault would otherwise add a
 * second one for its SIGABRT. */
static __thread struct clrie_pm__crash_thread this_thread
    __attribute__((tls_model("initial-exec")));

struct clrie_pm__crash_thread *clrie_pm__crash_thread(bool create)
{
    (void)create;
    return &this_thread;
}

struct module_search {
    uintptr_t address;
    uintptr_t *start, *end;
    unsigned max, count;
};

/* The executable segments of the module that holds the address. */
static int find_module(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct module_search *search = data;
    bool holds = false;
    for (int i = 0; i < info->dlpi_phnum && !holds; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        holds = ph->p_type == PT_LOAD && search->address >= start &&
                search->address - start < ph->p_memsz;
    }
    if (!holds)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || search->count == search->max)
            continue;
        search->start[search->count] = info->dlpi_addr + ph->p_vaddr;
        search->end[search->count] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        search->count++;
    }
    return 1;
}

unsigned clrie_pm__crash_code_ranges(const void *address, uintptr_t *start, uintptr_t *end,
                                     unsigned max)
{
    struct module_search search = {
        .address = (uintptr_t)address, .start = start, .end = end, .max = max};
    dl_iterate_phdr(find_module, &search);
    return search.count;
}

/* A signal and its si_code: the address is the fault's when the processor raised it. */
const char *clrie_pm__crash_fault_name(int sig, int code, bool *with_address)
{
    *with_address = code > 0 && sig != SIGABRT; /* raised by the processor, not sent */
    switch (sig) {
    case SIGSEGV:
        return "SIGSEGV";
    case SIGBUS:
        return "SIGBUS";
    case SIGILL:
        return "SIGILL";
    case SIGFPE:
        return "SIGFPE";
    case SIGABRT:
        return "SIGABRT";
    default:
        return "a fatal signal";
    }
}

long clrie_pm__crash_time_of_day(void)
{
    struct timespec now = {0};
    clock_gettime(CLOCK_REALTIME, &now);
    return (long)((now.tv_sec + utc_offset) % 86400 + 86400) % 86400;
}

static void write_all(int fd, const char *text, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, text, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        text += n;
        len -= (size_t)n;
    }
}

void clrie_pm__crash_write_out(const char *prefix, size_t prefix_len, const char *text, size_t len)
{
    int fds[2] = {line_fd, STDERR_FILENO};
    for (int i = line_fd >= 0 ? 0 : 1; i < 2; i++) {
        write_all(fds[i], prefix, prefix_len);
        write_all(fds[i], text, len);
        write_all(fds[i], "\n", 1);
    }
}
