// Tunables of the shared kernels. Each becomes a -D build option of the program that uses it,
// so a vendor plugin (or a tuner) changes them without touching OpenCL C. A policy sets them
// through the typed settings declared by tuning_settings().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "clport_plugin/plugin_abi.h"
#include "clport_plugin/plugin_sdk.hpp"

namespace clport::plugin_common {

// The switches that can be left to the device type (gemm_kmajor, f16_bits, att_serial, att_split,
// int_dot, q8a_x8) hold 0 off, 1 on, 2 auto: the policy writes the names (ENUM settings), the
// plugin gets these indexes.
struct Tuning {
  uint32_t elt_wg = 64;      // element-wise ops, get_rows, rope, copy (ELT_WG)
  // GEMV work-group: a power of two >= gemv_rows, or 1 = one work-item walks gemv_rows whole
  // rows (no reduction; 2x faster than 64 on PoCL, which vectorised 64 items into gathers).
  uint32_t gemv_wg = 1;
  uint32_t gemv_rows = 8;    // output rows per GEMV work-group (x runs are shared by them)
  int64_t gemv_max_m = 4;    // mul_mat with M <= this takes the GEMV path
  // The same limit for Q4_0 / Q4_1 / Q8_0 weights, whose GEMV decode is cheap: on a CPU (PoCL)
  // their GEMV kernel runs each activation row 1.4-3x faster than the GEMM does at M = 64
  // (Q5 and K-quants are not, F32/F16 are 2x slower), so CPUs send every M there (prompt
  // 51 -> 98 tok/s for SmolLM2 Q4_1). 0 = gemv_max_m; -1 = pick by device type.
  int64_t gemv_max_m_q4q8 = -1;
  // Work-items per 32-element run of quantized GEMV weights (GEMV_SPLIT): 1 = whole runs per
  // item (CPUs), 4 = quarter runs, coalesced 4-byte loads (GPUs); 0 = pick by device type, and
  // on a GPU also replace the stock gemv_wg / gemv_rows with a GPU shape (apply_device_defaults).
  uint32_t gemv_split = 0;
  // Packed GEMV layout (prepare_weight repacks Q4_0 / Q4_1 / Q8_0 weights into aligned 16-byte
  // quant words plus a scale array; kernels/mul_mat_gemv_packed.cl): 1 on, 0 off (default).
  // Opt-in because it keeps a second copy of those weights in device memory (the plain one
  // stays for the GEMM and get_rows) for a gain only at large shapes: on an H200, 64 x 8 ran
  // Q4_0 / Q4_1 at 4096 x 14336 12-15% faster than the plain GEMV, Q8_0 15% slower, and small
  // shapes the same; on PoCL it is 5x slower (the kernel is shaped for GPUs).
  uint32_t gemv_packed = 0;
  uint32_t gemv_packed_wg = 64;    // packed GEMV work-group (power of two; one block per item)
  uint32_t gemv_packed_rows = 8;   // output rows per packed GEMV work-group
  // GEMM: 64 x 64 tiles of 8 x 16 per work-item (128 accumulators, 17 KiB of local memory)
  // measured fastest on PoCL (1.3-1.4x the 8 x 8 micro-tile); a GPU left at these gets
  // 64 x 32 / 4 x 4 instead (apply_device_defaults).
  uint32_t gemm_tn = 64;     // GEMM tile along N (weight rows)
  uint32_t gemm_tm = 64;     // GEMM tile along M (activation rows)
  uint32_t gemm_rn = 8;      // per-work-item micro-tile along N
  uint32_t gemm_rm = 16;     // per-work-item micro-tile along M
  // Local tile layout (GEMM_KMAJOR): 1 = tile[k][row] (GPUs), 0 = tile[row][k] (CPUs),
  // 2 = pick by device type.
  uint32_t gemm_kmajor = 2;
  // Half-precision scales widened with integer bit moves instead of vload_half (CLPORT_F16_BITS):
  // 1 on CPUs, where vload_half is a long software routine; 0 keeps vload_half (GPUs convert in
  // hardware); 2 = pick by device type.
  uint32_t f16_bits = 2;
  uint32_t norm_wg = 64;     // RMSNorm work-group (power of two)
  uint32_t softmax_wg = 64;  // softmax work-group (power of two)
  uint32_t att_wg = 64;      // attention work-group (power of two)
  uint32_t att_dpt = 4;      // output dims per attention work-item: head_dim <= att_wg * att_dpt
  // Attention as one work-item per (head, token) with no barriers (attention_serial_* in kernels/attention.cl,
  // head_dim <= 256): 1 on, 0 the work-group kernels, 2 = on for CPU devices.
  uint32_t att_serial = 2;
  // Decode attention (the fused RoPE + KV store + attention of one token) split over ranges of
  // the cached keys, one work-group per (head, range), and a merge launch
  // (attention_split_store_* in kernels/attention.cl): 1 on, 0 off, 2 = on for GPUs, where a
  // decode step otherwise has one work-group per head (32 on a 1B model: 85 us of an H200's
  // time per layer at 500 cached keys).
  uint32_t att_split = 2;
  uint32_t att_split_keys = 64;  // fewest cached keys per range (and so the most ranges)
  // Claim ROPE_ATTENTION (Q's RoPE inside the attention kernel of a prompt batch): 1 yes, 0 no
  // (the plan then runs ROPE + ATTENTION: the escape hatch for a driver that miscompiles it).
  uint32_t rope_attention = 1;
  // Quantized activations for the mat-muls of Q4_0 / Q4_1 / Q5_0 / Q5_1 / Q8_0 / Q4_K / Q5_K /
  // Q6_K weights (kernels/mul_mat_gemv_q8a.cl): the activation rows are quantized to 8-bit
  // blocks once per op and each weight block is an integer dot product. 1 on, 0 off, 2 = on for CPU devices (PoCL:
  // 2.5-3x the float GEMV at 576 x 1536 and 4096 x 4096, Q4_1). The policy's `precision: fp32`
  // turns it off.
  uint32_t int_dot = 2;
  uint32_t q8a_rows = 8;     // weight rows per work-item of the integer GEMV (Q8A_ROWS)
  // One activation row (decode): the integer GEMV runs as a few work-items that each quantize
  // the row themselves and walk a share of the output rows (mul_mat_gemv_q8s_*), one launch
  // instead of a quantize launch in front. 1 on, 0 off (the separate quantize launch).
  uint32_t q8s = 1;
  uint32_t q8s_items = 0;    // work-items of that GEMV (0: 4 per compute unit)
  // Q4_0 / Q4_1 / Q5_0 / Q5_1 / Q8_0 / Q4_K / Q6_K weights repacked eight rows at a time for the
  // integer GEMV (kernels/mul_mat_gemv_q8a_x8.cl: a block of 8 rows is 8 byte multiply-adds on
  // one vector instead of a reduction per row): 1 on, 0 off, 2 = on for CPU devices where int_dot is on.
  // It keeps a second copy of those weights (the plain one stays for the float fallback and
  // get_rows).
  uint32_t q8a_x8 = 2;
  // Work-items of the one-row x8 GEMV (mul_mat_gemv_x8s_*), 0 = one per compute unit: with the
  // x8 kernels' little work per row, each work-item more costs PoCL more than the balance it
  // buys (SmolLM2 decode, 2 cores: 11.2-11.9 ms of kernels a step at 2 items, 13.0-13.2 at 8).
  uint32_t x8s_items = 0;
  // Activation rows up to which the x8 GEMV quantizes them in its work-items too (the x8s
  // work-items, mul_mat_gemv_x8f_*), one launch instead of a quantize launch in front: a decode
  // step of a few sequences. 0 or 1: only the one row of x8s.
  uint32_t x8f_rows = 8;
  // false: every program is built with -DCLPORT_NO_PRIVATE_VECTOR_ARRAYS=1, for drivers that
  // mis-write private arrays of vectors (configs/quirks.yaml). The GEMM then stages its tiles
  // without them (same results); the kernels that still declare such arrays are the CPU-shaped
  // ones (gemv_split 1, int_dot on, att_serial on) and the packed GEMV, which validate() refuses
  // and apply_device_defaults() does not pick.
  bool private_vector_arrays = true;
  std::string extra_options; // appended to every program's build options (set by plugins)

