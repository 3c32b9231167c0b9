/* Instrumentation points from XML files (docs/tracers.md has the format):
 *
 *   <Tracing>
 *     <Tracer factory="Sample.Recorder" library="recorder/Sample.Tracers.dll">
 *       <Method assembly="Sample" type="Sample.Program" name="Sum" parameters="System.Int32[]"/>
 *     </Tracer>
 *   </Tracing>
 *
 * libxml2 reads a file into a tree (no network, no DTD, entities left alone); a SAX hook
 * records where each element starts so that every problem names its file:line:col. A file is
 * taken whole or not at all: a half-read file would trace half of what was meant. */
#include "points.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/SAX2.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include "clrie/os/error.h"
#include "clrie/os/file.h"
#include "clrie/os/fs.h"
#include "clrie/os/strings.h"

/* Past this many problems in one file the rest is not reported. */
#define MAX_PROBLEMS 20
/* Past this many elements in one file the file is refused (a points file names methods). */
#define MAX_ELEMENTS 100000

struct place {
    const xmlNode *node;
    unsigned line, column;
};

/* One file being read. */
struct reading {
    const char *path;
    clrie_tracer_report_fn report;
    void *data;
    unsigned problems;
    unsigned generic_errors;   /* on_generic_error's calls */
    char generic_message[256]; /* the first one's text */
    bool out_of_memory;
    startElementNsSAX2Func default_start;
    struct place *places; /* in document order, so sorted by node creation */
    size_t place_count, place_capacity;
};

static void complain(struct reading *r, unsigned line, unsigned column, const char *format, ...)
    __attribute__((format(__printf__, 4, 5)));
static void complain(struct reading *r, unsigned line, unsigned column, const char *format, ...)
{
    if (r->problems++ >= MAX_PROBLEMS)
        return;
    char message[512];
    va_list ap;
    va_start(ap, format);
    vsnprintf(message, sizeof message, format, ap);
    va_end(ap);
    for (char *c = message; *c; c++)
        if (*c == '\n' || *c == '\r' || *c == '\t')
            *c = ' ';
    if (r->report)
        r->report(r->data, r->path, line, column, message);
}

/* ---- where elements start -------------------------------------------------------------------- */

static size_t utf8_chars(const xmlChar *from, const xmlChar *to)
{
    size_t n = 0;
    for (; from < to; from++)
        n += (*from & 0xC0) != 0x80;
    return n;
}

/* Called by libxml2 when it has read an element's name and attributes; its input then stands
 * at the `>` or `/>` that ends the start tag, so the tag's `<` is the last one before it
 * (attribute values cannot hold a raw `<`). */
static void on_start_element(void *ctx, const xmlChar *localname, const xmlChar *prefix,
                             const xmlChar *uri, int nb_namespaces, const xmlChar **namespaces,
                             int nb_attributes, int nb_defaulted, const xmlChar **attributes)
{
    xmlParserCtxtPtr ctxt = ctx;
    struct reading *r = ctxt->_private;
    r->default_start(ctx, localname, prefix, uri, nb_namespaces, namespaces, nb_attributes,
                     nb_defaulted, attributes);
    if (!ctxt->node)
        return;
    if (r->place_count == MAX_ELEMENTS) {
        xmlStopParser(ctxt);
        return;
    }
    if (r->place_count == r->place_capacity) {
        size_t capacity = r->place_capacity ? r->place_capacity * 2 : 64;
        struct place *grown = realloc(r->places, capacity * sizeof *grown);
        if (!grown) {
            r->out_of_memory = true;
            xmlStopParser(ctxt);
            return;
        }
        r->places = grown;
        r->place_capacity = capacity;
    }
    struct place at = {.node = ctxt->node, .line = 0, .column = 0};
    xmlParserInputPtr in = ctxt->input;
    /* With a declared encoding other than UTF-8 the input is the text converted to UTF-8, so
     * the same walk back applies. */
    if (in && in->base && in->cur && in->cur >= in->base) {
        const xmlChar *lt = in->cur;
        while (lt > in->base && *lt != '<')
            lt--;
        unsigned newlines = 0;
        for (const xmlChar *p = lt; p < in->cur; p++)
            newlines += *p == '\n';
        if (*lt == '<' && in->line > 0 && (unsigned)in->line > newlines) {
            at.line = (unsigned)in->line - newlines;
            if (newlines == 0 && in->col > 0) {
                size_t back = utf8_chars(lt, in->cur);
                at.column = (size_t)in->col > back ? (unsigned)((size_t)in->col - back) : 0;
            } else {
                const xmlChar *start = lt;
                while (start > in->base && start[-1] != '\n')
                    start--;
                at.column = (unsigned)utf8_chars(start, lt) + 1;
            }
        }
    }
    if (at.line == 0) /* the `<` is no longer in the buffer: the line the tag ends on */
        at.line = (unsigned)xmlGetLineNo(ctxt->node);
    r->places[r->place_count++] = at;
}

