/* What the clrie-il subcommands share: opening assemblies, loading method bodies, the
 * stack resolver that tells libilgraph what a call or ret does to the stack, and the
 * metadata the verifier asks of an assembly. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "clrie/os/fs.h"
#include "tool.h"

void tool_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("clrie-il: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

const char *tool_file_name(const char *path)
{
    const char *name = path;
    for (const char *c = path; *c; c++)
        if (clrie_os_is_separator(*c))
            name = c + 1;
    return name;
}

struct asm_assembly *tool_open(const char *path)
{
    struct asm_assembly *a = NULL;
    struct asm_diag diag = {0};
    int r = asm_assembly_new_from_file(path, &a, &diag);
    if (r == -EILSEQ)
        tool_error("%s: not a valid .NET assembly: %s (at byte offset 0x%zX)", path, diag.message,
                   diag.offset);
    else if (r == -EFBIG)
        tool_error("%s: %s", path, diag.message[0] ? diag.message : strerror(-r));
    else if (r != 0)
        tool_error("%s: %s", path, strerror(-r));
    return r == 0 ? a : NULL;
}

int tool_method_load(const struct asm_assembly *a, uint32_t row, struct tool_method *out,
                     struct asm_diag *diag)
{
    struct asm_methoddef def;
    int r = asm_methoddef_get(a, row, &def, diag);
    if (r != 0)
        return r;
    struct tool_method m = {
        .token = ASM_TOKEN(ASM_TABLE_METHOD_DEF, row),
        .simple_name = def.name,
        .signature = def.signature,
    };
    r = asm_method_body(a, row, &m.body, diag);
    if (r != 0)
        return r;
    if (m.body.local_sig_token != 0) {
        if (ASM_TOKEN_TABLE(m.body.local_sig_token) != ASM_TABLE_STAND_ALONE_SIG) {
            if (diag) {
                diag->offset = m.body.file_offset;
                snprintf(diag->message, sizeof(diag->message),
                         "local signature token 0x%08" PRIX32 " is not a StandAloneSig",
                         m.body.local_sig_token);
            }
            return -EILSEQ;
        }
        r = asm_standalonesig_get(a, ASM_TOKEN_ROW(m.body.local_sig_token), &m.local_sig, diag);
        if (r == -ENOENT && diag) {
            diag->offset = m.body.file_offset;
            snprintf(diag->message, sizeof(diag->message),
                     "local signature token 0x%08" PRIX32 " names no row", m.body.local_sig_token);
            r = -EILSEQ;
        }
        if (r != 0)
            return r;
    }
    *out = m;
    return 0;
}

bool tool_resolver_init(struct tool_resolver *r, const struct asm_assembly *a,
                        const struct tool_method *m)
{
    r->assembly = a;
    r->own_ok = clrie_il_sig_parse_method(m->signature.data, m->signature.len, &r->own, NULL) == 0;
    return r->own_ok;
}

int tool_resolve_stack(void *ctx, uint16_t opcode, uint32_t token,
                       struct clrie_il_stack_effect *out)
{
    struct tool_resolver *r = ctx;
    if (opcode == CLRIE_IL_OP_RET)
        return r->own_ok ? clrie_il_sig_stack_effect(&r->own, opcode, out) : -EILSEQ;
    struct clrie_il_method_sig sig;
    int rc = asm_token_method_sig(r->assembly, token, &sig, NULL);
    return rc ? rc : clrie_il_sig_stack_effect(&sig, opcode, out);
}

bool tool_token_exists(void *ctx, uint32_t token)
{
    const struct asm_assembly *a = ctx;
    uint32_t table = ASM_TOKEN_TABLE(token), row = ASM_TOKEN_ROW(token);
    if (table == ASM_TOKEN_USER_STRING) {
        struct asm_blob b;
        return asm_user_string(a, row, &b, NULL) == 0;
    }
    return table < ASM_TABLE_COUNT && row >= 1 && row <= asm_table_rows(a, (enum asm_table)table);
}

int tool_signature(void *ctx, uint32_t token, const uint8_t **sig, size_t *len)
{
    const struct asm_assembly *a = ctx;
    uint32_t row = ASM_TOKEN_ROW(token);
    struct asm_blob b = {0};
    int r;
    switch (ASM_TOKEN_TABLE(token)) {
    case ASM_TABLE_METHOD_DEF: {
        struct asm_methoddef m;
        r = asm_methoddef_get(a, row, &m, NULL);
        b = m.signature;
        break;
    }
    case ASM_TABLE_MEMBER_REF: {
        struct asm_memberref m;
        r = asm_memberref_get(a, row, &m, NULL);
        b = m.signature;
        break;
    }
    case ASM_TABLE_FIELD: {
        struct asm_field f;
        r = asm_field_get(a, row, &f, NULL);
        b = f.signature;
        break;
    }
    case ASM_TABLE_METHOD_SPEC: {
        struct asm_methodspec m;
        r = asm_methodspec_get(a, row, &m, NULL);
        if (r == 0 && ASM_TOKEN_TABLE(m.method) != ASM_TABLE_METHOD_SPEC)
            return tool_signature(ctx, m.method, sig, len);
        return r ? r : -EILSEQ;
    }
    case ASM_TABLE_STAND_ALONE_SIG:
        r = asm_standalonesig_get(a, row, &b, NULL);
        break;
    default:
        return -EINVAL;
    }
    if (r != 0)
        return r;
    *sig = b.data;
    *len = b.len;
    return 0;
}

/* The TypeSpec blob of a MemberRef's parent when that parent is a TypeSpec; NULL otherwise. */
static void tool_member_ref_type_spec(const struct asm_assembly *a, uint32_t token,
                                      const uint8_t **blob, size_t *len)
{
    struct asm_memberref m;
    struct asm_blob spec = {0};
    if (ASM_TOKEN_TABLE(token) != ASM_TABLE_MEMBER_REF ||
        asm_memberref_get(a, ASM_TOKEN_ROW(token), &m, NULL) != 0 ||
        ASM_TOKEN_TABLE(m.parent) != ASM_TABLE_TYPE_SPEC ||
        asm_typespec_get(a, ASM_TOKEN_ROW(m.parent), &spec, NULL) != 0 || !spec.data)
        return;
    *blob = spec.data;
    *len = spec.len;
}

