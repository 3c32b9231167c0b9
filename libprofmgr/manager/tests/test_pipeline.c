/* The JIT and ReJIT pipeline end to end against a fake runtime (pipeline_fakes.h), so that it
 * runs under the sanitizers (the engine cannot load into a sanitized dotnet). A real manager is
 * created through the class factory, initialised with the fake ICorProfilerInfo15, told about
 * an app domain, an assembly and its modules, and loads a plugin from a configuration file as
 * in production; the plugin (pipeline_plugin.h, reached through pipeline_plugin_shim.c) edits
 * methods through the COM interfaces the way third-party plugins do. Each test checks what the
 * runtime received (bodies, IL maps, ReJIT requests), what the plugin observed, the log, and that
 * every reference the engine took was given back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clrie/abi/instrumentation.h"
#include "clrie/config.h"
#include "clrie/ilgraph.h"
#include "clrie/os/fs.h"
#include "clrie/os/module.h"
#include "clrie/os/thread.h"
#include "clrie/profmgr.h"
#include "pipeline_fakes.h"
#include "pipeline_plugin.h"
#include "support.h"

static void release(void *object)
{
    if (object)
        ((IUnknown *)object)->lpVtbl->Release((IUnknown *)object);
}

/* ---- the log ------------------------------------------------------------------------------- */

/* Made by configure() in a temporary folder. */
static char *temp_dir;
static char *log_path;
static char *config_path;
static char *second_config_path; /* named only by the test that wants two plugins */

static size_t log_size(void)
{
    FILE *f = fopen(log_path, "rb");
    if (!f)
        return 0;
    fseek(f, 0, SEEK_END);
    long end = ftell(f);
    fclose(f);
    return end > 0 ? (size_t)end : 0;
}

