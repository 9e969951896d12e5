/* clport C API (C99): text generation with GGUF models for apps and foreign-function interfaces
 * (JNI, Python ctypes, Swift, Rust). It is built beside the C++ API (clport/engine.h) and wraps
 * the same runtime; link with `pkg-config --cflags --libs clport`.
 *
 * Handles. Three opaque handles, each made by one *_create / *_load call and released by its
 * *_free call (NULL is accepted and ignored):
 *   clport_runtime  the options every model load shares: device, plugin, policy, cache directory,
 *                   CPU threads; it probes nothing until a model is loaded or a report is asked for.
 *   clport_model    one GGUF file on the backend chosen for it (an OpenCL device, else the CPU),
 *                   with its tokenizer and its KV cache.
 *   clport_context  sampler parameters and stop tokens for generating with one model, and (1.3)
 *                   the conversation it holds in the model's KV cache.
 * Handles may be freed in any order: a model does not need its runtime after loading, and a
 * context keeps its model's weights alive until the context is freed too.
 *
 * Status and messages. Every call that can fail returns a clport_status: CLPORT_OK (0) or the
 * stage that failed (the same numbers as the C++ clport::Stage, so `clport check` exits with
 * 10 + the status). The message that goes with it (what failed and what to do about it) is
 *   - clport_last_error(): the most recent call on the calling thread; "" after a call that
 *     succeeded. Thread-local, so it also answers for calls that had no handle (a NULL handle,
 *     a failed create or load);
 *   - clport_runtime_error(), clport_model_error(), clport_context_error(): the most recent call
 *     on that handle ("" after success), for code that reads the message elsewhere.
 * Either string stays valid until the next clport call on that thread / that handle (read a
 * handle's message while no other thread is calling on that handle). A NULL
 * handle, a NULL required pointer or a value out of range is CLPORT_ERR_INVALID_ARGUMENT with a
 * message naming the argument. No C++ exception, assertion or abort crosses this interface:
 * everything, out of memory included (CLPORT_ERR_OUT_OF_MEMORY), becomes a status.
 *
 * Ownership. Strings and arrays passed in are read during the call only (copied when kept).
 * Results of unknown length (token arrays, text, JSON) are allocated by the library and
 * returned through out-parameters; the caller owns them and releases each with clport_free().
 * Nothing else needs freeing. On failure the out-parameters are set to NULL / 0.
 *
 * Options structs start with struct_size: call the *_init function (it sets struct_size and the
 * defaults), then change fields. Fields are only ever appended, so a program built against an
 * older header keeps working with a newer library (the library reads only the fields that fit
 * in struct_size).
 *
 * Threads. Different handles may be used from different threads at the same time. Calls on one
 * model and on the contexts made from it are serialised by the model (one generation at a time
 * per model: they share its weights and KV cache), so several contexts of one model may generate
 * from several threads, taking turns; calls on one runtime are serialised by the runtime. Inside
 * a token callback, the model's tokenize / detokenize / info calls may be used; a generation on
 * the same model, and freeing the context or the model, may not (the former is refused with
 * CLPORT_ERR_INVALID_ARGUMENT). Logging is process-wide (clport_set_log_callback).
 */
#ifndef CLPORT_CLPORT_H
#define CLPORT_CLPORT_H

#include <stddef.h>
#include <stdint.h>

#include "clport/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The interface version: a different major is incompatible; a higher minor only appends
 * functions, enum values and struct fields. clport_api_version() says what the library has. */
#define CLPORT_API_VERSION_MAJOR 1
#define CLPORT_API_VERSION_MINOR 4

/* (major << 16) | minor of the library that is loaded. */
CLPORT_API uint32_t clport_api_version(void);
/* The library's release, e.g. "0.1.0". Static storage. */
CLPORT_API const char* clport_version_string(void);

/* ---- status ------------------------------------------------------------------------------- */

