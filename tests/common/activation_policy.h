// A policy file that puts the device on one activation path: float activations everywhere
// (`precision: fp32`) or the generic plugin's integer GEMV on 8-bit activations (`int_dot: on`),
// optionally with its packed GEMV layout.
#pragma once

#include <fstream>
#include <string>

namespace clport::test {

// Logits of a model on 8-bit activations against the reference that rounds them the same way.
// Each op matches that reference to 1e-6 (conformance), but across a model an ulp of difference
// upstream (summation order) moves a value across a rounding boundary of its 8-bit code now and
// then (x / d is up to 127, so 1 ulp of x is ~1e-5 of a code step), and one such flip gave logit
// NMSE 2e-5 .. 6e-5 on the e2e models; a wrong kernel gives logits unrelated to the reference's.
constexpr double kIntegerPathLogitNmse = 5e-4;

inline void write_activation_policy(const std::string& path, bool integer, bool packed = false) {
  std::ofstream yaml(path);
  yaml << "version: 1\n" << (integer ? "" : "precision: fp32\n") << "plugins:\n  generic:\n"
       << "    gemv_packed: " << (packed ? 1 : 0) << "\n    int_dot: " << (integer ? "on" : "off") << "\n";
}

}  // namespace clport::test