/* What the engine logged since `mark` (a log_size()); free() it. */
static char *log_since(size_t mark)
{
    FILE *f = fopen(log_path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long end = ftell(f);
    size_t len = end > (long)mark ? (size_t)end - mark : 0;
    char *text = calloc(1, len + 1);
    assert_non_null(text);
    fseek(f, (long)mark, SEEK_SET);
    assert_int_equal(fread(text, 1, len, f), len);
    fclose(f);
    return text;
}

static void assert_logged(size_t mark, const char *needle)
{
    char *text = log_since(mark);
    if (!strstr(text, needle))
        fail_msg("the log does not say \"%s\"; it has:\n%s", needle, text);
    free(text);
}

static void assert_no_error_logged(size_t mark)
{
    char *text = log_since(mark);
    if (strstr(text, "LogError"))
        fail_msg("unexpected error in the log:\n%s", text);
    free(text);
}

/* ---- a runtime with the engine attached ----------------------------------------------------- */

static const CLSID engine_clsid = CLRIE_CLSID_INSTRUMENTATION_ENGINE_INIT;

struct world {
    ICorProfilerCallback11 *cb;
    int plugins_before; /* a failed test may leave its manager behind */
};

/* A manager attached to the fake runtime with `plugins` plugins loaded, knowing PF_MODULE and
 * the dynamic module. */
static void attach_with(struct world *w, int plugins)
{
    IClassFactory *factory = NULL;
    assert_int_equal(
        clrie_pm_get_class_object(&engine_clsid, &IID_IClassFactory, (void **)&factory), S_OK);
    assert_int_equal(factory->lpVtbl->CreateInstance(factory, NULL, &IID_ICorProfilerCallback11,
                                                     (void **)&w->cb),
                     S_OK);
    factory->lpVtbl->Release(factory);
    ICorProfilerCallback11 *cb = w->cb;
    w->plugins_before = pipeline_plugins_live();
    assert_int_equal(cb->lpVtbl->Initialize(cb, pf_info()), S_OK);
    assert_int_equal(pipeline_plugins_live(), w->plugins_before + plugins);
    assert_int_equal(cb->lpVtbl->AppDomainCreationFinished(cb, PF_DOMAIN, S_OK), S_OK);
    assert_int_equal(cb->lpVtbl->AssemblyLoadFinished(cb, PF_ASSEMBLY, S_OK), S_OK);
    assert_int_equal(cb->lpVtbl->ModuleAttachedToAssembly(cb, PF_MODULE, PF_ASSEMBLY), S_OK);
    assert_int_equal(cb->lpVtbl->ModuleAttachedToAssembly(cb, PF_DYNAMIC_MODULE, PF_ASSEMBLY),
                     S_OK);
    assert_non_null(plugin_cfg.module);
}

static void attach(struct world *w)
{
    attach_with(w, 1);
}

static void jit(struct world *w, FunctionID function)
{
    assert_int_equal(w->cb->lpVtbl->JITCompilationStarted(w->cb, function, TRUE), S_OK);
}

/* Shuts the engine down and proves every reference it took was given back. */
static void detach(struct world *w)
{
    release(plugin_cfg.foreign);
    plugin_cfg.foreign = NULL;
    release(plugin_cfg.module);
    plugin_cfg.module = NULL;
    assert_int_equal(w->cb->lpVtbl->Shutdown(w->cb), S_OK);
    assert_int_equal(w->cb->lpVtbl->Release(w->cb), 0);
    /* what a plugin kept in a global outlives the engine's objects */
    release(plugin_cfg.kept_graph);
    plugin_cfg.kept_graph = NULL;
    release(plugin_cfg.kept);
    plugin_cfg.kept = NULL;
    assert_int_equal(pipeline_plugins_live(), w->plugins_before);
    assert_int_equal(pf_info_refs(), 1);
    assert_int_equal(pf_metadata_live(), 0);
    assert_int_equal(pf_allocators_live(), 0);
    assert_int_equal(pf_foreign_bodies(), 0);
}

static int setup(void **state)
{
    pf_reset();
    clrie_os_mutex_lock(&plugin_cfg.lock);
    /* a failed test leaves these behind with its manager */
    plugin_cfg.module = NULL;
    plugin_cfg.foreign = NULL;
    plugin_cfg.kept = NULL;
    plugin_cfg.kept_graph = NULL;
    plugin_cfg.target = NULL;
    plugin_cfg.prefix = false;
    plugin_cfg.action = DO_NOTHING;
    plugin_cfg.deny_inline = NULL;
    plugin_cfg.exceptions = false;
    plugin_cfg.codegen_flags = 0;
    plugin_cfg.second_wants = false;
    plugin_cfg.second_action = DO_NOTHING;
    plugin_cfg.inside = plugin_cfg.go = false;
    plugin_cfg.order[0] = '\0';
    plugin_cfg.baseline_before = plugin_cfg.baseline_late = plugin_cfg.info_only_il = E_NOTIMPL;
    plugin_cfg.should_calls = plugin_cfg.instrument_calls = plugin_cfg.complete_calls = 0;
    plugin_cfg.domains_created = plugin_cfg.assemblies_loaded = plugin_cfg.module_loads = 0;
    plugin_cfg.attach_complete_calls = 0;
    pf_set_enum_modules_hook(NULL, NULL);
    plugin_cfg.exception_count = 0;
    plugin_cfg.jit_complete_seen = false;
    plugin_cfg.jit_info_hr = S_OK;
    plugin_cfg.map_count = 0;
    plugin_cfg.hostile_count = 0;
    clrie_os_mutex_unlock(&plugin_cfg.lock);
    return 0;
}

static void assert_body(mdMethodDef token, const uint8_t *expected, size_t len)
{
    struct pf_body body;
    assert_true(pf_set_body(token, &body));
    assert_int_equal(body.module, PF_MODULE);
    assert_int_equal(body.len, len);
    assert_memory_equal(body.bytes, expected, len);
}

static void assert_map(FunctionID function, const COR_IL_MAP *expected, size_t count)
{
    COR_IL_MAP map[16];
    size_t got = 0;
    assert_true(pf_map(function, map, 16, &got));
    assert_int_equal(got, count);
    for (size_t i = 0; i < count; i++) {
        assert_int_equal(map[i].oldOffset, expected[i].oldOffset);
        assert_int_equal(map[i].newOffset, expected[i].newOffset);
        assert_true(map[i].fAccurate);
    }
}

/* ---- the cases ------------------------------------------------------------------------------- */

/* The Tiny method with `call Helper; add` before its ret. */
static const uint8_t tiny_with_call[] = {0x22, 0x17, 0x28, 0x01, 0x00, 0x00, 0x0A, 0x58, 0x2A};
/* New code is attributed to the original instruction it precedes (CLRIE's EncodeIL). */
static const COR_IL_MAP tiny_with_call_map[] = {{0, 0, TRUE}, {1, 1, TRUE}};

static void inserted_instructions_reach_the_runtime(void **state)
{
    struct world w;
    plugin_cfg.target = "Tiny", plugin_cfg.action = INSERT_CALL;
    attach(&w);
    size_t mark = log_size();
    jit(&w, PF_FN_TINY);
    /* A tiny header stays tiny when the stack (2) fits in it. */
    assert_body(PF_TOKEN_TINY, tiny_with_call, sizeof(tiny_with_call));
    assert_map(PF_FN_TINY, tiny_with_call_map, 2);
    assert_int_equal(plugin_cfg.complete_calls, 1);

    /* Nine items on the stack: the header becomes fat, with the computed max stack. */
    plugin_cfg.target = "Deep", plugin_cfg.action = DEEP;
    jit(&w, PF_FN_DEEP);
    static const uint8_t deep_body[] = {
        0x13, 0x30, 0x09, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* header */
        0x16, 0x16, 0x16, 0x16, 0x16, 0x16, 0x16, 0x16, 0x16,                   /* ldc.i4.0 */
        0x26, 0x26, 0x26, 0x26, 0x26, 0x26, 0x26, 0x26, 0x26,                   /* pop */
        0x17, 0x2A};
    assert_body(PF_TOKEN_DEEP, deep_body, sizeof(deep_body));
    static const COR_IL_MAP deep_map[] = {{0, 0, TRUE}, {1, 19, TRUE}};
    assert_map(PF_FN_DEEP, deep_map, 2);
    assert_int_equal(pf_set_body_count(), 2);
    assert_no_error_logged(mark);
    detach(&w);
}

/* An edit that leaves every instruction in its place (here a branch retargeted) needs no IL
 * map, and the runtime is not given one (each map it holds makes the next call slower); the
 * plugins still read the identity map through IMethodJitInfo. */
static void an_edit_in_place_gives_the_runtime_no_map(void **state)
{
    struct world w;
    plugin_cfg.target = "Multi", plugin_cfg.action = IN_PLACE;
    attach(&w);
    size_t mark = log_size();
    jit(&w, PF_FN_MULTI);
    uint8_t retargeted[64];
    assert_true(pf_multi_body_size <= sizeof(retargeted));
    memcpy(retargeted, pf_multi_body, pf_multi_body_size);
    retargeted[12 + 2] = 0x08; /* brfalse.s IL_000B */
    assert_body(PF_TOKEN_MULTI, retargeted, pf_multi_body_size);
    assert_int_equal(pf_map_count(), 0);
    assert_int_equal(w.cb->lpVtbl->JITCompilationFinished(w.cb, PF_FN_MULTI, S_OK, TRUE), S_OK);
    assert_true(plugin_cfg.transformed);
    assert_int_equal(plugin_cfg.map_count, 11);

    /* New code gets the map, even when each entry keeps its offset: the nop before the ret
     * counts as the ret's (IL_0001), and the ret moves to IL_0002. */
    plugin_cfg.target = "Small", plugin_cfg.action = NOP;
    jit(&w, PF_FN_SMALL);
    static const COR_IL_MAP small_map[] = {{0, 0, TRUE}, {1, 1, TRUE}};
    assert_map(PF_FN_SMALL, small_map, 2);
    assert_no_error_logged(mark);
    detach(&w);
}

static void a_baseline_replaces_the_code_and_maps_its_sequence_points(void **state)
{
    struct world w;
    plugin_cfg.target = "Tiny", plugin_cfg.action = BASELINE;
    attach(&w);
    jit(&w, PF_FN_TINY);
    assert_int_equal(plugin_cfg.baseline_before, S_OK);
    assert_true(FAILED(plugin_cfg.baseline_late)); /* only from BeforeInstrumentMethod */
    /* ldc.i4.s 99; call Helper; add; ret */
    static const uint8_t expected[] = {0x26, 0x1F, 0x63, 0x28, 0x01, 0x00, 0x00, 0x0A, 0x58, 0x2A};
    assert_body(PF_TOKEN_TINY, expected, sizeof(expected));
    /* only the baseline's sequence points are mapped */
    static const COR_IL_MAP map[] = {{0, 0, TRUE}};
    assert_map(PF_FN_TINY, map, 1);
    detach(&w);
}

static void a_method_info_kept_past_its_jit_stays_usable(void **state)
{
    struct world w;
    plugin_cfg.target = "Tiny", plugin_cfg.action = KEEP;
    attach(&w);
    jit(&w, PF_FN_TINY);
    assert_body(PF_TOKEN_TINY, tiny_with_call, sizeof(tiny_with_call));
    assert_non_null(plugin_cfg.kept);
    char name[64];
    pipeline_plugin_full_name(plugin_cfg.kept, name, sizeof(name));
    assert_string_equal(name, "Fake.Program.Tiny");
    IInstruction *first = NULL;
    assert_int_equal(
        plugin_cfg.kept_graph->lpVtbl->GetFirstInstruction(plugin_cfg.kept_graph, &first), S_OK);
    release(first);
    /* a ReJIT makes a method info of its own */
    struct pf_control control;
    pf_control_init(&control);
    plugin_cfg.action = INSERT_CALL;
    assert_int_equal(
        w.cb->lpVtbl->GetReJITParameters(w.cb, PF_MODULE, PF_TOKEN_TINY, &control.iface), S_OK);
    assert_int_equal(control.body_len, sizeof(tiny_with_call));
    pf_control_finish(&control);
    detach(&w);
}

static void a_plugin_chosen_local_signature_is_named_by_the_body(void **state)
{
    struct world w;
    plugin_cfg.target = "Tiny", plugin_cfg.action = SIG_TOKEN;
    attach(&w);
    jit(&w, PF_FN_TINY);
    static const uint8_t expected[] = {0x13, 0x30, 0x01, 0x00, 0x02, 0x00, 0x00,
                                       0x00, 0x01, 0x00, 0x00, 0x11, 0x17, 0x2A};
    assert_body(PF_TOKEN_TINY, expected, sizeof(expected));
    assert_int_equal(pf_token_from_sig_calls(), 0);
    detach(&w);
}

static void a_new_local_gets_a_signature_token_and_a_fat_header(void **state)
{
    struct world w;
    plugin_cfg.target = "Tiny", plugin_cfg.action = ADD_LOCAL;
    attach(&w);
    jit(&w, PF_FN_TINY);
    assert_int_equal(pf_token_from_sig_calls(), 1);
    uint8_t sig[16];
    static const uint8_t one_int32[] = {0x07, 0x01, 0x08};
    assert_int_equal(pf_last_token_sig(sig, sizeof(sig)), sizeof(one_int32));
    assert_memory_equal(sig, one_int32, sizeof(one_int32));
    /* fat | InitLocals, max stack 1, 4 bytes of code, the new token; ldc.i4.5; stloc.0 first */
    static const uint8_t expected[] = {0x13, 0x30, 0x01, 0x00, 0x04, 0x00, 0x00, 0x00,
                                       0x10, 0x00, 0x00, 0x11, 0x1B, 0x0A, 0x17, 0x2A};
    assert_body(PF_TOKEN_TINY, expected, sizeof(expected));
    detach(&w);
}

struct problems {
    int count;
    char first[256];
};

static void count_problem(void *ctx, uint32_t offset, const char *message)
{
    struct problems *p = ctx;
    if (p->count++ == 0)
        snprintf(p->first, sizeof(p->first), "IL_%04X: %s", (unsigned)offset, message);
}

/* Gap 6 and 7: a kept graph refuses edits, surplus Releases touch nothing else. */
static void kept_il_objects_refuse_edits_and_surplus_releases_are_ignored(void **state)
{
    struct world w;
    plugin_cfg.target = "Tiny", plugin_cfg.action = KEEP;
    attach(&w);
    jit(&w, PF_FN_TINY);
    IInstructionGraph *g = plugin_cfg.kept_graph;
    size_t mark = log_size();
    IInstruction *first = NULL;
    assert_int_equal(g->lpVtbl->GetFirstInstruction(g, &first), S_OK); /* reading is fine */
    assert_int_equal(g->lpVtbl->RemoveAll(g), E_UNEXPECTED);
    assert_logged(mark, "Fake.Program.Tiny: IInstructionGraph::RemoveAll called after the "
                        "method's instrumentation was over (E_UNEXPECTED)");
    assert_int_equal(g->lpVtbl->InsertBefore(g, first, first), E_UNEXPECTED);
    assert_int_equal(plugin_cfg.kept->lpVtbl->SetLocalVarSigToken(plugin_cfg.kept, 0),
                     E_UNEXPECTED);
    assert_logged(mark, "IMethodInfo::SetLocalVarSigToken called after");
    IInstructionFactory *factory = NULL;
    assert_int_equal(plugin_cfg.kept->lpVtbl->GetInstructionFactory(plugin_cfg.kept, &factory),
                     S_OK);
    IInstruction *nop = NULL;
    assert_int_equal(factory->lpVtbl->CreateInstruction(factory, Cee_Nop, &nop), E_UNEXPECTED);
    assert_null(nop);
    assert_logged(mark, "IInstructionFactory::CreateInstruction called after");
    ILocalVariableCollection *locals = NULL;
    assert_int_equal(plugin_cfg.kept->lpVtbl->GetLocalVariables(plugin_cfg.kept, &locals), S_OK);
    assert_int_equal(locals->lpVtbl->ReplaceSignature(locals, (const BYTE *)"\x07\x00", 2),
                     E_UNEXPECTED);
    assert_logged(mark, "ILocalVariableCollection::ReplaceSignature called after");
    /* One Release too many of each: logged, and the method info lives on. */
    release(first);
    release(first);
    assert_logged(mark, "surplus Release of IInstruction ignored");
    release(locals);
    release(locals);
    assert_logged(mark, "surplus Release of ILocalVariableCollection ignored");
    release(factory);
    release(factory);
    assert_logged(mark, "surplus Release of IInstructionFactory ignored");
    char name[64];
    pipeline_plugin_full_name(plugin_cfg.kept, name, sizeof(name));
    assert_string_equal(name, "Fake.Program.Tiny");
    assert_int_equal(g->lpVtbl->GetFirstInstruction(g, &first), S_OK);
    release(first);
    detach(&w); /* every other reference still balances */
}

static void a_failing_should_instrument_method_is_logged_and_taken_as_no(void **state)
{
    struct world w;
    plugin_cfg.target = "Tiny", plugin_cfg.action = SHOULD_FAIL;
    attach(&w);
    size_t mark = log_size();
    jit(&w, PF_FN_TINY);
    assert_int_equal(pf_set_body_count(), 0);
    assert_int_equal(plugin_cfg.instrument_calls, 0);
    assert_logged(mark, "plugin 'Pipeline test' " PIPELINE_PLUGIN_CLSID_TEXT
                        ": ShouldInstrumentMethod failed for Fake.Program.Tiny (hr 0x80070005); "
                        "taken as no");
    detach(&w);
}

static void a_body_the_jit_rejects_is_logged_with_the_plugins_that_changed_it(void **state)
{
    struct world w;
    plugin_cfg.target = "Tiny", plugin_cfg.action = INSERT_CALL;
    attach(&w);
    jit(&w, PF_FN_TINY);
    size_t mark = log_size();
    /* A method the engine left alone: nothing to say, whatever the JIT did. */
    assert_int_equal(w.cb->lpVtbl->JITCompilationFinished(w.cb, PF_FN_DEEP, E_FAIL, TRUE), S_OK);
    assert_no_error_logged(mark);
    assert_int_equal(
        w.cb->lpVtbl->JITCompilationFinished(w.cb, PF_FN_TINY, (HRESULT)0x8013151Au, TRUE), S_OK);
    assert_logged(mark,
                  "Fake.Program.Tiny: the runtime's JIT rejected the instrumented body (hr "
                  "0x8013151A); changed by plugin 'Pipeline test' " PIPELINE_PLUGIN_CLSID_TEXT);
    /* Reported once: the record goes with the event. */
    mark = log_size();
    assert_int_equal(w.cb->lpVtbl->JITCompilationFinished(w.cb, PF_FN_TINY, E_FAIL, TRUE), S_OK);
    assert_no_error_logged(mark);
    /* Accepted: no line. */
    jit(&w, PF_FN_TINY);
    assert_int_equal(w.cb->lpVtbl->JITCompilationFinished(w.cb, PF_FN_TINY, S_OK, TRUE), S_OK);
    assert_no_error_logged(mark);
    detach(&w);
}

static void single_ret_and_a_finally_wrap_verify(void **state)
{
    struct world w;
    plugin_cfg.target = "Multi", plugin_cfg.action = WRAP;
    attach(&w);
    size_t mark = log_size();
    jit(&w, PF_FN_MULTI);
    assert_no_error_logged(mark);
    struct pf_body body;
    assert_true(pf_set_body(PF_TOKEN_MULTI, &body));

    struct clrie_il_graph *g = NULL;
    struct clrie_il_diag diag = {0};
    assert_int_equal(clrie_il_graph_decode(body.bytes, body.len, &g, &diag), 0);
    struct problems problems = {0};
    int rc = clrie_il_graph_verify(g, pf_stack_effect, (void *)(uintptr_t)PF_TOKEN_MULTI,
                                   count_problem, &problems);
    if (rc != 0 || problems.count)
        fail_msg("the wrapped method does not verify: %s", problems.first);
    assert_int_equal(clrie_il_graph_clause_count(g), 2);
    int rets = 0;
    for (struct clrie_il_instr *n = clrie_il_graph_first(g); n; n = clrie_il_instr_next(n))
        rets += clrie_il_instr_opcode(n) == CLRIE_IL_OP_RET;
    assert_int_equal(rets, 1);
    struct clrie_il_header header;
    clrie_il_graph_header(g, &header);
    assert_true(header.fat);
    assert_true(header.flags & CLRIE_IL_HEADER_INIT_LOCALS);
    /* the return value got a local of its own, after Multi's int32 */
    assert_int_equal(pf_token_from_sig_calls(), 1);
    assert_int_equal(header.local_sig_token, PF_FIRST_NEW_SIG);
    uint8_t sig[16];
    static const uint8_t two_int32[] = {0x07, 0x02, 0x08, 0x08};
    assert_int_equal(pf_last_token_sig(sig, sizeof(sig)), sizeof(two_int32));
    assert_memory_equal(sig, two_int32, sizeof(two_int32));
    clrie_il_graph_free(g);
    detach(&w);
}

static void failing_or_invalid_instrumentation_is_not_applied(void **state)
{
    struct world w;
    plugin_cfg.target = "Tiny", plugin_cfg.action = FAIL;
    attach(&w);
    size_t mark = log_size();
    jit(&w, PF_FN_TINY);
    assert_int_equal(pf_set_body_count(), 0);
    assert_logged(mark, "InstrumentMethod failed for Fake.Program.Tiny");
    assert_int_equal(plugin_cfg.complete_calls, 0);

    plugin_cfg.action = INVALID;
    mark = log_size();
    jit(&w, PF_FN_TINY);
    assert_int_equal(pf_set_body_count(), 0);
    assert_int_equal(pf_map_count(), 0);
    assert_logged(mark, "Fake.Program.Tiny: instrumented IL is invalid at IL_0000");
    /* CLRIE would have given the runtime this IL, then called OnInstrumentationComplete. */
    assert_int_equal(plugin_cfg.complete_calls, 1);

    /* the last instruction cannot go: Remove fails, and so does the plugin */
    plugin_cfg.action = EMPTY;
    mark = log_size();
    jit(&w, PF_FN_TINY);
    assert_int_equal(pf_set_body_count(), 0);
    assert_logged(mark, "IInstructionGraph::Remove: the method cannot lose its only instruction");
    assert_logged(mark, "InstrumentMethod failed for Fake.Program.Tiny");

    plugin_cfg.action = FALL_OFF;
    mark = log_size();
    jit(&w, PF_FN_TINY);
    assert_int_equal(pf_set_body_count(), 0);
    assert_logged(mark, "Fake.Program.Tiny: instrumented IL is invalid at IL_0001: execution "
                        "falls off the end");
    detach(&w);
}

static void a_body_the_runtime_refuses_is_logged_and_not_reported_as_applied(void **state)
{
    struct world w;
    plugin_cfg.target = "Tiny", plugin_cfg.action = INSERT_CALL;
    attach(&w);
    pf_refuse_bodies();
    size_t mark = log_size();
    jit(&w, PF_FN_TINY);
    assert_int_equal(pf_set_body_count(), 0);
    assert_int_equal(pf_map_count(), 0);
    assert_logged(mark, "Fake.Program.Tiny: the runtime refused the instrumented body");
    assert_int_equal(w.cb->lpVtbl->JITCompilationFinished(w.cb, PF_FN_TINY, S_OK, TRUE), S_OK);
    assert_true(plugin_cfg.jit_complete_seen);
    assert_false(plugin_cfg.transformed);
    detach(&w);
}

static void plugins_instrument_in_priority_order_and_fail_together(void **state)
{
    struct world w;
    test_env_set(CLRIE_CONFIG_ENV_PREFIX "PipelineSecond", second_config_path);
    plugin_cfg.target = "Tiny", plugin_cfg.action = INSERT_CALL;
    plugin_cfg.second_wants = true, plugin_cfg.second_action = NOP;
    attach_with(&w, 2);
    test_env_set(CLRIE_CONFIG_ENV_PREFIX "PipelineSecond", NULL);
    jit(&w, PF_FN_TINY);
    /* priority 10 before 50: the nop goes in first, the call after it */
    assert_string_equal(plugin_cfg.order, "second first ");
    static const uint8_t both[] = {0x26, 0x17, 0x00, 0x28, 0x01, 0x00, 0x00, 0x0A, 0x58, 0x2A};
    assert_body(PF_TOKEN_TINY, both, sizeof(both));
    assert_int_equal(plugin_cfg.complete_calls, 2);

    /* the later plugin fails after the first edited: the method runs as it was */
    plugin_cfg.action = FAIL;
    size_t mark = log_size();
    jit(&w, PF_FN_TINY);
    assert_int_equal(pf_set_body_count(), 1);
    assert_logged(mark, "plugin 'Pipeline test' " PIPELINE_PLUGIN_CLSID_TEXT
                        ": InstrumentMethod failed for Fake.Program.Tiny");
    detach(&w);
}

static void methods_nobody_instruments_are_left_alone(void **state)
{
    struct world w;
    plugin_cfg.target = NULL;
    attach(&w);
    size_t mark = log_size();
    jit(&w, PF_FN_TINY);
    assert_int_equal(plugin_cfg.should_calls, 1);
    assert_int_equal(plugin_cfg.instrument_calls, 0);
    assert_int_equal(plugin_cfg.complete_calls, 0); /* nobody wanted it: CLRIE says nothing */

    /* said yes, changed nothing: no new body, but OnInstrumentationComplete as under CLRIE */
    plugin_cfg.target = "Tiny", plugin_cfg.action = DO_NOTHING;
    jit(&w, PF_FN_TINY);
    assert_int_equal(plugin_cfg.instrument_calls, 1);
    assert_int_equal(plugin_cfg.complete_calls, 1);

    /* no IL, a dynamic module, a module the engine never saw, a function the runtime denies */
    plugin_cfg.should_calls = 0;
    plugin_cfg.target = "Abstract", plugin_cfg.action = INSERT_CALL;
    jit(&w, PF_FN_ABSTRACT);
    plugin_cfg.target = "Tiny";
    jit(&w, PF_FN_DYNAMIC);
    jit(&w, PF_FN_UNKNOWN);
    jit(&w, 0xDEAD);
    assert_int_equal(plugin_cfg.should_calls, 0);
    assert_int_equal(pf_set_body_count(), 0);
    assert_int_equal(pf_map_count(), 0);
    assert_no_error_logged(mark);
    detach(&w);
}

/* CLRIE calls OnInstrumentationComplete on every plugin once one plugin wanted a method, the
 * ones that said no included, whether or not the method changed. */
static void every_plugin_hears_of_a_method_one_of_them_wanted(void **state)
{
    struct world w;
    test_env_set(CLRIE_CONFIG_ENV_PREFIX "PipelineSecond", second_config_path);
    plugin_cfg.target = "Tiny", plugin_cfg.action = DO_NOTHING;
    attach_with(&w, 2);
    test_env_set(CLRIE_CONFIG_ENV_PREFIX "PipelineSecond", NULL);
    jit(&w, PF_FN_TINY);
    assert_int_equal(plugin_cfg.instrument_calls, 1);
    assert_int_equal(plugin_cfg.complete_calls, 2);
    assert_int_equal(pf_set_body_count(), 0);
    /* A method neither wants: no call at all. */
    jit(&w, PF_FN_DEEP);
    assert_int_equal(plugin_cfg.complete_calls, 2);
    detach(&w);
}

static void rejit_starts_from_the_original_il_every_time(void **state)
{
    struct world w;
    plugin_cfg.target = "Tiny", plugin_cfg.action = INSERT_CALL;
    plugin_cfg.codegen_flags = 0x40; /* COR_PRF_CODEGEN_DISABLE_INLINING */
    attach(&w);
    jit(&w, PF_FN_TINY);
    assert_body(PF_TOKEN_TINY, tiny_with_call, sizeof(tiny_with_call));

    for (DWORD round = 1; round <= 2; round++) {
        struct pf_control control;
        pf_control_init(&control);
        assert_int_equal(
            w.cb->lpVtbl->GetReJITParameters(w.cb, PF_MODULE, PF_TOKEN_TINY, &control.iface), S_OK);
        assert_true(plugin_cfg.last_rejit);
        assert_int_equal(plugin_cfg.last_rejit_count, round);
        /* the runtime now answers the instrumented body; the engine still starts from the
         * original, so the call is there once */
        assert_int_equal(control.body_len, sizeof(tiny_with_call));
        assert_memory_equal(control.body, tiny_with_call, sizeof(tiny_with_call));
        assert_int_equal(control.map_count, 3);
        assert_int_equal(control.map[0].oldOffset, 0);
        assert_int_equal(control.map[0].newOffset, 0);
        assert_int_equal(control.map[1].oldOffset, 1);
        assert_int_equal(control.map[1].newOffset, 1);
        assert_int_equal(control.map[2].oldOffset, 0xFEEFEE);
        assert_int_equal(control.map[2].newOffset, round);
        assert_int_equal(control.codegen_flags, 0x40);
        assert_int_equal(control.refs, 1);
        pf_control_finish(&control);
    }
    assert_int_equal(pf_set_body_count(), 1); /* the ReJITs went through the control only */
    assert_int_equal(w.cb->lpVtbl->ReJITCompilationFinished(w.cb, PF_FN_TINY, 2, S_OK, TRUE), S_OK);
    assert_int_equal(plugin_cfg.jit_info_hr, S_OK);
    assert_true(plugin_cfg.jit_rejit);
    assert_int_equal(plugin_cfg.native_code, PF_CODE_START(PF_FN_TINY) + 0x200);
    assert_true(plugin_cfg.transformed);
    assert_int_equal(plugin_cfg.map_count, 2);

    /* a ReJIT nobody instruments runs the original IL: not transformed, no map */
    plugin_cfg.target = NULL;
    struct pf_control plain;
    pf_control_init(&plain);
    assert_int_equal(w.cb->lpVtbl->GetReJITParameters(w.cb, PF_MODULE, PF_TOKEN_TINY, &plain.iface),
                     S_OK);
    assert_null(plain.body);
    pf_control_finish(&plain);
    assert_int_equal(w.cb->lpVtbl->ReJITCompilationFinished(w.cb, PF_FN_TINY, 3, S_OK, TRUE), S_OK);
    assert_int_equal(plugin_cfg.jit_info_hr, S_OK);
    assert_false(plugin_cfg.transformed);
    assert_int_equal(plugin_cfg.map_count, 0);

    /* a module the engine does not know: logged, nothing set, the runtime carries on */
    struct pf_control control;
    pf_control_init(&control);
    size_t mark = log_size();
    assert_int_equal(
        w.cb->lpVtbl->GetReJITParameters(w.cb, PF_UNKNOWN_MODULE, PF_TOKEN_TINY, &control.iface),
        S_OK);
    assert_null(control.body);
    assert_int_equal(control.map_count, 0);
    assert_logged(mark, "ReJIT of method 0x06000001 in module 0x1200: the engine does not know "
                        "that module");
    pf_control_finish(&control);
    detach(&w);
}

static void request_rejit_includes_recorded_inline_callers(void **state)
{
    struct world w;
    attach(&w);
    BOOL inline_it = FALSE; /* runtimes before .NET 5 leave it uninitialised */
    assert_int_equal(w.cb->lpVtbl->JITInlining(w.cb, PF_FN_TINY, PF_FN_SMALL, &inline_it), S_OK);
    assert_true(inline_it);
    assert_int_equal(plugin_cfg.module->lpVtbl->RequestRejit(plugin_cfg.module, PF_TOKEN_SMALL),
                     S_OK);
    assert_int_equal(pf_rejit_requests(), 1);
    ModuleID modules[4];
    mdMethodDef tokens[4];
    bool with_inliners = false;
    assert_int_equal(pf_last_rejit(modules, tokens, 4, &with_inliners), 2);
    assert_true(with_inliners);
    assert_int_equal(modules[0], PF_MODULE);
    assert_int_equal(tokens[0], PF_TOKEN_SMALL);
    assert_int_equal(modules[1], PF_MODULE);
    assert_int_equal(tokens[1], PF_TOKEN_TINY);
    /* inlined both ways: each is the other's caller, and each is named once */
    assert_int_equal(w.cb->lpVtbl->JITInlining(w.cb, PF_FN_SMALL, PF_FN_TINY, &inline_it), S_OK);
    assert_true(inline_it);
    assert_int_equal(plugin_cfg.module->lpVtbl->RequestRejit(plugin_cfg.module, PF_TOKEN_TINY),
                     S_OK);
    assert_int_equal(pf_last_rejit(modules, tokens, 4, &with_inliners), 2);
    assert_int_equal(tokens[0], PF_TOKEN_TINY);
    assert_int_equal(tokens[1], PF_TOKEN_SMALL);
    /* code the engine cannot describe is inlined as the JIT likes, and not recorded */
    inline_it = FALSE;
    assert_int_equal(w.cb->lpVtbl->JITInlining(w.cb, PF_FN_TINY, PF_FN_DYNAMIC, &inline_it), S_OK);
    assert_true(inline_it);
    inline_it = FALSE;
    assert_int_equal(w.cb->lpVtbl->JITInlining(w.cb, PF_FN_UNKNOWN, PF_FN_SMALL, &inline_it), S_OK);
    assert_true(inline_it);
    assert_int_equal(pf_rejit_requests(), 2);
    /* not a method definition */
    assert_int_not_equal(plugin_cfg.module->lpVtbl->RequestRejit(plugin_cfg.module, PF_MEMBER_REF),
                         S_OK);
    assert_int_equal(pf_rejit_requests(), 2);
    detach(&w);
}

static void a_denied_inline_site_is_refused_and_not_recorded(void **state)
{
    struct world w;
    plugin_cfg.deny_inline = "Small";
    attach(&w);
    BOOL inline_it = TRUE;
    assert_int_equal(w.cb->lpVtbl->JITInlining(w.cb, PF_FN_TINY, PF_FN_SMALL, &inline_it), S_OK);
    assert_false(inline_it);
    inline_it = FALSE;
    assert_int_equal(w.cb->lpVtbl->JITInlining(w.cb, PF_FN_SMALL, PF_FN_TINY, &inline_it), S_OK);
    assert_true(inline_it);
    assert_int_equal(w.cb->lpVtbl->JITInlining(w.cb, PF_FN_TINY, PF_FN_SMALL, NULL), E_POINTER);

    assert_int_equal(plugin_cfg.module->lpVtbl->RequestRejit(plugin_cfg.module, PF_TOKEN_SMALL),
                     S_OK);
    ModuleID modules[4];
    mdMethodDef tokens[4];
    bool with_inliners;
    assert_int_equal(pf_last_rejit(modules, tokens, 4, &with_inliners), 1);
    assert_int_equal(tokens[0], PF_TOKEN_SMALL);
    detach(&w);
}

static void jit_complete2_reports_the_instrumentation(void **state)
{
    struct world w;
    plugin_cfg.target = "Tiny", plugin_cfg.action = INSERT_CALL;
    attach(&w);
    jit(&w, PF_FN_TINY);
    assert_int_equal(w.cb->lpVtbl->JITCompilationFinished(w.cb, PF_FN_TINY, S_OK, TRUE), S_OK);
    assert_true(plugin_cfg.jit_complete_seen);
    assert_int_equal(plugin_cfg.jit_info_hr, S_OK);
    assert_true(plugin_cfg.transformed);
    assert_int_equal(plugin_cfg.jit_hr, S_OK);
    assert_int_equal(plugin_cfg.jit_token, PF_TOKEN_TINY);
    assert_false(plugin_cfg.jit_rejit);
    assert_int_equal(plugin_cfg.native_code, PF_CODE_START(PF_FN_TINY));
    assert_int_equal(plugin_cfg.native_map_count, 1);
    assert_int_equal(plugin_cfg.map_count, 2);
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(plugin_cfg.map[i].oldOffset, tiny_with_call_map[i].oldOffset);
        assert_int_equal(plugin_cfg.map[i].newOffset, tiny_with_call_map[i].newOffset);
    }

    /* a method nobody changed */
    plugin_cfg.jit_complete_seen = false;
    jit(&w, PF_FN_SMALL);
    assert_int_equal(
        w.cb->lpVtbl->JITCompilationFinished(w.cb, PF_FN_SMALL, CLRIE_HRESULT(0x80004005u), TRUE),
        S_OK);
    assert_true(plugin_cfg.jit_complete_seen);
    assert_false(plugin_cfg.transformed);
    assert_int_equal(plugin_cfg.map_count, 0);
    assert_int_equal(plugin_cfg.jit_hr, CLRIE_HRESULT(0x80004005u));
    detach(&w);
}

