/* The plugin of the verifier's differential test (test/dotnet/test_ildiff.py): for every
 * method whose full name starts with CLRIE_IL_MUTATOR_PREFIX it takes the original body,
 * applies one mutation chosen by a PRNG seeded from CLRIE_IL_MUTATOR_SEED and the method's
 * token, asks libilgraph's verifier about the result with the context the engine builds
 * (signatures, locals, verify_metadata.c over the runtime's metadata), and gives the body to
 * the runtime whatever the verdict, through ICorProfilerInfo::SetILFunctionBody, so the real
 * JIT judges it too. The engine is not asked to apply it (the plugin leaves the engine's graph
 * unchanged), so the engine needs no test-only bypass: a plugin that holds the runtime's
 * ICorProfilerInfo could always do this.
 *
 * One line per method goes to CLRIE_IL_MUTATOR_FILE:
 *   <token> <mutation> accept
 *   <token> <mutation> reject <the verifier's first finding>
 *   <token> <mutation> skip <why> (nothing was given to the runtime)
 *
 * Test code: never load it in a real application. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clrie/abi/instrumentation.h"
#include "clrie/ilgraph.h"
#include "clrie/plugin.h"
#include "verify_metadata.h"

struct mutator {
    IInstrumentationMethod iface;
    struct clrie_plugin_com com;
    int fd;
    ICorProfilerInfo *info;
    uint64_t seed;
    char prefix[256];
};

static struct mutator *from_iface(IInstrumentationMethod *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct mutator, iface);
}

static void mutator_destroy(void *object)
{
    struct mutator *m = object;
    if (m->fd >= 0)
        close(m->fd);
    clrie_plugin_release(m->info);
    free(m);
}

static const struct clrie_plugin_com_iface mutator_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethod, struct mutator, iface),
};

static const struct clrie_plugin_com_class mutator_class = {
    .name = "il-mutator",
    .ifaces = mutator_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(mutator_ifaces),
    .com_offset = offsetof(struct mutator, com),
    .destroy = mutator_destroy,
    .module_ref = true,
};

CLRIE_PLUGIN_COM_IUNKNOWN(mutator, IInstrumentationMethod, struct mutator, iface, com)

static HRESULT STDMETHODCALLTYPE mutator_Initialize(IInstrumentationMethod *This,
                                                    IProfilerManager *manager)
{
    struct mutator *m = from_iface(This);
    const char *path = getenv("CLRIE_IL_MUTATOR_FILE");
    const char *seed = getenv("CLRIE_IL_MUTATOR_SEED");
    const char *prefix = getenv("CLRIE_IL_MUTATOR_PREFIX");
    if (path)
        m->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    m->seed = seed ? strtoull(seed, NULL, 0) : 1;
    snprintf(m->prefix, sizeof m->prefix, "%s", prefix ? prefix : "ILDiff.Targets.");
    IUnknown *info = NULL;
    if (SUCCEEDED(manager->lpVtbl->GetCorProfilerInfo(manager, &info))) {
        info->lpVtbl->QueryInterface(info, &IID_ICorProfilerInfo, (void **)&m->info);
        clrie_plugin_release(info);
    }
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE mutator_ShouldInstrumentMethod(IInstrumentationMethod *This,
                                                                IMethodInfo *mi, BOOL isRejit,
                                                                BOOL *instrument)
{
    struct mutator *m = from_iface(This);
    char full[512];
    clrie_plugin_method_full_name(mi, NULL, full, sizeof full);
    *instrument = !isRejit && strncmp(full, m->prefix, strlen(m->prefix)) == 0;
    return S_OK;
}

/* ---- the method as the verifier sees it --------------------------------------------------- */

struct method {
    struct verify_metadata vm;
    const uint8_t *sig, *local_sig;
    size_t sig_len, local_sig_len;
    uint32_t local_count, arg_count;
};

