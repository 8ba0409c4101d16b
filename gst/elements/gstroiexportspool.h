/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* roiexport's on-disk spool: MQTT records waiting for the broker, oldest
 * first, in one file of fixed size used as a ring (DIR/roiexport.spool).
 * The file survives the process: records a run could not deliver are
 * delivered first by the next run that opens the same spool.  Not thread
 * safe: the caller serialises calls. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _RoiExportSpool RoiExportSpool;

/* Opens DIR/roiexport.spool (creating DIR and the file, `max_bytes` in
 * all, reserved on the disk), locked against other processes.  A spool
 * left with another size is rewritten to `max_bytes`; `dropped` gets the
 * number of its oldest records that did not fit.  NULL with `error` set
 * when the spool cannot be used (in use, damaged, no room, I/O). */
RoiExportSpool *roi_export_spool_open (const gchar * dir, guint64 max_bytes,
    guint64 * dropped, GError ** error);
/* Writes the header, syncs and closes. */
void roi_export_spool_close (RoiExportSpool * spool);

const gchar *roi_export_spool_get_path (const RoiExportSpool * spool);
/* Records in the spool. */
guint64 roi_export_spool_length (const RoiExportSpool * spool);

/* The sequence number the next record gets, kept in the file so that a
 * later run continues it. */
guint64 roi_export_spool_get_next_seq (const RoiExportSpool * spool);
gboolean roi_export_spool_set_next_seq (RoiExportSpool * spool, guint64 seq,
    GError ** error);

/* Whether a record of `len` bytes fits now; ever (in an empty spool). */
gboolean roi_export_spool_fits (const RoiExportSpool * spool, gsize len);
gboolean roi_export_spool_can_hold (const RoiExportSpool * spool, gsize len);

/* Appends after the newest, or puts before the oldest, a record that
 * fits; FALSE with `error` set on an I/O error (the spool unchanged). */
gboolean roi_export_spool_push_tail (RoiExportSpool * spool,
    const gchar * payload, GError ** error);
gboolean roi_export_spool_push_head (RoiExportSpool * spool,
    const gchar * payload, GError ** error);
/* Takes the oldest record (NUL-terminated); NULL when the spool is empty,
 * or with `error` set on an I/O error or a damaged record. */
gchar *roi_export_spool_pop_head (RoiExportSpool * spool, GError ** error);
/* Forgets every record (after an error made them unreadable). */
void roi_export_spool_clear (RoiExportSpool * spool);

G_END_DECLS