static void exception_events_name_the_method(void **state)
{
    struct world w;
    plugin_cfg.exceptions = true;
    attach(&w);
    assert_true(pf_event_mask() & COR_PRF_MONITOR_EXCEPTIONS);
    ICorProfilerCallback11 *cb = w.cb;
    assert_int_equal(cb->lpVtbl->ExceptionThrown(cb, 0x1234), S_OK);
    assert_int_equal(cb->lpVtbl->ExceptionSearchFunctionEnter(cb, PF_FN_MULTI), S_OK);
    assert_int_equal(cb->lpVtbl->ExceptionSearchFunctionLeave(cb), S_OK);
    assert_int_equal(cb->lpVtbl->ExceptionUnwindFunctionEnter(cb, PF_FN_UNKNOWN), S_OK);
    assert_int_equal(cb->lpVtbl->ExceptionCatcherEnter(cb, PF_FN_TINY, 0x1234), S_OK);
    assert_int_equal(cb->lpVtbl->ExceptionCatcherLeave(cb), S_OK);
    assert_int_equal(plugin_cfg.exception_count, 2);
    assert_string_equal(plugin_cfg.exception_names[0], "Fake.Program+Inner.Multi");
    assert_string_equal(plugin_cfg.exception_names[1], "Fake.Program.Tiny");
    /* an event's method info describes the method; it has no IL to edit */
    assert_int_equal(plugin_cfg.info_only_il, E_UNEXPECTED);
    detach(&w);
}

