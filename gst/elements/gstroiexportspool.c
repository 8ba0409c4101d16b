/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* roiexport's on-disk spool; see the header.
 *
 * The file: a 64-byte header (magic, version, the ring's capacity, the
 * oldest record's offset, the bytes and records in use, the next sequence
 * number), then the ring.  A record is its length (4 bytes, little-endian)
 * and its bytes, wrapping at the ring's end.  A change writes the record
 * first and the header last, in one write of 64 bytes: a process killed
 * in between leaves the header of before, which describes whole records
 * only.  Nothing is synced before close (a power loss may lose the last
 * records; a crash of the process does not). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "gstroiexportspool.h"

#define SPOOL_FILE "roiexport.spool"
#define MAGIC "CLVSPOOL"
#define SPOOL_VERSION 1
#define HEADER_SIZE 64
#define LENGTH_SIZE 4

typedef struct
{
  guint64 capacity;             /* bytes of the ring */
  guint64 head;                 /* ring offset of the oldest record */
  guint64 used;                 /* bytes of records, lengths included */
  guint64 count;                /* records */
  guint64 next_seq;
} SpoolHeader;

struct _RoiExportSpool
{
  gchar *path;
  gint fd;
  SpoolHeader h;
};

static gboolean
set_io_error (GError ** error, const gchar * path, const gchar * what)
{
  gint saved = errno;

  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
      "%s the spool \"%s\": %s", what, path, g_strerror (saved));
  return FALSE;
}

static gboolean
pwrite_all (gint fd, const void *buf, gsize len, guint64 offset)
{
  while (len > 0) {
    gssize n = pwrite (fd, buf, len, (off_t) offset);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = ENOSPC;
      return FALSE;
    }
    buf = (const guint8 *) buf + n;
    len -= n;
    offset += n;
  }
  return TRUE;
}

static gboolean
pread_all (gint fd, void *buf, gsize len, guint64 offset)
{
  while (len > 0) {
    gssize n = pread (fd, buf, len, (off_t) offset);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = EIO;            /* shorter than its header says */
      return FALSE;
    }
    buf = (guint8 *) buf + n;
    len -= n;
    offset += n;
  }
  return TRUE;
}

/* `len` bytes at ring offset `pos`, wrapping at the end of the ring. */
static gboolean
ring_write (const RoiExportSpool * s, guint64 pos, const void *buf, gsize len)
{
  gsize first = MIN (len, s->h.capacity - pos);

  return pwrite_all (s->fd, buf, first, HEADER_SIZE + pos)
      && pwrite_all (s->fd, (const guint8 *) buf + first, len - first,
      HEADER_SIZE);
}

static gboolean
ring_read (const RoiExportSpool * s, guint64 pos, void *buf, gsize len)
{
  gsize first = MIN (len, s->h.capacity - pos);

  return pread_all (s->fd, buf, first, HEADER_SIZE + pos)
      && pread_all (s->fd, (guint8 *) buf + first, len - first, HEADER_SIZE);
}

static gboolean
write_header (const RoiExportSpool * s)
{
  guint8 buf[HEADER_SIZE] = { 0 };
  guint32 version = GUINT32_TO_LE (SPOOL_VERSION);
  guint64 fields[5] = { GUINT64_TO_LE (s->h.capacity),
    GUINT64_TO_LE (s->h.head), GUINT64_TO_LE (s->h.used),
    GUINT64_TO_LE (s->h.count), GUINT64_TO_LE (s->h.next_seq)
  };

  memcpy (buf, MAGIC, 8);
  memcpy (buf + 8, &version, 4);
  memcpy (buf + 16, fields, sizeof fields);
  return pwrite_all (s->fd, buf, HEADER_SIZE, 0);
}

/* The length of the record at ring offset `pos`, which must lie within
 * the `left` bytes in use from there. */
static gboolean
record_length_at (const RoiExportSpool * s, guint64 pos, guint64 left,
    guint32 * len)
{
  guint32 le;

  errno = EIO;                  /* unless a read says otherwise */
  if (left < LENGTH_SIZE || !ring_read (s, pos, &le, LENGTH_SIZE))
    return FALSE;
  *len = GUINT32_FROM_LE (le);
  return (guint64) * len + LENGTH_SIZE <= left;
}

/* The header of an existing file, and every record's length, checked. */
static gboolean
read_header (RoiExportSpool * s, guint64 file_size)
{
  guint8 buf[HEADER_SIZE];
  guint32 version, len;
  guint64 fields[5], pos, left;

  if (!pread_all (s->fd, buf, HEADER_SIZE, 0) || memcmp (buf, MAGIC, 8) != 0)
    return FALSE;
  memcpy (&version, buf + 8, 4);
  memcpy (fields, buf + 16, sizeof fields);
  s->h = (SpoolHeader) {
  GUINT64_FROM_LE (fields[0]), GUINT64_FROM_LE (fields[1]),
        GUINT64_FROM_LE (fields[2]), GUINT64_FROM_LE (fields[3]),
        GUINT64_FROM_LE (fields[4])};
  if (GUINT32_FROM_LE (version) != SPOOL_VERSION || s->h.capacity == 0
      || s->h.head >= s->h.capacity || s->h.used > s->h.capacity
      || file_size < HEADER_SIZE + s->h.capacity)
    return FALSE;
  pos = s->h.head;
  left = s->h.used;
  for (guint64 i = 0; i < s->h.count; i++) {
    if (!record_length_at (s, pos, left, &len))
      return FALSE;
    pos = (pos + LENGTH_SIZE + len) % s->h.capacity;
    left -= LENGTH_SIZE + len;
  }
  return left == 0;
}

