/* Which methods of a module the points name, and, for a point that names none, the nearest
 * candidates: what the plugin logs when an assembly loads (modules.c) and what
 * clrie-tracer-check prints (check/), from the same code, so that the two cannot disagree.
 * Both read the module through IMetaDataImport: the runtime's in the plugin, one over the
 * tool's assembly reader in the tool. */
#include "match.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <clrie/plugin.h>

/* How many names "nearest" lists (when none is near, how many it lists all the same), and how
 * many parameter lists. */
#define NEAREST_NAMES 5
#define FALLBACK_NAMES 3
#define MAX_OVERLOADS 8
/* Names longer than this are compared by their first so many bytes. */
#define DISTANCE_MAX_LEN 256

/* ---- matching ------------------------------------------------------------------------------- */

struct matching {
    IMetaDataImport *import;
    const char *assembly;
    const struct clrie_tracer_points *points;
    size_t *counts;
    clrie_tracer_match_fn fn;
    void *data;
};

/* Splits `Type::Method` (UTF-16) into type[] and the method name within it; false when the
 * name has no `::`. */
static bool split_name(const WCHAR *full_name, char *out, size_t size, const char **method)
{
    clrie_plugin_bstr_to_utf8_buf(full_name, out, size);
    char *sep = strstr(out, "::");
    if (!sep)
        return false;
    *sep = '\0';
    *method = sep + 2;
    return true;
}

static bool names_method(const struct clrie_tracer_point *p, const char *assembly, const char *type,
                         const char *method)
{
    return strcasecmp(p->assembly, assembly) == 0 && strcmp(p->type, type) == 0 &&
           strcmp(p->method, method) == 0;
}

/* The parameter text of a method, or NULL when its signature cannot be read. */
static const char *parameters_of(IMetaDataImport *import, mdMethodDef token, char *out, size_t size)
{
    mdTypeDef owner = mdTokenNil;
    PCCOR_SIGNATURE sig = NULL;
    ULONG sig_len = 0, rva = 0, name_len = 0;
    DWORD attributes = 0, impl = 0;
    if (FAILED(import->lpVtbl->GetMethodProps(import, token, &owner, NULL, 0, &name_len,
                                              &attributes, &sig, &sig_len, &rva, &impl)) ||
        clrie_tracer_parameters_text(import, sig, sig_len, out, size) != 0)
        return NULL;
    return out;
}

static HRESULT match_one(void *data, mdMethodDef token, const WCHAR *full_name, ULONG rva)
{
    struct matching *m = data;
    if (rva == 0)
        return S_OK; /* no IL: abstract, extern or runtime-implemented, never traced */
    char name[CLRIE_PLUGIN_NAME_UNITS * 3];
    const char *method = NULL;
    if (!split_name(full_name, name, sizeof name, &method))
        return S_OK;
    char parameters[CLRIE_TRACER_PARAMETERS_SIZE];
    const char *text = NULL;
    bool have_parameters = false;
    for (size_t i = 0; i < m->points->count; i++) {
        const struct clrie_tracer_point *p = &m->points->items[i];
        if (!names_method(p, m->assembly, name, method))
            continue;
        if (!have_parameters) {
            text = parameters_of(m->import, token, parameters, sizeof parameters);
            have_parameters = true;
        }
        /* a signature that cannot be read: the plugin leaves the method alone, with a line */
        if (!text || !clrie_tracer_point_matches(p, m->assembly, name, method, text))
            continue;
        m->counts[i]++;
        if (m->fn)
            m->fn(m->data, i, token, name, method, text);
    }
    return S_OK;
}

int clrie_tracer_match_module(IMetaDataImport *import, const char *assembly,
                              const struct clrie_tracer_points *points, size_t *counts,
                              clrie_tracer_match_fn fn, void *data)
{
    if (strcasecmp(assembly, CLRIE_TRACER_LIBRARY) == 0)
        return 0;
    struct matching m = {.import = import,
                         .assembly = assembly,
                         .points = points,
                         .counts = counts,
                         .fn = fn,
                         .data = data};
    HRESULT hr = clrie_plugin_method_defs_each(import, match_one, &m);
    if (hr == E_OUTOFMEMORY)
        return -ENOMEM;
    return FAILED(hr) ? -EILSEQ : 0;
}

/* ---- the nearest candidates ----------------------------------------------------------------- */

