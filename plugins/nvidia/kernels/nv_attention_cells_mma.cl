// Decode attention of a step over several sequences on the tensor cores: ROPE_ATTENTION_CELLS over
// an F16 cache, as nv_attention_cells.cl's kernels compute it (the same work-groups, key ranges,
// partial results and in-kernel merge), for head sizes 64 and 128.
//
// nv_attention_cells.cl scores and sums on the CUDA cores, a multiply-add per cached element and
// query head: at 64 sequences of 600 cells (8B shape, H100) about half its time is those
// instructions, the rest the cache's bytes (the kernel with the products removed took 12% less
// of the whole decode step). Here each of the 4 warps of a work-group walks its own tiles of 16
// keys (tile i of the range goes to warp i % 4), with mma.sync m16n8k16 (f16 in, f32 accumulate):
//  - scores: the group's query heads are the A rows (at most 8 of the 16; the rest zero), the
//    keys the B columns, 8 a product; the head dims of a product are permuted so that lane
//    (g, t) reads dims t HD/4 .. t HD/4 + HD/4 - 1 of key g's row as whole 16-byte words: any
//    order of the dims gives the same dot product, and the queries' A words follow it. Each
//    query goes in as an f16 pair hi + lo (22 bits), as in nv_attention_mma.cl;
//  - softmax online per warp, each lane holding its head's running max and its part of the sum;
//  - values: the probabilities' C fragments are the A fragments of the second product (in f16,
//    as nv_attention_mma.cl: an NMSE of about 4e-8), the value rows the B operand, output dims
//    permuted so that lane (g, t) reads dims g HD/8 .. g HD/8 + HD/8 - 1 of its four keys'
//    rows, pairing the halves of two keys by byte permutes.
// The warps' (max, sum, output) meet in local memory at the end, in the partial form of
// attention_merge.cl; nv_dec_merge combines the ranges as in nv_attention_cells.cl.
// Without inline PTX (a spoofed identity on PoCL, where the conformance suite checks this file),
// the warp's product and butterfly are emulated through local memory, with the same fragment
// layouts: every trip of the key loop is taken by the whole group, so that their barriers are met
// by every work-item (a warp whose tile lies past the range scores only masked keys).
// clport-requires: nv_ptx.cl
// clport-requires: nv_attention_cells.cl

#if NV_DEC_HD == 64 || NV_DEC_HD == 128

#define NV_DCM_WARPS (NV_DEC_WG / 32)
#define NV_DCM_KW (NV_DEC_HD / 8)   // 32-bit words of a key row a lane scores (HD / 4 dims)
#define NV_DCM_VH (NV_DEC_HD / 8)   // dims of a value row a lane sums: one per output tile
#define NV_DCM_VW (NV_DCM_VH / 2)   // their 32-bit words
#define NV_DCM_KS (NV_DEC_HD / 16)  // k-steps of a score product

// Half j of the words of key a and of key b as one f16x2 word (key a's in the low half).
inline uint nv_dcm_pair(uint a, uint b, int j) {
  return (j & 1) ? (a >> 16) | (b & 0xFFFF0000u) : (a & 0xFFFFu) | (b << 16);
}

// n_ 32-bit words from src_ (16-byte aligned) into the array dst_.
#define NV_DCM_LOAD(dst_, src_, n_)                                                      \
  _Pragma("unroll") for (int i_ = 0; i_ < (n_) / 4; ++i_) {                             \
    const uint4 v_ = ((const global uint4*)(src_))[i_];                                  \
    dst_[4 * i_] = v_.x;                                                                 \
    dst_[4 * i_ + 1] = v_.y;                                                             \
    dst_[4 * i_ + 2] = v_.z;                                                             \
    dst_[4 * i_ + 3] = v_.w;                                                             \
  }

#if defined(NV_PTX) && NV_PTX
#define NV_DCM_SCRATCH
#define NV_DCM_MMA(a, b0, b1, c) nv_mma_f16(a, b0, b1, c)
#define NV_DCM_SHFL(v, lanes) nv_shfl_xor(v, lanes)
#else
// Words a warp's emulated product stages: a lane's four A words and two B words.
#define NV_DCM_LANE_WORDS 6
#define NV_DCM_SCRATCH local uint dcm_scratch[NV_DEC_WG * NV_DCM_LANE_WORDS];
#define NV_DCM_MMA(a, b0, b1, c) nv_dcm_mma(a, b0, b1, c, dcm_scratch)
#define NV_DCM_SHFL(v, lanes) nv_dcm_shfl(v, lanes, dcm_scratch)

