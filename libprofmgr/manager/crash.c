/* The fatal-signal handler that names a crashing plugin (crash.h).
 *
 * The runtime installs its own handlers for these signals before it loads the engine: it turns
 * a fault in managed code into a NullReferenceException (and never returns from the handler
 * then), and reports or dumps a crash in native code. This handler goes in front of the
 * runtime's, taking over its mask and flags, and on every signal calls it as the kernel would
 * have. A fault that is no plugin's is handed on at once; a plugin's leaves one line first.
 *
 * When the faulting instruction is in a plugin's code the runtime cannot recover (it handles
 * faults only in managed code and its own helpers), and the line is written before the runtime
 * is called, in case the runtime's own crash handling never returns. When only the thread's
 * mark says a plugin call is in progress (the fault is in a library the plugin called, or in
 * the runtime on its behalf), the runtime might still recover, so the line is written only once
 * the runtime's handler has returned having put the default action back, which it does when
 * the process is about to die; SIGABRT never recovers, so it is reported at once. */
#define _GNU_SOURCE /* REG_RIP, dl_iterate_phdr */
#include "crash.h"

#include <errno.h>
#include <link.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "clrie/os/thread.h"

/* ---- what the handler reads: fixed storage, no locks ------------------------------------- */

#define MAX_MODULES 64
#define MAX_RANGES 8

struct module {
    uintptr_t start[MAX_RANGES], end[MAX_RANGES]; /* its executable segments */
    unsigned range_count;
    char name[128]; /* truncated */
    char guid[39];
};

static struct module modules[MAX_MODULES];
static atomic_uint module_count;                                 /* entries published */
static struct clrie_os_mutex modules_lock = CLRIE_OS_MUTEX_INIT; /* serialises writers */

/* The innermost plugin call of this thread. Initial-exec so that the handler reads it without
 * calling into the dynamic linker. */
static __thread struct clrie_pm__crash_call current __attribute__((tls_model("initial-exec")));
/* This thread has written its line: a runtime that aborts after a plugin's fault would
 * otherwise add a second one for its SIGABRT. */
static __thread volatile sig_atomic_t reported __attribute__((tls_model("initial-exec")));

static const int handled_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
#define SIGNAL_COUNT (sizeof(handled_signals) / sizeof(handled_signals[0]))
static struct sigaction previous[SIGNAL_COUNT]; /* written before the handler is installed */
static atomic_bool installed;
static int line_fd = -1; /* the log file, or -1 */
static long utc_offset;  /* seconds east of UTC when installed: localtime is not signal-safe */

/* ---- marks ------------------------------------------------------------------------------ */

/* The name is written last and cleared first, so a handler interrupting either sees a whole
 * mark or none; each field is one aligned pointer store. */
void clrie_pm__crash_enter(struct clrie_pm__crash_call *saved, const char *name, const char *guid,
                           const char *call)
{
    *saved = current;
    current.name = NULL;
    atomic_signal_fence(memory_order_seq_cst);
    current.guid = guid;
    current.call = call;
    atomic_signal_fence(memory_order_seq_cst);
    current.name = name;
}

void clrie_pm__crash_leave(const struct clrie_pm__crash_call *saved)
{
    current.name = NULL;
    atomic_signal_fence(memory_order_seq_cst);
    current.guid = saved->guid;
    current.call = saved->call;
    atomic_signal_fence(memory_order_seq_cst);
    current.name = saved->name;
}

/* ---- modules ---------------------------------------------------------------------------- */

struct module_search {
    uintptr_t address;
    struct module *into;
    bool found;
};

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
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) ||
            search->into->range_count == MAX_RANGES)
            continue;
        search->into->start[search->into->range_count] = info->dlpi_addr + ph->p_vaddr;
        search->into->end[search->into->range_count] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        search->into->range_count++;
    }
    search->found = true;
    return 1;
}

static void copy_text(char *to, size_t size, const char *from)
{
    size_t n = from ? strnlen(from, size - 1) : 0;
    memcpy(to, from ? from : "", n);
    to[n] = '\0';
}

void clrie_pm__crash_add_module(const void *address, const char *name, const char *guid)
{
    clrie_os_mutex_lock(&modules_lock);
    unsigned n = atomic_load(&module_count);
    if (n < MAX_MODULES) {
        struct module *slot = &modules[n];
        memset(slot, 0, sizeof(*slot));
        struct module_search search = {.address = (uintptr_t)address, .into = slot};
        dl_iterate_phdr(find_module, &search);
        if (search.found && slot->range_count > 0) {
            copy_text(slot->name, sizeof(slot->name), name);
            copy_text(slot->guid, sizeof(slot->guid), guid);
            atomic_store_explicit(&module_count, n + 1, memory_order_release);
        }
    }
    clrie_os_mutex_unlock(&modules_lock);
}

/* The recorded module whose code holds pc; of several (two plugins in one file), the one the
 * thread is calling if it is one of them. */
