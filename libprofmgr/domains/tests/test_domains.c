/* The data model (domains.h) driven by a fake runtime: a minimal ICorProfilerInfo3 that knows a
 * few domains, assemblies and modules (UTF-16 names, PE images in memory) and hands out small
 * fake metadata interfaces. Every fake counts its references, so each test also proves that the
 * engine releases everything it took. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clrie/os/thread.h"
#include "domains.h"
#include "fake_runtime.h"
#include "log.h"
#include "clrie/ilgraph.h"
#include "sha1.h"
#include "utf16.h"

/* ---- a plugin-side IUnknown for data items ---------------------------------------------- */

struct item {
    IUnknown iface;
    atomic_int refs;
};

static HRESULT STDMETHODCALLTYPE item_QueryInterface(IUnknown *This, REFIID riid, void **ppv)
{
    *ppv = NULL;
    return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE item_AddRef(IUnknown *This)
{
    return (ULONG)atomic_fetch_add(&((struct item *)(void *)This)->refs, 1) + 1;
}

static ULONG STDMETHODCALLTYPE item_Release(IUnknown *This)
{
    return (ULONG)atomic_fetch_sub(&((struct item *)(void *)This)->refs, 1) - 1;
}

static const struct IUnknownVtbl item_vtbl = {
    .QueryInterface = item_QueryInterface, .AddRef = item_AddRef, .Release = item_Release};

static struct item on_collection; /* set on the collection by one test, checked by teardown */

static struct item item_new(void)
{
    struct item it = {.iface = {&item_vtbl}};
    atomic_init(&it.refs, 1);
    return it;
}

/* ---- fixture ------------------------------------------------------------------------------ */

struct fixture {
    struct clrie_pm_log log;
    struct clrie_pm_domains *domains;
    atomic_int errors;
    uint8_t *mapped;
    uint8_t *flat;
};

static void count_errors(void *context, enum clrie_pm_log_kind kind, const char *line)
{
    struct fixture *f = context;
    if (kind == CLRIE_PM_LOG_ERRORS)
        atomic_fetch_add(&f->errors, 1);
}

static const GUID MVID_APP = {0x11111111, 0x2222, 0x3333, {1, 2, 3, 4, 5, 6, 7, 8}};
static const GUID MVID_LIB = {0xAAAAAAAA, 0xBBBB, 0xCCCC, {8, 7, 6, 5, 4, 3, 2, 1}};
static const GUID MVID_CORE = {0x0C0C0C0C, 0x0D0D, 0x0E0E, {0, 0, 0, 0, 0, 0, 0, 1}};

/* The ECMA "standard public key" and its well-known token b77a5c561934e089. */
static const BYTE ecma_key[16] = {0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0};

#define DOMAIN 0x1000u
#define ASM_APP 0x2000u
#define ASM_CORE 0x2100u
#define ASM_LIB 0x2200u
#define MOD_APP 0x3000u
#define MOD_CORE 0x3100u
#define MOD_LIB 0x3200u
#define MOD_RESOURCES 0x3300u

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    char *env[] = {"MicrosoftInstrumentationEngine_FileLogPath=/dev/null", NULL};
    assert_int_equal(clrie_pm_log_init(&f->log, env), 0);
    struct clrie_pm_log_host host = {
        .write = count_errors, .context = f, .kinds = CLRIE_PM_LOG_ERRORS};
    clrie_pm_log_set_host(&f->log, &host);
    fake_runtime_reset();
    f->mapped = fake_pe_image(false, true, 0x1 /* ILONLY */, ENTRY_TOKEN);
    f->flat = fake_pe_image(true, true, 0x1, 0);

    fake_add_domain((struct fake_domain){DOMAIN, "clrhost", false});
    fake_add_assembly((struct fake_assembly){ASM_APP, "App", DOMAIN, MOD_APP, NULL, 0, 0});
    fake_add_assembly((struct fake_assembly){ASM_CORE, "System.Private.CoreLib", DOMAIN, MOD_CORE,
                                             ecma_key, sizeof(ecma_key), 0x1 /* afPublicKey */});
    fake_add_assembly((struct fake_assembly){ASM_LIB, "Lib", DOMAIN, MOD_LIB, NULL, 0, 0});
    fake_add_module((struct fake_module){MOD_APP, "/app/App.dll", ASM_APP, f->mapped,
                                         COR_PRF_MODULE_DISK, MVID_APP, false, false});
    fake_add_module((struct fake_module){MOD_CORE, "/dotnet/System.Private.CoreLib.dll", ASM_CORE,
                                         f->mapped, COR_PRF_MODULE_DISK | COR_PRF_MODULE_NGEN,
                                         MVID_CORE, false, false});
    fake_add_module((struct fake_module){MOD_LIB, "/app/Lib.dll", ASM_LIB, f->flat,
                                         COR_PRF_MODULE_DISK | COR_PRF_MODULE_FLAT_LAYOUT, MVID_LIB,
                                         false, true});
    fake_add_module((struct fake_module){MOD_RESOURCES, "/app/fr/App.resources.dll", ASM_APP, NULL,
                                         COR_PRF_MODULE_RESOURCE, MVID_APP, true, false});

    assert_int_equal(clrie_pm_domains_new(&fake_info, &f->log, &f->domains), S_OK);
    assert_int_equal(fake_info_refs(), 2);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    clrie_pm_domains_free(f->domains);
    /* Everything the engine took from the runtime is given back. */
    assert_int_equal(fake_info_refs(), 1);
    assert_int_equal(fake_metadata_live(), 0);
    if (on_collection.iface.lpVtbl) {
        assert_int_equal(atomic_load(&on_collection.refs), 1);
        on_collection.iface.lpVtbl = NULL;
    }
    clrie_pm_log_set_host(&f->log, NULL);
    clrie_pm_log_finish(&f->log);
    free(f->mapped);
    free(f->flat);
    free(f);
    return 0;
}

/* ---- helpers -------------------------------------------------------------------------------- */

static char *utf8_of(BSTR bstr)
{
    char *out;
    size_t len;
    assert_int_equal(clrie_pm_utf16_to_utf8(bstr, clrie_pm_bstr_len(bstr), false, &out, &len), 0);
    clrie_pm_bstr_free(bstr);
    return out;
}

/* obj->Method(obj, &bstr) succeeds with the expected text. */
#define ASSERT_BSTR(obj, Method, expected)                                                         \
    do {                                                                                           \
        BSTR bstr_ = NULL;                                                                         \
        assert_int_equal((obj)->lpVtbl->Method((obj), &bstr_), S_OK);                              \
        char *text_ = utf8_of(bstr_);                                                              \
        assert_string_equal(text_, (expected));                                                    \
        free(text_);                                                                               \
    } while (0)

static BSTR bstr(const char *utf8)
{
    BSTR b = clrie_pm_bstr_from_utf8(utf8);
    assert_non_null(b);
    return b;
}

static ULONG refcount_of(IUnknown *unknown)
{
    unknown->lpVtbl->AddRef(unknown);
    return unknown->lpVtbl->Release(unknown);
}

static IModuleInfo *attach(struct fixture *f, ModuleID id, AssemblyID assembly)
{
    IModuleInfo *m = NULL;
    assert_int_equal(clrie_pm_domains_module_attached(f->domains, id, assembly, &m), S_OK);
    assert_non_null(m);
    return m;
}

static ModuleID module_id(IModuleInfo *m)
{
    ModuleID id = 0;
    assert_int_equal(m->lpVtbl->GetModuleID(m, &id), S_OK);
    return id;
}

/* ---- tests ------------------------------------------------------------------------------------
 */

static void a_module_attached_first_brings_its_assembly_and_domain(void **state)
{
    struct fixture *f = *state;
    IModuleInfo *m = attach(f, MOD_APP, ASM_APP);

    IAssemblyInfo *a = NULL;
    assert_int_equal(m->lpVtbl->GetAssemblyInfo(m, &a), S_OK);
    AssemblyID aid = 0;
    assert_int_equal(a->lpVtbl->GetID(a, &aid), S_OK);
    assert_int_equal(aid, ASM_APP);
    ASSERT_BSTR(a, GetName, "App");

    IAppDomainInfo *d = NULL;
    assert_int_equal(m->lpVtbl->GetAppDomainInfo(m, &d), S_OK);
    AppDomainID did = 0;
    assert_int_equal(d->lpVtbl->GetAppDomainId(d, &did), S_OK);
    assert_int_equal(did, DOMAIN);
    ASSERT_BSTR(d, GetName, "clrhost");
    BOOL b = TRUE;
    assert_int_equal(d->lpVtbl->GetIsSystemDomain(d, &b), S_OK);
    assert_false(b);
    assert_int_equal(d->lpVtbl->GetIsSharedDomain(d, &b), S_OK);
    assert_false(b);
    assert_int_equal(d->lpVtbl->GetIsDefaultDomain(d, &b), S_OK);
    assert_true(b);

    /* The later events find the same objects. */
    IAssemblyInfo *a2 = NULL;
    assert_int_equal(clrie_pm_domains_assembly_loaded(f->domains, ASM_APP, &a2), S_OK);
    assert_ptr_equal(a2, a);
    IAppDomainInfo *d2 = NULL;
    assert_int_equal(clrie_pm_domains_appdomain_created(f->domains, DOMAIN, &d2), S_OK);
    assert_ptr_equal(d2, d);
    IModuleInfo *m2 = attach(f, MOD_APP, ASM_APP);
    assert_ptr_equal(m2, m);

    IAppDomainInfo *d3 = NULL;
    assert_int_equal(a->lpVtbl->GetAppDomainInfo(a, &d3), S_OK);
    assert_ptr_equal(d3, d);

    d3->lpVtbl->Release(d3);
    m2->lpVtbl->Release(m2);
    d2->lpVtbl->Release(d2);
    a2->lpVtbl->Release(a2);
    d->lpVtbl->Release(d);
    a->lpVtbl->Release(a);
    m->lpVtbl->Release(m);
    assert_int_equal(atomic_load(&f->errors), 0);
}

