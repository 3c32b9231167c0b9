/* Following a TypeRef to its TypeDef in the loaded module that defines it, to tell whether the
 * type is by-ref-like (`IsByRefLikeAttribute` on the definition): a method that takes or returns
 * one cannot be wrapped, since the wrapper boxes every argument and the result.
 *
 * A TypeRef names its assembly (an AssemblyRef), or the type it is nested in (another TypeRef).
 * The assembly is looked up among the modules the plugin has seen load, by simple name; when
 * its manifest module does not define the type but forwards it (an ExportedType whose
 * implementation is another AssemblyRef, as System.Runtime forwards System.Span`1 to
 * System.Private.CoreLib), the forward is followed. An assembly that has not loaded yet gives
 * no answer: the caller asks again at the ReJIT, by when the method's callers have been compiled
 * and so have loaded the types of its parameters. */
#include <string.h>
#include <strings.h>

#include "tracer_plugin.h"

/* Forwards and enclosing types followed at most, against cycles in hostile metadata. */
#define MAX_DEPTH 8

#define BYREF_LIKE_ATTRIBUTE u"System.Runtime.CompilerServices.IsByRefLikeAttribute"

/* A TypeDef found in a loaded module; the module is borrowed from the plugin's list (read lock
 * held by the caller). */
struct found {
    struct clrie_tracer__module *module;
    mdTypeDef type;
};

static struct clrie_tracer__module *loaded_assembly(struct clrie_tracer__plugin *s,
                                                    const char *name)
{
    for (struct clrie_tracer__module *e = s->modules; e; e = e->next)
        if (strcasecmp(e->assembly, name) == 0)
            return e;
    return NULL;
}

static bool find_in_assembly(struct clrie_tracer__plugin *s, const char *assembly,
                             const WCHAR *name, struct found *out, int depth);

/* The type `name` (not nested) as the module defines it or forwards it. */
static bool find_in_module(struct clrie_tracer__plugin *s, struct clrie_tracer__module *e,
                           const WCHAR *name, struct found *out, int depth)
{
    struct clrie_plugin_metadata md;
    bool found = false;
    if (FAILED(clrie_plugin_metadata_init(&md, e->module)))
        return false;
    mdTypeDef type = mdTokenNil;
    mdExportedType exported = mdTokenNil;
    mdToken implementation = mdTokenNil;
    WCHAR target[CLRIE_PLUGIN_NAME_UNITS];
    char target_utf8[CLRIE_PLUGIN_NAME_UNITS * 3];
    if (md.import->lpVtbl->FindTypeDefByName(md.import, name, mdTokenNil, &type) == S_OK) {
        *out = (struct found){.module = e, .type = type};
        found = true;
    } else if (md.assembly_import &&
               md.assembly_import->lpVtbl->FindExportedTypeByName(md.assembly_import, name,
                                                                  mdTokenNil, &exported) == S_OK &&
               SUCCEEDED(md.assembly_import->lpVtbl->GetExportedTypeProps(
                   md.assembly_import, exported, NULL, 0, NULL, &implementation, NULL, NULL)) &&
               (implementation & 0xFF000000u) == mdtAssemblyRef &&
               SUCCEEDED(md.assembly_import->lpVtbl->GetAssemblyRefProps(
                   md.assembly_import, implementation, NULL, NULL, target, CLRIE_PLUGIN_NAME_UNITS,
                   NULL, NULL, NULL, NULL, NULL))) {
        clrie_plugin_bstr_to_utf8_buf(target, target_utf8, sizeof target_utf8);
        found = find_in_assembly(s, target_utf8, name, out, depth + 1);
    }
    clrie_plugin_metadata_finish(&md);
    return found;
}

static bool find_in_assembly(struct clrie_tracer__plugin *s, const char *assembly,
                             const WCHAR *name, struct found *out, int depth)
{
    struct clrie_tracer__module *e = depth < MAX_DEPTH ? loaded_assembly(s, assembly) : NULL;
    return e && find_in_module(s, e, name, out, depth);
}

/* The definition of TypeRef `type` of the module whose metadata is md. */
static bool find_typeref(struct clrie_tracer__plugin *s, const struct clrie_plugin_metadata *md,
                         mdTypeRef type, struct found *out, int depth)
{
    WCHAR name[CLRIE_PLUGIN_NAME_UNITS], scope_name[CLRIE_PLUGIN_NAME_UNITS];
    char scope_utf8[CLRIE_PLUGIN_NAME_UNITS * 3];
    mdToken scope = mdTokenNil;
    if (depth >= MAX_DEPTH || FAILED(md->import->lpVtbl->GetTypeRefProps(
                                  md->import, type, &scope, name, CLRIE_PLUGIN_NAME_UNITS, NULL)))
        return false;
    switch (scope & 0xFF000000u) {
    case mdtAssemblyRef:
        if (!md->assembly_import || FAILED(md->assembly_import->lpVtbl->GetAssemblyRefProps(
                                        md->assembly_import, scope, NULL, NULL, scope_name,
                                        CLRIE_PLUGIN_NAME_UNITS, NULL, NULL, NULL, NULL, NULL)))
            return false;
        clrie_plugin_bstr_to_utf8_buf(scope_name, scope_utf8, sizeof scope_utf8);
        return find_in_assembly(s, scope_utf8, name, out, depth + 1);
    case mdtTypeRef: {
        /* nested: the enclosing type's definition, then this one inside it */
        struct found outer;
        struct clrie_plugin_metadata outer_md;
        mdTypeDef nested = mdTokenNil;
        if (!find_typeref(s, md, scope, &outer, depth + 1) ||
            FAILED(clrie_plugin_metadata_init(&outer_md, outer.module->module)))
            return false;
        bool found = outer_md.import->lpVtbl->FindTypeDefByName(outer_md.import, name, outer.type,
                                                                &nested) == S_OK;
        clrie_plugin_metadata_finish(&outer_md);
        if (found)
            *out = (struct found){.module = outer.module, .type = nested};
        return found;
    }
    default:
        return false; /* a ModuleRef (another module of a multi-module assembly): not followed */
    }
}

enum clrie_tracer_byref_like clrie_tracer__typeref_byref_like(struct clrie_tracer__plugin *s,
                                                              IModuleInfo *module, mdTypeRef type)
{
    struct clrie_plugin_metadata md, definer;
    struct found found;
    enum clrie_tracer_byref_like answer = CLRIE_TRACER_BYREF_LIKE_UNKNOWN;
    if (FAILED(clrie_plugin_metadata_init(&md, module)))
        return answer;
    clrie_os_rwlock_read_lock(&s->lock);
    if (find_typeref(s, &md, type, &found, 0) &&
        SUCCEEDED(clrie_plugin_metadata_init(&definer, found.module->module))) {
        answer = definer.import->lpVtbl->GetCustomAttributeByName(
                     definer.import, found.type, BYREF_LIKE_ATTRIBUTE, NULL, NULL) == S_OK
                     ? CLRIE_TRACER_BYREF_LIKE
                     : CLRIE_TRACER_NOT_BYREF_LIKE;
        clrie_plugin_metadata_finish(&definer);
    }
    clrie_os_rwlock_read_unlock(&s->lock);
    clrie_plugin_metadata_finish(&md);
    return answer;
}

enum clrie_tracer_byref_like clrie_tracer__typerefs_of_module(void *data, mdTypeRef type)
{
    struct clrie_tracer__typerefs_of *of = data;
    return clrie_tracer__typeref_byref_like(of->s, of->module, type);
}