static const struct module *module_at(uintptr_t pc, const char *calling_guid)
{
    const struct module *first = NULL;
    unsigned n = atomic_load_explicit(&module_count, memory_order_acquire);
    for (unsigned i = 0; i < n; i++) {
        const struct module *m = &modules[i];
        for (unsigned r = 0; r < m->range_count; r++) {
            if (pc < m->start[r] || pc >= m->end[r])
                continue;
            if (calling_guid && strcmp(m->guid, calling_guid) == 0)
                return m;
            if (!first)
                first = m;
        }
    }
    return first;
}

/* ---- the line, built with nothing but stores -------------------------------------------- */

struct text {
    char *buf;
    size_t size, len; /* len < size always: room for the terminator */
};

static void put(struct text *t, const char *s)
{
    for (; s && *s && t->len + 1 < t->size; s++)
        t->buf[t->len++] = *s;
    t->buf[t->len] = '\0';
}

/* A name as the log writes untrusted text: control bytes, non-ASCII and '\' as \xNN. */
static void put_escaped(struct text *t, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
        if (*p >= 0x20 && *p < 0x7f && *p != '\\') {
            char c[2] = {(char)*p, '\0'};
            put(t, c);
        } else {
            char c[5] = {'\\', 'x', hex[*p >> 4], hex[*p & 15], '\0'};
            put(t, c);
        }
    }
}

static void put_hex(struct text *t, uintptr_t value)
{
    char digits[2 + 2 * sizeof(value) + 1];
    size_t i = sizeof(digits) - 1;
    digits[i] = '\0';
    do {
        digits[--i] = "0123456789abcdef"[value & 15];
        value >>= 4;
    } while (value);
    digits[--i] = 'x';
    digits[--i] = '0';
    put(t, digits + i);
}

static void put_two_digits(struct text *t, long value)
{
    char c[3] = {(char)('0' + value / 10 % 10), (char)('0' + value % 10), '\0'};
    put(t, c);
}

