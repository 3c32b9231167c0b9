/* The conformance suite's plugin: applies the edits a case file lists to one method through
 * the CLRIE plugin interfaces, and writes what it saw, so that the same case can run under clrie
 * and under Microsoft's CLRIE (test/conformance/README.md has the case file format).
 *
 * CLRIE_CONFORMANCE_CASE names the case file; the plugin reads its `method` line (the full name
 * IMethodInfo::GetFullName gives, `Namespace.Type.Method`) and its `edit` lines. It appends to
 * the file CLRIE_CONFORMANCE_OUT, for that method only:
 *
 *   <who> call <ShouldInstrumentMethod|BeforeInstrumentMethod|InstrumentMethod|
 *               OnInstrumentationComplete>
 *   edit <n> hr=0x<HRESULT>                    the n-th edit line (from 1) and what it returned
 *   il <i> <opcode> [operand]                  the instruction list at OnInstrumentationComplete
 *   clause <kind> try <i>-<j> handler <k>-<l>  its exception clauses, by list position
 *
 *   editor rejit requested hr=0x<HRESULT>      (`rejit` cases) IModuleInfo::RequestRejit returned
 *
 * <who> is `editor` for the class {C0F0A11C-0000-4000-8000-00000000C0DE}, which wants the
 * method and edits it, and `observer` for {...C0DF}, which says no to every method and only
 * records the calls it gets; a call at a ReJIT ends in ` rejit`. The listing is normalised:
 * branch opcodes lose `.s`, branch and switch targets are list positions (`->3`), and local
 * and argument loads and stores are written `stloc 0` whatever their form, so short and long
 * forms compare equal. With the case line `offsets`, each instruction also shows its original
 * offset, `(IL_0003)`, or `(new)`, and at the method's JitComplete the IL map the runtime got
 * (IMethodJitInfo2::GetILInstrumentationMap): `<who> jit map <old>:<new>,...`.
 *
 * With the case line `rejit`, the editor says no at the method's JIT and edits it at a ReJIT:
 * when Program.AskRejit is first jitted (the app calls it after running its scenario once),
 * a thread of the plugin asks IModuleInfo::RequestRejit for the method; the app waits for the
 * line that records it, then runs the scenario again. Leading `baseline` edits are applied in
 * BeforeInstrumentMethod (CreateBaseline is refused after it), the rest in InstrumentMethod.
 *
 * Test code: never load it in a real application. */
#include <ctype.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clrie/abi/instrumentation.h"
#include "clrie/ilgraph.h"
#include "clrie/os/thread.h"
#include "clrie/plugin.h"

#define MAX_EDITS 32
#define MAX_NAMED 16
#define MAX_LISTED 512

struct conformance {
    IInstrumentationMethod iface;
    IInstrumentationMethodJitEvents2 jit_events;
    struct clrie_plugin_com com;
    bool observer;
    int fd;
    char method[256];
    char edits[MAX_EDITS][256];
    size_t edit_count;
    size_t baseline_count; /* leading `baseline` edits, applied in BeforeInstrumentMethod */
    bool rejit;            /* edit at the ReJIT that Program.AskRejit's JIT asks for */
    bool offsets;          /* list each instruction's original offset too */
    bool rejit_asked;
    IModuleInfo *rejit_module; /* the target, once its first JIT was seen (rejit cases) */
    mdMethodDef rejit_token;
};

/* What one InstrumentMethod call edits with. */
struct session {
    struct conformance *c;
    IMethodInfo *method;
    IInstructionGraph *graph;
    IInstructionFactory *factory;
    IExceptionSection *eh;
    IInstruction *orig[MAX_LISTED]; /* the list as it was handed over, by position */
    size_t orig_count;
    struct {
        char name[32];
        IInstruction *node;
    } named[MAX_NAMED];
    size_t named_count;
};

static struct conformance *from_iface(IInstrumentationMethod *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct conformance, iface);
}

#define record(c, ...) ((void)clrie_plugin_append_line((c)->fd, __VA_ARGS__))

static void conformance_destroy(void *object)
{
    struct conformance *c = object;
    clrie_plugin_release(c->rejit_module);
    if (c->fd >= 0)
        close(c->fd);
    free(c);
}

static const struct clrie_plugin_com_iface conformance_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethod, struct conformance, iface),
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethodJitEvents, struct conformance, jit_events),
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethodJitEvents2, struct conformance, jit_events),
};

static const struct clrie_plugin_com_class conformance_class = {
    .name = "conformance",
    .ifaces = conformance_ifaces,
    .iface_count = CLRIE_PLUGIN_COM_COUNT(conformance_ifaces),
    .com_offset = offsetof(struct conformance, com),
    .destroy = conformance_destroy,
    .module_ref = true,
};

CLRIE_PLUGIN_COM_IUNKNOWN(conformance, IInstrumentationMethod, struct conformance, iface, com)
CLRIE_PLUGIN_COM_IUNKNOWN(conformance_jit, IInstrumentationMethodJitEvents2, struct conformance,
                          jit_events, com)

