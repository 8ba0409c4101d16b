/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Eigenface training, steps 1–8 (section 3.1) of Li, Yan and Zhang,
 * "Optimization of GPU-based Eigenface Algorithm".
 *
 * Build macros:
 *   REAL_DOUBLE  1: compute in double (needs cl_khr_fp64), 0: float
 *   RED_WG       work-group size of the row reductions (power of two)
 *   MEAN_PIX     pixels per work-group of the mean (the x size)
 *   MEAN_LANES   faces summed in parallel per pixel (the y size, power of two)
 *   ZM_ROWS      faces per work-item of the zero-mean step
 *   MM_TILE      output tile side of the matrix products
 *   MM_TK        depth of the tiles held in local memory
 *   MM_WPT       outputs per work-item along each side (MM_TILE / MM_WPT
 *                work-items per side)
 *   VACC_WG      work-group size of the eigenvector accumulation
 *   VACC_ROWS    rows of V one accumulation work-group holds
 *   VACC_LOCAL   1: those rows live in local memory, 0: in global memory
 *   TR_TILE, TR_ROWS  transpose tile side and work-group rows (the paper's
 *                TILE_DIM 32 and BLOCK_ROWS 8)
 *
 * Faces are rows: A is M × P (P pixels), so L = A·Aᵀ/M is the paper's AᵀA/M
 * with its column-face matrix.  All matrices are row-major with explicit
 * leading dimensions. */

#if REAL_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double2 real2;
#else
typedef float real;
typedef float2 real2;
#endif

/* The sum of `s` over the work-group (RED_WG work-items): a completely
 * unrolled tree reduction in local memory (`part`, RED_WG reals). */
