/* clport plugin ABI (plain C).
 *
 * A plugin is a shared library that exports exactly one symbol, CLPORT_PLUGIN_ENTRY_SYMBOL, a
 * function returning a pointer to a static clport_plugin table. Every table in this file starts
 * with struct_size so that either side can tell which appended fields the other one knows:
 * fields are only ever appended, never reordered or removed. A different abi_major is refused.
 *
 * Rules across the boundary:
 *  - no C++ exception crosses it (the SDK in plugin_sdk.hpp catches everything);
 *  - errors cross as opaque clport_plugin_error objects made and freed by the plugin;
 *  - the plugin frees what it allocates, the host frees what it allocates;
 *  - the plugin calls OpenCL only through host->cl (it never links libOpenCL).
 *
 * Tensor convention (same as GGUF/ggml): ne[0] is the innermost (contiguous) dimension, nb[i]
 * are byte strides; a quantized row of ne[0] elements is ne[0]/block_size blocks.
 */
#ifndef CLPORT_PLUGIN_ABI_H
#define CLPORT_PLUGIN_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "clport_plugin/cl_api.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CLPORT_PLUGIN_ABI_MAJOR 3
#define CLPORT_PLUGIN_ABI_MINOR 1
#define CLPORT_PLUGIN_ENTRY_SYMBOL "clport_plugin_entry"

#if defined(_WIN32)
#define CLPORT_PLUGIN_EXPORT __declspec(dllexport)
#else
#define CLPORT_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* Element types. Values are the GGUF/ggml type ids so a tensor type read from a file maps 1:1. */
typedef enum clport_dtype {
  CLPORT_DTYPE_F32 = 0,
  CLPORT_DTYPE_F16 = 1,
  CLPORT_DTYPE_Q4_0 = 2,
  CLPORT_DTYPE_Q4_1 = 3,
  CLPORT_DTYPE_Q5_0 = 6,
  CLPORT_DTYPE_Q5_1 = 7,
  CLPORT_DTYPE_Q8_0 = 8,
  CLPORT_DTYPE_Q4_K = 12,
  CLPORT_DTYPE_Q5_K = 13,
  CLPORT_DTYPE_Q6_K = 14,
  CLPORT_DTYPE_I32 = 26,
  CLPORT_DTYPE_Q2_K = 10,
  CLPORT_DTYPE_Q3_K = 11,
  CLPORT_DTYPE_IQ4_NL = 20,
  CLPORT_DTYPE_BF16 = 30
} clport_dtype;

/* Ops. Shapes below use ne[] order (innermost first). Unless stated, src/dst are contiguous F32.
 * "params.x" is a field of the op's typed parameters (clport_op_params); n_past is clport_op's. */
