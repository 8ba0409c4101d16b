/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Eigenface model in memory and its file: OpenCV's FileStorage YAML
 * (block maps and sequences indented by 3, `!!tag`s, flow sequences of
 * numbers, plain and double-quoted scalars), read with libyaml and
 * written byte for byte as OpenCV does. */
#define _GNU_SOURCE             /* renameat2 */
#include "clv-eigen.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include <glib/gstdio.h>

G_DEFINE_QUARK (clv-eigen-error-quark, clv_eigen_error);

/* Limits that keep hostile files from exhausting the stack or the ints. */
#define MAX_DEPTH 32
#define MAX_ELEMENTS (G_MAXINT / 2)

ClvEigenModel *
clv_eigen_model_new (int width, int height, int n_train, int n_components)
{
  ClvEigenModel *m = g_new0 (ClvEigenModel, 1);

  m->width = width;
  m->height = height;
  m->dim = width * height;
  m->n_components = n_components;
  m->n_train = n_train;
  m->mean = g_new0 (double, m->dim);
  m->eigenvalues = g_new0 (double, n_components);
  m->eigenvectors = g_new0 (double, (gsize) m->dim * n_components);
  m->projections = g_new0 (double, (gsize) n_train * n_components);
  m->labels = g_new0 (int, n_train);
  m->label_names = g_hash_table_new_full (g_direct_hash, g_direct_equal,
      NULL, g_free);
  m->threshold = DBL_MAX;
  return m;
}

void
clv_eigen_model_free (ClvEigenModel * m)
{
  if (m == NULL)
    return;
  g_free (m->mean);
  g_free (m->eigenvalues);
  g_free (m->eigenvectors);
  g_free (m->projections);
  g_free (m->labels);
  g_hash_table_unref (m->label_names);
  g_free (m);
}

const char *
clv_eigen_model_get_label_name (const ClvEigenModel * m, int label)
{
  return g_hash_table_lookup (m->label_names, GINT_TO_POINTER (label));
}

void
clv_eigen_model_set_label_name (ClvEigenModel * m, int label,
    const char *name)
{
  g_hash_table_insert (m->label_names, GINT_TO_POINTER (label),
      g_strdup (name));
}

/* ------------------------------------------------------------------------
 * The YAML tree
 * ------------------------------------------------------------------------ */

typedef enum
{
  YNODE_SCALAR,
  YNODE_MAP,
  YNODE_SEQ,
  YNODE_NUMBERS,                /* a [ ] sequence of scalars, as doubles */
} YNodeKind;

typedef struct
{
  YNodeKind kind;
  int line;
  char *tag;                    /* without "!!", or NULL */
  char *text;                   /* SCALAR */
  GPtrArray *keys;              /* MAP: char * */
  GPtrArray *items;             /* MAP values, SEQ items: YNode * */
  GArray *numbers;              /* NUMBERS */
  gboolean flow;                /* NUMBERS, SEQ: written [ ] */
  char *bad_token;              /* NUMBERS: the first item that is no number */
  int bad_index, bad_line;
} YNode;

