// Contexts (context.hpp): cuzk_ctx_new, cuzk_ctx_free (pinned host memory:
// util/host_pin.cu).
#include <memory>

#include "context.hpp"

int run_events::create() {
  event* all[] = {&start, &tail_in[0], &tail_in[1], &tail_in[2], &a_in,         &b_in,         &c_in,
                  &uploads_done, &h_start, &h_done, &l_start, &part_done[0], &part_done[1], &part_done[2],
                  &msm_h_start, &done, &bg2_done, &h0_natural, &h0_out, &h1_start, &h1_done};
  for (event* e : all) TRY(e->create());
  return 0;
}

// Refuses a switch out of range.
static int check_config(const cuzk_config& c) {
  if (c.priority < 0 || c.priority > 1) return set_err(CUZK_ERR_ARG, "ctx: priority %d (0 or 1)", c.priority);
  if (c.msm_window && !msm_window_ok(c.msm_window))
    return set_err(CUZK_ERR_ARG, "ctx: msm_window %u (0, 16, 19, 20, 22 or 24)", c.msm_window);
  if (c.msm_seg_lg && (c.msm_seg_lg < 12 || c.msm_seg_lg > 20))
    return set_err(CUZK_ERR_ARG, "ctx: msm_seg_lg %u (0 or 12..20)", c.msm_seg_lg);
  return 0;
}

static int ctx_init(cuzk_ctx* c) {
  int least = 0, greatest = 0;
  if (c->cfg.priority) CK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  TRY(c->main.create(greatest));
  TRY(c->tails.create(greatest));
  TRY(c->uploads.create(greatest));
  TRY(c->run_ev.create());
  TRY(c->bench_start.create());
  TRY(c->bench_stop.create());
  TRY(c->streamer.create());
  c->msm.window = c->cfg.msm_window;
  c->msm.seg_lg = c->cfg.msm_seg_lg ? c->cfg.msm_seg_lg : 15;
  c->msm.acc_slots = msm_resident_threads(c->dev);
  c->msm.acc_slots_g2 = msm_resident_threads_g2(c->dev);
  return c->ntt.init();
}

extern "C" cuzk_ctx* cuzk_ctx_new(int dev, const cuzk_config* cfg) {
  const cuzk_config defaults = {};
  if (check_config(cfg ? *cfg : defaults)) return nullptr;
  if (cudaSetDevice(dev) != cudaSuccess) {
    set_err(CUZK_ERR_CUDA, "cudaSetDevice(%d): %s", dev, cudaGetErrorString(cudaGetLastError()));
    return nullptr;
  }
  std::unique_ptr<cuzk_ctx> c(new cuzk_ctx());
  c->dev = dev;
  c->cfg = cfg ? *cfg : defaults;
  if (ctx_init(c.get())) return nullptr;  // c's owners free what was made
  return c.release();
}

extern "C" void cuzk_ctx_free(cuzk_ctx* c) {
  if (!c) return;
  cudaSetDevice(c->dev);
  cudaStreamSynchronize(c->main);
  delete c;
}
