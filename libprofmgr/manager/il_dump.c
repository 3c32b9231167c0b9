/* The Dumps log level: what the engine gave the runtime for an instrumented method.
 *
 * First CLRIE's document, line for line as CLRIE writes it (tools that read CLRIE's dumps
 * read this one): `<?xml version="1.0"?>`, an `<InstrumentedMethod>` element with the
 * method's names, IDs, token, flags, signature, max stack, its instructions as
 * `IL_xxxx opcode operand` decoded again from the final bytes, its exception clauses and
 * its IL map. Lines starting `[TestIgnore]` are ones CLRIE's own baselines skip.
 *
 * Then clrie's own lines, each starting with a label that names the method alone among all
 * methods of the process: `[<module>!<ModuleID> 0x<token>]`. They add what CLRIE's
 * document lacks: the header kind, where each instruction came from (`was IL_xxxx`, `new`)
 * and clause ends.
 *
 * The whole dump is one log write: methods are instrumented on several threads at once, and
 * two dumps never interleave. */
#include "il_dump.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/os/process.h"
#include "utf16.h"

static const char *clause_kind(uint32_t flags)
{
    const char *name = clrie_il_eh_kind_name(flags & CLRIE_IL_EH_KIND_MASK);
    return name ? name : "clause";
}

/* ---- CLRIE's document --------------------------------------------------------------- */

