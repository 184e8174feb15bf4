/* cuzk CUDA library: C ABI.
 *
 * Scalars are BLS12-381 Fr elements in gnark-crypto's fr.Element layout
 * (4 little-endian 64-bit limbs, Montgomery form, 32 bytes). G1 affine points
 * are gnark's G1Affine layout (X then Y, each 6 limbs Montgomery, 96 bytes).
 * Results are G1 points in XYZZ coordinates: X, Y, ZZ, ZZZ, each an Fp
 * element (48 bytes), 192 bytes in all; ZZ = 0 is the point at infinity.
 *
 * Every function returning int returns 0 on success and a negative code on
 * failure; cuzk_last_error() then returns a message (per thread).
 * A context is not safe for concurrent use; use one per worker or lock it.
 */
#ifndef CUZK_H
#define CUZK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_OK 0
#define CUZK_ERR_CUDA (-1)
#define CUZK_ERR_ARG (-2)
#define CUZK_ERR_MEM (-3)
/* The device is unusable for the rest of the process: CUDA reported a sticky error (an illegal
 * address or instruction, a launch failure or timeout, a device-side assert, an uncorrectable ECC
 * error), and every later call on the device fails with it. Restart the process to use it again. */
#define CUZK_ERR_LOST (-4)

/* NTT modes for cuzk_ntt (gnark-crypto's fft names in brackets). */
#define CUZK_NTT_FWD_DIF 0 /* natural -> bit-reversed, omega      [FFT(DIF)] */
#define CUZK_NTT_FWD_DIT 1 /* bit-reversed -> natural, omega      [FFT(DIT)] */
#define CUZK_NTT_INV_DIF 2 /* natural -> bit-reversed, 1/omega, /n [FFTInverse(DIF)] */
#define CUZK_NTT_INV_DIT 3 /* bit-reversed -> natural, 1/omega, /n [FFTInverse(DIT)] */
#define CUZK_NTT_COSET 4   /* flag: on the coset 7 (OnCoset) */

const char* cuzk_last_error(void);
int cuzk_device_count(void);
/* name gets a NUL-terminated name (at most name_len bytes). */
int cuzk_device_info(int dev, char* name, int name_len, uint64_t* total_mem, uint64_t* free_mem,
                     int* sm_count);

/* A context's switches, fixed at its creation; all zero: the defaults.
 * Experiments only: none changes a result. The Go device and the harness
 * fill it from the environment variables named below. */
typedef struct {
  int32_t profile;     /* CUZK_PROFILE=1: time every NTT pass and MSM phase with events,
                          synchronizing after each call (overlap is lost); totals per phase
                          on stderr at process exit */
  int32_t run_serial;  /* CUZK_RUN_SERIAL=1: cuzk_run holds the L, A and B_G1 MSMs back
                          until the H sequence is done, for comparison */
  uint32_t msm_window; /* CUZK_MSM_C: 0 (by size) or one of 16, 19, 20, 22, 24: the window
                          of the MSMs of 2^22 points or more */
  uint32_t msm_seg_lg; /* CUZK_MSM_SEG: 0 (15) or 12..20: about 2^msm_seg_lg first-level
                          bucket segments per batch of windows */
  int32_t priority;    /* 1: the context's streams at the device's greatest priority (a
                          lane for small urgent runs beside another context's), 0: the
                          default */
} cuzk_config;

typedef struct cuzk_ctx cuzk_ctx;
/* cfg may be NULL (the defaults). NULL on failure, with nothing left allocated;
 * CUZK_ERR_ARG's message for a switch out of range. */
cuzk_ctx* cuzk_ctx_new(int dev, const cuzk_config* cfg);
void cuzk_ctx_free(cuzk_ctx* ctx);

/* Pinned host memory for staging (cudaHostAlloc). */
void* cuzk_host_alloc(uint64_t bytes);
void cuzk_host_free(void* p);

/* In-place NTT of 2^lgn scalars in host memory. */
int cuzk_ntt(cuzk_ctx* ctx, void* data, uint32_t lgn, uint32_t mode);
/* Groth16 H: a, b, c have nrows <= 2^lgn scalars; out gets 2^lgn - 1
 * coefficients in natural order (bellperson's H). */
int cuzk_h(cuzk_ctx* ctx, const void* a, const void* b, const void* c, uint64_t nrows,
           uint32_t lgn, void* out);
