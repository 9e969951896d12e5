#include "policy/yaml_guard.h"

#include <sstream>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

namespace clport::policy_detail {
namespace {

// Thrown from inside the event stream to stop the parser at the first problem (the parser
// recurses per nesting level, so stopping early also bounds its stack use).
struct ShapeError {
  YAML::Mark mark;
  std::string message;
};

class ShapeChecker : public YAML::EventHandler {
 public:
  explicit ShapeChecker(const YamlLimits& limits) : limits_(limits) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1) throw ShapeError{mark, "only one YAML document is allowed"};
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { count(mark); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    throw ShapeError{mark, "YAML aliases (*name) are not allowed in policy files"};
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                const std::string&) override {
    count(mark);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    enter(mark);
  }
  void OnSequenceEnd() override { --depth_; }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    enter(mark);
  }
  void OnMapEnd() override { --depth_; }

 private:
  void count(const YAML::Mark& mark) {
    if (++nodes_ > limits_.max_nodes) {
      throw ShapeError{mark, "too many YAML nodes (limit " + std::to_string(limits_.max_nodes) + ")"};
    }
  }
  void enter(const YAML::Mark& mark) {
    count(mark);
    if (++depth_ > limits_.max_depth) {
      throw ShapeError{mark, "nesting deeper than " + std::to_string(limits_.max_depth) + " levels"};
    }
  }

  const YamlLimits& limits_;
  int documents_ = 0;
  int depth_ = 0;
  size_t nodes_ = 0;
};

std::string where(const std::string& file, const YAML::Mark& mark) {
  if (mark.is_null()) return file;
  return file + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

}  // namespace

Status check_yaml_shape(const std::string& text, const std::string& file_name,
                        const YamlLimits& limits) {
  if (text.size() > limits.max_bytes) {
    return Status(Stage::Config, file_name + ": file is " + std::to_string(text.size()) +
                                     " bytes, the limit for a policy file is " +
                                     std::to_string(limits.max_bytes));
  }
  std::istringstream stream(text);
  ShapeChecker checker(limits);
  try {
    YAML::Parser parser(stream);
    while (parser.HandleNextDocument(checker)) {
    }
  } catch (const ShapeError& e) {
    return Status(Stage::Config, where(file_name, e.mark) + ": " + e.message);
  } catch (const YAML::Exception& e) {
    return Status(Stage::Config, where(file_name, e.mark) + ": YAML syntax error: " + e.msg);
  } catch (const std::exception& e) {
    return Status(Stage::Config, file_name + ": cannot read YAML: " + e.what());
  }
  return Status();
}

}  // namespace clport::policy_detail