typedef enum clport_op_kind {
  /* dst[D, n] = dequant(src0[D, rows])[:, src1[n]]; src0 any dtype, src1 I32 [n]. */
  CLPORT_OP_GET_ROWS = 1,
  /* dst = src0 / sqrt(mean(src0^2) + eps) * src1 per row of ne[0]; src1 F32 [ne0] or absent
   * (n_src == 1). params.eps. */
  CLPORT_OP_RMS_NORM = 2,
  /* dst[N, M] = src1[K, M] x src0[K, N]^T: src0 is the weight (any dtype, may carry a plugin
   * layout), src1 F32 activations, M == 1 is the GEMV (decode) path. */
  CLPORT_OP_MUL_MAT = 3,
  /* Rotary embedding on src0[head_dim, n_head, n_tokens] in place or into dst; token t has
   * position n_past + t; params.rope (clport_rope_params). Pair i rotates by
   * theta_i = pos * freq_scale * freq_base^(-2i / n_rot).
   * Frequency factors (Llama 3.x rope_freqs, Phi-3 LongRoPE): src1, when present (n_src == 2),
   * is F32 [n_rot / 2] and theta_i is divided by src1[i]. */
  CLPORT_OP_ROPE = 4,
  /* Causal attention over a KV cache. src0 = q [head_dim, n_head, n_tokens] F32;
   * src1 = K cache [head_dim, n_kv_head, n_ctx] F16 or F32; src2 = V cache, same shape and type;
   * dst [head_dim, n_head, n_tokens] F32. n_past = cached positions before this batch; query t
   * sees keys 0 .. n_past + t. n_head % n_kv_head == 0 (grouped-query heads: head h uses kv
   * head h / (n_head / n_kv_head)). params.attention (clport_attention_params): scale and
   * sliding window. */
  CLPORT_OP_ATTENTION = 5,
  /* Row-wise softmax of src0 * params.scale. */
  CLPORT_OP_SOFTMAX = 6,
  /* dst = src0 * sigmoid(src0). */
  CLPORT_OP_SILU = 7,
  /* dst = silu(src0) * src1 (gate, up). */
  CLPORT_OP_SWIGLU = 8,
  /* dst = src0 + src1; src1 may broadcast (its ne[i] == 1 or a divisor-free repeat of rows). */
  CLPORT_OP_ADD = 9,
  /* dst = src0 * src1; same broadcasting as ADD. */
  CLPORT_OP_MUL = 10,
  /* dst = src0 * params.scale. */
  CLPORT_OP_SCALE = 11,
  /* dst = convert(src0): same element count, F32 <-> F16 (and F32 -> F32). dst may be a strided
   * view (e.g. a slot of the KV cache). */
  CLPORT_OP_COPY = 12,

  /* Fused patterns. A plan takes one only where the plugin that runs the plain op also claims
   * the fused one (claim_op at plan time), and otherwise runs the plain ops; the CPU reference
   * of each is exactly that composition. */
  /* dst[N, M] = src0 x rms_norm(src1[K, M]) * src2[K]: the RMSNorm of RMS_NORM feeding MUL_MAT.
   * src0 the weight, src1 F32 activations, src2 F32 norm weight. params.eps. */
  CLPORT_OP_RMS_NORM_MUL_MAT = 13,
  /* dst[N, M] = src0 x src1 + src2: MUL_MAT with a residual add; src2 F32 [N, M] may be the
   * very buffer of dst (each element is read before it is written). */
  CLPORT_OP_MUL_MAT_ADD = 14,
  /* dst[N, M] = silu(src0 x n) * (src3 x n), n = rms_norm(src1) * src2: the gate and up
   * projections of a SwiGLU FFN behind their norm. src0 / src3 the gate / up weights (same dtype
   * and shape). params.eps. */
  CLPORT_OP_RMS_NORM_MUL_MAT_SWIGLU = 15,
  /* Rotary embedding of K and the KV-cache store: dst is the cache of one layer
   * [head_dim, n_kv_head, n_ctx, 2] (F16 or F32; index 0 of dim 3 holds K, 1 holds V), src0 = k
   * and src1 = v [head_dim, n_kv_head, n_tokens] F32 (rows contiguous, any row / token stride).
   * Token t is stored at cache position n_past + t, K rotated as ROPE does (params.rope; src2,
   * when present, the frequency factors of ROPE); nothing else of dst changes. */
  CLPORT_OP_KV_STORE_ROPE = 16,
  /* ATTENTION whose query is rotated first: src0 = q [head_dim, n_head, n_tokens] F32 before
   * RoPE (rows contiguous, any row / token stride), src1 / src2 the K / V cache as for
   * ATTENTION; params.rope as ROPE, params.attention as ATTENTION, n_past for both; src3, when
   * present, the frequency factors of ROPE. */
  CLPORT_OP_ROPE_ATTENTION = 17,
  /* KV_STORE_ROPE followed by ROPE_ATTENTION: src0 = q, src1 = k, src2 = v (as for those two
   * ops), src3 = the cache of KV_STORE_ROPE (its K and V halves are the attention's K and V);
   * parameters as ROPE_ATTENTION (no frequency factors: its four sources are taken). */
  CLPORT_OP_ROPE_KV_STORE_ATTENTION = 18,

  /* dst = gelu(src0) * src1 (gate, up), GELU in its tanh approximation:
   * gelu(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). */
  CLPORT_OP_GEGLU = 19,

  /* A step over several sequences (a batch of conversations): each token carries its own
   * sequence and position, read from `cells`, an I32 tensor [2, n_tokens] (token t: cells[2t] its
   * sequence, cells[2t + 1] its position; n_past is not used). The host writes cells inside the
   * cache (sequence < n_seq, position < n_ctx) and no cell twice in one step: kernels need not
   * check. The cache of every sequence is one
   * tensor [head_dim, n_kv_head, n_ctx, 2 n_seq] (F16 or F32): sequence s has K at index 2s of
   * dim 3 and V at 2s + 1. Optional ops: a plan asks for them only where a plugin claims them, and
   * otherwise runs the one-sequence ops per sequence. */
  /* KV_STORE_ROPE by cells: src0 = k, src1 = v [head_dim, n_kv_head, n_tokens] F32 (rows
   * contiguous, any row / token stride), src2 = cells, src3 (optional) the frequency factors of
   * ROPE; dst = the cache of every sequence. Token t's K (rotated at its position) and V are
   * stored at its sequence's cell of that position; nothing else of dst changes. */
  CLPORT_OP_KV_STORE_ROPE_CELLS = 20,
  /* ROPE_ATTENTION by cells: src0 = q [head_dim, n_head, n_tokens] F32 before RoPE (rows
   * contiguous, any strides), src1 = the cache of every sequence, src2 = cells, src3 (optional)
   * the frequency factors; dst [head_dim, n_head, n_tokens] F32. Token t, at position p of
   * sequence s, is rotated at p and attends to sequence s's keys 0 .. p (params.attention's window
   * applies). The step's own keys are stored first (KV_STORE_ROPE_CELLS), so tokens of one
   * sequence in one step see each other causally. */
  CLPORT_OP_ROPE_ATTENTION_CELLS = 21,
  CLPORT_OP_COUNT_ = 22
} clport_op_kind;

