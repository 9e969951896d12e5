/* The README's C API example: one chat turn, streamed. The install test compiles and links it
 * against the installed package, so the README cannot drift from the header. */
#include <clport/clport.h>
#include <stdio.h>
#include <string.h>

static int print_piece(void* user_data, int32_t token, const char* piece, size_t length) {
  (void)user_data;
  (void)token;
  fwrite(piece, 1, length, stdout);
  fflush(stdout);
  return CLPORT_CONTINUE; /* CLPORT_STOP ends the generation after this token */
}

int main(int argc, char** argv) {
  clport_runtime_options ro;
  clport_runtime_options_init(&ro); /* device "auto": the best OpenCL device, else the CPU */
  clport_model_options mo;
  clport_model_options_init(&mo);
  mo.path = argc > 1 ? argv[1] : "models/SmolLM2-135M-Instruct.Q4_1.gguf";
  clport_runtime* runtime = NULL;
  clport_model* model = NULL;
  if (clport_runtime_create(&ro, &runtime) != CLPORT_OK || clport_model_load(runtime, &mo, &model) != CLPORT_OK) {
    fprintf(stderr, "clport: %s\n", clport_last_error());
    return 1;
  }
  /* The conversation in the file's chat format, and the tokens that end the answer. */
  const clport_chat_message chat[] = {{"user", "What is the capital of France?"}};
  char* text = NULL;
  int32_t* prompt = NULL;
  int32_t* stops = NULL;
  size_t n_prompt = 0, n_stops = 0;
  clport_context* context = NULL;
  clport_status st = clport_chat_apply(model, NULL, chat, 1, 1, &text, NULL);
  if (st == CLPORT_OK) st = clport_tokenize(model, text, strlen(text), CLPORT_TOKENIZE_PARSE_SPECIAL, &prompt, &n_prompt);
  if (st == CLPORT_OK) st = clport_chat_stop_tokens(model, NULL, &stops, &n_stops);
  if (st == CLPORT_OK) st = clport_context_create(model, NULL, &context); /* greedy by default */
  if (st == CLPORT_OK) st = clport_context_set_stop_tokens(context, stops, n_stops);
  if (st == CLPORT_OK) st = clport_generate(context, prompt, n_prompt, 64, print_piece, NULL, NULL);
  if (st != CLPORT_OK) fprintf(stderr, "\nclport: %s: %s\n", clport_status_name(st), clport_last_error());
  clport_free(text);
  clport_free(prompt);
  clport_free(stops);
  clport_context_free(context);
  clport_model_free(model);
  clport_runtime_free(runtime);
  return st == CLPORT_OK ? 0 : 1;
}
