/* clrie-il dis: disassembles method bodies through libilgraph's decoder.
 *
 * Two formats. The default is for people: the header facts, declared and computed max
 * stack, instructions with offsets, operands and the names their tokens refer to, and the
 * EH clauses. --canonical prints exactly the canonical format of test/ildump/Program.cs
 * (System.Reflection.Metadata), so that the two can be diffed: the instructions come from
 * the decoded graph (original offsets, branch targets as the nodes they refer to), which is
 * what the differential test checks. A body libilgraph refuses to decode is listed from
 * its raw bytes instead, as ildump would list it, with an error on stderr (exit 1). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"

struct dis_options {
    const char *path;
    const char *method; /* substring of the full name, or NULL */
    uint32_t token;     /* a MethodDef token given instead of a name, or 0 */
    bool canonical;
};

static char name_buf[4096];

static void print_offset(int64_t offset)
{
    if (offset < 0)
        printf("IL_-%04" PRIx64, (uint64_t)-offset);
    else
        printf("IL_%04" PRIx64, (uint64_t)offset);
}

static uint32_t read_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t read_u64(const uint8_t *p)
{
    return (uint64_t)read_u32(p) | (uint64_t)read_u32(p + 4) << 32;
}

/* unaligned. and no. take a signed byte in System.Reflection.Emit (ShortInlineI). */
static bool signed_uint8(uint16_t opcode)
{
    return opcode == CLRIE_IL_OP_UNALIGNED || opcode == CLRIE_IL_OP_NO;
}

/* As System.Reflection.Metadata names a clause kind: any other flags value reads as fault. */
static const char *clause_kind(uint32_t flags)
{
    const char *name = clrie_il_eh_kind_name(flags);
    return name ? name : "fault";
}

/* ---- Operands ---------------------------------------------------------------------------- */

/* Prints a token's name as a trailing comment in the readable format. */
static void print_token_comment(const struct asm_assembly *a, uint32_t token)
{
    uint32_t table = ASM_TOKEN_TABLE(token);
    if (table == ASM_TOKEN_USER_STRING) {
        struct asm_blob s;
        if (asm_user_string(a, ASM_TOKEN_ROW(token), &s, NULL) != 0)
            return;
        fputs("  // \"", stdout);
        for (size_t i = 0; i + 1 < s.len; i += 2) {
            unsigned c = s.data[i] | (unsigned)s.data[i + 1] << 8;
            if (i >= 2 * 60) {
                fputs("...", stdout);
                break;
            }
            if (c == '"' || c == '\\')
                printf("\\%c", (char)c);
            else if (c >= 0x20 && c < 0x7F)
                putchar((int)c);
            else
                printf("\\u%04X", c);
        }
        putchar('"');
        return;
    }
    if (table == ASM_TABLE_STAND_ALONE_SIG)
        return;
    if (asm_token_name(a, token, name_buf, sizeof(name_buf), NULL) == 0 || name_buf[0] != '\0')
        printf("  // %s", name_buf);
}

/* Operand of a decoded node; readable adds token names. */
static void print_operand(const struct asm_assembly *a, const struct clrie_il_instr *n,
                          bool readable)
{
    const struct clrie_il_opcode_info *info = clrie_il_instr_info(n);
    uint8_t raw[8];
    int64_t v = 0;
    switch (info->operand_kind) {
    case CLRIE_IL_OPERAND_NONE:
        return;
    case CLRIE_IL_OPERAND_INT8:
    case CLRIE_IL_OPERAND_INT32:
    case CLRIE_IL_OPERAND_INT64:
    case CLRIE_IL_OPERAND_UINT16:
        clrie_il_instr_operand_int(n, &v);
        printf(" %" PRId64, v);
        return;
    case CLRIE_IL_OPERAND_UINT8:
        clrie_il_instr_operand_int(n, &v);
        printf(" %d", signed_uint8(info->ordinal) ? (int)(int8_t)(uint8_t)v : (int)v);
        return;
    case CLRIE_IL_OPERAND_FLOAT32:
        clrie_il_instr_operand_bytes(n, raw);
        printf(" 0x%08" PRIX32, read_u32(raw));
        return;
    case CLRIE_IL_OPERAND_FLOAT64:
        clrie_il_instr_operand_bytes(n, raw);
        printf(" 0x%016" PRIX64, read_u64(raw));
        return;
    case CLRIE_IL_OPERAND_TOKEN:
        clrie_il_instr_operand_int(n, &v);
        printf(" 0x%08" PRIX32, (uint32_t)v);
        if (readable)
            print_token_comment(a, (uint32_t)v);
        return;
    case CLRIE_IL_OPERAND_BRANCH8:
    case CLRIE_IL_OPERAND_BRANCH32:
        putchar(' ');
        print_offset(clrie_il_instr_original_offset(clrie_il_instr_branch_target(n)));
        return;
    case CLRIE_IL_OPERAND_SWITCH: {
        uint32_t count = clrie_il_instr_switch_count(n);
        fputs(" (", stdout);
        for (uint32_t i = 0; i < count; i++) {
            if (i > 0)
                fputs(", ", stdout);
            print_offset(clrie_il_instr_original_offset(clrie_il_instr_switch_target(n, i)));
        }
        putchar(')');
        return;
    }
    default:
        return;
    }
}