static void a_domain_named_late_gets_its_name_at_creation(void **state)
{
    struct fixture *f = *state;
    fake_add_domain((struct fake_domain){0x1100, "second", true});
    fake_add_assembly((struct fake_assembly){0x2300, "Early", 0x1100, 0x3400, NULL, 0, 0});
    IAssemblyInfo *a = NULL;
    assert_int_equal(clrie_pm_domains_assembly_loaded(f->domains, 0x2300, &a), S_OK);
    IAppDomainInfo *d = NULL;
    assert_int_equal(a->lpVtbl->GetAppDomainInfo(a, &d), S_OK);
    ASSERT_BSTR(d, GetName, "");
    BOOL is_default = TRUE;
    assert_int_equal(d->lpVtbl->GetIsDefaultDomain(d, &is_default), S_OK);
    assert_false(is_default); /* nothing known yet */

    fake_set_domain_complete(0x1100);
    assert_int_equal(clrie_pm_domains_appdomain_created(f->domains, 0x1100, NULL), S_OK);
    ASSERT_BSTR(d, GetName, "second");
    /* Named like an app's domain, and the first such: the default one. */
    assert_int_equal(d->lpVtbl->GetIsDefaultDomain(d, &is_default), S_OK);
    assert_true(is_default);

    /* A later domain is not the default. */
    fake_add_domain((struct fake_domain){0x1200, "third", false});
    IAppDomainInfo *third = NULL;
    assert_int_equal(clrie_pm_domains_appdomain_created(f->domains, 0x1200, &third), S_OK);
    assert_int_equal(third->lpVtbl->GetIsDefaultDomain(third, &is_default), S_OK);
    assert_false(is_default);

    third->lpVtbl->Release(third);
    d->lpVtbl->Release(d);
    a->lpVtbl->Release(a);
}

/* What .NET 10 does (seen in a real process): CoreLib attaches first, in the system domain named
 * after it, and only then are the domains created, the app's named "DefaultDomain". */
static void domains_are_classified_by_name_as_coreclr_reports_them(void **state)
{
    struct fixture *f = *state;
    fake_add_domain((struct fake_domain){0x1400, "System.Private.CoreLib.dll", false});
    fake_add_domain((struct fake_domain){0x1500, "DefaultDomain", false});
    fake_add_domain((struct fake_domain){0x1600, "EE Shared Assembly Repository", false});
    fake_add_assembly((struct fake_assembly){0x2900, "System.Private.CoreLib", 0x1400, 0x3900,
                                             ecma_key, sizeof(ecma_key), 0x1});
    fake_add_module((struct fake_module){0x3900, "/dotnet/System.Private.CoreLib.dll", 0x2900,
                                         f->mapped, COR_PRF_MODULE_DISK, MVID_CORE, false, false});
    IModuleInfo *core = attach(f, 0x3900, 0x2900);
    IAppDomainInfo *system = NULL, *app = NULL, *shared = NULL;
    assert_int_equal(core->lpVtbl->GetAppDomainInfo(core, &system), S_OK);
    assert_int_equal(clrie_pm_domains_appdomain_created(f->domains, 0x1400, NULL), S_OK);
    assert_int_equal(clrie_pm_domains_appdomain_created(f->domains, 0x1500, &app), S_OK);
    assert_int_equal(clrie_pm_domains_appdomain_created(f->domains, 0x1600, &shared), S_OK);

    BOOL b;
    assert_int_equal(system->lpVtbl->GetIsSystemDomain(system, &b), S_OK);
    assert_true(b);
    assert_int_equal(system->lpVtbl->GetIsDefaultDomain(system, &b), S_OK);
    assert_false(b);
    assert_int_equal(app->lpVtbl->GetIsDefaultDomain(app, &b), S_OK);
    assert_true(b);
    assert_int_equal(app->lpVtbl->GetIsSystemDomain(app, &b), S_OK);
    assert_false(b);
    assert_int_equal(shared->lpVtbl->GetIsSharedDomain(shared, &b), S_OK);
    assert_true(b);
    assert_int_equal(shared->lpVtbl->GetIsDefaultDomain(shared, &b), S_OK);
    assert_false(b);
    assert_int_equal(app->lpVtbl->GetIsSharedDomain(app, NULL), E_POINTER);

    shared->lpVtbl->Release(shared);
    app->lpVtbl->Release(app);
    system->lpVtbl->Release(system);
    core->lpVtbl->Release(core);
}

static void a_resource_only_module_gets_no_object(void **state)
{
    struct fixture *f = *state;
    IModuleInfo *m = (IModuleInfo *)(uintptr_t)1;
    assert_int_equal(clrie_pm_domains_module_attached(f->domains, MOD_RESOURCES, ASM_APP, &m),
                     S_FALSE);
    assert_null(m);
    assert_int_equal(clrie_pm_domains_find_module(f->domains, MOD_RESOURCES, &m), E_FAIL);
    assert_null(m);
}

static void the_runtime_failing_is_reported(void **state)
{
    struct fixture *f = *state;
    IModuleInfo *m = NULL;
    assert_true(FAILED(clrie_pm_domains_module_attached(f->domains, 0xDEAD, 0, &m)));
    assert_null(m);
    assert_true(atomic_load(&f->errors) >= 1);
    IAssemblyInfo *a = NULL;
    assert_true(FAILED(clrie_pm_domains_assembly_loaded(f->domains, 0xBEEF, &a)));
    assert_null(a);
    assert_true(atomic_load(&f->errors) >= 2);
}

static void module_names_paths_and_mvid(void **state)
{
    struct fixture *f = *state;
    IModuleInfo *m = attach(f, MOD_CORE, 0);
    ASSERT_BSTR(m, GetModuleName, "System.Private.CoreLib.dll");
    ASSERT_BSTR(m, GetFullPath, "/dotnet/System.Private.CoreLib.dll");
    GUID mvid;
    assert_int_equal(m->lpVtbl->GetMVID(m, &mvid), S_OK);
    assert_memory_equal(&mvid, &MVID_CORE, sizeof(GUID));
    assert_int_equal(module_id(m), MOD_CORE);
    assert_int_equal(m->lpVtbl->GetModuleName(m, NULL), E_POINTER);
    assert_int_equal(m->lpVtbl->GetMVID(m, NULL), E_POINTER);
    m->lpVtbl->Release(m);
}

static void module_flags_come_from_the_runtime_and_the_image(void **state)
{
    struct fixture *f = *state;
    IModuleInfo *core = attach(f, MOD_CORE, ASM_CORE);
    IModuleInfo *app = attach(f, MOD_APP, ASM_APP);
    IModuleInfo3 *lib = (IModuleInfo3 *)(void *)attach(f, MOD_LIB, ASM_LIB);
    BOOL b;

    /* As CLRIE: only a module named mscorlib.dll is mscorlib, not CoreCLR's core library. */
    assert_int_equal(core->lpVtbl->GetIsMscorlib(core, &b), S_OK);
    assert_false(b);
    assert_int_equal(app->lpVtbl->GetIsMscorlib(app, &b), S_OK);
    assert_false(b);
    fake_add_assembly((struct fake_assembly){0x2800, "mscorlib", DOMAIN, 0x3800, ecma_key,
                                             sizeof(ecma_key), 0x1});
    fake_add_module((struct fake_module){0x3800, "/dotnet/mscorlib.dll", 0x2800, f->mapped,
                                         COR_PRF_MODULE_DISK, MVID_LIB, false, false});
    IModuleInfo *facade = attach(f, 0x3800, 0x2800);
    assert_int_equal(facade->lpVtbl->GetIsMscorlib(facade, &b), S_OK);
    assert_true(b);
    facade->lpVtbl->Release(facade);
    assert_int_equal(core->lpVtbl->GetIsNgen(core, &b), S_OK);
    assert_true(b);
    assert_int_equal(app->lpVtbl->GetIsNgen(app, &b), S_OK);
    assert_false(b);
    assert_int_equal(app->lpVtbl->GetIsDynamic(app, &b), S_OK);
    assert_false(b);
    assert_int_equal(app->lpVtbl->GetIsWinRT(app, &b), S_OK);
    assert_false(b);
    assert_int_equal(app->lpVtbl->GetIsILOnly(app, &b), S_OK);
    assert_true(b);
    assert_int_equal(app->lpVtbl->GetIs64bit(app, &b), S_OK);
    assert_true(b);
    assert_int_equal(lib->lpVtbl->GetIsFlatLayout(lib, &b), S_OK);
    assert_true(b);
    assert_int_equal(lib->lpVtbl->GetIsLoadedFromDisk(lib, &b), S_OK);
    assert_true(b);
    IModuleInfo3 *app3 = (IModuleInfo3 *)(void *)app;
    assert_int_equal(app3->lpVtbl->GetIsFlatLayout(app3, &b), S_OK);
    assert_false(b);
    assert_int_equal(app->lpVtbl->GetIsILOnly(app, NULL), E_POINTER);

    LPCBYTE base = NULL;
    assert_int_equal(app->lpVtbl->GetImageBase(app, &base), S_OK);
    assert_ptr_equal(base, f->mapped);

    lib->lpVtbl->Release(lib);
    app->lpVtbl->Release(app);
    core->lpVtbl->Release(core);
}