static void
ynode_free (gpointer data)
{
  YNode *n = data;

  if (n == NULL)
    return;
  g_free (n->tag);
  g_free (n->text);
  g_free (n->bad_token);
  if (n->keys)
    g_ptr_array_unref (n->keys);
  if (n->items)
    g_ptr_array_unref (n->items);
  if (n->numbers)
    g_array_unref (n->numbers);
  g_free (n);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (YNode, ynode_free);

static YNode *
ynode_new (YNodeKind kind, int line)
{
  YNode *n = g_new0 (YNode, 1);

  n->kind = kind;
  n->line = line;
  if (kind == YNODE_MAP)
    n->keys = g_ptr_array_new_with_free_func (g_free);
  if (kind == YNODE_MAP || kind == YNODE_SEQ)
    n->items = g_ptr_array_new_with_free_func (ynode_free);
  if (kind == YNODE_NUMBERS)
    n->numbers = g_array_new (FALSE, FALSE, sizeof (double));
  return n;
}

static YNode *
ynode_lookup (const YNode * map, const char *key)
{
  for (guint i = 0; i < map->keys->len; i++)
    if (strcmp (map->keys->pdata[i], key) == 0)
      return map->items->pdata[i];
  return NULL;
}

/* A number as FileStorage writes it: C syntax or .Inf, -.Inf, .Nan. */
static gboolean
parse_number (const char *s, gsize len, double *out)
{
  char buf[64], *end;
  const char *p;

  if (len == 0 || len >= sizeof buf)
    return FALSE;
  memcpy (buf, s, len);
  buf[len] = '\0';
  p = buf + (buf[0] == '-' || buf[0] == '+');
  if (g_ascii_strcasecmp (p, ".inf") == 0) {
    *out = buf[0] == '-' ? -INFINITY : INFINITY;
    return TRUE;
  }
  if (g_ascii_strcasecmp (p, ".nan") == 0) {
    *out = NAN;
    return TRUE;
  }
  *out = g_ascii_strtod (buf, &end);
  return end == buf + len && g_ascii_isdigit (*p) + (*p == '.') > 0;
}

/* ------------------------------------------------------------------------
 * The parser: libyaml's events into the tree.  OpenCV's FileStorage YAML
 * differs from YAML 1.1 in three places, bridged here:
 * - its header "%YAML:1.0" is no YAML directive: libyaml reads it as a
 *   comment;
 * - in double quotes it escapes a quote as \' , which YAML does not know:
 *   libyaml reads \\ there instead (as long, so that its marks are
 *   places in the file);
 * - in double quotes \xHH is the byte HH, where YAML has the character
 *   U+00HH: such scalars are unescaped from the file as OpenCV does.
 * ------------------------------------------------------------------------ */

typedef struct
{
  const char *name;
  const char *text;             /* the file */
  gsize length;
  GArray *rewritten;            /* gsize: offsets of the \' read as \\ */
  guint next_rewritten;         /* the first not behind the last scalar */
  /* A libyaml mark (characters) as an offset in the text (bytes): the
   * last one converted, scalars come in order. */
  gsize mark_chars, mark_bytes;
  GPtrArray *open;              /* YNode: collections not yet ended */
  GPtrArray *keys;              /* char *: the key each open map waits
                                 * with, NULL while it waits for one */
  YNode *root;
  GError **error;
} YParser;

static void
parse_fail (YParser * p, gsize line, const char *fmt, ...)
    G_GNUC_PRINTF (3, 4);

static void
parse_fail (YParser * p, gsize line, const char *fmt, ...)
{
  va_list ap;
  char *msg;

  if (p->error == NULL || *p->error != NULL)
    return;
  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (p->error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_PARSE,
      "%s:%" G_GSIZE_FORMAT ": %s", p->name, line, msg);
  g_free (msg);
}

/* Byte offset of a libyaml mark; marks must come in order. */
static gsize
mark_offset (YParser * p, const yaml_mark_t * mark)
{
  const char *s = p->text + p->mark_bytes;

  for (; p->mark_chars < mark->index && s < p->text + p->length;
      p->mark_chars++)
    s = g_utf8_next_char (s);
  p->mark_bytes = s - p->text;
  return p->mark_bytes;
}

/* The text libyaml reads: the header a comment, \' in quotes as \\ (the
 * offsets of those in p->rewritten). */
static char *
yaml_text (YParser * p)
{
  char *yaml = g_malloc (p->length + 1);

  memcpy (yaml, p->text, p->length);
  yaml[p->length] = '\0';
  yaml[0] = '#';                /* "%YAML:1.0" */
  for (gsize i = 0; i + 1 < p->length; i++) {
    if (yaml[i] != '\\')
      continue;
    i++;
    if (yaml[i] == '\'') {
      yaml[i] = '\\';
      g_array_append_val (p->rewritten, i);
    }
  }
  return yaml;
}

/* A double-quoted scalar of the file, [s, e) with its quotes, unescaped
 * as OpenCV's FileStorage does: \n, \t, \r, \xHH a byte, \c the c. */
static char *
unquote (const char *s, const char *e)
{
  GString *out = g_string_sized_new (e - s);

  for (s++, e--; s < e; s++) {
    if (*s != '\\' || s + 1 >= e) {
      g_string_append_c (out, *s);
      continue;
    }
    switch (*++s) {
      case 'n':
        g_string_append_c (out, '\n');
        break;
      case 't':
        g_string_append_c (out, '\t');
        break;
      case 'r':
        g_string_append_c (out, '\r');
        break;
      case 'x':
        if (s + 2 < e && g_ascii_isxdigit (s[1]) && g_ascii_isxdigit (s[2])) {
          g_string_append_c (out, (char) (g_ascii_xdigit_value (s[1]) * 16 +
                  g_ascii_xdigit_value (s[2])));
          s += 2;
          break;
        }
        /* fall through */
      default:
        g_string_append_c (out, *s);
    }
  }
  return g_string_free (out, FALSE);
}

/* A scalar's text: libyaml's, or for double quotes the file's unescaped.
 * NULL (an error set) where a \' read as \\ lies outside double quotes,
 * or double quotes span lines, which OpenCV does not read. */
static char *
scalar_text (YParser * p, const yaml_event_t * ev)
{
  const gboolean dquoted =
      ev->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
  const gsize start = mark_offset (p, &ev->start_mark);
  const gsize end = mark_offset (p, &ev->end_mark);
  const gsize line = ev->start_mark.line + 1;
  gboolean rewritten = FALSE;

  for (; p->next_rewritten < p->rewritten->len
      && g_array_index (p->rewritten, gsize, p->next_rewritten) < end;
      p->next_rewritten++)
    rewritten |= g_array_index (p->rewritten, gsize, p->next_rewritten)
        >= start;
  if (rewritten && !dquoted) {
    parse_fail (p, line, "\\' outside a double-quoted string");
    return NULL;
  }
  if (!dquoted)
    return g_strdup ((const char *) ev->data.scalar.value);
  if (ev->end_mark.line != ev->start_mark.line) {
    parse_fail (p, line, "a quoted string must end on the line it starts "
        "on");
    return NULL;
  }
  return unquote (p->text + start, p->text + end);
}

/* YAML's prefix of the "!!" tags. */
#define YAML_TAG_PREFIX "tag:yaml.org,2002:"

/* The tag without "!!" or "!", or NULL. */
static char *
short_tag (const yaml_char_t * tag)
{
  const char *t = (const char *) tag;

  if (t == NULL)
    return NULL;
  if (g_str_has_prefix (t, YAML_TAG_PREFIX))
    return g_strdup (t + strlen (YAML_TAG_PREFIX));
  return g_strdup (t + (t[0] == '!'));
}

/* Adds `n` (owned) to the innermost open collection, or makes it the
 * root.  A [ ] sequence holds numbers or collections, not both. */
static gboolean
add_node (YParser * p, YNode * n)
{
  YNode *parent = p->open->len ? g_ptr_array_index (p->open,
      p->open->len - 1) : NULL;

  if (parent == NULL) {
    p->root = n;
    return TRUE;
  }
  if (parent->kind == YNODE_NUMBERS) {
    if (parent->numbers->len > 0 || parent->bad_token != NULL) {
      parse_fail (p, n->line, "a collection among numbers in a [ ] "
          "sequence");
      ynode_free (n);
      return FALSE;
    }
    parent->kind = YNODE_SEQ;
    parent->items = g_ptr_array_new_with_free_func (ynode_free);
  }
  if (parent->kind == YNODE_MAP) {
    char **key = (char **) &g_ptr_array_index (p->keys, p->open->len - 1);
    if (*key == NULL) {
      parse_fail (p, n->line, "expected a key: value, found a collection "
          "as the key");
      ynode_free (n);
      return FALSE;
    }
    g_ptr_array_add (parent->keys, g_steal_pointer (key));
  }
  g_ptr_array_add (parent->items, n);
  return TRUE;
}

/* An item of a [ ] sequence of numbers: its value, or NaN and the first
 * that is none remembered (quoted ones are none). */
static gboolean
add_number (YParser * p, YNode * seq, const yaml_event_t * ev,
    const char *text)
{
  double v;

  if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE
      || !parse_number (text, strlen (text), &v)) {
    if (seq->bad_token == NULL) {
      seq->bad_token = g_strdup (text);
      seq->bad_index = (int) seq->numbers->len;
      seq->bad_line = (int) ev->start_mark.line + 1;
    }
    v = NAN;
  }
  if (seq->numbers->len >= MAX_ELEMENTS) {
    parse_fail (p, ev->start_mark.line + 1, "more than %d numbers in a "
        "sequence", MAX_ELEMENTS);
    return FALSE;
  }
  g_array_append_val (seq->numbers, v);
  return TRUE;
}