typedef enum clport_status {
  CLPORT_OK = 0,
  CLPORT_ERR_LIBRARY_NOT_FOUND = 1,  /* no OpenCL library could be opened */
  CLPORT_ERR_SYMBOL_MISSING = 2,     /* the OpenCL library lacks a required entry point */
  CLPORT_ERR_NO_PLATFORM = 3,
  CLPORT_ERR_NO_DEVICE = 4,
  CLPORT_ERR_DEVICE_UNUSABLE = 5,    /* denied by the policy, not available, no compiler */
  CLPORT_ERR_CONTEXT = 6,            /* clCreateContext failed */
  CLPORT_ERR_QUEUE = 7,              /* command-queue creation failed */
  CLPORT_ERR_PROGRAM_BUILD = 8,      /* a kernel did not compile (the message has the log) */
  CLPORT_ERR_PLUGIN = 9,             /* no plugin can serve the device, or a plugin failed */
  CLPORT_ERR_CONFIG = 10,            /* the policy file or text is malformed or invalid */
  CLPORT_ERR_MODEL = 11,             /* malformed GGUF or unsupported model */
  CLPORT_ERR_IO = 12,                /* file system: missing or unreadable file */
  CLPORT_ERR_OUT_OF_MEMORY = 13,
  CLPORT_ERR_INVALID_ARGUMENT = 14,  /* caller error: NULL handle, bad value, context full */
  CLPORT_ERR_UNSUPPORTED = 15,
  CLPORT_ERR_DEVICE = 16,            /* an OpenCL call failed at run time */
  CLPORT_ERR_INTERNAL = 17,          /* a bug in clport */
  CLPORT_ERR_WRONG_RESULT = 18       /* a kernel ran but computed wrong values */
} clport_status;

/* "ok", "invalid argument", ...; "unknown" for a value not listed. Static storage. */
CLPORT_API const char* clport_status_name(clport_status status);
/* The message of the most recent clport call on this thread ("" when it succeeded). */
CLPORT_API const char* clport_last_error(void);

/* Releases anything the library returned through an out-parameter. NULL is ignored. */
CLPORT_API void clport_free(void* pointer);

/* ---- logging (process-wide) --------------------------------------------------------------- */

typedef enum clport_log_severity {
  CLPORT_SEVERITY_TRACE = 0,
  CLPORT_SEVERITY_DEBUG = 1,
  CLPORT_SEVERITY_INFO = 2,
  CLPORT_SEVERITY_WARN = 3,
  CLPORT_SEVERITY_ERROR = 4,
  CLPORT_SEVERITY_OFF = 6
} clport_log_severity;

/* component: "engine", "loader", "plugins", ...; message: one line without a newline. Called
 * from whichever thread logs, one call at a time. */
typedef void (*clport_log_callback)(void* user_data, clport_log_severity level, const char* component,
                                    const char* message);

/* Sends every clport log line at or above the current level to callback instead of stderr;
 * NULL restores stderr. Applies to the whole process (clport's loggers are global). */
CLPORT_API clport_status clport_set_log_callback(clport_log_callback callback, void* user_data);
/* The least severe level that is logged (default: warn, or CLPORT_LOG_LEVEL). */
CLPORT_API clport_status clport_set_log_level(clport_log_severity level);

/* ---- runtime ------------------------------------------------------------------------------ */

typedef struct clport_runtime clport_runtime;

typedef struct clport_runtime_options {
  size_t struct_size;       /* set by clport_runtime_options_init */
  /* "auto" (NULL, the default): the best OpenCL device the policy allows, else the CPU with a
   * warning; "cpu"; or a device index "0".."1023" as `clport devices` lists them (no fallback). */
  const char* device;
  /* Force this plugin for every op it serves; NULL: the policy decides. A name no plugin found
   * has is CLPORT_ERR_INVALID_ARGUMENT from clport_runtime_create, listing the names found. */
  const char* plugin;
  /* A policy YAML file layered on the shipped defaults; NULL: $CLPORT_CONFIG when set. */
  const char* policy_file;
  /* Policy YAML text, layered after policy_file (for apps that carry their policy in memory). */
  const char* policy_yaml;
  /* Program cache (compiled kernels), self-test verdicts and tuning results; NULL: the policy's
   * cache_dir, else $CLPORT_CACHE_DIR, $XDG_CACHE_HOME/clport/programs, ~/.cache/clport/programs;
   * "off": no cache. An absolute path (else CLPORT_ERR_INVALID_ARGUMENT); a directory that
   * another user owns or can write is refused with a warning and the run goes on without a
   * cache. An app without HOME (Android) passes its cache directory here. */
  const char* cache_dir;
  int32_t n_threads;        /* CPU backend threads, 0 (default) = all cores; 0..1024 */
} clport_runtime_options;