typedef struct clport_tensor {
  int32_t dtype;   /* clport_dtype */
  int32_t n_dims;  /* 1..4; unused ne[] are 1 */
  int64_t ne[4];   /* elements per dimension, ne[0] innermost */
  int64_t nb[4];   /* byte stride per dimension (nb[0] = bytes per block / block size row unit) */
  cl_mem buffer;   /* device buffer (pool-owned) */
  uint64_t offset; /* byte offset of element 0 inside buffer */
  void* layout;    /* plugin-private repacked weight from prepare_weight, else NULL */
} clport_tensor;

/* RoPE's parameters (ROPE, KV_STORE_ROPE, ROPE_ATTENTION, ROPE_KV_STORE_ATTENTION). */
typedef struct clport_rope_params {
  int32_t mode;      /* 0 normal (interleaved pairs), 2 NeoX (halves) */
  int32_t n_rot;     /* rotated dims, even, <= head_dim */
  float freq_base;
  float freq_scale;  /* position multiplier, 1 = none */
} clport_rope_params;

/* Attention's parameters (ATTENTION, ROPE_ATTENTION, ROPE_KV_STORE_ATTENTION). */
typedef struct clport_attention_params {
  float scale;     /* of the scores, usually 1 / sqrt(head_dim) */
  /* Sliding window: > 0 hides keys at positions <= pos_q - window (the query at position pos_q
   * sees pos_q - window + 1 .. pos_q); 0 = no window. */
  int32_t window;
} clport_attention_params;

/* The typed parameters of an op; each op kind reads the fields its comment above names, the
 * others are zero. Fixed for a major ABI version. */
typedef struct clport_op_params {
  float eps;    /* RMS_NORM, RMS_NORM_MUL_MAT, RMS_NORM_MUL_MAT_SWIGLU */
  float scale;  /* SOFTMAX, SCALE */
  clport_rope_params rope;
  clport_attention_params attention;
} clport_op_params;

typedef struct clport_op {
  size_t struct_size;
  int32_t kind; /* clport_op_kind */
  int32_t n_src;
  const clport_tensor* src[4];
  const clport_tensor* dst;
  /* Positions already in the KV cache before this batch: token t of the batch is at position
   * n_past + t (ROPE, the KV stores, attention). The value a replayed plan changes each step. */
  int32_t n_past;
  /* Prepared launches only (prepare_launch): the byte offset of dst grows by this much per
   * position, so each replay writes at dst.offset + n_past * dst_position_stride (a COPY into
   * the KV-cache slot of the token). 0 everywhere else. */
  uint64_t dst_position_stride;
  clport_op_params params;
} clport_op;

/* What changes from one replay of a prepared launch to the next. */
typedef struct clport_step {
  size_t struct_size;
  int32_t n_past;
} clport_step;

typedef struct clport_launch clport_launch; /* opaque, owned by the plugin */