/* Closes and frees `s` without writing to it: its header may be
 * another's, or not ours to change. */
static void
spool_discard (RoiExportSpool * s)
{
  if (s->fd >= 0)
    close (s->fd);
  g_free (s->path);
  g_free (s);
}

/* The spool at `path`, opened (created if need be) and locked against
 * other processes; its header not read yet. */
static RoiExportSpool *
spool_lock (const gchar * path, guint64 * file_size, GError ** error)
{
  RoiExportSpool *s = g_new0 (RoiExportSpool, 1);
  struct stat st;

  s->path = g_strdup (path);
  s->fd = g_open (path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (s->fd < 0 || fstat (s->fd, &st) != 0) {
    set_io_error (error, path, "Cannot open");
    goto failed;
  }
  if (flock (s->fd, LOCK_EX | LOCK_NB) != 0) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
        "The spool \"%s\" is in use by another roiexport: give each "
        "element its own spool-dir", path);
    goto failed;
  }
  *file_size = (guint64) st.st_size;
  return s;

failed:
  spool_discard (s);
  return NULL;
}

/* Makes `s` an empty spool of `max_bytes`, its space reserved now, so
 * that a full disk shows at start rather than in the middle of an
 * outage. */
static gboolean
spool_init (RoiExportSpool * s, guint64 max_bytes, guint64 next_seq,
    GError ** error)
{
  gint rc;

  s->h = (SpoolHeader) {
  max_bytes - HEADER_SIZE, 0, 0, 0, next_seq};
  rc = ftruncate (s->fd, 0) == 0 ?
      posix_fallocate (s->fd, 0, (off_t) max_bytes) : errno;
  if (rc == EOPNOTSUPP || rc == EINVAL)
    rc = ftruncate (s->fd, (off_t) max_bytes) == 0 ? 0 : errno;
  errno = rc;
  if (rc != 0 || !write_header (s))
    return set_io_error (error, s->path, "Cannot make");
  return TRUE;
}

/* Copies the records of `old` to `s`, but for the oldest ones that do not
 * fit (counted in `dropped`). */
static gboolean
copy_records (RoiExportSpool * old, RoiExportSpool * s, guint64 * dropped,
    GError ** error)
{
  guint64 pos = old->h.head, left = old->h.used;
  guint32 len;
  gboolean ok = TRUE;

  for (guint64 i = 0; ok && i < old->h.count; i++) {
    gchar *buf;

    if (!record_length_at (old, pos, left, &len))
      return set_io_error (error, old->path, "Cannot read");
    if (left > s->h.capacity) {
      (*dropped)++;
    } else {
      buf = g_malloc ((gsize) len + 1);
      buf[len] = '\0';
      ok = ring_read (old, (pos + LENGTH_SIZE) % old->h.capacity, buf, len) ?
          roi_export_spool_push_tail (s, buf, error) :
          set_io_error (error, old->path, "Cannot read");
      g_free (buf);
    }
    pos = (pos + LENGTH_SIZE + len) % old->h.capacity;
    left -= LENGTH_SIZE + len;
  }
  return ok;
}

/* The records of `old` in a new spool of `max_bytes` that replaces it
 * once complete; `old` is left as it was on failure. */
static RoiExportSpool *
spool_resize (RoiExportSpool * old, guint64 max_bytes, guint64 * dropped,
    GError ** error)
{
  gchar *tmp = g_strconcat (old->path, ".new", NULL);
  guint64 size;
  RoiExportSpool *s = spool_lock (tmp, &size, error);

  if (s != NULL && (!spool_init (s, max_bytes, old->h.next_seq, error)
          || !copy_records (old, s, dropped, error))) {
    spool_discard (g_steal_pointer (&s));
    g_unlink (tmp);
  } else if (s != NULL && g_rename (tmp, old->path) != 0) {
    set_io_error (error, old->path, "Cannot replace");
    spool_discard (g_steal_pointer (&s));
    g_unlink (tmp);
  } else if (s != NULL) {
    g_free (s->path);
    s->path = g_strdup (old->path);
  }
  g_free (tmp);
  return s;
}