static const char *signal_name(int sig)
{
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

/* Fills t when the fault is a plugin's; *in_code tells whether pc is in its code. */
static bool describe(struct text *t, int sig, int code, uintptr_t address, uintptr_t pc,
                     bool *in_code)
{
    struct clrie_pm__crash_call mark = {.name = current.name};
    atomic_signal_fence(memory_order_seq_cst);
    if (mark.name) {
        mark.guid = current.guid;
        mark.call = current.call;
    }
    const struct module *module = pc ? module_at(pc, mark.name ? mark.guid : NULL) : NULL;
    *in_code = module != NULL;
    if (!module && !mark.name)
        return false;

    put(t, "plugin '");
    put_escaped(t, module ? module->name : mark.name);
    put(t, "' ");
    put(t, module ? module->guid : mark.guid);
    put(t, " crashed (");
    put(t, signal_name(sig));
    if (code > 0 && sig != SIGABRT) { /* raised by the processor, not sent */
        put(t, " at ");
        put_hex(t, address);
    }
    if (pc) {
        put(t, ", pc ");
        put_hex(t, pc);
        put(t, module ? " in its code" : " outside its code");
    }
    put(t, ")");
    if (!mark.name) {
        put(t, " outside any call from the engine (on a thread of its own, or in a call the "
               "engine does not mark)");
    } else if (module && strcmp(module->guid, mark.guid) != 0) {
        put(t, " while the engine was calling plugin '");
        put_escaped(t, mark.name);
        put(t, "' ");
        put(t, mark.guid);
        put(t, " in ");
        put(t, mark.call);
    } else {
        put(t, " in ");
        put(t, mark.call);
    }
    return true;
}

size_t clrie_pm__crash_describe(char *buf, size_t size, int sig, int code, const void *address,
                                const void *pc)
{
    if (size == 0)
        return 0;
    struct text t = {.buf = buf, .size = size};
    buf[0] = '\0';
    bool in_code;
    return describe(&t, sig, code, (uintptr_t)address, (uintptr_t)pc, &in_code) ? t.len : 0;
}

/* ---- the handler ------------------------------------------------------------------------ */

/* For the frames that are live when the runtime's handler is called: the runtime often never
 * returns to them (it resumes managed code at the catch), and a sanitizer that had poisoned
 * red zones around their locals would find that poison later in the frames of whatever code
 * reuses that stack, and report an overflow that is none. */
#define LEFT_BY_THE_RUNTIME __attribute__((no_sanitize_address))

static uintptr_t pc_of(const void *context)
{
    const ucontext_t *uc = context;
    if (!uc)
        return 0;
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.pc;
#else
    return 0; /* only the marks name the plugin */
#endif
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

/* "LogError[HH:MM:SS]:<line>\n" to the log file, if any, and to stderr; once per thread. */
static void write_line(const char *line, size_t len)
{
    if (reported)
        return;
    reported = 1;
    char prefix[32];
    struct text t = {.buf = prefix, .size = sizeof(prefix)};
    struct timespec now = {0};
    clock_gettime(CLOCK_REALTIME, &now);
    long seconds = (long)((now.tv_sec + utc_offset) % 86400 + 86400) % 86400;
    put(&t, "LogError[");
    put_two_digits(&t, seconds / 3600);
    put(&t, ":");
    put_two_digits(&t, seconds / 60 % 60);
    put(&t, ":");
    put_two_digits(&t, seconds % 60);
    put(&t, "]:");
    int fds[2] = {line_fd, STDERR_FILENO};
    for (int i = line_fd >= 0 ? 0 : 1; i < 2; i++) {
        write_all(fds[i], prefix, t.len);
        write_all(fds[i], line, len);
        write_all(fds[i], "\n", 1);
    }
}

static const struct sigaction *previous_of(int sig)
{
    for (size_t i = 0; i < SIGNAL_COUNT; i++)
        if (handled_signals[i] == sig)
            return &previous[i];
    return NULL;
}

static bool is_default(const struct sigaction *action)
{
    return action->sa_handler == SIG_DFL || action->sa_handler == SIG_IGN;
}

/* Does what the kernel would have done had this handler not been installed. */
LEFT_BY_THE_RUNTIME static void chain(int sig, siginfo_t *info, void *context,
                                      const struct sigaction *prev)
{
    bool sent = info->si_code <= 0 || sig == SIGABRT;
    if (prev->sa_handler == SIG_IGN && sent)
        return;
    if (is_default(prev)) {
        /* A fault the processor raised happens again on return, now with the default action
         * (an ignored one too: the kernel does not let a fault be ignored); a sent signal is
         * sent again, and arrives once this handler returns. */
        struct sigaction dfl = {.sa_handler = SIG_DFL};
        sigemptyset(&dfl.sa_mask);
        sigaction(sig, &dfl, NULL);
        if (sent)
            raise(sig);
        return;
    }
    if (prev->sa_flags & SA_SIGINFO)
        prev->sa_sigaction(sig, info, context);
    else
        prev->sa_handler(sig);
}

/* May the fault be a plugin's? What describe() decides on, without building the line. */
static bool maybe_plugins(uintptr_t pc)
{
    atomic_signal_fence(memory_order_seq_cst);
    return current.name != NULL || (pc && module_at(pc, NULL) != NULL);
}

/* The rare path, with the line's buffer in a frame of its own so that the common path's frame
 * stays a few words deep. */
__attribute__((noinline)) LEFT_BY_THE_RUNTIME static void
report_and_chain(int sig, siginfo_t *info, void *context, const struct sigaction *prev)
{
    int saved_errno = errno;
    char line[512];
    struct text t = {.buf = line, .size = sizeof(line)};
    bool in_code = false;
    bool plugin =
        describe(&t, sig, info->si_code, (uintptr_t)info->si_addr, pc_of(context), &in_code);
    bool wait_for_runtime = plugin && !in_code && sig != SIGABRT && !is_default(prev);
    if (plugin && !wait_for_runtime)
        write_line(line, t.len);
    chain(sig, info, context, prev);
    if (wait_for_runtime) {
        /* The runtime returned: it either recovered, or put the default action back so that
         * the fault, raised again on return, ends the process. */
        struct sigaction now;
        if (sigaction(sig, NULL, &now) == 0 && now.sa_handler == SIG_DFL)
            write_line(line, t.len);
    }
    errno = saved_errno;
}

/* A signal that is no plugin's (the runtime's own: a null dereference, a division by zero in
 * managed code) goes straight to the runtime's handler with the kernel's siginfo and context,
 * on the stack the kernel chose by the runtime's own flags, touching nothing on the way. */
LEFT_BY_THE_RUNTIME static void on_fatal_signal(int sig, siginfo_t *info, void *context)
{
    const struct sigaction *prev = previous_of(sig);
    if (maybe_plugins(pc_of(context)))
        report_and_chain(sig, info, context, prev);
    else
        chain(sig, info, context, prev);
}

void clrie_pm__crash_install(int log_fd)
{
    if (atomic_exchange(&installed, true))
        return;
    line_fd = log_fd;
    time_t now = time(NULL);
    struct tm tm;
    if (localtime_r(&now, &tm))
        utc_offset = tm.tm_gmtoff;
    for (size_t i = 0; i < SIGNAL_COUNT; i++) {
        if (sigaction(handled_signals[i], NULL, &previous[i]) != 0)
            continue;
        /* The runtime's mask and flags, so that the kernel runs this handler, and through it
         * the runtime's, as it would run the runtime's: on the alternate stack only where the
         * runtime asked for it (SIGSEGV, to catch stack overflows). The runtime handles SIGFPE
         * on the faulting thread's own stack and never returns from there into managed code;
         * on the small alternate stack that overflows it (a caught DivideByZeroException
         * killed the process as a stack overflow). */
        struct sigaction action = {.sa_sigaction = on_fatal_signal,
                                   .sa_mask = previous[i].sa_mask,
                                   .sa_flags = previous[i].sa_flags | SA_SIGINFO};
        sigaction(handled_signals[i], &action, NULL);
    }
}