static int resolve(void *ctx, uint16_t opcode, uint32_t token, struct clrie_il_stack_effect *out)
{
    struct method *m = ctx;
    const uint8_t *sig = m->sig;
    size_t len = m->sig_len;
    if (opcode != CLRIE_IL_OP_RET && m->vm.callbacks.signature(&m->vm, token, &sig, &len) < 0)
        return -ENOENT;
    struct clrie_il_method_sig parsed;
    int r = clrie_il_sig_parse_method(sig, len, &parsed, NULL);
    return r ? r : clrie_il_sig_stack_effect(&parsed, opcode, out);
}

struct first {
    char text[200];
    uint32_t offset;
    int count;
};

static void keep_first(void *ctx, uint32_t offset, const char *message)
{
    struct first *f = ctx;
    if (f->count++ == 0) {
        f->offset = offset;
        snprintf(f->text, sizeof f->text, "%s", message);
    }
}

/* ---- mutations ------------------------------------------------------------------------------ */

static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint32_t below(uint64_t *s, uint32_t n)
{
    return n ? (uint32_t)(next(s) % n) : 0;
}

enum mutation {
    M_LOCAL,  /* a local index, often past the locals */
    M_ARG,    /* an argument index, often past the arguments */
    M_TOKEN,  /* a token's row or table */
    M_OPCODE, /* an operand-less opcode swapped for another */
    M_PUSH,   /* a load replaced by a load of another stack type */
    M_INSERT, /* `push X; binary op` inserted: same height, other types */
    M_POP,    /* a pop dropped, or a pop or dup inserted */
    M_BRANCH, /* a branch retargeted */
    M_CALL,   /* a call's method swapped for another the method calls */
    M_NONE,   /* nothing: the control group */
    M_COUNT
};

static const char *const mutation_names[] = {"local",  "arg", "token",  "opcode", "push",
                                             "insert", "pop", "branch", "call",   "none"};

static const uint16_t typed_ops[] = {
    CLRIE_IL_OP_ADD,        CLRIE_IL_OP_SUB,        CLRIE_IL_OP_MUL,       CLRIE_IL_OP_DIV,
    CLRIE_IL_OP_DIV_UN,     CLRIE_IL_OP_REM,        CLRIE_IL_OP_AND,       CLRIE_IL_OP_OR,
    CLRIE_IL_OP_XOR,        CLRIE_IL_OP_SHL,        CLRIE_IL_OP_SHR_UN,    CLRIE_IL_OP_NEG,
    CLRIE_IL_OP_NOT,        CLRIE_IL_OP_CONV_I4,    CLRIE_IL_OP_CONV_I8,   CLRIE_IL_OP_CONV_R8,
    CLRIE_IL_OP_CONV_I,     CLRIE_IL_OP_CONV_U1,    CLRIE_IL_OP_CONV_R4,   CLRIE_IL_OP_CEQ,
    CLRIE_IL_OP_CGT,        CLRIE_IL_OP_CLT_UN,     CLRIE_IL_OP_LDIND_I4,  CLRIE_IL_OP_LDIND_R8,
    CLRIE_IL_OP_LDIND_REF,  CLRIE_IL_OP_STIND_I4,   CLRIE_IL_OP_STIND_REF, CLRIE_IL_OP_LDELEM_I4,
    CLRIE_IL_OP_LDELEM_REF, CLRIE_IL_OP_STELEM_I4,  CLRIE_IL_OP_LDLEN,     CLRIE_IL_OP_LDNULL,
    CLRIE_IL_OP_LDC_I4_1,   CLRIE_IL_OP_DUP,        CLRIE_IL_OP_POP,       CLRIE_IL_OP_CKFINITE,
    CLRIE_IL_OP_ADD_OVF,    CLRIE_IL_OP_MUL_OVF_UN, CLRIE_IL_OP_THROW,     CLRIE_IL_OP_RET,
};

static const uint16_t binary_ops[] = {
    CLRIE_IL_OP_ADD, CLRIE_IL_OP_SUB, CLRIE_IL_OP_MUL, CLRIE_IL_OP_AND, CLRIE_IL_OP_OR,
    CLRIE_IL_OP_SHL, CLRIE_IL_OP_CEQ, CLRIE_IL_OP_CLT, CLRIE_IL_OP_DIV, CLRIE_IL_OP_XOR,
};