/* MSM sum_i scalars[i]*bases[i] over n host points and scalars; out: 192 B XYZZ. */
int cuzk_msm(cuzk_ctx* ctx, const void* bases, const void* scalars, uint64_t n, void* out);
/* Split MSM over nbases host points: the bases whose bit is set in ones
 * (32-bit words, bit i%32 of word i/32) are summed, plus the tail MSM
 * sum_j scalars[j]*bases[idx[j]]. ones may be NULL, ntail may be 0. */
int cuzk_msm_split(cuzk_ctx* ctx, const void* bases, uint64_t nbases, const uint32_t* ones,
                   const void* scalars, const uint32_t* idx, uint64_t ntail, void* out);

/* A parameter set's G1 points, resident on one device. */
typedef struct cuzk_srs cuzk_srs;
cuzk_srs* cuzk_srs_upload(int dev, const void* h, uint64_t nh, const void* l, uint64_t nl,
                          const void* a, uint64_t na, const void* bg1, uint64_t nb);
/* A synthetic SRS generated on the device (distinct multiples of the
 * generator), for benchmarks. */
cuzk_srs* cuzk_srs_synthetic(int dev, uint64_t nh, uint64_t nl, uint64_t na, uint64_t nb);
void cuzk_srs_free(cuzk_srs* s);
/* A query's host pointer may be NULL (cuzk_srs_upload, or cuzk_srs_upload_limited where the plan keeps the
 * whole query resident; cuzk_srs_upload_bg2): the points are then left unset, for the caller to write with
 * cuzk_srs_write before any run. It copies n host points to query q (0 h, 1 l, 2 a, 3 b_g1, 4 b_g2) at
 * point off, inside the query's resident part: so a parameter set can go from its file to the device in
 * chunks, the host never holding it whole. */
int cuzk_srs_write(cuzk_srs* s, int q, uint64_t off, uint64_t n, const void* src);
/* Copy n points of query q (0 h, 1 l, 2 a, 3 b_g1) starting at off to host. */
int cuzk_srs_read(cuzk_srs* s, int q, uint64_t off, uint64_t n, void* out);

typedef struct {
  const uint32_t* ones; /* bitmap over the query's bases, or NULL */
  const void* scalars;  /* tail scalars */
  const uint32_t* idx;  /* tail base indices */
  uint64_t ntail;
} cuzk_msm_part;

typedef struct {
  /* nrows scalars each (pinned host memory preferred). c may be NULL: then
     the device computes c = a∘b, which is c for a witness that satisfies
     the constraints (and saves a third of the upload); for one that does
     not, H is not C's and the proof fails verification, as it would anyway. */
  const void *a, *b, *c;
  uint64_t nrows;
  uint32_t lgn;          /* domain 2^lgn; the SRS h query has 2^lgn - 1 points */
  uint32_t pad;
  cuzk_msm_part part[3]; /* L, A, B_G1 */
  /* cuzk_run only, where not NULL: once a and b are uploaded (the run reads them no more), staged_seq
     is written to *staged from a driver thread (an atomic release store), and the caller may reuse a
     and b's memory from then on, the run still in flight. *staged is host memory that outlives the
     run; a run that fails may write it later than it returns. */
  uint32_t* staged;
  uint32_t staged_seq;
  uint32_t pad2;
} cuzk_job;

typedef struct {
  uint8_t points[4][192]; /* H, L, A, B_G1 (XYZZ) */
  /* CUDA event times in milliseconds */
  /* ms_h2d spans all uploads; b, c and the tails' inputs overlap ms_ntt, and
     the L, A and B_G1 MSMs (ms_msm_l, _a, _b) run beside the NTTs too; the
     H MSM follows both. */
  float ms_total, ms_h2d, ms_ntt, ms_msm_h, ms_msm_l, ms_msm_a, ms_msm_b;
  float pad;
  /* cuzk_run_witness only (0 from cuzk_run): a = A·w and b = B·w on the main
     stream; the 0/1/other split of the L, A and B scalars on the tails stream
     (both once the witness is in, beside each other). */
  float ms_spmv, ms_split;
  /* B_G2 (helper g2's section below): when the srs holds B_G2 (has_bg2 = 1),
     its sum over the B part's ones and tail, G2 XYZZ (X, Y, ZZ, ZZZ, each an
     E2: A0 then A1, 384 B), computed on the tails stream after B_G1 (before
     the H MSM: they share the scratch); ms_msm_b2 its time. */
  uint8_t bg2[384];
  int32_t has_bg2;
  float ms_msm_b2;
  /* Host milliseconds (steady clock) from the call to the record of its
     first event (ms_host_pre: checks, scratch, the streamed set's setup)
     and to its return (ms_host): ms_host - ms_host_pre - ms_total is the
     time the GPU took beyond the run's own events (its queues behind other
     work, the final copies). ms_host_synced: from the call to the return of
     the run's last synchronization (its results in host memory), before the
     reads of its checks' words: ms_host - ms_host_synced is those reads. */
  float ms_host_pre, ms_host;
  float ms_host_synced;
} cuzk_result;