CLPORT_API void clport_runtime_options_init(clport_runtime_options* options);
/* Checks the options and reads the policy (a malformed file or text is CLPORT_ERR_CONFIG with
 * file:line:column). options may be NULL for the defaults. */
CLPORT_API clport_status clport_runtime_create(const clport_runtime_options* options,
                                               clport_runtime** out_runtime);
CLPORT_API void clport_runtime_free(clport_runtime* runtime);
CLPORT_API const char* clport_runtime_error(const clport_runtime* runtime);

/* What `clport devices --json` prints, judged with this runtime's policy: the OpenCL libraries
 * tried, each device with its classification, every plugin's score and reason, the policy
 * rules that fired, the per-op binding and the cached self-test verdict. A machine without
 * OpenCL still gets a document (its "status" says why); the call succeeds. */
CLPORT_API clport_status clport_runtime_report_json(clport_runtime* runtime, char** out_json,
                                                    size_t* out_length);

/* 1.4: program bundles: the program cache of the device the runtime chooses (compiled programs,
 * self-test verdict, tuning) in one file, and back into a cache on another machine with the same
 * device, driver and clport version, so an app's first start there builds nothing (`clport cache
 * export / import`). The import checks the whole file first: a truncated or altered bundle is
 * CLPORT_ERR_IO and the cache is left as it was. A bundle made for another device, driver or
 * clport version imports nothing (*out_skipped counts its entries; the reason is logged as a
 * warning). out_imported and out_skipped may be NULL. The CPU path (device "cpu") has no programs:
 * CLPORT_ERR_INVALID_ARGUMENT, as is a runtime whose cache is off. */
CLPORT_API clport_status clport_cache_export(clport_runtime* runtime, const char* path);
CLPORT_API clport_status clport_cache_import(clport_runtime* runtime, const char* path, size_t* out_imported,
                                             size_t* out_skipped);

/* ---- model -------------------------------------------------------------------------------- */

typedef struct clport_model clport_model;

typedef struct clport_model_options {
  size_t struct_size;   /* set by clport_model_options_init */
  const char* path;     /* the GGUF file (required) */
  /* KV cache length in tokens: 2048 by default; 0 = the model's own context length; larger
   * values are capped at it. At most 1048576. */
  uint32_t n_ctx;
  /* Non-zero: float activations for quantized mat-muls on every path (the policy's
   * `precision: fp32`): slower, and exact as the CPU reference. */
  int32_t fp32;
  /* Non-zero: run every op on its own instead of fused patterns (to isolate a fused-kernel bug). */
  int32_t no_fusion;
  /* 1.1: the KV cache types of K and V, by llama.cpp's names: "f16" (NULL: the default), "f32",
   * "q8_0", "q4_0". Any other text is CLPORT_ERR_INVALID_ARGUMENT naming the allowed ones. */
  const char* cache_type_k;
  const char* cache_type_v;
  /* 1.1: refuse, before allocating anything, a load whose weights, KV cache and activations
   * would take more than this many bytes (CLPORT_ERR_OUT_OF_MEMORY, the message saying what is
   * needed and what would fit); 0 = no limit. */
  uint64_t memory_limit_bytes;
  /* 1.3: conversations the KV cache holds at once, each of n_ctx positions (the cache is n_seq
   * times one conversation's; memory_limit_bytes counts all of them): every context made from
   * the model gets one of its own (clport_context_create). 1 (the default): the model's contexts
   * share one conversation. 1..256. */
  uint32_t n_seq;
  /* 1.4: non-zero: when the OpenCL device the runtime chooses was never set up with this driver
   * and clport version (its self-test builds every kernel program: seconds on a phone GPU,
   * minutes on PoCL), the model loads on the CPU path at once and on the device in a background
   * thread, and moves to the device between two steps once it is ready; no token is repeated or
   * lost (clport_model_info.device_start says where it runs; clport_model_wait_for_device waits).
   * 0 (the default): clport_model_load waits for the device. */
  int32_t cpu_first_start;
} clport_model_options;

/* 1.4: clport_model_info.device_start. */
enum {
  CLPORT_DEVICE_START_NONE = 0,     /* the model runs where it loaded */
  CLPORT_DEVICE_START_LOADING = 1,  /* on the CPU path; the device loads in the background */
  CLPORT_DEVICE_START_READY = 2,    /* loaded: the model moves there at its next step */
  CLPORT_DEVICE_START_FAILED = 3,   /* the device could not be loaded (logged); stays on the CPU */
  CLPORT_DEVICE_START_MOVED = 4     /* moved to the device it loaded in the background */
};

