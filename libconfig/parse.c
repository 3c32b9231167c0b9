/* One configuration document: libxml2 turns the bytes into a tree (with DTDs refused and no
 * network), then the tree is checked element by element into method drafts and problems. */
#include "config_private.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#define ROOT_NAME "InstrumentationEngineConfiguration"
#define METHOD_NAME "InstrumentationMethod"
#if UINTPTR_MAX > 0xFFFFFFFFu
#define METHOD_NAME_PLATFORM "InstrumentationMethod64"
#else
#define METHOD_NAME_PLATFORM "InstrumentationMethod32"
#endif

/* Past this many problems in one file the rest is not examined: a hostile file must not make
 * us produce (and format) one message per element of a megabyte. */
#define MAX_PROBLEMS_PER_FILE 100

struct document {
    struct file_result *r;
    const char *data;
    size_t len;
    size_t *line_starts; /* byte offset where each line begins; NULL if unavailable */
    size_t line_count;
    const char *base_dir;
    const struct clrie_config_options *opts;
    startElementNsSAX2Func default_start;
    xmlParserCtxtPtr ctxt;
    bool saw_doctype;
};

struct position {
    unsigned line, column;
};

static pthread_once_t libxml_once = PTHREAD_ONCE_INIT;

static void init_libxml(void)
{
    xmlInitParser();
}

static bool gave_up(const struct document *doc)
{
    return doc->r->diag_count >= MAX_PROBLEMS_PER_FILE || doc->r->out_of_memory;
}

static void report(struct document *doc, enum clrie_config_severity severity, struct position at,
                   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void report(struct document *doc, enum clrie_config_severity severity, struct position at,
                   const char *fmt, ...)
{
    struct file_result *r = doc->r;
    if (severity == CLRIE_CONFIG_ERROR && r->diag_count >= MAX_PROBLEMS_PER_FILE) {
        r->errors++;
        return;
    }
    if (r->diag_count >= MAX_PROBLEMS_PER_FILE)
        return;
    va_list ap;
    va_start(ap, fmt);
    file_result_vreport(r, severity, at.line, at.column, fmt, ap);
    va_end(ap);
    if (r->diag_count == MAX_PROBLEMS_PER_FILE) {
        r->truncated = true;
        file_result_report(r, CLRIE_CONFIG_ERROR, at.line, at.column,
                           "too many problems; the rest of this file is not checked");
    }
}

/* --- positions ------------------------------------------------------------------------- */

static bool index_lines(struct document *doc)
{
    size_t count = 1;
    for (size_t i = 0; i < doc->len; i++)
        if (doc->data[i] == '\n' ||
            (doc->data[i] == '\r' && (i + 1 == doc->len || doc->data[i + 1] != '\n')))
            count++;
    doc->line_starts = malloc(count * sizeof(*doc->line_starts));
    if (!doc->line_starts)
        return false;
    size_t n = 0;
    doc->line_starts[n++] = 0;
    for (size_t i = 0; i < doc->len; i++)
        if (doc->data[i] == '\n' ||
            (doc->data[i] == '\r' && (i + 1 == doc->len || doc->data[i + 1] != '\n')))
            doc->line_starts[n++] = i + 1;
    doc->line_count = n;
    return true;
}

/* Line and column (1-based, counting characters, not bytes) of a byte offset of the input. */
static struct position position_at(const struct document *doc, size_t offset)
{
    size_t lo = 0, hi = doc->line_count;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (doc->line_starts[mid] <= offset)
            lo = mid;
        else
            hi = mid;
    }
    size_t column = 1, start = doc->line_starts[lo];
    if (start == 0 && doc->len >= 3 && memcmp(doc->data, "\xEF\xBB\xBF", 3) == 0)
        start = 3; /* a byte-order mark is no character of the line */
    for (size_t i = start; i < offset; i++)
        if (((unsigned char)doc->data[i] & 0xC0) != 0x80)
            column++;
    struct position p = {
        .line = lo + 1 > UINT_MAX ? UINT_MAX : (unsigned)(lo + 1),
        .column = column > UINT_MAX ? UINT_MAX : (unsigned)column,
    };
    return p;
}

static struct position text_position(const struct document *doc, const xmlNode *node);

/* Where a node starts: the '<' of an element when the SAX hook could record it, else the
 * line libxml2 kept and no column. */