static void the_cor_header_is_read_from_mapped_and_flat_images(void **state)
{
    struct fixture *f = *state;
    IModuleInfo3 *app = (IModuleInfo3 *)(void *)attach(f, MOD_APP, ASM_APP);
    IModuleInfo3 *lib = (IModuleInfo3 *)(void *)attach(f, MOD_LIB, ASM_LIB);

    BYTE header[72];
    assert_int_equal(app->lpVtbl->GetCorHeader(app, sizeof(header), header), S_OK);
    assert_memory_equal(header, f->mapped + COR_RVA, sizeof(header));
    assert_int_equal(lib->lpVtbl->GetCorHeader(lib, sizeof(header), header), S_OK);
    assert_memory_equal(header, f->flat + TEXT_RAW + 8, sizeof(header));

    DWORD token = 0;
    assert_int_equal(app->lpVtbl->GetEntrypointToken(app, &token), S_OK);
    assert_int_equal(token, ENTRY_TOKEN);
    assert_int_equal(lib->lpVtbl->GetEntrypointToken(lib, &token), E_FAIL);

    LPCBYTE at = NULL;
    assert_int_equal(app->lpVtbl->ResolveRva(app, COR_RVA, &at), S_OK);
    assert_ptr_equal(at, f->mapped + COR_RVA);
    assert_int_equal(lib->lpVtbl->ResolveRva(lib, COR_RVA, &at), S_OK);
    assert_ptr_equal(at, f->flat + TEXT_RAW + 8);
    assert_int_equal(lib->lpVtbl->ResolveRva(lib, 0x40, &at), S_OK); /* in the headers */
    assert_ptr_equal(at, f->flat + 0x40);
    assert_int_equal(app->lpVtbl->ResolveRva(app, IMAGE_SIZE + 5, &at), E_INVALIDARG);
    assert_null(at);

    BYTE version[52];
    assert_int_equal(app->lpVtbl->GetModuleVersion(app, sizeof(version), version), E_NOTIMPL);

    lib->lpVtbl->Release(lib);
    app->lpVtbl->Release(app);
}

static void a_dynamic_module_has_no_image(void **state)
{
    struct fixture *f = *state;
    fake_add_assembly((struct fake_assembly){0x2400, "Dyn", DOMAIN, 0x3500, NULL, 0, 0});
    fake_add_module((struct fake_module){0x3500, "", 0x2400, NULL, COR_PRF_MODULE_DYNAMIC, MVID_LIB,
                                         false, false});
    IModuleInfo3 *m = (IModuleInfo3 *)(void *)attach(f, 0x3500, 0x2400);
    BOOL b = FALSE;
    assert_int_equal(m->lpVtbl->GetIsDynamic(m, &b), S_OK);
    assert_true(b);
    assert_int_equal(m->lpVtbl->GetIsILOnly(m, &b), S_OK);
    assert_false(b);
    BYTE header[72];
    assert_int_equal(m->lpVtbl->GetCorHeader(m, sizeof(header), header), E_FAIL);
    LPCBYTE at = (LPCBYTE)1;
    assert_int_equal(m->lpVtbl->ResolveRva(m, 0x2000, &at), E_NOTIMPL);
    assert_null(at);
    ASSERT_BSTR(m, GetModuleName, "");
    m->lpVtbl->Release(m);
    assert_int_equal(atomic_load(&f->errors), 0);
}

static void a_malformed_image_is_logged_not_read(void **state)
{
    struct fixture *f = *state;
    uint8_t *bad = fake_pe_image(false, true, 1, ENTRY_TOKEN);
    fake_put32(bad + 0x3C, 0x7FFFFFF0); /* e_lfanew far outside the image */
    fake_add_assembly((struct fake_assembly){0x2500, "Bad", DOMAIN, 0x3600, NULL, 0, 0});
    fake_add_module((struct fake_module){0x3600, "/app/Bad.dll", 0x2500, bad, COR_PRF_MODULE_DISK,
                                         MVID_LIB, false, false});
    IModuleInfo *m = attach(f, 0x3600, 0x2500);
    assert_int_equal(atomic_load(&f->errors), 1);
    BYTE header[72];
    assert_int_equal(m->lpVtbl->GetCorHeader(m, sizeof(header), header), E_FAIL);
    m->lpVtbl->Release(m);
    free(bad);
}

static void pe_images_are_bounds_checked(void **state)
{
    struct clrie_il_diag where;
    struct clrie_il_pe_image image;
    uint8_t *pe32 = fake_pe_image(false, false, 1, ENTRY_TOKEN);
    assert_int_equal(clrie_il_pe_image_init(&image, pe32, 0, false, &where), 0);
    assert_false(image.pe32_plus);
    assert_true(image.has_cli_header);
    assert_int_equal(image.entry_point_token, ENTRY_TOKEN);
    clrie_il_pe_image_finish(&image);

    fake_put16(pe32 + 0x80 + 6, 200); /* 200 sections cannot fit in SizeOfHeaders */
    assert_int_equal(clrie_il_pe_image_init(&image, pe32, 0, false, &where), -EILSEQ);
    assert_non_null(strstr(where.message, "section table"));
    fake_put16(pe32 + 0x80 + 6, 1);
    fake_put32(pe32 + 0x80 + 24 + 96 + 14 * 8, IMAGE_SIZE - 8); /* CLI header runs off the end */
    assert_int_equal(clrie_il_pe_image_init(&image, pe32, 0, false, &where), -EILSEQ);
    fake_put16(pe32, 0x1234);
    assert_int_equal(clrie_il_pe_image_init(&image, pe32, 0, false, &where), -EILSEQ);
    free(pe32);

    /* A native entry point is an RVA, not a token. */
    uint8_t *native = fake_pe_image(false, true, 0x1 | 0x10, 0x2345);
    assert_int_equal(clrie_il_pe_image_init(&image, native, 0, false, &where), 0);
    assert_int_equal(image.entry_point_token, 0);
    clrie_il_pe_image_finish(&image);
    free(native);
}

static void metadata_interfaces_are_cached_and_addrefed(void **state)
{
    struct fixture *f = *state;
    IModuleInfo *app = attach(f, MOD_APP, ASM_APP);
    int requests = fake_metadata_requests();
    assert_int_equal(requests, 4); /* import, assembly import, emit, assembly emit */

    IUnknown *import = NULL, *again = NULL, *emit = NULL, *aimport = NULL, *aemit = NULL;
    assert_int_equal(app->lpVtbl->GetMetaDataImport(app, &import), S_OK);
    assert_int_equal(app->lpVtbl->GetMetaDataImport(app, &again), S_OK);
    assert_ptr_equal(import, again);
    assert_ptr_equal(import->lpVtbl, fake_metadata_vtbl(&IID_IMetaDataImport2));
    assert_int_equal(refcount_of(import), 3); /* the module's and ours */
    assert_int_equal(app->lpVtbl->GetMetaDataAssemblyImport(app, &aimport), S_OK);
    assert_ptr_equal(aimport->lpVtbl, fake_metadata_vtbl(&IID_IMetaDataAssemblyImport));
    assert_int_equal(app->lpVtbl->GetMetaDataEmit(app, &emit), S_OK);
    assert_ptr_equal(emit->lpVtbl, fake_metadata_vtbl(&IID_IMetaDataEmit2));
    assert_int_equal(app->lpVtbl->GetMetaDataAssemblyEmit(app, &aemit), S_OK);
    assert_ptr_equal(aemit->lpVtbl, fake_metadata_vtbl(&IID_IMetaDataAssemblyEmit));
    assert_int_equal(fake_metadata_requests(), requests); /* no new requests */
    assert_int_equal(app->lpVtbl->GetMetaDataImport(app, NULL), E_POINTER);

    /* A module whose emitters the runtime refused still works; asking for them fails. */
    IModuleInfo *lib = attach(f, MOD_LIB, ASM_LIB);
    IUnknown *none = (IUnknown *)(uintptr_t)1;
    assert_int_equal(lib->lpVtbl->GetMetaDataEmit(lib, &none), E_FAIL);
    assert_null(none);

    /* The metadata outlives the module's unload while a plugin holds it. */
    IModuleInfo *gone = NULL;
    assert_int_equal(clrie_pm_domains_module_unloaded(f->domains, MOD_APP, &gone), S_OK);
    gone->lpVtbl->Release(gone);
    app->lpVtbl->Release(app);
    assert_int_equal(refcount_of(import), 2);
    import->lpVtbl->Release(import);
    again->lpVtbl->Release(again);
    aimport->lpVtbl->Release(aimport);
    emit->lpVtbl->Release(emit);
    aemit->lpVtbl->Release(aemit);
    lib->lpVtbl->Release(lib);
}

