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
} cuzk_job;

typedef struct {
  uint8_t points[4][192]; /* H, L, A, B_G1 (XYZZ) */
  /* CUDA event times in milliseconds */
  /* ms_h2d spans all uploads; b, c and the tails' inputs overlap ms_ntt, and
     the L, A and B_G1 MSMs (ms_msm_l, _a, _b) run beside the NTTs too; the
     H MSM follows both. */
  float ms_total, ms_h2d, ms_ntt, ms_msm_h, ms_msm_l, ms_msm_a, ms_msm_b;
  float pad;
} cuzk_result;

int cuzk_run(cuzk_ctx* ctx, cuzk_srs* srs, const cuzk_job* job, cuzk_result* res);

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
  uint32_t chunk_lg_max; /* 0: 24; else streamed chunks of at most 2^chunk_lg_max points (5..24; tests) */
  uint32_t pad;
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
  uint32_t pinned;         /* bit q: query q's streamed part is read from page-locked memory */
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
} cuzk_stream_stats;
int cuzk_stream_stats_get(cuzk_ctx* ctx, cuzk_stream_stats* out);

#ifdef __cplusplus
}
#endif

#endif
