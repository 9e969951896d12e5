// The last stage of `clport check`: one tiny kernel built from source, run and compared, so that
// "usable" also covers the compiler and the arithmetic, not only context and queue creation.
#pragma once

#include "runtime/device_context.h"
#include "clport/export.h"
#include "clport/status.h"

namespace clport {

// Builds clport_check_axpy (y = a * x + y over 1024 floats) from source on ctx's device, runs it
// on ctx's queue and compares every element with the host's result, which is exact (the inputs
// are small multiples of 1/4, so a fused or unfused multiply-add gives the same floats).
// Failures: ProgramBuild (with the build log), Device (buffer, argument, enqueue or read),
// WrongResult (naming the first wrong element). Everything created is released again.
CLPORT_API Status run_device_smoke_test(DeviceContext& ctx);

}  // namespace clport