static const char *element_type_name(uint8_t type)
{
    static const struct {
        uint8_t type;
        const char *name;
    } names[] = {
        {0x01, "VOID"},        {0x02, "BOOLEAN"},    {0x03, "CHAR"},    {0x04, "I1"},
        {0x05, "U1"},          {0x06, "I2"},         {0x07, "U2"},      {0x08, "I4"},
        {0x09, "U4"},          {0x0a, "I8"},         {0x0b, "U8"},      {0x0c, "R4"},
        {0x0d, "R8"},          {0x0e, "STRING"},     {0x0f, "PTR"},     {0x10, "BYREF"},
        {0x11, "VALUETYPE"},   {0x12, "CLASS"},      {0x13, "VAR"},     {0x14, "ARRAY"},
        {0x15, "GENERICINST"}, {0x16, "TYPEDBYREF"}, {0x18, "I"},       {0x19, "U"},
        {0x1b, "FNPTR"},       {0x1c, "OBJECT"},     {0x1d, "SZARRAY"}, {0x1e, "MVAR"},
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (names[i].type == type)
            return names[i].name;
    return NULL;
}

/* The return type's element type and, for a class or value type, its token. */
static void return_type(const struct method_info *mi, uint8_t *type, uint32_t *token)
{
    struct clrie_il_method_sig parsed;
    *type = 0;
    *token = 0;
    if (clrie_il_sig_parse_method(mi->sig, mi->sig_len, &parsed, NULL) != 0)
        return;
    const uint8_t *p = mi->sig + parsed.ret_offset;
    size_t len = parsed.ret_len, used = 0;
    uint32_t skipped;
    while (len > 0 && (p[0] == 0x1f || p[0] == 0x20) && /* custom modifiers */
           clrie_il_sig_read_token(p + 1, len - 1, &skipped, &used) == 0) {
        p += 1 + used;
        len -= 1 + used;
    }
    if (len == 0)
        return;
    *type = p[0];
    if ((p[0] == 0x11 || p[0] == 0x12) &&
        clrie_il_sig_read_token(p + 1, len - 1, token, &used) != 0)
        *token = 0;
}

static BOOL ask(HRESULT(STDMETHODCALLTYPE *query)(IMethodInfo *, BOOL *), IMethodInfo *method)
{
    BOOL value = FALSE;
    return SUCCEEDED(query(method, &value)) && value;
}

/* One instruction as CLRIE writes it: `IL_xxxx name[ operand]`, lower-case hex. */
static void clrie_instruction(struct clrie_pm_log_line *line, const char *prefix,
                              struct clrie_il_instr *n)
{
    const struct clrie_il_opcode_info *info = clrie_il_instr_info(n);
    int64_t value = 0;
    double real = 0;
    clrie_pm_log_line_append(line, "%sIL_%04x %s", prefix, (unsigned)clrie_il_instr_offset(n),
                             info && info->name ? info->name : "?");
    switch (info ? info->operand_kind : CLRIE_IL_OPERAND_NONE) {
    case CLRIE_IL_OPERAND_NONE:
        break;
    case CLRIE_IL_OPERAND_BRANCH8:
    case CLRIE_IL_OPERAND_BRANCH32: {
        struct clrie_il_instr *target = clrie_il_instr_branch_target(n);
        clrie_pm_log_line_append(line, " IL_%04x",
                                 target ? (unsigned)clrie_il_instr_offset(target) : 0u);
        break;
    }
    case CLRIE_IL_OPERAND_SWITCH: {
        uint32_t count = clrie_il_instr_switch_count(n);
        clrie_pm_log_line_append(line, " (");
        for (uint32_t i = 0; i < count; i++) {
            struct clrie_il_instr *target = clrie_il_instr_switch_target(n, i);
            clrie_pm_log_line_append(line, "%s IL_%04x", i ? "," : "",
                                     target ? (unsigned)clrie_il_instr_offset(target) : 0u);
        }
        clrie_pm_log_line_append(line, ")");
        break;
    }
    case CLRIE_IL_OPERAND_FLOAT32:
    case CLRIE_IL_OPERAND_FLOAT64:
        if (clrie_il_instr_operand_real(n, &real) == 0)
            clrie_pm_log_line_append(line, " 0x%f", real);
        break;
    case CLRIE_IL_OPERAND_INT8:
    case CLRIE_IL_OPERAND_UINT8:
        if (clrie_il_instr_operand_int(n, &value) == 0)
            clrie_pm_log_line_append(line, " 0x%x", (unsigned)(uint8_t)value);
        break;
    case CLRIE_IL_OPERAND_UINT16:
        if (clrie_il_instr_operand_int(n, &value) == 0)
            clrie_pm_log_line_append(line, " 0x%02x", (unsigned)(uint16_t)value);
        break;
    case CLRIE_IL_OPERAND_INT64:
        if (clrie_il_instr_operand_int(n, &value) == 0)
            clrie_pm_log_line_append(line, " 0x%08" PRIx64, (uint64_t)value);
        break;
    case CLRIE_IL_OPERAND_TOKEN:
        if (clrie_il_instr_operand_int(n, &value) == 0)
            clrie_pm_log_line_append(line, " 0x%08" PRIx32, (uint32_t)value);
        break;
    default: /* int32 */
        if (clrie_il_instr_operand_int(n, &value) == 0)
            clrie_pm_log_line_append(line, " 0x%04" PRIx32, (uint32_t)value);
        break;
    }
    clrie_pm_log_line_append(line, "\n");
}

static void clrie_document(struct clrie_pm_log_line *line, struct method_info *mi,
                           struct clrie_il_graph *plugin_graph, struct clrie_il_graph *final,
                           const uint8_t *local_sig, size_t local_sig_len, const COR_IL_MAP *map,
                           size_t map_count)
{
    IMethodInfo *method = method_info_iface(mi);
    char *name = NULL, *full = NULL;
    clrie_pm_utf16_to_utf8(mi->name, mi->name_len, true, &name, NULL);
    full = strdup(clrie_pm__method_info_full_name(mi));
    struct clrie_il_method_sig parsed = {0};
    clrie_il_sig_parse_method(mi->sig, mi->sig_len, &parsed, NULL);
    uint8_t ret = 0;
    uint32_t ret_token = 0;
    return_type(mi, &ret, &ret_token);
    const char *ret_name = element_type_name(ret);
    struct clrie_il_header header;
    clrie_il_graph_header(final, &header);

    clrie_pm_log_line_append(line, "<?xml version=\"1.0\"?>\n");
    clrie_pm_log_line_append(line, "[TestIgnore]<Pid>%ld</Pid>\n", (long)clrie_os_process_id());
    clrie_pm_log_line_append(line, "<InstrumentedMethod>\n    <Name>");
    clrie_pm_log_line_append_escaped(line, name ? name : "");
    clrie_pm_log_line_append(line, "</Name>\n    <FullName>");
    clrie_pm_log_line_append_escaped(line, full ? full : "");
    clrie_pm_log_line_append(line, "</FullName>\n");
    clrie_pm_log_line_append(line, "    <ClassID Volatile=\"True\">0x%08" PRIxPTR "</ClassID>\n",
                             (uintptr_t)mi->class_id);
    clrie_pm_log_line_append(line,
                             "    <FunctionID Volatile=\"True\">0x%08" PRIxPTR "</FunctionID>\n",
                             (uintptr_t)mi->function_id);
    clrie_pm_log_line_append(line, "    <MethodToken>0x%08" PRIx32 "</MethodToken>\n",
                             (uint32_t)mi->token);
    clrie_pm_log_line_append(line,
                             "    <GenericParameterCount>0x%08" PRIx32 "</GenericParameterCount>\n",
                             parsed.generic_count);
    const struct IMethodInfoVtbl *v = method->lpVtbl;
    clrie_pm_log_line_append(line, "    <IsStatic>%d</IsStatic>\n", ask(v->GetIsStatic, method));
    clrie_pm_log_line_append(line, "    <IsPublic>%d</IsPublic>\n", ask(v->GetIsPublic, method));
    clrie_pm_log_line_append(line, "    <IsPrivate>%d</IsPrivate>\n", ask(v->GetIsPrivate, method));
    clrie_pm_log_line_append(line, "    <IsPropGetter>%d</IsPropGetter>\n",
                             ask(v->GetIsPropertyGetter, method));
    clrie_pm_log_line_append(line, "    <IsPropSetter>%d</IsPropSetter>\n",
                             ask(v->GetIsPropertySetter, method));
    clrie_pm_log_line_append(line, "    <IsFinalizer>%d</IsFinalizer>\n",
                             ask(v->GetIsFinalizer, method));
    clrie_pm_log_line_append(line, "    <IsConstructor>%d</IsConstructor>\n",
                             ask(v->GetIsConstructor, method));
    clrie_pm_log_line_append(line, "    <IsStaticConstructor>%d</IsStaticConstructor>\n",
                             ask(v->GetIsStaticConstructor, method));
    clrie_pm_log_line_append(line, "    <DeclaringTypeToken>0x%08" PRIx32 "</DeclaringTypeToken>\n",
                             (uint32_t)mi->declaring_type);
    if (ret_name)
        clrie_pm_log_line_append(line,
                                 "    <RetValueCorElementType>ELEMENT_TYPE_%s"
                                 "</RetValueCorElementType>\n",
                                 ret_name);
    else
        clrie_pm_log_line_append(line, "    <RetValueCorElementType>Unknown CorElementType"
                                       "</RetValueCorElementType>\n");
    clrie_pm_log_line_append(line, "    <RetTypeToken>0x%08" PRIx32 "</RetTypeToken>\n", ret_token);
    clrie_pm_log_line_append(line, "    <CorSignature>");
    for (ULONG i = 0; i < mi->sig_len; i++)
        clrie_pm_log_line_append(line, "0x%02x ", mi->sig[i]);
    clrie_pm_log_line_append(line, "</CorSignature>\n");
    clrie_pm_log_line_append(line, "    <CorMethodAttr>0x%08" PRIx32 "</CorMethodAttr>\n",
                             (uint32_t)mi->attributes);
    clrie_pm_log_line_append(line, "    <CodeRVA>0x%08" PRIx32 "</CodeRVA>\n", (uint32_t)mi->rva);
    clrie_pm_log_line_append(line, "    <MethodImpl>0x%08" PRIx32 "</MethodImpl>\n",
                             (uint32_t)mi->impl_flags);
    clrie_pm_log_line_append(line, "    <LocalSignature>");
    if (local_sig_len == 0) /* CLRIE writes an empty locals signature for a method without */
        clrie_pm_log_line_append(line, "0x07 0x00 ");
    for (size_t i = 0; i < local_sig_len; i++)
        clrie_pm_log_line_append(line, "0x%02x ", local_sig[i]);
    clrie_pm_log_line_append(line, "</LocalSignature>\n");
    clrie_pm_log_line_append(line, "    <MaxStack>0x%08x</MaxStack>\n", (unsigned)header.max_stack);

    /* The plugins' graph in its original order, as CLRIE lists it for information. */
    clrie_pm_log_line_append(line, "[TestIgnore]<OriginalInstructions><![CDATA[\n");
    for (struct clrie_il_instr *n = clrie_il_graph_original_first(plugin_graph); n;
         n = clrie_il_instr_original_next(n))
        if (!clrie_il_instr_is_removed(n))
            clrie_instruction(line, "[TestIgnore] ", n);
    clrie_pm_log_line_append(line, "[TestIgnore]]]></OriginalInstructions>\n");
    clrie_pm_log_line_append(line, "    <Instructions><![CDATA[\n");
    for (struct clrie_il_instr *n = clrie_il_graph_first(final); n; n = clrie_il_instr_next(n))
        clrie_instruction(line, "", n);
    clrie_pm_log_line_append(line, "    ]]></Instructions>\n");

    clrie_pm_log_line_append(line, "    <ExceptionClauses>\n");
    for (size_t i = 0; i < clrie_il_graph_clause_count(final); i++) {
        struct clrie_il_clause_info c;
        clrie_il_clause_get(clrie_il_graph_clause(final, i), &c);
        uint32_t kind = c.flags & CLRIE_IL_EH_KIND_MASK;
        clrie_pm_log_line_append(line,
                                 "        <ExceptionClause>\n"
                                 "            <Flags>0x%08" PRIx32 "</Flags>\n"
                                 "            <FirstTryOffset>0x%08x</FirstTryOffset>\n"
                                 "            <LastTryOffset>0x%08x</LastTryOffset>\n"
                                 "            <FirstHandlerOffset>0x%08x</FirstHandlerOffset>\n"
                                 "            <LastHandlerOffset>0x%08x</LastHandlerOffset>\n"
                                 "            <FilterOffset>0x%08x</FilterOffset>\n"
                                 "            <ExceptionToken>0x%08" PRIx32 "</ExceptionToken>\n"
                                 "        </ExceptionClause>\n",
                                 c.flags, (unsigned)clrie_il_instr_offset(c.try_first),
                                 (unsigned)clrie_il_instr_offset(c.try_last),
                                 (unsigned)clrie_il_instr_offset(c.handler_first),
                                 (unsigned)clrie_il_instr_offset(c.handler_last),
                                 kind == CLRIE_IL_EH_FILTER && c.filter_first
                                     ? (unsigned)clrie_il_instr_offset(c.filter_first)
                                     : 0u,
                                 kind == CLRIE_IL_EH_CATCH ? c.class_token : 0u);
    }
    clrie_pm_log_line_append(line, "    </ExceptionClauses>\n    <CorIlMap>\n");
    for (size_t i = 0; i < map_count; i++)
        clrie_pm_log_line_append(line,
                                 "        <CorIlMapEntry>\n"
                                 "            <fAccurate>%d</fAccurate>\n"
                                 "            <oldOffset>0x%08" PRIx32 "</oldOffset>\n"
                                 "            <newOffset>0x%08" PRIx32 "</newOffset>\n"
                                 "        </CorIlMapEntry>\n",
                                 map[i].fAccurate ? 1 : 0, (uint32_t)map[i].oldOffset,
                                 (uint32_t)map[i].newOffset);
    clrie_pm_log_line_append(line, "    </CorIlMap>\n</InstrumentedMethod>\n");
    free(name);
    free(full);
}

/* ---- clrie's own lines ----------------------------------------------------------------- */

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

static void clrie_lines(struct clrie_pm_log_line *line, const char *label, const char *name,
                        struct clrie_il_graph *g, const COR_IL_MAP *map, size_t map_count)
{
    struct clrie_il_header header;
    clrie_il_graph_header(g, &header);
    clrie_pm_log_line_append(line,
                             "%s %s: %s header, max stack %u, %" PRIu32 " bytes of IL, locals "
                             "0x%08" PRIX32 "\n",
                             label, name, header.fat ? "fat" : "tiny", (unsigned)header.max_stack,
                             header.code_size, header.local_sig_token);
    for (struct clrie_il_instr *n = clrie_il_graph_first(g); n; n = clrie_il_instr_next(n)) {
        const struct clrie_il_opcode_info *info = clrie_il_instr_info(n);
        char operand[512] = "";
        if (info)
            format_operand(n, info, operand, sizeof(operand));
        uint32_t original = clrie_il_instr_original_offset(n);
        char origin[24] = "new";
        if (original != CLRIE_IL_NO_OFFSET)
            snprintf(origin, sizeof(origin), "was IL_%04X", (unsigned)original);
        clrie_pm_log_line_append(line, "%s   IL_%04X: %-14s%s  (%s)\n", label,
                                 (unsigned)clrie_il_instr_offset(n),
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
        clrie_pm_log_line_append(
            line, "%s   EH %zu: try IL_%04X-IL_%04X %s IL_%04X-IL_%04X%s\n", label, i,
            (unsigned)clrie_il_instr_offset(c.try_first), (unsigned)try_end, clause_kind(c.flags),
            (unsigned)clrie_il_instr_offset(c.handler_first), (unsigned)handler_end, extra);
    }
    clrie_pm_log_line_append(line, "%s   IL map:", label);
    for (size_t i = 0; i < map_count; i++)
        clrie_pm_log_line_append(line, " %u->%u", (unsigned)map[i].oldOffset,
                                 (unsigned)map[i].newOffset);
}

/* `[<module file name>!<ModuleID> 0x<token>]`: the module's ID tells apart two loads of one
 * file (two load contexts); control characters in the name are escaped. */
static void method_label(struct method_info *mi, char *out, size_t size)
{
    BSTR text = NULL;
    char *name = NULL;
    if (SUCCEEDED(mi->module->lpVtbl->GetModuleName(mi->module, &text)) && text)
        clrie_pm_utf16_to_utf8(text, clrie_pm_utf16_len(text), true, &name, NULL);
    clrie_pm_bstr_free(text);
    char safe[256];
    size_t used = 0;
    for (const unsigned char *p = (const unsigned char *)(name ? name : "?");
         *p && used + 5 < sizeof(safe); p++) {
        if (*p < 0x20 || *p == 0x7f || *p == ']' || *p == '\\')
            used += (size_t)snprintf(safe + used, sizeof(safe) - used, "\\x%02x", *p);
        else
            safe[used++] = (char)*p;
    }
    safe[used] = 0;
    snprintf(out, size, "[%s!%" PRIxPTR " 0x%08" PRIX32 "]", safe, (uintptr_t)mi->module_id,
             (uint32_t)mi->token);
    free(name);
}

void clrie_pm__il_dump_method(struct clrie_pm_log *log, struct method_info *mi,
                              struct clrie_il_graph *g, const uint8_t *body, size_t body_len,
                              const uint8_t *local_sig, size_t local_sig_len, const COR_IL_MAP *map,
                              size_t map_count)
{
    struct clrie_il_graph *final = NULL;
    struct clrie_il_diag diag;
    char label[320];
    method_label(mi, label, sizeof(label));
    struct clrie_pm_log_line line;
    clrie_pm_log_line_begin(&line, log, CLRIE_PM_LOG_DUMPS, NULL, "%s", "");
    if (clrie_il_graph_decode(body, body_len, &final, &diag) == 0)
        clrie_document(&line, mi, g, final, local_sig, local_sig_len, map, map_count);
    else
        clrie_pm_log_line_append(&line, "%s the final body cannot be decoded again: %s\n", label,
                                 diag.message);
    clrie_lines(&line, label, clrie_pm__method_info_full_name(mi), g, map, map_count);
    clrie_pm_log_line_end(&line);
    clrie_il_graph_free(final);
}
