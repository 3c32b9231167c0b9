/* clrie/plugin.h: what every instrumentation method (plugin) written in C repeats, once.
 *
 * Header-only: static inline functions and macros over the ABI headers, nothing to link
 * beyond the clrie-profmgr-abi dependency (pkg-config clrie-profmgr-abi, CMake
 * clrie::profmgr-abi) and -ldl. Works with CLRIE's engine as well as clrie's.
 *
 * Module and class factory
 *   CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(create) defines the plugin's two exports,
 *   DllGetClassObject and DllCanUnloadNow. DllGetClassObject accepts any class ID and hands
 *   out a new IClassFactory; its CreateInstance refuses aggregation and calls
 *       HRESULT create(const CLSID *clsid, REFIID riid, void **out);
 *   with the class ID the factory was made for (each config entry naming the module is an
 *   instance with its own class ID). `create` makes the object, queries it for riid into
 *   *out and drops its own reference. Each live plugin object takes a module reference with
 *   clrie_plugin_module_ref() when made and drops it with clrie_plugin_module_unref() when
 *   freed; while any is held (factories and server locks hold one too), DllCanUnloadNow
 *   answers S_FALSE. The count is per translation unit: expand the macro and count objects
 *   in one .c file.
 *
 * Engine strings
 *   clrie_plugin_free_bstr(strings, text) frees a BSTR the engine handed out: through the
 *   IProfilerStringManager when the plugin has one (may be NULL), else through the engine's
 *   InstrumentationEngineFreeString export (found with dlopen RTLD_NOLOAD), else leaks it:
 *   never frees it with the wrong allocator.
 *   clrie_plugin_bstr_to_utf8(text) returns a new UTF-8 string (free()) or NULL;
 *   clrie_plugin_bstr_to_utf8_buf(text, out, size) writes into a caller's buffer, cut at a
 *   character boundary, control characters as '?'. Neither frees `text`.
 *   clrie_plugin_take_utf8(strings, hr, &text) is the common case: the UTF-8 form of a BSTR
 *   an engine call just filled (NULL if the call failed) with the BSTR freed and cleared.
 *
 * UTF-16 buffers, metadata names and the log
 *   clrie_plugin_wcs_len, clrie_plugin_wcs_append(out, capacity, text) and
 *   clrie_plugin_wcs_append_utf8 build 0-terminated UTF-16 text in a buffer of `capacity`
 *   units, cutting what does not fit (bytes that are not UTF-8 become U+FFFD).
 *   clrie_plugin_type_name(import, type, out, capacity) writes a TypeDef's `Namespace.Type`,
 *   nested types as `Outer+Inner`. clrie_plugin_method_defs_each(import, fn, data) calls
 *   fn(data, token, full_name, rva) for every MethodDef of a module, full_name being
 *   `Namespace.Type::Method` in UTF-16, and stops at the first failure fn returns.
 *   clrie_plugin_log(logging, error, text) writes a UTF-8 line through the engine's
 *   IProfilerManagerLogging (LogError or LogMessage), or to stderr when logging is NULL.
 *
 * Settings (the <Settings> of the plugin's config entry, through CLRIE's
 * IInstrumentationMethodAttachContext, QueryInterface'd on the IProfilerManager)
 *   clrie_plugin_settings_each(manager, fn, data) calls fn(data, name, value) for each setting
 *   in config order; clrie_plugin_setting(manager, name, buf, size) copies the value of the
 *   first setting named `name` (ASCII case-insensitive). Both return 0, -ENOSYS when the
 *   engine has no attach context, -ENOENT (setting only) when there is no such setting,
 *   -ENOSPC (setting only, buf holds the cut value). A setting whose name or value cannot
 *   be read is skipped.
 *
 * Methods
 *   clrie_plugin_method_full_name(method, strings, buf, size) writes IMethodInfo::GetFullName
 *   as UTF-8 ("" and the HRESULT if it fails); clrie_plugin_method_name does GetName.
 *
 * COM and IL
 *   clrie_plugin_release(object) releases any interface pointer, NULL allowed.
 *   clrie_plugin_opcode(instruction) is the instruction's opcode, Cee_Invalid for NULL or on
 *   failure. clrie_plugin_single_ret_exit(single) is the shared exit that
 *   ISingleRetDefaultInstrumentation2 made (after ApplySingleRetDefaultInstrumentation), and
 *   clrie_plugin_last_plain_ret(graph) the last `ret` not ending `tail. call X; [pop;] ret`;
 *   both return an AddRef'd instruction or NULL.
 *
 * Events a plugin ignores
 *   clrie_plugin_ignore_* are IInstrumentationMethod slots that do nothing and return S_OK,
 *   for the vtable's designated initialisers:
 *       .OnAppDomainCreated = clrie_plugin_ignore_app_domain,
 *   CLRIE_PLUGIN_IGNORE_DOMAIN_AND_ASSEMBLY_EVENTS stands for the four app domain and assembly
 *   slots at once (OnAppDomainCreated/Shutdown, OnAssemblyLoaded/Unloaded).
 */
