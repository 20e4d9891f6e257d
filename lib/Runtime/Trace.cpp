//===- Trace.cpp - Chrome trace-event output of a run -----------*- C++ -*-===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Each device records its collective calls and the compute spans between
// them; Mesh::writeTrace writes them as complete ("X") events, one thread per
// device, in the JSON object format that chrome://tracing and Perfetto load.
//
//===----------------------------------------------------------------------===//

#include "RuntimeImpl.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

using namespace tessera::rt;
using namespace tessera::rt::detail;

void MeshImpl::traceCall(int64_t device, const char *site, CollectiveKind op,
                         double beginUs, double endUs, int64_t bytes,
                         int64_t groupSize) {
  DeviceState &state = devices[device];
  state.trace.push_back(
      TraceEvent{"compute", state.lastEventEndUs, beginUs, -1, 0, 0});
  state.trace.push_back(
      TraceEvent{site, beginUs, endUs, static_cast<int>(op), bytes, groupSize});
  state.lastEventEndUs = endUs;
}

void MeshImpl::traceEnd(int64_t device, double endUs) {
  DeviceState &state = devices[device];
  state.trace.push_back(
      TraceEvent{"compute", state.lastEventEndUs, endUs, -1, 0, 0});
  state.lastEventEndUs = endUs;
}

/// Appends `text` as a JSON string.
static void appendString(std::string &json, const std::string &text) {
  json += '"';
  for (char c : text) {
    switch (c) {
    case '"':
      json += "\\\"";
      break;
    case '\\':
      json += "\\\\";
      break;
    case '\n':
      json += "\\n";
      break;
    case '\t':
      json += "\\t";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char escaped[8];
        std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
        json += escaped;
      } else {
        json += c;
      }
    }
  }
  json += '"';
}

/// A time in microseconds, to the nanosecond.
static std::string formatMicros(double us) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.3f", us);
  return buffer;
}

bool MeshImpl::writeTrace(const std::string &path, std::string &error) const {
  std::string json = "{\"traceEvents\":[\n";
  json += "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"tid\":0,"
          "\"args\":{\"name\":\"tessera mesh\"}}";
  for (int64_t d = 0; d < numDevices; ++d) {
    std::string tid = std::to_string(d);
    json +=
        ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":" + tid +
        ",\"args\":{\"name\":\"device " + tid + "\"}}";
    json += ",\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":0,"
            "\"tid\":" +
            tid + ",\"args\":{\"sort_index\":" + tid + "}}";
  }
  for (int64_t d = 0; d < numDevices; ++d) {
    std::string tid = std::to_string(d);
    for (const TraceEvent &event : devices[d].trace) {
      json += ",\n{\"name\":";
      appendString(json, event.name);
      json += ",\"cat\":\"";
      json += event.op < 0 ? "compute" : "collective";
      json += "\",\"ph\":\"X\",\"ts\":" + formatMicros(event.beginUs) +
              ",\"dur\":" + formatMicros(event.endUs - event.beginUs) +
              ",\"pid\":0,\"tid\":" + tid;
      if (event.op >= 0) {
        json += ",\"args\":{\"op\":\"";
        json += getCollectiveKindName(static_cast<CollectiveKind>(event.op));
        json += "\",\"bytes\":" + std::to_string(event.bytes) +
                ",\"group_size\":" + std::to_string(event.groupSize) + "}";
      }
      json += "}";
    }
  }
  if (!firstError.empty()) {
    json += ",\n{\"name\":\"mesh failed\",\"cat\":\"error\",\"ph\":\"i\","
            "\"s\":\"g\",\"ts\":" +
            formatMicros(failureUs) +
            ",\"pid\":0,\"tid\":0,\"args\":{\"error\":";
    appendString(json, firstError);
    json += "}}";
  }
  json += "\n],\"displayTimeUnit\":\"ms\"}\n";

  std::FILE *file = std::fopen(path.c_str(), "wb");
  if (!file) {
    error = "cannot open \"" + path + "\": " + std::strerror(errno);
    return false;
  }
  bool ok = std::fwrite(json.data(), 1, json.size(), file) == json.size();
  ok = std::fclose(file) == 0 && ok;
  if (!ok) {
    error = "cannot write \"" + path + "\"";
    return false;
  }
  return true;
}