static const char *who(const struct conformance *c)
{
    return c->observer ? "observer" : "editor";
}

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
}

static void read_case(struct conformance *c, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        trim(line);
        if (!strncmp(line, "method ", 7))
            snprintf(c->method, sizeof c->method, "%s", line + 7);
        else if (!strncmp(line, "edit ", 5) && c->edit_count < MAX_EDITS) {
            if (!strncmp(line + 5, "baseline ", 9) && c->baseline_count == c->edit_count)
                c->baseline_count++;
            snprintf(c->edits[c->edit_count++], sizeof c->edits[0], "%s", line + 5);
        } else if (!strcmp(line, "rejit"))
            c->rejit = true;
        else if (!strcmp(line, "offsets"))
            c->offsets = true;
    }
    fclose(f);
}

static HRESULT STDMETHODCALLTYPE conformance_Initialize(IInstrumentationMethod *This,
                                                        IProfilerManager *manager)
{
    struct conformance *c = from_iface(This);
    const char *out = getenv("CLRIE_CONFORMANCE_OUT");
    const char *path = getenv("CLRIE_CONFORMANCE_CASE");
    if (out)
        c->fd = open(out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (path)
        read_case(c, path);
    return S_OK;
}

static bool is_target(struct conformance *c, IMethodInfo *mi)
{
    char full[512];
    clrie_plugin_method_full_name(mi, NULL, full, sizeof full);
    return c->method[0] && !strcmp(full, c->method);
}

static const char *when(BOOL isRejit)
{
    return isRejit ? " rejit" : "";
}

/* The method a `rejit` case edits, once its first JIT was seen. */
struct rejit_request {
    struct conformance *c;
    IModuleInfo *module;
    mdMethodDef token;
};

/* IModuleInfo::RequestRejit from a thread of the plugin's own, not from inside a JIT callback;
 * the app waits for the line it writes before it runs the scenario again. */
static void request_rejit(void *arg)
{
    struct rejit_request *r = arg;
    HRESULT hr = r->module->lpVtbl->RequestRejit(r->module, r->token);
    record(r->c, "editor rejit requested hr=0x%08X", (unsigned)hr);
    clrie_plugin_release(r->module);
    clrie_plugin_com_release(&r->c->com);
    free(r);
}

static void remember_target(struct conformance *c, IMethodInfo *mi)
{
    if (c->rejit_module || FAILED(mi->lpVtbl->GetModuleInfo(mi, &c->rejit_module)))
        return;
    mi->lpVtbl->GetMethodToken(mi, &c->rejit_token);
}

/* Program.AskRejit's first JIT: the app has run the scenario once and asks for the ReJIT. */
static void ask_rejit(struct conformance *c)
{
    struct rejit_request *r = calloc(1, sizeof *r);
    if (!r || !c->rejit_module) {
        free(r);
        record(c, "editor rejit requested hr=0x%08X", (unsigned)E_UNEXPECTED);
        return;
    }
    *r = (struct rejit_request){c, c->rejit_module, c->rejit_token};
    c->rejit_module = NULL;
    clrie_plugin_com_add_ref(&c->com);
    if (clrie_os_thread_start_detached(request_rejit, r) != 0)
        request_rejit(r);
}

static HRESULT STDMETHODCALLTYPE conformance_ShouldInstrumentMethod(IInstrumentationMethod *This,
                                                                    IMethodInfo *mi, BOOL isRejit,
                                                                    BOOL *pbInstrument)
{
    struct conformance *c = from_iface(This);
    bool target = is_target(c, mi);
    if (target)
        record(c, "%s call ShouldInstrumentMethod%s", who(c), when(isRejit));
    if (c->rejit && !c->observer && !isRejit) {
        char full[512];
        clrie_plugin_method_full_name(mi, NULL, full, sizeof full);
        if (target)
            remember_target(c, mi);
        else if (!strcmp(full, "Program.AskRejit") && !c->rejit_asked) {
            c->rejit_asked = true;
            ask_rejit(c);
        }
    }
    *pbInstrument = target && !c->observer && (bool)isRejit == c->rejit;
    return S_OK;
}

static HRESULT apply_baselines(struct conformance *c, IMethodInfo *mi);

static HRESULT STDMETHODCALLTYPE conformance_BeforeInstrumentMethod(IInstrumentationMethod *This,
                                                                    IMethodInfo *mi, BOOL isRejit)
{
    struct conformance *c = from_iface(This);
    if (!is_target(c, mi))
        return S_OK;
    record(c, "%s call BeforeInstrumentMethod%s", who(c), when(isRejit));
    if (!c->observer)
        apply_baselines(c, mi);
    return S_OK;
}

/* ---- the edit language ----------------------------------------------------------------------- */

static ILOrdinalOpcode opcode_named(const char *name)
{
    for (unsigned op = 0; op < CLRIE_IL_OP_COUNT; op++) {
        const struct clrie_il_opcode_info *info = clrie_il_opcode_info((uint16_t)op);
        if (info && info->name && !strcmp(info->name, name))
            return (ILOrdinalOpcode)op;
    }
    return Cee_Invalid;
}

/* An instruction a case names: @N (position in the list as handed over), $name (made by an
 * earlier edit), first or last (of the current list). NULL when there is no such one. */
static IInstruction *lookup(struct session *s, const char *ref)
{
    IInstruction *n = NULL;
    if (ref[0] == '@') {
        size_t i = strtoul(ref + 1, NULL, 10);
        return i < s->orig_count ? s->orig[i] : NULL;
    }
    if (ref[0] == '$') {
        for (size_t i = 0; i < s->named_count; i++)
            if (!strcmp(s->named[i].name, ref + 1))
                return s->named[i].node;
        return NULL;
    }
    if (!strcmp(ref, "first"))
        s->graph->lpVtbl->GetFirstInstruction(s->graph, &n);
    else if (!strcmp(ref, "last"))
        s->graph->lpVtbl->GetLastInstruction(s->graph, &n);
    if (n)
        n->lpVtbl->Release(n); /* the graph holds it while the method is instrumented */
    return n;
}

struct found_method {
    const char *name;
    mdMethodDef token;
};

static HRESULT match_method(void *data, mdMethodDef method, const WCHAR *full_name, ULONG rva)
{
    struct found_method *f = data;
    char name[512];
    clrie_plugin_bstr_to_utf8_buf(full_name, name, sizeof name);
    if (!strcmp(name, f->name))
        f->token = method;
    return S_OK;
}

/* The MethodDef of this module named `Namespace.Type::Method`, 0 if none. */
static mdMethodDef method_token(struct session *s, const char *name)
{
    IModuleInfo *module = NULL;
    IMetaDataImport *import = NULL;
    struct found_method f = {name, 0};
    if (SUCCEEDED(s->method->lpVtbl->GetModuleInfo(s->method, &module)) &&
        SUCCEEDED(clrie_plugin_module_metadata(module, &IID_IMetaDataImport, (void **)&import)))
        clrie_plugin_method_defs_each(import, match_method, &f);
    clrie_plugin_release(import);
    clrie_plugin_release(module);
    return f.token;
}

/* Makes the instruction words[0..] describe: `ldc.i4 N`, `ldloc N`, `stloc N`, `call T::M`,
 * a branch opcode and a target, `switch A,B,...`, or an opcode without operand. */
static HRESULT make_instruction(struct session *s, char **words, int count, IInstruction **out)
{
    IInstructionFactory *f = s->factory;
    if (count < 1)
        return E_INVALIDARG;
    const char *op = words[0];
    if (!strcmp(op, "ldc.i4") && count > 1)
        return f->lpVtbl->CreateLoadConstInstruction(f, atoi(words[1]), out);
    if (!strcmp(op, "ldloc") && count > 1)
        return f->lpVtbl->CreateLoadLocalInstruction(f, (USHORT)atoi(words[1]), out);
    if (!strcmp(op, "stloc") && count > 1)
        return f->lpVtbl->CreateStoreLocalInstruction(f, (USHORT)atoi(words[1]), out);
    if (!strcmp(op, "call") && count > 1) {
        mdMethodDef token = method_token(s, words[1]);
        return token ? f->lpVtbl->CreateTokenOperandInstruction(f, Cee_Call, token, out)
                     : E_INVALIDARG;
    }
    if (!strcmp(op, "switch") && count > 1) {
        IInstruction *targets[16];
        DWORD n = 0;
        char list[128];
        snprintf(list, sizeof list, "%s", words[1]);
        for (char *save = NULL, *t = strtok_r(list, ",", &save); t && n < 16;
             t = strtok_r(NULL, ",", &save))
            targets[n++] = lookup(s, t);
        return f->lpVtbl->CreateSwitchInstruction(f, Cee_Switch, n, targets, out);
    }
    ILOrdinalOpcode code = opcode_named(op);
    if (code == Cee_Invalid)
        return E_INVALIDARG;
    const struct clrie_il_opcode_info *info = clrie_il_opcode_info((uint16_t)code);
    if (info->operand_kind == CLRIE_IL_OPERAND_BRANCH8 ||
        info->operand_kind == CLRIE_IL_OPERAND_BRANCH32)
        return count > 1 ? f->lpVtbl->CreateBranchInstruction(f, code, lookup(s, words[1]), out)
                         : E_INVALIDARG;
    return f->lpVtbl->CreateInstruction(f, code, out);
}

static uint32_t clause_flags(const char *kind)
{
    if (!strcmp(kind, "finally"))
        return CLRIE_IL_EH_FINALLY;
    if (!strcmp(kind, "fault"))
        return CLRIE_IL_EH_FAULT;
    if (!strcmp(kind, "catch"))
        return CLRIE_IL_EH_CATCH;
    if (!strcmp(kind, "filter"))
        return CLRIE_IL_EH_FILTER;
    return UINT32_MAX;
}

struct found_type {
    const WCHAR *name;
    mdTypeRef token;
};

/* The TypeRef of this module named `Namespace.Type` (the catch clauses' types), 0 if none. */
static mdTypeRef type_ref(struct session *s, const char *name)
{
    IModuleInfo *module = NULL;
    IMetaDataImport *import = NULL;
    mdTypeRef found = 0;
    WCHAR wanted[256];
    size_t n = 0;
    for (; name[n] && n + 1 < 256; n++)
        wanted[n] = (WCHAR)name[n];
    wanted[n] = 0;
    if (SUCCEEDED(s->method->lpVtbl->GetModuleInfo(s->method, &module)) &&
        SUCCEEDED(clrie_plugin_module_metadata(module, &IID_IMetaDataImport, (void **)&import))) {
        HCORENUM e = NULL;
        mdTypeRef refs[64];
        ULONG count = 0;
        while (!found && import->lpVtbl->EnumTypeRefs(import, &e, refs, 64, &count) == S_OK &&
               count) {
            for (ULONG i = 0; i < count && !found; i++) {
                WCHAR have[256];
                ULONG len = 0;
                mdToken scope = 0;
                if (SUCCEEDED(import->lpVtbl->GetTypeRefProps(import, refs[i], &scope, have, 256,
                                                              &len)) &&
                    !memcmp(have, wanted, (n + 1) * sizeof(WCHAR)))
                    found = refs[i];
            }
        }
        import->lpVtbl->CloseEnum(import, e);
    }
    clrie_plugin_release(import);
    clrie_plugin_release(module);
    return found;
}

/* `add-clause <kind> <try first> <try last> <handler first> <handler last> [<filter first> |
 * <catch type>]`: a filter names its first instruction, a catch its type. */
static HRESULT add_clause(struct session *s, char **words, int count)
{
    uint32_t kind = count >= 6 ? clause_flags(words[1]) : UINT32_MAX;
    bool extra = kind == CLRIE_IL_EH_CATCH || kind == CLRIE_IL_EH_FILTER;
    if (kind == UINT32_MAX || count != (extra ? 7 : 6))
        return E_INVALIDARG;
    IInstruction *filter = kind == CLRIE_IL_EH_FILTER ? lookup(s, words[6]) : NULL;
    mdToken type = 0;
    if (kind == CLRIE_IL_EH_CATCH && !(type = type_ref(s, words[6])))
        return E_INVALIDARG;
    IExceptionClause *clause = NULL;
    HRESULT hr = s->eh->lpVtbl->AddNewExceptionClause(s->eh, kind, lookup(s, words[2]),
                                                      lookup(s, words[3]), lookup(s, words[4]),
                                                      lookup(s, words[5]), filter, type, &clause);
    clrie_plugin_release(clause);
    return hr;
}

/* `single-ret`: ISingleRetDefaultInstrumentation on the method's graph. */
static HRESULT single_ret(struct session *s)
{
    ISingleRetDefaultInstrumentation *single = NULL;
    HRESULT hr = s->method->lpVtbl->GetSingleRetDefaultInstrumentation(s->method, &single);
    if (SUCCEEDED(hr))
        hr = single->lpVtbl->Initialize(single, s->graph);
    if (SUCCEEDED(hr))
        hr = single->lpVtbl->ApplySingleRetDefaultInstrumentation(single);
    clrie_plugin_release(single);
    return hr;
}

/* `baseline <hex byte>... [map <old>:<new>,...] [points <offset>,...]`:
 * IInstructionGraph::CreateBaseline with that code, original-to-baseline IL map and sequence
 * points (BeforeInstrumentMethod applies these). */
static HRESULT baseline(struct session *s, char **words, int count)
{
    BYTE code[64];
    COR_IL_MAP map[16];
    DWORD points[16];
    DWORD code_size = 0, map_size = 0, point_count = 0;
    int i = 1;
    for (; i < count && strcmp(words[i], "map") && strcmp(words[i], "points") && code_size < 64;
         i++)
        code[code_size++] = (BYTE)strtoul(words[i], NULL, 16);
    for (; i + 1 < count; i += 2) {
        char list[128];
        bool is_map = !strcmp(words[i], "map");
        snprintf(list, sizeof list, "%s", words[i + 1]);
        for (char *save = NULL, *t = strtok_r(list, ",", &save); t;
             t = strtok_r(NULL, ",", &save)) {
            char *colon = strchr(t, ':');
            if (is_map && colon && map_size < 16)
                map[map_size++] = (COR_IL_MAP){(ULONG32)strtoul(t, NULL, 0),
                                               (ULONG32)strtoul(colon + 1, NULL, 0), TRUE};
            else if (!is_map && !colon && point_count < 16)
                points[point_count++] = (DWORD)strtoul(t, NULL, 0);
            else
                return E_INVALIDARG;
        }
    }
    return s->graph->lpVtbl->CreateBaseline(s->graph, code, code + code_size, map_size, map,
                                            point_count, point_count ? points : NULL);
}

/* `add-local int32`: a new local of that element type (int32 or object). */
static HRESULT add_local(struct session *s, const char *type_name)
{
    CorElementType element = !strcmp(type_name, "int32")    ? ELEMENT_TYPE_I4
                             : !strcmp(type_name, "object") ? ELEMENT_TYPE_OBJECT
                                                            : ELEMENT_TYPE_END;
    if (element == ELEMENT_TYPE_END)
        return E_INVALIDARG;
    IModuleInfo *module = NULL;
    ITypeCreator *types = NULL;
    IType *type = NULL;
    ILocalVariableCollection *locals = NULL;
    DWORD index = 0;
    HRESULT hr = s->method->lpVtbl->GetModuleInfo(s->method, &module);
    if (SUCCEEDED(hr))
        hr = module->lpVtbl->CreateTypeFactory(module, &types);
    if (SUCCEEDED(hr))
        hr = types->lpVtbl->FromCorElement(types, element, &type);
    if (SUCCEEDED(hr))
        hr = s->method->lpVtbl->GetLocalVariables(s->method, &locals);
    if (SUCCEEDED(hr))
        hr = locals->lpVtbl->AddLocal(locals, type, &index);
    clrie_plugin_release(locals);
    clrie_plugin_release(type);
    clrie_plugin_release(types);
    clrie_plugin_release(module);
    return hr;
}

/* One edit line: `<op> <ref> <instruction...> [as <name>]`, `remove <ref>`, `remove-all`,
 * `add-clause <kind> <try first> <try last> <handler first> <handler last>`,
 * `add-local <type>`, `expand-branches`. */
static HRESULT apply_edit(struct session *s, const char *line)
{
    char copy[256];
    char *words[16];
    int count = 0;
    snprintf(copy, sizeof copy, "%s", line);
    for (char *save = NULL, *w = strtok_r(copy, " \t", &save); w && count < 16;
         w = strtok_r(NULL, " \t", &save))
        words[count++] = w;
    if (count == 0)
        return E_INVALIDARG;
    const char *name = NULL;
    if (count >= 2 && !strcmp(words[count - 2], "as")) {
        name = words[count - 1];
        count -= 2;
    }
    const char *op = words[0];
    IInstructionGraph *g = s->graph;
    if (!strcmp(op, "remove-all"))
        return g->lpVtbl->RemoveAll(g);
    if (!strcmp(op, "expand-branches"))
        return g->lpVtbl->ExpandBranches(g);
    if (!strcmp(op, "add-local"))
        return count == 2 ? add_local(s, words[1]) : E_INVALIDARG;
    if (!strcmp(op, "remove"))
        return count == 2 ? g->lpVtbl->Remove(g, lookup(s, words[1])) : E_INVALIDARG;
    if (!strcmp(op, "add-clause"))
        return add_clause(s, words, count);
    if (!strcmp(op, "single-ret"))
        return count == 1 ? single_ret(s) : E_INVALIDARG;
    if (!strcmp(op, "baseline"))
        return baseline(s, words, count);
    if (count < 3)
        return E_INVALIDARG;
    IInstruction *anchor = !strcmp(words[1], "null") ? NULL : lookup(s, words[1]);
    IInstruction *node = NULL;
    HRESULT hr = make_instruction(s, words + 2, count - 2, &node);
    if (FAILED(hr))
        return hr;
    if (!strcmp(op, "insert-before"))
        hr = g->lpVtbl->InsertBefore(g, anchor, node);
    else if (!strcmp(op, "insert-after"))
        hr = g->lpVtbl->InsertAfter(g, anchor, node);
    else if (!strcmp(op, "insert-before-retarget"))
        hr = g->lpVtbl->InsertBeforeAndRetargetOffsets(g, anchor, node);
    else if (!strcmp(op, "replace"))
        hr = g->lpVtbl->Replace(g, anchor, node);
    else
        hr = E_INVALIDARG;
    if (SUCCEEDED(hr) && name && s->named_count < MAX_NAMED) {
        snprintf(s->named[s->named_count].name, sizeof s->named[0].name, "%s", name);
        s->named[s->named_count++].node = node; /* the graph holds it from now on */
    }
    node->lpVtbl->Release(node);
    return hr;
}

static HRESULT STDMETHODCALLTYPE conformance_InstrumentMethod(IInstrumentationMethod *This,
                                                              IMethodInfo *mi, BOOL isRejit)
{
    struct conformance *c = from_iface(This);
    if (!is_target(c, mi))
        return S_OK;
    record(c, "%s call InstrumentMethod%s", who(c), when(isRejit));
    struct session s = {.c = c, .method = mi};
    HRESULT hr = mi->lpVtbl->GetInstructions(mi, &s.graph);
    if (SUCCEEDED(hr))
        hr = mi->lpVtbl->GetInstructionFactory(mi, &s.factory);
    if (SUCCEEDED(hr))
        hr = mi->lpVtbl->GetExceptionSection(mi, &s.eh);
    if (FAILED(hr))
        goto out;
    IInstruction *n = NULL;
    s.graph->lpVtbl->GetFirstInstruction(s.graph, &n);
    while (n && s.orig_count < MAX_LISTED) {
        s.orig[s.orig_count++] = n;
        IInstruction *next = NULL;
        n->lpVtbl->GetNextInstruction(n, &next);
        n = next;
    }
    clrie_plugin_release(n);
    for (size_t i = c->baseline_count; i < c->edit_count; i++)
        record(c, "edit %zu hr=0x%08X", i + 1, (unsigned)apply_edit(&s, c->edits[i]));
    for (size_t i = 0; i < s.orig_count; i++)
        clrie_plugin_release(s.orig[i]);
out:
    clrie_plugin_release(s.eh);
    clrie_plugin_release(s.factory);
    clrie_plugin_release(s.graph);
    return S_OK; /* an edit that failed is in the record; the method goes on */
}

static HRESULT apply_baselines(struct conformance *c, IMethodInfo *mi)
{
    struct session s = {.c = c, .method = mi};
    if (!c->baseline_count || FAILED(mi->lpVtbl->GetInstructions(mi, &s.graph)))
        return S_OK;
    for (size_t i = 0; i < c->baseline_count; i++)
        record(c, "edit %zu hr=0x%08X", i + 1, (unsigned)apply_edit(&s, c->edits[i]));
    clrie_plugin_release(s.graph);
    return S_OK;
}

/* ---- the listing at OnInstrumentationComplete ------------------------------------------------ */

static long position(IInstruction *const *list, size_t count, IInstruction *n)
{
    for (size_t i = 0; i < count; i++)
        if (list[i] == n)
            return (long)i;
    return -1;
}

static bool is_branch_kind(uint8_t kind)
{
    return kind == CLRIE_IL_OPERAND_BRANCH8 || kind == CLRIE_IL_OPERAND_BRANCH32;
}

/* Loads and stores of locals and arguments in one form, `stloc 0` for `stloc.0`, `stloc.s 0`
 * and `stloc 0`: CLRIE makes the long forms where clrie makes the shortest (docs/design.md). */
static bool local_or_argument(char *name, char *operand, size_t size, IInstruction *n)
{
    static const char *const bases[] = {"ldloc", "stloc", "ldloca", "ldarg", "starg", "ldarga"};
    for (size_t k = 0; k < sizeof bases / sizeof bases[0]; k++) {
        size_t len = strlen(bases[k]);
        if (strncmp(name, bases[k], len) || (name[len] && name[len] != '.'))
            continue;
        long index;
        if (name[len] == '.' && isdigit((unsigned char)name[len + 1])) {
            index = name[len + 1] - '0';
        } else {
            IOperandInstruction *o = NULL;
            BYTE bytes[2] = {0};
            DWORD size_of = 0;
            n->lpVtbl->GetOperandLength(n, &size_of);
            if (size_of > 2 ||
                FAILED(n->lpVtbl->QueryInterface(n, &IID_IOperandInstruction, (void **)&o)))
                return false;
            o->lpVtbl->GetOperandValue(o, size_of, bytes);
            clrie_plugin_release(o);
            index = bytes[0] | (size_of == 2 ? bytes[1] << 8 : 0);
        }
        name[len] = '\0';
        snprintf(operand, size, " %ld", index);
        return true;
    }
    return false;
}

static void list_instruction(struct conformance *c, IInstruction *const *list, size_t count,
                             size_t i)
{
    IInstruction *n = list[i];
    ILOrdinalOpcode op = clrie_plugin_opcode(n);
    const struct clrie_il_opcode_info *info = clrie_il_opcode_info((uint16_t)op);
    char name[32], operand[160] = "";
    snprintf(name, sizeof name, "%s", info && info->name ? info->name : "?");
    if (local_or_argument(name, operand, sizeof operand, n)) {
        /* listed as `stloc 0`, whichever form */
    } else if (info && is_branch_kind(info->operand_kind)) {
        size_t len = strlen(name);
        if (len > 2 && !strcmp(name + len - 2, ".s"))
            name[len - 2] = '\0';
        IBranchInstruction *b = NULL;
        IInstruction *target = NULL;
        if (SUCCEEDED(n->lpVtbl->QueryInterface(n, &IID_IBranchInstruction, (void **)&b)))
            b->lpVtbl->GetBranchTarget(b, &target);
        snprintf(operand, sizeof operand, " ->%ld", position(list, count, target));
        clrie_plugin_release(target);
        clrie_plugin_release(b);
    } else if (op == Cee_Switch) {
        ISwitchInstruction *sw = NULL;
        DWORD targets = 0;
        size_t used = 0;
        if (SUCCEEDED(n->lpVtbl->QueryInterface(n, &IID_ISwitchInstruction, (void **)&sw)))
            sw->lpVtbl->GetBranchCount(sw, &targets);
        for (DWORD k = 0; k < targets && used + 8 < sizeof operand; k++) {
            IInstruction *target = NULL;
            sw->lpVtbl->GetBranchTarget(sw, k, &target);
            used += (size_t)snprintf(operand + used, sizeof operand - used, "%s%ld",
                                     k ? "," : " ->", position(list, count, target));
            clrie_plugin_release(target);
        }
        clrie_plugin_release(sw);
    } else if (info && info->operand_kind != CLRIE_IL_OPERAND_NONE &&
               info->operand_kind != CLRIE_IL_OPERAND_TOKEN) {
        IOperandInstruction *o = NULL;
        BYTE bytes[8] = {0};
        DWORD len = 0;
        n->lpVtbl->GetOperandLength(n, &len);
        if (len <= 4 &&
            SUCCEEDED(n->lpVtbl->QueryInterface(n, &IID_IOperandInstruction, (void **)&o)) &&
            SUCCEEDED(o->lpVtbl->GetOperandValue(o, len, bytes))) {
            int32_t v = len == 1   ? (int8_t)bytes[0]
                        : len == 2 ? (int16_t)(bytes[0] | bytes[1] << 8)
                                   : (int32_t)(bytes[0] | bytes[1] << 8 | bytes[2] << 16 |
                                               (uint32_t)bytes[3] << 24);
            snprintf(operand, sizeof operand, " %d", (int)v);
        }
        clrie_plugin_release(o);
    }
    char origin[32] = "";
    BOOL fresh = FALSE;
    DWORD offset = 0;
    if (c->offsets && SUCCEEDED(n->lpVtbl->GetIsNew(n, &fresh)) &&
        SUCCEEDED(n->lpVtbl->GetOriginalOffset(n, &offset)))
        snprintf(origin, sizeof origin, fresh ? " (new)" : " (IL_%04x)", (unsigned)offset);
    record(c, "il %zu %s%s%s", i, name, operand, origin);
}

static void list_clauses(struct conformance *c, IMethodInfo *mi, IInstruction *const *list,
                         size_t count)
{
    IExceptionSection *eh = NULL;
    IEnumExceptionClauses *clauses = NULL;
    if (FAILED(mi->lpVtbl->GetExceptionSection(mi, &eh)) ||
        FAILED(eh->lpVtbl->GetExceptionClauses(eh, &clauses))) {
        clrie_plugin_release(eh);
        return;
    }
    IExceptionClause *clause = NULL;
    ULONG fetched = 0;
    while (clauses->lpVtbl->Next(clauses, 1, &clause, &fetched) == S_OK && fetched == 1) {
        DWORD flags = 0;
        IInstruction *b[4] = {NULL};
        clause->lpVtbl->GetFlags(clause, &flags);
        clause->lpVtbl->GetTryFirstInstruction(clause, &b[0]);
        clause->lpVtbl->GetTryLastInstruction(clause, &b[1]);
        clause->lpVtbl->GetHandlerFirstInstruction(clause, &b[2]);
        clause->lpVtbl->GetHandlerLastInstruction(clause, &b[3]);
        const char *kind = clrie_il_eh_kind_name(flags & CLRIE_IL_EH_KIND_MASK);
        char filter[32] = "";
        IInstruction *filter_first = NULL;
        if ((flags & CLRIE_IL_EH_KIND_MASK) == CLRIE_IL_EH_FILTER &&
            SUCCEEDED(clause->lpVtbl->GetFilterFirstInstruction(clause, &filter_first)))
            snprintf(filter, sizeof filter, " filter %ld", position(list, count, filter_first));
        clrie_plugin_release(filter_first);
        record(c, "clause %s try %ld-%ld handler %ld-%ld%s", kind ? kind : "?",
               position(list, count, b[0]), position(list, count, b[1]),
               position(list, count, b[2]), position(list, count, b[3]), filter);
        for (int k = 0; k < 4; k++)
            clrie_plugin_release(b[k]);
        clrie_plugin_release(clause);
    }
    clrie_plugin_release(clauses);
    clrie_plugin_release(eh);
}

static HRESULT STDMETHODCALLTYPE conformance_OnInstrumentationComplete(IInstrumentationMethod *This,
                                                                       IMethodInfo *mi,
                                                                       BOOL isRejit)
{
    struct conformance *c = from_iface(This);
    if (!is_target(c, mi))
        return S_OK;
    record(c, "%s call OnInstrumentationComplete%s", who(c), when(isRejit));
    if (c->observer)
        return S_OK;
    IInstructionGraph *graph = NULL;
    if (FAILED(mi->lpVtbl->GetInstructions(mi, &graph)))
        return S_OK;
    IInstruction *list[MAX_LISTED];
    size_t count = 0;
    IInstruction *n = NULL;
    graph->lpVtbl->GetFirstInstruction(graph, &n);
    while (n && count < MAX_LISTED) {
        list[count++] = n;
        IInstruction *next = NULL;
        n->lpVtbl->GetNextInstruction(n, &next);
        n = next;
    }
    clrie_plugin_release(n);
    for (size_t i = 0; i < count; i++)
        list_instruction(c, list, count, i);
    list_clauses(c, mi, list, count);
    for (size_t i = 0; i < count; i++)
        clrie_plugin_release(list[i]);
    clrie_plugin_release(graph);
    return S_OK;
}

static HRESULT STDMETHODCALLTYPE conformance_AllowInlineSite(IInstrumentationMethod *This,
                                                             IMethodInfo *inlinee,
                                                             IMethodInfo *caller,
                                                             BOOL *pbAllowInline)
{
    *pbAllowInline = TRUE;
    return S_OK;
}

static const struct IInstrumentationMethodVtbl conformance_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(conformance),
    .Initialize = conformance_Initialize,
    CLRIE_PLUGIN_IGNORE_DOMAIN_AND_ASSEMBLY_EVENTS,
    .OnModuleLoaded = clrie_plugin_ignore_module,
    .OnModuleUnloaded = clrie_plugin_ignore_module,
    .OnShutdown = clrie_plugin_ignore_shutdown,
    .ShouldInstrumentMethod = conformance_ShouldInstrumentMethod,
    .BeforeInstrumentMethod = conformance_BeforeInstrumentMethod,
    .InstrumentMethod = conformance_InstrumentMethod,
    .OnInstrumentationComplete = conformance_OnInstrumentationComplete,
    .AllowInlineSite = conformance_AllowInlineSite,
};