static struct place where(const struct reading *r, const xmlNode *node)
{
    for (size_t i = 0; i < r->place_count; i++)
        if (r->places[i].node == node)
            return r->places[i];
    return (struct place){.node = node, .line = node ? (unsigned)xmlGetLineNo(node) : 0};
}

static void on_xml_error(void *ctx, xmlErrorPtr error)
{
    xmlParserCtxtPtr ctxt = error ? error->ctxt : NULL;
    struct reading *r = ctxt ? ctxt->_private : ctx;
    if (!r || !error)
        return;
    if (error->code == XML_ERR_NO_MEMORY) {
        r->out_of_memory = true;
        return;
    }
    if (error->level == XML_ERR_WARNING)
        return;
    char message[256];
    snprintf(message, sizeof message, "%s", error->message ? error->message : "malformed XML");
    size_t n = strlen(message);
    while (n > 0 && (message[n - 1] == '\n' || message[n - 1] == ' '))
        message[--n] = '\0';
    complain(r, error->line > 0 ? (unsigned)error->line : 0,
             error->int2 > 0 ? (unsigned)error->int2 : 0, "%s", message);
}

/* ---- the elements ---------------------------------------------------------------------------- */

static bool named(const xmlNode *node, const char *name)
{
    return node->type == XML_ELEMENT_NODE && strcmp((const char *)node->name, name) == 0;
}

/* The value of the attribute, trimmed, as a new string; NULL when absent (or no memory). */
static char *attribute(struct reading *r, const xmlNode *node, const char *name, bool *present)
{
    *present = false;
    for (const xmlAttr *a = node->properties; a; a = a->next) {
        if (strcmp((const char *)a->name, name) != 0 || a->ns)
            continue;
        *present = true;
        xmlChar *value = xmlNodeListGetString(node->doc, a->children, 1);
        const char *v = value ? (const char *)value : "";
        while (*v == ' ' || *v == '\t' || *v == '\n' || *v == '\r')
            v++;
        size_t n = strlen(v);
        while (n > 0 &&
               (v[n - 1] == ' ' || v[n - 1] == '\t' || v[n - 1] == '\n' || v[n - 1] == '\r'))
            n--;
        char *copy = clrie_os_strndup(v, n);
        xmlFree(value);
        if (!copy)
            r->out_of_memory = true;
        return copy;
    }
    return NULL;
}

/* Reports attributes of `node` not in `known` (NULL-terminated). */
static void check_attributes(struct reading *r, const xmlNode *node, const char *const *known)
{
    for (const xmlAttr *a = node->properties; a; a = a->next) {
        bool ok = false;
        for (size_t i = 0; known[i] && !ok; i++)
            ok = !a->ns && strcmp((const char *)a->name, known[i]) == 0;
        if (!ok) {
            struct place at = where(r, node);
            complain(r, at.line, at.column, "<%s> has no attribute '%s'", (const char *)node->name,
                     (const char *)a->name);
        }
    }
}