CLPORT_API void clport_model_options_init(clport_model_options* options);
/* Opens the file, checks every tensor, chooses the backend (runtime options) and uploads the
 * weights. A missing file is CLPORT_ERR_IO, a malformed or unsupported one CLPORT_ERR_MODEL. */
CLPORT_API clport_status clport_model_load(clport_runtime* runtime, const clport_model_options* options,
                                           clport_model** out_model);
CLPORT_API void clport_model_free(clport_model* model);
CLPORT_API const char* clport_model_error(const clport_model* model);

typedef struct clport_model_info {
  size_t struct_size;  /* set by the caller to sizeof(clport_model_info) */
  int32_t n_vocab;
  uint32_t n_ctx;        /* the KV cache length in use */
  uint32_t n_ctx_train;  /* the model's own context length */
  uint32_t n_layer;
  uint32_t n_embd;
  int32_t bos;           /* token ids; -1 when the vocabulary has none */
  int32_t eos;
  int32_t add_bos;       /* non-zero: the model expects BOS before a prompt */
  /* "llama", "gemma3", ...; and the backend it runs on now, "cpu" or "opencl:<device>" (it
   * changes when a cpu_first_start model moves to its device, or a failing device moves the model
   * to the CPU). Both stay valid as long as the model handle. */
  const char* architecture;
  const char* backend;
  uint32_t n_seq;        /* 1.3: conversations the KV cache holds (clport_model_options.n_seq) */
  int32_t device_start;  /* 1.4: CLPORT_DEVICE_START_* */
} clport_model_info;

CLPORT_API clport_status clport_model_get_info(clport_model* model, clport_model_info* out_info);

/* 1.4: waits until a cpu_first_start model's background device load has ended and moves the model
 * to the device (its conversations are evaluated again there); returns at once for any other
 * model. A device that could not be loaded is not an error: device_start then says FAILED. A
 * generation on another thread waits for this call, as for any call on the model. */
CLPORT_API clport_status clport_model_wait_for_device(clport_model* model);

/* A JSON document about the loaded model: {"model": {...sizes}, "backend": {"name",
 * "description"}, "plan": {"decode_nodes", "fused_nodes", "decode_launches", "layer_launches"
 * (-1 until a decode step ran), "fusion"}, "memory": {"weights": [{"name", "bytes"}],
 * "weights_bytes", "kv_cache_bytes", "activation_bytes", "plugin_scratch": [{"name", "bytes"}],
 * "allocated_bytes", "plain_freed_bytes"}, "op_bindings": [{"op", "plugin", "fused"}]}: the
 * binding `clport info` prints, on this model's backend. */
CLPORT_API clport_status clport_model_report_json(clport_model* model, char** out_json,
                                                  size_t* out_length);

/* ---- tokens and text ---------------------------------------------------------------------- */

enum {
  CLPORT_TOKENIZE_ADD_BOS = 1,        /* put BOS first (when the vocabulary has one) */
  CLPORT_TOKENIZE_PARSE_SPECIAL = 2   /* control tokens written in the text become their ids */
};
enum {
  CLPORT_DETOKENIZE_RENDER_SPECIAL = 1  /* write control tokens (BOS, chat markers) as text */
};

/* Text (text_length bytes; need not be NUL-terminated, may be invalid UTF-8) -> token ids.
 * Ill-formed UTF-8 is not an error: each maximal subpart of an ill-formed sequence is tokenized
 * as U+FFFD (the Unicode standard's recommended substitution, as llama.cpp does), so
 * "Hello \xFF\xFE" gives the tokens of "Hello \uFFFD\uFFFD"; so is a character whose bytes a
 * byte-level BPE vocabulary has no tokens for. NUL bytes within text_length are text.
 * *out_tokens is freed with clport_free; an empty text gives *out_count 0 (and a NULL array
 * unless BOS was added). */
CLPORT_API clport_status clport_tokenize(clport_model* model, const char* text, size_t text_length,
                                         uint32_t flags, int32_t** out_tokens, size_t* out_count);