/* CreateTypeFactory: a new creator each call, over the module's own metadata import. */
static void a_module_hands_out_type_factories(void **state)
{
    struct fixture *f = *state;
    IModuleInfo *app = attach(f, MOD_APP, ASM_APP);
    IUnknown *import = NULL;
    assert_int_equal(app->lpVtbl->GetMetaDataImport(app, &import), S_OK);
    ULONG import_refs = refcount_of(import);

    ITypeCreator *creator = NULL, *other = NULL;
    assert_int_equal(app->lpVtbl->CreateTypeFactory(app, &creator), S_OK);
    assert_int_equal(app->lpVtbl->CreateTypeFactory(app, &other), S_OK);
    assert_ptr_not_equal(creator, other);
    assert_int_equal(refcount_of(import), import_refs + 2); /* each creator holds the import */
    other->lpVtbl->Release(other);

    IType *type = NULL;
    assert_int_equal(
        creator->lpVtbl->FromToken(creator, ELEMENT_TYPE_CLASS, FAKE_TYPE_TOKEN, &type), S_OK);
    ITokenType *token = NULL;
    assert_int_equal(type->lpVtbl->QueryInterface(type, &IID_ITokenType, (void **)&token), S_OK);
    IModuleInfo *owner = NULL;
    assert_int_equal(token->lpVtbl->GetOwningModule(token, &owner), S_OK);
    assert_ptr_equal(owner, app);
    owner->lpVtbl->Release(owner);
    token->lpVtbl->Release(token);
    type->lpVtbl->Release(type);
    assert_int_equal(creator->lpVtbl->Release(creator), 0);
    assert_int_equal(refcount_of(import), import_refs);
    assert_int_equal(app->lpVtbl->CreateTypeFactory(app, NULL), E_POINTER);

    import->lpVtbl->Release(import);
    app->lpVtbl->Release(app);
}

static void assembly_identity_comes_from_the_manifest(void **state)
{
    struct fixture *f = *state;
    IModuleInfo *core = attach(f, MOD_CORE, ASM_CORE);
    IAssemblyInfo *a = NULL;
    assert_int_equal(core->lpVtbl->GetAssemblyInfo(core, &a), S_OK);

    ULONG size = 0;
    assert_int_equal(a->lpVtbl->GetPublicKeySize(a, &size), S_OK);
    assert_int_equal(size, sizeof(ecma_key));
    BYTE key[16] = {0};
    assert_int_equal(a->lpVtbl->GetPublicKey(a, sizeof(key), key), S_OK);
    assert_memory_equal(key, ecma_key, sizeof(key));
    assert_true(FAILED(a->lpVtbl->GetPublicKey(a, 4, key)));
    ASSERT_BSTR(a, GetPublicKeyToken, "B77A5C561934E089");
    DWORD token = 0;
    assert_int_equal(a->lpVtbl->GetMetaDataToken(a, &token), S_OK);
    assert_int_equal(token, 0x20000001);

    IModuleInfo *manifest = NULL;
    assert_int_equal(a->lpVtbl->GetManifestModule(a, &manifest), S_OK);
    assert_ptr_equal(manifest, core);
    manifest->lpVtbl->Release(manifest);
    assert_int_equal(a->lpVtbl->GetModuleForMethod(a, 0x06000010, &manifest), S_OK);
    assert_ptr_equal(manifest, core);
    manifest->lpVtbl->Release(manifest);

    BSTR type = bstr("Fake.Type");
    mdToken td = 0;
    assert_int_equal(a->lpVtbl->GetModuleForType(a, type, mdTokenNil, &td), S_OK);
    assert_int_equal(td, FAKE_TYPE_TOKEN);
    clrie_pm_bstr_free(type);
    type = bstr("No.Such.Type");
    assert_true(FAILED(a->lpVtbl->GetModuleForType(a, type, mdTokenNil, &td)));
    assert_int_equal(td, mdTokenNil);
    clrie_pm_bstr_free(type);

    /* An assembly without a key: size 0, no token. */
    IModuleInfo *app = attach(f, MOD_APP, ASM_APP);
    IAssemblyInfo *plain = NULL;
    assert_int_equal(app->lpVtbl->GetAssemblyInfo(app, &plain), S_OK);
    assert_int_equal(plain->lpVtbl->GetPublicKeySize(plain, &size), S_OK);
    assert_int_equal(size, 0);
    BSTR none = NULL;
    assert_int_equal(plain->lpVtbl->GetPublicKeyToken(plain, &none), E_FAIL);
    assert_null(none);

    plain->lpVtbl->Release(plain);
    app->lpVtbl->Release(app);
    a->lpVtbl->Release(a);
    core->lpVtbl->Release(core);
}

static void an_assembly_before_its_manifest_knows_no_identity(void **state)
{
    struct fixture *f = *state;
    IAssemblyInfo *a = NULL;
    assert_int_equal(clrie_pm_domains_assembly_loaded(f->domains, ASM_CORE, &a), S_OK);
    DWORD token = 0;
    assert_int_equal(a->lpVtbl->GetMetaDataToken(a, &token), E_FAIL);
    IModuleInfo *none = NULL;
    assert_int_equal(a->lpVtbl->GetManifestModule(a, &none), E_FAIL);
    assert_null(none);
    ULONG count = 1;
    assert_int_equal(a->lpVtbl->GetModuleCount(a, &count), S_OK);
    assert_int_equal(count, 0);

    IModuleInfo *core = attach(f, MOD_CORE, ASM_CORE);
    assert_int_equal(a->lpVtbl->GetMetaDataToken(a, &token), S_OK);
    assert_int_equal(a->lpVtbl->GetModuleCount(a, &count), S_OK);
    assert_int_equal(count, 1);
    core->lpVtbl->Release(core);
    a->lpVtbl->Release(a);
}

static void public_key_tokens_follow_the_strong_name_rule(void **state)
{
    /* SHA-1 itself, FIPS 180 test vectors. */
    static const uint8_t abc[20] = {0xa9, 0x99, 0x3e, 0x36, 0x47, 0x06, 0x81, 0x6a, 0xba, 0x3e,
                                    0x25, 0x71, 0x78, 0x50, 0xc2, 0x6c, 0x9c, 0xd0, 0xd8, 0x9d};
    static const uint8_t two_blocks[20] = {0x84, 0x98, 0x3e, 0x44, 0x1c, 0x3b, 0xd2,
                                           0x6e, 0xba, 0xae, 0x4a, 0xa1, 0xf9, 0x51,
                                           0x29, 0xe5, 0xe5, 0x46, 0x70, 0xf1};
    uint8_t digest[20];
    clrie_pm_sha1("abc", 3, digest);
    assert_memory_equal(digest, abc, 20);
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    clrie_pm_sha1(m, strlen(m), digest);
    assert_memory_equal(digest, two_blocks, 20);

    /* A blob that is already a token (no afPublicKey flag, 8 bytes) is printed as it is. */
    struct fixture *f = *state;
    static const BYTE token[8] = {0xcc, 0x7b, 0x13, 0xff, 0xcd, 0x2d, 0xdd, 0x51};
    fake_add_assembly((struct fake_assembly){0x2600, "Tok", DOMAIN, 0x3700, token, 8, 0});
    fake_add_module(
        (struct fake_module){0x3700, "/app/Tok.dll", 0x2600, f->mapped, 0, MVID_LIB, false, false});
    IModuleInfo *mod = attach(f, 0x3700, 0x2600);
    IAssemblyInfo *a = NULL;
    assert_int_equal(mod->lpVtbl->GetAssemblyInfo(mod, &a), S_OK);
    ASSERT_BSTR(a, GetPublicKeyToken, "CC7B13FFCD2DDD51");
    a->lpVtbl->Release(a);
    mod->lpVtbl->Release(mod);
}