/* ---- Listing from a decoded graph --------------------------------------------------------- */

static uint32_t block_end(const struct clrie_il_instr *last)
{
    return clrie_il_instr_original_offset(last) + clrie_il_instr_size(last);
}

static void print_clauses(const struct asm_assembly *a, struct clrie_il_graph *g, bool readable)
{
    for (size_t i = 0; i < clrie_il_graph_clause_count(g); i++) {
        struct clrie_il_clause_info c;
        clrie_il_clause_get(clrie_il_graph_clause(g, i), &c);
        uint32_t try_at = clrie_il_instr_original_offset(c.try_first);
        uint32_t handler_at = clrie_il_instr_original_offset(c.handler_first);
        printf("  eh %s try ", clause_kind(c.flags));
        print_offset(try_at);
        printf(" length %" PRIu32 " handler ", block_end(c.try_last) - try_at);
        print_offset(handler_at);
        printf(" length %" PRIu32, block_end(c.handler_last) - handler_at);
        if (c.flags == CLRIE_IL_EH_CATCH) {
            printf(" type 0x%08" PRIX32, c.class_token);
            if (readable)
                print_token_comment(a, c.class_token);
        } else if (c.flags == CLRIE_IL_EH_FILTER) {
            fputs(" filter ", stdout);
            print_offset(clrie_il_instr_original_offset(c.filter_first));
        }
        putchar('\n');
    }
}

static void print_graph(const struct asm_assembly *a, struct clrie_il_graph *g, bool readable)
{
    for (struct clrie_il_instr *n = clrie_il_graph_original_first(g); n;
         n = clrie_il_instr_original_next(n)) {
        fputs("  ", stdout);
        print_offset(clrie_il_instr_original_offset(n));
        printf(": %s", clrie_il_instr_info(n)->name);
        print_operand(a, n, readable);
        putchar('\n');
    }
    print_clauses(a, g, readable);
}

/* ---- Listing from raw bytes (a body the decoder refused) ----------------------------------- */

static void print_raw_code(const uint8_t *il, size_t len)
{
    size_t pos = 0;
    while (pos < len) {
        size_t start = pos;
        unsigned value = il[pos++];
        if (value == 0xFE && pos < len)
            value = 0x100 | il[pos++];
        const struct clrie_il_opcode_info *info =
            value == 0xFE ? NULL : clrie_il_opcode_info((uint16_t)value);
        fputs("  ", stdout);
        print_offset((int64_t)start);
        if (!info || !info->name) {
            printf(": .unknown 0x%02X\n", value >= 0x100 ? 0xFE00 | (value & 0xFF) : value);
            continue;
        }
        printf(": %s", info->name);
        size_t size = info->operand_len;
        if (len - pos < size) {
            fputs(" <truncated>\n", stdout);
            return;
        }
        const uint8_t *p = il + pos;
        pos += size;
        switch (info->operand_kind) {
        case CLRIE_IL_OPERAND_INT8:
            printf(" %d", (int)(int8_t)p[0]);
            break;
        case CLRIE_IL_OPERAND_UINT8:
            printf(" %d", signed_uint8(info->ordinal) ? (int)(int8_t)p[0] : (int)p[0]);
            break;
        case CLRIE_IL_OPERAND_UINT16:
            printf(" %u", (unsigned)(p[0] | p[1] << 8));
            break;
        case CLRIE_IL_OPERAND_INT32:
            printf(" %" PRId32, (int32_t)read_u32(p));
            break;
        case CLRIE_IL_OPERAND_INT64:
            printf(" %" PRId64, (int64_t)read_u64(p));
            break;
        case CLRIE_IL_OPERAND_FLOAT32:
        case CLRIE_IL_OPERAND_TOKEN:
            printf(" 0x%08" PRIX32, read_u32(p));
            break;
        case CLRIE_IL_OPERAND_FLOAT64:
            printf(" 0x%016" PRIX64, read_u64(p));
            break;
        case CLRIE_IL_OPERAND_BRANCH8:
            putchar(' ');
            print_offset((int64_t)pos + (int8_t)p[0]);
            break;
        case CLRIE_IL_OPERAND_BRANCH32:
            putchar(' ');
            print_offset((int64_t)pos + (int32_t)read_u32(p));
            break;
        case CLRIE_IL_OPERAND_SWITCH: {
            uint32_t count = read_u32(p);
            if ((uint64_t)(len - pos) < (uint64_t)count * 4) {
                fputs(" <truncated>\n", stdout);
                return;
            }
            int64_t next = (int64_t)pos + (int64_t)count * 4;
            fputs(" (", stdout);
            for (uint32_t i = 0; i < count; i++, pos += 4) {
                if (i > 0)
                    fputs(", ", stdout);
                print_offset(next + (int32_t)read_u32(il + pos));
            }
            putchar(')');
            break;
        }
        default:
            break;
        }
        putchar('\n');
    }
}

