#include "conformance_operands.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "quant/quant.h"

namespace clport::conformance::detail {
namespace {

// Differs per operand (salt), so bytes copied from one operand's guard into another's are seen.
uint8_t sentinel(size_t i, uint8_t salt) { return static_cast<uint8_t>(0xA5u ^ salt ^ (i * 29u)); }

std::array<int64_t, 4> dense_strides(DType d, const std::array<int64_t, 4>& ne) {
  const auto& tr = traits(d);
  std::array<int64_t, 4> nb{};
  nb[0] = tr.block_bytes;
  nb[1] = tr.block_bytes * (ne[0] / tr.block_size);
  nb[2] = nb[1] * ne[1];
  nb[3] = nb[2] * ne[2];
  return nb;
}

// Bytes from element 0 to the end of the last element.
int64_t extent(DType d, const std::array<int64_t, 4>& ne, const std::array<int64_t, 4>& nb) {
  const auto& tr = traits(d);
  int64_t last = 0;
  for (int i = 1; i < 4; ++i) last += (ne[i] - 1) * nb[i];
  return last + (ne[0] / tr.block_size - 1) * nb[0] + tr.block_bytes;
}

void fill_source(Operand& op, uint8_t* dst, std::mt19937_64& rng) {
  const OperandSpec& s = op.spec;
  const int64_t n = s.ne[0] * s.ne[1] * s.ne[2] * s.ne[3];
  if (s.fill == Fill::Cells) {
    std::vector<int32_t> positions(static_cast<size_t>(s.positions));
    for (size_t i = 0; i < positions.size(); ++i) positions[i] = static_cast<int32_t>(i);
    std::shuffle(positions.begin(), positions.end(), rng);
    std::uniform_int_distribution<int32_t> sequence(0, static_cast<int32_t>(s.index_limit - 1));
    for (int64_t t = 0; t < s.ne[1]; ++t) {
      const int32_t cell[2] = {sequence(rng), positions[static_cast<size_t>(t) % positions.size()]};
      std::memcpy(dst + 8 * t, cell, 8);
    }
    return;
  }
  if (s.fill == Fill::Indices) {
    std::uniform_int_distribution<int32_t> pick(0, static_cast<int32_t>(s.index_limit - 1));
    for (int64_t i = 0; i < n; ++i) {
      const int32_t v = pick(rng);
      std::memcpy(dst + 4 * i, &v, 4);
    }
    return;
  }
  std::normal_distribution<float> normal(0.0f, s.scale);
  std::uniform_real_distribution<float> factor(1.0f, 8.0f);
  std::vector<float> values(static_cast<size_t>(n));
  for (float& v : values) v = s.fill == Fill::Factors ? factor(rng) : normal(rng);
  if (s.dtype == DType::F32 || s.dtype == DType::F16) {
    // Element by element at the view's own offsets: a strided view (a slice of a fused Q/K/V
    // row) must read these values, not the sentinel bytes between its rows.
    const std::vector<int64_t> offsets = op.element_offsets();
    uint8_t* base = dst - op.tensor_offset;
    for (size_t i = 0; i < offsets.size(); ++i) {
      if (s.dtype == DType::F32) {
        std::memcpy(base + offsets[i], &values[i], 4);
      } else {
        const uint16_t h = float_to_half(values[i]);
        std::memcpy(base + offsets[i], &h, 2);
      }
    }
  } else {  // quantized: row by row with the reference quantizer
    const int64_t rows = n / s.ne[0];
    for (int64_t r = 0; r < rows; ++r) {
      Status st = quantize_row(s.dtype, values.data() + r * s.ne[0], dst + r * op.nb[1], s.ne[0]);
      (void)st;  // shapes come from the catalogue: whole blocks by construction
    }
  }
}

}  // namespace

Operand make_operand(const OperandSpec& spec, bool is_output, std::mt19937_64& rng) {
  Operand op;
  op.spec = spec;
  const bool dense = spec.nb == std::array<int64_t, 4>{0, 0, 0, 0};
  op.nb = dense ? dense_strides(spec.dtype, spec.ne) : spec.nb;
  const int64_t region = spec.region_bytes > 0 ? spec.region_bytes
                                               : spec.view_offset + extent(spec.dtype, spec.ne, op.nb);
  op.tensor_offset = kGuardBytes + spec.view_offset;
  op.initial.resize(static_cast<size_t>(region + 2 * kGuardBytes));
  const auto salt = static_cast<uint8_t>(rng() | 1u);
  for (size_t i = 0; i < op.initial.size(); ++i) op.initial[i] = sentinel(i, salt);
  if (!is_output || spec.prefilled) fill_source(op, op.initial.data() + op.tensor_offset, rng);
  return op;
}

cpu::HostTensor Operand::host_view(std::vector<uint8_t>& bytes) const {
  cpu::HostTensor t;
  t.dtype = spec.dtype;
  t.ne = spec.ne;
  t.nb = nb;
  t.data = bytes.data() + tensor_offset;
  return t;
}

clport_tensor Operand::device_view(bool with_buffer) const {
  clport_tensor t{};
  t.dtype = static_cast<int32_t>(spec.dtype);
  t.n_dims = 4;
  for (int i = 0; i < 4; ++i) {
    t.ne[i] = spec.ne[i];
    t.nb[i] = nb[i];
  }
  t.buffer = with_buffer ? buffer : nullptr;
  t.offset = static_cast<uint64_t>(tensor_offset);
  t.layout = nullptr;
  return t;
}

std::vector<int64_t> Operand::element_offsets() const {
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(spec.ne[0] * spec.ne[1] * spec.ne[2] * spec.ne[3]));
  for (int64_t i3 = 0; i3 < spec.ne[3]; ++i3)
    for (int64_t i2 = 0; i2 < spec.ne[2]; ++i2)
      for (int64_t i1 = 0; i1 < spec.ne[1]; ++i1)
        for (int64_t i0 = 0; i0 < spec.ne[0]; ++i0)
          out.push_back(tensor_offset + i0 * nb[0] + i1 * nb[1] + i2 * nb[2] + i3 * nb[3]);
  return out;
}

