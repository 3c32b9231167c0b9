/* Private layout of instruction graphs, shared by the libilgraph sources. */
#ifndef CLRIE_ILGRAPH_PRIVATE_H
#define CLRIE_ILGRAPH_PRIVATE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clrie/ilgraph.h"
#include "arena.h"
#include "private_names.h"

/* Tables read in the hot loops: hidden, so position-independent code reaches them
 * directly rather than through the GOT (ELF's; a PE image has none). */
#if defined(__ELF__)
#define IL_INTERNAL __attribute__((visibility("hidden")))
#else
#define IL_INTERNAL
#endif

/* A reference to a node: a branch or switch target or a clause boundary. Every reference
 * aimed at a node sits in that node's `refs` list, so moving all references from one node to
 * another costs O(references), not a walk of the method. */
enum il_ref_kind {
    IL_REF_BRANCH, /* branch or switch target */
    IL_REF_FIRST,  /* first node of a try, handler or filter block */
    IL_REF_LAST,   /* last node of a try or handler block */
};

struct il_ref {
    union {
        struct clrie_il_instr *target;
        size_t from; /* while decoding: a branch's node index + 1 (0 for a switch target) */
    };
    struct il_ref *prev, *next; /* in target->refs */
    uint8_t kind;               /* enum il_ref_kind */
    uint32_t decoded;           /* while decoding: the IL offset a branch or switch names */
};

/* An original branch: the indices of its node and of its target among the original nodes. */
struct il_branch_at {
    uint32_t at, to;
};

enum il_state {
    IL_ORIGINAL = 1, /* decoded */
    IL_NEW = 2,      /* created by an edit */
};

/* Whether a node left the current list, and how. A replaced node stands for its replacement
 * wherever a reference names it (il_ref_set follows the chain), as CLRIE's do: CLRIE keeps a
 * replaced node's offset, which the replacement then occupies. */
enum il_removal {
    IL_IN_LIST = 0, /* never removed, or not yet placed */
    IL_REMOVED = 1, /* removed (remove, remove_all) */
    IL_REPLACED = 2 /* removed by replace: `replacement` took its place */
};

/* A switch's targets: one block of references, allocated with the switch. */
struct il_switch {
    uint32_t count;
    struct il_ref targets[];
};

/* One instruction: 64 bytes, a cache line, so that big methods stay as compact as they can
 * (_Static_assert below). A branch's reference and a switch's table live beside the node,
 * in the arena, so the operand is one word for every opcode. */
struct clrie_il_instr {
    struct clrie_il_instr *next, *prev; /* current list */
    struct clrie_il_graph *graph;
    union {
        struct il_ref *refs;                /* references aimed at this node (unless IL_REPLACED) */
        struct clrie_il_instr *replacement; /* IL_REPLACED: the node that took its place */
    };
    uint32_t offset; /* current offset, as of the last layout */
    uint32_t orig_offset;
    uint32_t index;       /* position in the last layout */
    uint32_t orig_index;  /* position in graph->orig (the original nodes) if IL_ORIGINAL */
    uint16_t opcode;      /* current form (layout may change a branch's form) */
    uint16_t orig_opcode; /* decoded form, for PRESERVE */
    uint8_t state;        /* enum il_state */
    bool attached;        /* in the current list */
    uint8_t removed;      /* enum il_removal: was in the current list and left it */
    bool keep_long;       /* a branch pinned to its long form (expand_branch) */
    union {
        int64_t i; /* integer-like operands and tokens */
        float r4;
        double r8;
        struct il_ref *branch; /* branches: never NULL */
        struct il_switch *sw;  /* switch: never NULL */
    } u;
};
_Static_assert(sizeof(struct clrie_il_instr) <= 64, "an instruction node fits a cache line");

struct clrie_il_clause {
    uint32_t flags;
    uint32_t class_token;
    struct il_ref try_first, try_last, handler_first, handler_last, filter_first;
    uint32_t section; /* index of the decoded section it came from, for PRESERVE */
};

/* A decoded EH section's format, kept so PRESERVE can write it back unchanged. */
struct il_section {
    bool fat;
    uint32_t clause_count;
};

struct clrie_il_graph {
    struct il_arena arena;
    struct clrie_il_instr *first, *last;
    size_t count;
    struct clrie_il_instr *orig; /* the original nodes, one block in offset order (arena) */
    size_t orig_count;