static gboolean
add_scalar (YParser * p, const yaml_event_t * ev)
{
  YNode *parent = p->open->len ? g_ptr_array_index (p->open,
      p->open->len - 1) : NULL;
  char *text = scalar_text (p, ev);
  YNode *n;

  if (text == NULL)
    return FALSE;
  if (parent && parent->kind == YNODE_MAP
      && g_ptr_array_index (p->keys, p->open->len - 1) == NULL) {
    g_ptr_array_index (p->keys, p->open->len - 1) = text;
    return TRUE;
  }
  if (parent && parent->kind == YNODE_NUMBERS) {
    gboolean ok = add_number (p, parent, ev, text);
    g_free (text);
    return ok;
  }
  if (parent && parent->kind == YNODE_SEQ && parent->flow) {
    parse_fail (p, ev->start_mark.line + 1, "a scalar among collections in "
        "a [ ] sequence");
    g_free (text);
    return FALSE;
  }
  n = ynode_new (YNODE_SCALAR, (int) ev->start_mark.line + 1);
  n->text = text;
  n->tag = short_tag (ev->data.scalar.tag);
  return add_node (p, n);
}

/* A map or a sequence opens: added, and the innermost open one.  A [ ]
 * sequence starts as one of numbers. */
static gboolean
open_collection (YParser * p, const yaml_event_t * ev)
{
  const gboolean map = ev->type == YAML_MAPPING_START_EVENT;
  const gboolean flow = !map
      && ev->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE;
  YNode *n;

  if (p->open->len >= MAX_DEPTH) {
    parse_fail (p, ev->start_mark.line + 1, "nested more than %d levels",
        MAX_DEPTH);
    return FALSE;
  }
  n = ynode_new (map ? YNODE_MAP : flow ? YNODE_NUMBERS : YNODE_SEQ,
      (int) ev->start_mark.line + 1);
  n->flow = flow;
  n->tag = short_tag (map ? ev->data.mapping_start.tag :
      ev->data.sequence_start.tag);
  if (!add_node (p, n))
    return FALSE;
  g_ptr_array_add (p->open, n);
  g_ptr_array_add (p->keys, NULL);
  return TRUE;
}

/* What libyaml's problems most likely mean in a file edited by hand. */
static const struct
{
  const char *problem, *hint;
} yaml_hints[] = {
  {"':'", "expected \"key: value\""},
  {"mapping values are not allowed", "a \"key: value\" where a value was "
        "expected: check the indentation and the ':' of the line before"},
  {"did not find expected key", "text after a value, or a key at the "
        "wrong indentation"},
};