/* ---- the IL map the runtime got (`offsets` cases) -------------------------------------------- */

/* JitComplete of the method: `<who> jit map <old>:<new>,...`, the map of
 * IMethodJitInfo2::GetILInstrumentationMap. */
static HRESULT STDMETHODCALLTYPE conformance_JitComplete2(IInstrumentationMethodJitEvents2 *This,
                                                          IMethodJitInfo *info)
{
    struct conformance *c = CLRIE_CONTAINER_OF(This, struct conformance, jit_events);
    IMethodJitInfo2 *info2 = NULL;
    IModuleInfo *module = NULL;
    IMethodInfo *mi = NULL;
    mdMethodDef token = 0;
    COR_IL_MAP map[32];
    ULONG32 count = 0;
    BOOL rejit = FALSE;
    if (!c->offsets || c->observer ||
        FAILED(info->lpVtbl->QueryInterface(info, &IID_IMethodJitInfo2, (void **)&info2)))
        return S_OK;
    if (SUCCEEDED(info2->lpVtbl->GetModuleInfo(info2, &module)) &&
        SUCCEEDED(info2->lpVtbl->GetMethodToken(info2, &token)) &&
        SUCCEEDED(module->lpVtbl->GetMethodInfoByToken(module, token, &mi)) && is_target(c, mi) &&
        SUCCEEDED(info2->lpVtbl->GetIsRejit(info2, &rejit)) &&
        SUCCEEDED(info2->lpVtbl->GetILInstrumentationMap(info2, 32, map, &count))) {
        char text[32 * 24] = "";
        size_t used = 0;
        for (ULONG32 i = 0; i < count && i < 32; i++)
            used += (size_t)snprintf(text + used, sizeof text - used, "%s%u:%u", i ? "," : "",
                                     (unsigned)map[i].oldOffset, (unsigned)map[i].newOffset);
        record(c, "%s jit map%s %s", who(c), when(rejit), count ? text : "(none)");
    }
    clrie_plugin_release(mi);
    clrie_plugin_release(module);
    clrie_plugin_release(info2);
    return S_OK;
}

static const struct IInstrumentationMethodJitEvents2Vtbl conformance_jit_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(conformance_jit),
    .JitStarted = clrie_plugin_ignore_jit_started,
    .JitComplete = clrie_plugin_ignore_jit_complete, /* superseded by JitComplete2 */
    .JitComplete2 = conformance_JitComplete2,
};

/* ---- class factory: the editor ({...C0DE}) and the observer (any other class ID) ------------- */

static HRESULT create_instance(const CLSID *clsid, REFIID riid, void **out)
{
    struct conformance *c = calloc(1, sizeof *c);
    if (!c)
        return E_OUTOFMEMORY;
    c->iface.lpVtbl = &conformance_vtbl;
    c->jit_events.lpVtbl = &conformance_jit_vtbl;
    c->fd = -1;
    c->observer = clsid->Data4[7] != 0xDE;
    clrie_plugin_com_init(&c->com, &conformance_class);
    return clrie_plugin_com_give(&c->com, riid, out);
}

CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(create_instance)
