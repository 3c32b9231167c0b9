/* tool.h: what the clrie-il subcommands share (private to the tool).
 *
 * The subcommands (dis.c, check.c, bench.c) open assemblies, walk their method bodies and
 * give libilgraph the stack effects of calls; those pieces live in common.c. Everything
 * prints to stdout/stderr with the program name and the file it is about, one line per
 * error, and returns the tool's exit status: 0 ok, 1 failures found or bad input, 2 usage.
 */
#ifndef CLRIE_IL_TOOL_TOOL_H
#define CLRIE_IL_TOOL_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "assembly.h"
#include "clrie/ilgraph.h"

#define TOOL_EXIT_OK 0
#define TOOL_EXIT_FAIL 1
#define TOOL_EXIT_USAGE 2

/* Subcommands: argv[0] is the subcommand's name. */
int tool_dis(int argc, char **argv);
int tool_check(int argc, char **argv);
int tool_bench(int argc, char **argv);

/* Opens path, or prints "clrie-il: PATH: what (offset 0x..)" and returns NULL. */
struct asm_assembly *tool_open(const char *path);

/* One method with an IL body, as the subcommands see it. Pointers borrow the assembly. */
struct tool_method {
    uint32_t token;
    const char *simple_name;   /* MethodDef name */
    struct asm_blob signature; /* MethodDef signature */
    struct asm_body body;
    struct asm_blob local_sig; /* LOCAL_SIG blob; empty when the body has none */
};

/* Loads MethodDef row: 0, -ENOENT when it has no IL body, or another negative errno with
 * diag filled (-EILSEQ) for a malformed row or body. */
int tool_method_load(const struct asm_assembly *a, uint32_t row, struct tool_method *out,
                     struct asm_diag *diag);

/* The stack resolver handed to libilgraph: call sites through asm_token_method_sig, ret
 * through the method's own signature. */
struct tool_resolver {
    const struct asm_assembly *assembly;
    struct clrie_il_method_sig own; /* the method being analysed */
    bool own_ok;
};
/* Prepares r for a method; false when its own signature does not parse. */
bool tool_resolver_init(struct tool_resolver *r, const struct asm_assembly *a,
                        const struct tool_method *m);
int tool_resolve_stack(void *ctx, uint16_t opcode, uint32_t token,
                       struct clrie_il_stack_effect *out);

/* What the verifier asks of the assembly (libilgraph's struct clrie_il_metadata), answered
 * from its tables and heaps; ctx is the assembly. */
extern const struct clrie_il_metadata tool_metadata_template;
bool tool_token_exists(void *ctx, uint32_t token);
int tool_signature(void *ctx, uint32_t token, const uint8_t **sig, size_t *len);

/* clrie_il_graph_verify_in on g as method m of assembly a: res (tool_resolver_init'ed for m)
 * resolves calls, the assembly answers the metadata, and local_sig (m's own, or the one a
 * transform made) gives the locals. Returns what clrie_il_graph_verify_in returns. */
int tool_verify(struct clrie_il_graph *g, const struct asm_assembly *a, const struct tool_method *m,
                struct tool_resolver *res, const uint8_t *local_sig, size_t local_sig_len,
                clrie_il_report_fn report, void *report_ctx);

/* The file's name in path: what follows its last separator ('/', and on Windows '\' too). */
const char *tool_file_name(const char *path);

/* Prints "clrie-il: " and the formatted message to stderr. */
void tool_error(const char *fmt, ...) __attribute__((format(__printf__, 1, 2)));

#endif