/* A required, non-empty attribute; reports its absence. */
static char *required(struct reading *r, const xmlNode *node, const char *name)
{
    bool present;
    char *value = attribute(r, node, name, &present);
    if (value && *value)
        return value;
    struct place at = where(r, node);
    complain(r, at.line, at.column, "<%s> needs a non-empty '%s' attribute",
             (const char *)node->name, name);
    free(value);
    return NULL;
}

/* Text between elements may only be blank. */
static void check_children_are_elements(struct reading *r, const xmlNode *parent)
{
    for (const xmlNode *c = parent->children; c; c = c->next) {
        if (c->type != XML_TEXT_NODE)
            continue;
        for (const xmlChar *t = c->content; t && *t; t++) {
            if (*t != ' ' && *t != '\t' && *t != '\n' && *t != '\r') {
                struct place at = where(r, parent);
                complain(r, at.line, at.column, "<%s> holds text; only elements belong there",
                         (const char *)parent->name);
                return;
            }
        }
    }
}

/* Parameter types as compared: blanks removed. */
static char *squeeze(const char *text)
{
    char *out = malloc(strlen(text) + 1);
    if (!out)
        return NULL;
    size_t n = 0;
    for (const char *p = text; *p; p++)
        if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
            out[n++] = *p;
    out[n] = '\0';
    return out;
}

/* The factory's library as an absolute path: a relative one is relative to the file's folder,
 * joined to it with the separator the file's path uses. */
static char *library_path(const char *file, const char *library)
{
    if (clrie_os_path_is_absolute(library))
        return strdup(library);
    const char *slash = clrie_os_path_last_separator(file);
    size_t folder = slash ? (size_t)(slash - file) : 1;
    const char *base = slash ? file : ".";
    size_t len = folder + 1 + strlen(library) + 1;
    char *out = malloc(len);
    if (out)
        snprintf(out, len, "%.*s%c%s", (int)folder, base, slash ? *slash : CLRIE_OS_SEPARATOR,
                 library);
    return out;
}

static void point_free(struct clrie_tracer_point *p)
{
    free(p->factory);
    free(p->library);
    free(p->assembly);
    free(p->type);
    free(p->method);
    free(p->parameters);
    free(p->file);
}

static bool push(struct reading *r, struct clrie_tracer_points *out, struct clrie_tracer_point *p)
{
    if (out->count == out->capacity) {
        size_t capacity = out->capacity ? out->capacity * 2 : 16;
        struct clrie_tracer_point *grown = realloc(out->items, capacity * sizeof *grown);
        if (!grown) {
            r->out_of_memory = true;
            point_free(p);
            return false;
        }
        out->items = grown;
        out->capacity = capacity;
    }
    out->items[out->count++] = *p;
    return true;
}

static void read_method(struct reading *r, const xmlNode *node, const char *factory,
                        const char *library, struct clrie_tracer_points *out)
{
    static const char *const known[] = {"assembly", "type", "name", "parameters", NULL};
    check_attributes(r, node, known);
    if (node->children) {
        struct place at = where(r, node);
        complain(r, at.line, at.column, "<Method> is empty: it takes attributes only");
    }
    struct clrie_tracer_point p = {0};
    bool has_parameters;
    struct place at = where(r, node);
    p.assembly = required(r, node, "assembly");
    p.type = required(r, node, "type");
    p.method = required(r, node, "name");
    char *parameters = attribute(r, node, "parameters", &has_parameters);
    if (parameters) {
        p.parameters = squeeze(parameters);
        free(parameters);
        if (!p.parameters)
            r->out_of_memory = true;
    }
    p.factory = strdup(factory);
    p.library = library ? strdup(library) : NULL;
    p.file = strdup(r->path);
    p.line = at.line;
    p.column = at.column;
    if (!p.factory || (library && !p.library) || !p.file)
        r->out_of_memory = true;
    if (!p.assembly || !p.type || !p.method || !p.factory || (library && !p.library) || !p.file ||
        (has_parameters && !p.parameters)) {
        point_free(&p);
        return;
    }
    push(r, out, &p);
}

