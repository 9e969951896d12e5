#!/usr/bin/env python3
"""Load for an OpenAI-compatible server (clport serve, llama-server): CLIENTS clients at once, each
sending REQUESTS streamed /v1/completions one after another, each prompt PROMPT_TOKENS token ids
(different for every request, so no server reuses a cached prefix) and GEN_TOKENS generated tokens
(ignore_eos). Prints one JSON line: requests, completion tokens, wall seconds, aggregate completion
tokens per second, time to first token p50 / p99.

  serve_load.py URL MODEL_ID [--clients 8] [--requests 4] [--prompt-tokens 128] [--gen-tokens 64]
"""
import argparse
import json
import random
import threading
import time
import urllib.request


def one_request(url, model, prompt, gen_tokens):
    body = json.dumps({"model": model, "prompt": prompt, "max_tokens": gen_tokens, "temperature": 0,
                       "stream": True, "ignore_eos": True, "stream_options": {"include_usage": True}}).encode()
    req = urllib.request.Request(url + "/v1/completions", data=body, headers={"Content-Type": "application/json"})
    t0 = time.time()
    first = None
    tokens = 0
    usage = None
    with urllib.request.urlopen(req, timeout=600) as r:
        for raw in r:
            line = raw.decode().strip()
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            doc = json.loads(line[6:])
            if doc.get("usage"):
                usage = doc["usage"]
            for c in doc.get("choices", []):
                if c.get("text"):
                    tokens += 1
                    if first is None:
                        first = time.time()
    n = usage["completion_tokens"] if usage else tokens
    return (first or time.time()) - t0, n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("model")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--requests", type=int, default=4)
    ap.add_argument("--prompt-tokens", type=int, default=128)
    ap.add_argument("--gen-tokens", type=int, default=64)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    # Ordinary-text token ids (past the special tokens at the start of the vocabulary).
    prompts = [[rng.randrange(1000, 40000) for _ in range(a.prompt_tokens)] for _ in range(a.clients * a.requests)]
    # One request first, outside the timing: a server's first request may build what it caches.
    one_request(a.url, a.model, prompts[0][: a.prompt_tokens // 2], 4)
    results, errors = [], []

    def client(c):
        for r in range(a.requests):
            try:
                results.append(one_request(a.url, a.model, prompts[c * a.requests + r], a.gen_tokens))
            except Exception as e:  # counted and reported, never hidden
                errors.append(repr(e))

    t0 = time.time()
    threads = [threading.Thread(target=client, args=(c,)) for c in range(a.clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.time() - t0
    ttft = sorted(r[0] for r in results)
    tokens = sum(r[1] for r in results)
    print(json.dumps({"requests": len(results), "failed": len(errors), "errors": errors[:3], "completion_tokens": tokens,
                      "wall_s": round(wall, 3), "tokens_per_s": round(tokens / wall, 2),
                      "ttft_p50_s": round(ttft[len(ttft) // 2], 4) if ttft else None,
                      "ttft_p99_s": round(ttft[max(0, int(len(ttft) * 0.99) - 1)], 4) if ttft else None}))


if __name__ == "__main__":
    main()