/* EH sections as stored (ECMA-335 II.25.4.5-6). The reader has checked that the sections
 * lie within the body. */
static void print_raw_clauses(const struct asm_body *b)
{
    const uint8_t *p = b->sections;
    size_t left = b->sections ? b->sections_len : 0;
    while (left >= 4) {
        uint8_t kind = p[0];
        bool fat = kind & CLRIE_IL_SECTION_FAT_FORMAT;
        size_t size = fat ? (size_t)(p[1] | p[2] << 8 | p[3] << 16) : p[1];
        if (size < 4 || size > left)
            return;
        if ((kind & 0x3F) == CLRIE_IL_SECTION_EH_TABLE) {
            size_t clause_size = fat ? 24 : 12;
            for (size_t at = 4; at + clause_size <= size; at += clause_size) {
                struct clrie_il_eh_clause_raw c;
                clrie_il_eh_clause_read(p + at, fat, &c);
                printf("  eh %s try ", clause_kind(c.flags));
                print_offset(c.try_offset);
                printf(" length %" PRIu32 " handler ", c.try_length);
                print_offset(c.handler_offset);
                printf(" length %" PRIu32, c.handler_length);
                if (c.flags == CLRIE_IL_EH_CATCH)
                    printf(" type 0x%08" PRIX32, c.extra);
                else if (c.flags == CLRIE_IL_EH_FILTER) {
                    fputs(" filter ", stdout);
                    print_offset(c.extra);
                }
                putchar('\n');
            }
        }
        if (!(kind & CLRIE_IL_SECTION_MORE_SECTS))
            return;
        size = (size + 3) & ~(size_t)3;
        if (size >= left)
            return;
        p += size;
        left -= size;
    }
}

/* ---- One method ----------------------------------------------------------------------------- */

static int dis_method(const struct dis_options *o, const struct asm_assembly *a,
                      const struct tool_method *m, const char *name)
{
    const struct asm_body *b = &m->body;
    struct clrie_il_graph *g = NULL;
    struct clrie_il_diag diag = {0};
    int r = clrie_il_graph_decode(b->start, b->len, &g, &diag);
    if (r != 0)
        tool_error("%s: method 0x%08" PRIX32 " %s: IL does not decode: %s (body byte %" PRIu32
                   ", file offset 0x%zX)",
                   o->path, m->token, name, diag.message, diag.offset,
                   b->file_offset + diag.offset);

    if (o->canonical) {
        printf("method 0x%08" PRIX32 " %s\n", m->token, name);
        printf("  maxstack %u codesize %" PRIu32 " localsig 0x%08" PRIX32 " initlocals %d\n",
               (unsigned)b->max_stack, b->code_size, b->local_sig_token, b->init_locals ? 1 : 0);
    } else {
        printf(".method 0x%08" PRIX32 " %s\n", m->token, name);
        printf("  // %s header, body %zu bytes at file offset 0x%zX, code %" PRIu32 " bytes\n",
               b->fat ? "fat" : "tiny", b->len, b->file_offset, b->code_size);
        printf("  .maxstack %u", (unsigned)b->max_stack);
        if (g) {
            struct tool_resolver res;
            uint32_t computed;
            struct clrie_il_diag sdiag = {0};
            tool_resolver_init(&res, a, m);
            if (clrie_il_graph_max_stack(g, tool_resolve_stack, &res, &computed, &sdiag) == 0)
                printf("  // computed %" PRIu32, computed);
            else
                printf("  // computed: none (IL_%04" PRIx32 ": %s)", sdiag.offset, sdiag.message);
        }
        putchar('\n');
        if (b->local_sig_token)
            printf("  .locals 0x%08" PRIX32 "%s\n", b->local_sig_token,
                   b->init_locals ? " init" : "");
    }
    if (g)
        print_graph(a, g, !o->canonical);
    else {
        print_raw_code(b->code, b->code_size);
        print_raw_clauses(b);
    }
    puts(o->canonical ? "end" : ".end\n");
    clrie_il_graph_free(g);
    return r == 0 ? 0 : -1;
}

