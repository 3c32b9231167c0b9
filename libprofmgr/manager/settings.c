/* A plugin's config settings as CLRIE's attach objects: IInstrumentationMethodAttachContext,
 * IEnumInstrumentationMethodSettings (enum.h's snapshot enumerator) and
 * IInstrumentationMethodSetting (settings.h). */
#include "settings.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "com.h"
#include "enum.h"
#include "utf16.h"

struct settings {
    atomic_ulong refs;
    size_t count;
    struct setting_text {
        BSTR name;
        BSTR value;
    } items[];
};

/* One setting handed to a plugin: a position in a table it keeps alive. */
struct setting {
    IInstrumentationMethodSetting iface;
    struct clrie_plugin_com com;
    struct settings *settings;
    size_t index;
};

/* ---- the table ---------------------------------------------------------------------------- */

/* A new BSTR from 0-terminated UTF-8 (NULL: empty). */
static HRESULT bstr_of(const char *text, BSTR *out)
{
    char16_t *wide = NULL;
    size_t len = 0;
    if (!text)
        text = "";
    int rc = clrie_pm_utf8_to_utf16(text, strlen(text), &wide, &len);
    if (rc != 0)
        return rc == -ENOMEM ? E_OUTOFMEMORY : E_INVALIDARG;
    *out = clrie_pm_bstr_new(wide, len);
    free(wide);
    return *out ? S_OK : E_OUTOFMEMORY;
}

HRESULT clrie_pm__settings_new(const struct clrie_config_setting *items, size_t count,
                               struct settings **out)
{
    if (!out || (count && !items))
        return E_POINTER;
    *out = NULL;
    struct settings *s = calloc(1, sizeof(*s) + count * sizeof(s->items[0]));
    if (!s)
        return E_OUTOFMEMORY;
    atomic_init(&s->refs, 1);
    s->count = count;
    for (size_t i = 0; i < count; i++) {
        HRESULT hr = bstr_of(items[i].name, &s->items[i].name);
        if (SUCCEEDED(hr))
            hr = bstr_of(items[i].value, &s->items[i].value);
        if (FAILED(hr)) {
            clrie_pm__settings_unref(s);
            return hr;
        }
    }
    *out = s;
    return S_OK;
}

void clrie_pm__settings_ref(struct settings *settings)
{
    atomic_fetch_add_explicit(&settings->refs, 1, memory_order_relaxed);
}

void clrie_pm__settings_unref(struct settings *settings)
{
    if (!settings || atomic_fetch_sub_explicit(&settings->refs, 1, memory_order_acq_rel) != 1)
        return;
    for (size_t i = 0; i < settings->count; i++) {
        clrie_pm_bstr_free(settings->items[i].name);
        clrie_pm_bstr_free(settings->items[i].value);
    }
    free(settings);
}

/* ---- IInstrumentationMethodSetting ---------------------------------------------------------- */

static struct setting *setting_of(IInstrumentationMethodSetting *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct setting, iface);
}

static void setting_destroy(void *object)
{
    struct setting *s = object;
    clrie_pm__settings_unref(s->settings);
    free(s);
}

static const struct clrie_plugin_com_iface setting_ifaces[] = {
    CLRIE_PLUGIN_COM_IFACE(&IID_IInstrumentationMethodSetting, struct setting, iface),
};
CLRIE_PM_COM_CLASS(setting_class, "IInstrumentationMethodSetting", struct setting, com,
                   setting_destroy, setting_ifaces);
CLRIE_PLUGIN_COM_IUNKNOWN(setting, IInstrumentationMethodSetting, struct setting, iface, com)

static HRESULT copy_bstr(BSTR text, BSTR *out)
{
    if (!out)
        return E_POINTER;
    *out = clrie_pm_bstr_new(text, clrie_pm_bstr_len(text));
    return *out ? S_OK : E_OUTOFMEMORY;
}