    struct clrie_il_clause **clauses; /* malloc'd, table order */
    size_t clause_count, clause_cap;
    struct il_section *sections; /* arena */
    size_t section_count;
    bool clauses_edited;

    /* The current list in order as of the last layout (arena, cur_cap entries). Layout
     * itself needs no such array: il_layout_current fills it when a reader (the checkers,
     * lookups by offset, the IL map) asks and cur_valid is false. */
    struct clrie_il_instr **cur;
    bool cur_valid;
    size_t cur_cap;
    /* The layout's scratch memory when a method overflows what it keeps on the stack
     * (arena; kept for the next layout, grown geometrically): the short branches the walk
     * finds, the ranks of the positions, and widening's rounds. */
    struct il_scratch {
        void *p;
        size_t bytes;
    } layout_shorts, layout_rank, layout_widen;
    /* The checkers' scratch memory (stack.c, verify.c, typecheck.c, memo.c): taken from
     * il_check_take during one check and given back at once by il_check_begin, which the
     * entry points call first. A block is kept for the next check, so checking a graph
     * again, or the next method decoded into it, calls no malloc; when a check needs more,
     * a bigger block comes from the arena (the blocks before it stay valid until the check
     * ends). */
    struct il_check_scratch {
        unsigned char *p;
        size_t used, bytes;
    } check;
    bool stale;
    unsigned layout_flags;
    uint32_t code_size; /* as of the last layout */

    /* The decoded code (arena, IL_READ_SLACK zero bytes after it; NULL when the graph was
     * not decoded). Until an edit (il_graph_edited, or
     * an operand set) nothing but a layout can change what the graph encodes to, and a layout
     * only shortens long branches: so an unedited graph whose code kept its size is laid out
     * as decoded and encodes to these bytes, and is laid out so in every mode when no long
     * branch can shrink (none at all, or the widening fixpoint run over its branches alone
     * keeps them all long: layout.c). */
    const uint8_t *orig_code;
    /* With long branches: every original branch, in order (arena). */
    const struct il_branch_at *orig_branches;
    uint32_t orig_branch_count;
    int8_t orig_shortest; /* the decoded layout is the shortest: 1, it is not: 0, unknown: -1 */
    /* For each offset of the decoded code, the index + 1 of the original node starting there,
     * 0 where none does (arena; NULL when the graph was not decoded): made while decoding, for
     * branch targets, clause boundaries and lookups by original offset. */
    const uint32_t *orig_starts;
    uint32_t orig_code_size;
    bool edited;

    bool fat;
    bool orig_fat;
    uint16_t flags;
    uint16_t max_stack;
    uint32_t local_sig_token;
};

/* Little-endian reads of ECMA-335 structures; the caller has checked the bounds. */
static inline uint16_t il_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t il_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---- Diagnostics (store.c) ---- */

/* Formats a diagnostic (diag may be NULL). Returns err, so callers can `return diag_set(...)`. */
int il_diag(struct clrie_il_diag *diag, int err, uint32_t offset, const char *fmt, ...)
    __attribute__((format(__printf__, 4, 5)));

/* Where a checker sends what it finds: every problem is counted, and passed to report (when
 * there is one) as a sentence at an IL offset. stack.c and verify.c share it. */
struct il_reporter {
    clrie_il_report_fn report;
    void *ctx;
    int problems;
};
void il_report(struct il_reporter *r, uint32_t offset, const char *fmt, ...)
    __attribute__((format(__printf__, 3, 4)));

/* ---- Opcodes (opcodes.c) ---- */

/* The opcode table, indexed by ordinal (rows with a NULL name are not opcodes). Nodes only
 * ever hold valid opcodes, so internal code indexes it directly. */
IL_INTERNAL extern const struct clrie_il_opcode_info il_opcode_infos[CLRIE_IL_OP_COUNT];

/* The same table cut to what decoding needs per instruction, one byte per ordinal: 0 for
 * no opcode, else the operand length + 1 (IL_DECODE_LEN) and flags. */