Status run_host_reference(const CaseSpec& spec, const std::vector<Operand>& src, const Operand& dst,
                          bool quantized_activations, HostReference* out) {
  out->src.clear();
  for (const auto& s : src) out->src.push_back(s.initial);
  out->dst = dst.initial;
  std::vector<cpu::HostTensor> views;
  for (size_t i = 0; i < src.size(); ++i) views.push_back(src[i].host_view(out->src[i]));
  cpu::OpParams params = spec.params;
  params.quantized_activations = quantized_activations;
  return cpu::run_op(spec.kind, views, dst.host_view(out->dst), params);
}

namespace {

bool block_type(DType d) { return traits(d).block_size > 1; }

// A block type's row starts (ne[0] elements each, blocks contiguous: a quantized KV cache).
std::vector<int64_t> row_offsets(const Operand& op) {
  std::vector<int64_t> out;
  const auto& ne = op.spec.ne;
  for (int64_t i3 = 0; i3 < ne[3]; ++i3)
    for (int64_t i2 = 0; i2 < ne[2]; ++i2)
      for (int64_t i1 = 0; i1 < ne[1]; ++i1) out.push_back(op.tensor_offset + i1 * op.nb[1] + i2 * op.nb[2] + i3 * op.nb[3]);
  return out;
}

}  // namespace

std::vector<float> gather_values(const Operand& op, const std::vector<uint8_t>& bytes) {
  std::vector<float> out;
  if (block_type(op.spec.dtype)) {  // decoded as every reader decodes it (dequantize_row)
    const int64_t n = op.spec.ne[0];
    std::vector<float> row(static_cast<size_t>(n));
    for (int64_t off : row_offsets(op)) {
      (void)dequantize_row(op.spec.dtype, bytes.data() + off, row.data(), n);  // whole blocks by construction
      out.insert(out.end(), row.begin(), row.end());
    }
    return out;
  }
  for (int64_t off : op.element_offsets()) {
    if (op.spec.dtype == DType::F16) {
      uint16_t h = 0;
      std::memcpy(&h, bytes.data() + off, 2);
      out.push_back(half_to_float(h));
    } else {
      float f = 0.0f;
      std::memcpy(&f, bytes.data() + off, 4);
      out.push_back(f);
    }
  }
  return out;
}

std::string check_untouched(const Operand& op, const std::vector<uint8_t>& bytes) {
  std::vector<bool> covered(bytes.size(), false);
  const int64_t es = traits(op.spec.dtype).block_bytes;
  if (block_type(op.spec.dtype)) {
    const int64_t row_bytes = op.spec.ne[0] / traits(op.spec.dtype).block_size * es;
    for (int64_t off : row_offsets(op))
      for (int64_t b = 0; b < row_bytes; ++b) covered[static_cast<size_t>(off + b)] = true;
  } else {
    for (int64_t off : op.element_offsets())
      for (int64_t b = 0; b < es; ++b) covered[static_cast<size_t>(off + b)] = true;
  }
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (covered[i] || bytes[i] == op.initial[i]) continue;
    std::ostringstream s;
    const int64_t rel = static_cast<int64_t>(i) - op.tensor_offset;
    s << "byte outside the output view was written (offset " << rel
      << " from element 0: " << (i < static_cast<size_t>(kGuardBytes) ? "leading guard"
                                 : i >= bytes.size() - kGuardBytes   ? "trailing guard"
                                                                     : "gap inside the view")
      << ")";
    return s.str();
  }
  return "";
}

std::string take_plugin_error(const clport_plugin& table, clport_plugin_error* error) {
  if (error == nullptr) return "plugin gave no error object";
  std::string m = table.error_message ? table.error_message(error) : "";
  if (table.release_error) table.release_error(error);
  return m;
}

}  // namespace clport::conformance::detail