/* Typed settings. A plugin declares every setting it reads (clport_plugin.settings); the host
 * checks the policy's section for the plugin against the declarations (an unknown key, a value
 * of the wrong type, outside the allowed range or not one of an enum's names is an error naming
 * the plugin, the key and where the policy wrote it) and hands the values the policy sets over
 * typed (clport_host.settings). A setting the policy does not set keeps the plugin's own
 * default, which may depend on the device. */
typedef enum clport_setting_type {
  CLPORT_SETTING_BOOL = 1,  /* true / false */
  CLPORT_SETTING_INT = 2,   /* an integer within [min_value, max_value] */
  CLPORT_SETTING_TEXT = 3,  /* free text (e.g. extra build options) */
  CLPORT_SETTING_ENUM = 4   /* one of value_names, written by name, handed over as its index */
} clport_setting_type;

/* An array of these is the plugin's settings table: a new field changes the stride, so the
 * layout is fixed for a major ABI version. */
typedef struct clport_setting_decl {
  const char* name;         /* as written in the policy */
  int32_t type;             /* clport_setting_type */
  const char* description;  /* one line: what it does and what the default is */
  int64_t min_value;        /* CLPORT_SETTING_INT: the allowed range, inclusive (unused by the */
  int64_t max_value;        /* host for the other types) */
  /* Tunables: the settings of one tuning group are timed together by `clport tune` on that
   * group's op shape ("gemv", "gemm", "norm"), over these candidate values (INT values, BOOL 0 /
   * 1, ENUM indexes; TEXT settings are not tuned). NULL group = not tuned. */
  const char* tuning_group;
  const int64_t* candidates;
  size_t n_candidates;
  /* CLPORT_SETTING_ENUM: the names the policy writes (n_values >= 1, distinct, not empty); name
   * i is handed over as int_value i. NULL / 0 for the other types. */
  const char* const* value_names;
  size_t n_values;
} clport_setting_decl;

typedef struct clport_setting_value {
  const char* name;        /* a declared setting */
  int32_t type;            /* its declared type */
  int64_t int_value;       /* BOOL (0 / 1), INT, ENUM (the index of the name in value_names) */
  const char* text_value;  /* TEXT, ENUM (the name); "" otherwise */
} clport_setting_value;

typedef struct clport_plugin_error clport_plugin_error; /* opaque, owned by the plugin */

/* Status codes for plugin functions. */
typedef enum clport_plugin_status {
  CLPORT_PLUGIN_OK = 0,
  CLPORT_PLUGIN_ERROR = 1,         /* see the error object */
  CLPORT_PLUGIN_UNSUPPORTED = 2,   /* op / dtype / shape not served by this plugin */
  CLPORT_PLUGIN_OUT_OF_MEMORY = 3
} clport_plugin_status;

/* What the probe and create calls know about a device (filled by the core's probe). Strings are
 * owned by the host and live as long as the device. */
typedef struct clport_device_desc {
  size_t struct_size;
  cl_platform_id platform;
  cl_device_id device;
  const char* name;
  const char* vendor;
  const char* device_version;   /* "OpenCL 3.0 ..." */
  const char* driver_version;
  const char* opencl_c_version; /* "OpenCL C 1.2 ..." */
  const char* platform_name;
  const char* platform_version;
  const char* extensions;       /* space separated */
  const char* family;           /* classifier: "adreno", "mali", "intel", "nvidia", "amd", "cpu", "unknown" */
  const char* generation;       /* classifier: e.g. "a7xx", "valhall", "xe", "" */
  int32_t generation_number;    /* e.g. 740 for Adreno 740, 0 when unknown */
  cl_device_type device_type;
  int32_t has_fp16;
  int32_t has_fp64;
  int32_t has_subgroups;
  int32_t has_int_dot;
  int32_t has_images;
  uint64_t global_mem_bytes;
  uint64_t local_mem_bytes;
  uint64_t max_alloc_bytes;
  uint32_t compute_units;
  uint32_t max_work_group_size;
  uint32_t mem_base_addr_align_bytes;
} clport_device_desc;

/* Log levels as spdlog numbers them. */
typedef enum clport_log_level {
  CLPORT_LOG_TRACE = 0,
  CLPORT_LOG_DEBUG = 1,
  CLPORT_LOG_INFO = 2,
  CLPORT_LOG_WARN = 3,
  CLPORT_LOG_ERROR = 4
} clport_log_level;