/* libyaml's error with the file's name and line, and a hint. */
static void
yaml_fail (YParser * p, const yaml_parser_t * parser)
{
  const yaml_mark_t *mark = &parser->problem_mark;
  const char *problem = parser->problem ? parser->problem : "not YAML";
  const char *line = p->text, *end = p->text + p->length, *hint = NULL;

  /* The text is not NUL-terminated. */
  for (gsize l = 0; l < mark->line && line; l++)
    if ((line = memchr (line, '\n', end - line)))
      line++;
  while (line && line < end && *line == ' ')
    line++;
  if (line && line < end && *line == '\t')
    hint = "tabs are not allowed in YAML indentation";
  for (guint i = 0; hint == NULL && i < G_N_ELEMENTS (yaml_hints); i++)
    if (strstr (problem, yaml_hints[i].problem))
      hint = yaml_hints[i].hint;
  parse_fail (p, mark->line + 1, "%s%s%s%s%s", problem,
      parser->context ? " " : "", parser->context ? parser->context : "",
      hint ? ": " : "", hint ? hint : "");
}

/* One event into the tree.  Stops (FALSE, no error) at the end of the
 * first document. */
static gboolean
take_event (YParser * p, const yaml_event_t * ev)
{
  switch (ev->type) {
    case YAML_SCALAR_EVENT:
      return add_scalar (p, ev);
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT:
      return open_collection (p, ev);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
      g_ptr_array_set_size (p->keys, p->keys->len - 1);
      g_ptr_array_set_size (p->open, p->open->len - 1);
      return TRUE;
    case YAML_ALIAS_EVENT:
      parse_fail (p, ev->start_mark.line + 1, "aliases (*name) are not "
          "read");
      return FALSE;
    case YAML_DOCUMENT_END_EVENT:
    case YAML_STREAM_END_EVENT:
      return FALSE;
    default:
      return TRUE;
  }
}

static YNode *
parse_document (const char *text, gsize length, const char *name,
    GError ** error)
{
  GError *err = NULL;
  YParser p = { name, text, length, NULL, 0, 0, 0, NULL, NULL, NULL, &err };
  yaml_parser_t parser;
  char *yaml;
  gboolean more = TRUE;

  if (length == 0) {
    parse_fail (&p, 1, "the file is empty");
    goto out;
  }
  if (memchr (text, '\0', length) != NULL) {
    g_set_error (&err, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_PARSE,
        "%s: binary data (a NUL byte): not a YAML model file", name);
    goto out;
  }
  if (length < 5 || strncmp (text, "%YAML", 5) != 0) {
    parse_fail (&p, 1, "expected \"%%YAML:1.0\": not a YAML FileStorage "
        "file (XML and JSON models are not supported)");
    goto out;
  }
  p.rewritten = g_array_new (FALSE, FALSE, sizeof (gsize));
  p.open = g_ptr_array_new ();
  p.keys = g_ptr_array_new_with_free_func (g_free);
  yaml = yaml_text (&p);
  yaml_parser_initialize (&parser);
  yaml_parser_set_input_string (&parser, (const unsigned char *) yaml,
      length);
  while (more && err == NULL) {
    yaml_event_t ev;
    if (!yaml_parser_parse (&parser, &ev)) {
      yaml_fail (&p, &parser);
      break;
    }
    more = take_event (&p, &ev);
    yaml_event_delete (&ev);
  }
  yaml_parser_delete (&parser);
  g_free (yaml);
  g_array_unref (p.rewritten);
  g_ptr_array_unref (p.open);
  g_ptr_array_unref (p.keys);

  if (err == NULL && (p.root == NULL || (p.root->kind == YNODE_SCALAR
              && p.root->text[0] == '\0' && p.root->tag == NULL)))
    parse_fail (&p, 1, "no content after the %%YAML header");
  else if (err == NULL && p.root->kind != YNODE_MAP)
    g_set_error (&err, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_PARSE,
        "%s: the document is not a map of keys", name);
out:
  if (err != NULL) {
    g_clear_pointer (&p.root, ynode_free);
    g_propagate_error (error, err);
  }
  return p.root;
}

/* ------------------------------------------------------------------------
 * From the tree to the model, naming file, key and what was expected.
 * ------------------------------------------------------------------------ */

typedef struct
{
  const char *name;
  GError **error;
} Extract;

static gboolean
bad_value (Extract * x, const YNode * n, const char *key, const char *fmt,
    ...) G_GNUC_PRINTF (4, 5);

static gboolean
bad_value (Extract * x, const YNode * n, const char *key, const char *fmt,
    ...)
{
  va_list ap;
  char *msg;

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (x->error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_BAD_VALUE,
      "%s:%d: key '%s': %s", x->name, n->line, key, msg);
  g_free (msg);
  return FALSE;
}

static const YNode *
require (Extract * x, const YNode * map, const char *key, const char *what)
{
  const YNode *n = ynode_lookup (map, key);

  if (n == NULL)
    g_set_error (x->error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_MISSING_KEY,
        "%s: missing key '%s' (expected %s)", x->name, key, what);
  return n;
}

