// GGUF tensor infos and the data layout: shapes, types, sizes and offsets, all checked.
#include <algorithm>
#include <string>

#include "checked_sizes.h"
#include "gguf_parser.h"

namespace clport {

namespace {

std::string known_type_list() {
  std::string out;
  for (DType d : kWeightDTypes) {
    if (!out.empty()) out += ", ";
    out += std::string(dtype_name(d));
  }
  return out + ", i32";
}

}  // namespace

Status GgufParser::parse_tensor_infos(uint64_t n_tensors) {
  // The count is bounded by the header check; the cap keeps a lying count from reserving much.
  file_.tensors_.reserve(static_cast<size_t>(std::min<uint64_t>(n_tensors, 4096)));
  for (uint64_t i = 0; i < n_tensors; ++i) {
    GgufTensorInfo info;
    CLPORT_RETURN_IF_ERROR(parse_one_tensor_info(info, i));
    file_.tensors_.push_back(std::move(info));
  }
  return Status::ok_status();
}

Status GgufParser::parse_one_tensor_info(GgufTensorInfo& info, uint64_t index) {
  const uint64_t name_offset = cur_.pos();
  const std::string which = "tensor #" + std::to_string(index);
  std::string_view name;
  CLPORT_RETURN_IF_ERROR(parse_string(name, which + " name", kGgufMaxTensorNameLength));
  if (name.empty()) return fail(which + " has an empty name", name_offset);
  info.name = std::string(name);
  // Keyed by the view into the mapping, which (unlike info.name) never moves.
  if (!file_.tensor_index_.emplace(name, static_cast<size_t>(index)).second) {
    return fail("duplicate tensor name '" + info.name + "'", name_offset);
  }
  const std::string label = "tensor '" + info.name + "'";

  const uint64_t dims_offset = cur_.pos();
  uint32_t n_dims = 0;
  if (!cur_.read(n_dims)) return fail(label + ": n_dims runs past the end of the file", dims_offset);
  if (n_dims < 1 || n_dims > static_cast<uint32_t>(kGgufMaxDims)) {
    return fail(label + ": n_dims " + std::to_string(n_dims) + " is out of range (1.." +
                    std::to_string(kGgufMaxDims) + ")",
                dims_offset);
  }
  info.n_dims = static_cast<int>(n_dims);
  int64_t n_elements = 1;
  for (uint32_t d = 0; d < n_dims; ++d) {
    const uint64_t at = cur_.pos();
    int64_t ne = 0;
    if (!cur_.read(ne)) return fail(label + ": dimensions run past the end of the file", at);
    if (ne <= 0) {
      return fail(label + ": dimension " + std::to_string(d) + " is " + std::to_string(ne) +
                      " (must be positive)",
                  at);
    }
    if (__builtin_mul_overflow(n_elements, ne, &n_elements)) {
      return fail(label + ": element count overflows (dimension " + std::to_string(d) + " = " +
                      std::to_string(ne) + ")",
                  at);
    }
    info.ne[d] = ne;
  }

  const uint64_t type_offset = cur_.pos();
  int32_t type_id = 0;
  if (!cur_.read(type_id)) return fail(label + ": type runs past the end of the file", type_offset);
  const auto traits = dtype_traits(type_id);
  if (!traits) {
    return fail(label + ": unknown or unsupported tensor type " + std::to_string(type_id) +
                    " (clport knows " + known_type_list() + ")",
                type_offset);
  }
  info.dtype = traits->dtype;
  int64_t row = 0;
  const auto row_check = gguf_detail::checked_row_bytes(info.dtype, info.ne[0], row);
  if (row_check == gguf_detail::RowCheck::NotBlockMultiple) {
    return fail(label + ": row length " + std::to_string(info.ne[0]) +
                    " is not a multiple of the " + std::string(traits->name) + " block size " +
                    std::to_string(traits->block_size),
                dims_offset);
  }
  int64_t bytes = 0;
  if (row_check == gguf_detail::RowCheck::Overflow ||
      __builtin_mul_overflow(row, n_elements / info.ne[0], &bytes)) {
    return fail(label + ": byte size overflows (" + std::to_string(n_elements) + " elements of " +
                    std::string(traits->name) + ")",
                dims_offset);
  }
  info.bytes = static_cast<uint64_t>(bytes);

  const uint64_t offset_at = cur_.pos();
  if (!cur_.read(info.offset)) return fail(label + ": offset runs past the end of the file", offset_at);
  return Status::ok_status();
}

Status GgufParser::place_tensor_data() {
  // The data block starts at the next multiple of the alignment after the tensor infos.
  const uint64_t a = file_.alignment_;
  uint64_t data_offset = 0;
  if (__builtin_add_overflow(cur_.pos(), a - 1, &data_offset)) {
    return fail_here("data block offset overflows");
  }
  data_offset -= data_offset % a;
  file_.data_offset_ = data_offset;
  if (file_.tensors_.empty()) return Status::ok_status();  // padding may legitimately be absent
  if (data_offset > cur_.size()) {
    return fail("truncated file: the tensor data block starts at byte " +
                    std::to_string(data_offset) + " but the file has " +
                    std::to_string(cur_.size()) + " bytes",
                cur_.pos());
  }
  const uint64_t data_size = cur_.size() - data_offset;
  uint64_t previous_end = 0;
  const GgufTensorInfo* previous = nullptr;
  for (auto& t : file_.tensors_) {
    const std::string label = "tensor '" + t.name + "'";
    if (t.offset % a != 0) {
      return fail(label + ": data offset " + std::to_string(t.offset) +
                      " is not a multiple of the alignment " + std::to_string(a),
                  data_offset);
    }
    if (previous != nullptr && t.offset < previous->offset) {
      return fail(label + ": data offset " + std::to_string(t.offset) + " is out of order (before '" +
                      previous->name + "' at " + std::to_string(previous->offset) + ")",
                  data_offset);
    }
    if (t.offset < previous_end) {
      return fail(label + ": data at offset " + std::to_string(t.offset) + " overlaps '" +
                      previous->name + "' (which ends at " + std::to_string(previous_end) + ")",
                  data_offset);
    }
    uint64_t end = 0;
    if (__builtin_add_overflow(t.offset, t.bytes, &end) || end > data_size) {
      return fail("truncated data: " + label + " needs bytes " + std::to_string(t.offset) + ".." +
                      std::to_string(t.offset) + "+" + std::to_string(t.bytes) +
                      " of the data block, which has " + std::to_string(data_size) + " bytes",
                  data_offset);
    }
    t.data = cur_.base() + data_offset + t.offset;
    previous_end = end;
    previous = &t;
  }
  return Status::ok_status();
}

}  // namespace clport