IL_INTERNAL extern const uint8_t il_opcode_decode[0x200]; /* every 1- and 2-byte opcode value */
#define IL_DECODE_LEN 0x0Fu     /* operand bytes + 1 (switch: the count only) */
#define IL_DECODE_SIGNED 0x10u  /* a signed operand (int8/32/64, branches) */
#define IL_DECODE_TARGETS 0x40u /* a branch or switch */
#define IL_DECODE_SWITCH 0x80u

/* Operands are read and written as the 8 little-endian bytes at their start (the bytes
 * past the operand are ignored when reading and overwritten by the next instruction when
 * writing), so the node's operand word is the operand's bytes in host order. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "libilgraph copies operands as little-endian words (x86_64, aarch64)");
IL_INTERNAL extern const uint16_t il_opcode_bytes[CLRIE_IL_OP_COUNT]; /* 0xFE xx as 0xxxFE */
IL_INTERNAL extern const uint64_t il_operand_mask[32]; /* by d & 0x1F: the operand's bits */
IL_INTERNAL extern const uint64_t il_operand_sign[32]; /* by d & 0x1F: its sign bit, if signed */

/* The operand value of an instruction with decode byte d from the 8 bytes at its start. */
static inline int64_t il_operand_value(uint8_t d, uint64_t raw)
{
    uint64_t x = raw & il_operand_mask[d & 0x1F], s = il_operand_sign[d & 0x1F];
    return (int64_t)((x ^ s) - s);
}

/* Bytes an encoder must have writable past the end of the code: write_code stores every
 * operand as a full 8-byte word. */
#define IL_WRITE_SLACK 8u
/* Zero bytes after a decoded copy of code: decoding reads every operand as a full 8-byte
 * word. */
#define IL_READ_SLACK 8u

/* Size in bytes of a node as currently encoded. */
static inline uint32_t il_instr_size(const struct clrie_il_instr *n)
{
    uint8_t d = il_opcode_decode[n->opcode];
    /* opcode bytes (1, or 2 from ordinal 0x100) + operand bytes */
    uint32_t size = (uint32_t)(n->opcode >> 8) + (d & IL_DECODE_LEN);
    if (d & IL_DECODE_SWITCH)
        size += 4 * n->u.sw->count;
    return size;
}

/* ---- Storage (store.c): below everything else, it reads no offsets ---- */

/* Graph skeleton (arena, tiny header); NULL on ENOMEM. first_chunk: bytes the arena's first
 * chunk should hold (0: a default). */
struct clrie_il_graph *il_graph_alloc(size_t first_chunk);
/* Allocates a zeroed node of g, with its branch reference if it is a branch (a switch's
 * table comes from il_switch_alloc). */
struct clrie_il_instr *il_instr_alloc(struct clrie_il_graph *g, uint16_t opcode);
/* A switch table of count references aimed nowhere; NULL on ENOMEM. */
struct il_switch *il_switch_alloc(struct clrie_il_graph *g, uint32_t count);
/* Links a detached node at the end of the current list (decoding). */
void il_graph_append(struct clrie_il_graph *g, struct clrie_il_instr *n);
/* Aims ref at target (NULL: at nothing), moving it between the targets' lists. */
void il_ref_set(struct il_ref *ref, struct clrie_il_instr *target);
/* Moves the references of the given kinds (bit 1 << kind) from `from` to `to`, except the
 * operands of `keep` (its branch target or switch targets; keep may be NULL), which stay on
 * `from`. */
void il_refs_move(struct clrie_il_instr *from, struct clrie_il_instr *to, unsigned kinds,
                  const struct clrie_il_instr *keep);
/* Appends a clause to the table; -ENOMEM. */
int il_graph_push_clause(struct clrie_il_graph *g, struct clrie_il_clause *c);
/* Drops every reference a clause holds. */
void il_clause_detach(struct clrie_il_clause *c);

/* Marks g edited: its layout is stale and its code no longer the decoded code. */
static inline void il_graph_edited(struct clrie_il_graph *g)
{
    g->stale = true;
    g->edited = true;
}

/* True if g's current layout encodes to its decoded code, byte for byte (see orig_code). */
static inline bool il_code_as_decoded(const struct clrie_il_graph *g)
{
    return g->orig_code && !g->edited && g->code_size == g->orig_code_size;
}

