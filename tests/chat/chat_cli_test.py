#!/usr/bin/env python3
"""`clport chat` on the real SmolLM2, scripted (turns read from standard input, --json).

  chat_cli_test.py CLPORT MODEL TURNS WORK CASE
CASE: reuse       10 turns: from turn 2 on the cache holds everything but the new turn; prints the
                  prompt time of turns 2-10 against the same conversation evaluated from zero; with
                  float activations the replies equal the from-zero ones, with 8-bit ones the token
                  where they first part was a near-tie in both conversations
      save_load   /save after turn 5 and /load in a new process: turns 6-10 as in one process
      bad_state   truncated, damaged, transcript-less and mismatched state files are refused
      commands    /undo, /reset, /exit, an unknown command, a full context, a full standard output:
                  turn numbers, cache, exit codes
Exits non-zero naming the first check that failed.
"""
import json
import os
import shutil
import subprocess
import sys

CLPORT, MODEL, TURNS, WORK, CASE = sys.argv[1:6]
N_PREDICT = 16
BASE = [CLPORT, "chat", "-m", MODEL, "--device", "cpu", "--json", "-n", str(N_PREDICT)]


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def chat(lines, extra=(), expect_rc=0):
    """Runs `clport chat` on these input lines; returns (turn objects, stderr)."""
    run = subprocess.run(BASE + list(extra), input="\n".join(lines) + "\n", capture_output=True, text=True)
    if run.returncode < 0:
        fail("clport chat died of signal %d:\n%s" % (-run.returncode, run.stderr))
    if run.returncode != expect_rc:
        fail("exit code %d, expected %d:\n%s\n%s" % (run.returncode, expect_rc, run.stdout, run.stderr))
    turns = []
    for line in run.stdout.splitlines():
        try:
            turns.append(json.loads(line))
        except ValueError:
            fail("stdout line is not JSON: %r" % line)
    for t in turns:
        for key in ("turn", "ok", "prompt_tokens", "cached_tokens", "completion_tokens", "prompt_seconds",
                    "generation_seconds", "content"):
            if key not in t:
                fail("turn object without %s: %s" % (key, t))
    return turns, run.stderr


def check(condition, message):
    if not condition:
        fail(message)


def read_turns():
    with open(TURNS) as f:
        return [line.rstrip("\n") for line in f if line.strip()]


def same_replies(reused, fresh, what):
    """Whether the reused and the from-zero conversation wrote the same replies; prints where they part."""
    same = [r["content"] == z["content"] for r, z in zip(reused, fresh)]
    print("%s: replies equal to the from-zero ones: %d of %d%s" % (what, sum(same), len(same), "" if all(same) else
          "; first difference at turn %d" % (same.index(False) + 1)))
    return all(same)


# The largest lead of the best logit over the next at the token where the two texts part that still
# counts as a near-tie: the difference in summation order moves SmolLM2's logits by a few hundredths.
NEAR_TIE = 0.25


def check_near_tie(reused, fresh):
    """The first token where the replies part was a near-tie in both conversations."""
    turn = next(i for i, (r, z) in enumerate(zip(reused, fresh)) if r["content"] != z["content"])
    a, b = reused[turn]["reply_tokens"], fresh[turn]["reply_tokens"]
    j = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    check(j < len(a) and j < len(b), "turn %d: one reply is a prefix of the other (%d / %d tokens)" % (turn + 1, len(a), len(b)))
    gaps = (reused[turn]["logit_gaps"][j], fresh[turn]["logit_gaps"][j])
    print("turn %d, reply token %d: %d with reuse, %d from zero; lead over the next best logit %.4f / %.4f" %
          (turn + 1, j, a[j], b[j], gaps[0], gaps[1]))
    check(max(gaps) <= NEAR_TIE, "turn %d token %d: the replies part where a logit led by %.4f (> %.2f): not a near-tie" %
          (turn + 1, j, max(gaps), NEAR_TIE))


