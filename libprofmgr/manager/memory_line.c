/* The engine's memory line: what it keeps for the methods it prepared (`memory kept for
 * methods: ...`), at Messages, at shutdown and now and then while the process runs, so that a
 * service's figure can be followed over time (test/soak) and measured (test/bench-engine,
 * docs/benchmarks.md). Now and then is at the first compilation MemoryLogInterval or more after
 * the last line (or the engine's start): without compilations the figure does not change. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "clrie/os/process.h"
#include "domains.h"
#include "manager.h"

void clrie_pm__memory_line_write(struct manager *m)
{
    if (!clrie_pm_log_enabled(m->log, CLRIE_PM_LOG_MESSAGES) || !m->domains)
        return;
    struct clrie_pm_methods_memory k;
    clrie_pm_domains_methods_memory(m->domains, &k);
    size_t total = k.record_bytes + k.map_bytes + k.caller_bytes + k.table_bytes;
    CLRIE_PM_LOG_MESSAGE(m->log,
                         "memory kept for methods: %zu methods (%zu transformed), %zu bytes: "
                         "records %zu, IL maps %zu (%zu entries), inline sites %zu, tables %zu",
                         k.methods, k.transformed, total, k.record_bytes, k.map_bytes,
                         k.map_entries, k.caller_bytes, k.table_bytes);
}

#define MEMORY_LINE_DEFAULT_S 60
#define MEMORY_LINE_MAX_S 86400

void clrie_pm__memory_line_arm(struct manager *m, policy_lookup_fn lookup, void *ctx)
{
    const char *text = lookup(ctx, "MemoryLogInterval");
    unsigned long seconds = MEMORY_LINE_DEFAULT_S;
    if (text) {
        char *end = NULL;
        errno = 0;
        unsigned long value = strtoul(text, &end, 10);
        if (errno || end == text || *end || text[0] == '-' || value > MEMORY_LINE_MAX_S)
            CLRIE_PM_LOG_ERROR(m->log,
                               "MemoryLogInterval='%s': expected whole seconds from 0 to %d (0: "
                               "only at shutdown); the memory line comes every %d s",
                               text, MEMORY_LINE_MAX_S, MEMORY_LINE_DEFAULT_S);
        else
            seconds = value;
    }
    m->memory_line_interval_ns = seconds * 1000000000ull;
    atomic_store(&m->memory_line_due,
                 seconds ? clrie_os_monotonic_ns() + m->memory_line_interval_ns : UINT64_MAX);
}

void clrie_pm__memory_line_now_and_then(struct manager *m)
{
    uint64_t due = atomic_load_explicit(&m->memory_line_due, memory_order_relaxed);
    if (due == UINT64_MAX || !clrie_pm_log_enabled(m->log, CLRIE_PM_LOG_MESSAGES))
        return;
    uint64_t now = clrie_os_monotonic_ns();
    if (now < due || !atomic_compare_exchange_strong(&m->memory_line_due, &due,
                                                     now + m->memory_line_interval_ns))
        return; /* not yet, or another thread writes it */
    clrie_pm__memory_line_write(m);
}