int cuzk_run(cuzk_ctx* ctx, cuzk_srs* srs, const cuzk_job* job, cuzk_result* res);

/* Two partitions of one circuit (jobs[0], jobs[1], the same domain) in one run, for a parameter
   set whose plan streams (cuzk_limits): every streamed point is uploaded once for both, each
   chunk's MSMs run for both partitions' scalars. res[0], res[1] are each partition's points and
   B_G2 as cuzk_run's; their times are the pair's (the same in both). hbuf: page-locked host
   memory of at least (2^lgn - 1) * 32 bytes that the run may overwrite (the first partition's H
   goes through it: its a, b staging serves, dead once uploaded). CUZK_ERR_ARG where the plan does
   not stream. */
int cuzk_run_pair(cuzk_ctx* ctx, cuzk_srs* srs, const cuzk_job* jobs, void* hbuf, uint64_t hbuf_bytes,
                  cuzk_result* res);

/* Benchmarks (CUDA events, median of reps, device-resident random data). */
int cuzk_bench_ntt(cuzk_ctx* ctx, uint32_t lgn, int reps, float* ms_fwd, float* ms_inv, float* ms_hseq,
                   float* ms_hseq_ab);
/* MSM over the first n points of query q of srs with random scalars; ms per MSM. */
int cuzk_bench_msm(cuzk_ctx* ctx, cuzk_srs* srs, int q, uint64_t n, int reps, float* ms, uint32_t* window);


/* --- streaming (helper stream): a device memory limit and a residency plan --- */
/* Under a limit a parameter set keeps resident what fits (a prefix of each query, the h query
 * first, then l, a, b_g1: the order the run needs them) and the run streams the rest from the
 * caller's host memory in chunks (uploads on their own stream, two chunk buffers, the MSM of one
 * chunk beside the upload of the next). The limit covers the srs's device memory and everything a
 * context's cuzk_run allocates for it; a limit below what one run needs at least is refused when
 * the srs is made (cuzk_srs_upload_limited returns NULL, the message names the bytes). Results are
 * the resident path's points (the same affine points; the XYZZ coordinates may differ). */
typedef struct {
  uint64_t limit;        /* device bytes; 0: no limit (cuzk_srs_upload) */
  uint32_t chunk_lg_max; /* 0: 24; else streamed chunks of at most 2^chunk_lg_max points (5..24; tests;
                            at least 2^6 where B_G2 streams: its chunks, half as long, start on whole
                            32-bit words of the ones bitmap) */
  uint32_t bg2;          /* 1: B_G2 (b_g1's count of G2 points, 192 B each) on the device too: resident where
                            the whole set fits with it and its run scratch, nothing streaming
                            (cuzk_plan.bg2_bytes); else streamed with the G1 queries, in chunks of half
                            their points, from the caller's points (cuzk_plan.bg2_stream_bytes). 0: not
                            counted, and cuzk_srs_upload_bg2 refuses it */
} cuzk_limits;

typedef struct {
  uint64_t limit;          /* as given */
  uint64_t n[4];           /* points of h, l, a, b_g1 */
  uint64_t resident[4];    /* of which resident: a prefix of each query */
  uint64_t resident_bytes; /* device bytes of the resident points */
  uint64_t scratch_bytes;  /* device bytes of a context's run scratch for this set (and its fixed tables) */
  uint64_t stream_bytes;   /* bytes of points streamed per run (plus the streamed tails' 36 B per entry) */
  uint64_t min_bytes;      /* the least limit a run of this shape works under */
  uint32_t lgn;            /* domain 2^lgn (h has 2^lgn - 1 points) */
  uint32_t chunk_lg;       /* streamed chunks of 2^chunk_lg points; 0: nothing streams */
  uint32_t pairs_lg;       /* MSM sorted pairs per batch of windows at most 2^pairs_lg (0: 29) */
  uint32_t pinned;         /* bit q: query q's streamed part is read from page-locked memory (4: B_G2) */
  uint64_t bg2_bytes;      /* device bytes of B_G2 the plan holds resident (in resident_bytes; its G2 MSM
                              scratch in scratch_bytes) */
  uint64_t bg2_stream_bytes; /* bytes of B_G2 streamed per run (in stream_bytes; its chunks' G2 MSM scratch in
                                scratch_bytes); both 0: B_G2 is not the device's (the host computes it) */
} cuzk_plan;