def reuse():
    lines = read_turns()
    reused, _ = chat(lines)
    fresh, _ = chat(lines, ["--no-cache-reuse"])
    check(len(reused) == len(lines) and len(fresh) == len(lines), "one object per turn")
    print("turn prompt cached new completion | prompt s (reuse)  prompt s (from zero)")
    for i, (r, z) in enumerate(zip(reused, fresh)):
        check(r["ok"] and z["ok"], "turn %d failed: %s %s" % (i + 1, r, z))
        check(r["turn"] == i + 1, "turn numbers count up: %s" % r)
        check(z["cached_tokens"] == 0, "--no-cache-reuse evaluates from zero: %s" % z)
        print("%4d %6d %6d %3d %10d | %15.4f  %19.4f" % (r["turn"], r["prompt_tokens"], r["cached_tokens"],
              r["prompt_tokens"] - r["cached_tokens"], r["completion_tokens"], r["prompt_seconds"],
              z["prompt_seconds"]))
        if i == 0:
            check(r["cached_tokens"] == 0, "nothing is cached before the first turn: %s" % r)
            continue
        prev = reused[i - 1]
        # Everything the last turn evaluated: its prompt and the reply tokens fed back (all of them
        # when it ended at the end of turn, all but the last when it ran out of -n).
        fed_back = prev["completion_tokens"] - (1 if prev["completion_tokens"] == N_PREDICT else 0)
        check(r["cached_tokens"] > 0, "turn %d reuses the cache" % r["turn"])
        check(r["cached_tokens"] >= prev["prompt_tokens"],
              "turn %d: cached %d < the previous prompt's %d tokens" % (r["turn"], r["cached_tokens"], prev["prompt_tokens"]))
        check(r["cached_tokens"] == prev["prompt_tokens"] + fed_back,
              "turn %d: cached %d, expected the previous prompt and reply (%d + %d): the reply re-renders "
              "to other tokens" % (r["turn"], r["cached_tokens"], prev["prompt_tokens"], fed_back))
    with_reuse = sum(t["prompt_seconds"] for t in reused[1:])
    from_zero = sum(t["prompt_seconds"] for t in fresh[1:])
    print("prompt time of turns 2-%d: %.4f s with reuse, %.4f s from zero (%.1fx)" %
          (len(lines), with_reuse, from_zero, from_zero / with_reuse if with_reuse > 0 else float("inf")))
    # With 8-bit activations a reply fed back one token at a time (decode kernels) and the same
    # tokens evaluated as part of a prompt (the prompt kernels, which sum in another order) put
    # slightly different keys into the cache, so greedy texts may part at a near-tie. With float
    # activations every row count takes the same kernels: there the texts must be equal.
    if not same_replies(reused, fresh, "8-bit activations"):
        check_near_tie(reused, fresh)
    reused32, _ = chat(lines, ["--cpu-fp32"])
    fresh32, _ = chat(lines, ["--cpu-fp32", "--no-cache-reuse"])
    for i, (r, z) in enumerate(zip(reused32, fresh32)):
        check(r["prompt_tokens"] == z["prompt_tokens"], "float activations: the same conversation either way (turn %d)" % (i + 1))
        check(i == 0 or r["cached_tokens"] > 0, "float activations: turn %d reuses the cache" % (i + 1))
    check(same_replies(reused32, fresh32, "float activations"), "float activations: the replies equal the from-zero ones")


def save_load():
    lines = read_turns()
    whole, _ = chat(lines)
    state = os.path.join(WORK, "half.state")
    first, err = chat(lines[:5] + ["/save " + state])
    check(os.path.isfile(state) and os.path.isfile(state + ".json"), "/save writes FILE and FILE.json:\n" + err)
    second, err = chat(["/load " + state] + lines[5:])
    check(len(first) == 5 and len(second) == 5, "5 turns before and after the load")
    for a, b in zip(whole, first + second):
        for key in ("turn", "prompt_tokens", "cached_tokens", "completion_tokens", "content"):
            check(a[key] == b[key], "turn %d: %s %r uninterrupted, %r across /save and /load" %
                  (a["turn"], key, a[key], b[key]))
    check(second[0]["cached_tokens"] >= first[-1]["prompt_tokens"], "the loaded cache is reused")
    print("turns 6-10 after /load in a new process equal the uninterrupted run")