static void read_tracer(struct reading *r, const xmlNode *node, struct clrie_tracer_points *out)
{
    static const char *const known[] = {"factory", "library", NULL};
    check_attributes(r, node, known);
    check_children_are_elements(r, node);
    char *factory = required(r, node, "factory");
    bool has_library;
    char *library = attribute(r, node, "library", &has_library);
    char *path = NULL;
    if (has_library && (!library || !*library)) {
        struct place at = where(r, node);
        complain(r, at.line, at.column,
                 "<Tracer library=\"\">: name the assembly or leave the "
                 "attribute out");
    } else if (library) {
        path = library_path(r->path, library);
        if (!path)
            r->out_of_memory = true;
    }
    size_t methods = 0;
    for (const xmlNode *c = node->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        if (named(c, "Method")) {
            methods++;
            if (factory)
                read_method(r, c, factory, path, out);
        } else {
            struct place at = where(r, c);
            complain(r, at.line, at.column, "unknown element <%s> in <Tracer>: expected <Method>",
                     (const char *)c->name);
        }
    }
    if (methods == 0) {
        struct place at = where(r, node);
        complain(r, at.line, at.column, "<Tracer> names no <Method>");
    }
    free(path);
    free(library);
    free(factory);
}

static void read_document(struct reading *r, const xmlDoc *doc, struct clrie_tracer_points *out)
{
    const xmlNode *root = xmlDocGetRootElement(doc);
    if (!root || !named(root, "Tracing")) {
        struct place at = where(r, root);
        complain(r, at.line, at.column, "the root element is <%s>: expected <Tracing>",
                 root ? (const char *)root->name : "");
        return;
    }
    if (root->ns) {
        struct place at = where(r, root);
        complain(r, at.line, at.column, "<Tracing> takes no XML namespace");
    }
    static const char *const none[] = {NULL};
    check_attributes(r, root, none);
    check_children_are_elements(r, root);
    for (const xmlNode *c = root->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
            continue;
        if (named(c, "Tracer")) {
            read_tracer(r, c, out);
        } else {
            struct place at = where(r, c);
            complain(r, at.line, at.column, "unknown element <%s> in <Tracing>: expected <Tracer>",
                     (const char *)c->name);
        }
    }
}

/* ---- files and folders ------------------------------------------------------------------------
 */

static void on_doctype(void *ctx, const xmlChar *name, const xmlChar *external_id,
                       const xmlChar *system_id)
{
    xmlParserCtxtPtr ctxt = ctx;
    struct reading *r = ctxt->_private;
    complain(r, (unsigned)xmlSAX2GetLineNumber(ctx), 0, "a DOCTYPE is not allowed");
    /* The file is refused: read no further. (libxml2 would add a processing instruction of the
     * internal subset to the subset node this handler does not make, and leak it.) */
    xmlStopParser(ctxt);
}

/* A DOCTYPE is refused (on_doctype) and its entities are never defined. */
static void ignore_entity(void *ctx, const xmlChar *name, int type, const xmlChar *public_id,
                          const xmlChar *system_id, xmlChar *content)
{
}

/* The few libxml2 messages raised without a parser context (bytes the declared encoding cannot
 * convert) go to the thread's generic error function, which prints; during a parse it is this
 * one instead. The first message is kept: the file is refused with it when the parser itself
 * found nothing to say. */
static void on_generic_error(void *ctx, const char *format, ...)
    __attribute__((format(__printf__, 2, 3)));
static void on_generic_error(void *ctx, const char *format, ...)
{
    struct reading *r = ctx;
    if (r->generic_errors++ == 0) {
        va_list ap;
        va_start(ap, format);
        vsnprintf(r->generic_message, sizeof r->generic_message, format, ap);
        va_end(ap);
    }
}