static struct position node_position(const struct document *doc, const xmlNode *node)
{
    if (node->type == XML_TEXT_NODE || node->type == XML_CDATA_SECTION_NODE)
        return text_position(doc, node);
    uintptr_t stored = (uintptr_t)node->_private;
    if (stored != 0 && doc->line_starts)
        return position_at(doc, (size_t)(stored - 1));
    long line = xmlGetLineNo((xmlNode *)node);
    struct position p = {.line = line > 0 && line < (long)UINT_MAX ? (unsigned)line : 0};
    return p;
}

/* Where the first non-blank character of a text node is. libxml2 gives a text node the line
 * it ends on; counting back the newlines after its first non-blank character gives that
 * character's line, and finding the start of the text on that line of the input gives the
 * column (0 when the text is not there byte for byte, as with entity references). */
static struct position text_position(const struct document *doc, const xmlNode *node)
{
    struct position p = {0};
    long end_line = xmlGetLineNo((xmlNode *)node);
    const char *text = (const char *)node->content;
    if (end_line <= 0 || !text)
        return p;
    const char *first = text;
    while (*first && config_is_xml_space(*first))
        first++;
    long line = end_line;
    for (const char *c = first; *c; c++)
        line -= *c == '\n';
    if (line <= 0)
        return p;
    p.line = line < (long)UINT_MAX ? (unsigned)line : 0;
    if (!doc->line_starts || (size_t)line > doc->line_count)
        return p;
    size_t want = 0;
    while (want < 16 && first[want] && !config_is_xml_space(first[want]))
        want++;
    size_t begin = doc->line_starts[line - 1];
    size_t end = (size_t)line < doc->line_count ? doc->line_starts[line] : doc->len;
    for (size_t at = begin; want > 0 && at + want <= end; at++) {
        if (memcmp(doc->data + at, first, want) == 0)
            return position_at(doc, at);
    }
    return p;
}

/* The byte offset in the raw input of what the parser reads next, when that is knowable:
 * only the document itself is being read and no encoding conversion happens, so the
 * parser's buffer is the input byte for byte. */
static bool input_offset(const struct document *doc, xmlParserCtxtPtr ctxt, size_t *out)
{
    xmlParserInputPtr in = ctxt->input;
    if (ctxt->inputNr != 1 || !in || !in->buf || in->buf->encoder || !in->cur || !in->base ||
        in->cur < in->base)
        return false;
    size_t offset = (size_t)in->consumed + (size_t)(in->cur - in->base);
    if (offset > doc->len)
        return false;
    *out = offset;
    return true;
}

/* --- the SAX hooks: per parser context, nothing global ---------------------------------- */

static void on_start_element(void *ctx, const xmlChar *localname, const xmlChar *prefix,
                             const xmlChar *uri, int nb_namespaces, const xmlChar **namespaces,
                             int nb_attributes, int nb_defaulted, const xmlChar **attributes)
{
    xmlParserCtxtPtr ctxt = ctx;
    struct document *doc = ctxt->_private;
    doc->default_start(ctx, localname, prefix, uri, nb_namespaces, namespaces, nb_attributes,
                       nb_defaulted, attributes);
    size_t offset;
    xmlNodePtr node = ctxt->node;
    if (!node || node->type != XML_ELEMENT_NODE || !node->name || !localname ||
        strcmp((const char *)node->name, (const char *)localname) != 0 ||
        !input_offset(doc, ctxt, &offset))
        return;
    /* The parser stands on the '>' (or "/>") closing the start tag; a start tag holds no
     * other '<', so the last one before it is where the element begins. */
    if (offset >= doc->len || (doc->data[offset] != '>' && doc->data[offset] != '/'))
        return;
    while (offset > 0 && doc->data[offset] != '<')
        offset--;
    if (doc->data[offset] == '<')
        node->_private = (void *)(uintptr_t)(offset + 1);
}

/* A configuration file has no use for a DTD; refusing it before its internal subset is read
 * means no entity is ever declared, so no entity can expand (billion laughs) or load an
 * external resource (XXE). */