struct racer {
    struct clrie_os_barrier *barrier;
    ICorProfilerCallback11 *cb;
    FunctionID function;
    mdMethodDef token;
    struct pf_control control; /* its ReJIT */
};

static void race(void *arg)
{
    struct racer *r = arg;
    clrie_os_barrier_wait(r->barrier);
    r->cb->lpVtbl->JITCompilationStarted(r->cb, r->function, TRUE);
    r->cb->lpVtbl->JITCompilationFinished(r->cb, r->function, S_OK, TRUE);
    r->cb->lpVtbl->GetReJITParameters(r->cb, PF_MODULE, r->token, &r->control.iface);
}

static void methods_jitted_and_rejitted_at_once_are_all_instrumented(void **state)
{
    struct world w;
    plugin_cfg.target = "Worker", plugin_cfg.prefix = true, plugin_cfg.action = NOP;
    attach(&w);
    size_t mark = log_size();
    struct clrie_os_barrier barrier;
    clrie_os_barrier_init(&barrier, PF_WORKERS);
    struct racer racers[PF_WORKERS];
    struct clrie_os_thread threads[PF_WORKERS];
    for (int i = 0; i < PF_WORKERS; i++) {
        racers[i] = (struct racer){.barrier = &barrier,
                                   .cb = w.cb,
                                   .function = PF_FN_WORKER + (FunctionID)i,
                                   .token = PF_TOKEN_WORKER + (mdMethodDef)i};
        pf_control_init(&racers[i].control);
        assert_int_equal(clrie_os_thread_start(&threads[i], race, &racers[i]), 0);
    }
    for (int i = 0; i < PF_WORKERS; i++)
        clrie_os_thread_join(&threads[i]);
    clrie_os_barrier_finish(&barrier);

    assert_int_equal(pf_set_body_count(), PF_WORKERS);
    for (int i = 0; i < PF_WORKERS; i++) {
        const uint8_t expected[] = {0x12, 0x1F, (uint8_t)i, 0x00, 0x2A}; /* ldc.i4.s i; nop; ret */
        assert_body(PF_TOKEN_WORKER + (mdMethodDef)i, expected, sizeof(expected));
        static const COR_IL_MAP map[] = {{0, 0, TRUE}, {2, 2, TRUE}};
        assert_map(PF_FN_WORKER + (FunctionID)i, map, 2);
        struct pf_control *c = &racers[i].control;
        assert_int_equal(c->body_len, sizeof(expected));
        assert_memory_equal(c->body, expected, sizeof(expected));
        assert_int_equal(c->map_count, 3);
        assert_int_equal(c->map[2].oldOffset, 0xFEEFEE);
        assert_int_equal(c->map[2].newOffset, 1);
        pf_control_finish(c);
    }
    assert_int_equal(plugin_cfg.complete_calls, 2 * PF_WORKERS);
    assert_true(plugin_cfg.jit_complete_seen);
    assert_int_equal(plugin_cfg.jit_info_hr, S_OK);
    assert_no_error_logged(mark);
    detach(&w);
}

