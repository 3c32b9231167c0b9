/* Lists every method of an assembly with where its body is, one line each:
 *
 *     <token> <name> <rva> <body_length> <code_size> <max_stack>
 *
 * token and rva as 0x%08X, the rest decimal; a method without an IL body prints 0 for the
 * last three. ildump --list prints the same from System.Reflection.Metadata, and the
 * assembly-listing-matches-srm test compares the two. Exit status 1 on any error. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "assembly.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: asm-list ASSEMBLY\n");
        return 2;
    }
    struct asm_assembly *a;
    struct asm_diag diag = {0};
    int r = asm_assembly_new_from_file(argv[1], &a, &diag);
    if (r != 0) {
        fprintf(stderr, "%s: %s (offset 0x%zX: %s)\n", argv[1], strerror(-r), diag.offset,
                r == -EILSEQ ? diag.message : "");
        return 1;
    }
    int status = 0;
    static char name[4096];
    uint32_t methods = asm_table_rows(a, ASM_TABLE_METHOD_DEF);
    for (uint32_t row = 1; row <= methods; row++) {
        uint32_t token = ASM_TOKEN(ASM_TABLE_METHOD_DEF, row);
        struct asm_methoddef m;
        struct asm_body body = {0};
        r = asm_methoddef_get(a, row, &m, &diag);
        if (r == 0)
            r = asm_token_name(a, token, name, sizeof(name), &diag);
        if (r == 0) {
            r = asm_method_body(a, row, &body, &diag);
            if (r == -ENOENT)
                r = 0;
        }
        if (r != 0) {
            fprintf(stderr, "%s: method 0x%08" PRIX32 ": %s (offset 0x%zX: %s)\n", argv[1], token,
                    strerror(-r), diag.offset, diag.message);
            status = 1;
            continue;
        }
        printf("0x%08" PRIX32 " %s 0x%08" PRIX32 " %zu %" PRIu32 " %u\n", token, name, m.rva,
               body.len, body.code_size, (unsigned)body.max_stack);
    }
    asm_assembly_free(a);
    return status;
}