static void on_doctype(void *ctx, const xmlChar *name, const xmlChar *external_id,
                       const xmlChar *system_id)
{
    xmlParserCtxtPtr ctxt = ctx;
    struct document *doc = ctxt->_private;
    doc->saw_doctype = true;
    struct position at = {.line = ctxt->input ? (unsigned)ctxt->input->line : 0};
    size_t offset;
    if (doc->line_starts && input_offset(doc, ctxt, &offset)) {
        static const char keyword[] = "<!DOCTYPE";
        size_t k = sizeof(keyword) - 1;
        while (offset > 0 &&
               !(offset + k <= doc->len && memcmp(doc->data + offset, keyword, k) == 0))
            offset--;
        at = position_at(doc, offset);
    }
    report(doc, CLRIE_CONFIG_ERROR, at,
           "a DOCTYPE is not allowed in a configuration file (no DTDs or entities)");
    xmlStopParser(ctxt);
}

/* A few libxml2 messages (encoding conversion failures) are raised without a parser context
 * and go to the thread's generic error function, which by default prints to stderr. While
 * our parse runs, that function is ours (see config_parse_document). */
static void on_generic_error(void *user, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void on_generic_error(void *user, const char *fmt, ...)
{
    struct document *doc = user;
    char message[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(message, sizeof(message), fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    size_t len = strlen(message);
    while (len > 0 && (message[len - 1] == '\n' || message[len - 1] == ' '))
        message[--len] = '\0';
    if (len == 0)
        return;
    struct position at = {0};
    if (doc->ctxt && doc->ctxt->input)
        at.line = doc->ctxt->input->line > 0 ? (unsigned)doc->ctxt->input->line : 0;
    report(doc, CLRIE_CONFIG_ERROR, at, "%s", message);
}

static void on_xml_error(void *user, xmlErrorPtr error)
{
    xmlParserCtxtPtr ctxt = error ? error->ctxt : NULL;
    if (!ctxt || !ctxt->_private)
        return;
    struct document *doc = ctxt->_private;
    if (error->code == XML_ERR_NO_MEMORY) {
        doc->r->out_of_memory = true;
        return;
    }
    char message[256];
    const char *text = error->message ? error->message : "malformed XML";
    size_t n = strlen(text);
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' '))
        n--;
    if (n >= sizeof(message))
        n = sizeof(message) - 1;
    memcpy(message, text, n);
    message[n] = '\0';
    for (char *c = message; *c; c++)
        if (*c == '\n' || *c == '\r' || *c == '\t')
            *c = ' '; /* one problem, one line */
    struct position at = {
        .line = error->line > 0 ? (unsigned)error->line : 0,
        .column = error->int2 > 0 ? (unsigned)error->int2 : 0,
    };
    report(doc, error->level == XML_ERR_WARNING ? CLRIE_CONFIG_WARNING : CLRIE_CONFIG_ERROR, at,
           "%s", message);
}

/* --- element checks --------------------------------------------------------------------- */

static bool is_blank(const xmlChar *text)
{
    for (const xmlChar *p = text; p && *p; p++)
        if (!config_is_xml_space((char)*p))
            return false;
    return true;
}

static bool named(const xmlNode *node, const char *name)
{
    return strcmp((const char *)node->name, name) == 0;
}

static void warn_attributes(struct document *doc, const xmlNode *node, const char *const *known)
{
    for (const xmlAttr *a = node->properties; a && !gave_up(doc); a = a->next) {
        bool ok = false;
        for (size_t i = 0; known && known[i]; i++)
            ok = ok || strcmp((const char *)a->name, known[i]) == 0;
        if (!ok)
            report(doc, CLRIE_CONFIG_WARNING, node_position(doc, node),
                   "attribute '%s' of <%s> is ignored", (const char *)a->name,
                   (const char *)node->name);
    }
}

/* Reports a child that is neither an expected element nor allowed filler (white space,
 * comments, processing instructions). Returns true when it was reported. */
static bool unexpected_content(struct document *doc, const xmlNode *parent, const xmlNode *child)
{
    switch (child->type) {
    case XML_COMMENT_NODE:
    case XML_PI_NODE:
        return false;
    case XML_TEXT_NODE:
    case XML_CDATA_SECTION_NODE:
        if (is_blank(child->content))
            return false;
        report(doc, CLRIE_CONFIG_ERROR, node_position(doc, child), "unexpected text in <%s>",
               (const char *)parent->name);
        return true;
    default:
        report(doc, CLRIE_CONFIG_ERROR, node_position(doc, child), "unexpected content in <%s>",
               (const char *)parent->name);
        return true;
    }
}

/* The trimmed text of a value element, malloc'd; NULL when it is not plain text (reported)
 * or memory ran out (r->out_of_memory). */
static char *element_text(struct document *doc, const xmlNode *node)
{
    size_t total = 0;
    bool ok = true;
    for (const xmlNode *c = node->children; c; c = c->next) {
        if (c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE)
            total += c->content ? strlen((const char *)c->content) : 0;
        else if (c->type == XML_ELEMENT_NODE) {
            report(doc, CLRIE_CONFIG_ERROR, node_position(doc, c),
                   "<%s> is not allowed inside <%s>, which holds only text", (const char *)c->name,
                   (const char *)node->name);
            ok = false;
        } else if (c->type != XML_COMMENT_NODE && c->type != XML_PI_NODE) {
            report(doc, CLRIE_CONFIG_ERROR, node_position(doc, node),
                   "<%s> holds something other than text", (const char *)node->name);
            ok = false;
        }
    }
    if (!ok)
        return NULL;
    char *text = malloc(total + 1);
    if (!text) {
        doc->r->out_of_memory = true;
        return NULL;
    }
    size_t n = 0;
    for (const xmlNode *c = node->children; c; c = c->next)
        if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) && c->content) {
            size_t len = strlen((const char *)c->content);
            memcpy(text + n, c->content, len);
            n += len;
        }
    text[n] = '\0';
    size_t start = 0;
    while (start < n && config_is_xml_space(text[start]))
        start++;
    while (n > start && config_is_xml_space(text[n - 1]))
        n--;
    memmove(text, text + start, n - start);
    text[n - start] = '\0';
    return text;
}