static void query_interface_follows_com_rules(void **state)
{
    struct fixture *f = *state;
    IModuleInfo *m = attach(f, MOD_APP, ASM_APP);
    void *p1 = NULL, *p2 = NULL, *p3 = NULL, *unk = NULL, *dc = NULL, *none = (void *)1;
    assert_int_equal(m->lpVtbl->QueryInterface(m, &IID_IModuleInfo, &p1), S_OK);
    assert_int_equal(m->lpVtbl->QueryInterface(m, &IID_IModuleInfo2, &p2), S_OK);
    assert_int_equal(m->lpVtbl->QueryInterface(m, &IID_IModuleInfo3, &p3), S_OK);
    assert_int_equal(m->lpVtbl->QueryInterface(m, &IID_IUnknown, &unk), S_OK);
    assert_ptr_equal(p1, m);
    assert_ptr_equal(p2, m);
    assert_ptr_equal(p3, m);
    assert_ptr_equal(unk, m);
    assert_int_equal(m->lpVtbl->QueryInterface(m, &IID_IDataContainer, &dc), S_OK);
    assert_ptr_not_equal(dc, m);
    /* QueryInterface through the container comes back to the object. */
    IDataContainer *container = dc;
    void *back = NULL;
    assert_int_equal(container->lpVtbl->QueryInterface(container, &IID_IModuleInfo3, &back), S_OK);
    assert_ptr_equal(back, m);
    assert_int_equal(m->lpVtbl->QueryInterface(m, &IID_IAssemblyInfo, &none), E_NOINTERFACE);
    assert_null(none);
    assert_int_equal(m->lpVtbl->QueryInterface(m, &IID_IModuleInfo, NULL), E_POINTER);
    ((IUnknown *)back)->lpVtbl->Release(back);
    container->lpVtbl->Release(container);
    ((IUnknown *)unk)->lpVtbl->Release(unk);
    ((IUnknown *)p3)->lpVtbl->Release(p3);
    ((IUnknown *)p2)->lpVtbl->Release(p2);
    ((IUnknown *)p1)->lpVtbl->Release(p1);

    IAssemblyInfo *a = NULL;
    IAppDomainInfo *d = NULL;
    assert_int_equal(m->lpVtbl->GetAssemblyInfo(m, &a), S_OK);
    assert_int_equal(m->lpVtbl->GetAppDomainInfo(m, &d), S_OK);
    none = (void *)1;
    assert_int_equal(a->lpVtbl->QueryInterface(a, &IID_IModuleInfo, &none), E_NOINTERFACE);
    assert_null(none);
    assert_int_equal(a->lpVtbl->QueryInterface(a, &IID_IDataContainer, &dc), S_OK);
    ((IUnknown *)dc)->lpVtbl->Release(dc);
    assert_int_equal(d->lpVtbl->QueryInterface(d, &IID_IAppDomainInfo, &unk), S_OK);
    assert_ptr_equal(unk, d);
    ((IUnknown *)unk)->lpVtbl->Release(unk);
    assert_int_equal(d->lpVtbl->QueryInterface(d, &IID_IAssemblyInfo, &none), E_NOINTERFACE);

    IAppDomainCollection *c = clrie_pm_domains_collection(f->domains);
    assert_int_equal(c->lpVtbl->QueryInterface(c, &IID_IAppDomainCollection, &unk), S_OK);
    assert_ptr_equal(unk, c);
    ((IUnknown *)unk)->lpVtbl->Release(unk);
    assert_int_equal(c->lpVtbl->QueryInterface(c, &IID_IModuleInfo, &none), E_NOINTERFACE);

    IEnumModuleInfo *e = NULL;
    assert_int_equal(d->lpVtbl->GetModules(d, &e), S_OK);
    assert_int_equal(e->lpVtbl->QueryInterface(e, &IID_IEnumModuleInfo, &unk), S_OK);
    assert_ptr_equal(unk, e);
    ((IUnknown *)unk)->lpVtbl->Release(unk);
    assert_int_equal(e->lpVtbl->QueryInterface(e, &IID_IEnumAssemblyInfo, &none), E_NOINTERFACE);
    e->lpVtbl->Release(e);

    d->lpVtbl->Release(d);
    a->lpVtbl->Release(a);
    m->lpVtbl->Release(m);
}

static void data_items_are_kept_replaced_and_released(void **state)
{
    struct fixture *f = *state;
    IModuleInfo *m = attach(f, MOD_APP, ASM_APP);
    IDataContainer *dc = NULL;
    assert_int_equal(m->lpVtbl->QueryInterface(m, &IID_IDataContainer, (void **)&dc), S_OK);
    static const GUID component = {1, 2, 3, {4}};
    static const GUID object = {5, 6, 7, {8}};
    static const GUID other = {9, 9, 9, {9}};
    struct item first = item_new(), second = item_new(), kept = item_new();
    on_collection = item_new(); /* outlives this function: the collection dies in teardown */

    IUnknown *got = (IUnknown *)(uintptr_t)1;
    assert_int_equal(dc->lpVtbl->GetDataItem(dc, &component, &object, &got), E_FAIL);
    assert_null(got);
    assert_int_equal(dc->lpVtbl->SetDataItem(dc, &component, &object, &first.iface), S_OK);
    assert_int_equal(atomic_load(&first.refs), 2);
    assert_int_equal(dc->lpVtbl->GetDataItem(dc, &component, &object, &got), S_OK);
    assert_ptr_equal(got, &first.iface);
    assert_int_equal(atomic_load(&first.refs), 3);
    got->lpVtbl->Release(got);

    /* Replacing releases the old item. */
    assert_int_equal(dc->lpVtbl->SetDataItem(dc, &component, &object, &second.iface), S_OK);
    assert_int_equal(atomic_load(&first.refs), 1);
    assert_int_equal(atomic_load(&second.refs), 2);
    assert_int_equal(dc->lpVtbl->GetDataItem(dc, &component, &other, &got), E_FAIL);

    /* NULL removes. */
    assert_int_equal(dc->lpVtbl->SetDataItem(dc, &component, &object, NULL), S_OK);
    assert_int_equal(atomic_load(&second.refs), 1);
    assert_int_equal(dc->lpVtbl->GetDataItem(dc, &component, &object, &got), E_FAIL);
    assert_int_equal(dc->lpVtbl->SetDataItem(dc, NULL, &object, NULL), E_POINTER);
    assert_int_equal(dc->lpVtbl->GetDataItem(dc, &component, &object, NULL), E_POINTER);

    /* Items still set when the object dies are released with it. */
    assert_int_equal(dc->lpVtbl->SetDataItem(dc, &other, &object, &kept.iface), S_OK);
    assert_int_equal(atomic_load(&kept.refs), 2);
    dc->lpVtbl->Release(dc);
    IModuleInfo *gone = NULL;
    assert_int_equal(clrie_pm_domains_module_unloaded(f->domains, MOD_APP, &gone), S_OK);
    gone->lpVtbl->Release(gone);
    assert_int_equal(atomic_load(&kept.refs), 2); /* m still holds the module */
    m->lpVtbl->Release(m);
    assert_int_equal(atomic_load(&kept.refs), 1);

    /* Domains, assemblies and the collection have containers too. */
    IAppDomainCollection *c = clrie_pm_domains_collection(f->domains);
    assert_int_equal(c->lpVtbl->QueryInterface(c, &IID_IDataContainer, (void **)&dc), S_OK);
    assert_int_equal(dc->lpVtbl->SetDataItem(dc, &component, &object, &on_collection.iface), S_OK);
    assert_int_equal(atomic_load(&on_collection.refs), 2);
    dc->lpVtbl->Release(dc);
    /* ... and released when the collection goes: checked in teardown. */
}