static bool is_local_op(uint16_t op)
{
    return (op >= CLRIE_IL_OP_LDLOC_0 && op <= CLRIE_IL_OP_STLOC_3) || op == CLRIE_IL_OP_LDLOC_S ||
           op == CLRIE_IL_OP_LDLOCA_S || op == CLRIE_IL_OP_STLOC_S || op == CLRIE_IL_OP_LDLOC ||
           op == CLRIE_IL_OP_LDLOCA || op == CLRIE_IL_OP_STLOC;
}

static bool is_arg_op(uint16_t op)
{
    return (op >= CLRIE_IL_OP_LDARG_0 && op <= CLRIE_IL_OP_LDARG_3) || op == CLRIE_IL_OP_LDARG_S ||
           op == CLRIE_IL_OP_LDARGA_S || op == CLRIE_IL_OP_STARG_S || op == CLRIE_IL_OP_LDARG ||
           op == CLRIE_IL_OP_LDARGA || op == CLRIE_IL_OP_STARG;
}

/* The long form of a local or argument instruction's family. */
static uint16_t var_family(uint16_t op)
{
    if (op == CLRIE_IL_OP_LDLOCA_S || op == CLRIE_IL_OP_LDLOCA)
        return CLRIE_IL_OP_LDLOCA;
    if ((op >= CLRIE_IL_OP_STLOC_0 && op <= CLRIE_IL_OP_STLOC_3) || op == CLRIE_IL_OP_STLOC_S ||
        op == CLRIE_IL_OP_STLOC)
        return CLRIE_IL_OP_STLOC;
    if (is_local_op(op))
        return CLRIE_IL_OP_LDLOC;
    if (op == CLRIE_IL_OP_LDARGA_S || op == CLRIE_IL_OP_LDARGA)
        return CLRIE_IL_OP_LDARGA;
    if (op == CLRIE_IL_OP_STARG_S || op == CLRIE_IL_OP_STARG)
        return CLRIE_IL_OP_STARG;
    return CLRIE_IL_OP_LDARG;
}

static bool pushes_one_load(uint16_t op)
{
    const struct clrie_il_opcode_info *info = clrie_il_opcode_info(op);
    return info->pop == 0 && info->push == 1 && info->flow == CLRIE_IL_FLOW_NEXT;
}

struct nodes {
    struct clrie_il_instr **at;
    size_t count;
};

/* A random node for which want() holds, or NULL. */
static struct clrie_il_instr *pick(const struct nodes *ns, uint64_t *s, bool (*want)(uint16_t))
{
    size_t matches = 0;
    for (size_t i = 0; i < ns->count; i++)
        matches += !want || want(clrie_il_instr_opcode(ns->at[i]));
    if (!matches)
        return NULL;
    size_t k = below(s, (uint32_t)matches);
    for (size_t i = 0; i < ns->count; i++)
        if ((!want || want(clrie_il_instr_opcode(ns->at[i]))) && k-- == 0)
            return ns->at[i];
    return NULL;
}

static bool is_token_op(uint16_t op)
{
    return clrie_il_opcode_info(op)->operand_kind == CLRIE_IL_OPERAND_TOKEN;
}

static bool is_call(uint16_t op)
{
    return op == CLRIE_IL_OP_CALL || op == CLRIE_IL_OP_CALLVIRT || op == CLRIE_IL_OP_NEWOBJ;
}

static bool is_plain(uint16_t op)
{
    const struct clrie_il_opcode_info *info = clrie_il_opcode_info(op);
    return info->operand_kind == CLRIE_IL_OPERAND_NONE && info->flow == CLRIE_IL_FLOW_NEXT;
}

static bool is_branch(uint16_t op)
{
    uint8_t flow = clrie_il_opcode_info(op)->flow;
    return flow == CLRIE_IL_FLOW_BRANCH || flow == CLRIE_IL_FLOW_COND_BRANCH;
}

static bool is_pop(uint16_t op)
{
    return op == CLRIE_IL_OP_POP;
}