static char *attribute(struct document *doc, const xmlNode *node, const char *name)
{
    xmlChar *value = xmlGetNoNsProp(node, (const xmlChar *)name);
    if (!value)
        return NULL;
    char *copy = strdup((const char *)value);
    xmlFree(value);
    if (!copy)
        doc->r->out_of_memory = true;
    return copy;
}

static void check_settings(struct document *doc, const xmlNode *settings, struct method_draft *d)
{
    static const char *const setting_attributes[] = {"Name", "Value", NULL};
    warn_attributes(doc, settings, NULL);
    for (const xmlNode *c = settings->children; c && !gave_up(doc); c = c->next) {
        if (c->type != XML_ELEMENT_NODE) {
            unexpected_content(doc, settings, c);
            continue;
        }
        struct position at = node_position(doc, c);
        if (!named(c, "Setting")) {
            report(doc, CLRIE_CONFIG_ERROR, at,
                   "unknown element <%s> in <Settings>; expected <Setting Name=\"…\" Value=\"…\"/>",
                   (const char *)c->name);
            continue;
        }
        warn_attributes(doc, c, setting_attributes);
        for (const xmlNode *g = c->children; g; g = g->next)
            if (g->type == XML_ELEMENT_NODE || !is_blank(g->content))
                unexpected_content(doc, c, g);
        char *name = attribute(doc, c, "Name");
        char *value = attribute(doc, c, "Value");
        bool fine = true;
        if (!name || !*name) {
            report(doc, CLRIE_CONFIG_ERROR, at, "<Setting> needs a non-empty Name attribute");
            fine = false;
        }
        if (!value || !*value) {
            report(doc, CLRIE_CONFIG_ERROR, at, "<Setting> needs a non-empty Value attribute");
            fine = false;
        }
        for (size_t i = 0; fine && i < d->m.setting_count; i++) {
            if (strcmp(d->settings[i].name, name) == 0) {
                report(doc, CLRIE_CONFIG_WARNING, at,
                       "Setting '%s' is already given in this method; this one is ignored", name);
                fine = false;
            }
        }
        if (fine) {
            struct clrie_config_setting *grown =
                realloc(d->settings, (d->m.setting_count + 1) * sizeof(*grown));
            if (!grown) {
                doc->r->out_of_memory = true;
                fine = false;
            } else {
                d->settings = grown;
                grown[d->m.setting_count++] = (struct clrie_config_setting){name, value};
            }
        }
        if (!fine) {
            free(name);
            free(value);
        }
    }
}

enum field { F_NAME, F_DESCRIPTION, F_MODULE, F_CLASS_GUID, F_PRIORITY, F_SETTINGS, F_COUNT };
static const char *const field_names[F_COUNT] = {
    "Name", "Description", "Module", "ClassGuid", "Priority", "Settings",
};