RoiExportSpool *
roi_export_spool_open (const gchar * dir, guint64 max_bytes,
    guint64 * dropped, GError ** error)
{
  gchar *path = g_build_filename (dir, SPOOL_FILE, NULL);
  RoiExportSpool *s = NULL, *resized;
  guint64 size;

  *dropped = 0;
  if (g_mkdir_with_parents (dir, 0700) != 0)
    set_io_error (error, dir, "Cannot make the folder of");
  else
    s = spool_lock (path, &size, error);
  g_free (path);
  if (s == NULL)
    return NULL;
  if (size == 0) {
    if (!spool_init (s, max_bytes, 0, error))
      goto failed;
  } else if (!read_header (s, size)) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
        "\"%s\" is not a roiexport spool, or is damaged: move it away or "
        "choose another spool-dir", s->path);
    goto failed;
  } else if (s->h.capacity != max_bytes - HEADER_SIZE) {
    resized = spool_resize (s, max_bytes, dropped, error);
    if (resized == NULL)
      goto failed;
    spool_discard (s);
    s = resized;
  }
  return s;

failed:
  spool_discard (s);
  return NULL;
}

void
roi_export_spool_close (RoiExportSpool * s)
{
  write_header (s);
  fdatasync (s->fd);
  spool_discard (s);
}

const gchar *
roi_export_spool_get_path (const RoiExportSpool * s)
{
  return s->path;
}

guint64
roi_export_spool_length (const RoiExportSpool * s)
{
  return s->h.count;
}

guint64
roi_export_spool_get_next_seq (const RoiExportSpool * s)
{
  return s->h.next_seq;
}

gboolean
roi_export_spool_set_next_seq (RoiExportSpool * s, guint64 seq,
    GError ** error)
{
  s->h.next_seq = seq;
  return write_header (s) || set_io_error (error, s->path, "Cannot write");
}

gboolean
roi_export_spool_fits (const RoiExportSpool * s, gsize len)
{
  return s->h.used + LENGTH_SIZE + len <= s->h.capacity;
}

gboolean
roi_export_spool_can_hold (const RoiExportSpool * s, gsize len)
{
  return LENGTH_SIZE + len <= s->h.capacity && len <= G_MAXUINT32;
}

/* Writes the record at ring offset `pos`; the header is the caller's. */
static gboolean
write_record (RoiExportSpool * s, guint64 pos, const gchar * payload,
    gsize len, GError ** error)
{
  guint32 le = GUINT32_TO_LE ((guint32) len);

  g_return_val_if_fail (roi_export_spool_fits (s, len), FALSE);
  if (!ring_write (s, pos, &le, LENGTH_SIZE)
      || !ring_write (s, (pos + LENGTH_SIZE) % s->h.capacity, payload, len))
    return set_io_error (error, s->path, "Cannot write");
  return TRUE;
}

/* Counts in the record of `len` bytes after write_record, and writes the
 * header; undone when that fails. */
static gboolean
commit_record (RoiExportSpool * s, guint64 head, gsize len, GError ** error)
{
  SpoolHeader before = s->h;

  s->h.head = head;
  s->h.used += LENGTH_SIZE + len;
  s->h.count++;
  if (write_header (s))
    return TRUE;
  set_io_error (error, s->path, "Cannot write");
  s->h = before;
  return FALSE;
}

gboolean
roi_export_spool_push_tail (RoiExportSpool * s, const gchar * payload,
    GError ** error)
{
  gsize len = strlen (payload);

  return write_record (s, (s->h.head + s->h.used) % s->h.capacity, payload,
      len, error) && commit_record (s, s->h.head, len, error);
}

gboolean
roi_export_spool_push_head (RoiExportSpool * s, const gchar * payload,
    GError ** error)
{
  gsize len = strlen (payload);
  guint64 head = (s->h.head + s->h.capacity - (LENGTH_SIZE + len) %
      s->h.capacity) % s->h.capacity;

  return write_record (s, head, payload, len, error)
      && commit_record (s, head, len, error);
}

gchar *
roi_export_spool_pop_head (RoiExportSpool * s, GError ** error)
{
  SpoolHeader before = s->h;
  guint32 len;
  gchar *payload;

  if (s->h.count == 0)
    return NULL;
  if (!record_length_at (s, s->h.head, s->h.used, &len))
    goto bad_record;
  payload = g_malloc ((gsize) len + 1);
  payload[len] = '\0';
  if (!ring_read (s, (s->h.head + LENGTH_SIZE) % s->h.capacity, payload, len)) {
    g_free (payload);
    goto bad_record;
  }
  s->h.used -= LENGTH_SIZE + len;
  s->h.count--;
  /* Empty, it starts over at the ring's start: records wrap less. */
  s->h.head = s->h.count == 0 ? 0 :
      (s->h.head + LENGTH_SIZE + len) % s->h.capacity;
  if (!write_header (s)) {
    set_io_error (error, s->path, "Cannot write");
    s->h = before;
    g_free (payload);
    return NULL;
  }
  return payload;

bad_record:
  set_io_error (error, s->path, "Cannot read");
  return NULL;
}

void
roi_export_spool_clear (RoiExportSpool * s)
{
  s->h.head = s->h.used = s->h.count = 0;
  write_header (s);
}