static void lookups_by_id_name_and_mvid(void **state)
{
    struct fixture *f = *state;
    IModuleInfo *app = attach(f, MOD_APP, ASM_APP);
    IModuleInfo *lib = attach(f, MOD_LIB, ASM_LIB);
    IModuleInfo *core = attach(f, MOD_CORE, ASM_CORE);
    IAppDomainCollection *c = clrie_pm_domains_collection(f->domains);

    IModuleInfo *m = NULL;
    assert_int_equal(c->lpVtbl->GetModuleInfoById(c, MOD_LIB, &m), S_OK);
    assert_ptr_equal(m, lib);
    m->lpVtbl->Release(m);
    assert_int_equal(c->lpVtbl->GetModuleInfoById(c, 0x9999, &m), E_FAIL);
    assert_null(m);
    assert_int_equal(clrie_pm_domains_find_module(f->domains, MOD_CORE, &m), S_OK);
    assert_ptr_equal(m, core);
    m->lpVtbl->Release(m);

    IAssemblyInfo *a = NULL;
    assert_int_equal(c->lpVtbl->GetAssemblyInfoById(c, ASM_LIB, &a), S_OK);
    assert_int_equal(a->lpVtbl->GetModuleById(a, MOD_LIB, &m), S_OK);
    assert_ptr_equal(m, lib);
    m->lpVtbl->Release(m);
    assert_int_equal(a->lpVtbl->GetModuleById(a, MOD_APP, &m), E_FAIL); /* another assembly's */
    GUID mvid = MVID_LIB;
    assert_int_equal(a->lpVtbl->GetModuleByMvid(a, &mvid, &m), S_OK);
    assert_ptr_equal(m, lib);
    m->lpVtbl->Release(m);
    mvid = MVID_APP;
    assert_int_equal(a->lpVtbl->GetModuleByMvid(a, &mvid, &m), E_FAIL);

    BSTR name = bstr("Lib.dll");
    IEnumModuleInfo *e = NULL;
    DWORD count = 0;
    assert_int_equal(a->lpVtbl->GetModulesByName(a, name, &e), S_OK);
    assert_int_equal(e->lpVtbl->GetCount(e, &count), S_OK);
    assert_int_equal(count, 1);
    e->lpVtbl->Release(e);
    a->lpVtbl->Release(a);

    IAppDomainInfo *d = NULL;
    assert_int_equal(c->lpVtbl->GetAppDomainById(c, DOMAIN, &d), S_OK);
    assert_int_equal(d->lpVtbl->GetModuleInfosByName(d, name, &e), S_OK);
    assert_int_equal(e->lpVtbl->GetCount(e, &count), S_OK);
    assert_int_equal(count, 1);
    e->lpVtbl->Release(e);
    clrie_pm_bstr_free(name);
    name = bstr("Nope.dll");
    assert_int_equal(d->lpVtbl->GetModuleInfosByName(d, name, &e), S_OK);
    assert_int_equal(e->lpVtbl->GetCount(e, &count), S_OK);
    assert_int_equal(count, 0);
    e->lpVtbl->Release(e);
    clrie_pm_bstr_free(name);

    name = bstr("System.Private.CoreLib");
    IEnumAssemblyInfo *ea = NULL;
    assert_int_equal(d->lpVtbl->GetAssemblyInfosByName(d, name, &ea), S_OK);
    assert_int_equal(ea->lpVtbl->GetCount(ea, &count), S_OK);
    assert_int_equal(count, 1);
    ea->lpVtbl->Release(ea);
    clrie_pm_bstr_free(name);

    assert_int_equal(d->lpVtbl->GetModuleInfosByMvid(d, MVID_CORE, &e), S_OK);
    IModuleInfo *one = NULL;
    ULONG fetched = 0;
    assert_int_equal(e->lpVtbl->Next(e, 1, &one, &fetched), S_OK);
    assert_ptr_equal(one, core);
    one->lpVtbl->Release(one);
    e->lpVtbl->Release(e);
    assert_int_equal(c->lpVtbl->GetModuleInfosByMvid(c, MVID_APP, &e), S_OK);
    assert_int_equal(e->lpVtbl->GetCount(e, &count), S_OK);
    assert_int_equal(count, 1);
    e->lpVtbl->Release(e);

    ULONG modules = 0;
    assert_int_equal(d->lpVtbl->GetModuleCount(d, &modules), S_OK);
    assert_int_equal(modules, 3);
    assert_int_equal(d->lpVtbl->GetModuleInfoById(d, MOD_APP, &m), S_OK);
    m->lpVtbl->Release(m);
    assert_int_equal(d->lpVtbl->GetAssemblyInfoById(d, ASM_APP, &a), S_OK);
    a->lpVtbl->Release(a);
    assert_int_equal(d->lpVtbl->GetAssemblyInfoById(d, 0x1, &a), E_FAIL);

    DWORD domains = 0;
    assert_int_equal(c->lpVtbl->GetAppDomainCount(c, &domains), S_OK);
    assert_int_equal(domains, 1);
    AppDomainID ids[2] = {0};
    DWORD actual = 0;
    assert_int_equal(c->lpVtbl->GetAppDomainIDs(c, 0, &actual, NULL), S_OK);
    assert_int_equal(actual, 1);
    assert_int_equal(c->lpVtbl->GetAppDomainIDs(c, 2, &actual, ids), S_OK);
    assert_int_equal(actual, 1);
    assert_int_equal(ids[0], DOMAIN);
    IMethodInfo *method = (IMethodInfo *)(uintptr_t)1;
    assert_int_equal(c->lpVtbl->GetMethodInfoById(c, 0x1234, &method), E_NOTIMPL);
    assert_null(method);

    d->lpVtbl->Release(d);
    core->lpVtbl->Release(core);
    lib->lpVtbl->Release(lib);
    app->lpVtbl->Release(app);
}

static void enumerators_walk_in_chunks_skip_reset_and_clone(void **state)
{
    struct fixture *f = *state;
    enum { N = 7 };
    IModuleInfo *mods[N];
    fake_add_assembly((struct fake_assembly){0x2700, "Many", DOMAIN, 0x4000, NULL, 0, 0});
    for (int i = 0; i < N; i++) {
        fake_add_module((struct fake_module){0x4000 + 0x10 * (ModuleID)i, "/app/Many.dll", 0x2700,
                                             f->mapped, 0, MVID_LIB, false, false});
        mods[i] = attach(f, 0x4000 + 0x10 * (ModuleID)i, 0x2700);
    }
    IAssemblyInfo *a = NULL;
    assert_int_equal(mods[0]->lpVtbl->GetAssemblyInfo(mods[0], &a), S_OK);
    IEnumModuleInfo *e = NULL;
    assert_int_equal(a->lpVtbl->GetModules(a, 0, &e), S_OK);
    DWORD count = 0;
    assert_int_equal(e->lpVtbl->GetCount(e, &count), S_OK);
    assert_int_equal(count, N);

    IModuleInfo *chunk[3] = {0};
    ULONG fetched = 0;
    assert_int_equal(e->lpVtbl->Next(e, 3, chunk, &fetched), S_OK);
    assert_int_equal(fetched, 3);
    for (int i = 0; i < 3; i++) {
        assert_ptr_equal(chunk[i], mods[i]); /* in attach order */
        chunk[i]->lpVtbl->Release(chunk[i]);
    }
    assert_int_equal(e->lpVtbl->Skip(e, 2), S_OK);

    IEnumModuleInfo *clone = NULL;
    assert_int_equal(e->lpVtbl->Clone(e, &clone), S_OK);
    chunk[2] = (IModuleInfo *)(uintptr_t)1;
    assert_int_equal(e->lpVtbl->Next(e, 3, chunk, &fetched), S_FALSE);
    assert_int_equal(fetched, 2);
    assert_ptr_equal(chunk[0], mods[5]);
    assert_ptr_equal(chunk[1], mods[6]);
    assert_null(chunk[2]); /* what is not fetched is NULL, as in CLRIE */
    chunk[0]->lpVtbl->Release(chunk[0]);
    chunk[1]->lpVtbl->Release(chunk[1]);
    assert_int_equal(e->lpVtbl->Next(e, 1, chunk, &fetched), S_FALSE);
    assert_int_equal(fetched, 0);
    assert_int_equal(e->lpVtbl->Skip(e, 1), S_FALSE);

    /* The clone kept its own position. */
    assert_int_equal(clone->lpVtbl->Next(clone, 1, chunk, NULL), S_OK);
    assert_ptr_equal(chunk[0], mods[5]);
    chunk[0]->lpVtbl->Release(chunk[0]);

    assert_int_equal(e->lpVtbl->Reset(e), S_OK);
    assert_int_equal(e->lpVtbl->Next(e, 1, chunk, &fetched), S_OK);
    assert_ptr_equal(chunk[0], mods[0]);
    chunk[0]->lpVtbl->Release(chunk[0]);
    assert_int_equal(e->lpVtbl->Skip(e, 100), S_FALSE);
    assert_int_equal(e->lpVtbl->Next(e, 1, NULL, &fetched), E_POINTER);

    /* A snapshot: unloading does not change an enumerator already made. */
    for (int i = 0; i < N; i++)
        assert_int_equal(clrie_pm_domains_module_unloaded(f->domains, module_id(mods[i]), NULL),
                         S_OK);
    assert_int_equal(clone->lpVtbl->GetCount(clone, &count), S_OK);
    assert_int_equal(count, N);
    ULONG left = 0;
    assert_int_equal(a->lpVtbl->GetModuleCount(a, &left), S_OK);
    assert_int_equal(left, 0);

    clone->lpVtbl->Release(clone);
    e->lpVtbl->Release(e);
    for (int i = 0; i < N; i++)
        assert_int_equal(mods[i]->lpVtbl->Release(mods[i]), 0);

    /* The assembly and domain enumerators. */
    IAppDomainInfo *d = NULL;
    assert_int_equal(a->lpVtbl->GetAppDomainInfo(a, &d), S_OK);
    IEnumAssemblyInfo *ea = NULL;
    assert_int_equal(d->lpVtbl->GetAssemblies(d, &ea), S_OK);
    IAssemblyInfo *got = NULL;
    assert_int_equal(ea->lpVtbl->Next(ea, 1, &got, &fetched), S_OK);
    assert_ptr_equal(got, a);
    got->lpVtbl->Release(got);
    ea->lpVtbl->Release(ea);
    IEnumAppDomainInfo *ed = NULL;
    IAppDomainCollection *c = clrie_pm_domains_collection(f->domains);
    assert_int_equal(c->lpVtbl->GetAppDomains(c, &ed), S_OK);
    IAppDomainInfo *gd = NULL;
    assert_int_equal(ed->lpVtbl->Next(ed, 1, &gd, &fetched), S_OK);
    assert_ptr_equal(gd, d);
    gd->lpVtbl->Release(gd);
    IEnumAppDomainInfo *edc = NULL;
    assert_int_equal(ed->lpVtbl->Clone(ed, &edc), S_OK);
    assert_int_equal(edc->lpVtbl->Next(edc, 1, &gd, &fetched), S_FALSE);
    edc->lpVtbl->Release(edc);
    ed->lpVtbl->Release(ed);
    d->lpVtbl->Release(d);
    a->lpVtbl->Release(a);
}