static void check_method(struct document *doc, const xmlNode *method)
{
    struct file_result *r = doc->r;
    size_t errors_before = r->errors;
    struct position at = node_position(doc, method);
    const xmlNode *fields[F_COUNT] = {0};
    warn_attributes(doc, method, NULL);

    for (const xmlNode *c = method->children; c && !gave_up(doc); c = c->next) {
        if (c->type != XML_ELEMENT_NODE) {
            unexpected_content(doc, method, c);
            continue;
        }
        size_t f = 0;
        while (f < F_COUNT && !named(c, field_names[f]))
            f++;
        if (f == F_COUNT) {
            report(doc, CLRIE_CONFIG_ERROR, node_position(doc, c),
                   "unknown element <%s> in <%s>; expected Name, Description, Module, "
                   "ClassGuid, Priority or Settings",
                   (const char *)c->name, (const char *)method->name);
        } else if (fields[f]) {
            struct position first = node_position(doc, fields[f]);
            report(doc, CLRIE_CONFIG_ERROR, node_position(doc, c),
                   "<%s> appears twice in one <%s> (first at %u:%u)", field_names[f],
                   (const char *)method->name, first.line, first.column);
        } else {
            fields[f] = c;
        }
    }
    if (gave_up(doc))
        return;

    char *text[F_PRIORITY + 1] = {0};
    for (size_t f = 0; f <= F_PRIORITY; f++) {
        if (!fields[f]) {
            if (f != F_DESCRIPTION && f != F_PRIORITY)
                report(doc, CLRIE_CONFIG_ERROR, at, "<%s> has no <%s>", (const char *)method->name,
                       field_names[f]);
            continue;
        }
        warn_attributes(doc, fields[f], NULL);
        text[f] = element_text(doc, fields[f]);
        if (text[f] && !*text[f] && f != F_DESCRIPTION) {
            report(doc, CLRIE_CONFIG_ERROR, node_position(doc, fields[f]), "<%s> is empty",
                   field_names[f]);
        }
    }

    struct clrie_config_guid guid = {0};
    if (text[F_CLASS_GUID] && *text[F_CLASS_GUID] &&
        clrie_config_guid_parse(text[F_CLASS_GUID], strlen(text[F_CLASS_GUID]), &guid) != 0)
        report(doc, CLRIE_CONFIG_ERROR, node_position(doc, fields[F_CLASS_GUID]),
               "<ClassGuid> '%s' is not a GUID of the form {XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}",
               text[F_CLASS_GUID]);

    uint32_t priority = 0;
    if (text[F_PRIORITY] && *text[F_PRIORITY] &&
        config_parse_priority(text[F_PRIORITY], &priority) != 0)
        report(doc, CLRIE_CONFIG_ERROR, node_position(doc, fields[F_PRIORITY]),
               "<Priority> '%s' is not a whole number from 0 to 4294967295", text[F_PRIORITY]);

    char *module_path = NULL;
    if (text[F_MODULE] && *text[F_MODULE]) {
        struct position m = node_position(doc, fields[F_MODULE]);
        module_path =
            config_resolve_module(r, text[F_MODULE], doc->base_dir, doc->opts, m.line, m.column);
    }

    struct method_draft *d = NULL;
    if (r->errors == errors_before && !r->out_of_memory)
        d = file_result_add_method(r);
    if (d) {
        d->m.name = text[F_NAME];
        d->m.description = text[F_DESCRIPTION] ? text[F_DESCRIPTION] : strdup("");
        d->m.module = text[F_MODULE];
        d->m.module_path = module_path;
        d->m.class_guid = guid;
        clrie_config_guid_format(&guid, d->m.class_guid_text);
        d->m.has_priority = fields[F_PRIORITY] != NULL;
        d->m.priority = priority;
        d->m.file = strdup(r->file);
        d->m.line = at.line;
        d->m.column = at.column;
        if (!d->m.description || !d->m.file)
            r->out_of_memory = true;
        text[F_NAME] = text[F_DESCRIPTION] = text[F_MODULE] = NULL; /* now the draft's */
        module_path = NULL;
        if (fields[F_SETTINGS])
            check_settings(doc, fields[F_SETTINGS], d);
    } else if (fields[F_SETTINGS]) {
        struct method_draft scratch = {0};
        check_settings(doc, fields[F_SETTINGS], &scratch); /* for its problems only */
        method_draft_finish(&scratch);
    }
    for (size_t f = 0; f <= F_PRIORITY; f++)
        free(text[f]);
    free(module_path);
}