// Half h (0 low, 1 high) of a staged word as a float.
inline float nv_dcm_half(local const uint* words, int at, int h) {
  const uint w = words[at];
  return vload_half(h, (const private half*)&w);
}

// mma.sync m16n8k16 (f16 in, f32 accumulate) of this work-item's warp: A row r, column k is half
// k % 2 of word (r >= 8) + 2 (k >= 8) of lane 4 (r % 8) + (k % 8) / 2; B row k, column n half k % 2
// of word (k >= 8) of lane 4 n + (k % 8) / 2; C element e of lane (g, t) is row g + 8 (e >= 2),
// column 2 t + e % 2.
inline float4 nv_dcm_mma(uint4 a, uint b0, uint b1, float4 c, local uint* scratch) {
  const int lid = get_local_id(0), lane = lid % 32, g = lane / 4, t = lane % 4;
  local uint* w = scratch + (lid - lane) * NV_DCM_LANE_WORDS;
  barrier(CLK_LOCAL_MEM_FENCE);
  w[lane * NV_DCM_LANE_WORDS] = a.x;
  w[lane * NV_DCM_LANE_WORDS + 1] = a.y;
  w[lane * NV_DCM_LANE_WORDS + 2] = a.z;
  w[lane * NV_DCM_LANE_WORDS + 3] = a.w;
  w[lane * NV_DCM_LANE_WORDS + 4] = b0;
  w[lane * NV_DCM_LANE_WORDS + 5] = b1;
  barrier(CLK_LOCAL_MEM_FENCE);
  float d[4];
  for (int e = 0; e < 4; ++e) {
    const int row = g + (e >= 2 ? 8 : 0), col = 2 * t + e % 2;
    float sum = 0.0f;
    for (int k = 0; k < 16; ++k) {
      const int a_at = (4 * (row % 8) + (k % 8) / 2) * NV_DCM_LANE_WORDS + (row >= 8) + 2 * (k >= 8);
      const int b_at = (4 * col + (k % 8) / 2) * NV_DCM_LANE_WORDS + 4 + (k >= 8);
      sum = fma(nv_dcm_half(w, a_at, k % 2), nv_dcm_half(w, b_at, k % 2), sum);
    }
    d[e] = sum;
  }
  return c + (float4)(d[0], d[1], d[2], d[3]);
}