static bool selected(const struct dis_options *o, uint32_t token, const char *name)
{
    if (o->token)
        return token == o->token;
    return !o->method || strstr(name, o->method);
}

static int parse_args(int argc, char **argv, struct dis_options *o)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--canonical") == 0)
            o->canonical = true;
        else if (strcmp(argv[i], "--method") == 0 && i + 1 < argc && !o->method)
            o->method = argv[++i];
        else if (argv[i][0] != '-' && !o->path)
            o->path = argv[i];
        else {
            tool_error("dis: unexpected argument '%s'", argv[i]);
            return -1;
        }
    }
    if (!o->path) {
        tool_error("dis: no assembly given");
        return -1;
    }
    if (o->method && (strncmp(o->method, "0x", 2) == 0 || strncmp(o->method, "0X", 2) == 0)) {
        char *end;
        unsigned long t = strtoul(o->method, &end, 16);
        if (*end == '\0' && end != o->method + 2) {
            if (t >> 24 != ASM_TABLE_METHOD_DEF || (t & 0xFFFFFF) == 0 || t > UINT32_MAX) {
                tool_error("dis: %s is not a MethodDef token (0x06xxxxxx)", o->method);
                return -1;
            }
            o->token = (uint32_t)t;
        }
    }
    return 0;
}

int tool_dis(int argc, char **argv)
{
    struct dis_options o = {0};
    if (parse_args(argc, argv, &o) != 0)
        return TOOL_EXIT_USAGE;
    struct asm_assembly *a = tool_open(o.path);
    if (!a)
        return TOOL_EXIT_FAIL;
    int status = TOOL_EXIT_OK;
    unsigned matched = 0;
    uint32_t rows = asm_table_rows(a, ASM_TABLE_METHOD_DEF);
    for (uint32_t row = 1; row <= rows; row++) {
        uint32_t token = ASM_TOKEN(ASM_TABLE_METHOD_DEF, row);
        struct asm_diag diag = {0};
        if (o.token && token != o.token)
            continue;
        int r = asm_token_name(a, token, name_buf, sizeof(name_buf), &diag);
        if (r != 0 && r != -ERANGE) {
            tool_error("%s: method 0x%08" PRIX32 ": bad name: %s (at byte offset 0x%zX)", o.path,
                       token, r == -EILSEQ ? diag.message : strerror(-r), diag.offset);
            status = TOOL_EXIT_FAIL;
            continue;
        }
        if (!selected(&o, token, name_buf))
            continue;
        char name[sizeof(name_buf)];
        memcpy(name, name_buf, sizeof(name));
        struct tool_method m;
        r = tool_method_load(a, row, &m, &diag);
        if (r == -ENOENT)
            continue;
        matched++;
        if (r != 0) {
            tool_error("%s: method 0x%08" PRIX32 " %s: bad body: %s (at byte offset 0x%zX)", o.path,
                       token, name, r == -EILSEQ ? diag.message : strerror(-r), diag.offset);
            status = TOOL_EXIT_FAIL;
            continue;
        }
        if (dis_method(&o, a, &m, name) != 0)
            status = TOOL_EXIT_FAIL;
    }
    if ((o.method || o.token) && matched == 0) {
        tool_error("%s: no method with an IL body matches '%s'", o.path, o.method);
        status = TOOL_EXIT_FAIL;
    }
    asm_assembly_free(a);
    return status;
}