static gboolean
scalar_int (Extract * x, const YNode * n, const char *key, int min, int *out)
{
  char *end;
  gint64 v;

  if (n->kind != YNODE_SCALAR)
    return bad_value (x, n, key, "expected an integer, found a collection");
  v = g_ascii_strtoll (n->text, &end, 10);
  if (*n->text == '\0' || *end != '\0' || v < min || v > G_MAXINT)
    return bad_value (x, n, key, "expected an integer ≥ %d, found '%s'",
        min, n->text);
  *out = (int) v;
  return TRUE;
}

typedef struct
{
  int rows, cols;
  const GArray *data;
} Matrix;

/* An !!opencv-matrix: rows, cols, dt (one of `dts`) and rows × cols finite
 * numbers (integers if dt is "i"). */
static gboolean
get_matrix (Extract * x, const YNode * n, const char *key, const char *dts,
    Matrix * m)
{
  const YNode *rows, *cols, *dt, *data;
  const char *what = "an !!opencv-matrix map (rows, cols, dt, data)";

  if (n->kind != YNODE_MAP)
    return bad_value (x, n, key, "expected %s", what);
  if (n->tag != NULL && strcmp (n->tag, "opencv-matrix") != 0)
    return bad_value (x, n, key, "expected %s, found tag !!%s", what,
        n->tag);
  if ((rows = ynode_lookup (n, "rows")) == NULL ||
      (cols = ynode_lookup (n, "cols")) == NULL ||
      (dt = ynode_lookup (n, "dt")) == NULL ||
      (data = ynode_lookup (n, "data")) == NULL) {
    g_set_error (x->error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_MISSING_KEY,
        "%s:%d: key '%s': expected %s, one is missing", x->name, n->line,
        key, what);
    return FALSE;
  }
  if (!scalar_int (x, rows, key, 0, &m->rows) ||
      !scalar_int (x, cols, key, 0, &m->cols))
    return FALSE;
  if (dt->kind != YNODE_SCALAR || strlen (dt->text) != 1 ||
      strchr (dts, dt->text[0]) == NULL)
    return bad_value (x, dt, key, "expected dt one of \"%s\"", dts);
  if (data->kind != YNODE_NUMBERS) {
    return bad_value (x, data, key, "expected data: [ numbers ]");
  } else if (data->bad_token != NULL) {
    return bad_value (x, data, key, "data item %d (line %d): expected a "
        "number, found '%s'", data->bad_index, data->bad_line,
        data->bad_token);
  }
  m->data = data->numbers;
  if ((gint64) m->rows * m->cols != m->data->len)
    return bad_value (x, data, key, "rows × cols = %d × %d needs %"
        G_GINT64_FORMAT " numbers, data has %u", m->rows, m->cols,
        (gint64) m->rows * m->cols, m->data->len);
  for (guint i = 0; i < m->data->len; i++) {
    double v = g_array_index (m->data, double, i);
    if (!isfinite (v))
      return bad_value (x, data, key, "data item %u is %g, expected a finite "
          "number", i, v);
    if (dt->text[0] == 'i' && (v != floor (v) || fabs (v) > G_MAXINT))
      return bad_value (x, data, key, "data item %u is %g, expected an "
          "integer (dt: i)", i, v);
  }
  return TRUE;
}

static const double *
matrix_data (const Matrix * m)
{
  return (const double *) (gconstpointer) m->data->data;
}

static gboolean
get_label_names (Extract * x, const YNode * n, ClvEigenModel * model)
{
  const char *key = "labelsInfo";

  if (n->kind == YNODE_NUMBERS && n->numbers->len == 0)
    return TRUE;                /* [] */
  if (n->kind == YNODE_SCALAR && n->text[0] == '\0')
    return TRUE;
  if (n->kind != YNODE_SEQ)
    return bad_value (x, n, key, "expected a sequence of {label, value} "
        "maps");
  for (guint i = 0; i < n->items->len; i++) {
    const YNode *item = n->items->pdata[i], *label, *value;
    int l;
    if (item->kind != YNODE_MAP || (label = ynode_lookup (item, "label"))
        == NULL || (value = ynode_lookup (item, "value")) == NULL)
      return bad_value (x, item, key, "item %u: expected a map with label "
          "and value", i);
    if (label->kind != YNODE_SCALAR || !scalar_int (x, label, "labelsInfo",
            G_MININT, &l))
      return FALSE;
    if (value->kind != YNODE_SCALAR || !g_utf8_validate (value->text, -1,
            NULL))
      return bad_value (x, value, key, "item %u: expected a UTF-8 string "
          "value", i);
    clv_eigen_model_set_label_name (model, l, value->text);
  }
  return TRUE;
}