static void jit_tiny(void *arg)
{
    ICorProfilerCallback11 *cb = arg;
    cb->lpVtbl->JITCompilationStarted(cb, PF_FN_TINY, TRUE);
}

/* The runtime never releases the engine, so Shutdown lets go of the plugins, as CLRIE does;
 * but the runtime may still call in on other threads, so a plugin another thread is inside
 * stays alive until that call returns, and calls after Shutdown reach no plugin. */
static void shutdown_releases_plugins_once_no_call_is_inside_one(void **state)
{
    struct world w;
    plugin_cfg.target = "Tiny", plugin_cfg.action = BLOCK;
    attach(&w);
    struct clrie_os_thread thread;
    assert_int_equal(clrie_os_thread_start(&thread, jit_tiny, w.cb), 0);
    clrie_os_mutex_lock(&plugin_cfg.lock);
    while (!plugin_cfg.inside)
        clrie_os_cond_wait(&plugin_cfg.changed, &plugin_cfg.lock);
    clrie_os_mutex_unlock(&plugin_cfg.lock);

    assert_int_equal(w.cb->lpVtbl->Shutdown(w.cb), S_OK);
    assert_int_equal(pipeline_plugins_live(), w.plugins_before + 1); /* still inside */
    jit(&w, PF_FN_SMALL); /* after Shutdown: no plugin sees it */
    assert_int_equal(plugin_cfg.should_calls, 1);

    clrie_os_mutex_lock(&plugin_cfg.lock);
    plugin_cfg.go = true;
    clrie_os_cond_broadcast(&plugin_cfg.changed);
    clrie_os_mutex_unlock(&plugin_cfg.lock);
    clrie_os_thread_join(&thread);
    assert_int_equal(pipeline_plugins_live(), w.plugins_before); /* released as it left */

    release(plugin_cfg.module);
    plugin_cfg.module = NULL;
    assert_int_equal(w.cb->lpVtbl->Release(w.cb), 0);
    assert_int_equal(pf_info_refs(), 1);
}