/* A load of a random stack type: int32, int64, F (both widths), O, native int, &. */
static int random_load(struct clrie_il_graph *g, uint64_t *s, const struct method *m,
                       struct clrie_il_instr **out, char *what, size_t what_size)
{
    switch (below(s, 7)) {
    case 0:
        snprintf(what, what_size, "ldc.i4");
        return clrie_il_instr_create_ldc_i4(g, 7, out);
    case 1:
        snprintf(what, what_size, "ldc.i8");
        return clrie_il_instr_create_int(g, CLRIE_IL_OP_LDC_I8, 7, out);
    case 2:
        snprintf(what, what_size, "ldc.r8");
        return clrie_il_instr_create_real(g, CLRIE_IL_OP_LDC_R8, 1.5, out);
    case 3:
        snprintf(what, what_size, "ldc.r4");
        return clrie_il_instr_create_real(g, CLRIE_IL_OP_LDC_R4, 1.5, out);
    case 4:
        snprintf(what, what_size, "ldnull");
        return clrie_il_instr_create(g, CLRIE_IL_OP_LDNULL, out);
    case 5:
        snprintf(what, what_size, "ldc.i4.0+conv.i");
        return clrie_il_instr_create(g, CLRIE_IL_OP_CONV_I, out); /* after an ldc: see below */
    default:
        if (m->local_count) {
            snprintf(what, what_size, "ldloca 0");
            return clrie_il_instr_create_ldloca(g, 0, out);
        }
        snprintf(what, what_size, "ldarga 0");
        return clrie_il_instr_create_ldarga(g, 0, out);
    }
}

/* Puts load in before anchor (with its ldc.i4.0 first when load is a conv.i). */
static int place_load(struct clrie_il_graph *g, struct clrie_il_instr *anchor,
                      struct clrie_il_instr *load)
{
    if (clrie_il_instr_opcode(load) == CLRIE_IL_OP_CONV_I) {
        struct clrie_il_instr *zero = NULL;
        int r = clrie_il_instr_create_ldc_i4(g, 0, &zero);
        if (r == 0)
            r = clrie_il_graph_insert_before(g, anchor, zero);
        if (r != 0)
            return r;
    }
    return clrie_il_graph_insert_before(g, anchor, load);
}

