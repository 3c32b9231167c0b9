/* libconfig internals: one document being parsed (document.c), shared by the libxml2 side
 * (parse.c) and the element checks (check.c). */
#ifndef CLRIE_CONFIG_DOCUMENT_H
#define CLRIE_CONFIG_DOCUMENT_H

#include "config_private.h"

#include <libxml/parser.h>
#include <libxml/tree.h>

/* Lives on the stack of clrie_config__parse_document for one parse. */
struct document {
    struct file_result *r;
    const char *data;
    size_t len;
    size_t *line_starts; /* byte offset where each line begins; NULL if unavailable */
    size_t line_count;
    const char *base_dir;
    const struct clrie_config_options *opts;
    startElementNsSAX2Func default_start; /* libxml2's own, which ours wraps */
    xmlParserCtxtPtr ctxt;
    bool saw_doctype;
    /* The last position computed: positions are mostly asked for in document order, so
     * counting on from here keeps a file that is one long line linear, not quadratic. */
    size_t cached_offset, cached_line, cached_column;
    bool cached;
};

struct position {
    unsigned line, column;
};

/* Past this many problems in one file the rest is not examined: a hostile file must not make
 * us produce (and format) one message per element of a megabyte. */
#define MAX_PROBLEMS_PER_FILE 100

/* Prepares doc for one parse of data (len bytes, borrowed) into r, indexing where each line
 * begins. False when memory ran out; otherwise clrie_config__document_finish releases it. */
bool clrie_config__document_init(struct document *doc, struct file_result *r, const char *data,
                                 size_t len, const char *base_dir,
                                 const struct clrie_config_options *opts);
void clrie_config__document_finish(struct document *doc);

/* True once the file has so many problems (or memory ran out) that checking stops. */
bool clrie_config__document_gave_up(const struct document *doc);

/* Records a problem, respecting MAX_PROBLEMS_PER_FILE. */
void clrie_config__document_report(struct document *doc, enum clrie_config_severity severity,
                                   struct position at, const char *fmt, ...)
    __attribute__((format(__printf__, 4, 5)));

/* Where a node starts: an element's '<', a text's first non-blank character; column 0 when
 * it cannot be known. */
struct position clrie_config__document_node_position(struct document *doc, const xmlNode *node);

/* Line and column (1-based, counting characters, not bytes) of a byte offset of the input. */
struct position clrie_config__document_position_at(struct document *doc, size_t offset);

/* Checks the tree of a well-formed document into doc->r (check.c). */
void clrie_config__document_check(struct document *doc, const xmlDoc *xml);

#endif