static void hostile_calls_fail_and_change_nothing(void **state)
{
    struct world w;
    plugin_cfg.prefix = false, plugin_cfg.action = HOSTILE;
    attach(&w);
    plugin_cfg.target = "Small";
    jit(&w, PF_FN_SMALL); /* keeps an instruction of Small */
    assert_non_null(plugin_cfg.foreign);
    plugin_cfg.target = "Tiny";
    jit(&w, PF_FN_TINY);
    assert_true(plugin_cfg.hostile_count >= 25);
    for (int i = 0; i < plugin_cfg.hostile_count; i++)
        if (SUCCEEDED(plugin_cfg.hostile[i]))
            fail_msg("hostile call %d succeeded (hr 0x%08X)", i, (unsigned)plugin_cfg.hostile[i]);
    assert_int_equal(pf_set_body_count(), 0);
    assert_int_equal(pf_map_count(), 0);
    assert_int_equal(pf_token_from_sig_calls(), 0);
    detach(&w);
}

/* ---- the operator's detach triggers ------------------------------------------------------ */

/* DetachFile is an absolute path of this system ("C:\\..." on Windows): the engine watches for
 * it (its watcher gives its reference back once the engine shut down); a relative path is
 * refused with an error. */
static void a_detach_file_is_an_absolute_path_of_this_system(void **state)
{
    struct world w;
    char *file = test_path(temp_dir, "detach-never");
    test_env_set("MicrosoftInstrumentationEngine_DetachFile", file);
    size_t mark = log_size();
    attach(&w);
    assert_no_error_logged(mark);
    assert_int_equal(w.cb->lpVtbl->Shutdown(w.cb), S_OK);
    for (int polls = 0; polls < 250; polls++) {
        w.cb->lpVtbl->AddRef(w.cb);
        if (w.cb->lpVtbl->Release(w.cb) == 1) /* the watcher's is back: ours alone is left */
            break;
        clrie_os_sleep_ms(20);
    }
    detach(&w);

    test_env_set("MicrosoftInstrumentationEngine_DetachFile", "relative/detach");
    mark = log_size();
    attach(&w);
    assert_logged(mark, "DetachFile='relative/detach': expected an absolute path");
    detach(&w);
    test_env_set("MicrosoftInstrumentationEngine_DetachFile", NULL);
    free(file);
}