/* The plan a limit gives a parameter set of these sizes on device dev (nothing allocated);
 * CUZK_ERR_MEM, with the bytes needed in the message and out->min_bytes set, below the minimum. */
int cuzk_plan_for(int dev, uint64_t nh, uint64_t nl, uint64_t na, uint64_t nb, const cuzk_limits* lim,
                  cuzk_plan* out);
/* cuzk_srs_upload under lim. The host points h, l, a, bg1 must stay valid and unchanged until
 * cuzk_srs_free: the streamed part of each query is read from them at every run (page-locked in
 * place with cudaHostRegister where the system allows; otherwise copied from pageable memory,
 * slower). lim NULL or lim->limit 0: cuzk_srs_upload. */
cuzk_srs* cuzk_srs_upload_limited(int dev, const void* h, uint64_t nh, const void* l, uint64_t nl,
                                  const void* a, uint64_t na, const void* bg1, uint64_t nb, const cuzk_limits* lim);
int cuzk_srs_plan(const cuzk_srs* s, cuzk_plan* out);
/* Device bytes the library's buffers hold on dev (contexts, srs, scratch). */
uint64_t cuzk_mem_held(int dev);

/* The streaming of a context's last cuzk_run (CUDA events; all zero when nothing streamed). */
typedef struct {
  uint64_t bytes;   /* host to device bytes of the streamed chunks: points, tail scalars and indices */
  uint32_t chunks;  /* streamed chunks */
  uint32_t timed;   /* of which timed (the first 4096) */
  float ms_copy;    /* sum of the chunks' upload times */
  float ms_compute; /* sum of the chunks' batch additions and MSMs */
  float ms_stall;   /* time the compute streams waited for a chunk's upload: the copy not hidden */
  float ms_span;    /* first chunk upload start to last chunk MSM end */
  float ms_read;    /* host wall time reading chunks from the parameter file (cuzk_srs_open_file) */
  uint32_t pad;
  uint64_t bytes_cached; /* of bytes, the points uploaded from the file's page-locked copy (cuzk_srs_file_cache) */
} cuzk_stream_stats;
int cuzk_stream_stats_get(cuzk_ctx* ctx, cuzk_stream_stats* out);
/* --- pre-compiled matrices and witness runs (helper spmv) --- */
/* A matrix in CSR over the variables w = [input ‖ aux]: row r's entries are
   row_ptr[r] .. row_ptr[r+1] - 1 (row_ptr has nrows + 1 entries, row_ptr[0]
   = 0, row_ptr[nrows] = nnz, non-decreasing); entry k is coefficient
   coeffs[coeff[k]] at variable col[k] (input i is i, aux j is ninputs + j).
   Coefficient 0 must be 1 and 1 must be -1 (they are added or subtracted
   without a product). Duplicate or unsorted columns in a row are summed. */
typedef struct { const uint32_t* row_ptr; const uint32_t* col; const uint16_t* coeff; uint64_t nnz; } cuzk_csr;
typedef struct cuzk_matrices cuzk_matrices;
/* A and B of a shape resident on device dev (C is not needed: c = a∘b), with the coefficient table and
   the densities (bitmaps as in cuzk_msm_split; a_aux over aux, b_input over inputs, b_aux over aux).
   coeffs: ncoeffs Fr values (Montgomery). Checked on the device: row_ptr non-decreasing, every col below
   ninputs + naux, every coeff below ncoeffs (the message names the first offender). The device also
   builds each query's gather list, the variables of its bases in order: L every aux variable; A every
   input, then aux j where bit j of a_aux_density; B input i where bit i of b_input_density, then aux j
   where bit j of b_aux_density (bits beyond the vector's length are ignored). NULL on failure. */