size_t clrie_tracer_edit_distance(const char *a, const char *b)
{
    size_t n = strnlen(a, DISTANCE_MAX_LEN), m = strnlen(b, DISTANCE_MAX_LEN);
    size_t row[DISTANCE_MAX_LEN + 1];
    for (size_t j = 0; j <= m; j++)
        row[j] = j;
    for (size_t i = 1; i <= n; i++) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t above = row[j];
            size_t best = diagonal + (a[i - 1] != b[j - 1]);
            if (above + 1 < best)
                best = above + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diagonal = above;
        }
    }
    return row[m];
}

/* Distinct names, each with its distance to what was asked for. */
struct nearest {
    const char *wanted;
    struct near_name {
        char *name;
        size_t distance;
    } * items;
    size_t count, capacity;
    int error;
};

static void nearest_add(struct nearest *n, const char *name)
{
    if (n->error || name[0] == '<' || name[0] == '\0')
        return; /* compiler-generated (<Module>, <Main>$, <>c): nobody names them */
    for (size_t i = 0; i < n->count; i++)
        if (strcmp(n->items[i].name, name) == 0)
            return;
    if (n->count == n->capacity) {
        size_t capacity = n->capacity ? n->capacity * 2 : 32;
        struct near_name *grown = realloc(n->items, capacity * sizeof *grown);
        if (!grown) {
            n->error = -ENOMEM;
            return;
        }
        n->items = grown;
        n->capacity = capacity;
    }
    char *copy = strdup(name);
    if (!copy) {
        n->error = -ENOMEM;
        return;
    }
    n->items[n->count++] = (struct near_name){copy, clrie_tracer_edit_distance(n->wanted, name)};
}

static int by_distance(const void *a, const void *b)
{
    const struct near_name *x = a, *y = b;
    if (x->distance != y->distance)
        return x->distance < y->distance ? -1 : 1;
    return strcmp(x->name, y->name);
}

static void nearest_finish(struct nearest *n)
{
    for (size_t i = 0; i < n->count; i++)
        free(n->items[i].name);
    free(n->items);
}

struct text {
    char *out;
    size_t size, used;
};

static void put(struct text *t, const char *format, ...) __attribute__((format(__printf__, 2, 3)));
static void put(struct text *t, const char *format, ...)
{
    if (t->used + 1 >= t->size)
        return;
    va_list args;
    va_start(args, format);
    int n = vsnprintf(t->out + t->used, t->size - t->used, format, args);
    va_end(args);
    if (n > 0)
        t->used = (size_t)n < t->size - t->used ? t->used + (size_t)n : t->size - 1;
}

/* "a, b, c": the names near enough to what was asked for (a third of its length and two more
 * edits), nearest first, at most NEAREST_NAMES; when none is, the FALLBACK_NAMES nearest all
 * the same (a name written from memory may share little with the real one). */
static void put_nearest(struct text *t, struct nearest *n)
{
    qsort(n->items, n->count, sizeof *n->items, by_distance);
    size_t near = strnlen(n->wanted, DISTANCE_MAX_LEN) / 3 + 2, shown = 0;
    for (size_t i = 0; i < n->count && shown < NEAREST_NAMES; i++)
        if (n->items[i].distance <= near)
            put(t, "%s%s", shown++ ? ", " : "", n->items[i].name);
    for (size_t i = 0; shown == 0 && i < n->count && i < FALLBACK_NAMES; i++)
        put(t, "%s%s", i ? ", " : "", n->items[i].name);
}

/* What the explanation gathers from the module. */
struct survey {
    IMetaDataImport *import;
    const struct clrie_tracer_point *point;
    bool type_found;
    struct nearest types;   /* every type's name (when the type is missing) */
    struct nearest methods; /* the names of the type's methods */
    char **overloads;       /* parameter texts of the methods of that name, with IL */
    size_t overload_count, overload_capacity;
    size_t without_il; /* methods of that name without IL */
    int error;
};

static void add_overload(struct survey *s, const char *parameters)
{
    for (size_t i = 0; i < s->overload_count; i++)
        if (strcmp(s->overloads[i], parameters) == 0)
            return;
    if (s->overload_count == s->overload_capacity) {
        size_t capacity = s->overload_capacity ? s->overload_capacity * 2 : 8;
        char **grown = realloc(s->overloads, capacity * sizeof *grown);
        if (!grown) {
            s->error = -ENOMEM;
            return;
        }
        s->overloads = grown;
        s->overload_capacity = capacity;
    }
    char *copy = strdup(parameters);
    if (!copy) {
        s->error = -ENOMEM;
        return;
    }
    s->overloads[s->overload_count++] = copy;
}