static void check_document(struct document *doc, const xmlDoc *xml)
{
    const xmlNode *root = xmlDocGetRootElement(xml);
    if (!root) {
        report(doc, CLRIE_CONFIG_ERROR, (struct position){0}, "the document has no root element");
        return;
    }
    if (!named(root, ROOT_NAME)) {
        report(doc, CLRIE_CONFIG_ERROR, node_position(doc, root),
               "the root element is <%s>; expected <" ROOT_NAME ">", (const char *)root->name);
        return;
    }
    warn_attributes(doc, root, NULL);
    size_t methods = 0;
    for (const xmlNode *c = root->children; c && !gave_up(doc); c = c->next) {
        if (c->type != XML_ELEMENT_NODE) {
            unexpected_content(doc, root, c);
        } else if (named(c, METHOD_NAME) || named(c, METHOD_NAME_PLATFORM)) {
            check_method(doc, c);
            methods++;
        } else {
            report(doc, CLRIE_CONFIG_ERROR, node_position(doc, c),
                   "unknown element <%s> in <" ROOT_NAME ">; expected <" METHOD_NAME
                   "> or <" METHOD_NAME_PLATFORM ">",
                   (const char *)c->name);
        }
    }
    if (methods == 0 && !gave_up(doc))
        report(doc, CLRIE_CONFIG_WARNING, node_position(doc, root),
               "no <" METHOD_NAME "> in this file");
}

void config_parse_document(struct file_result *r, const char *data, size_t len,
                           const char *base_dir, const struct clrie_config_options *opts)
{
    struct document doc = {
        .r = r,
        .data = data,
        .len = len,
        .base_dir = base_dir,
        .opts = opts,
    };
    if (len > CLRIE_CONFIG_MAX_FILE_SIZE) {
        file_result_report(r, CLRIE_CONFIG_ERROR, 0, 0, "the file is larger than %d bytes",
                           CLRIE_CONFIG_MAX_FILE_SIZE);
        return;
    }
    pthread_once(&libxml_once, init_libxml);
    if (!index_lines(&doc)) {
        r->out_of_memory = true;
        return;
    }
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (!ctxt || !ctxt->sax) {
        xmlFreeParserCtxt(ctxt);
        free(doc.line_starts);
        r->out_of_memory = true;
        return;
    }
    /* ctxt->sax belongs to this context alone, so these hooks touch nothing global. */
    ctxt->_private = &doc;
    doc.ctxt = ctxt;
    doc.default_start = ctxt->sax->startElementNs;
    ctxt->sax->startElementNs = on_start_element;
    ctxt->sax->internalSubset = on_doctype;
    ctxt->sax->serror = on_xml_error;

    /* NONET: never fetch anything; no NOENT, DTDLOAD or DTDATTR: entities stay unexpanded and
     * no DTD is read; no HUGE: libxml2 keeps its depth and size limits. */
    /* The generic error function is per thread (libxml2 keeps one per thread, the main
     * thread's being the process default); it is swapped only around this call and put back
     * exactly as found, so the host's own handler, if any, is untouched afterwards. */
    xmlGenericErrorFunc saved_handler = xmlGenericError;
    void *saved_context = xmlGenericErrorContext;
    xmlSetGenericErrorFunc(&doc, on_generic_error);
    xmlDocPtr xml =
        xmlCtxtReadMemory(ctxt, data, (int)len, NULL, NULL, XML_PARSE_NONET | XML_PARSE_NOCDATA);
    xmlSetGenericErrorFunc(saved_context, saved_handler);
    bool well_formed = xml && ctxt->wellFormed && !doc.saw_doctype;
    if (!well_formed && r->errors == 0)
        report(&doc, CLRIE_CONFIG_ERROR, (struct position){0}, "the file is not well-formed XML");
    if (well_formed)
        check_document(&doc, xml); /* also after namespace errors: list every problem */
    xmlFreeDoc(xml);
    ctxt->_private = NULL;
    xmlFreeParserCtxt(ctxt);
    free(doc.line_starts);
}
