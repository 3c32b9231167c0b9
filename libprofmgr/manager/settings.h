/* A plugin's settings: the <Settings><Setting Name=".." Value=".."/></Settings> of its
 * <InstrumentationMethod> entry, handed to the plugin through CLRIE's own attach interfaces.
 * A plugin asks its IProfilerManager for IInstrumentationMethodAttachContext (QueryInterface)
 * and calls EnumSettings; each IInstrumentationMethodSetting answers GetName and GetValue with
 * a new BSTR the plugin frees with IProfilerStringManager::FreeString (or the engine's
 * InstrumentationEngineFreeString export). A plugin written for Microsoft's CLRIE gets the
 * same objects from InitializeForAttach, so reading settings this way stays ABI-clean.
 *
 * Threads: a settings table never changes once made and is reference counted (atomic);
 * enumerators lock their own cursor, so every object here may be used from any thread. */
#ifndef CLRIE_PM_SETTINGS_H
#define CLRIE_PM_SETTINGS_H

#include <stddef.h>

#include "clrie/abi/instrumentation.h"
#include "clrie/config.h"

/* An immutable list of name/value pairs. */
struct settings;

/* Copies count settings (UTF-8, as libconfig gives them) into a new table with one reference.
 * count 0 makes an empty table. Returns S_OK, E_OUTOFMEMORY, or E_INVALIDARG for text that is
 * not UTF-8 (nothing is created then). */
HRESULT clrie_pm__settings_new(const struct clrie_config_setting *items, size_t count,
                               struct settings **out);
void clrie_pm__settings_ref(struct settings *settings);
void clrie_pm__settings_unref(struct settings *settings); /* NULL is fine */

/* A new enumerator over the table, positioned at the start (one reference, the caller's). */
HRESULT clrie_pm__settings_enum_new(struct settings *settings,
                                    IEnumInstrumentationMethodSettings **out);

/* IInstrumentationMethodAttachContext as part of another COM object (the plugin's host):
 * QueryInterface, AddRef and Release go to `outer`, EnumSettings enumerates `settings` (none
 * yet: an empty enumeration). */
struct attach_context {
    IInstrumentationMethodAttachContext iface;
    IUnknown *outer;
    struct settings *settings; /* one reference held; NULL for none */
};

void clrie_pm__attach_context_init(struct attach_context *context, IUnknown *outer);
/* Gives the context its settings (takes over the caller's reference; replaces any before). */
void clrie_pm__attach_context_set_settings(struct attach_context *context,
                                           struct settings *settings);
void clrie_pm__attach_context_finish(struct attach_context *context);

#endif