static HRESULT survey_method(void *data, mdMethodDef token, const WCHAR *full_name, ULONG rva)
{
    struct survey *s = data;
    char name[CLRIE_PLUGIN_NAME_UNITS * 3];
    const char *method = NULL;
    if (!split_name(full_name, name, sizeof name, &method))
        return S_OK;
    if (strcmp(name, s->point->type) != 0)
        return S_OK;
    s->type_found = true;
    if (strcmp(method, s->point->method) != 0) {
        nearest_add(&s->methods, method);
        return S_OK;
    }
    if (rva == 0) {
        s->without_il++;
        return S_OK;
    }
    char parameters[CLRIE_TRACER_PARAMETERS_SIZE];
    const char *text = parameters_of(s->import, token, parameters, sizeof parameters);
    add_overload(s, text ? text : "?");
    return S_OK;
}

/* The names of the types without methods too: a point may name one. */
static void survey_types(struct survey *s)
{
    HCORENUM e = NULL;
    mdTypeDef tokens[64];
    ULONG count = 0;
    while (s->import->lpVtbl->EnumTypeDefs(s->import, &e, tokens, 64, &count) == S_OK &&
           count > 0) {
        for (ULONG i = 0; i < count; i++) {
            WCHAR wide[CLRIE_PLUGIN_NAME_UNITS];
            char name[CLRIE_PLUGIN_NAME_UNITS * 3];
            if (FAILED(clrie_plugin_type_name(s->import, tokens[i], wide, CLRIE_PLUGIN_NAME_UNITS)))
                continue;
            clrie_plugin_bstr_to_utf8_buf(wide, name, sizeof name);
            if (strcmp(name, s->point->type) == 0)
                s->type_found = true;
            nearest_add(&s->types, name);
        }
    }
    s->import->lpVtbl->CloseEnum(s->import, e);
}

void clrie_tracer_point_text(const struct clrie_tracer_point *p, char *out, size_t size)
{
    struct text t = {.out = out, .size = size};
    if (size)
        out[0] = '\0';
    put(&t, "%s::%s", p->type, p->method);
    if (p->parameters)
        put(&t, "(%s)", p->parameters);
}

int clrie_tracer_explain_unmatched(IMetaDataImport *import, const char *assembly,
                                   const struct clrie_tracer_point *point, char *out, size_t size)
{
    struct survey s = {.import = import, .point = point};
    s.types.wanted = point->type;
    s.methods.wanted = point->method;
    struct text t = {.out = out, .size = size};
    if (size)
        out[0] = '\0';
    survey_types(&s);
    HRESULT hr = clrie_plugin_method_defs_each(import, survey_method, &s);
    int error = s.error ? s.error : s.types.error ? s.types.error : s.methods.error;
    if (!error && FAILED(hr))
        error = -EILSEQ;
    if (error)
        goto out;
    if (!s.type_found) {
        put(&t, "no type %s in assembly %s", point->type, assembly);
        if (s.types.count) {
            put(&t, "; nearest: ");
            put_nearest(&t, &s.types);
        }
    } else if (s.overload_count > 0) {
        /* the name exists: only the parameter list differs */
        put(&t, "%s::%s takes ", point->type, point->method);
        for (size_t i = 0; i < s.overload_count && i < MAX_OVERLOADS; i++)
            put(&t, "%sparameters=\"%s\"", i ? " or " : "", s.overloads[i]);
        if (s.overload_count > MAX_OVERLOADS)
            put(&t, " or %zu more", s.overload_count - MAX_OVERLOADS);
    } else if (s.without_il > 0) {
        put(&t, "%s::%s has no IL (abstract, extern or runtime-implemented): never traced",
            point->type, point->method);
    } else {
        put(&t, "%s has no method %s", point->type, point->method);
        if (s.methods.count) {
            put(&t, "; nearest: ");
            put_nearest(&t, &s.methods);
        }
    }
out:
    for (size_t i = 0; i < s.overload_count; i++)
        free(s.overloads[i]);
    free(s.overloads);
    nearest_finish(&s.types);
    nearest_finish(&s.methods);
    return error;
}