static gboolean
model_size (Extract * x, const YNode * map, int dim, int width, int height,
    int *w, int *h)
{
  const YNode *nw = ynode_lookup (map, "clvision_width");
  const YNode *nh = ynode_lookup (map, "clvision_height");

  if (nw != NULL || nh != NULL) {
    if (nw == NULL || nh == NULL)
      return bad_value (x, nw ? nw : nh, nw ? "clvision_width" :
          "clvision_height", "expected clvision_width and clvision_height "
          "together");
    if (!scalar_int (x, nw, "clvision_width", 1, w) ||
        !scalar_int (x, nh, "clvision_height", 1, h))
      return FALSE;
    if ((gint64) * w * *h != dim)
      return bad_value (x, nw, "clvision_width", "%d × %d does not match "
          "the %d values of 'mean'", *w, *h, dim);
  }
  if (width > 0 && height > 0) {
    if ((gint64) width * height != dim) {
      g_set_error (x->error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_BAD_VALUE,
          "%s: the model is for images of %d pixels, not %d × %d",
          x->name, dim, width, height);
      return FALSE;
    }
    *w = width;
    *h = height;
  } else if (nw == NULL) {
    int side = (int) lround (sqrt ((double) dim));
    if (side * side != dim) {
      g_set_error (x->error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_BAD_VALUE,
          "%s: the model's images have %d pixels, not a square: give the "
          "model size (width × height)", x->name, dim);
      return FALSE;
    }
    *w = *h = side;
  }
  return TRUE;
}

static ClvEigenModel *
extract_model (Extract * x, const YNode * root, int width, int height)
{
  const YNode *map = root, *n, *projections, *labels_node;
  Matrix mean, values, vectors, labels;
  g_autoptr (ClvEigenModel) model = NULL;
  int num_components, w = 0, h = 0, dim, k, m;

  /* FaceRecognizer::write nests the model under "opencv_eigenfaces" (read
   * back as the first top-level node); OpenCV 3.0 wrote it at the top. */
  if (ynode_lookup (root, "mean") == NULL && root->items->len > 0)
    map = root->items->pdata[0];
  if (map->kind != YNODE_MAP) {
    g_set_error (x->error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_BAD_VALUE,
        "%s:%d: key '%s': expected the model's map (num_components, mean, "
        "...)", x->name, map->line, (char *) root->keys->pdata[0]);
    return NULL;
  }
  if (!(n = require (x, map, "num_components", "an integer")) ||
      !scalar_int (x, n, "num_components", 0, &num_components))
    return NULL;
  if (!(n = require (x, map, "mean", "the mean image as a 1 × D matrix")) ||
      !get_matrix (x, n, "mean", "df", &mean))
    return NULL;
  dim = mean.rows * mean.cols;
  if (dim == 0 || (mean.rows != 1 && mean.cols != 1))
    return bad_value (x, n, "mean", "expected 1 × D, found %d × %d",
        mean.rows, mean.cols), NULL;
  if (!(n = require (x, map, "eigenvectors", "a D × K matrix")) ||
      !get_matrix (x, n, "eigenvectors", "df", &vectors))
    return NULL;
  if (vectors.rows != dim || vectors.cols < 1)
    return bad_value (x, n, "eigenvectors", "expected %d × K (K ≥ 1, D from "
        "'mean'), found %d × %d", dim, vectors.rows, vectors.cols), NULL;
  k = vectors.cols;
  if (!(n = require (x, map, "eigenvalues", "a K × 1 matrix")) ||
      !get_matrix (x, n, "eigenvalues", "df", &values))
    return NULL;
  if (values.rows * values.cols != k)
    return bad_value (x, n, "eigenvalues", "expected %d values (the columns "
        "of 'eigenvectors'), found %d × %d", k, values.rows, values.cols),
        NULL;
  if (!(projections = require (x, map, "projections", "a sequence of 1 × K "
              "matrices")))
    return NULL;
  if (projections->kind != YNODE_SEQ || projections->items->len == 0)
    return bad_value (x, projections, "projections", "expected a non-empty "
        "sequence of 1 × %d matrices", k), NULL;
  m = (int) projections->items->len;
  if (!(labels_node = require (x, map, "labels", "a 1 × M matrix, dt: i")) ||
      !get_matrix (x, labels_node, "labels", "i", &labels))
    return NULL;
  if (labels.rows * labels.cols != m)
    return bad_value (x, labels_node, "labels", "expected %d labels (one per "
        "projection), found %d × %d", m, labels.rows, labels.cols), NULL;
  if (!model_size (x, map, dim, width, height, &w, &h))
    return NULL;

  model = clv_eigen_model_new (w, h, m, k);
  memcpy (model->mean, matrix_data (&mean), sizeof (double) * dim);
  memcpy (model->eigenvalues, matrix_data (&values), sizeof (double) * k);
  memcpy (model->eigenvectors, matrix_data (&vectors),
      sizeof (double) * dim * k);
  for (int i = 0; i < m; i++) {
    Matrix p;
    char *key = g_strdup_printf ("projections[%d]", i);
    gboolean ok = get_matrix (x, projections->items->pdata[i], key, "df", &p);
    if (ok && (p.rows != 1 || p.cols != k))
      ok = bad_value (x, projections->items->pdata[i], key, "expected 1 × %d"
          " (K from 'eigenvectors'), found %d × %d", k, p.rows, p.cols);
    g_free (key);
    if (!ok)
      return NULL;
    memcpy (model->projections + (gsize) i * k, matrix_data (&p),
        sizeof (double) * k);
    model->labels[i] = (int) matrix_data (&labels)[i];
  }
  if ((n = ynode_lookup (map, "threshold")) != NULL) {
    if (n->kind != YNODE_SCALAR || !parse_number (n->text, strlen (n->text),
            &model->threshold) || isnan (model->threshold))
      return bad_value (x, n, "threshold", "expected a number"), NULL;
  }
  if ((n = ynode_lookup (map, "labelsInfo")) != NULL &&
      !get_label_names (x, n, model))
    return NULL;
  return g_steal_pointer (&model);
}

