/* The IL the tracer plugin wraps around a traced method at its ReJIT (always from the method's
 * original IL):
 *
 *         ldnull; stloc tracer
 *   try {                                                        clause 3 (catch object)
 *     try {                                                      clause 0 (catch object)
 *         ldc.i4 <id>; ldstr <point>; call Shim::Needs; stloc needs
 *         ldloc needs; brfalse skip
 *         call Shim::Guard; stloc guard; ldloc guard; ldc.i4 <id>
 *         ldarg.0 | ldnull | (needs & 1) ? { ldarg.0; ldobj T; box T } : ldnull
 *         ldnull | (needs & 2) ? { ldc.i4 <n>; newarr object; { dup; ldc.i4 i; ldarg i
 *                                  [ldobj T]; [box T]; stelem.ref } } : ldnull
 *         call Shim::Begin; stloc tracer
 *   skip: leave body
 *     } catch { ldc.i4 <id>; ldc.i4 0; call Shim::Failed; leave body }
 *   body:
 *         <the original body; each `ret` becomes `[stloc result;] leave exit`>
 *   } catch {
 *         stloc exception
 *         try { ldloc guard; ldc.i4 <id>; ldloc tracer; ldnull; ldloc exception; call Shim::End;
 *               leave again }                                    clause 1
 *         catch { ldc.i4 <id>; ldc.i4 1; call Shim::Failed; leave again }
 *   again: rethrow
 *   }
 *   exit:
 *         ldloc tracer; brfalse done
 *         try {                                                  clause 2
 *             [a task: ldloc tracer; isinst IAsyncTracer; brfalse plain
 *                      ldc.i4 <id>; ldloc tracer; ldloc result [box R]; call Shim::FinishTask;
 *                      unbox.any R; stloc result; leave done
 *              plain:]
 *             ldloc guard; ldc.i4 <id>; ldloc tracer;
 *             ldnull | (needs & 4) ? ldloc result [box R] : ldnull;
 *             ldnull; call Shim::End; leave done
 *         } catch { ldc.i4 <id>; ldc.i4 1; call Shim::Failed; leave done }
 *   done: [ldloc result;] ret
 *
 * The choices on `needs` are branches whose joins are `nop`s. A method whose point has no
 * factory (Needs gives 0) costs the call to Needs and two branches; no array or box is made
 * for what the factory does not read. The catch clauses name `object` (a TypeSpec of
 * ELEMENT_TYPE_OBJECT), so nothing a tracer throws, Exception or not, reaches the application;
 * the original exception is rethrown as it was. Clauses are added innermost first (numbered in
 * that order above; the original body's own clauses, all inside clause 3, come before them);
 * the engine keeps inner before outer. */
#include "tracer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <clrie/ilgraph.h>
#include <clrie/plugin.h>

#define CLAUSE_CATCH 0x0000 /* COR_ILEXCEPTION_CLAUSE_NONE: a typed catch */

/* Instructions made for one wrap; each holds one reference until the end. */
struct builder {
    IInstructionGraph *graph;
    IInstructionFactory *factory;
    IMetaDataEmit *emit;
    HRESULT hr;
    IInstruction **made;
    size_t count, capacity;
};

static IInstruction *keep(struct builder *b, HRESULT hr, IInstruction *made)
{
    if (FAILED(hr) || !made) {
        if (SUCCEEDED(b->hr))
            b->hr = FAILED(hr) ? hr : E_FAIL;
        return NULL;
    }
    if (b->count == b->capacity) {
        size_t capacity = b->capacity ? b->capacity * 2 : 64;
        IInstruction **grown = realloc(b->made, capacity * sizeof *grown);
        if (!grown) {
            made->lpVtbl->Release(made);
            b->hr = E_OUTOFMEMORY;
            return NULL;
        }
        b->made = grown;
        b->capacity = capacity;
    }
    b->made[b->count++] = made;
    return made;
}

static IInstruction *op(struct builder *b, ILOrdinalOpcode code)
{
    IInstruction *i = NULL;
    if (FAILED(b->hr))
        return NULL;
    HRESULT hr = b->factory->lpVtbl->CreateInstruction(b->factory, code, &i);
    return keep(b, hr, i);
}

static IInstruction *tok(struct builder *b, ILOrdinalOpcode code, mdToken token)
{
    IInstruction *i = NULL;
    if (FAILED(b->hr))
        return NULL;
    HRESULT hr = b->factory->lpVtbl->CreateTokenOperandInstruction(b->factory, code, token, &i);
    return keep(b, hr, i);
}