/* Token ids -> text (NUL-terminated; *out_length excludes the NUL, and counts any NUL the text
 * holds). It round-trips clport_tokenize: the tokenized text comes back byte for byte, with
 * U+FFFD where clport_tokenize replaced something. The exceptions are SentencePiece's own: it
 * writes a space as U+2581, so a U+2581 in the text comes back as a space, and a vocabulary
 * without byte tokens spells a character it lacks as its unknown token, which, like the control
 * tokens that ADD_BOS and PARSE_SPECIAL put in, is rendered only with
 * CLPORT_DETOKENIZE_RENDER_SPECIAL. Byte tokens that a model generates may still form ill-formed
 * UTF-8: they are returned as they are. An id outside the vocabulary is
 * CLPORT_ERR_INVALID_ARGUMENT. *out_text is freed with clport_free. */
CLPORT_API clport_status clport_detokenize(clport_model* model, const int32_t* tokens, size_t count,
                                           uint32_t flags, char** out_text, size_t* out_length);

/* ---- chat templates ----------------------------------------------------------------------- */

typedef struct clport_chat_message {
  const char* role;     /* "system", "user" or "assistant" */
  const char* content;
} clport_chat_message;

/* The conversation in a chat format: template_name is a family name as `clport run
 * --chat-template` takes it ("chatml", "llama3", "gemma", ...), or NULL for the family
 * recognised in the file's tokenizer.chat_template (a file without one, or with one no family
 * matches, is CLPORT_ERR_MODEL naming the families). add_generation_prompt non-zero opens the
 * assistant's turn. The text holds no BOS: tokenize it with CLPORT_TOKENIZE_PARSE_SPECIAL (and
 * CLPORT_TOKENIZE_ADD_BOS when info.add_bos). *out_text is freed with clport_free. */
CLPORT_API clport_status clport_chat_apply(clport_model* model, const char* template_name,
                                           const clport_chat_message* messages, size_t n_messages,
                                           int32_t add_generation_prompt, char** out_text,
                                           size_t* out_length);
/* The tokens that end the assistant's turn in that format (for clport_context_set_stop_tokens);
 * freed with clport_free. */
CLPORT_API clport_status clport_chat_stop_tokens(clport_model* model, const char* template_name,
                                                 int32_t** out_tokens, size_t* out_count);

/* ---- generation --------------------------------------------------------------------------- */

typedef struct clport_context clport_context;

typedef struct clport_context_params {
  size_t struct_size;      /* set by clport_context_params_init */
  float temperature;       /* 0 (default): greedy; 0..100 */
  int32_t top_k;           /* 40; 0 = off; 0..1048576 */
  float top_p;             /* 0.95; 1 = off; 0..1 */
  float repeat_penalty;    /* 1 (off); greater than 0, up to 10 */
  int32_t repeat_last_n;   /* 64: how many recent tokens the penalty looks at; 0..1048576 */
  uint64_t seed;           /* 0; every clport_generate starts the sampler from it */
} clport_context_params;

CLPORT_API void clport_context_params_init(clport_context_params* params);
/* params may be NULL for the defaults. On a model loaded with n_seq > 1 the context takes one of
 * its free conversations (1.3; given back, emptied, by clport_context_free): when every one has a
 * context, CLPORT_ERR_INVALID_ARGUMENT says so. With n_seq = 1 every context shares the one. */
CLPORT_API clport_status clport_context_create(clport_model* model, const clport_context_params* params,
                                               clport_context** out_context);
CLPORT_API void clport_context_free(clport_context* context);
CLPORT_API const char* clport_context_error(const clport_context* context);
/* Tokens that end a generation (not delivered), besides the vocabulary's end-of-generation
 * tokens: a chat format's end of turn (clport_chat_stop_tokens). count 0 clears them. */
CLPORT_API clport_status clport_context_set_stop_tokens(clport_context* context, const int32_t* tokens,
                                                        size_t count);

typedef enum clport_callback_result { CLPORT_CONTINUE = 0, CLPORT_STOP = 1 } clport_callback_result;

/* Called once per generated token, in order. piece holds the text this token completes (whole
 * UTF-8 characters, not NUL-terminated; piece_length may be 0 when the token ends inside a
 * character, whose bytes then come with the next token). Return CLPORT_CONTINUE, or CLPORT_STOP
 * (any non-zero value) to end the generation after this token. */
typedef int (*clport_token_callback)(void* user_data, int32_t token, const char* piece,
                                     size_t piece_length);