def bad_state():
    state = os.path.join(WORK, "good.state")
    chat(["Hello!", "/save " + state])
    size = os.path.getsize(state)

    def variant(name, change):
        path = os.path.join(WORK, name)
        shutil.copyfile(state, path)
        shutil.copyfile(state + ".json", path + ".json")
        change(path)
        return path

    def truncate(path):
        with open(path, "r+b") as f:
            f.truncate(size // 2)

    def flip(path):
        with open(path, "r+b") as f:
            f.seek(size // 2)
            byte = f.read(1)
            f.seek(size // 2)
            f.write(bytes([byte[0] ^ 0x40]))

    cases = [("truncated.state", truncate, [], 22, "not a usable clport state file"),
             ("flipped.state", flip, [], 22, "checksum does not match"),
             ("alone.state", lambda p: os.remove(p + ".json"), [], 22, "cannot open the conversation file"),
             ("good.state", lambda p: None, ["--kv-type", "q8_0"], 24, "saved for another model or setup")]
    for name, change, extra, rc, message in cases:
        path = variant(name, change) if name != "good.state" else state
        # Scripted: the failed /load is reported, the conversation goes on, the exit code tells.
        turns, err = chat(["/load " + path, "Hi again."], extra, expect_rc=rc)
        check(message in err, "%s: no '%s' in:\n%s" % (name, message, err))
        check(len(turns) == 1 and turns[0]["ok"] and turns[0]["turn"] == 1 and turns[0]["cached_tokens"] == 0,
              "%s: after the refused load the conversation starts afresh: %s" % (name, turns))
        print("%s refused (exit %d): %s" % (name, rc, [l for l in err.splitlines() if message in l][0]))


def commands():
    turns, err = chat(["Hi.", "/undo", "Hello.", "Who are you?", "/reset", "Hey.", "/frobnicate", "Bye."],
                      expect_rc=24)
    check([t["turn"] for t in turns] == [1, 1, 2, 1, 2], "turn numbers after /undo and /reset: %s" % turns)
    check(turns[1]["cached_tokens"] > 0, "after /undo the prefix the turns share stays cached")
    check(turns[3]["cached_tokens"] == 0, "/reset empties the cache: %s" % turns[3])
    check("unknown command '/frobnicate'; commands: /save FILE, /load FILE, /reset, /undo, /exit" in err,
          "the unknown command is named with the list:\n" + err)
    turns, _ = chat(["Hi.", "/exit", "Not read."])
    check(len(turns) == 1, "/exit ends the conversation")
    # A turn that does not fit the context fails alone (exit 24 = 10 + invalid argument).
    long_line = "Tell me everything about " + " and ".join(["the history of Rome"] * 12) + "."
    turns, err = chat(["Hi.", long_line, "/reset", "Hi."], ["-c", "64"], expect_rc=24)
    check([t["turn"] for t in turns] == [1, 2, 1], "the failed turn is reported as turn 2: %s" % turns)
    check(turns[0]["ok"] and not turns[1]["ok"] and turns[2]["ok"], "only the long turn fails: %s" % turns)
    check(turns[1]["error"]["stage"] == "invalid argument" and "context" in turns[1]["error"]["message"],
          "the failure says the context is full: %s" % turns[1])
    check("raise it with --ctx" in err, "the message names --ctx:\n" + err)
    # Replies that cannot be written end the conversation with exit 22 (10 + i/o).
    with open("/dev/full", "w") as full:
        run = subprocess.run(BASE, input="Hi.\nHello.\n", stdout=full, stderr=subprocess.PIPE, text=True)
    check(run.returncode == 22 and "cannot write to standard output" in run.stderr,
          "a full standard output: exit %d\n%s" % (run.returncode, run.stderr))
    print("/undo, /reset, /exit, an unknown command, a full context and a full stdout behave")


os.makedirs(WORK, exist_ok=True)
{"reuse": reuse, "save_load": save_load, "bad_state": bad_state, "commands": commands}[CASE]()