static IInstruction *ldc(struct builder *b, int value)
{
    IInstruction *i = NULL;
    if (FAILED(b->hr))
        return NULL;
    HRESULT hr = b->factory->lpVtbl->CreateLoadConstInstruction(b->factory, value, &i);
    return keep(b, hr, i);
}

static IInstruction *ldarg(struct builder *b, unsigned index)
{
    IInstruction *i = NULL;
    if (FAILED(b->hr))
        return NULL;
    HRESULT hr = b->factory->lpVtbl->CreateLoadArgInstruction(b->factory, (USHORT)index, &i);
    return keep(b, hr, i);
}

static IInstruction *ldloc(struct builder *b, DWORD index)
{
    IInstruction *i = NULL;
    if (FAILED(b->hr))
        return NULL;
    HRESULT hr = b->factory->lpVtbl->CreateLoadLocalInstruction(b->factory, (USHORT)index, &i);
    return keep(b, hr, i);
}

static IInstruction *stloc(struct builder *b, DWORD index)
{
    IInstruction *i = NULL;
    if (FAILED(b->hr))
        return NULL;
    HRESULT hr = b->factory->lpVtbl->CreateStoreLocalInstruction(b->factory, (USHORT)index, &i);
    return keep(b, hr, i);
}

static IInstruction *branch(struct builder *b, ILOrdinalOpcode code, IInstruction *target)
{
    IInstruction *i = NULL;
    if (FAILED(b->hr) || !target)
        return NULL;
    HRESULT hr = b->factory->lpVtbl->CreateBranchInstruction(b->factory, code, target, &i);
    return keep(b, hr, i);
}

static IInstruction *leave(struct builder *b, IInstruction *target)
{
    return branch(b, Cee_Leave, target);
}

/* Inserts `items` (count, none NULL) in order after *cursor, or before `before` when *cursor
 * is NULL; *cursor ends on the last one. */
static void place(struct builder *b, IInstruction **cursor, IInstruction *before,
                  IInstruction *const *items, size_t count)
{
    for (size_t i = 0; i < count && SUCCEEDED(b->hr); i++) {
        if (!items[i]) {
            b->hr = E_FAIL;
            return;
        }
        b->hr = *cursor ? b->graph->lpVtbl->InsertAfter(b->graph, *cursor, items[i])
                        : b->graph->lpVtbl->InsertBefore(b->graph, before, items[i]);
        *cursor = items[i];
    }
}

static mdTypeSpec type_spec(struct builder *b, const uint8_t *sig, size_t len)
{
    mdTypeSpec spec = mdTokenNil;
    if (SUCCEEDED(b->hr))
        b->hr = b->emit->lpVtbl->GetTokenFromTypeSpec(b->emit, sig, (ULONG)len, &spec);
    return spec;
}

/* Whether a value of this type (custom modifiers skipped) can be boxed: not a pointer, a
 * function pointer or a TypedReference. (Nor a by-ref-like struct such as Span<T>: a method with
 * one is never wrapped; modules.c and tracer.c find them first, through typerefs.c.) */
static bool boxable(uint8_t element)
{
    return element != CLRIE_IL_ELEMENT_TYPE_PTR && element != CLRIE_IL_ELEMENT_TYPE_FNPTR &&
           element != CLRIE_IL_ELEMENT_TYPE_TYPEDBYREF;
}

/* Whether values of this type are references already (box would change nothing). */
static bool is_reference(const uint8_t *type, size_t len)
{
    if (len == 0)
        return false;
    switch (type[0]) {
    case CLRIE_IL_ELEMENT_TYPE_CLASS:
    case CLRIE_IL_ELEMENT_TYPE_STRING:
    case CLRIE_IL_ELEMENT_TYPE_OBJECT:
    case CLRIE_IL_ELEMENT_TYPE_SZARRAY:
    case CLRIE_IL_ELEMENT_TYPE_ARRAY:
        return true;
    case CLRIE_IL_ELEMENT_TYPE_GENERICINST:
        return len > 1 && type[1] == CLRIE_IL_ELEMENT_TYPE_CLASS;
    default:
        return false;
    }
}

/* Appends the instructions that leave the value of the type at sig[0..len) as an object
 * (or null) on the stack, given the instruction that loads it (a byref loads its target). */
