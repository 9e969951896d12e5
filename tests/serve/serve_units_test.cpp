// The parts of `clport serve` that need no model: request checking, stop strings, log
// probabilities, the response documents and the metrics text.
#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "completion_request.h"
#include "openai_responses.h"
#include "server_metrics.h"
#include "stop_strings.h"

namespace clport::serve {
namespace {

using nlohmann::json;

std::variant<CompletionRequest, ApiError> parse_chat(const json& body) {
  return parse_completion_request(body.dump(), /*chat=*/true, /*n_vocab=*/1000, /*default_seed=*/77);
}

json chat_body() { return {{"model", "m"}, {"messages", {{{"role", "user"}, {"content", "Hi"}}}}}; }

ApiError refused(const json& body, bool chat = true) {
  auto r = parse_completion_request(body.dump(), chat, 1000, 1);
  EXPECT_TRUE(std::holds_alternative<ApiError>(r)) << body.dump();
  return std::holds_alternative<ApiError>(r) ? std::get<ApiError>(r) : ApiError{};
}

TEST(CompletionRequest, DefaultsAreOpenAIs) {
  auto r = parse_chat(chat_body());
  ASSERT_TRUE(std::holds_alternative<CompletionRequest>(r));
  const auto& req = std::get<CompletionRequest>(r);
  EXPECT_EQ(req.model, "m");
  ASSERT_EQ(req.messages.size(), 1u);
  EXPECT_EQ(req.messages[0].content, "Hi");
  EXPECT_FLOAT_EQ(req.sampling.temperature, 1.0f);
  EXPECT_FLOAT_EQ(req.sampling.top_p, 1.0f);
  EXPECT_EQ(req.sampling.top_k, 0);
  EXPECT_EQ(req.sampling.seed, 77u);
  EXPECT_FALSE(req.max_tokens.has_value());
  EXPECT_FALSE(req.stream);
  EXPECT_EQ(req.top_logprobs, -1);
}

TEST(CompletionRequest, FieldsAreRead) {
  json b = chat_body();
  b["messages"] = {{{"role", "developer"}, {"content", "Be brief."}},
                   {{"role", "user"}, {"content", {{{"type", "text"}, {"text", "a"}}, {{"type", "text"}, {"text", "b"}}}}}};
  b["max_tokens"] = 5;
  b["max_completion_tokens"] = 9;
  b["temperature"] = 0;
  b["stop"] = "END";
  b["seed"] = -1;
  b["stream"] = true;
  b["stream_options"] = {{"include_usage", true}};
  b["logprobs"] = true;
  b["top_logprobs"] = 4;
  b["frequency_penalty"] = 1.5;
  b["n"] = 1;
  b["user"] = "ignored";
  auto r = parse_chat(b);
  ASSERT_TRUE(std::holds_alternative<CompletionRequest>(r)) << std::get<ApiError>(r).message;
  const auto& req = std::get<CompletionRequest>(r);
  EXPECT_EQ(req.messages[0].role, "system");
  EXPECT_EQ(req.messages[1].content, "ab");
  EXPECT_EQ(req.max_tokens, 9);  // the newer name wins
  EXPECT_EQ(req.stop, std::vector<std::string>{"END"});
  EXPECT_EQ(req.sampling.seed, UINT64_MAX);
  EXPECT_TRUE(req.stream);
  EXPECT_TRUE(req.include_usage);
  EXPECT_EQ(req.top_logprobs, 4);
  EXPECT_FLOAT_EQ(req.sampling.frequency_penalty, 1.5f);
}

TEST(CompletionRequest, EachBadFieldIsNamed) {
  EXPECT_EQ(refused(json::array()).param, "");
  auto no_model = chat_body();
  no_model.erase("model");
  EXPECT_EQ(refused(no_model).param, "model");
  struct Case {
    const char* field;
    json value;
    const char* param;
  };
  const Case cases[] = {
      {"model", 3, "model"},
      {"messages", json::array(), "messages"},
      {"messages", "x", "messages"},
      {"messages", {{{"role", "bot"}, {"content", "x"}}}, "messages[0].role"},
      {"messages", {{{"role", "user"}}}, "messages[0].content"},
      {"messages", {{{"role", "user"}, {"content", 5}}}, "messages[0].content"},
      {"temperature", "hot", "temperature"},
      {"temperature", 2.01, "temperature"},
      {"top_p", 1.5, "top_p"},
      {"top_k", -1, "top_k"},
      {"max_tokens", 0, "max_tokens"},
      {"max_tokens", 2.5, "max_tokens"},
      {"max_completion_tokens", -3, "max_completion_tokens"},
      {"presence_penalty", -2.5, "presence_penalty"},
      {"n", 3, "n"},
      {"stop", {"a", "b", "c", "d", "e"}, "stop"},
      {"stop", {""}, "stop"},
      {"stop", {1}, "stop"},
      {"stream", 1, "stream"},
      {"stream_options", {{"include_usage", true}}, "stream_options"},  // without stream
      {"top_logprobs", 3, "top_logprobs"},                              // without logprobs
      {"tools", {{{"type", "function"}}}, "tools"},
      {"tool_choice", "auto", "tool_choice"},
      {"logit_bias", {{"5", 1}}, "logit_bias"},
      {"response_format", {{"type", "json_object"}}, "response_format"},
      {"seed", 1.5, "seed"},
  };
  for (const auto& c : cases) {
    json b = chat_body();
    b[c.field] = c.value;
    const ApiError e = refused(b);
    EXPECT_EQ(e.status, 400) << c.field;
    EXPECT_EQ(e.param, c.param) << c.field << " = " << c.value.dump() << ": " << e.message;
    EXPECT_NE(e.message.find(c.param), std::string::npos) << e.message;
  }
}

TEST(CompletionRequest, MalformedJsonSaysWhere) {
  auto r = parse_completion_request("{\"model\": ", true, 1000, 1);
  ASSERT_TRUE(std::holds_alternative<ApiError>(r));
  EXPECT_EQ(std::get<ApiError>(r).code, "invalid_json");
  EXPECT_NE(std::get<ApiError>(r).message.find("column 11"), std::string::npos) << std::get<ApiError>(r).message;
}

TEST(CompletionRequest, CompletionPrompts) {
  auto ids = parse_completion_request(json({{"model", "m"}, {"prompt", {1, 2, 999}}}).dump(), false, 1000, 1);
  ASSERT_TRUE(std::holds_alternative<CompletionRequest>(ids));
  EXPECT_EQ(*std::get<CompletionRequest>(ids).prompt_ids, (std::vector<int32_t>{1, 2, 999}));
  auto one = parse_completion_request(json({{"model", "m"}, {"prompt", {"text"}}}).dump(), false, 1000, 1);
  ASSERT_TRUE(std::holds_alternative<CompletionRequest>(one));
  EXPECT_EQ(std::get<CompletionRequest>(one).prompt_text, "text");
  EXPECT_EQ(refused({{"model", "m"}, {"prompt", {1, 1000}}}, false).param, "prompt");
  EXPECT_EQ(refused({{"model", "m"}, {"prompt", {"a", "b"}}}, false).param, "prompt");
  EXPECT_EQ(refused({{"model", "m"}, {"prompt", 5}}, false).param, "prompt");
  EXPECT_EQ(refused({{"model", "m"}}, false).param, "prompt");
  EXPECT_EQ(refused({{"model", "m"}, {"prompt", "x"}, {"logprobs", 2}}, false).param, "logprobs");
}

TEST(StopStrings, HoldsBackWhatCouldStartAStopString) {
  StopStrings s({"</end>", "STOP"});
  EXPECT_EQ(s.push("Hello </"), "Hello ");
  EXPECT_EQ(s.push("b> more S"), "</b> more ");
  EXPECT_EQ(s.push("T"), "");
  EXPECT_EQ(s.push("ill"), "STill");
  EXPECT_FALSE(s.stopped());
  EXPECT_EQ(s.push(" done</e"), " done");
  EXPECT_EQ(s.push("nd> after"), "");
  EXPECT_TRUE(s.stopped());
  EXPECT_EQ(s.push("more"), "");
  EXPECT_EQ(s.flush(), "");
}

TEST(StopStrings, TheEarliestStopWinsAndFlushGivesTheRest) {
  StopStrings s({"cd", "b"});
  EXPECT_EQ(s.push("abcd"), "a");
  EXPECT_TRUE(s.stopped());
  StopStrings t({"xyz"});
  EXPECT_EQ(t.push("abcx"), "abc");
  EXPECT_EQ(t.flush(), "x");
  StopStrings none({});
  EXPECT_EQ(none.push("anything"), "anything");
}

TEST(StopStrings, MultiByteStopStrings) {
  StopStrings s({"é!"});
  EXPECT_EQ(s.push("caf\xc3\xa9"), "caf");
  EXPECT_EQ(s.push("!"), "");
  EXPECT_TRUE(s.stopped());
}

TEST(OpenAIResponses, ChunksAndUsage) {
  ResponseHeader h{"chatcmpl-1", "m", 100, true};
  const json first = chunk_json(h, "Hel", true, "");
  EXPECT_EQ(first["object"], "chat.completion.chunk");
  EXPECT_EQ(first["choices"][0]["delta"]["role"], "assistant");
  EXPECT_EQ(first["choices"][0]["delta"]["content"], "Hel");
  EXPECT_TRUE(first["choices"][0]["finish_reason"].is_null());
  const json last = chunk_json(h, "", false, "stop");
  EXPECT_EQ(last["choices"][0]["delta"], json::object());
  EXPECT_EQ(last["choices"][0]["finish_reason"], "stop");
  const json usage = usage_chunk_json(h, {10, 4, 3});
  EXPECT_TRUE(usage["choices"].empty());
  EXPECT_EQ(usage["usage"]["total_tokens"], 13);
  EXPECT_EQ(usage["usage"]["prompt_tokens_details"]["cached_tokens"], 4);
  ResponseHeader text{"cmpl-1", "m", 100, false};
  const json whole = completion_json(text, "abc", "length", {1, 0, 2});
  EXPECT_EQ(whole["object"], "text_completion");
  EXPECT_EQ(whole["choices"][0]["text"], "abc");
  EXPECT_EQ(sse_event(json{{"a", 1}}), "data: {\"a\":1}\n\n");
  // Invalid UTF-8 in generated text is replaced, not thrown on.
  EXPECT_NO_THROW(dump_json(json{{"t", std::string("\xff")}}));
}

TEST(OpenAIResponses, Logprobs) {
  EXPECT_TRUE(logprobs_json(false, {}).is_null());
  TokenLogprob t{"hi", -0.5f, {{"hi", -0.5f}, {"yo", -1.0f}}};
  const json doc = logprobs_json(true, {t});
  EXPECT_EQ(doc["content"][0]["token"], "hi");
  EXPECT_EQ(doc["content"][0]["bytes"], json({104, 105}));
  EXPECT_EQ(doc["content"][0]["top_logprobs"].size(), 2u);
}

TEST(ServerMetrics, PrometheusText) {
  ServerMetrics m;
  m.count_response(200);
  m.count_response(200);
  m.count_response(429);
  m.add_generated_tokens(7);
  m.set_gauges(3, 2, 100);
  const std::string text = m.prometheus_text(4, 4096);
  EXPECT_NE(text.find("clport_requests_total{status=\"200\"} 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("clport_requests_total{status=\"429\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("clport_generated_tokens_total 7\n"), std::string::npos);
  EXPECT_NE(text.find("clport_queue_depth 3\n"), std::string::npos);
  EXPECT_NE(text.find("clport_slots_total 4\n"), std::string::npos);
  EXPECT_NE(text.find("clport_kv_cells_used 100\n"), std::string::npos);
}

}  // namespace
}  // namespace clport::serve