int clrie_tracer_points_load_memory(struct clrie_tracer_points *points, const char *path,
                                    const char *text, size_t len, clrie_tracer_report_fn report,
                                    void *data)
{
    struct reading r = {.path = path, .report = report, .data = data};
    if (len > CLRIE_TRACER_MAX_FILE_SIZE || len > INT_MAX) {
        complain(&r, 0, 0, "the file is larger than %d bytes", CLRIE_TRACER_MAX_FILE_SIZE);
        return -EFBIG;
    }
    xmlInitParser();
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (!ctxt || !ctxt->sax) {
        xmlFreeParserCtxt(ctxt);
        return -ENOMEM;
    }
    /* ctxt->sax belongs to this context: the hooks touch nothing global. */
    ctxt->_private = &r;
    r.default_start = ctxt->sax->startElementNs;
    ctxt->sax->startElementNs = on_start_element;
    ctxt->sax->internalSubset = on_doctype;
    ctxt->sax->entityDecl = ignore_entity;
    ctxt->sax->serror = on_xml_error;
    xmlGenericErrorFunc saved_handler = xmlGenericError;
    void *saved_context = xmlGenericErrorContext;
    xmlSetGenericErrorFunc(&r, on_generic_error);
    xmlDocPtr doc =
        xmlCtxtReadMemory(ctxt, text, (int)len, path, NULL, XML_PARSE_NONET | XML_PARSE_NOCDATA);
    xmlSetGenericErrorFunc(saved_context, saved_handler);
    if (r.generic_errors > 0 && r.problems == 0) {
        size_t n = strlen(r.generic_message);
        while (n > 0 && (r.generic_message[n - 1] == '\n' || r.generic_message[n - 1] == ' '))
            r.generic_message[--n] = '\0';
        complain(&r, 0, 0, "%s", n ? r.generic_message : "the text cannot be decoded");
    }
    if (r.place_count == MAX_ELEMENTS)
        complain(&r, 0, 0, "more than %d elements: not read", MAX_ELEMENTS);
    else if (!doc && r.problems == 0 && !r.out_of_memory)
        complain(&r, 0, 0, "not well-formed XML");
    struct clrie_tracer_points added = {0};
    if (doc && r.problems == 0 && ctxt->wellFormed)
        read_document(&r, doc, &added);
    int ret = 0;
    if (r.out_of_memory) {
        ret = -ENOMEM;
    } else if (r.problems > 0) {
        ret = -EILSEQ;
    } else if (added.count > 0) {
        size_t need = points->count + added.count;
        if (need > points->capacity) {
            struct clrie_tracer_point *grown = realloc(points->items, need * sizeof *grown);
            if (!grown)
                ret = -ENOMEM;
            else {
                points->items = grown;
                points->capacity = need;
            }
        }
        if (ret == 0) {
            memcpy(points->items + points->count, added.items, added.count * sizeof *added.items);
            points->count = need;
            added.count = 0;
        }
    }
    clrie_tracer_points_finish(&added);
    xmlFreeDoc(doc);
    xmlFreeParserCtxt(ctxt);
    free(r.places);
    return ret;
}