/* Services the host gives a plugin instance. Valid for the life of the instance. */
typedef struct clport_host {
  size_t struct_size;
  const clport_cl_api* cl;
  void* host_ctx;          /* opaque, pass back to every call below */
  cl_context context;
  cl_command_queue queue;  /* in-order, profiling enabled when the host profiles */
  void (*log)(void* host_ctx, int32_t level, const char* message);
  /* Device buffer from the core pool; NULL with *status set on failure. */
  cl_mem (*alloc_buffer)(void* host_ctx, size_t bytes, int32_t* status);
  void (*free_buffer)(void* host_ctx, cl_mem buffer);
  /* Builds (or loads from the program cache) a program for this device. On failure returns
   * NULL and, when build_log is not NULL, a host-owned NUL-terminated log valid until the next
   * call. */
  cl_program (*build_program)(void* host_ctx, const char* source, size_t source_len,
                              const char* options, const char** build_log);
  /* Shared OpenCL C from kernels/ (e.g. "blocks.cl"): NULL when unknown. Honours the
   * CLPORT_KERNEL_DIR override. Host-owned, lives as long as the host. */
  const char* (*shared_kernel_source)(void* host_ctx, const char* name, size_t* len);
  /* The settings the policy sets for this plugin, checked against its declarations and typed
   * (host-owned, valid for the life of the instance). */
  const clport_setting_value* settings;
  size_t n_settings;
  /* Precision the policy asks for: 0 auto, 1 fp32, 2 fp16. */
  int32_t precision;
  /* Called after each enqueue with the kernel's event when the host profiles (may be NULL).
   * The host retains the event itself. */
  void (*record_event)(void* host_ctx, const char* kernel_name, cl_event event);
  /* Optional (NULL, or beyond the struct_size of a host table without it): called from
   * prepare_weight once the plugin has read bytes [offset, offset + bytes) of the weight's plain
   * buffer for the last time in that call, after the kernels that read them have finished. The
   * host may drop them from memory: on a device that shares host memory the plain buffer can be
   * the model file's mapped pages, and a repack that reports its progress in slices keeps only
   * a slice of them resident next to the layout it writes, instead of the whole weight. */
  void (*weight_bytes_read)(void* host_ctx, cl_mem buffer, uint64_t offset, uint64_t bytes);
} clport_host;

/* Whether host table h (of any minor version) has weight_bytes_read. */
#define CLPORT_HOST_HAS_WEIGHT_BYTES_READ(h)                                                          \
  ((h)->struct_size >= offsetof(clport_host, weight_bytes_read) + sizeof((h)->weight_bytes_read) &&   \
   (h)->weight_bytes_read != NULL)

typedef struct clport_plugin_instance clport_plugin_instance; /* opaque, owned by the plugin */

/* One device buffer an instance keeps for its kernels' own use within a step (quantized
 * activations, partial results): its name (a static string, one buffer per name within the
 * instance) and the bytes an op needs of it. */
typedef struct clport_scratch_need {
  const char* name;
  uint64_t bytes;
} clport_scratch_need;