#ifndef CLRIE_PLUGIN_H
#define CLRIE_PLUGIN_H

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clrie/abi/base.h"
#include "clrie/abi/instrumentation.h"
#include "clrie/abi/metadata.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the COM object base --------------------------------------------------------------------- */

/* One interface an object answers: its IID and where its interface member (the `lpVtbl`
 * pointer) lies in the object. */
struct clrie_plugin_com_iface {
    const IID *iid;
    size_t offset;
};

/* What the objects of one kind share: the interfaces they answer (the first also answers
 * IID_IUnknown), where their `struct clrie_plugin_com` lies, and what frees one. */
struct clrie_plugin_com_class {
    const char *name;
    const struct clrie_plugin_com_iface *ifaces;
    size_t iface_count;
    size_t com_offset;            /* offsetof(type, the clrie_plugin_com member) */
    void (*destroy)(void *object); /* called once, when the count drops to zero */
    void (*surplus_release)(void *object); /* optional: a Release with the count at zero */
};

/* The part of an object that counts references; the count is atomic. */
struct clrie_plugin_com {
    const struct clrie_plugin_com_class *cls;
    unsigned long refs;
};

/* An entry of a class's interface table. */
#define CLRIE_PLUGIN_COM_IFACE(iid, type, member) { (iid), offsetof(type, member) }
#define CLRIE_PLUGIN_COM_COUNT(table) (sizeof(table) / sizeof((table)[0]))

/* Sets the count to one: the caller holds the first reference. */
void clrie_plugin_com_init(struct clrie_plugin_com *com, const struct clrie_plugin_com_class *cls);
/* QueryInterface through the class's table: E_POINTER for a NULL out or riid, E_NOINTERFACE
 * (and *out NULL) for an interface the table lacks, else S_OK with a new reference. */
HRESULT clrie_plugin_com_query(struct clrie_plugin_com *com, REFIID riid, void **out);
ULONG clrie_plugin_com_add_ref(struct clrie_plugin_com *com);
/* Drops a reference; the last one calls the class's destroy. A Release with the count already
 * at zero changes nothing, frees nothing, calls the class's surplus_release and returns 0. */
ULONG clrie_plugin_com_release(struct clrie_plugin_com *com);
/* The current count, for tests and diagnostics. */
ULONG clrie_plugin_com_refs(const struct clrie_plugin_com *com);

/* Defines prefix_QueryInterface, prefix_AddRef and prefix_Release for the interface `Iface`
 * held in member `iface_member` of `type`, whose count is member `com_member`: the three
 * IUnknown slots of that interface's vtable. */
#define CLRIE_PLUGIN_COM_IUNKNOWN(prefix, Iface, type, iface_member, com_member) \
    static HRESULT prefix##_QueryInterface(Iface *This, REFIID riid, void **out) \
    { \
        return clrie_plugin_com_query(&CLRIE_CONTAINER_OF(This, type, iface_member)->com_member, \
                                      riid, out); \
    } \
    static ULONG prefix##_AddRef(Iface *This) \
    { \
        return clrie_plugin_com_add_ref( \
            &CLRIE_CONTAINER_OF(This, type, iface_member)->com_member); \
    } \
    static ULONG prefix##_Release(Iface *This) \
    { \
        return clrie_plugin_com_release( \
            &CLRIE_CONTAINER_OF(This, type, iface_member)->com_member); \
    }

