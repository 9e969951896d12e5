# llama-perplexity's chunked perplexity computed through llama.cpp's own library (the PyPI
# package llama-cpp-python, as ../shared/anchors sets it up), for comparing with
# `clport perplexity` where no llama-perplexity binary is installed:
#   ~/.cache/clport-anchors/venv/bin/python measurements/llama_cpp_perplexity.py MODEL TEXT N_CTX
# The text is tokenized with add_special (BOS first when the vocabulary adds it), cut into chunks
# of N_CTX tokens from the start of that stream, the first token of each chunk replaced by BOS
# when the vocabulary adds it, and the logits at rows N_CTX/2 .. N_CTX-2 scored.
import math
import sys

import llama_cpp
import numpy as np

model, text_file, n_ctx = sys.argv[1], sys.argv[2], int(sys.argv[3])
llm = llama_cpp.Llama(model_path=model, n_ctx=n_ctx, n_batch=n_ctx, logits_all=True,
                      n_threads=2, verbose=False)
add_bos = bool(llama_cpp.llama_vocab_get_add_bos(llama_cpp.llama_model_get_vocab(llm._model.model)))
tokens = llm.tokenize(open(text_file, "rb").read(), add_bos=True, special=False)
n_chunks = len(tokens) // n_ctx
print(f"add_bos={add_bos}; {len(tokens)} tokens, {n_chunks} chunks of {n_ctx}", file=sys.stderr)
first = n_ctx // 2
nll = nll2 = 0.0
count = 0
for c in range(n_chunks):
    chunk = list(tokens[c * n_ctx:(c + 1) * n_ctx])
    if add_bos:
        chunk[0] = llm.token_bos()
    llm.reset()
    llm.eval(chunk)
    rows = np.array(llm.scores[first:n_ctx - 1], dtype=np.float64)
    peak = rows.max(axis=1, keepdims=True)
    log_sum = np.log(np.exp(rows - peak).sum(axis=1)) + peak[:, 0]
    targets = np.array(tokens[c * n_ctx + first + 1:(c + 1) * n_ctx])
    log_p = rows[np.arange(len(targets)), targets] - log_sum
    nll -= log_p.sum()
    nll2 += (log_p * log_p).sum()
    count += len(log_p)
    print(f"[{c + 1}]{math.exp(nll / count):.4f},", end="", flush=True)
mean = nll / count
ppl = math.exp(mean)
err = ppl * math.sqrt((nll2 / count - mean * mean) / (count - 1))
print(f"\nFinal estimate: PPL = {ppl:.4f} +/- {err:.5f} ({n_chunks} chunks, {count} scored tokens)")
