/* The Dumps log level: what the engine gave the runtime for an instrumented method, readable.
 * Every line carries the method's token so that methods instrumented at the same time on
 * different threads can be told apart. */
#include "il_dump.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *clause_kind(uint32_t flags)
{
    const char *name = clrie_il_eh_kind_name(flags & CLRIE_IL_EH_KIND_MASK);
    return name ? name : "clause";
}

/* Writes the operand of n after its opcode name into buf. */
static void format_operand(struct clrie_il_instr *n, const struct clrie_il_opcode_info *info,
                           char *buf, size_t cap)
{
    int64_t value = 0;
    double real = 0;
    buf[0] = 0;
    switch (info->operand_kind) {
    case CLRIE_IL_OPERAND_NONE:
        break;
    case CLRIE_IL_OPERAND_BRANCH8:
    case CLRIE_IL_OPERAND_BRANCH32: {
        struct clrie_il_instr *target = clrie_il_instr_branch_target(n);
        if (target)
            snprintf(buf, cap, " IL_%04X", (unsigned)clrie_il_instr_offset(target));
        break;
    }
    case CLRIE_IL_OPERAND_SWITCH: {
        uint32_t count = clrie_il_instr_switch_count(n);
        size_t used = (size_t)snprintf(buf, cap, " (%" PRIu32 ")", count);
        for (uint32_t i = 0; i < count && used + 12 < cap; i++) {
            struct clrie_il_instr *target = clrie_il_instr_switch_target(n, i);
            used += (size_t)snprintf(buf + used, cap - used, " IL_%04X",
                                     target ? (unsigned)clrie_il_instr_offset(target) : 0u);
        }
        break;
    }
    case CLRIE_IL_OPERAND_FLOAT32:
    case CLRIE_IL_OPERAND_FLOAT64:
        if (clrie_il_instr_operand_real(n, &real) == 0)
            snprintf(buf, cap, " %g", real);
        break;
    case CLRIE_IL_OPERAND_TOKEN:
        if (clrie_il_instr_operand_int(n, &value) == 0)
            snprintf(buf, cap, " 0x%08" PRIX32, (uint32_t)value);
        break;
    default:
        if (clrie_il_instr_operand_int(n, &value) == 0)
            snprintf(buf, cap, " %" PRId64, value);
        break;
    }
}

void clrie_pm__il_dump_method(struct clrie_pm_log *log, const char *name, uint32_t token,
                              struct clrie_il_graph *g, const uint8_t *local_sig,
                              size_t local_sig_len, const COR_IL_MAP *map, size_t map_count)
{
    struct clrie_il_header header;
    clrie_il_graph_header(g, &header);
    clrie_pm_log_write(log, CLRIE_PM_LOG_DUMPS, NULL,
                       "[0x%08X] %s: %s header, max stack %u, %" PRIu32 " bytes of IL, locals "
                       "0x%08" PRIX32,
                       (unsigned)token, name, header.fat ? "fat" : "tiny",
                       (unsigned)header.max_stack, header.code_size, header.local_sig_token);
    if (local_sig_len) {
        char hex[3 * 64 + 8];
        size_t used = 0;
        for (size_t i = 0; i < local_sig_len && i < 64; i++)
            used += (size_t)snprintf(hex + used, sizeof(hex) - used, " %02X", local_sig[i]);
        if (local_sig_len > 64)
            snprintf(hex + used, sizeof(hex) - used, " ...");
        clrie_pm_log_write(log, CLRIE_PM_LOG_DUMPS, NULL, "[0x%08X]   locals signature:%s",
                           (unsigned)token, hex);
    }
    for (struct clrie_il_instr *n = clrie_il_graph_first(g); n; n = clrie_il_instr_next(n)) {
        const struct clrie_il_opcode_info *info = clrie_il_instr_info(n);
        char operand[512];
        format_operand(n, info, operand, sizeof(operand));
        uint32_t original = clrie_il_instr_original_offset(n);
        char origin[24] = "new";
        if (original != CLRIE_IL_NO_OFFSET)
            snprintf(origin, sizeof(origin), "was IL_%04X", (unsigned)original);
        clrie_pm_log_write(log, CLRIE_PM_LOG_DUMPS, NULL, "[0x%08X]   IL_%04X: %-14s%s  (%s)",
                           (unsigned)token, (unsigned)clrie_il_instr_offset(n),
                           info && info->name ? info->name : "?", operand, origin);
    }
    for (size_t i = 0; i < clrie_il_graph_clause_count(g); i++) {
        struct clrie_il_clause_info c;
        clrie_il_clause_get(clrie_il_graph_clause(g, i), &c);
        uint32_t try_end = clrie_il_instr_offset(c.try_last) + clrie_il_instr_size(c.try_last);
        uint32_t handler_end =
            clrie_il_instr_offset(c.handler_last) + clrie_il_instr_size(c.handler_last);
        char extra[40] = "";
        if ((c.flags & CLRIE_IL_EH_KIND_MASK) == CLRIE_IL_EH_CATCH)
            snprintf(extra, sizeof(extra), " type 0x%08" PRIX32, c.class_token);
        else if ((c.flags & CLRIE_IL_EH_KIND_MASK) == CLRIE_IL_EH_FILTER && c.filter_first)
            snprintf(extra, sizeof(extra), " filter IL_%04X",
                     (unsigned)clrie_il_instr_offset(c.filter_first));
        clrie_pm_log_write(
            log, CLRIE_PM_LOG_DUMPS, NULL,
            "[0x%08X]   EH %zu: try IL_%04X-IL_%04X %s IL_%04X-IL_%04X%s", (unsigned)token, i,
            (unsigned)clrie_il_instr_offset(c.try_first), (unsigned)try_end, clause_kind(c.flags),
            (unsigned)clrie_il_instr_offset(c.handler_first), (unsigned)handler_end, extra);
    }
    char line[1024];
    size_t used = 0;
    line[0] = 0;
    for (size_t i = 0; i < map_count; i++) {
        if (used + 24 >= sizeof(line)) {
            clrie_pm_log_write(log, CLRIE_PM_LOG_DUMPS, NULL, "[0x%08X]   IL map:%s",
                               (unsigned)token, line);
            used = 0;
            line[0] = 0;
        }
        used += (size_t)snprintf(line + used, sizeof(line) - used, " %u->%u",
                                 (unsigned)map[i].oldOffset, (unsigned)map[i].newOffset);
    }
    if (used)
        clrie_pm_log_write(log, CLRIE_PM_LOG_DUMPS, NULL, "[0x%08X]   IL map:%s", (unsigned)token,
                           line);
}