/* ---- configuration: a plugin file naming the shim, a log file ------------------------------- */

static void write_config(const char *relative, const char *name, const char *clsid, int priority,
                         const char *module)
{
    char text[2048];
    int len = snprintf(text, sizeof(text),
                       "<InstrumentationEngineConfiguration>\n"
                       "  <InstrumentationMethod>\n"
                       "    <Name>%s</Name>\n"
                       "    <Description>edits methods for test_pipeline.c</Description>\n"
                       "    <Module>%s</Module>\n"
                       "    <ClassGuid>%s</ClassGuid>\n"
                       "    <Priority>%d</Priority>\n"
                       "  </InstrumentationMethod>\n"
                       "</InstrumentationEngineConfiguration>\n",
                       name, module, clsid, priority);
    if (len < 0 || (size_t)len >= sizeof(text)) {
        fprintf(stderr, "the plugin's path is too long: %s\n", module);
        exit(1);
    }
    test_tree_write(temp_dir, relative, text, (size_t)len);
}

/* ---- attaching to a running process ------------------------------------------------------ */

/* The runtime's own events for a module that finishes loading while the engine walks the list
 * of modules loaded before the attach (another thread, in a real runtime). */
static void load_during_walk(void *ctx)
{
    ICorProfilerCallback11 *cb = ctx;
    assert_int_equal(cb->lpVtbl->AppDomainCreationFinished(cb, PF_DOMAIN, S_OK), S_OK);
    assert_int_equal(cb->lpVtbl->AssemblyLoadFinished(cb, PF_ASSEMBLY, S_OK), S_OK);
    assert_int_equal(cb->lpVtbl->ModuleAttachedToAssembly(cb, PF_MODULE, PF_ASSEMBLY), S_OK);
}

