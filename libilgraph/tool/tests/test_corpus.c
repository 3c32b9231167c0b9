/* Every assembly of the installed .NET shared framework opens, and every method body in it
 * is found and bounded inside the file. Arguments: framework folders; with none, the
 * folders under the usual dotnet roots are searched. Exit 77 (skipped) if there are none. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assembly.h"

struct totals {
    unsigned assemblies, failures, ready_to_run, pe32_plus;
    uint64_t methods, bodies, body_bytes, il_bytes, eh_sections, member_refs, method_specs;
};

static void failure(struct totals *t, const char *path, const char *what, uint32_t token, int r,
                    const struct asm_diag *diag)
{
    t->failures++;
    if (t->failures <= 50)
        fprintf(stderr, "FAIL %s: %s 0x%08" PRIX32 ": %s (offset 0x%zX: %s)\n", path, what, token,
                strerror(-r), diag->offset, r == -EILSEQ ? diag->message : "");
}

static void check_assembly(const char *path, struct totals *t)
{
    struct asm_assembly *a;
    struct asm_diag diag = {0};
    int r = asm_assembly_new_from_file(path, &a, &diag);
    if (r != 0) {
        failure(t, path, "open", 0, r, &diag);
        return;
    }
    t->assemblies++;
    t->ready_to_run += asm_assembly_info(a)->ready_to_run;
    t->pe32_plus += asm_assembly_info(a)->pe32_plus;
    struct asm_blob file = asm_assembly_bytes(a);
    struct asm_module module;
    if ((r = asm_module_get(a, &module, &diag)) != 0)
        failure(t, path, "module", 0, r, &diag);

    static char name[4096];
    for (uint32_t row = 1; row <= asm_table_rows(a, ASM_TABLE_METHOD_DEF); row++) {
        uint32_t token = ASM_TOKEN(ASM_TABLE_METHOD_DEF, row);
        struct asm_methoddef m;
        struct clrie_il_method_sig sig;
        struct asm_body body;
        t->methods++;
        if ((r = asm_methoddef_get(a, row, &m, &diag)) != 0 ||
            (r = asm_token_name(a, token, name, sizeof(name), &diag)) != 0 ||
            (r = asm_token_method_sig(a, token, &sig, &diag)) != 0) {
            failure(t, path, "method", token, r, &diag);
            continue;
        }
        r = asm_method_body(a, row, &body, &diag);
        if (r == -ENOENT && m.rva == 0)
            continue;
        if (r != 0) {
            failure(t, path, "body", token, r, &diag);
            continue;
        }
        if (body.start < file.data || body.len > file.len ||
            (size_t)(body.start - file.data) > file.len - body.len ||
            body.code + body.code_size > body.start + body.len) {
            struct asm_diag d = {.offset = body.file_offset};
            snprintf(d.message, sizeof(d.message), "body not inside the file");
            failure(t, path, "body bounds", token, -EILSEQ, &d);
            continue;
        }
        t->bodies++;
        t->body_bytes += body.len;
        t->il_bytes += body.code_size;
        t->eh_sections += body.section_count;
    }
    for (uint32_t row = 1; row <= asm_table_rows(a, ASM_TABLE_MEMBER_REF); row++) {
        uint32_t token = ASM_TOKEN(ASM_TABLE_MEMBER_REF, row);
        struct asm_memberref m;
        struct clrie_il_method_sig sig;
        if ((r = asm_memberref_get(a, row, &m, &diag)) != 0 ||
            (r = asm_token_name(a, token, name, sizeof(name), &diag)) != 0) {
            failure(t, path, "memberref", token, r, &diag);
            continue;
        }
        t->member_refs++;
        if (m.signature.len > 0 &&
            (m.signature.data[0] & CLRIE_IL_CALLCONV_KIND_MASK) != CLRIE_IL_CALLCONV_FIELD &&
            (r = asm_token_method_sig(a, token, &sig, &diag)) != 0)
            failure(t, path, "memberref signature", token, r, &diag);
    }
    for (uint32_t row = 1; row <= asm_table_rows(a, ASM_TABLE_METHOD_SPEC); row++) {
        uint32_t token = ASM_TOKEN(ASM_TABLE_METHOD_SPEC, row);
        struct clrie_il_method_sig sig;
        if ((r = asm_token_method_sig(a, token, &sig, &diag)) != 0 ||
            (r = asm_token_name(a, token, name, sizeof(name), &diag)) != 0)
            failure(t, path, "methodspec", token, r, &diag);
        else
            t->method_specs++;
    }
    for (uint32_t row = 1; row <= asm_table_rows(a, ASM_TABLE_TYPE_SPEC); row++) {
        uint32_t token = ASM_TOKEN(ASM_TABLE_TYPE_SPEC, row);
        if ((r = asm_token_name(a, token, name, sizeof(name), &diag)) != 0)
            failure(t, path, "typespec", token, r, &diag);
    }
    for (uint32_t row = 1; row <= asm_table_rows(a, ASM_TABLE_STAND_ALONE_SIG); row++) {
        struct asm_blob sig;
        if ((r = asm_standalonesig_get(a, row, &sig, &diag)) != 0)
            failure(t, path, "standalonesig", ASM_TOKEN(ASM_TABLE_STAND_ALONE_SIG, row), r, &diag);
    }
    asm_assembly_free(a);
}

static void add_roots(glob_t *g, int *flags, const char *root)
{
    if (!root || !*root)
        return;
    char pattern[4096];
    snprintf(pattern, sizeof(pattern), "%s/shared/Microsoft.NETCore.App/*/", root);
    if (glob(pattern, *flags, NULL, g) == 0)
        *flags |= GLOB_APPEND;
}

int main(int argc, char **argv)
{
    glob_t dirs = {0};
    int flags = 0;
    for (int i = 1; i < argc; i++)
        if (glob(argv[i], flags, NULL, &dirs) == 0)
            flags |= GLOB_APPEND;
    if (argc == 1) {
        add_roots(&dirs, &flags, getenv("DOTNET_ROOT"));
        add_roots(&dirs, &flags, "/usr/share/dotnet");
        add_roots(&dirs, &flags, "/usr/lib/dotnet");
        add_roots(&dirs, &flags, "/usr/local/share/dotnet");
    }
    if (!flags) {
        printf("no .NET shared framework found: skipped\n");
        return 77;
    }
    struct totals t = {0};
    for (size_t d = 0; d < dirs.gl_pathc; d++) {
        char pattern[4096];
        snprintf(pattern, sizeof(pattern), "%s/*.dll", dirs.gl_pathv[d]);
        glob_t files;
        if (glob(pattern, 0, NULL, &files) != 0)
            continue;
        printf("%s: %zu assemblies\n", dirs.gl_pathv[d], files.gl_pathc);
        for (size_t i = 0; i < files.gl_pathc; i++)
            check_assembly(files.gl_pathv[i], &t);
        globfree(&files);
    }
    globfree(&dirs);
    printf("assemblies %u (ReadyToRun %u, PE32+ %u), methods %" PRIu64 ", bodies %" PRIu64
           ", body bytes %" PRIu64 ", IL bytes %" PRIu64 ", EH sections %" PRIu64
           ", member refs %" PRIu64 ", method specs %" PRIu64 ", failures %u\n",
           t.assemblies, t.ready_to_run, t.pe32_plus, t.methods, t.bodies, t.body_bytes, t.il_bytes,
           t.eh_sections, t.member_refs, t.method_specs, t.failures);
    if (t.assemblies == 0) {
        printf("no assemblies found: skipped\n");
        return 77;
    }
    return t.failures ? 1 : 0;
}
