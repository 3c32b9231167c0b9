/* libFuzzer target for the assembly reader. The input is tried three ways: as a method body,
 * as a method signature, and as a whole assembly, whose every row, name, signature and body
 * is then read. Checks the reader's promises: results point inside the input, failures
 * carry an offset inside it and a terminated message. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "assembly.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t *begin, *end;

static void check_inside(const void *p, size_t len)
{
    const uint8_t *b = p;
    if (len > 0 && (b < begin || b > end || len > (size_t)(end - b)))
        abort();
}

/* r is what a reader call returned; diag what it filled. */
static void check_result(int r, const struct asm_diag *diag)
{
    if (r == -EILSEQ && (diag->offset > (size_t)(end - begin) ||
                         !memchr(diag->message, '\0', sizeof(diag->message))))
        abort();
    if (r != 0 && r != -EILSEQ && r != -ENOENT && r != -EINVAL && r != -ERANGE && r != -ENOMEM)
        abort();
}

/* "" may be the reader's own constant (index 0); any other string is in the input. */
static void check_string(const char *s)
{
    if (s[0])
        check_inside(s, strlen(s) + 1);
}

static void check_body(const struct asm_body *b)
{
    check_inside(b->start, b->len);
    if (b->code < b->start || b->code_size > b->len ||
        (size_t)(b->code - b->start) > b->len - b->code_size)
        abort();
    if (b->sections && (b->sections < b->code + b->code_size ||
                        b->sections + b->sections_len != b->start + b->len))
        abort();
}

static void read_everything(const struct asm_assembly *a)
{
    struct asm_diag diag;
    static char name[512];
    int r;
    struct asm_module module;
    if ((r = asm_module_get(a, &module, &diag)) == 0)
        check_string(module.name);
    check_result(r, &diag);

    for (uint32_t row = 1; row <= asm_table_rows(a, ASM_TABLE_TYPE_DEF); row++) {
        struct asm_typedef t;
        if ((r = asm_typedef_get(a, row, &t, &diag)) == 0)
            check_string(t.name);
        check_result(r, &diag);
        check_result(
            asm_token_name(a, ASM_TOKEN(ASM_TABLE_TYPE_DEF, row), name, sizeof(name), &diag),
            &diag);
    }
    for (uint32_t row = 1; row <= asm_table_rows(a, ASM_TABLE_METHOD_DEF); row++) {
        uint32_t token = ASM_TOKEN(ASM_TABLE_METHOD_DEF, row);
        struct asm_methoddef m;
        struct asm_body body;
        struct clrie_il_method_sig sig;
        if ((r = asm_methoddef_get(a, row, &m, &diag)) == 0) {
            check_string(m.name);
            check_inside(m.signature.data, m.signature.len);
        }
        check_result(r, &diag);
        check_result(asm_token_name(a, token, name, sizeof(name), &diag), &diag);
        check_result(asm_token_method_sig(a, token, &sig, &diag), &diag);
        if ((r = asm_method_body(a, row, &body, &diag)) == 0)
            check_body(&body);
        check_result(r, &diag);
    }
    for (uint32_t row = 1; row <= asm_table_rows(a, ASM_TABLE_FIELD); row++)
        check_result(asm_token_name(a, ASM_TOKEN(ASM_TABLE_FIELD, row), name, sizeof(name), &diag),
                     &diag);
    static const enum asm_table named[] = {ASM_TABLE_TYPE_REF, ASM_TABLE_MEMBER_REF,
                                           ASM_TABLE_METHOD_SPEC, ASM_TABLE_TYPE_SPEC};
    for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
        for (uint32_t row = 1; row <= asm_table_rows(a, named[i]); row++) {
            uint32_t token = ASM_TOKEN(named[i], row);
            struct clrie_il_method_sig sig;
            check_result(asm_token_name(a, token, name, sizeof(name), &diag), &diag);
            if (named[i] == ASM_TABLE_MEMBER_REF || named[i] == ASM_TABLE_METHOD_SPEC)
                check_result(asm_token_method_sig(a, token, &sig, &diag), &diag);
        }
    for (uint32_t row = 1; row <= asm_table_rows(a, ASM_TABLE_STAND_ALONE_SIG); row++) {
        struct clrie_il_method_sig sig;
        check_result(
            asm_token_method_sig(a, ASM_TOKEN(ASM_TABLE_STAND_ALONE_SIG, row), &sig, &diag), &diag);
    }
    for (uint32_t index = 0; index < 64; index++) {
        struct asm_blob blob;
        const uint8_t *guid;
        if ((r = asm_user_string(a, index, &blob, &diag)) == 0)
            check_inside(blob.data, blob.len);
        check_result(r, &diag);
        if ((r = asm_guid(a, index, &guid, &diag)) == 0 && guid)
            check_inside(guid, 16);
        check_result(r, &diag);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    begin = data;
    end = data + size;
    struct asm_diag diag;
    struct asm_body body;
    int r = asm_body_parse(data, size, &body, &diag);
    if (r == 0)
        check_body(&body);
    else if (size > 0)
        check_result(r, &diag);

    struct clrie_il_method_sig sig;
    struct clrie_il_diag sig_diag;
    if (size > 0) {
        r = clrie_il_sig_parse_method(data, size, &sig, &sig_diag);
        struct asm_diag as_asm = {.offset = sig_diag.offset};
        memcpy(as_asm.message, sig_diag.message, sizeof(as_asm.message));
        check_result(r, &as_asm);
    }

    struct asm_assembly *a;
    r = asm_assembly_new(data, size, &a, &diag);
    check_result(r, &diag);
    if (r != 0)
        return 0;
    read_everything(a);
    asm_assembly_free(a);
    return 0;
}
