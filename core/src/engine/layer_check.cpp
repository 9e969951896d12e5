#include <algorithm>
#include <cmath>

#include "engine/model_checks.h"
#include "common/nmse.h"

namespace clport {
namespace {

// Captures the hidden state of every layer of one forward pass, as host floats. A pass runs the
// tokens in steps of the model's batch (which differs between a GPU and the CPU reference), and
// the hook sees each step: the rows of all steps are kept, in token order.
struct Capture {
  std::vector<std::vector<float>> per_layer;

  LlamaModel::LayerHook hook(Backend& backend) {
    return [this, &backend](int layer, const TensorRef& hidden, int n_tokens) -> Status {
      if (static_cast<size_t>(layer) >= per_layer.size()) per_layer.resize(layer + 1);
      auto& out = per_layer[layer];
      const size_t at = out.size(), count = static_cast<size_t>(hidden.ne[0]) * n_tokens;
      out.resize(at + count);
      return backend.download(hidden, out.data() + at, count * sizeof(float));
    };
  }
};

}  // namespace

double default_layer_threshold(int layer, int n_layer) {
  return 1e-3 + 9e-3 * static_cast<double>(layer + 1) / static_cast<double>(n_layer + 1);
}

Result<LayerCheckReport> compare_layers(LlamaModel& model, LlamaModel& reference,
                                        const std::vector<int32_t>& tokens, uint32_t n_past,
                                        double threshold) {
  Capture got, want;
  model.set_layer_hook(got.hook(model.backend()));
  reference.set_layer_hook(want.hook(reference.backend()));
  std::vector<float> logits_got, logits_want;
  Status a = model.forward(tokens, n_past, false, logits_got);
  Status b = reference.forward(tokens, n_past, false, logits_want);
  model.set_layer_hook({});
  reference.set_layer_hook({});
  if (!a.ok()) return a;
  if (!b.ok()) return b;

  LayerCheckReport report;
  const int n_layer = static_cast<int>(model.hparams().n_layer);
  const size_t n = std::min(got.per_layer.size(), want.per_layer.size());
  for (size_t i = 0; i < n; ++i) {
    const auto& g = got.per_layer[i];
    const auto& w = want.per_layer[i];
    LayerDivergence d;
    d.layer = static_cast<int>(i);
    if (g.size() != w.size())
      return Status(Stage::Internal, "layer " + std::to_string(i) + ": " + std::to_string(g.size()) +
                                         " values captured against " + std::to_string(w.size()) +
                                         " from the reference");
    d.nmse = nmse(w.data(), g.data(), g.size());
    for (size_t j = 0; j < g.size(); ++j) {
      const double e = std::fabs(double(g[j]) - double(w[j]));
      d.max_abs_error = std::isnan(e) ? INFINITY : std::max(d.max_abs_error, e);
    }
    d.threshold = threshold > 0 ? threshold : default_layer_threshold(d.layer, n_layer);
    if (report.first_bad_layer < 0 && !(d.nmse <= d.threshold)) report.first_bad_layer = d.layer;
    report.layers.push_back(d);
  }
  return report;
}

}  // namespace clport