static void a_module_loading_during_the_attach_walk_is_announced_once(void **state)
{
    struct world w;
    IClassFactory *factory = NULL;
    assert_int_equal(
        clrie_pm_get_class_object(&engine_clsid, &IID_IClassFactory, (void **)&factory), S_OK);
    assert_int_equal(
        factory->lpVtbl->CreateInstance(factory, NULL, &IID_ICorProfilerCallback11, (void **)&w.cb),
        S_OK);
    factory->lpVtbl->Release(factory);
    ICorProfilerCallback11 *cb = w.cb;
    w.plugins_before = pipeline_plugins_live();
    char data[1024];
    int len = snprintf(data, sizeof(data),
                       "<InstrumentationEngineConfiguration><InstrumentationMethods>"
                       "<AddInstrumentationMethod ConfigPath=\"%s\"/>"
                       "</InstrumentationMethods></InstrumentationEngineConfiguration>",
                       config_path);
    assert_int_equal(cb->lpVtbl->InitializeForAttach(cb, pf_info(), data, (UINT)len), S_OK);
    assert_int_equal(pipeline_plugins_live(), w.plugins_before + 1);

    pf_set_enum_modules_hook(load_during_walk, cb);
    assert_int_equal(cb->lpVtbl->ProfilerAttachComplete(cb), S_OK);
    pf_set_enum_modules_hook(NULL, NULL);

    assert_int_equal(plugin_cfg.attach_complete_calls, 1);
    assert_int_equal(plugin_cfg.module_loads, 1);
    assert_int_equal(plugin_cfg.assemblies_loaded, 1);
    assert_int_equal(plugin_cfg.domains_created, 1);

    /* Unloaded, the module's ID may come back for another module: that one is announced. */
    assert_int_equal(cb->lpVtbl->ModuleUnloadFinished(cb, PF_MODULE, S_OK), S_OK);
    release(plugin_cfg.module);
    plugin_cfg.module = NULL;
    assert_int_equal(cb->lpVtbl->ModuleAttachedToAssembly(cb, PF_MODULE, PF_ASSEMBLY), S_OK);
    assert_int_equal(plugin_cfg.module_loads, 2);
    detach(&w);
}

/* The shim, loaded before the engine loads it and pointed at this program's plugin by its
 * export pipeline_plugin_shim_forward_to. */
static struct clrie_os_module *shim;
typedef HRESULT (*get_class_object_fn)(REFCLSID clsid, REFIID iid, void **out);
typedef void (*forward_to_fn)(get_class_object_fn fn);

static void configure(void)
{
    const char *shim_path = getenv("CLRIE_PIPELINE_PLUGIN");
    if (!shim_path) {
        fprintf(stderr, "CLRIE_PIPELINE_PLUGIN names the plugin shim; run through meson test\n");
        exit(77);
    }
    /* The configuration names the shim by the path the system gives it, so that the engine's
     * load finds the module loaded here. */
    char *module = NULL, why[256] = "";
    forward_to_fn forward_to = NULL;
    if (clrie_os_path_canonical(shim_path, &module) != 0 ||
        clrie_os_module_load(module, &shim, why, sizeof(why)) != 0 ||
        !(forward_to =
              (forward_to_fn)clrie_os_module_function(shim, "pipeline_plugin_shim_forward_to"))) {
        fprintf(stderr, "cannot load the plugin shim %s: %s\n", shim_path, why);
        exit(1);
    }
    forward_to(pipeline_test_get_class_object);
    temp_dir = test_tree_new();
    config_path = test_path(temp_dir, "pipeline.xml");
    log_path = test_path(temp_dir, "engine.log");
    second_config_path = test_path(temp_dir, "second.xml");
    write_config("pipeline.xml", "Pipeline test", PIPELINE_PLUGIN_CLSID_TEXT, 50, module);
    write_config("second.xml", "Pipeline second", PIPELINE_SECOND_PLUGIN_CLSID_TEXT, 10, module);
    free(module);
    test_env_set(CLRIE_CONFIG_ENV_PREFIX "PipelineTest", config_path);
    test_env_set("MicrosoftInstrumentationEngine_FileLogPath", log_path);
    test_env_set("MicrosoftInstrumentationEngine_LogLevel", "Errors");
}

static void clean_up(void)
{
    free(config_path);
    free(second_config_path);
    free(log_path);
    test_tree_free(temp_dir);
    clrie_os_module_unload(shim);
}

int main(void)
{
    clrie_os_cond_init(&plugin_cfg.changed);
    configure();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(inserted_instructions_reach_the_runtime, setup),
        cmocka_unit_test_setup(an_edit_in_place_gives_the_runtime_no_map, setup),
        cmocka_unit_test_setup(a_baseline_replaces_the_code_and_maps_its_sequence_points, setup),
        cmocka_unit_test_setup(a_new_local_gets_a_signature_token_and_a_fat_header, setup),
        cmocka_unit_test_setup(a_plugin_chosen_local_signature_is_named_by_the_body, setup),
        cmocka_unit_test_setup(a_method_info_kept_past_its_jit_stays_usable, setup),
        cmocka_unit_test_setup(kept_il_objects_refuse_edits_and_surplus_releases_are_ignored,
                               setup),
        cmocka_unit_test_setup(a_failing_should_instrument_method_is_logged_and_taken_as_no, setup),
        cmocka_unit_test_setup(a_body_the_jit_rejects_is_logged_with_the_plugins_that_changed_it,
                               setup),
        cmocka_unit_test_setup(single_ret_and_a_finally_wrap_verify, setup),
        cmocka_unit_test_setup(failing_or_invalid_instrumentation_is_not_applied, setup),
        cmocka_unit_test_setup(a_body_the_runtime_refuses_is_logged_and_not_reported_as_applied,
                               setup),
        cmocka_unit_test_setup(plugins_instrument_in_priority_order_and_fail_together, setup),
        cmocka_unit_test_setup(methods_nobody_instruments_are_left_alone, setup),
        cmocka_unit_test_setup(every_plugin_hears_of_a_method_one_of_them_wanted, setup),
        cmocka_unit_test_setup(rejit_starts_from_the_original_il_every_time, setup),
        cmocka_unit_test_setup(request_rejit_includes_recorded_inline_callers, setup),
        cmocka_unit_test_setup(a_denied_inline_site_is_refused_and_not_recorded, setup),
        cmocka_unit_test_setup(jit_complete2_reports_the_instrumentation, setup),
        cmocka_unit_test_setup(exception_events_name_the_method, setup),
        cmocka_unit_test_setup(methods_jitted_and_rejitted_at_once_are_all_instrumented, setup),
        cmocka_unit_test_setup(hostile_calls_fail_and_change_nothing, setup),
        cmocka_unit_test_setup(shutdown_releases_plugins_once_no_call_is_inside_one, setup),
        cmocka_unit_test_setup(a_module_loading_during_the_attach_walk_is_announced_once, setup),
        cmocka_unit_test_setup(a_detach_file_is_an_absolute_path_of_this_system, setup),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    clean_up();
    return failed;
}