static void push_boxed(struct builder *b, IInstruction **cursor, IInstruction *load,
                       const uint8_t *type, size_t len)
{
    size_t mods = 0;
    if (clrie_il_sig_skip_custom_mods(type, len, &mods) != 0 || mods >= len) {
        b->hr = E_FAIL;
        return;
    }
    type += mods;
    len -= mods;
    bool byref = type[0] == CLRIE_IL_ELEMENT_TYPE_BYREF;
    if (byref) {
        type++;
        len--;
        if (clrie_il_sig_skip_custom_mods(type, len, &mods) != 0 || mods >= len) {
            b->hr = E_FAIL;
            return;
        }
        type += mods;
        len -= mods;
    }
    if (!boxable(type[0])) {
        IInstruction *null = op(b, Cee_Ldnull);
        place(b, cursor, NULL, &null, 1);
        return;
    }
    place(b, cursor, NULL, &load, 1);
    mdTypeSpec spec = mdTokenNil;
    if (byref || !is_reference(type, len))
        spec = type_spec(b, type, len);
    if (byref) {
        IInstruction *deref = tok(b, Cee_Ldobj, spec);
        place(b, cursor, NULL, &deref, 1);
    }
    if (!is_reference(type, len)) {
        IInstruction *box = tok(b, Cee_Box, spec);
        place(b, cursor, NULL, &box, 1);
    }
}

/* Appends `if ((needs & bit) != 0) { then... } else ldnull;` after *cursor: `then` leaves one
 * object on the stack. */
static void place_if_needed(struct builder *b, IInstruction **cursor, DWORD needs, int bit,
                            void (*then)(struct builder *, IInstruction **, const void *),
                            const void *data)
{
    IInstruction *otherwise = op(b, Cee_Ldnull), *join = op(b, Cee_Nop);
    IInstruction *test[] = {ldloc(b, needs), ldc(b, bit), op(b, Cee_And),
                            branch(b, Cee_Brfalse, otherwise)};
    place(b, cursor, NULL, test, 4);
    then(b, cursor, data);
    IInstruction *rest[] = {branch(b, Cee_Br, join), otherwise, join};
    place(b, cursor, NULL, rest, 3);
}

/* What the wrapper builds: the method and where its signature's parts are. */
struct wrapping {
    const struct clrie_tracer_method *traced;
    const uint8_t *sig;
    DWORD sig_len;
    struct clrie_il_method_sig parsed;
    mdTypeSpec object_spec;
    DWORD result;
};

/* `this` of a value type is a byref: the tracer gets a boxed copy. */
static void push_value_this(struct builder *b, IInstruction **cursor, const void *data)
{
    const struct wrapping *w = data;
    IInstruction *copy[] = {ldarg(b, 0), tok(b, Cee_Ldobj, w->traced->value_this),
                            tok(b, Cee_Box, w->traced->value_this)};
    place(b, cursor, NULL, copy, 3);
}

/* new object[] { arguments, boxed } */
static void push_arguments(struct builder *b, IInstruction **cursor, const void *data)
{
    const struct wrapping *w = data;
    IInstruction *array[] = {ldc(b, (int)w->parsed.param_count),
                             tok(b, Cee_Newarr, w->object_spec)};
    place(b, cursor, NULL, array, 2);
    size_t at = w->parsed.ret_offset + w->parsed.ret_len;
    for (uint32_t i = 0; i < w->parsed.param_count && SUCCEEDED(b->hr); i++) {
        size_t type_len = 0;
        if (clrie_il_sig_type_len(w->sig + at, w->sig_len - at, &type_len) != 0) {
            b->hr = E_FAIL;
            break;
        }
        IInstruction *slot[] = {op(b, Cee_Dup), ldc(b, (int)i)};
        place(b, cursor, NULL, slot, 2);
        push_boxed(b, cursor, ldarg(b, i + (w->parsed.has_this ? 1u : 0u)), w->sig + at,
                   type_len);
        IInstruction *store = op(b, Cee_Stelem_Ref);
        place(b, cursor, NULL, &store, 1);
        at += type_len;
    }
}

static void push_result(struct builder *b, IInstruction **cursor, const void *data)
{
    const struct wrapping *w = data;
    push_boxed(b, cursor, ldloc(b, w->result), w->sig + w->parsed.ret_offset, w->parsed.ret_len);
}

/* The method's `ret`s (AddRef'd, *count of them), or S_FALSE with *why when it has a `jmp` or a
 * tail call, which cannot leave a protected block. */