typedef struct clport_plugin {
  size_t struct_size;
  uint32_t abi_major;
  uint32_t abi_minor;
  const char* name;    /* unique, lower case: "generic", "adreno", ... */
  const char* version; /* plugin's own version string */

  /* The settings and tunables the plugin reads (static; n_settings may be 0). */
  const clport_setting_decl* settings;
  size_t n_settings;

  /* Cheap: looks only at the description. Returns a score (0 = cannot serve) and a reason
   * (static string or plugin-owned until the next probe call). */
  int32_t (*probe)(const clport_device_desc* device, const char** reason);

  int32_t (*create)(const clport_host* host, const clport_device_desc* device,
                    clport_plugin_instance** out, clport_plugin_error** error);
  void (*destroy)(clport_plugin_instance* instance);

  /* Plan time. Non-zero when the instance claims this op or fused pattern with these operand
   * types, shapes and parameters. Buffers in op may be NULL: only kind, dtypes, shapes and
   * params are looked at. */
  int32_t (*claim_op)(clport_plugin_instance* instance, const clport_op* op);

  /* Optional (may be NULL): repack a weight into the plugin's layout. On CLPORT_PLUGIN_OK,
   * *layout is a plugin-owned handle placed into clport_tensor.layout for later ops and freed
   * with release_layout. CLPORT_PLUGIN_UNSUPPORTED means "use the plain GGUF layout".
   * *owns_weight (never NULL) is set to 1 when nothing the instance does with the layout reads
   * weight->buffer after this call (every op it claims on the weight, at any activation row
   * count, fused kinds included): the host may then free the plain copy, unless something else
   * reads the file layout (a tied embedding's GET_ROWS, a mat-mul the instance declines and the
   * CPU path runs), which the host knows and the plugin does not. Once freed, the weight's
   * clport_tensor.buffer is NULL in every later op. */
  int32_t (*prepare_weight)(clport_plugin_instance* instance, const clport_tensor* weight,
                            void** layout, int32_t* owns_weight, clport_plugin_error** error);
  void (*release_layout)(clport_plugin_instance* instance, void* layout);

  /* Plan time: decides once what running op takes (kernel, work sizes, arguments) and returns
   * it as a launch to replay. op's buffers are real and stay valid while the launch lives; a
   * launch is released before the instance. */
  int32_t (*prepare_launch)(clport_plugin_instance* instance, const clport_op* op,
                            clport_launch** launch, clport_plugin_error** error);
  /* Run time: enqueues the launch on host->queue with the step's values (op.n_past replaced by
   * step->n_past, dst moved by n_past * dst_position_stride); does not wait. */
  int32_t (*enqueue_launch)(clport_plugin_instance* instance, clport_launch* launch,
                            const clport_step* step, clport_plugin_error** error);
  void (*release_launch)(clport_plugin_instance* instance, clport_launch* launch);

  /* Errors. */
  int32_t (*error_code)(const clport_plugin_error* error);
  const char* (*error_message)(const clport_plugin_error* error);
  void (*release_error)(clport_plugin_error* error);

  /* Optional (NULL, or beyond the struct_size of a table without it): plan time, one launch that
   * does what ops[0 .. n_ops) do, in that order: every op's dst (and a KV cache an op updates)
   * ends up as those ops would leave it. The core offers the ops of one group of its plan (a
   * transformer layer of a step), each of which this instance claimed and would prepare itself;
   * the plugin matches the sequence against what its kernels do. Each op's n_past and
   * dst_position_stride mean what they mean for prepare_launch; enqueue_launch / release_launch as
   * for a prepare_launch launch. CLPORT_PLUGIN_UNSUPPORTED: the ops run as their own launches. */
  int32_t (*prepare_group)(clport_plugin_instance* instance, const clport_op* const* ops, size_t n_ops,
                           clport_launch** launch, clport_plugin_error** error);

  /* Optional (NULL, or beyond the struct_size of a table without it; ABI 3.1): plan time, before
   * any weight is placed or launch prepared. The scratch this instance would hold to run op (one
   * it claims; buffers may be NULL) at any activation row count from 1 to op's own and any
   * n_past up to op.n_past. Writes at most `capacity` entries to needs and their number to
   * *n_needs, which may exceed capacity (the host then asks again with room for all). The
   * instance grows each named buffer to the largest need of any op, so the host counts, per
   * name, the largest need over all the ops it will run. */
  int32_t (*scratch_needs)(clport_plugin_instance* instance, const clport_op* op, clport_scratch_need* needs,
                           size_t capacity, size_t* n_needs, clport_plugin_error** error);
} clport_plugin;

/* Whether table t (of any minor version) has scratch_needs. */
#define CLPORT_PLUGIN_HAS_SCRATCH_NEEDS(t)                                                        \
  ((t)->struct_size >= offsetof(clport_plugin, scratch_needs) + sizeof((t)->scratch_needs) &&     \
   (t)->scratch_needs != NULL)

/* Whether table t (of any minor version) has prepare_group. */
#define CLPORT_PLUGIN_HAS_PREPARE_GROUP(t)                                                        \
  ((t)->struct_size >= offsetof(clport_plugin, prepare_group) + sizeof((t)->prepare_group) &&     \
   (t)->prepare_group != NULL)

typedef const clport_plugin* (*clport_plugin_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* CLPORT_PLUGIN_ABI_H */