/* Applies one mutation; fills what with a description. -ENOENT: nothing to mutate. */
static int mutate(struct clrie_il_graph *g, uint64_t *s, const struct method *m, enum mutation kind,
                  char *what, size_t what_size)
{
    struct nodes ns = {NULL, clrie_il_graph_count(g)};
    ns.at = calloc(ns.count ? ns.count : 1, sizeof *ns.at);
    if (!ns.at)
        return -ENOMEM;
    size_t i = 0;
    for (struct clrie_il_instr *n = clrie_il_graph_first(g); n; n = clrie_il_instr_next(n))
        ns.at[i++] = n;
    struct clrie_il_instr *n = NULL, *fresh = NULL, *extra = NULL;
    int r = -ENOENT;
    char load[32];
    switch (kind) {
    case M_LOCAL:
    case M_ARG: {
        n = pick(&ns, s, kind == M_LOCAL ? is_local_op : is_arg_op);
        if (!n)
            break;
        uint32_t count = kind == M_LOCAL ? m->local_count : m->arg_count;
        uint32_t index = below(s, 2) ? count + below(s, 300) : below(s, count + 1);
        uint16_t family = var_family(clrie_il_instr_opcode(n));
        snprintf(what, what_size, "%s %u (of %u)", clrie_il_opcode_info(family)->name, index,
                 count);
        r = clrie_il_instr_create_int(g, family, index, &fresh);
        if (r == 0)
            r = clrie_il_graph_replace(g, n, fresh);
        break;
    }
    case M_TOKEN: {
        n = pick(&ns, s, is_token_op);
        if (!n)
            break;
        int64_t token = 0;
        clrie_il_instr_operand_int(n, &token);
        static const uint32_t tables[] = {0x01, 0x02, 0x04, 0x06, 0x0A, 0x11, 0x1B, 0x2B, 0x70};
        uint32_t t = (uint32_t)token >> 24, row = (uint32_t)token & 0xFFFFFF;
        switch (below(s, 3)) {
        case 0:
            row = row + 1 + below(s, 3);
            break;
        case 1:
            row = 0x1000 + below(s, 0x10000);
            break;
        default:
            t = tables[below(s, 9)];
            row = t == 0x70 ? 1 + below(s, 40) : 1 + below(s, 6);
            break;
        }
        uint32_t new_token = t << 24 | row;
        snprintf(what, what_size, "%s 0x%08X -> 0x%08X",
                 clrie_il_opcode_info(clrie_il_instr_opcode(n))->name, (uint32_t)token, new_token);
        r = clrie_il_instr_set_operand_int(n, new_token);
        break;
    }
    case M_OPCODE: {
        n = pick(&ns, s, is_plain);
        if (!n)
            break;
        uint16_t op = typed_ops[below(s, sizeof typed_ops / sizeof typed_ops[0])];
        snprintf(what, what_size, "%s -> %s", clrie_il_opcode_info(clrie_il_instr_opcode(n))->name,
                 clrie_il_opcode_info(op)->name);
        r = clrie_il_instr_create(g, op, &fresh);
        if (r == 0)
            r = clrie_il_graph_replace(g, n, fresh);
        break;
    }
    case M_PUSH: {
        n = pick(&ns, s, pushes_one_load);
        if (!n)
            break;
        r = random_load(g, s, m, &fresh, load, sizeof load);
        snprintf(what, what_size, "%s -> %s", clrie_il_opcode_info(clrie_il_instr_opcode(n))->name,
                 load);
        if (r == 0)
            r = place_load(g, n, fresh);
        if (r == 0)
            r = clrie_il_graph_remove(g, n);
        break;
    }
    case M_INSERT: {
        n = pick(&ns, s, NULL);
        uint16_t op = binary_ops[below(s, sizeof binary_ops / sizeof binary_ops[0])];
        r = random_load(g, s, m, &fresh, load, sizeof load);
        snprintf(what, what_size, "%s; %s before %s", load, clrie_il_opcode_info(op)->name,
                 clrie_il_opcode_info(clrie_il_instr_opcode(n))->name);
        if (r == 0)
            r = clrie_il_instr_create(g, op, &extra);
        if (r == 0)
            r = place_load(g, n, fresh);
        if (r == 0)
            r = clrie_il_graph_insert_before(g, n, extra);
        break;
    }
    case M_POP: {
        struct clrie_il_instr *pop = pick(&ns, s, is_pop);
        unsigned choice = below(s, 3);
        if (choice == 0 && pop) {
            snprintf(what, what_size, "pop removed");
            r = clrie_il_graph_remove(g, pop);
            break;
        }
        n = pick(&ns, s, NULL);
        uint16_t op = choice == 1 ? CLRIE_IL_OP_POP : CLRIE_IL_OP_DUP;
        snprintf(what, what_size, "%s before %s", clrie_il_opcode_info(op)->name,
                 clrie_il_opcode_info(clrie_il_instr_opcode(n))->name);
        r = clrie_il_instr_create(g, op, &fresh);
        if (r == 0)
            r = clrie_il_graph_insert_before(g, n, fresh);
        break;
    }
    case M_BRANCH: {
        n = pick(&ns, s, is_branch);
        if (!n)
            break;
        struct clrie_il_instr *to = ns.at[below(s, (uint32_t)ns.count)];
        snprintf(what, what_size, "%s retargeted",
                 clrie_il_opcode_info(clrie_il_instr_opcode(n))->name);
        r = clrie_il_instr_set_branch_target(n, to);
        break;
    }
    case M_CALL: {
        n = pick(&ns, s, is_call);
        struct clrie_il_instr *other = pick(&ns, s, is_call);
        if (!n || !other || n == other)
            break;
        int64_t a = 0, b = 0;
        clrie_il_instr_operand_int(n, &a);
        clrie_il_instr_operand_int(other, &b);
        snprintf(what, what_size, "%s 0x%08X -> 0x%08X",
                 clrie_il_opcode_info(clrie_il_instr_opcode(n))->name, (uint32_t)a, (uint32_t)b);
        r = clrie_il_instr_set_operand_int(n, b);
        break;
    }
    default:
        snprintf(what, what_size, "unchanged");
        r = 0;
        break;
    }
    free(ns.at);
    return r;
}

