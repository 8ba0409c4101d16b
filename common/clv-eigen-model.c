/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Eigenface model in memory and its file: the YAML subset OpenCV's
 * FileStorage writes (block maps and sequences indented by 3, `!!tag`s,
 * flow sequences of numbers, plain and double-quoted scalars), read by a
 * small hand-written parser and written byte for byte as OpenCV does. */
#define _GNU_SOURCE             /* renameat2 */
#include "clv-eigen.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
  YNODE_NUMBERS,                /* a flow sequence of scalars, kept as doubles */
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
 * The parser: block structure by lines, flow collections by characters.
 * ------------------------------------------------------------------------ */

typedef struct
{
  const char *s;                /* first character after the indentation */
  int len;                      /* to the end of the line, without '\r' */
  int indent;
  int lineno;
} YLine;

typedef struct
{
  const char *name;
  const char *end;              /* end of the text */
  GArray *lines;                /* YLine, content lines only */
  guint cur;
  GError **error;
} YParser;

#define LINE(p, i) (&g_array_index ((p)->lines, YLine, (i)))

static void
parse_fail (YParser * p, int lineno, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

static void
parse_fail (YParser * p, int lineno, const char *fmt, ...)
{
  va_list ap;
  char *msg;

  if (p->error == NULL || *p->error != NULL)
    return;
  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (p->error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_PARSE,
      "%s:%d: %s", p->name, lineno, msg);
  g_free (msg);
}

static gboolean
split_lines (YParser * p, const char *text, gsize length)
{
  const char *s = text, *end = text + length;
  int lineno = 0;

  p->end = end;
  p->lines = g_array_new (FALSE, FALSE, sizeof (YLine));
  while (s < end) {
    const char *eol = memchr (s, '\n', end - s);
    YLine l;

    if (eol == NULL)
      eol = end;
    lineno++;
    l.lineno = lineno;
    for (l.s = s; l.s < eol && *l.s == ' '; l.s++);
    l.indent = (int) (l.s - s);
    l.len = (int) (eol - l.s);
    if (l.len > 0 && l.s[l.len - 1] == '\r')
      l.len--;
    s = eol + 1;
    if (l.len > 0 && l.s[0] == '\t') {
      parse_fail (p, lineno, "tabs are not allowed in YAML indentation");
      return FALSE;
    }
    if (lineno == 1 && !(l.len >= 5 && strncmp (l.s, "%YAML", 5) == 0)) {
      parse_fail (p, 1, "expected \"%%YAML:1.0\": not a YAML FileStorage "
          "file (XML and JSON models are not supported)");
      return FALSE;
    }
    if (l.len == 0 || l.s[0] == '#' || (l.indent == 0 && l.s[0] == '%'))
      continue;
    if (l.indent == 0 && l.len >= 3 && strncmp (l.s, "---", 3) == 0)
      continue;
    if (l.indent == 0 && l.len >= 3 && strncmp (l.s, "...", 3) == 0)
      break;                    /* end of the first document */
    g_array_append_val (p->lines, l);
  }
  if (lineno == 0) {
    parse_fail (p, 1, "the file is empty");
    return FALSE;
  }
  return TRUE;
}

static gboolean
is_seq_item (const YLine * l)
{
  return l->len >= 1 && l->s[0] == '-' && (l->len == 1 || l->s[1] == ' ');
}

/* Where the ':' of "key: value" is in [s, e), or NULL. */
static const char *
find_key_colon (const char *s, const char *e)
{
  if (s < e && (*s == '"' || *s == '\'' || *s == '[' || *s == '{'))
    return NULL;
  for (const char *c = s; c < e; c++)
    if (*c == ':' && (c + 1 == e || c[1] == ' '))
      return c;
  return NULL;
}

static const char *
skip_spaces (const char *s, const char *e)
{
  while (s < e && *s == ' ')
    s++;
  return s;
}

/* A double-quoted scalar starting at *ps (the '"'); advances past it. */
static char *
parse_quoted (YParser * p, const char **ps, const char *e, int lineno)
{
  GString *out = g_string_new (NULL);
  const char *s = *ps + 1;
  char quote = **ps;

  for (; s < e && *s != quote; s++) {
    if (*s == '\\' && quote == '"' && s + 1 < e) {
      s++;
      switch (*s) {
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
    } else if (*s == '\n') {
      break;
    } else {
      g_string_append_c (out, *s);
    }
  }
  if (s >= e || *s != quote) {
    parse_fail (p, lineno, "unterminated quoted string");
    g_string_free (out, TRUE);
    return NULL;
  }
  *ps = s + 1;
  return g_string_free (out, FALSE);
}

/* A plain or quoted scalar that makes up all of [s, e) (a trailing
 * " # comment" aside). */
static YNode *
parse_scalar (YParser * p, const char *s, const char *e, int lineno)
{
  YNode *n = ynode_new (YNODE_SCALAR, lineno);

  if (s < e && (*s == '"' || *s == '\'')) {
    n->text = parse_quoted (p, &s, e, lineno);
    s = skip_spaces (s, e);
    if (n->text == NULL || (s < e && *s != '#')) {
      parse_fail (p, lineno, "unexpected text after a quoted string");
      ynode_free (n);
      return NULL;
    }
    return n;
  }
  for (const char *c = s; c < e; c++)
    if (*c == '#' && c > s && c[-1] == ' ') {
      e = c;
      break;
    }
  while (e > s && e[-1] == ' ')
    e--;
  n->text = g_strndup (s, e - s);
  return n;
}

static YNode *parse_flow (YParser * p, const char **ps, int *lineno,
    int depth);

/* Skips spaces, newlines and comments inside a flow collection. */
static const char *
flow_skip (YParser * p, const char *s, int *lineno)
{
  while (s < p->end) {
    if (*s == '\n')
      (*lineno)++;
    else if (*s == '#')
      while (s + 1 < p->end && s[1] != '\n')
        s++;
    else if (*s != ' ' && *s != '\r')
      break;
    s++;
  }
  return s;
}

/* A scalar inside a flow collection: quoted, or plain up to a flow
 * indicator , [ ] { } or (for keys) ':'. */
static char *
flow_token (YParser * p, const char **ps, int lineno, gboolean key,
    gboolean * quoted)
{
  const char *s = *ps, *t;

  *quoted = s < p->end && (*s == '"' || *s == '\'');
  if (*quoted)
    return parse_quoted (p, ps, p->end, lineno);
  for (t = s; t < p->end && !strchr (",[]{}\n", *t) && !(key && *t == ':');
      t++);
  *ps = t;
  while (t > s && (t[-1] == ' ' || t[-1] == '\r'))
    t--;
  return g_strndup (s, t - s);
}

/* After a flow item: skips the ',' and what follows it.  FALSE if there
 * is none (the closing bracket, or an error the caller reports). */
static gboolean
flow_separator (YParser * p, const char **ps, int *lineno)
{
  const char *s = flow_skip (p, *ps, lineno);
  gboolean more = s < p->end && *s == ',';

  *ps = more ? flow_skip (p, s + 1, lineno) : s;
  return more;
}

static YNode *
parse_flow_map (YParser * p, const char **ps, int *lineno, int depth)
{
  g_autoptr (YNode) n = ynode_new (YNODE_MAP, *lineno);
  const char *s = flow_skip (p, *ps + 1, lineno);

  while (s < p->end && *s != '}') {
    gboolean quoted;
    char *key = flow_token (p, &s, *lineno, TRUE, &quoted);
    YNode *value;

    if (key == NULL)
      return NULL;
    s = flow_skip (p, s, lineno);
    if (s >= p->end || *s != ':' || *key == '\0') {
      parse_fail (p, *lineno, "expected \"key: value\" in a { } map");
      g_free (key);
      return NULL;
    }
    s = flow_skip (p, s + 1, lineno);
    if (s < p->end && (*s == '[' || *s == '{')) {
      value = parse_flow (p, &s, lineno, depth + 1);
    } else {
      value = ynode_new (YNODE_SCALAR, *lineno);
      value->text = flow_token (p, &s, *lineno, FALSE, &quoted);
    }
    if (value == NULL || (value->kind == YNODE_SCALAR && value->text == NULL)) {
      g_free (key);
      ynode_free (value);
      return NULL;
    }
    g_ptr_array_add (n->keys, key);
    g_ptr_array_add (n->items, value);
    if (!flow_separator (p, &s, lineno))
      break;
  }
  if (s >= p->end || *s != '}') {
    parse_fail (p, *lineno, "unterminated '{' map (the file may be "
        "truncated)");
    return NULL;
  }
  *ps = s + 1;
  return g_steal_pointer (&n);
}

/* A flow sequence: of numbers (kept as doubles, the first non-number
 * remembered) or, if it starts with a collection, of collections. */
static YNode *
parse_flow_seq (YParser * p, const char **ps, int *lineno, int depth)
{
  const char *s = flow_skip (p, *ps + 1, lineno);
  gboolean nested = s < p->end && (*s == '[' || *s == '{');
  g_autoptr (YNode) n = ynode_new (nested ? YNODE_SEQ : YNODE_NUMBERS,
      *lineno);

  while (s < p->end && *s != ']') {
    if (nested) {
      YNode *item = NULL;
      if (*s == '[' || *s == '{')
        item = parse_flow (p, &s, lineno, depth + 1);
      else
        parse_fail (p, *lineno, "a scalar among collections in a [ ] "
            "sequence");
      if (item == NULL)
        return NULL;
      g_ptr_array_add (n->items, item);
    } else {
      gboolean quoted;
      const char *start = s;
      char *tok = flow_token (p, &s, *lineno, FALSE, &quoted);
      double v;

      if (tok == NULL)
        return NULL;
      if (s == start && !quoted) {
        parse_fail (p, *lineno, "unexpected '%c' in a [ ] sequence", *s);
        g_free (tok);
        return NULL;
      }
      if (quoted || !parse_number (tok, strlen (tok), &v)) {
        if (n->bad_token == NULL) {
          n->bad_token = g_strdup (tok);
          n->bad_index = (int) n->numbers->len;
          n->bad_line = *lineno;
        }
        v = NAN;
      }
      g_free (tok);
      if (n->numbers->len >= MAX_ELEMENTS) {
        parse_fail (p, *lineno, "more than %d numbers in a sequence",
            MAX_ELEMENTS);
        return NULL;
      }
      g_array_append_val (n->numbers, v);
    }
    if (!flow_separator (p, &s, lineno))
      break;
  }
  if (s >= p->end || *s != ']') {
    parse_fail (p, *lineno, s < p->end ? "expected ',' or ']' in a [ ] "
        "sequence" : "unterminated '[' sequence (the file may be "
        "truncated)");
    return NULL;
  }
  *ps = s + 1;
  return g_steal_pointer (&n);
}

static YNode *
parse_flow (YParser * p, const char **ps, int *lineno, int depth)
{
  if (depth > MAX_DEPTH) {
    parse_fail (p, *lineno, "nested more than %d levels", MAX_DEPTH);
    return NULL;
  }
  return **ps == '[' ? parse_flow_seq (p, ps, lineno, depth) :
      parse_flow_map (p, ps, lineno, depth);
}

/* Parses a flow collection starting at `s` on the current line and moves
 * the line cursor past the line it ends on. */
static YNode *
parse_flow_at (YParser * p, const char *s, int depth)
{
  int lineno = LINE (p, p->cur)->lineno;
  YNode *n = parse_flow (p, &s, &lineno, depth);
  const char *rest;

  if (n == NULL)
    return NULL;
  while (p->cur < p->lines->len && LINE (p, p->cur)->s < s)
    p->cur++;
  /* Only a comment may follow on the closing line. */
  for (rest = s; rest < p->end && *rest == ' '; rest++);
  if (rest < p->end && *rest != '\n' && *rest != '\r' && *rest != '#') {
    parse_fail (p, lineno, "unexpected text after a [ ] or { } collection");
    ynode_free (n);
    return NULL;
  }
  return n;
}

static YNode *parse_block (YParser * p, int min_indent, int depth);
static YNode *parse_map (YParser * p, int indent, int depth);

/* The value after "key:" or "-" on the current line: [s, e). `indent` is
 * that of the owner; a nested block must be deeper, or a sequence at the
 * same indent for a map key. */
static YNode *
parse_value (YParser * p, const char *s, const char *e, int indent,
    gboolean map_owner, int depth)
{
  const YLine *l = LINE (p, p->cur);
  char *tag = NULL;
  YNode *n;

  if (s < e && *s == '!') {
    const char *t = s;
    while (t < e && *t != ' ')
      t++;
    tag = g_strndup (s + (s + 1 < t && s[1] == '!' ? 2 : 1),
        t - s - (s + 1 < t && s[1] == '!' ? 2 : 1));
    s = skip_spaces (t, e);
  }
  if (s < e && *s == '#')
    s = e;
  if (s < e && (*s == '[' || *s == '{')) {
    n = parse_flow_at (p, s, depth + 1);
  } else if (s < e) {
    n = parse_scalar (p, s, e, l->lineno);
    p->cur++;
  } else {
    int lineno = l->lineno;
    const YLine *next;
    p->cur++;
    next = p->cur < p->lines->len ? LINE (p, p->cur) : NULL;
    if (next && (next->indent > indent || (map_owner &&
                next->indent == indent && is_seq_item (next))))
      n = parse_block (p, next->indent, depth + 1);
    else {
      n = ynode_new (YNODE_SCALAR, lineno);
      n->text = g_strdup ("");
    }
  }
  if (n != NULL)
    n->tag = tag;
  else
    g_free (tag);
  return n;
}

static YNode *
parse_map (YParser * p, int indent, int depth)
{
  g_autoptr (YNode) n = ynode_new (YNODE_MAP, LINE (p, p->cur)->lineno);

  while (p->cur < p->lines->len) {
    const YLine *l = LINE (p, p->cur);
    const char *e = l->s + l->len, *colon;
    YNode *value;

    if (l->indent < indent || (l->indent == indent && is_seq_item (l)))
      break;
    if (l->indent > indent) {
      parse_fail (p, l->lineno, "unexpected indentation");
      return NULL;
    }
    colon = find_key_colon (l->s, e);
    if (colon == NULL || colon == l->s) {
      parse_fail (p, l->lineno, "expected \"key: value\"");
      return NULL;
    }
    value = parse_value (p, skip_spaces (colon + 1, e), e, indent, TRUE,
        depth);
    if (value == NULL)
      return NULL;
    {
      const char *k = l->s, *ke = colon;
      while (ke > k && ke[-1] == ' ')
        ke--;
      g_ptr_array_add (n->keys, g_strndup (k, ke - k));
    }
    g_ptr_array_add (n->items, value);
  }
  return g_steal_pointer (&n);
}

static YNode *
parse_seq (YParser * p, int indent, int depth)
{
  g_autoptr (YNode) n = ynode_new (YNODE_SEQ, LINE (p, p->cur)->lineno);

  while (p->cur < p->lines->len) {
    YLine *l = LINE (p, p->cur);
    const char *e = l->s + l->len, *s;
    YNode *item;

    if (l->indent != indent || !is_seq_item (l))
      break;
    s = skip_spaces (l->s + 1, e);
    if (s < e && find_key_colon (s, e) != NULL) {
      /* "- key: value": a map whose first line starts after the dash. */
      l->indent += (int) (s - l->s);
      l->len -= (int) (s - l->s);
      l->s = s;
      item = parse_map (p, l->indent, depth + 1);
    } else {
      item = parse_value (p, s, e, indent, FALSE, depth);
    }
    if (item == NULL)
      return NULL;
    g_ptr_array_add (n->items, item);
  }
  return g_steal_pointer (&n);
}

static YNode *
parse_block (YParser * p, int indent, int depth)
{
  const YLine *l;

  if (depth > MAX_DEPTH) {
    parse_fail (p, LINE (p, p->cur)->lineno, "nested more than %d levels",
        MAX_DEPTH);
    return NULL;
  }
  l = LINE (p, p->cur);
  if (l->s[0] == '[' || l->s[0] == '{')
    return parse_flow_at (p, l->s, depth);      /* "key:\n   []" */
  return is_seq_item (l) ? parse_seq (p, indent, depth) :
      parse_map (p, indent, depth);
}

static YNode *
parse_document (const char *text, gsize length, const char *name,
    GError ** error)
{
  YParser p = { name, NULL, NULL, 0, error };
  YNode *root = NULL;

  if (memchr (text, '\0', length) != NULL) {
    g_set_error (error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_PARSE,
        "%s: binary data (a NUL byte): not a YAML model file", name);
    return NULL;
  }
  if (split_lines (&p, text, length)) {
    if (p.lines->len == 0)
      parse_fail (&p, 1, "no content after the %%YAML header");
    else if (LINE (&p, 0)->indent != 0)
      parse_fail (&p, LINE (&p, 0)->lineno, "unexpected indentation");
    else
      root = parse_block (&p, 0, 0);
    if (root != NULL && p.cur < p.lines->len) {
      parse_fail (&p, LINE (&p, p.cur)->lineno, "unexpected content");
      g_clear_pointer (&root, ynode_free);
    }
  }
  if (root != NULL && root->kind != YNODE_MAP) {
    g_set_error (error, CLV_EIGEN_ERROR, CLV_EIGEN_ERROR_PARSE,
        "%s: the document is not a map of keys", name);
    g_clear_pointer (&root, ynode_free);
  }
  g_array_unref (p.lines);
  return root;
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