inline real
group_sum (const real s, __local real * part)
{
  const int lid = get_local_id (0);

  part[lid] = s;
  barrier (CLK_LOCAL_MEM_FENCE);
#pragma unroll
  for (int span = RED_WG / 2; span > 0; span >>= 1) {
    if (lid < span)
      part[lid] += part[lid + span];
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  return part[0];
}

/* V ← I, the start of the accumulated rotations. */
__kernel void
identity (__global real * v, const int n)
{
  const int j = get_global_id (0), i = get_global_id (1);

  if (i < n && j < n)
    v[(size_t) i * n + j] = i == j;
}

/* Step 1: the mean face.  A work-group owns MEAN_PIX neighbouring pixels;
 * its MEAN_LANES rows of work-items sum every MEAN_LANES-th face (reads of a
 * face row are contiguous), then a completely unrolled tree reduction in
 * local memory adds the lanes.  Sums of bytes are exact in uint. */
__kernel __attribute__ ((reqd_work_group_size (MEAN_PIX, MEAN_LANES, 1)))
void
face_mean (const __global uchar * faces, const int n_faces, const int dim,
    __global real * mean)
{
  __local uint part[MEAN_LANES][MEAN_PIX];
  const int lx = get_local_id (0), ly = get_local_id (1);
  const int p = get_global_id (0);
  uint s = 0;

  if (p < dim)
    for (int i = ly; i < n_faces; i += MEAN_LANES)
      s += faces[(size_t) i * dim + p];
  part[ly][lx] = s;
  barrier (CLK_LOCAL_MEM_FENCE);
#pragma unroll
  for (int span = MEAN_LANES / 2; span > 0; span >>= 1) {
    if (ly < span)
      part[ly][lx] += part[ly + span][lx];
    barrier (CLK_LOCAL_MEM_FENCE);
  }
  if (ly == 0 && p < dim)
    mean[p] = (real) part[0][lx] / (real) n_faces;
}

/* Step 2: A = faces − mean; a work-item does ZM_ROWS faces of one pixel. */
__kernel void
zero_mean (const __global uchar * faces, const __global real * mean,
    const int n_faces, const int dim, __global real * a)
{
  const int p = get_global_id (0);
  const int i0 = get_global_id (1) * ZM_ROWS;

  if (p >= dim)
    return;
  const real m = mean[p];
#pragma unroll
  for (int r = 0; r < ZM_ROWS; r++) {
    const int i = i0 + r;
    if (i < n_faces)
      a[(size_t) i * dim + p] = (real) faces[(size_t) i * dim + p] - m;
  }
}

/* Steps 3, 6 and 8: C = alpha · X · op(Y), X m × k, op(Y) k × n, where
 * op(Y) = Yᵀ (Y n × k, "nt") or Y (k × n, "nn").  Tiled matrix product in
 * local memory: a work-group computes an MM_TILE² tile of C, walking k in
 * slabs of MM_TK; each work-item keeps MM_WPT² accumulators in registers
 * (rows ty + i·S, columns tx + j·S with S = MM_TILE / MM_WPT, so reads of
 * the Y slab are consecutive across tx).  Loads are coalesced, the X slab
 * row and the Y slab column are padded against bank conflicts. */
#define MM_SIDE (MM_TILE / MM_WPT)
#define MM_WG (MM_SIDE * MM_SIDE)

inline void
matmul_tile (const __global real * x, const int ldx,
    const __global real * y, const int ldy, __global real * c,
    const int ldc, const int m, const int n, const int k, const real alpha,
    const int y_transposed, __local real (*xs)[MM_TK + 1],
    __local real (*ys)[MM_TILE + 1])
{
  const int tx = get_local_id (0), ty = get_local_id (1);
  const int lid = ty * MM_SIDE + tx;
  const int i0 = get_group_id (1) * MM_TILE, j0 = get_group_id (0) * MM_TILE;
  real acc[MM_WPT][MM_WPT];

#pragma unroll
  for (int a = 0; a < MM_WPT; a++)
#pragma unroll
    for (int b = 0; b < MM_WPT; b++)
      acc[a][b] = 0;

  for (int l0 = 0; l0 < k; l0 += MM_TK) {
    /* X slab: MM_TILE rows × MM_TK columns, rows contiguous in memory. */
    for (int t = lid; t < MM_TILE * MM_TK; t += MM_WG) {
      const int r = t / MM_TK, col = t % MM_TK;
      const int gi = i0 + r, gl = l0 + col;
      xs[r][col] = gi < m && gl < k ? x[(size_t) gi * ldx + gl] : 0;
    }
    /* Y slab as ys[l][j]. */
    for (int t = lid; t < MM_TILE * MM_TK; t += MM_WG) {
      if (y_transposed) {
        const int r = t / MM_TK, col = t % MM_TK;
        const int gj = j0 + r, gl = l0 + col;
        ys[col][r] = gj < n && gl < k ? y[(size_t) gj * ldy + gl] : 0;
      } else {
        const int r = t / MM_TILE, col = t % MM_TILE;
        const int gl = l0 + r, gj = j0 + col;
        ys[r][col] = gl < k && gj < n ? y[(size_t) gl * ldy + gj] : 0;
      }
    }
    barrier (CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int l = 0; l < MM_TK; l++) {
      real yv[MM_WPT];
#pragma unroll
      for (int b = 0; b < MM_WPT; b++)
        yv[b] = ys[l][tx + b * MM_SIDE];
#pragma unroll
      for (int a = 0; a < MM_WPT; a++) {
        const real xv = xs[ty + a * MM_SIDE][l];
#pragma unroll
        for (int b = 0; b < MM_WPT; b++)
          acc[a][b] = fma (xv, yv[b], acc[a][b]);
      }
    }
    barrier (CLK_LOCAL_MEM_FENCE);
  }

#pragma unroll
  for (int a = 0; a < MM_WPT; a++) {
    const int gi = i0 + ty + a * MM_SIDE;
#pragma unroll
    for (int b = 0; b < MM_WPT; b++) {
      const int gj = j0 + tx + b * MM_SIDE;
      if (gi < m && gj < n)
        c[(size_t) gi * ldc + gj] = alpha * acc[a][b];
    }
  }
}

#define MATMUL_KERNEL(name, y_transposed)                               \
__kernel __attribute__ ((reqd_work_group_size (MM_SIDE, MM_SIDE, 1)))   \
void                                                                    \
name (const __global real * x, const int ldx, const __global real * y,  \
    const int ldy, __global real * c, const int ldc, const int m,       \
    const int n, const int k, const real alpha)                         \
{                                                                       \
  __local real xs[MM_TILE][MM_TK + 1];                                  \
  __local real ys[MM_TK][MM_TILE + 1];                                  \
                                                                        \
  matmul_tile (x, ldx, y, ldy, c, ldc, m, n, k, alpha, y_transposed,    \
      xs, ys);                                                          \
}

MATMUL_KERNEL (matmul_nt, 1)
MATMUL_KERNEL (matmul_nn, 0)

/* Step 4: parallel cyclic Jacobi on the symmetric n × n matrix B (n even;
 * an odd matrix is padded with a zero row and column, whose pairs never
 * rotate).  A sweep is n − 1 rounds of the chess-tournament (round-robin)
 * ordering: index n − 1 stays, the others turn on a circle, and in round r
 * the n/2 disjoint pairs are (n − 1, r) and (r + k, r − k) mod (n − 1).
 * Every pair meets exactly once per sweep.  Per round:
 *   jacobi_params: one work-item per pair computes c, s (Golub & Van Loan's
 *     symmetric Schur rotation) once, and rotates the pair's 2 × 2 diagonal
 *     block itself (new diagonal, exact zero off it) so that the rotation
 *     kernel needs no special case for it;
 *   jacobi_rotate: one work-item per (row pair, column pair) applies both
 *     rotations to its 2 × 2 block of B (B ← JᵀBJ, rows and columns at
 *     once, in place: no other work-item reads the block).
 * The parameters of a batch of rounds are kept (slot = round in the batch),
 * and jacobi_accumulate applies the whole batch to V (V ← V·J₁·J₂…) in one
 * pass: every row of V takes the same column rotations, so a work-group
 * holds a few rows in local memory through all the rounds.  V then crosses
 * the memory bus once per batch instead of once per round. */
inline int2
jacobi_pair (const int round, const int k, const int n)
{
  const int m = n - 1;
  /* (round ± k) mod m without a division: both lie in (−m, 2m). */
  const int p = round + k, q = round - k;
  if (k == 0)
    return (int2) (m, round);
  return (int2) (p >= m ? p - m : p, q < 0 ? q + m : q);
}

/* Rotations this small change B by less than its rounding: skipped, which
 * also lets the rotation kernel leave converged blocks alone. */
#if REAL_DOUBLE
#define JAC_NEGLIGIBLE 1e-18
#else
#define JAC_NEGLIGIBLE 1e-9f
#endif

__kernel void
jacobi_params (__global real * b, const int n, const int ld, const int round,
    __global real2 * rot, const int slot)
{
  const int k = get_global_id (0);

  if (k >= n / 2)
    return;
  const int2 pq = jacobi_pair (round, k, n);
  const size_t pp = (size_t) pq.x * ld + pq.x, qq = (size_t) pq.y * ld + pq.y;
  const size_t pqi = (size_t) pq.x * ld + pq.y, qpi = (size_t) pq.y * ld + pq.x;
  const real app = b[pp], aqq = b[qq], apq = b[pqi];
  real c = 1, s = 0;

  if (fabs (apq) > JAC_NEGLIGIBLE * sqrt (fabs (app) * fabs (aqq))
      && apq != 0) {
    const real tau = (aqq - app) / (2 * apq);
    const real t = (tau >= 0 ? 1 : -1) / (fabs (tau) + sqrt (1 + tau * tau));
    c = 1 / sqrt (1 + t * t);
    s = t * c;
    b[pp] = app - t * apq;
    b[qq] = aqq + t * apq;
    b[pqi] = 0;
    b[qpi] = 0;
  }
  rot[slot * (n / 2) + k] = (real2) (c, s);
}

__kernel void
jacobi_rotate (__global real * b, const int n, const int ld, const int round,
    const __global real2 * rot, const int slot)
{
  const int kc = get_global_id (0), kr = get_global_id (1);

  if (kc >= n / 2 || kr >= n / 2 || kr == kc)
    return;
  rot += slot * (n / 2);
  const real2 r1 = rot[kr], r2 = rot[kc];
  /* Both rotations skipped: the block stays.  (The diagonal blocks were
   * rotated by jacobi_params.) */
  if (r1.y == 0 && r2.y == 0)
    return;
  const int2 rows = jacobi_pair (round, kr, n);
  const int2 cols = jacobi_pair (round, kc, n);
  const size_t p = (size_t) rows.x * ld, q = (size_t) rows.y * ld;
  const real xpp = b[p + cols.x], xpq = b[p + cols.y];
  const real xqp = b[q + cols.x], xqq = b[q + cols.y];
  /* Rows: Jᵀ·X. */
  const real ypp = r1.x * xpp - r1.y * xqp, ypq = r1.x * xpq - r1.y * xqq;
  const real yqp = r1.y * xpp + r1.x * xqp, yqq = r1.y * xpq + r1.x * xqq;
  /* Columns: (JᵀX)·J. */
  b[p + cols.x] = r2.x * ypp - r2.y * ypq;
  b[p + cols.y] = r2.y * ypp + r2.x * ypq;
  b[q + cols.x] = r2.x * yqp - r2.y * yqq;
  b[q + cols.y] = r2.y * yqp + r2.x * yqq;
}

/* V ← V·J(first_round)·…·J(first_round + n_rounds − 1), the rotations of
 * slots 0 … n_rounds − 1: V[i, p] ← c V[i, p] − s V[i, q], V[i, q] ←
 * s V[i, p] + c V[i, q] for every pair (p, q) of a round.  A work-group owns
 * VACC_ROWS rows; `scratch` holds them (VACC_ROWS × n reals) when
 * VACC_LOCAL. */
__kernel __attribute__ ((reqd_work_group_size (VACC_WG, 1, 1)))
void
jacobi_accumulate (__global real * v, const int n, const int ld,
    const int first_round, const int n_rounds,
    const __global real2 * rot, __local real * scratch)
{
  const int lid = get_local_id (0), pairs = n / 2;
  const int row0 = get_group_id (0) * VACC_ROWS;
  const int n_rows = min (VACC_ROWS, n - row0);
#if VACC_LOCAL
  __local real *rows = scratch;

  for (int t = lid; t < n_rows * n; t += VACC_WG)
    rows[t] = v[(size_t) (row0 + t / n) * ld + t % n];
  barrier (CLK_LOCAL_MEM_FENCE);
#define VACC_ROW(r) (rows + (r) * n)
#define VACC_FENCE CLK_LOCAL_MEM_FENCE
#else
#define VACC_ROW(r) (v + (size_t) (row0 + (r)) * ld)
#define VACC_FENCE CLK_GLOBAL_MEM_FENCE
#endif
  for (int t = 0; t < n_rounds; t++) {
    const __global real2 *r = rot + t * pairs;
    for (int k = lid; k < pairs; k += VACC_WG) {
      const real2 cs = r[k];
      if (cs.y != 0) {
        const int2 pq = jacobi_pair (first_round + t, k, n);
        for (int i = 0; i < n_rows; i++) {
          const real vp = VACC_ROW (i)[pq.x], vq = VACC_ROW (i)[pq.y];
          VACC_ROW (i)[pq.x] = cs.x * vp - cs.y * vq;
          VACC_ROW (i)[pq.y] = cs.y * vp + cs.x * vq;
        }
      }
    }
    barrier (VACC_FENCE);
  }
#if VACC_LOCAL
  for (int t = lid; t < n_rows * n; t += VACC_WG)
    v[(size_t) (row0 + t / n) * ld + t % n] = rows[t];
#endif
}

/* Convergence: per-work-group partial sums of B's squared entries, off the
 * diagonal only or all of them; the host adds the partials (the paper's
 * "sum of absolute values" step, squared for the Frobenius norm).  Work-
 * groups take every n_groups-th row, their work-items neighbouring
 * columns. */
__kernel __attribute__ ((reqd_work_group_size (RED_WG, 1, 1)))
void
jacobi_norm (const __global real * b, const int n, const int ld,
    const int off_diagonal_only, __global real * partial)
{
  __local real part[RED_WG];
  const int lid = get_local_id (0);
  real s = 0;

  for (int i = get_group_id (0); i < n; i += get_num_groups (0))
    for (int j = lid; j < n; j += RED_WG) {
      const real e = b[(size_t) i * ld + j];
      if (!off_diagonal_only || i != j)
        s += e * e;
    }
  s = group_sum (s, part);
  if (lid == 0)
    partial[get_group_id (0)] = s;
}

/* The diagonal of B (the eigenvalues once converged). */
__kernel void
jacobi_diagonal (const __global real * b, const int n, const int ld,
    __global real * diag)
{
  const int i = get_global_id (0);

  if (i < n)
    diag[i] = b[(size_t) i * ld + i];
}

/* Step 5: Vₖᵀ, the eigenvectors of the kept eigenvalues (in descending
 * order) as rows: vt[k][i] = V[i][order[k]]. */
__kernel void
select_components (const __global real * v, const int ld,
    const int n_rows, const __global int *order, const int n_keep,
    __global real * vt)
{
  const int i = get_global_id (0), k = get_global_id (1);

  if (i < n_rows && k < n_keep)
    vt[(size_t) k * n_rows + i] = v[(size_t) i * ld + order[k]];
}

/* out (cols × rows) = inᵀ (in: rows × cols), the paper's step 3 (1): a
 * work-group reads a TR_TILE² tile row by row (coalesced) into local memory
 * padded by one column (no bank conflicts on the column reads) and writes
 * it transposed, again row by row; each work-item moves TR_TILE / TR_ROWS
 * elements.  Gives OpenCV's eigenvector layout (pixels × components). */
__kernel __attribute__ ((reqd_work_group_size (TR_TILE, TR_ROWS, 1)))
void
transpose (const __global real * in, const int rows, const int cols,
    __global real * out)
{
  __local real tile[TR_TILE][TR_TILE + 1];
  const int tx = get_local_id (0), ty = get_local_id (1);
  const int c0 = get_group_id (0) * TR_TILE, r0 = get_group_id (1) * TR_TILE;

  for (int j = ty; j < TR_TILE; j += TR_ROWS)
    if (r0 + j < rows && c0 + tx < cols)
      tile[j][tx] = in[(size_t) (r0 + j) * cols + c0 + tx];
  barrier (CLK_LOCAL_MEM_FENCE);
  for (int j = ty; j < TR_TILE; j += TR_ROWS)
    if (c0 + j < cols && r0 + tx < rows)
      out[(size_t) (c0 + j) * rows + r0 + tx] = tile[tx][j];
}

/* Step 7: each row of Uᵀ (an eigenface) to unit length; one work-group per
 * row, the sum of squares by a tree reduction, then the scaling by the same
 * work-items (fused, one pass over the row each). */
__kernel __attribute__ ((reqd_work_group_size (RED_WG, 1, 1)))
void
normalise_rows (__global real * u, const int dim)
{
  __local real part[RED_WG];
  const int lid = get_local_id (0);
  __global real *row = u + (size_t) get_group_id (0) * dim;
  real s = 0;

  for (int p = lid; p < dim; p += RED_WG)
    s += row[p] * row[p];
  const real norm = sqrt (group_sum (s, part));
  if (norm > 0)
    for (int p = lid; p < dim; p += RED_WG)
      row[p] /= norm;
}