/* ---- InstrumentMethod ----------------------------------------------------------------------- */

/* Gives the runtime body[0..len) for the method. */
static HRESULT install(struct mutator *m, ModuleID module, mdMethodDef token, const uint8_t *body,
                       size_t len)
{
    IMethodMalloc *alloc = NULL;
    HRESULT hr = m->info->lpVtbl->GetILFunctionBodyAllocator(m->info, module, &alloc);
    if (FAILED(hr))
        return hr;
    void *mem = alloc->lpVtbl->Alloc(alloc, (ULONG)len);
    clrie_plugin_release(alloc);
    if (!mem)
        return E_OUTOFMEMORY;
    memcpy(mem, body, len);
    return m->info->lpVtbl->SetILFunctionBody(m->info, module, token, mem);
}

static HRESULT STDMETHODCALLTYPE mutator_InstrumentMethod(IInstrumentationMethod *This,
                                                          IMethodInfo *mi, BOOL isRejit)
{
    struct mutator *p = from_iface(This);
    IModuleInfo *module = NULL;
    IUnknown *unknown = NULL;
    IMetaDataImport2 *import = NULL;
    struct clrie_il_graph *g = NULL;
    uint8_t *body = NULL;
    size_t len = 0;
    ModuleID module_id = 0;
    mdToken token = 0;
    LPCBYTE original = NULL;
    ULONG original_size = 0;
    struct method m = {0};
    bool have_vm = false;
    const char *skip = NULL;
    char what[160] = "";
    enum mutation kind = M_NONE;
    (void)isRejit;

    if (!p->info || FAILED(mi->lpVtbl->GetModuleInfo(mi, &module)) ||
        FAILED(mi->lpVtbl->GetMethodToken(mi, &token)) ||
        FAILED(module->lpVtbl->GetModuleID(module, &module_id)) ||
        FAILED(module->lpVtbl->GetMetaDataImport(module, &unknown)) ||
        FAILED(unknown->lpVtbl->QueryInterface(unknown, &IID_IMetaDataImport2, (void **)&import)) ||
        FAILED(p->info->lpVtbl->GetILFunctionBody(p->info, module_id, token, &original,
                                                  &original_size))) {
        skip = "cannot read the method";
        goto out;
    }
    clrie_plugin_method_full_name(mi, NULL, what, sizeof what);
    PCCOR_SIGNATURE sig = NULL;
    ULONG sig_len = 0;
    if (FAILED(import->lpVtbl->GetMethodProps(import, token, NULL, NULL, 0, NULL, NULL, &sig,
                                              &sig_len, NULL, NULL))) {
        skip = "no signature";
        goto out;
    }
    clrie_pm_verify_metadata_init(&m.vm, import, NULL, NULL);
    have_vm = true;
    m.sig = sig;
    m.sig_len = sig_len;
    struct clrie_il_diag diag = {0};
    if (clrie_il_graph_decode(original, original_size, &g, &diag) != 0) {
        skip = "cannot decode";
        goto out;
    }
    struct clrie_il_header h;
    clrie_il_graph_header(g, &h);
    if (h.local_sig_token) {
        PCCOR_SIGNATURE ls = NULL;
        ULONG ls_len = 0;
        if (FAILED(import->lpVtbl->GetSigFromToken(import, h.local_sig_token, &ls, &ls_len))) {
            skip = "no local signature";
            goto out;
        }
        m.local_sig = ls;
        m.local_sig_len = ls_len;
    }
    clrie_il_sig_local_header(m.local_sig, m.local_sig_len, &m.local_count, NULL);
    struct clrie_il_method_sig parsed;
    if (clrie_il_sig_parse_method(sig, sig_len, &parsed, NULL) == 0)
        m.arg_count = parsed.param_count + (parsed.has_this && !parsed.explicit_this);

    uint64_t state = p->seed * 0x100000001B3ull ^ token;
    next(&state);
    kind = (enum mutation)below(&state, M_COUNT);
    int r = mutate(g, &state, &m, kind, what, sizeof what);
    if (r == -ENOENT) { /* nothing of that kind here: a typed insertion instead */
        kind = M_INSERT;
        r = mutate(g, &state, &m, kind, what, sizeof what);
    }
    if (r != 0) {
        skip = "the mutation failed";
        goto out;
    }

    struct first f = {0};
    const struct clrie_il_verify_context ctx = {
        .resolve = resolve,
        .resolve_ctx = &m,
        .method_sig = m.sig,
        .method_sig_len = m.sig_len,
        .local_sig = m.local_sig,
        .local_sig_len = m.local_sig_len,
        .metadata = &m.vm.callbacks,
    };
    int verdict = clrie_il_graph_verify_in(g, &ctx, keep_first, &f);

    /* Declare enough stack: the computed depth when there is one, else generously more than
     * the original, so the JIT never refuses a body for its header alone. */
    uint32_t max = 0;
    if (clrie_il_graph_max_stack(g, resolve, &m, &max, &diag) != 0)
        max = h.max_stack + 16u;
    clrie_il_graph_set_fat_header(g, h.fat ? h.flags : CLRIE_IL_HEADER_INIT_LOCALS,
                                  (uint16_t)(max < 0xFFFF ? max : 0xFFFF), h.local_sig_token);
    if (clrie_il_graph_encode(g, 0, &body, &len, &diag) != 0) {
        skip = "cannot encode";
        goto out;
    }
    HRESULT hr = install(p, module_id, token, body, len);
    if (FAILED(hr)) {
        skip = "SetILFunctionBody failed";
        goto out;
    }
    if (verdict == 0)
        clrie_plugin_append_line(p->fd, "%08X %s accept %s", (unsigned)token, mutation_names[kind],
                                 what);
    else
        clrie_plugin_append_line(p->fd, "%08X %s reject %s | IL_%04X: %s", (unsigned)token,
                                 mutation_names[kind], what, (unsigned)f.offset,
                                 f.count ? f.text : "the verifier could not check");
out:
    if (skip)
        clrie_plugin_append_line(p->fd, "%08X %s skip %s", (unsigned)token, mutation_names[kind],
                                 skip);
    free(body);
    clrie_il_graph_free(g);
    if (have_vm)
        clrie_pm_verify_metadata_finish(&m.vm);
    clrie_plugin_release(import);
    clrie_plugin_release(unknown);
    clrie_plugin_release(module);
    return S_OK; /* the engine's graph is untouched: it applies nothing itself */
}

static const struct IInstrumentationMethodVtbl method_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(mutator),
    .Initialize = mutator_Initialize,
    CLRIE_PLUGIN_IGNORE_DOMAIN_AND_ASSEMBLY_EVENTS,
    .OnModuleLoaded = clrie_plugin_ignore_module,
    .OnModuleUnloaded = clrie_plugin_ignore_module,
    .OnShutdown = clrie_plugin_ignore_shutdown,
    .ShouldInstrumentMethod = mutator_ShouldInstrumentMethod,
    .BeforeInstrumentMethod = clrie_plugin_ignore_method,
    .InstrumentMethod = mutator_InstrumentMethod,
    .OnInstrumentationComplete = clrie_plugin_ignore_method,
    .AllowInlineSite = clrie_plugin_allow_every_inline,
};

static HRESULT create_instance(const CLSID *clsid, REFIID riid, void **out)
{
    (void)clsid;
    struct mutator *m = calloc(1, sizeof *m);
    if (!m)
        return E_OUTOFMEMORY;
    m->iface.lpVtbl = &method_vtbl;
    m->fd = -1;
    clrie_plugin_com_init(&m->com, &mutator_class);
    return clrie_plugin_com_give(&m->com, riid, out);
}

CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(create_instance)