static void an_unloaded_module_outlives_the_tables(void **state)
{
    struct fixture *f = *state;
    IModuleInfo *m = attach(f, MOD_APP, ASM_APP);
    IModuleInfo *out = NULL;
    assert_int_equal(clrie_pm_domains_module_unloaded(f->domains, MOD_APP, &out), S_OK);
    assert_ptr_equal(out, m);
    out->lpVtbl->Release(out);
    assert_int_equal(clrie_pm_domains_module_unloaded(f->domains, MOD_APP, &out), S_FALSE);
    assert_null(out);
    assert_int_equal(clrie_pm_domains_find_module(f->domains, MOD_APP, &out), E_FAIL);

    /* It answers from what was recorded. */
    ASSERT_BSTR(m, GetModuleName, "App.dll");
    IAssemblyInfo *a = NULL;
    assert_int_equal(m->lpVtbl->GetAssemblyInfo(m, &a), S_OK);
    ULONG count = 1;
    assert_int_equal(a->lpVtbl->GetModuleCount(a, &count), S_OK);
    assert_int_equal(count, 0);
    a->lpVtbl->Release(a);
    assert_int_equal(refcount_of((IUnknown *)m), 1);
    m->lpVtbl->Release(m);
}

static void an_assembly_unload_takes_its_modules(void **state)
{
    struct fixture *f = *state;
    IModuleInfo *m = attach(f, MOD_LIB, ASM_LIB);
    IModuleInfo *other = attach(f, MOD_APP, ASM_APP);
    IAssemblyInfo *a = NULL;
    assert_int_equal(clrie_pm_domains_assembly_unloaded(f->domains, ASM_LIB, &a), S_OK);
    IModuleInfo *found = NULL;
    assert_int_equal(clrie_pm_domains_find_module(f->domains, MOD_LIB, &found), E_FAIL);
    assert_int_equal(clrie_pm_domains_find_module(f->domains, MOD_APP, &found), S_OK);
    found->lpVtbl->Release(found);
    IAppDomainInfo *d = NULL;
    assert_int_equal(a->lpVtbl->GetAppDomainInfo(a, &d), S_OK);
    ULONG count = 0;
    assert_int_equal(d->lpVtbl->GetModuleCount(d, &count), S_OK);
    assert_int_equal(count, 1);
    IAssemblyInfo *none = NULL;
    assert_int_equal(d->lpVtbl->GetAssemblyInfoById(d, ASM_LIB, &none), E_FAIL);
    /* The module's own unload event then finds nothing. */
    assert_int_equal(clrie_pm_domains_module_unloaded(f->domains, MOD_LIB, NULL), S_FALSE);
    assert_int_equal(clrie_pm_domains_assembly_unloaded(f->domains, ASM_LIB, NULL), S_FALSE);

    ASSERT_BSTR(a, GetName, "Lib");
    d->lpVtbl->Release(d);
    other->lpVtbl->Release(other);
    assert_int_equal(a->lpVtbl->Release(a), 1); /* m holds it */
    assert_int_equal(m->lpVtbl->Release(m), 0);
}

static void a_domain_shutdown_takes_everything_in_it(void **state)
{
    struct fixture *f = *state;
    IModuleInfo *app = attach(f, MOD_APP, ASM_APP);
    IModuleInfo *lib = attach(f, MOD_LIB, ASM_LIB);
    IAppDomainInfo *d = NULL;
    assert_int_equal(clrie_pm_domains_appdomain_shutdown(f->domains, DOMAIN, &d), S_OK);
    IAppDomainCollection *c = clrie_pm_domains_collection(f->domains);
    DWORD count = 1;
    assert_int_equal(c->lpVtbl->GetAppDomainCount(c, &count), S_OK);
    assert_int_equal(count, 0);
    IModuleInfo *found = NULL;
    assert_int_equal(c->lpVtbl->GetModuleInfoById(c, MOD_APP, &found), E_FAIL);
    IAssemblyInfo *a = NULL;
    assert_int_equal(c->lpVtbl->GetAssemblyInfoById(c, ASM_LIB, &a), E_FAIL);
    ULONG modules = 1;
    assert_int_equal(d->lpVtbl->GetModuleCount(d, &modules), S_OK);
    assert_int_equal(modules, 0);
    ASSERT_BSTR(d, GetName, "clrhost");
    assert_int_equal(clrie_pm_domains_appdomain_shutdown(f->domains, DOMAIN, NULL), S_FALSE);
    d->lpVtbl->Release(d);
    assert_int_equal(lib->lpVtbl->Release(lib), 0);
    assert_int_equal(app->lpVtbl->Release(app), 0);
}

static void objects_survive_the_collection(void **state)
{
    struct fixture *f = *state;
    IModuleInfo *m = attach(f, MOD_CORE, ASM_CORE);
    IAppDomainCollection *c = clrie_pm_domains_collection(f->domains);
    c->lpVtbl->AddRef(c);
    clrie_pm_domains_free(f->domains);
    f->domains = NULL;
    assert_int_equal(fake_info_refs(), 1);

    ASSERT_BSTR(m, GetModuleName, "System.Private.CoreLib.dll");
    IAssemblyInfo *a = NULL;
    assert_int_equal(m->lpVtbl->GetAssemblyInfo(m, &a), S_OK);
    ASSERT_BSTR(a, GetPublicKeyToken, "B77A5C561934E089");
    a->lpVtbl->Release(a);
    DWORD count = 1;
    assert_int_equal(c->lpVtbl->GetAppDomainCount(c, &count), S_OK);
    assert_int_equal(count, 0);
    m->lpVtbl->Release(m);
    assert_int_equal(c->lpVtbl->Release(c), 0);
}

static void events_without_an_out_pointer_still_fill_the_tables(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(clrie_pm_domains_appdomain_created(f->domains, DOMAIN, NULL), S_OK);
    assert_int_equal(clrie_pm_domains_assembly_loaded(f->domains, ASM_LIB, NULL), S_OK);
    assert_int_equal(clrie_pm_domains_module_attached(f->domains, MOD_LIB, ASM_LIB, NULL), S_OK);
    IModuleInfo *m = NULL;
    assert_int_equal(clrie_pm_domains_find_module(f->domains, MOD_LIB, &m), S_OK);
    assert_int_equal(refcount_of((IUnknown *)m), 2); /* the tables' and ours */
    m->lpVtbl->Release(m);
    assert_int_equal(clrie_pm_domains_find_module(f->domains, MOD_LIB, NULL), E_POINTER);
}

static void appdomain_ids_report_a_small_buffer(void **state)
{
    struct fixture *f = *state;
    fake_add_domain((struct fake_domain){0x1300, "other", false});
    assert_int_equal(clrie_pm_domains_appdomain_created(f->domains, DOMAIN, NULL), S_OK);
    assert_int_equal(clrie_pm_domains_appdomain_created(f->domains, 0x1300, NULL), S_OK);
    IAppDomainCollection *c = clrie_pm_domains_collection(f->domains);
    AppDomainID ids[2] = {0};
    DWORD actual = 0;
    assert_int_equal(c->lpVtbl->GetAppDomainIDs(c, 1, &actual, ids), CLRIE_HRESULT(0x8007007Au));
    assert_int_equal(actual, 2);
    assert_int_equal(ids[0], DOMAIN);
    assert_int_equal(c->lpVtbl->GetAppDomainIDs(c, 2, &actual, ids), S_OK);
    assert_int_equal(ids[1], 0x1300);
    assert_int_equal(c->lpVtbl->GetAppDomainIDs(c, 2, NULL, ids), E_POINTER);
}

struct container_worker {
    IDataContainer *container;
    struct item *items;
    int index;
};

static void container_user(void *arg)
{
    struct container_worker *w = arg;
    GUID component = {(ULONG)w->index, 0, 0, {0}};
    for (int round = 0; round < 2000; round++) {
        GUID object = {(ULONG)(round % 5), 1, 1, {1}};
        IUnknown *item = &w->items[round % 3].iface;
        IDataContainer *c = w->container;
        assert_int_equal(c->lpVtbl->SetDataItem(c, &component, &object, item), S_OK);
        IUnknown *got = NULL;
        if (c->lpVtbl->GetDataItem(c, &component, &object, &got) == S_OK)
            got->lpVtbl->Release(got);
        if (round % 4 == 0)
            assert_int_equal(c->lpVtbl->SetDataItem(c, &component, &object, NULL), S_OK);
    }
}