static HRESULT STDMETHODCALLTYPE setting_GetName(IInstrumentationMethodSetting *This,
                                                 BSTR *pbstrName)
{
    struct setting *s = setting_of(This);
    return copy_bstr(s->settings->items[s->index].name, pbstrName);
}

static HRESULT STDMETHODCALLTYPE setting_GetValue(IInstrumentationMethodSetting *This,
                                                  BSTR *pbstrValue)
{
    struct setting *s = setting_of(This);
    return copy_bstr(s->settings->items[s->index].value, pbstrValue);
}

static const struct IInstrumentationMethodSettingVtbl setting_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(setting),
    .GetName = setting_GetName,
    .GetValue = setting_GetValue,
};

static IInstrumentationMethodSetting *setting_new(struct settings *settings, size_t index)
{
    struct setting *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->iface.lpVtbl = &setting_vtbl;
    clrie_plugin_com_init(&s->com, &setting_class);
    clrie_pm__settings_ref(settings);
    s->settings = settings;
    s->index = index;
    return &s->iface;
}

/* ---- IEnumInstrumentationMethodSettings ------------------------------------------------------ */

/* A snapshot (enum.h) of one setting object per entry, made up front like every other
 * enumerator of the engine, so Next cannot run out of memory half way. */
HRESULT clrie_pm__settings_enum_new(struct settings *settings,
                                    IEnumInstrumentationMethodSettings **out)
{
    if (!out)
        return E_POINTER;
    *out = NULL;
    if (!settings)
        return E_INVALIDARG;
    struct clrie_pm_enum *e =
        clrie_pm_enum_new(&IID_IEnumInstrumentationMethodSettings, settings->count, NULL, 0);
    if (!e)
        return E_OUTOFMEMORY;
    IEnumInstrumentationMethodSettings *iface = clrie_pm_enum_iface(e);
    for (size_t i = 0; i < settings->count; i++) {
        IInstrumentationMethodSetting *item = setting_new(settings, i);
        if (!item) {
            iface->lpVtbl->Release(iface);
            return E_OUTOFMEMORY;
        }
        clrie_pm_enum_add(e, (IUnknown *)(void *)item);
        item->lpVtbl->Release(item);
    }
    *out = iface;
    return S_OK;
}

/* ---- IInstrumentationMethodAttachContext ----------------------------------------------------- */

static struct attach_context *context_of(IInstrumentationMethodAttachContext *iface)
{
    return CLRIE_CONTAINER_OF(iface, struct attach_context, iface);
}

CLRIE_PM_COM_AGGREGATED(context, IInstrumentationMethodAttachContext, struct attach_context, iface,
                        outer)

static HRESULT STDMETHODCALLTYPE context_EnumSettings(IInstrumentationMethodAttachContext *This,
                                                      IEnumInstrumentationMethodSettings **ppEnum)
{
    struct attach_context *context = context_of(This);
    if (!ppEnum)
        return E_POINTER;
    *ppEnum = NULL;
    if (context->settings)
        return clrie_pm__settings_enum_new(context->settings, ppEnum);
    struct settings *none = NULL;
    HRESULT hr = clrie_pm__settings_new(NULL, 0, &none);
    if (SUCCEEDED(hr))
        hr = clrie_pm__settings_enum_new(none, ppEnum);
    clrie_pm__settings_unref(none);
    return hr;
}

static const struct IInstrumentationMethodAttachContextVtbl context_vtbl = {
    CLRIE_PLUGIN_COM_IUNKNOWN_SLOTS(context),
    .EnumSettings = context_EnumSettings,
};

void clrie_pm__attach_context_init(struct attach_context *context, IUnknown *outer)
{
    context->iface.lpVtbl = &context_vtbl;
    context->outer = outer;
    context->settings = NULL;
}

void clrie_pm__attach_context_set_settings(struct attach_context *context,
                                           struct settings *settings)
{
    clrie_pm__settings_unref(context->settings);
    context->settings = settings;
}

void clrie_pm__attach_context_finish(struct attach_context *context)
{
    clrie_pm__settings_unref(context->settings);
    context->settings = NULL;
}