ClvEigenModel *
clv_eigen_model_parse (const char *text, gsize length, const char *name,
    int width, int height, GError ** error)
{
  g_autoptr (YNode) root = parse_document (text, length, name, error);
  Extract x = { name, error };

  if (root == NULL)
    return NULL;
  if (root->items->len == 0) {
    g_set_error (error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_MISSING_KEY,
        "%s: no model in the file (expected opencv_eigenfaces:)", name);
    return NULL;
  }
  return extract_model (&x, root, width, height);
}

ClvEigenModel *
clv_eigen_model_load (const char *path, int width, int height,
    GError ** error)
{
  g_autofree char *text = NULL;
  gsize length;
  GError *err = NULL;

  if (!g_file_get_contents (path, &text, &length, &err)) {
    g_set_error (error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_IO,
        "Cannot read the model: %s", err->message);
    g_error_free (err);
    return NULL;
  }
  return clv_eigen_model_parse (text, length, path, width, height, error);
}

/* ------------------------------------------------------------------------
 * The writer: OpenCV's YAML emitter (indent 3, flow items wrapped past
 * column 71, doubles as "%.16e" or "N." when integral).
 * ------------------------------------------------------------------------ */

#define YML_INDENT 3
#define YML_WRAP_MARGIN 71

static void
append_double (GString * s, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (isnan (v))
    g_string_append (s, ".Nan");
  else if (isinf (v))
    g_string_append (s, v > 0 ? ".Inf" : "-.Inf");
  else if (fabs (v) < 2147483647.0 && v == rint (v))
    g_string_append_printf (s, "%d.", (int) v);
  else
    g_string_append (s, g_ascii_formatd (buf, sizeof buf, "%.16e", v));
}

/* A string as FileStorage's YAML emitter writes it: bare if it is plain
 * enough, else double-quoted with backslash escapes. */
static void
append_string (GString * s, const char *str)
{
  gsize len = strlen (str);
  gboolean quote = len == 0 || str[0] == ' ';
  GString *esc = g_string_new (NULL);

  for (gsize i = 0; i < len; i++) {
    guchar c = (guchar) str[i];
    if (!quote && !g_ascii_isalnum (c) && !strchr ("_ -()/+;", c))
      quote = TRUE;
    if (!g_ascii_isalnum (c) && (!g_ascii_isprint (c) || strchr ("\\'\"",
                c))) {
      g_string_append_c (esc, '\\');
      if (g_ascii_isprint (c))
        g_string_append_c (esc, (char) c);
      else if (c == '\n')
        g_string_append_c (esc, 'n');
      else if (c == '\r')
        g_string_append_c (esc, 'r');
      else if (c == '\t')
        g_string_append_c (esc, 't');
      else
        g_string_append_printf (esc, "x%02x", c);
    } else {
      g_string_append_c (esc, (char) c);
    }
  }
  if (g_ascii_isdigit (str[0]) || (len > 0 && strchr ("+-.", str[0])))
    quote = TRUE;
  if (quote)
    g_string_append_printf (s, "\"%s\"", esc->str);
  else
    g_string_append (s, esc->str);
  g_string_free (esc, TRUE);
}

static void
append_indent (GString * s, int indent)
{
  for (int i = 0; i < indent; i++)
    g_string_append_c (s, ' ');
}

/* "key: !!opencv-matrix" (or "- !!opencv-matrix" for key NULL) at
 * `indent`, its fields at indent + 3, data wrapped as OpenCV wraps it. */
static void
append_matrix (GString * s, int indent, const char *key, int rows, int cols,
    gboolean ints, const double *data)
{
  int fields = indent + YML_INDENT, flow = fields + YML_INDENT + 1;
  gsize line_start;
  char item[G_ASCII_DTOSTR_BUF_SIZE + 16];
  GString *tmp = g_string_sized_new (32);

  append_indent (s, indent);
  g_string_append_printf (s, key ? "%s: !!opencv-matrix\n" :
      "- !!opencv-matrix\n", key);
  append_indent (s, fields);
  g_string_append_printf (s, "rows: %d\n", rows);
  append_indent (s, fields);
  g_string_append_printf (s, "cols: %d\n", cols);
  append_indent (s, fields);
  g_string_append_printf (s, "dt: %c\n", ints ? 'i' : 'd');
  line_start = s->len;
  append_indent (s, fields);
  g_string_append (s, "data: [");
  for (gsize i = 0; i < (gsize) rows * cols; i++) {
    gsize offset;
    g_string_truncate (tmp, 0);
    if (ints)
      g_string_append_printf (tmp, "%d", (int) data[i]);
    else
      append_double (tmp, data[i]);
    g_strlcpy (item, tmp->str, sizeof item);
    if (i > 0)
      g_string_append_c (s, ',');
    offset = s->len - line_start + strlen (item);
    if (offset > YML_WRAP_MARGIN && offset - flow > 10) {
      g_string_append_c (s, '\n');
      line_start = s->len;
      append_indent (s, flow);
    } else {
      g_string_append_c (s, ' ');
    }
    g_string_append (s, item);
  }
  if (s->len - line_start > (gsize) flow && rows * cols > 0)
    g_string_append_c (s, ' ');
  g_string_append (s, "]\n");
  g_string_free (tmp, TRUE);
}