static void data_containers_take_concurrent_use(void **state)
{
    struct fixture *f = *state;
    IModuleInfo *m = attach(f, MOD_APP, ASM_APP);
    IDataContainer *dc = NULL;
    assert_int_equal(m->lpVtbl->QueryInterface(m, &IID_IDataContainer, (void **)&dc), S_OK);
    enum { THREADS = 4 };
    struct item items[3] = {item_new(), item_new(), item_new()};
    struct clrie_os_thread threads[THREADS];
    struct container_worker workers[THREADS];
    for (int i = 0; i < THREADS; i++) {
        workers[i] = (struct container_worker){dc, items, i};
        assert_int_equal(clrie_os_thread_start(&threads[i], container_user, &workers[i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        clrie_os_thread_join(&threads[i]);
    dc->lpVtbl->Release(dc);
    assert_int_equal(clrie_pm_domains_module_unloaded(f->domains, MOD_APP, NULL), S_OK);
    m->lpVtbl->Release(m);
    for (int i = 0; i < 3; i++)
        assert_int_equal(atomic_load(&items[i].refs), 1); /* every reference given back */
}

/* ---- threads ------------------------------------------------------------------------------ */

#define THREAD_MODULES 24
#define ROUNDS 2000

struct worker {
    struct fixture *f;
    int index;
};

static void loader(void *arg)
{
    struct worker *w = arg;
    for (int round = 0; round < ROUNDS; round++) {
        ModuleID id = 0x10000 + (ModuleID)(w->index * THREAD_MODULES + round % THREAD_MODULES) * 8;
        IModuleInfo *m = NULL;
        HRESULT hr = clrie_pm_domains_module_attached(w->f->domains, id, 0, &m);
        assert_int_equal(hr, S_OK);
        IModuleInfo *found = NULL;
        if (SUCCEEDED(clrie_pm_domains_find_module(w->f->domains, id, &found)))
            found->lpVtbl->Release(found);
        IAssemblyInfo *a = NULL;
        assert_int_equal(m->lpVtbl->GetAssemblyInfo(m, &a), S_OK);
        ULONG count;
        assert_int_equal(a->lpVtbl->GetModuleCount(a, &count), S_OK);
        a->lpVtbl->Release(a);
        m->lpVtbl->Release(m);
        if (round % 3 == 0)
            clrie_pm_domains_module_unloaded(w->f->domains, id, NULL);
        if (round % 17 == 0)
            clrie_pm_domains_assembly_unloaded(w->f->domains, 0x9000 + (AssemblyID)w->index * 8,
                                               NULL);
    }
}

static void reader(void *arg)
{
    struct worker *w = arg;
    IAppDomainCollection *c = clrie_pm_domains_collection(w->f->domains);
    for (int round = 0; round < ROUNDS; round++) {
        IAppDomainInfo *d = NULL;
        if (FAILED(c->lpVtbl->GetAppDomainById(c, DOMAIN, &d)))
            continue;
        IEnumModuleInfo *e = NULL;
        assert_int_equal(d->lpVtbl->GetModules(d, &e), S_OK);
        IModuleInfo *chunk[4];
        ULONG fetched = 0;
        while (SUCCEEDED(e->lpVtbl->Next(e, 4, chunk, &fetched)) && fetched) {
            for (ULONG i = 0; i < fetched; i++) {
                BSTR name = NULL;
                assert_int_equal(chunk[i]->lpVtbl->GetModuleName(chunk[i], &name), S_OK);
                clrie_pm_bstr_free(name);
                chunk[i]->lpVtbl->Release(chunk[i]);
            }
        }
        e->lpVtbl->Release(e);
        IEnumAssemblyInfo *ea = NULL;
        assert_int_equal(d->lpVtbl->GetAssemblies(d, &ea), S_OK);
        ea->lpVtbl->Release(ea);
        IEnumModuleInfo *by_mvid = NULL;
        assert_int_equal(c->lpVtbl->GetModuleInfosByMvid(c, MVID_LIB, &by_mvid), S_OK);
        by_mvid->lpVtbl->Release(by_mvid);
        d->lpVtbl->Release(d);
    }
}

static void threads_load_look_up_unload_and_enumerate_together(void **state)
{
    struct fixture *f = *state;
    enum { LOADERS = 4, READERS = 3 };
    static char paths[LOADERS][THREAD_MODULES][32];
    for (int t = 0; t < LOADERS; t++) {
        AssemblyID asm_id = 0x9000 + (AssemblyID)t * 8;
        fake_add_assembly((struct fake_assembly){asm_id, "Threaded", DOMAIN, 0, NULL, 0, 0});
        for (int i = 0; i < THREAD_MODULES; i++) {
            snprintf(paths[t][i], sizeof(paths[t][i]), "/app/T%d_%d.dll", t, i);
            fake_add_module((struct fake_module){0x10000 + (ModuleID)(t * THREAD_MODULES + i) * 8,
                                                 paths[t][i], asm_id, f->mapped, 0, MVID_LIB, false,
                                                 false});
        }
    }
    struct clrie_os_thread threads[LOADERS + READERS];
    struct worker workers[LOADERS + READERS];
    for (int i = 0; i < LOADERS + READERS; i++) {
        workers[i] = (struct worker){f, i};
        assert_int_equal(
            clrie_os_thread_start(&threads[i], i < LOADERS ? loader : reader, &workers[i]), 0);
    }
    for (int i = 0; i < LOADERS + READERS; i++)
        clrie_os_thread_join(&threads[i]);
    assert_int_equal(atomic_load(&f->errors), 0);
    /* teardown frees the collection and checks every metadata object was released */
}

/* What IMethodJitInfo reads back is what the pipeline recorded, entry for entry, whatever the
 * offsets (out of order, at the ends of their range) and fAccurate; and a map of small steps,
 * as real ones are, is kept in a few bytes an entry, not a COR_IL_MAP each. */
static void recorded_il_maps_come_back_exactly(void **state)
{
    struct fixture *f = *state;
    IModuleInfo *m = attach(f, MOD_CORE, 0);
    const mdMethodDef token = 0x06000010;
    static const COR_IL_MAP odd[] = {
        {0, 0, TRUE},          {5, 12, TRUE},         {3, 1, FALSE},
        {UINT32_MAX, 7, TRUE}, {0, UINT32_MAX, TRUE}, {UINT32_MAX, UINT32_MAX, FALSE},
    };
    const ULONG32 n_odd = sizeof(odd) / sizeof(odd[0]);
    assert_int_equal(clrie_pm_module_record_il_map(m, token, true, odd, n_odd), S_OK);
    COR_IL_MAP back[8];
    ULONG32 needed = 0;
    BOOL transformed = FALSE;
    assert_int_equal(clrie_pm_module_il_map(m, token, 8, back, &needed, &transformed), S_OK);
    assert_int_equal(needed, n_odd);
    assert_true(transformed);
    for (ULONG32 i = 0; i < n_odd; i++) {
        assert_int_equal(back[i].oldOffset, odd[i].oldOffset);
        assert_int_equal(back[i].newOffset, odd[i].newOffset);
        assert_int_equal(!!back[i].fAccurate, !!odd[i].fAccurate);
    }
    /* A smaller buffer gets the first entries. */
    memset(back, 0xCC, sizeof(back));
    assert_int_equal(clrie_pm_module_il_map(m, token, 2, back, &needed, &transformed), S_OK);
    assert_int_equal(needed, n_odd);
    assert_int_equal(back[1].oldOffset, 5);
    assert_int_equal(back[1].newOffset, 12);
    assert_int_equal(back[2].oldOffset, 0xCCCCCCCCu);

    /* 1,000 instructions of 1 to 5 bytes, each moved by the code inserted before it. */
    enum { N = 1000 };
    COR_IL_MAP *big = calloc(N, sizeof(*big)), *got = calloc(N, sizeof(*got));
    assert_true(big && got);
    uint32_t old = 0, now = 0;
    for (ULONG32 i = 0; i < N; i++) {
        big[i] = (COR_IL_MAP){old, now, TRUE};
        old += 1 + i % 5;
        now += 1 + i % 5 + (i % 3 == 0 ? 6 : 0);
    }
    assert_int_equal(clrie_pm_module_record_il_map(m, token, true, big, N), S_OK);
    assert_int_equal(clrie_pm_module_il_map(m, token, N, got, &needed, &transformed), S_OK);
    assert_int_equal(needed, N);
    assert_memory_equal(got, big, N * sizeof(*big));
    struct clrie_pm_methods_memory kept;
    clrie_pm_domains_methods_memory(f->domains, &kept);
    assert_int_equal(kept.map_entries, N);
    assert_true(kept.map_bytes <= 3 * N);

    /* A method instrumented again without a change keeps no map. */
    assert_int_equal(clrie_pm_module_record_il_map(m, token, false, NULL, 0), S_OK);
    assert_int_equal(clrie_pm_module_il_map(m, token, N, got, &needed, &transformed), S_FALSE);
    free(big);
    free(got);
    m->lpVtbl->Release(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
        T(a_module_attached_first_brings_its_assembly_and_domain),
        T(a_domain_named_late_gets_its_name_at_creation),
        T(domains_are_classified_by_name_as_coreclr_reports_them),
        T(a_resource_only_module_gets_no_object),
        T(the_runtime_failing_is_reported),
        T(module_names_paths_and_mvid),
        T(module_flags_come_from_the_runtime_and_the_image),
        T(the_cor_header_is_read_from_mapped_and_flat_images),
        T(a_dynamic_module_has_no_image),
        T(a_malformed_image_is_logged_not_read),
        T(pe_images_are_bounds_checked),
        T(metadata_interfaces_are_cached_and_addrefed),
        T(a_module_hands_out_type_factories),
        T(assembly_identity_comes_from_the_manifest),
        T(an_assembly_before_its_manifest_knows_no_identity),
        T(public_key_tokens_follow_the_strong_name_rule),
        T(query_interface_follows_com_rules),
        T(data_items_are_kept_replaced_and_released),
        T(lookups_by_id_name_and_mvid),
        T(enumerators_walk_in_chunks_skip_reset_and_clone),
        T(an_unloaded_module_outlives_the_tables),
        T(an_assembly_unload_takes_its_modules),
        T(a_domain_shutdown_takes_everything_in_it),
        T(objects_survive_the_collection),
        T(events_without_an_out_pointer_still_fill_the_tables),
        T(appdomain_ids_report_a_small_buffer),
        T(data_containers_take_concurrent_use),
        T(threads_load_look_up_unload_and_enumerate_together),
        T(recorded_il_maps_come_back_exactly),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