/* The three IUnknown slots of a vtable's designated initialisers. */
#define CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(prefix) \
    .QueryInterface = prefix##_QueryInterface, .AddRef = prefix##_AddRef, \
    .Release = prefix##_Release

/* ---- engine strings ------------------------------------------------------------------------ */

typedef void (*clrie_plugin_free_string_fn)(BSTR);

#ifdef RTLD_NOLOAD
#define CLRIE_PLUGIN_RTLD_NOLOAD_ RTLD_NOLOAD
#else
#define CLRIE_PLUGIN_RTLD_NOLOAD_ 0x00004 /* glibc's and musl's value, without _GNU_SOURCE */
#endif

/* The engine's InstrumentationEngineFreeString, or NULL when no engine is loaded. */
static inline clrie_plugin_free_string_fn clrie_plugin_engine_free_string(void)
{
    static clrie_plugin_free_string_fn found;
    clrie_plugin_free_string_fn fn = __atomic_load_n(&found, __ATOMIC_ACQUIRE);
    if (fn)
        return fn;
    void *engine = dlopen("libInstrumentationEngine.so", RTLD_NOW | CLRIE_PLUGIN_RTLD_NOLOAD_);
    if (!engine)
        return NULL;
    void *symbol = dlsym(engine, "InstrumentationEngineFreeString");
    memcpy(&fn, &symbol, sizeof fn);
    dlclose(engine); /* NOLOAD took a reference; the engine stays loaded */
    __atomic_store_n(&found, fn, __ATOMIC_RELEASE);
    return fn;
}

static inline void clrie_plugin_free_bstr(IProfilerStringManager *strings, BSTR text)
{
    if (!text)
        return;
    if (strings) {
        strings->lpVtbl->FreeString(strings, text);
        return;
    }
    clrie_plugin_free_string_fn fn = clrie_plugin_engine_free_string();
    if (fn)
        fn(text);
    /* else: no way to free the engine's allocation; a few bytes leak, never misfreed */
}

/* The code point at text[*i] (advancing *i past a surrogate pair); unpaired surrogates are
 * U+FFFD. */
static inline uint32_t clrie_plugin_utf16_next_(const WCHAR *text, size_t *i)
{
    uint32_t c = text[*i];
    if (c >= 0xD800 && c <= 0xDBFF && text[*i + 1] >= 0xDC00 && text[*i + 1] <= 0xDFFF)
        return 0x10000 + ((c - 0xD800) << 10) + (uint32_t)(text[++*i] - 0xDC00);
    return c >= 0xD800 && c <= 0xDFFF ? 0xFFFD : c;
}