/* Starts a check: everything il_check_take gave before is free again. */
static inline void il_check_begin(struct clrie_il_graph *g)
{
    g->check.used = 0;
}
/* Takes a bigger block and size bytes of it (the slow path of il_check_take). */
void *il_check_take_block(struct clrie_il_graph *g, size_t size);
/* size bytes of the check's scratch, aligned for any object, valid until the next
 * il_check_begin: uninitialised (il_check_take) or zeroed (il_check_alloc); NULL on ENOMEM. */
static inline void *il_check_take(struct clrie_il_graph *g, size_t size)
{
    const size_t align = alignof(max_align_t);
    struct il_check_scratch *s = &g->check;
    if (size > SIZE_MAX / 4)
        return NULL;
    size = size ? (size + align - 1) & ~(align - 1) : align; /* never NULL for 0 bytes */
    if (s->bytes - s->used < size)
        return il_check_take_block(g, size);
    void *p = s->p + s->used;
    s->used += size;
    return p;
}
void *il_check_alloc(struct clrie_il_graph *g, size_t size);
/* n * size bytes of il_check_take, checking for overflow. */
void *il_check_take_array(struct clrie_il_graph *g, size_t n, size_t size);

/* ---- Layout (layout.c): offsets and branch forms, above storage ---- */

/* Lays out if stale (with the last flags). */
int il_layout_current(struct clrie_il_graph *g, struct clrie_il_diag *diag);

/* Stack analysis over the current layout: computes entry depths (entry[i] = -1 when
 * unreachable) and the maximum; reports problems through report. Returns the number of
 * problems (>= 0) or a negative errno. entry may be NULL. Its scratch is the check's (the
 * caller has called il_check_begin). */
int il_stack_analyse(struct clrie_il_graph *g, clrie_il_stack_fn resolve, void *ctx,
                     clrie_il_report_fn report, void *report_ctx, int32_t *entry,
                     uint32_t *max_out);

/* ---- What the caller's callbacks said, once per check (memo.c) ---- */

/* A verify call asks the caller's callbacks about the method's tokens: the stack effect of a
 * call or ret (stack.c, then typecheck.c on every pass over the instruction), a member's
 * signature, whether a row exists, whether a field is static. The memo asks each question
 * once per verify call and keeps the answer, with what typecheck.c reads from it, in the
 * check's scratch. The callbacks are taken to give one answer to one question during a
 * verify call (the signature bytes they lend stay valid until it returns). */

/* typecheck.c's reading of a callee for one call opcode: the stack effect resolve gives and,
 * when the callee's signature agrees with it, the categories of its parameters and result. */
struct il_callee {
    struct clrie_il_stack_effect eff;
    bool typed;           /* the signature was read and agrees with eff */
    bool this_arg;        /* typed: `this` is popped under the parameters (not for newobj) */
    uint8_t result;       /* typed: what it pushes when eff.push is not 0 */
    uint32_t param_count; /* typed: the parameters, in params (check scratch) */
    const uint8_t *params;
};

/* What is known of one token; `known` says which fields hold an answer. */
enum {
    IL_MEMO_EFFECT = 1,     /* effect_rc, effect, for effect_op */
    IL_MEMO_EXISTS = 2,     /* exists */
    IL_MEMO_SIGNATURE = 4,  /* sig, sig_len */
    IL_MEMO_STATIC = 8,     /* is_static */
    IL_MEMO_CALLEE = 16,    /* callee, for callee_op (typecheck.c) */
    IL_MEMO_FIELD_TYPE = 32 /* field_type (typecheck.c) */
};

struct il_memo_entry {
    uint32_t token;
    uint16_t effect_op, callee_op;
    uint8_t known;
    bool exists;
    int8_t is_static;   /* field_is_static's answer, or its error */
    uint8_t field_type; /* the category of a field token's value (typecheck.c) */
    int effect_rc;
    struct clrie_il_stack_effect effect; /* as resolve left it, from {0, 0} */
    const uint8_t *sig;                  /* NULL: no signature to be had */
    size_t sig_len;
    struct il_callee callee;
};

struct il_memo {
    clrie_il_stack_fn resolve;
    void *resolve_ctx;
    const struct clrie_il_metadata *md; /* NULL: no metadata */
    uint32_t *slots;                    /* open addressing: 0 empty, else entry index + 1 */
    uint32_t mask;
    struct il_memo_entry *entries;
    uint32_t count, cap;
};

