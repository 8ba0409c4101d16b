/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzz target: the Eigenfaces model reader (common/clv-eigen-model.c:
 * OpenCV's FileStorage YAML through libyaml).  Every input either fails
 * with a message or gives a model whose sizes agree, which our writer
 * writes and the reader reads back to the same sizes; anything else is a
 * finding. */
#include "clv-eigen.h"
#include "fuzz-target.h"

static void
check_model (const ClvEigenModel * m)
{
  if (m->width <= 0 || m->height <= 0 || m->dim != m->width * m->height
      || m->n_components < 1 || m->n_train < 1 || m->mean == NULL
      || m->eigenvalues == NULL || m->eigenvectors == NULL
      || m->projections == NULL || m->labels == NULL)
    abort ();
}

int
LLVMFuzzerTestOneInput (const uint8_t * data, size_t size)
{
  GError *error = NULL;
  ClvEigenModel *model, *again;
  char *text;

  model = clv_eigen_model_parse ((const char *) data, size, "fuzz.yml", 0, 0,
      &error);
  if (model == NULL) {
    if (error == NULL || error->message[0] == '\0')
      abort ();
    g_error_free (error);
    return 0;
  }
  check_model (model);
  text = clv_eigen_model_to_string (model);
  again = clv_eigen_model_parse (text, strlen (text), "written.yml", 0, 0,
      &error);
  if (again == NULL) {
    g_printerr ("the written model does not load: %s\n%s\n", error->message,
        text);
    abort ();
  }
  if (again->width != model->width || again->height != model->height
      || again->n_components != model->n_components
      || again->n_train != model->n_train)
    abort ();
  clv_eigen_model_free (again);
  clv_eigen_model_free (model);
  g_free (text);
  return 0;
}
