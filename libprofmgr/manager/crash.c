/* Naming the plugin a fault came from: what every system shares (crash.h, crash_os.h).
 *
 * The marks of the plugin calls in progress, the table of plugin modules, the line that names
 * a plugin and writing it once per thread. Catching the fault and handing it on is the
 * system's half: crash_posix.c chains a signal handler in front of the runtime's, crash_win32.c
 * adds a vectored exception handler that only looks. Everything the handler reads here is a
 * fixed array or the thread's storage from the system's half; it writes through that half. */
#include "crash.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "clrie/os/thread.h"
#include "crash_os.h"

/* ---- what the handler reads: fixed storage, no locks ------------------------------------- */

#define MAX_MODULES 64
#define MAX_RANGES 8

struct module {
    uintptr_t start[MAX_RANGES], end[MAX_RANGES]; /* its code */
    unsigned range_count;
    char name[128]; /* truncated */
    char guid[39];
};

static struct module modules[MAX_MODULES];
static atomic_uint module_count;                                 /* entries published */
static struct clrie_os_mutex modules_lock = CLRIE_OS_MUTEX_INIT; /* serialises writers */

/* ---- marks ------------------------------------------------------------------------------ */

/* The name is written last and cleared first, so a handler interrupting either sees a whole
 * mark or none; each field is one aligned pointer store. A thread whose storage could not be
 * made (Windows, out of memory) goes unmarked. */
void clrie_pm__crash_enter(struct clrie_pm__crash_call *saved, const char *name, const char *guid,
                           const char *call)
{
    struct clrie_pm__crash_thread *thread = clrie_pm__crash_thread(true);
    if (!thread) {
        *saved = (struct clrie_pm__crash_call){0};
        return;
    }
    struct clrie_pm__crash_call *current = &thread->call;
    *saved = *current;
    current->name = NULL;
    atomic_signal_fence(memory_order_seq_cst);
    current->guid = guid;
    current->call = call;
    atomic_signal_fence(memory_order_seq_cst);
    current->name = name;
}

void clrie_pm__crash_leave(const struct clrie_pm__crash_call *saved)
{
    struct clrie_pm__crash_thread *thread = clrie_pm__crash_thread(false);
    if (!thread)
        return;
    struct clrie_pm__crash_call *current = &thread->call;
    current->name = NULL;
    atomic_signal_fence(memory_order_seq_cst);
    current->guid = saved->guid;
    current->call = saved->call;
    atomic_signal_fence(memory_order_seq_cst);
    current->name = saved->name;
}

/* This thread's innermost plugin call, whole; name NULL when none. */
static struct clrie_pm__crash_call read_mark(void)
{
    struct clrie_pm__crash_call mark = {0};
    const struct clrie_pm__crash_thread *thread = clrie_pm__crash_thread(false);
    if (!thread)
        return mark;
    mark.name = thread->call.name;
    atomic_signal_fence(memory_order_seq_cst);
    if (mark.name) {
        mark.guid = thread->call.guid;
        mark.call = thread->call.call;
    }
    return mark;
}

/* ---- modules ---------------------------------------------------------------------------- */

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
        slot->range_count =
            clrie_pm__crash_code_ranges(address, slot->start, slot->end, MAX_RANGES);
        if (slot->range_count > 0) {
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

bool clrie_pm__crash_maybe_plugins(uintptr_t pc)
{
    atomic_signal_fence(memory_order_seq_cst);
    const struct clrie_pm__crash_thread *thread = clrie_pm__crash_thread(false);
    return (thread && thread->call.name != NULL) || (pc && module_at(pc, NULL) != NULL);
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

/* Fills t when the fault is a plugin's; *in_code tells whether pc is in its code. */
static bool describe(struct text *t, int fault, int code, uintptr_t address, uintptr_t pc,
                     bool *in_code)
{
    struct clrie_pm__crash_call mark = read_mark();
    const struct module *module = pc ? module_at(pc, mark.name ? mark.guid : NULL) : NULL;
    *in_code = module != NULL;
    if (!module && !mark.name)
        return false;

    put(t, "plugin '");
    put_escaped(t, module ? module->name : mark.name);
    put(t, "' ");
    put(t, module ? module->guid : mark.guid);
    put(t, " crashed (");
    bool with_address = false;
    put(t, clrie_pm__crash_fault_name(fault, code, &with_address));
    if (with_address) {
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

size_t clrie_pm__crash_line(char *buf, size_t size, int fault, int code, uintptr_t address,
                            uintptr_t pc, bool *in_code)
{
    *in_code = false;
    if (size == 0)
        return 0;
    struct text t = {.buf = buf, .size = size};
    buf[0] = '\0';
    return describe(&t, fault, code, address, pc, in_code) ? t.len : 0;
}

size_t clrie_pm__crash_describe(char *buf, size_t size, int fault, int code, const void *address,
                                const void *pc)
{
    bool in_code;
    return clrie_pm__crash_line(buf, size, fault, code, (uintptr_t)address, (uintptr_t)pc,
                                &in_code);
}

/* ---- writing it ------------------------------------------------------------------------- */

/* A thread without storage (on Windows, one the engine never called a plugin on) writes a line
 * for each fault: only a plugin that recovers from its own faults could make it write two. */
void clrie_pm__crash_write_line(const char *line, size_t len)
{
    struct clrie_pm__crash_thread *thread = clrie_pm__crash_thread(false);
    if (thread) {
        if (thread->reported)
            return;
        thread->reported = 1;
    }
    char prefix[32];
    struct text t = {.buf = prefix, .size = sizeof(prefix)};
    long seconds = clrie_pm__crash_time_of_day();
    put(&t, "LogError[");
    put_two_digits(&t, seconds / 3600);
    put(&t, ":");
    put_two_digits(&t, seconds / 60 % 60);
    put(&t, ":");
    put_two_digits(&t, seconds % 60);
    put(&t, "]:");
    clrie_pm__crash_write_out(prefix, t.len, line, len);
}