cuzk_matrices* cuzk_matrices_upload(int dev, const cuzk_csr* a, const cuzk_csr* b, const void* coeffs,
    uint32_t ncoeffs, uint64_t nrows, uint64_t ninputs, uint64_t naux,
    const uint32_t* a_aux_density, const uint32_t* b_input_density, const uint32_t* b_aux_density);
void cuzk_matrices_free(cuzk_matrices* m);
/* The device memory m holds (bytes), and the bases of its L, A, B queries (nq[3], may be NULL). */
uint64_t cuzk_matrices_bytes(const cuzk_matrices* m, uint64_t* nq);
/* A witness: ninput input values (dense), and naux aux values either dense (aux != NULL) or compact
   (aux == NULL): with words of 32 bits (bit j%32 of word j/32 for value j),
     aux[j] = (small bit j) ? ((ones bit j) ? 1 : 0) : others[k],
     k = prefix[j/32] + popcount(~small[j/32] & ((1 << j%32) - 1)),
     prefix[w] = popcount of the clear small bits of words 0 .. w-1 (bits at or beyond naux not counted),
   so others holds the values whose small bit is clear, in index order, and nothers must be the number
   of such values below naux. Ones bits where small is clear, and bits at or beyond naux, are ignored.
   1 and 0 are Montgomery one and zero. lgn: the domain 2^lgn (nrows <= 2^lgn; the srs h query has
   2^lgn - 1 points). Host memory; pinned preferred. */
typedef struct {
  const void* input; uint64_t ninput;          /* Fr values */
  const void* aux;                             /* naux Fr values, or NULL: then the compact form below */
  const uint32_t* small; const uint32_t* ones; const void* others; uint64_t nothers;
  uint64_t naux; uint32_t lgn; uint32_t pad;
} cuzk_witness;
/* One partition from its witness: a = A·w, b = B·w, c = a∘b, H, the 0/1/other split of the L, A, B
   scalars on the device, the H, L, A, B_G1 MSMs (and B_G2 when the srs holds it). res->points as
   cuzk_run's; ms_h2d spans the witness upload (and the compact form's expansion), ms_spmv and ms_split
   as cuzk_result says. The scratch for tails as long as the queries is reserved up front: about
   (nL + nA + nB) * 36 bytes besides cuzk_run's, and 32 bytes per variable for w. Under the srs's
   memory limit a query that is not resident streams as in cuzk_run, its tail on the device (chunk
   boundaries by a device search); the plan counts neither the matrices, w, nor the tails of streamed
   queries past their resident prefixes. */
int cuzk_run_witness(cuzk_ctx* ctx, cuzk_srs* srs, const cuzk_matrices* m, const cuzk_witness* w, cuzk_result* res);
/* The split of query q (0 L, 1 A, 2 B) that the context's last cuzk_run_witness made (any later run on
   the context replaces it): *ntail always; then, where not NULL, the ones bitmap ((nq[q] + 31) / 32
   words), the tail's *ntail scalars and their base indices (ascending). For B_G2 on the host, and tests. */
int cuzk_witness_split_read(cuzk_ctx* ctx, int q, uint64_t* ntail, uint32_t* ones, void* scalars, uint32_t* idx);
/* Test entry point: w expanded and a = A·w, b = B·w computed as cuzk_run_witness does (w->lgn unused);
   nrows scalars each to a and b (host). Uses the context's H vectors. */
int cuzk_spmv(cuzk_ctx* ctx, const cuzk_matrices* m, const cuzk_witness* w, void* a, void* b);
/* --- G2 (helper g2) --- */
/* G2 affine = gnark G2Affine layout (X.A0, X.A1, Y.A0, Y.A1, each 6 limbs
 * Montgomery; 192 B; (0, 0) is infinity); G2 results are XYZZ, 384 B (X, Y,
 * ZZ, ZZZ, each an E2: A0 then A1); ZZ = 0 is infinity. */
/* Adds the B query's G2 points to a resident srs (n must equal its B_G1
 * count); cuzk_run then computes B_G2 over the B part's ones and tail.
 * An srs under a memory limit (cuzk_srs_upload_limited with a limit) takes
 * them as its plan has them (cuzk_limits.bg2): copied to the device where
 * the plan holds B_G2 resident (cuzk_plan.bg2_bytes), else kept as the
 * caller's points, which then must stay valid and unchanged until
 * cuzk_srs_free (page-locked in place where the system allows; pinned bit
 * 4), and streamed at every run (cuzk_plan.bg2_stream_bytes); a plan with
 * neither refuses them, CUZK_ERR_ARG. */