int clrie_tracer_points_load_file(struct clrie_tracer_points *points, const char *path,
                                  clrie_tracer_report_fn report, void *data)
{
    struct reading r = {.path = path, .report = report, .data = data};
    struct clrie_os_file *file = NULL;
    struct clrie_os_file_info info;
    char why[128];
    int err = clrie_os_file_open(path, 0, &file);
    if (err == 0)
        err = clrie_os_file_info(file, &info);
    if (err != 0) {
        complain(&r, 0, 0, "cannot read the file: %s",
                 clrie_os_strerror(-err, why, sizeof(why)));
        clrie_os_file_close(file);
        return err;
    }
    if (info.kind != CLRIE_OS_FILE) {
        clrie_os_file_close(file);
        complain(&r, 0, 0, "not a regular file");
        return -EINVAL;
    }
    if (info.size > CLRIE_TRACER_MAX_FILE_SIZE) {
        clrie_os_file_close(file);
        complain(&r, 0, 0, "the file is larger than %d bytes", CLRIE_TRACER_MAX_FILE_SIZE);
        return -EFBIG;
    }
    size_t size = (size_t)info.size, len = 0;
    char *text = malloc(size + 1);
    if (!text) {
        clrie_os_file_close(file);
        return -ENOMEM;
    }
    while (len < size) {
        size_t got = 0;
        err = clrie_os_file_read(file, text + len, size - len, &got);
        if (err != 0 || got == 0)
            break;
        len += got;
    }
    clrie_os_file_close(file);
    if (len < size) {
        free(text);
        complain(&r, 0, 0, "cannot read the file: %s",
                 err == 0 ? "it shrank" : clrie_os_strerror(-err, why, sizeof(why)));
        return -EIO;
    }
    int ret = clrie_tracer_points_load_memory(points, path, text, len, report, data);
    free(text);
    return ret;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_points_file(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && name[0] != '.' && strcasecmp(name + n - 4, ".xml") == 0;
}

int clrie_tracer_points_load_folder(struct clrie_tracer_points *points, const char *folder,
                                    clrie_tracer_report_fn report, void *data, size_t *files)
{
    if (files)
        *files = 0;
    struct clrie_os_dir *dir = NULL;
    int ret = clrie_os_dir_open(folder, &dir);
    if (ret != 0) {
        char why[128];
        struct reading r = {.path = folder, .report = report, .data = data};
        complain(&r, 0, 0, "cannot read the folder: %s",
                 clrie_os_strerror(-ret, why, sizeof(why)));
        return ret;
    }
    char **names = NULL;
    size_t count = 0, capacity = 0;
    const char *name;
    int more;
    while (ret == 0 && (more = clrie_os_dir_next(dir, &name)) != 0) {
        if (more < 0) {
            ret = more == -ENOMEM ? more : 0; /* a listing cut short: read what it gave */
            break;
        }
        if (!is_points_file(name))
            continue;
        if (count == capacity) {
            capacity = capacity ? capacity * 2 : 16;
            char **grown = realloc(names, capacity * sizeof *grown);
            if (!grown) {
                ret = -ENOMEM;
                break;
            }
            names = grown;
        }
        size_t len = strlen(folder) + 1 + strlen(name) + 1;
        names[count] = malloc(len);
        if (!names[count]) {
            ret = -ENOMEM;
            break;
        }
        snprintf(names[count++], len, "%s%c%s", folder, CLRIE_OS_SEPARATOR, name);
    }
    clrie_os_dir_close(dir);
    if (ret == 0)
        qsort(names, count, sizeof *names, by_name);
    for (size_t i = 0; i < count; i++) {
        if (ret == 0) {
            int one = clrie_tracer_points_load_file(points, names[i], report, data);
            if (one == -ENOMEM)
                ret = one;
            else if (one == 0 && files)
                (*files)++;
        }
        free(names[i]);
    }
    free(names);
    return ret;
}

void clrie_tracer_points_finish(struct clrie_tracer_points *points)
{
    if (!points)
        return;
    for (size_t i = 0; i < points->count; i++)
        point_free(&points->items[i]);
    free(points->items);
    *points = (struct clrie_tracer_points){0};
}

/* a and b equal with blanks in b ignored (a has none). */
static bool same_without_blanks(const char *a, const char *b)
{
    for (;; a++, b++) {
        while (*b == ' ' || *b == '\t')
            b++;
        if (*a != *b)
            return false;
        if (!*a)
            return true;
    }
}

bool clrie_tracer_point_matches(const struct clrie_tracer_point *point, const char *assembly,
                                const char *type, const char *method, const char *parameters)
{
    if (strcasecmp(point->assembly, assembly) != 0 || strcmp(point->type, type) != 0 ||
        strcmp(point->method, method) != 0)
        return false;
    if (!point->parameters)
        return true;
    return parameters && same_without_blanks(point->parameters, parameters);
}