  // The largest M that takes the GEMV path for a weight of this dtype.
  int64_t gemv_max_m_for(int32_t weight_dtype) const;

  // Empty when the values are consistent for a device with this max work-group size, else what
  // is wrong.
  std::string validate(uint32_t max_work_group_size) const;

  // Takes the values the policy sets for the settings of tuning_settings() (and
  // private_vector_arrays, for a plugin that declares it); the others keep their values. The
  // host has checked types and ranges; validate() checks the combination.
  void apply_settings(const sdk::Host& host);
};

// The declarations of the settings Tuning::apply_settings reads (the fields above but
// private_vector_arrays and extra_options), for a plugin's settings(): INT ranges as validate()
// enforces them on any device; the GEMV, GEMM and RMSNorm shapes are tunables of the "gemv",
// "gemm" and "norm" groups with the candidates `clport tune` times. Static: the ABI keeps
// pointers into it.
const std::vector<clport_setting_decl>& tuning_settings();

// private_vector_arrays (BOOL): declared by the plugins whose own kernels honour
// -DCLPORT_NO_PRIVATE_VECTOR_ARRAYS too (or hold no private vector arrays).
clport_setting_decl private_vector_arrays_setting();

// A plugin's declarations: `own` followed by tuning_settings().
std::vector<clport_setting_decl> with_tuning_settings(std::vector<clport_setting_decl> own);

// Defaults scaled down for a device whose max work-group size is small.
Tuning default_tuning(uint32_t max_work_group_size);

// Resolves the by-device-type values (gemv_split 0, gemm_kmajor 2, f16_bits 2, int_dot 2,
// q8a_x8 2, att_serial 2, att_split 2, gemv_max_m_q4q8 -1; without private vector arrays the choices
// without them) and, on a GPU, replaces the CPU-shaped stock GEMV and GEMM shapes (those still
// at the stock values) with GPU ones.
void apply_device_defaults(Tuning& t, const clport_device_desc& device);

}  // namespace clport::plugin_common