// v of the lane of this warp whose index differs in the bits of `lanes`.
inline float nv_dcm_shfl(float v, int lanes, local uint* scratch) {
  const int lid = get_local_id(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  scratch[lid] = as_uint(v);
  barrier(CLK_LOCAL_MEM_FENCE);
  return as_float(scratch[(lid - lid % 32) + ((lid % 32) ^ lanes)]);
}
#endif

kernel __attribute__((reqd_work_group_size(NV_DEC_WG, 1, 1))) void nv_attention_cells_mma_f16(
    const global uchar* q, ulong q_off, ulong q_nb1, ulong q_nb2, const global uchar* cache, ulong k_off,
    ulong v_off, ulong kv_nb1, ulong kv_nb2, ulong seq_bytes, const global uchar* cells_base, ulong cells_off,
    global uchar* out, ulong out_off, int n_head, float scale, int n_rot, int neox, float freq_base,
    float freq_scale, const global uchar* ff, ulong ff_off, int has_ff, int window, int n_split,
    global float* part, volatile global int* arrivals) {
  local float qs[NV_DEC_R * NV_DEC_HD];
  // Each warp's (max, sum, output dims) per head, as a partial row of attention_merge.cl.
  local float warp_rows[NV_DCM_WARPS * NV_DEC_R * (NV_DEC_HD + 2)];
  local int last;
  NV_DCM_SCRATCH
  const int split = get_group_id(0), g = get_group_id(1), t = get_group_id(2), lid = get_local_id(0);
  const int warp = lid / 32, lane = lid % 32, fg = lane / 4, ft = lane % 4;
  const global int* cells = (const global int*)(cells_base + cells_off);
  const int seq = cells[2 * t], qpos = cells[2 * t + 1];
  nv_dec_query(q + q_off, q_nb1, q_nb2, g, t, qpos, n_rot, neox, freq_base, freq_scale, ff, ff_off, has_ff, qs);

  // A words of step s: head fg's dims ft HD/4 + 4s + (0, 1) and + (2, 3), hi and lo parts.
  uint qa_hi[NV_DCM_KS][2], qa_lo[NV_DCM_KS][2];
  #pragma unroll
  for (int s = 0; s < NV_DCM_KS; ++s) {
    uint2 x = (uint2)(0u), y = (uint2)(0u);
    if (fg < NV_DEC_R) {
      const local float* qr = qs + fg * NV_DEC_HD + ft * (NV_DEC_HD / 4) + 4 * s;
      x = nv_f16x2_split(qr[0], qr[1]);
      y = nv_f16x2_split(qr[2], qr[3]);
    }
    qa_hi[s][0] = x.x;
    qa_lo[s][0] = x.y;
    qa_hi[s][1] = y.x;
    qa_lo[s][1] = y.y;
  }

  const int2 range = nv_dec_range(qpos, window, n_split, split);
  const int begin = range.x, end = range.y;
  const global uchar* kbase = cache + k_off + (size_t)seq * seq_bytes + (size_t)g * kv_nb1;
  const global uchar* vbase = kbase + (v_off - k_off);

  float m = -INFINITY, l = 0.0f;  // head fg's running max, and this lane's part of its sum
  float o[NV_DCM_VH][2];          // head fg's output dims (2 ft) HD/8 + j and (2 ft + 1) HD/8 + j
  #pragma unroll
  for (int j = 0; j < NV_DCM_VH; ++j) o[j][0] = o[j][1] = 0.0f;

  for (int base = begin; base < end; base += 16 * NV_DCM_WARPS) {
    // This warp's tile; keys past the range are read as its last one and masked.
    const int c0 = base + 16 * warp;
    uint ka[NV_DCM_KW], kb[NV_DCM_KW], v[4][NV_DCM_VW];
    NV_DCM_LOAD(ka, kbase + (size_t)min(c0 + fg, end - 1) * kv_nb2 + ft * (NV_DEC_HD / 2), NV_DCM_KW)
    NV_DCM_LOAD(kb, kbase + (size_t)min(c0 + 8 + fg, end - 1) * kv_nb2 + ft * (NV_DEC_HD / 2), NV_DCM_KW)
    #pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int key = c0 + 2 * ft + (r & 1) + (r >> 1) * 8;
      NV_DCM_LOAD(v[r], vbase + (size_t)min(key, end - 1) * kv_nb2 + fg * (NV_DEC_HD / 4), NV_DCM_VW)
    }
    // Scores of keys c0 + (2 ft, 2 ft + 1) (sa) and c0 + 8 + (2 ft, 2 ft + 1) (sb) for head fg.
    float4 sa = (float4)(0.0f), sb = (float4)(0.0f);
    #pragma unroll
    for (int s = 0; s < NV_DCM_KS; ++s) {
      const uint4 hi = (uint4)(qa_hi[s][0], 0u, qa_hi[s][1], 0u), lo = (uint4)(qa_lo[s][0], 0u, qa_lo[s][1], 0u);
      sa = NV_DCM_MMA(hi, ka[2 * s], ka[2 * s + 1], sa);
      sa = NV_DCM_MMA(lo, ka[2 * s], ka[2 * s + 1], sa);
      sb = NV_DCM_MMA(hi, kb[2 * s], kb[2 * s + 1], sb);
      sb = NV_DCM_MMA(lo, kb[2 * s], kb[2 * s + 1], sb);
    }
    const int k0 = c0 + 2 * ft;
    float s4[4] = {k0 < end ? sa.x * scale : -INFINITY, k0 + 1 < end ? sa.y * scale : -INFINITY,
                   k0 + 8 < end ? sb.x * scale : -INFINITY, k0 + 9 < end ? sb.y * scale : -INFINITY};
    float tile_max = fmax(fmax(s4[0], s4[1]), fmax(s4[2], s4[3]));
    tile_max = fmax(tile_max, NV_DCM_SHFL(tile_max, 1));
    tile_max = fmax(tile_max, NV_DCM_SHFL(tile_max, 2));
    // -inf only while this warp has had no key in the range (its tiles past the range).
    const float m_new = fmax(m, tile_max);
    const float corr = m_new == -INFINITY ? 1.0f : exp(m - m_new);
    float p[4];
    #pragma unroll
    for (int i = 0; i < 4; ++i) p[i] = s4[i] == -INFINITY ? 0.0f : exp(s4[i] - m_new);
    l = l * corr + (p[0] + p[1]) + (p[2] + p[3]);
    m = m_new;
    const uint4 pa = (uint4)(nv_f16x2(p[0], p[1]), 0u, nv_f16x2(p[2], p[3]), 0u);
    #pragma unroll
    for (int j = 0; j < NV_DCM_VH; ++j) {
      const uint b0 = nv_dcm_pair(v[0][j / 2], v[1][j / 2], j), b1 = nv_dcm_pair(v[2][j / 2], v[3][j / 2], j);
      const float4 c = NV_DCM_MMA(pa, b0, b1, (float4)(o[j][0] * corr, o[j][1] * corr, 0.0f, 0.0f));
      o[j][0] = c.x;
      o[j][1] = c.y;
    }
  }
  l += NV_DCM_SHFL(l, 1);
  l += NV_DCM_SHFL(l, 2);

  if (fg < NV_DEC_R) {
    local float* row = warp_rows + (warp * NV_DEC_R + fg) * (NV_DEC_HD + 2);
    if (ft == 0) {
      row[0] = m;
      row[1] = l;
    }
    #pragma unroll
    for (int j = 0; j < NV_DCM_VH; ++j) {
      row[2 + 2 * ft * NV_DCM_VH + j] = o[j][0];
      row[2 + (2 * ft + 1) * NV_DCM_VH + j] = o[j][1];
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // Each warp's weight per head (a warp without keys has max -inf and weighs nothing), once.
  local float weights[NV_DCM_WARPS * NV_DEC_R], head_max[NV_DEC_R], head_sum[NV_DEC_R];
  if (lid < NV_DEC_R) {
    float mx = -INFINITY, sum = 0.0f;
    for (int w = 0; w < NV_DCM_WARPS; ++w) mx = fmax(mx, warp_rows[(w * NV_DEC_R + lid) * (NV_DEC_HD + 2)]);
    for (int w = 0; w < NV_DCM_WARPS; ++w) {
      const local float* row = warp_rows + (w * NV_DEC_R + lid) * (NV_DEC_HD + 2);
      const float weight = row[0] == -INFINITY ? 0.0f : exp(row[0] - mx);
      weights[w * NV_DEC_R + lid] = weight;
      sum = fma(row[1], weight, sum);
    }
    head_max[lid] = mx;
    head_sum[lid] = sum;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // The warps' rows combined per (head, dim) in warp order.
  for (int e = lid; e < NV_DEC_R * NV_DEC_HD; e += NV_DEC_WG) {
    const int r = e / NV_DEC_HD, d = e % NV_DEC_HD, h = g * NV_DEC_R + r;
    float acc = 0.0f;
    for (int w = 0; w < NV_DCM_WARPS; ++w)
      acc = fma(warp_rows[(w * NV_DEC_R + r) * (NV_DEC_HD + 2) + 2 + d], weights[w * NV_DEC_R + r], acc);
    if (n_split == 1) {
      ((global float*)(out + out_off))[((size_t)t * n_head + h) * NV_DEC_HD + d] = acc / head_sum[r];
    } else {
      global float* pg = part + (((size_t)t * n_head + h) * n_split + split) * (NV_DEC_HD + 2);
      if (d == 0) {
        pg[0] = head_max[r];
        pg[1] = head_sum[r];
      }
      pg[2 + d] = acc;
    }
  }
  if (n_split > 1)
    nv_dec_merge(part, arrivals, n_split, get_num_groups(1), n_head, g, t, (global float*)(out + out_off), &last);
}

#endif