static gint
compare_labels (gconstpointer a, gconstpointer b)
{
  int x = GPOINTER_TO_INT (a), y = GPOINTER_TO_INT (b);
  return (x > y) - (x < y);
}

char *
clv_eigen_model_to_string (const ClvEigenModel * m)
{
  GString *s = g_string_sized_new (64 + (gsize) 24 * ((gsize) m->dim *
          (m->n_components + 1) + (gsize) m->n_train * (m->n_components +
              1)));
  const int top = YML_INDENT, items = 2 * YML_INDENT;
  GList *labels = g_list_sort (g_hash_table_get_keys (m->label_names),
      compare_labels);
  double *label_values = g_new (double, m->n_train);

  g_string_append (s, "%YAML:1.0\n---\nopencv_eigenfaces:\n");
  append_indent (s, top);
  g_string_append (s, "threshold: ");
  append_double (s, m->threshold);
  g_string_append_c (s, '\n');
  append_indent (s, top);
  g_string_append_printf (s, "num_components: %d\n", m->n_components);
  append_matrix (s, top, "mean", 1, m->dim, FALSE, m->mean);
  append_matrix (s, top, "eigenvalues", m->n_components, 1, FALSE,
      m->eigenvalues);
  append_matrix (s, top, "eigenvectors", m->dim, m->n_components, FALSE,
      m->eigenvectors);
  append_indent (s, top);
  g_string_append (s, "projections:\n");
  for (int i = 0; i < m->n_train; i++)
    append_matrix (s, items, NULL, 1, m->n_components, FALSE,
        m->projections + (gsize) i * m->n_components);
  for (int i = 0; i < m->n_train; i++)
    label_values[i] = m->labels[i];
  append_matrix (s, top, "labels", 1, m->n_train, TRUE, label_values);
  g_free (label_values);

  append_indent (s, top);
  g_string_append (s, "labelsInfo:\n");
  for (GList * l = labels; l != NULL; l = l->next) {
    int label = GPOINTER_TO_INT (l->data);
    append_indent (s, items);
    g_string_append (s, "-\n");
    append_indent (s, items + YML_INDENT);
    g_string_append_printf (s, "label: %d\n", label);
    append_indent (s, items + YML_INDENT);
    g_string_append (s, "value: ");
    append_string (s, clv_eigen_model_get_label_name (m, label));
    g_string_append_c (s, '\n');
  }
  if (labels == NULL) {
    append_indent (s, items);
    g_string_append (s, "[]\n");
  }
  g_list_free (labels);
  /* Our image size: OpenCV keeps only width × height and ignores these. */
  append_indent (s, top);
  g_string_append_printf (s, "clvision_width: %d\n", m->width);
  append_indent (s, top);
  g_string_append_printf (s, "clvision_height: %d\n", m->height);
  return g_string_free (s, FALSE);
}

/* Writes all of `text` to `fd` and flushes it to the disk; FALSE with
 * errno set. */
static gboolean
write_durably (int fd, const char *text)
{
  gsize left = strlen (text);

  while (left > 0) {
    gssize n = write (fd, text, left);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return FALSE;
    text += n;
    left -= n;
  }
  return fsync (fd) == 0;
}

/* The model goes to a temporary file next to `path`, flushed to the disk,
 * then takes the name in one rename: a crash or a full disk never leaves
 * half a model under `path`.  Without `replace`, the rename refuses an
 * existing file (atomically where the file system can, RENAME_NOREPLACE). */
gboolean
clv_eigen_model_save (const ClvEigenModel * m, const char *path,
    gboolean replace, GError ** error)
{
  g_autofree char *text = clv_eigen_model_to_string (m);
  g_autofree char *tmp = g_strconcat (path, ".XXXXXX", NULL);
  int fd, rc, saved;

  fd = g_mkstemp_full (tmp, O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0)
    goto failed;
  if (!write_durably (fd, text)) {
    saved = errno;
    close (fd);
    rc = -1;
  } else {
    rc = close (fd);
    saved = errno;
  }
  if (rc == 0 && replace) {
    rc = g_rename (tmp, path);
    saved = errno;
  } else if (rc == 0) {
    rc = renameat2 (AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE);
    saved = errno;
    if (rc != 0 && saved == EINVAL) {   /* not on this file system */
      if (g_file_test (path, G_FILE_TEST_EXISTS)) {
        saved = EEXIST;
      } else {
        rc = g_rename (tmp, path);
        saved = errno;
      }
    }
  }
  if (rc != 0) {
    g_unlink (tmp);
    errno = saved;
    goto failed;
  }
  return TRUE;

  /* ERRORS */
failed:
  {
    saved = errno;
    if (saved == EEXIST)
      g_set_error (error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_EXISTS,
          "Model file \"%s\" exists: not replaced", path);
    else
      g_set_error (error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_IO,
          "Cannot write the model \"%s\": %s", path, g_strerror (saved));
    return FALSE;
  }
}