/* Prepares m for a check of g (its scratch: after il_check_begin), room for every token
 * the method's instructions name. 0 or -ENOMEM. */
int il_memo_init(struct il_memo *m, struct clrie_il_graph *g, clrie_il_stack_fn resolve,
                 void *resolve_ctx, const struct clrie_il_metadata *md);
/* The entry of token, added if new; NULL when the memo is full (a token no instruction
 * names): the caller then asks the callbacks itself. */
struct il_memo_entry *il_memo_find(struct il_memo *m, uint32_t token);
/* A clrie_il_stack_fn (ctx: the memo) answering as m->resolve does, asking it once per
 * token and opcode; no resolver: -EINVAL. */
int il_memo_resolve(void *memo, uint16_t opcode, uint32_t token, struct clrie_il_stack_effect *out);
/* md->token_exists's answer; true without one. */
bool il_memo_token_exists(struct il_memo *m, uint32_t token);
/* md->signature's blob (its length in *len), or NULL when there is none or none to be had
 * (no callback, an error, an empty blob). */
const uint8_t *il_memo_signature(struct il_memo *m, uint32_t token, size_t *len);
/* md->field_is_static's answer (the caller has seen that there is one). */
int il_memo_field_is_static(struct il_memo *m, uint32_t token);

/* The checks of clrie_il_graph_verify_in beyond verify.c's (typecheck.c): the operands of
 * every instruction (indices, tokens), and the stack types, once the stack heights agree
 * (depth: each instruction's entry height, -1 when unreachable; max_depth the largest).
 * Problems go to out. A checker reads the method's signature and locals once, and lives in
 * the check's scratch with everything it takes; 0 or -ENOMEM. */
struct il_checker;
int il_checker_new(struct clrie_il_graph *g, const struct clrie_il_verify_context *c,
                   struct il_memo *memo, struct il_reporter *out, struct il_checker **checker);
void il_check_operands(struct il_checker *k);
int il_check_types(struct il_checker *k, const int32_t *depth, uint32_t max_depth);

/* The original node at `offset`, or NULL if none starts there. */
static inline struct clrie_il_instr *il_original_at(const struct clrie_il_graph *g, uint64_t offset)
{
    if (!g->orig_starts || offset >= g->orig_code_size || !g->orig_starts[offset])
        return NULL;
    return &g->orig[g->orig_starts[offset] - 1];
}

/* The node that stands for n now: n, or for a replaced node the replacement (followed while
 * that was replaced too). */
static inline struct clrie_il_instr *il_current(struct clrie_il_instr *n)
{
    while (n && n->removed == IL_REPLACED)
        n = n->replacement;
    return n;
}

/* True if n is in g's current list. */
static inline bool il_in_list(const struct clrie_il_graph *g, const struct clrie_il_instr *n)
{
    return n && n->graph == g && n->attached;
}

static inline bool il_is_branch(uint16_t op)
{
    return (op >= CLRIE_IL_OP_BR_S && op <= CLRIE_IL_OP_BLT_UN) || op == CLRIE_IL_OP_LEAVE ||
           op == CLRIE_IL_OP_LEAVE_S;
}

static inline bool il_is_short_branch(uint16_t op)
{
    return (op >= CLRIE_IL_OP_BR_S && op <= CLRIE_IL_OP_BLT_UN_S) || op == CLRIE_IL_OP_LEAVE_S;
}

static inline uint16_t il_long_form(uint16_t op)
{
    if (op == CLRIE_IL_OP_LEAVE_S)
        return CLRIE_IL_OP_LEAVE;
    if (op >= CLRIE_IL_OP_BR_S && op <= CLRIE_IL_OP_BLT_UN_S)
        return (uint16_t)(op + (CLRIE_IL_OP_BR - CLRIE_IL_OP_BR_S));
    return op;
}

static inline uint16_t il_short_form(uint16_t op)
{
    if (op == CLRIE_IL_OP_LEAVE)
        return CLRIE_IL_OP_LEAVE_S;
    if (op >= CLRIE_IL_OP_BR && op <= CLRIE_IL_OP_BLT_UN)
        return (uint16_t)(op - (CLRIE_IL_OP_BR - CLRIE_IL_OP_BR_S));
    return op;
}

#endif
