// Symbol visibility for libclport: every library is built with -fvisibility=hidden, so the public
// API is marked explicitly.
#pragma once

#if defined(_WIN32)
#if defined(CLPORT_BUILDING_CORE)
#define CLPORT_API __declspec(dllexport)
#else
#define CLPORT_API __declspec(dllimport)
#endif
#else
#define CLPORT_API __attribute__((visibility("default")))
#endif