/* Writes c as UTF-8 at out; returns the bytes written (1-4). */
static inline size_t clrie_plugin_utf8_put_(uint32_t c, char *out)
{
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (char)(0xC0 | (c >> 6));
        out[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (char)(0xE0 | (c >> 12));
        out[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        out[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (c >> 18));
    out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((c >> 6) & 0x3F));
    out[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* New UTF-8 string (free() it), "" for NULL, NULL without memory. */
static inline char *clrie_plugin_bstr_to_utf8(const WCHAR *text)
{
    size_t len = 0;
    while (text && text[len])
        len++;
    char *out = (char *)malloc(len * 3 + 1);
    if (!out)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += clrie_plugin_utf8_put_(clrie_plugin_utf16_next_(text, &i), out + n);
    out[n] = '\0';
    return out;
}

/* UTF-8 in out (size >= 1), always 0-terminated, cut before a character that does not fit;
 * control characters become '?', so a name never breaks a line. Returns the bytes written. */
static inline size_t clrie_plugin_bstr_to_utf8_buf(const WCHAR *text, char *out, size_t size)
{
    size_t n = 0;
    for (size_t i = 0; text && text[i] && n + 5 <= size; i++) {
        uint32_t c = clrie_plugin_utf16_next_(text, &i);
        if (c < 0x20 || c == 0x7F)
            c = '?';
        n += clrie_plugin_utf8_put_(c, out + n);
    }
    if (size)
        out[n] = '\0';
    return n;
}

/* The UTF-8 form of the BSTR an engine call returned in *text (NULL if hr failed or there
 * is none); frees the BSTR and clears *text. Passing `text` by address lets
 * `clrie_plugin_take_utf8(s, x->GetName(x, &text), &text)` read it after the call. */
static inline char *clrie_plugin_take_utf8(IProfilerStringManager *strings, HRESULT hr, BSTR *text)
{
    char *utf8 = SUCCEEDED(hr) && *text ? clrie_plugin_bstr_to_utf8(*text) : NULL;
    clrie_plugin_free_bstr(strings, *text);
    *text = NULL;
    return utf8;
}

/* ---- UTF-16 buffers, metadata names and the log ---------------------------------------------- */

static inline size_t clrie_plugin_wcs_len(const WCHAR *text)
{
    size_t n = 0;
    while (text[n])
        n++;
    return n;
}

/* Appends text to the 0-terminated UTF-16 text in out (capacity units, at least 1). */
static inline void clrie_plugin_wcs_append(WCHAR *out, size_t capacity, const WCHAR *text)
{
    size_t n = clrie_plugin_wcs_len(out);
    while (*text && n + 1 < capacity)
        out[n++] = *text++;
    out[n] = 0;
}

/* Appends UTF-8 text as UTF-16; stops where a surrogate pair might not fit. */
static inline void clrie_plugin_wcs_append_utf8(WCHAR *out, size_t capacity, const char *text)
{
    size_t n = clrie_plugin_wcs_len(out);
    const unsigned char *p = (const unsigned char *)text;
    while (*p && n + 2 < capacity) {
        uint32_t c = *p++;
        int more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
        if ((c >= 0x80 && c < 0xC0) || c >= 0xF8)
            c = 0xFFFD, more = 0;
        else
            c &= more == 3 ? 0x07 : more == 2 ? 0x0F : more == 1 ? 0x1F : 0x7F;
        for (; more > 0; more--, p++) {
            if ((*p & 0xC0) != 0x80) {
                c = 0xFFFD;
                break;
            }
            c = (c << 6) | (*p & 0x3F);
        }
        if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
            c = 0xFFFD;
        if (c >= 0x10000) {
            c -= 0x10000;
            out[n++] = (WCHAR)(0xD800 + (c >> 10));
            out[n++] = (WCHAR)(0xDC00 + (c & 0x3FF));
        } else {
            out[n++] = (WCHAR)c;
        }
    }
    out[n] = 0;
}

#define CLRIE_PLUGIN_NAME_UNITS 1024 /* the longest type name read from metadata */

static inline HRESULT clrie_plugin_type_name_(IMetaDataImport *import, mdTypeDef type, WCHAR *out,
                                              size_t capacity, int depth)
{
    WCHAR name[CLRIE_PLUGIN_NAME_UNITS];
    ULONG len = 0;
    DWORD flags = 0;
    mdToken extends = mdTokenNil;
    HRESULT hr = import->lpVtbl->GetTypeDefProps(import, type, name, CLRIE_PLUGIN_NAME_UNITS, &len,
                                                 &flags, &extends);
    if (FAILED(hr))
        return hr;
    name[CLRIE_PLUGIN_NAME_UNITS - 1] = 0;
    out[0] = 0;
    mdTypeDef enclosing = mdTokenNil;
    if (depth < 16 && SUCCEEDED(import->lpVtbl->GetNestedClassProps(import, type, &enclosing)) &&
        enclosing != mdTokenNil) {
        if (SUCCEEDED(clrie_plugin_type_name_(import, enclosing, out, capacity, depth + 1)))
            clrie_plugin_wcs_append_utf8(out, capacity, "+");
    }
    clrie_plugin_wcs_append(out, capacity, name);
    return S_OK;
}

/* `Namespace.Type` of a TypeDef in out (capacity units), nested types as `Outer+Inner`. */
static inline HRESULT clrie_plugin_type_name(IMetaDataImport *import, mdTypeDef type, WCHAR *out,
                                             size_t capacity)
{
    return clrie_plugin_type_name_(import, type, out, capacity, 0);
}

typedef HRESULT (*clrie_plugin_method_def_fn)(void *data, mdMethodDef method,
                                              const WCHAR *full_name, ULONG rva);

static inline HRESULT clrie_plugin_type_methods_each_(IMetaDataImport *import, mdTypeDef type,
                                                      clrie_plugin_method_def_fn fn, void *data)
{
    WCHAR full[2 * CLRIE_PLUGIN_NAME_UNITS + 4];
    if (FAILED(clrie_plugin_type_name(import, type, full, CLRIE_PLUGIN_NAME_UNITS)))
        return S_OK; /* a type without a readable name: its methods are skipped */
    clrie_plugin_wcs_append_utf8(full, sizeof full / sizeof full[0], "::");
    size_t prefix = clrie_plugin_wcs_len(full);
    HCORENUM methods = NULL;
    mdMethodDef tokens[64];
    ULONG count = 0;
    HRESULT hr = S_OK;
    while (SUCCEEDED(hr) &&
           import->lpVtbl->EnumMethods(import, &methods, type, tokens, 64, &count) == S_OK &&
           count > 0) {
        for (ULONG m = 0; m < count && SUCCEEDED(hr); m++) {
            WCHAR method[CLRIE_PLUGIN_NAME_UNITS];
            ULONG len = 0, sig_len, rva;
            mdTypeDef owner;
            DWORD attributes, impl;
            PCCOR_SIGNATURE sig;
            if (FAILED(import->lpVtbl->GetMethodProps(import, tokens[m], &owner, method,
                                                      CLRIE_PLUGIN_NAME_UNITS, &len, &attributes,
                                                      &sig, &sig_len, &rva, &impl)))
                continue;
            method[CLRIE_PLUGIN_NAME_UNITS - 1] = 0;
            full[prefix] = 0;
            clrie_plugin_wcs_append(full, sizeof full / sizeof full[0], method);
            hr = fn(data, tokens[m], full, rva);
        }
    }
    import->lpVtbl->CloseEnum(import, methods);
    return hr;
}

/* Every MethodDef of the module, type by type: S_OK, or the first failure fn returned. */
static inline HRESULT clrie_plugin_method_defs_each(IMetaDataImport *import,
                                                    clrie_plugin_method_def_fn fn, void *data)
{
    HCORENUM types = NULL;
    mdTypeDef tokens[64];
    ULONG count = 0;
    HRESULT hr = S_OK;
    while (SUCCEEDED(hr) &&
           import->lpVtbl->EnumTypeDefs(import, &types, tokens, 64, &count) == S_OK && count > 0) {
        for (ULONG t = 0; t < count && SUCCEEDED(hr); t++)
            hr = clrie_plugin_type_methods_each_(import, tokens[t], fn, data);
    }
    import->lpVtbl->CloseEnum(import, types);
    return hr;
}

/* One line through the engine's log (cut at 1023 UTF-16 units), or stderr without one. */
static inline void clrie_plugin_log(IProfilerManagerLogging *logging, bool error, const char *text)
{
    if (!logging) {
        fprintf(stderr, "%s\n", text);
        return;
    }
    WCHAR wide[1024];
    wide[0] = 0;
    clrie_plugin_wcs_append_utf8(wide, sizeof wide / sizeof wide[0], text);
    if (error)
        logging->lpVtbl->LogError(logging, wide);
    else
        logging->lpVtbl->LogMessage(logging, wide);
}

/* ---- methods --------------------------------------------------------------------------------- */

static inline HRESULT clrie_plugin_method_name_(IMethodInfo *method,
                                                IProfilerStringManager *strings, bool full,
                                                char *buf, size_t size)
{
    BSTR text = NULL;
    HRESULT hr =
        full ? method->lpVtbl->GetFullName(method, &text) : method->lpVtbl->GetName(method, &text);
    if (size)
        buf[0] = '\0';
    if (SUCCEEDED(hr))
        clrie_plugin_bstr_to_utf8_buf(text, buf, size);
    clrie_plugin_free_bstr(strings, text);
    return hr;
}

/* `Namespace.Type::Method` of a method, as UTF-8 in buf ("" on failure). */
static inline HRESULT clrie_plugin_method_full_name(IMethodInfo *method,
                                                    IProfilerStringManager *strings, char *buf,
                                                    size_t size)
{
    return clrie_plugin_method_name_(method, strings, true, buf, size);
}

/* The method's own name, as UTF-8 in buf ("" on failure). */
static inline HRESULT clrie_plugin_method_name(IMethodInfo *method, IProfilerStringManager *strings,
                                               char *buf, size_t size)
{
    return clrie_plugin_method_name_(method, strings, false, buf, size);
}

/* ---- settings -------------------------------------------------------------------------------- */

typedef void (*clrie_plugin_setting_fn)(void *data, const char *name, const char *value);

static inline int clrie_plugin_settings_each(IProfilerManager *manager, clrie_plugin_setting_fn fn,
                                             void *data)
{
    IInstrumentationMethodAttachContext *context = NULL;
    IEnumInstrumentationMethodSettings *settings = NULL;
    IProfilerStringManager *strings = NULL;
    int ret = 0;
    if (FAILED(manager->lpVtbl->QueryInterface(manager, &IID_IInstrumentationMethodAttachContext,
                                               (void **)&context)) ||
        FAILED(context->lpVtbl->EnumSettings(context, &settings))) {
        ret = -ENOSYS;
        goto out;
    }
    if (FAILED(manager->lpVtbl->QueryInterface(manager, &IID_IProfilerStringManager,
                                               (void **)&strings)))
        strings = NULL;
    IInstrumentationMethodSetting *setting;
    ULONG fetched;
    for (setting = NULL, fetched = 0;
         settings->lpVtbl->Next(settings, 1, &setting, &fetched) == S_OK && fetched == 1;
         setting = NULL, fetched = 0) {
        BSTR name = NULL, value = NULL;
        char *n = clrie_plugin_take_utf8(strings, setting->lpVtbl->GetName(setting, &name), &name);
        char *v =
            clrie_plugin_take_utf8(strings, setting->lpVtbl->GetValue(setting, &value), &value);
        if (n && v)
            fn(data, n, v); /* a setting whose name or value cannot be read is skipped */
        free(n);
        free(v);
        setting->lpVtbl->Release(setting);
    }
out:
    if (strings)
        strings->lpVtbl->Release(strings);
    if (settings)
        settings->lpVtbl->Release(settings);
    if (context)
        context->lpVtbl->Release(context);
    return ret;
}

struct clrie_plugin_setting_query_ {
    const char *name;
    char *buf;
    size_t size;
    int ret;
};

static inline void clrie_plugin_setting_match_(void *data, const char *name, const char *value)
{
    struct clrie_plugin_setting_query_ *q = (struct clrie_plugin_setting_query_ *)data;
    if (q->ret != -ENOENT)
        return;
    for (size_t i = 0;; i++) {
        char a = name[i], b = q->name[i];
        if (a >= 'A' && a <= 'Z')
            a = (char)(a - 'A' + 'a');
        if (b >= 'A' && b <= 'Z')
            b = (char)(b - 'A' + 'a');
        if (a != b)
            return;
        if (!a)
            break;
    }
    size_t len = strlen(value);
    q->ret = len < q->size ? 0 : -ENOSPC;
    if (q->size) {
        size_t n = len < q->size ? len : q->size - 1;
        memcpy(q->buf, value, n);
        q->buf[n] = '\0';
    }
}

/* The value of setting `name` in buf (see the header comment for the return values). */
static inline int clrie_plugin_setting(IProfilerManager *manager, const char *name, char *buf,
                                       size_t size)
{
    struct clrie_plugin_setting_query_ q = {name, buf, size, -ENOENT};
    int ret = clrie_plugin_settings_each(manager, clrie_plugin_setting_match_, &q);
    return ret == -ENOSYS ? ret : q.ret;
}

/* ---- COM and IL --------------------------------------------------------------------------------
 */

static inline void clrie_plugin_release(void *object)
{
    if (object)
        ((IUnknown *)object)->lpVtbl->Release((IUnknown *)object);
}

static inline ILOrdinalOpcode clrie_plugin_opcode(IInstruction *instruction)
{
    ILOrdinalOpcode op = Cee_Invalid;
    if (!instruction || FAILED(instruction->lpVtbl->GetOpCode(instruction, &op)))
        return Cee_Invalid;
    return op;
}

/* The branch target single-ret gathered every return into (AddRef'd), or NULL. */
static inline IInstruction *clrie_plugin_single_ret_exit(ISingleRetDefaultInstrumentation *single)
{
    ISingleRetDefaultInstrumentation2 *single2 = NULL;
    IInstruction *exit = NULL;
    if (SUCCEEDED(single->lpVtbl->QueryInterface(single, &IID_ISingleRetDefaultInstrumentation2,
                                                 (void **)&single2))) {
        if (FAILED(single2->lpVtbl->GetBranchTargetInstruction(single2, &exit)))
            exit = NULL;
        clrie_plugin_release(single2);
    }
    return exit;
}

/* The last `ret` that does not end a tail call (AddRef'd), or NULL: a method that only throws. */
static inline IInstruction *clrie_plugin_last_plain_ret(IInstructionGraph *graph)
{
    IInstruction *at = NULL;
    if (FAILED(graph->lpVtbl->GetLastInstruction(graph, &at)))
        return NULL;
    while (at) {
        IInstruction *previous = NULL;
        if (FAILED(at->lpVtbl->GetPreviousInstruction(at, &previous)))
            previous = NULL;
        if (clrie_plugin_opcode(at) == Cee_Ret) {
            /* `tail. call X; [pop;] ret` must stay as it is */
            IInstruction *p = previous, *pp = NULL, *ppp = NULL;
            if (p && clrie_plugin_opcode(p) == Cee_Pop)
                p->lpVtbl->GetPreviousInstruction(p, &pp);
            else if (p)
                p->lpVtbl->AddRef(p), pp = p;
            if (pp)
                pp->lpVtbl->GetPreviousInstruction(pp, &ppp);
            bool tail = ppp && clrie_plugin_opcode(ppp) == Cee_Tailcall;
            clrie_plugin_release(ppp);
            clrie_plugin_release(pp);
            if (!tail) {
                clrie_plugin_release(previous);
                return at;
            }
        }
        clrie_plugin_release(at);
        at = previous;
    }
    return NULL;
}

/* ---- events a plugin ignores ----------------------------------------------------------------- */

static inline HRESULT clrie_plugin_ignore_app_domain(IInstrumentationMethod *This,
                                                     IAppDomainInfo *info)
{
    (void)This, (void)info;
    return S_OK;
}

static inline HRESULT clrie_plugin_ignore_assembly(IInstrumentationMethod *This,
                                                   IAssemblyInfo *info)
{
    (void)This, (void)info;
    return S_OK;
}

static inline HRESULT clrie_plugin_ignore_module(IInstrumentationMethod *This, IModuleInfo *info)
{
    (void)This, (void)info;
    return S_OK;
}

static inline HRESULT clrie_plugin_ignore_shutdown(IInstrumentationMethod *This)
{
    (void)This;
    return S_OK;
}

/* For BeforeInstrumentMethod and OnInstrumentationComplete. */
static inline HRESULT clrie_plugin_ignore_method(IInstrumentationMethod *This, IMethodInfo *method,
                                                 BOOL isRejit)
{
    (void)This, (void)method, (void)isRejit;
    return S_OK;
}

/* Designated initialisers for the four app domain and assembly events, all ignored. */
#define CLRIE_PLUGIN_IGNORE_DOMAIN_AND_ASSEMBLY_EVENTS                                             \
    .OnAppDomainCreated = clrie_plugin_ignore_app_domain,                                          \
    .OnAppDomainShutdown = clrie_plugin_ignore_app_domain,                                         \
    .OnAssemblyLoaded = clrie_plugin_ignore_assembly,                                              \
    .OnAssemblyUnloaded = clrie_plugin_ignore_assembly

/* ---- module and class factory ---------------------------------------------------------------- */

static inline long *clrie_plugin_module_refs_(void)
{
    static long refs;
    return &refs;
}

/* Taken by each live object (and factory, and server lock) of the module. */
static inline void clrie_plugin_module_ref(void)
{
    __atomic_fetch_add(clrie_plugin_module_refs_(), 1, __ATOMIC_SEQ_CST);
}

static inline void clrie_plugin_module_unref(void)
{
    __atomic_fetch_sub(clrie_plugin_module_refs_(), 1, __ATOMIC_SEQ_CST);
}

/* DllCanUnloadNow's answer: S_OK when no module reference is held. */
static inline HRESULT clrie_plugin_can_unload_now(void)
{
    return __atomic_load_n(clrie_plugin_module_refs_(), __ATOMIC_SEQ_CST) > 0 ? S_FALSE : S_OK;
}

typedef HRESULT (*clrie_plugin_create_fn)(const CLSID *clsid, REFIID riid, void **out);

struct clrie_plugin_factory {
    IClassFactory iface; /* first: the object is its interface */
    unsigned long refs;
    CLSID clsid;
    clrie_plugin_create_fn create;
};

static inline HRESULT clrie_plugin_factory_QueryInterface_(IClassFactory *This, REFIID riid,
                                                           void **out)
{
    if (!out)
        return E_POINTER;
    *out = NULL;
    if (!riid)
        return E_INVALIDARG;
    if (!IsEqualIID(riid, &IID_IUnknown) && !IsEqualIID(riid, &IID_IClassFactory))
        return E_NOINTERFACE;
    __atomic_fetch_add(&((struct clrie_plugin_factory *)This)->refs, 1, __ATOMIC_SEQ_CST);
    *out = This;
    return S_OK;
}

static inline ULONG clrie_plugin_factory_AddRef_(IClassFactory *This)
{
    return (ULONG)__atomic_add_fetch(&((struct clrie_plugin_factory *)This)->refs, 1,
                                     __ATOMIC_SEQ_CST);
}

static inline ULONG clrie_plugin_factory_Release_(IClassFactory *This)
{
    unsigned long left =
        __atomic_sub_fetch(&((struct clrie_plugin_factory *)This)->refs, 1, __ATOMIC_SEQ_CST);
    if (left == 0) {
        free(This);
        clrie_plugin_module_unref();
    }
    return (ULONG)left;
}

static inline HRESULT clrie_plugin_factory_CreateInstance_(IClassFactory *This, IUnknown *outer,
                                                           REFIID riid, void **out)
{
    if (!out)
        return E_POINTER;
    *out = NULL;
    if (outer)
        return CLASS_E_NOAGGREGATION;
    struct clrie_plugin_factory *factory = (struct clrie_plugin_factory *)This;
    return factory->create(&factory->clsid, riid, out);
}

static inline HRESULT clrie_plugin_factory_LockServer_(IClassFactory *This, BOOL lock)
{
    (void)This;
    if (lock)
        clrie_plugin_module_ref();
    else
        clrie_plugin_module_unref();
    return S_OK;
}

/* A new class factory for clsid, queried for riid into *out: DllGetClassObject's work. */
static inline HRESULT clrie_plugin_factory_get(clrie_plugin_create_fn create, REFCLSID clsid,
                                               REFIID riid, void **out)
{
    static const struct IClassFactoryVtbl vtbl = {
        clrie_plugin_factory_QueryInterface_, clrie_plugin_factory_AddRef_,
        clrie_plugin_factory_Release_,        clrie_plugin_factory_CreateInstance_,
        clrie_plugin_factory_LockServer_,
    };
    if (!out)
        return E_POINTER;
    *out = NULL;
    if (!clsid || !riid)
        return E_INVALIDARG;
    struct clrie_plugin_factory *factory =
        (struct clrie_plugin_factory *)calloc(1, sizeof *factory);
    if (!factory)
        return E_OUTOFMEMORY;
    factory->iface.lpVtbl = &vtbl;
    factory->refs = 1;
    factory->clsid = *clsid;
    factory->create = create;
    clrie_plugin_module_ref();
    HRESULT hr = clrie_plugin_factory_QueryInterface_(&factory->iface, riid, out);
    clrie_plugin_factory_Release_(&factory->iface);
    return hr;
}

/* Defines the module's exports DllGetClassObject and DllCanUnloadNow (visible even when the
 * plugin builds with -fvisibility=hidden). Expand once, at file scope. */
#define CLRIE_PLUGIN_EXPORT_CLASS_FACTORY(create)                                                  \
    __attribute__((visibility("default"))) HRESULT DllGetClassObject(REFCLSID rclsid, REFIID riid, \
                                                                     void **ppv);                  \
    __attribute__((visibility("default"))) HRESULT DllCanUnloadNow(void);                          \
    HRESULT DllGetClassObject(REFCLSID rclsid, REFIID riid, void **ppv)                            \
    {                                                                                              \
        return clrie_plugin_factory_get((create), rclsid, riid, ppv);                              \
    }                                                                                              \
    HRESULT DllCanUnloadNow(void)                                                                  \
    {                                                                                              \
        return clrie_plugin_can_unload_now();                                                      \
    }

#ifdef __cplusplus
}
#endif

#endif /* CLRIE_PLUGIN_H */