int cuzk_srs_upload_bg2(cuzk_srs* s, const void* bg2, uint64_t n);
/* Copy n B_G2 points starting at off to host. */
int cuzk_srs_read_bg2(cuzk_srs* s, uint64_t off, uint64_t n, void* out);
/* The G2 forms of cuzk_msm and cuzk_msm_split, on host data; out: 384 B. */
int cuzk_msm_g2(cuzk_ctx* ctx, const void* bases, const void* scalars, uint64_t n, void* out384);
int cuzk_msm_split_g2(cuzk_ctx* ctx, const void* bases, uint64_t nbases, const uint32_t* ones,
                      const void* scalars, const uint32_t* idx, uint64_t ntail, void* out384);
/* Benchmarks and checks: a synthetic B_G2 made on the device for an srs
 * (its B_G1 count of distinct multiples of the G2 generator, point i being
 * ((i mod 4096) + 1 + ((i >> 12) mod 2^17 + 1)·4097)·G2), and the G2 MSM
 * over its first n points with random scalars (ms per MSM, median of reps). */
int cuzk_srs_synthetic_bg2(cuzk_srs* s);
int cuzk_bench_msm_g2(cuzk_ctx* ctx, cuzk_srs* srs, uint64_t n, int reps, float* ms, uint32_t* window);
/* --- fixed-base (the setup's queries) --- */
/* out[i] = affine([scalars[i]]·base) for i < n: base in gnark's G1Affine layout (the identity
 * (0, 0) or a point of the curve with canonical coordinates, else CUZK_ERR_ARG), scalars
 * Montgomery Fr, out n points in the G1Affine layout, the identity as (0, 0). Host memory in
 * and out; chunks of at most 2^24 points on the device (368 bytes each), a comb of 32 windows
 * of 8 bits built on the device per call. */
int cuzk_fixed_base_g1(cuzk_ctx* ctx, const void* base, const void* scalars, uint64_t n, void* out);
/* The same over G2 (B_G2): base and out in gnark's G2Affine layout (192 bytes), chunks of at
 * most 2^23 points on the device (608 bytes each). */
int cuzk_fixed_base_g2(cuzk_ctx* ctx, const void* base, const void* scalars, uint64_t n, void* out);

/* --- parameters streamed from their file (helper h29) --- */
/* A parameter set under a memory limit (lim->limit > 0) whose streamed points stay in its bellperson
 * `.params` file: the plan of lim (with B_G2, nbg2 = n[3] points, where nbg2 is not 0) allocated with
 * its resident prefixes' points unset (the caller writes them: cuzk_srs_write, B_G2 with q = 4 where
 * resident), the rest read from the file at every run. fd: the open file (the library keeps a
 * duplicate until cuzk_srs_free); off: the byte offset of point 0 of h, l, a, b_g1 and b_g2 in it
 * (uncompressed points: 96 B G1, 192 B G2, big-endian coordinates, not Montgomery, G2 c1 before c0).
 * A run reads each streamed chunk into one of two page-locked host slots of the context (as large as
 * a chunk), uploads it and converts it on the device; a point the file's decoder rejects (a flag bit
 * set, a coordinate not below p, not on the curve) fails the run, CUZK_ERR_ARG naming the query and
 * index. cuzk_srs_read of a streamed range and cuzk_srs_read_bg2 of a streamed B_G2 fail. */
cuzk_srs* cuzk_srs_open_file(int dev, const uint64_t* n, uint64_t nbg2, const cuzk_limits* lim, int fd,
                             const uint64_t* off);
/* A page-locked host copy (p: cudaHostAlloc'd or registered memory the caller keeps until cuzk_srs_free)
 * of bytes [file_off, file_off + len) of s's parameter file: a streamed chunk that lies within it is
 * uploaded from it, with no read of the file (and converted and checked on the device as a read one).
 * p NULL or len 0 drops a copy set before; a set whose whole file is mapped (CUZK_FILE_MAP=1) keeps its
 * mapping. Set it before s's first run, never while one is in flight. */
int cuzk_srs_file_cache(cuzk_srs* s, const void* p, uint64_t file_off, uint64_t len);

#ifdef __cplusplus
}
#endif

#endif