static HRESULT find_returns(IInstructionGraph *graph, IInstruction ***rets, size_t *count,
                            const char **why)
{
    *rets = NULL;
    *count = 0;
    size_t capacity = 0;
    IInstruction *at = NULL;
    HRESULT hr = graph->lpVtbl->GetFirstInstruction(graph, &at);
    while (SUCCEEDED(hr) && hr != S_FALSE && at) {
        ILOrdinalOpcode code = clrie_plugin_opcode(at);
        if (code == Cee_Jmp || code == Cee_Tailcall) {
            *why = code == Cee_Jmp ? "it has a jmp" : "it has a tail call";
            hr = S_FALSE;
        } else if (code == Cee_Ret) {
            if (*count == capacity) {
                capacity = capacity ? capacity * 2 : 8;
                IInstruction **grown = realloc(*rets, capacity * sizeof *grown);
                if (!grown) {
                    hr = E_OUTOFMEMORY;
                    break;
                }
                *rets = grown;
            }
            at->lpVtbl->AddRef(at);
            (*rets)[(*count)++] = at;
        }
        clrie_plugin_next_instruction(&at);
    }
    clrie_plugin_release(at);
    return hr;
}

static HRESULT add_catch(IExceptionSection *clauses, IInstruction *try_first,
                         IInstruction *try_last, IInstruction *handler_first,
                         IInstruction *handler_last, mdToken type)
{
    IExceptionClause *clause = NULL;
    HRESULT hr =
        clauses->lpVtbl->AddNewExceptionClause(clauses, CLAUSE_CATCH, try_first, try_last,
                                               handler_first, handler_last, NULL, type, &clause);
    clrie_plugin_release(clause);
    return hr;
}