static int tool_generic_args(void *ctx, uint32_t token, const uint8_t **type_spec,
                             size_t *type_spec_len, const uint8_t **method_inst,
                             size_t *method_inst_len)
{
    const struct asm_assembly *a = ctx;
    *type_spec = *method_inst = NULL;
    *type_spec_len = *method_inst_len = 0;
    switch (ASM_TOKEN_TABLE(token)) {
    case ASM_TABLE_MEMBER_REF:
        tool_member_ref_type_spec(a, token, type_spec, type_spec_len);
        return 0;
    case ASM_TABLE_METHOD_SPEC: {
        struct asm_methodspec m;
        int r = asm_methodspec_get(a, ASM_TOKEN_ROW(token), &m, NULL);
        if (r != 0)
            return r;
        *method_inst = m.instantiation.data;
        *method_inst_len = m.instantiation.data ? m.instantiation.len : 0;
        tool_member_ref_type_spec(a, m.method, type_spec, type_spec_len);
        return 0;
    }
    default:
        return -EINVAL;
    }
}

const struct clrie_il_metadata tool_metadata_template = {
    .token_exists = tool_token_exists,
    .signature = tool_signature,
    .generic_args = tool_generic_args,
};

int tool_verify(struct clrie_il_graph *g, const struct asm_assembly *a, const struct tool_method *m,
                struct tool_resolver *res, const uint8_t *local_sig, size_t local_sig_len,
                clrie_il_report_fn report, void *report_ctx)
{
    struct clrie_il_metadata md = tool_metadata_template;
    md.ctx = (void *)a;
    const struct clrie_il_verify_context c = {
        .resolve = tool_resolve_stack,
        .resolve_ctx = res,
        .method_sig = m->signature.data,
        .method_sig_len = m->signature.len,
        .local_sig = local_sig,
        .local_sig_len = local_sig_len,
        .metadata = &md,
    };
    return clrie_il_graph_verify_in(g, &c, report, report_ctx);
}