typedef enum clport_stop_reason {
  CLPORT_STOP_LENGTH = 0,             /* n_predict tokens were delivered */
  CLPORT_STOP_END_OF_GENERATION = 1,  /* the model wrote EOS / end of turn, or a stop token */
  CLPORT_STOP_CALLBACK = 2            /* the callback asked to stop */
} clport_stop_reason;

typedef struct clport_generation_stats {
  size_t struct_size;        /* set by the caller to sizeof(clport_generation_stats) */
  int32_t prompt_tokens;
  int32_t delivered_tokens;  /* tokens passed to the callback */
  int32_t stop_reason;       /* a clport_stop_reason */
  double prompt_seconds;
  double generation_seconds;
  double load_seconds;       /* the model's load time */
  /* 1.2: of prompt_tokens, how many the KV cache held already (clport_generate_continue) and
   * were not evaluated again. */
  int32_t cached_tokens;
} clport_generation_stats;

/* Evaluates the prompt from position 0 (the model's KV cache starts over), then samples up to
 * n_predict tokens, passing each to callback (which may be NULL). Ends early at an
 * end-of-generation or stop token (not delivered) or when the callback returns CLPORT_STOP; both
 * are CLPORT_OK. A context too small for the prompt and all but the last of the n_predict tokens
 * is CLPORT_ERR_INVALID_ARGUMENT saying how many fit (the tokens generated until then have been
 * delivered). stats (optional) is filled in on success and on failure (stop_reason means
 * something on success only). */
CLPORT_API clport_status clport_generate(clport_context* context, const int32_t* prompt, size_t n_prompt,
                                         int32_t n_predict, clport_token_callback callback,
                                         void* user_data, clport_generation_stats* stats);

/* ---- conversations (1.2) ------------------------------------------------------------------ */

/* A context's conversation is a token sequence the model's KV cache holds between calls: the
 * prompt and the tokens fed back of its last generation (every generated token but the last), or
 * a loaded state. A model loaded with n_seq > 1 holds one conversation per context (1.3), which
 * the calls below address; with n_seq = 1 its contexts share one, taking turns, and a context
 * whose conversation is not the one cached evaluates it again. */

/* clport_generate for a prompt that repeats the conversation so far (the earlier turns, the
 * replies and the new turn, e.g. clport_chat_apply's text tokenized): only the tokens after its
 * longest common prefix with the cached sequence are evaluated (at least the last one, whose
 * logits start the sampling); stats->cached_tokens says how many were reused. Cached tokens past
 * the prefix are dropped, which is also how an edited or regenerated turn goes. */
CLPORT_API clport_status clport_generate_continue(clport_context* context, const int32_t* prompt, size_t n_prompt,
                                                  int32_t n_predict, clport_token_callback callback,
                                                  void* user_data, clport_generation_stats* stats);
/* The cached sequence (see above), copied: *out_tokens is freed with clport_free (NULL when
 * *out_count is 0). */
CLPORT_API clport_status clport_context_cached_tokens(clport_context* context, int32_t** out_tokens,
                                                      size_t* out_count);
/* Forgets the last n_tokens of the cached sequence; more than it holds is
 * CLPORT_ERR_INVALID_ARGUMENT. */
CLPORT_API clport_status clport_context_rewind(clport_context* context, size_t n_tokens);
/* Saves the cached sequence and its KV-cache rows to path (written to a temporary file and
 * renamed: a crash mid-save leaves any earlier file whole), and loads such a file back in place
 * of the cache, in this process or another. The file names the model file (its SHA-256), the KV
 * cache types and clport's version: a file saved for another is CLPORT_ERR_INVALID_ARGUMENT
 * naming what differs; a truncated or corrupt file is CLPORT_ERR_IO, and the cache is left as it
 * was. Hashing the model file on the first save or load of a model reads the whole file once. */
CLPORT_API clport_status clport_context_save_state(clport_context* context, const char* path);
CLPORT_API clport_status clport_context_load_state(clport_context* context, const char* path);
/* 1.3: context's conversation becomes a copy of source's (its tokens and KV-cache rows), to try
 * another continuation while source keeps its own. Both must be contexts of one model; on a
 * model whose contexts share one conversation this changes nothing. */
CLPORT_API clport_status clport_context_fork(clport_context* context, const clport_context* source);

#ifdef __cplusplus
}
#endif

#endif /* CLPORT_CLPORT_H */