HRESULT clrie_tracer_wrap(IMethodInfo *method, const struct clrie_tracer_method *traced,
                          const struct clrie_tracer_refs *refs, const char **why)
{
    static const uint8_t object_sig[] = {CLRIE_IL_ELEMENT_TYPE_OBJECT};
    struct builder b = {.hr = S_OK};
    IModuleInfo *module = NULL;
    IExceptionSection *clauses = NULL;
    IType *object = NULL, *int32 = NULL, *guard_ref = NULL, *result_type = NULL;
    IInstruction **rets = NULL, *first = NULL, *last = NULL, *try_last = NULL;
    size_t ret_count = 0;
    uint8_t sig[1024];
    struct wrapping w = {.traced = traced, .sig = sig};
    struct clrie_il_method_sig *parsed = &w.parsed;
    *why = NULL;

    HRESULT hr = method->lpVtbl->GetCorSignature(method, sizeof sig, sig, &w.sig_len);
    if (SUCCEEDED(hr) &&
        (w.sig_len > sizeof sig || clrie_il_sig_parse_method(sig, w.sig_len, parsed, NULL) != 0))
        hr = E_FAIL;
    if (SUCCEEDED(hr) && parsed->returns_byref)
        *why = "it returns a byref";
    if (SUCCEEDED(hr) &&
        (parsed->calling_convention & CLRIE_IL_CALLCONV_KIND_MASK) == CLRIE_IL_CALLCONV_VARARG)
        *why = "it takes variable arguments";
    if (SUCCEEDED(hr) && *why)
        return S_FALSE;
    if (SUCCEEDED(hr))
        hr = method->lpVtbl->GetInstructions(method, &b.graph);
    if (SUCCEEDED(hr))
        hr = find_returns(b.graph, &rets, &ret_count, why);
    if (hr == S_FALSE)
        goto out;
    if (SUCCEEDED(hr))
        hr = method->lpVtbl->GetInstructionFactory(method, &b.factory);
    if (SUCCEEDED(hr))
        hr = method->lpVtbl->GetExceptionSection(method, &clauses);
    if (SUCCEEDED(hr))
        hr = method->lpVtbl->GetModuleInfo(method, &module);
    if (SUCCEEDED(hr))
        hr = clrie_plugin_module_metadata(module, &IID_IMetaDataEmit, (void **)&b.emit);
    if (FAILED(hr))
        goto out;

    /* locals: the tracer, the exception, what Needs gave, the recursion guard (a bool& to
     * the thread's flag, read once a call), the result */
    static const COR_SIGNATURE guard_type[] = {ELEMENT_TYPE_BYREF, ELEMENT_TYPE_BOOLEAN};
    DWORD tracer = 0, exception = 0, needs = 0, guard = 0;
    hr = clrie_plugin_element_type(method, ELEMENT_TYPE_OBJECT, &object);
    if (SUCCEEDED(hr))
        hr = clrie_plugin_element_type(method, ELEMENT_TYPE_I4, &int32);
    if (SUCCEEDED(hr))
        hr = clrie_plugin_add_local(method, object, &tracer);
    if (SUCCEEDED(hr))
        hr = clrie_plugin_add_local(method, object, &exception);
    if (SUCCEEDED(hr))
        hr = clrie_plugin_add_local(method, int32, &needs);
    if (SUCCEEDED(hr))
        hr = clrie_plugin_signature_type(method, guard_type, sizeof guard_type, &guard_ref);
    if (SUCCEEDED(hr))
        hr = clrie_plugin_add_local(method, guard_ref, &guard);
    if (SUCCEEDED(hr) && !parsed->returns_void)
        hr = method->lpVtbl->GetReturnType(method, &result_type);
    if (SUCCEEDED(hr) && !parsed->returns_void)
        hr = clrie_plugin_add_local(method, result_type, &w.result);
    if (SUCCEEDED(hr))
        hr = b.graph->lpVtbl->GetFirstInstruction(b.graph, &first);
    if (SUCCEEDED(hr))
        hr = b.graph->lpVtbl->GetLastInstruction(b.graph, &last);
    if (FAILED(hr))
        goto out;
    b.hr = S_OK;
    w.object_spec = type_spec(&b, object_sig, sizeof object_sig);
    const uint8_t *ret_type = sig + parsed->ret_offset;
    bool task = traced->returns_task && !parsed->returns_void;
    mdTypeSpec ret_spec = task ? type_spec(&b, ret_type, parsed->ret_len) : mdTokenNil;

    /* the exit, made first: every return leaves to it */
    IInstruction *done[] = {NULL, op(&b, Cee_Ret)};
    done[0] = parsed->returns_void ? NULL : ldloc(&b, w.result);
    IInstruction *done_first = done[0] ? done[0] : done[1];
    IInstruction *exit[] = {ldloc(&b, tracer), branch(&b, Cee_Brfalse, done_first)};
    IInstruction *exit_catch[] = {ldc(&b, traced->id), ldc(&b, 1), tok(&b, Cee_Call, refs->failed),
                                  leave(&b, done_first)};

    /* the prologue, before the original first instruction */
    IInstruction *cursor = NULL;
    IInstruction *init[] = {op(&b, Cee_Ldnull), stloc(&b, tracer)};
    place(&b, &cursor, first, init, 2);
    IInstruction *skip = leave(&b, first);
    IInstruction *ask[] = {ldc(&b, traced->id),         tok(&b, Cee_Ldstr, traced->point),
                           tok(&b, Cee_Call, refs->needs), stloc(&b, needs),
                           ldloc(&b, needs),            branch(&b, Cee_Brfalse, skip),
                           tok(&b, Cee_Call, refs->guard), stloc(&b, guard),
                           ldloc(&b, guard),            ldc(&b, traced->id)};
    place(&b, &cursor, NULL, ask, 10);
    if (parsed->has_this && !traced->no_instance && traced->value_this != mdTokenNil) {
        place_if_needed(&b, &cursor, needs, CLRIE_TRACER_NEEDS_INSTANCE, push_value_this, &w);
    } else {
        IInstruction *instance =
            parsed->has_this && !traced->no_instance ? ldarg(&b, 0) : op(&b, Cee_Ldnull);
        place(&b, &cursor, NULL, &instance, 1);
    }
    if (parsed->param_count > 0) {
        place_if_needed(&b, &cursor, needs, CLRIE_TRACER_NEEDS_ARGUMENTS, push_arguments, &w);
    } else {
        IInstruction *none = op(&b, Cee_Ldnull);
        place(&b, &cursor, NULL, &none, 1);
    }
    IInstruction *call_enter[] = {tok(&b, Cee_Call, refs->begin), stloc(&b, tracer), skip};
    place(&b, &cursor, NULL, call_enter, 3);
    IInstruction *enter_catch[] = {ldc(&b, traced->id), ldc(&b, 0), tok(&b, Cee_Call, refs->failed),
                                   leave(&b, first)};
    place(&b, &cursor, NULL, enter_catch, 4);

    /* after the original last instruction: the outer handler, then the exit */
    IInstruction *rethrow = op(&b, Cee_Rethrow);
    IInstruction *handler[] = {stloc(&b, exception),
                               ldloc(&b, guard),
                               ldc(&b, traced->id),
                               ldloc(&b, tracer),
                               op(&b, Cee_Ldnull),
                               ldloc(&b, exception),
                               tok(&b, Cee_Call, refs->end),
                               leave(&b, rethrow)};
    IInstruction *handler_catch[] = {ldc(&b, traced->id), ldc(&b, 1),
                                     tok(&b, Cee_Call, refs->failed), leave(&b, rethrow), rethrow};
    cursor = last;
    place(&b, &cursor, NULL, handler, 8);
    place(&b, &cursor, NULL, handler_catch, 5);
    place(&b, &cursor, NULL, exit, 2);
    IInstruction *finish[] = {ldloc(&b, guard), ldc(&b, traced->id), ldloc(&b, tracer)};
    IInstruction *exit_try = finish[0];
    if (task) {
        /* an IAsyncTracer is finished when the task completes */
        IInstruction *async[] = {ldloc(&b, tracer),
                                 tok(&b, Cee_Isinst, refs->async_tracer),
                                 branch(&b, Cee_Brfalse, finish[0]),
                                 ldc(&b, traced->id),
                                 ldloc(&b, tracer)};
        exit_try = async[0];
        place(&b, &cursor, NULL, async, 5);
        push_boxed(&b, &cursor, ldloc(&b, w.result), ret_type, parsed->ret_len);
        IInstruction *replace[] = {tok(&b, Cee_Call, refs->finish_task),
                                   tok(&b, Cee_Unbox_Any, ret_spec), stloc(&b, w.result),
                                   leave(&b, done_first)};
        place(&b, &cursor, NULL, replace, 4);
    }
    place(&b, &cursor, NULL, finish, 3);
    if (parsed->returns_void) {
        IInstruction *null = op(&b, Cee_Ldnull);
        place(&b, &cursor, NULL, &null, 1);
    } else {
        place_if_needed(&b, &cursor, needs, CLRIE_TRACER_NEEDS_RESULT, push_result, &w);
    }
    IInstruction *finish_call[] = {op(&b, Cee_Ldnull), tok(&b, Cee_Call, refs->end),
                                   leave(&b, done_first)};
    place(&b, &cursor, NULL, finish_call, 3);
    place(&b, &cursor, NULL, exit_catch, 4);
    if (done[0])
        place(&b, &cursor, NULL, done, 2);
    else
        place(&b, &cursor, NULL, done + 1, 1);

    /* each original return: [stloc result;] leave exit */
    for (size_t i = 0; i < ret_count && SUCCEEDED(b.hr); i++) {
        IInstruction *to_exit = leave(&b, exit[0]);
        if (parsed->returns_void) {
            if (SUCCEEDED(b.hr))
                b.hr = b.graph->lpVtbl->Replace(b.graph, rets[i], to_exit);
        } else {
            IInstruction *store = stloc(&b, w.result);
            if (SUCCEEDED(b.hr))
                b.hr = b.graph->lpVtbl->Replace(b.graph, rets[i], store);
            cursor = store;
            place(&b, &cursor, NULL, &to_exit, 1);
        }
    }

    /* the clauses, innermost first */
    if (SUCCEEDED(b.hr))
        b.hr = handler[0]->lpVtbl->GetPreviousInstruction(handler[0], &try_last);
    if (SUCCEEDED(b.hr))
        b.hr = add_catch(clauses, ask[0], skip, enter_catch[0], enter_catch[3], w.object_spec);
    if (SUCCEEDED(b.hr))
        b.hr = add_catch(clauses, handler[1], handler[7], handler_catch[0], handler_catch[3],
                         w.object_spec);
    if (SUCCEEDED(b.hr))
        b.hr = add_catch(clauses, exit_try, finish_call[2], exit_catch[0], exit_catch[3],
                         w.object_spec);
    if (SUCCEEDED(b.hr))
        b.hr = add_catch(clauses, ask[0], try_last, handler[0], rethrow, w.object_spec);
    hr = b.hr;

out:
    for (size_t i = 0; i < ret_count; i++)
        clrie_plugin_release(rets[i]);
    free(rets);
    for (size_t i = 0; i < b.count; i++)
        clrie_plugin_release(b.made[i]);
    free(b.made);
    clrie_plugin_release(try_last);
    clrie_plugin_release(first);
    clrie_plugin_release(last);
    clrie_plugin_release(object);
    clrie_plugin_release(int32);
    clrie_plugin_release(guard_ref);
    clrie_plugin_release(result_type);
    clrie_plugin_release(clauses);
    clrie_plugin_release(module);
    clrie_plugin_release(b.emit);
    clrie_plugin_release(b.factory);
    clrie_plugin_release(b.graph);
    return hr;
}
