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

/// The length of the well-formed UTF-8 sequence at `p` (`n` bytes left), or
/// 0 if it is not one; `prefix` is then the length of its maximal
/// well-formed prefix (at least 1), which is replaced by one U+FFFD.
static size_t getUtf8Length(const unsigned char *p, size_t n, size_t &prefix) {
  unsigned char c = p[0];
  size_t length;
  // The range of the second byte (excluding overlong forms, surrogates and
  // code points above U+10FFFF); later bytes are 0x80..0xbf.
  unsigned char lo = 0x80, hi = 0xbf;
  if (c < 0x80)
    return 1;
  if (c >= 0xc2 && c <= 0xdf) {
    length = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    length = 3;
    if (c == 0xe0)
      lo = 0xa0;
    else if (c == 0xed)
      hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    length = 4;
    if (c == 0xf0)
      lo = 0x90;
    else if (c == 0xf4)
      hi = 0x8f;
  } else {
    prefix = 1;
    return 0;
  }
  size_t i = 1;
  for (; i < length && i < n; ++i) {
    unsigned char next = p[i];
    if (i == 1 ? (next < lo || next > hi) : (next < 0x80 || next > 0xbf))
      break;
  }
  if (i == length)
    return length;
  prefix = i;
  return 0;
}

/// Appends `text` as a JSON string: quotes, backslashes and control
/// characters escaped, and each ill-formed UTF-8 sequence (any bytes: a
/// site comes from the program, an error may quote a file name) replaced
/// by U+FFFD, so that the file is always valid JSON.
static void appendString(std::string &json, const std::string &text) {
  json += '"';
  const auto *bytes = reinterpret_cast<const unsigned char *>(text.data());
  size_t n = text.size();
  for (size_t i = 0; i < n;) {
    unsigned char c = bytes[i];
    size_t prefix = 1;
    size_t length = getUtf8Length(bytes + i, n - i, prefix);
    if (length == 0) {
      json += "\\ufffd";
      i += prefix;
      continue;
    }
    if (length > 1) {
      json.append(text, i, length);
      i += length;
      continue;
    }
    ++i;
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
    case '\r':
      json += "\\r";
      break;
    default:
      if (c < 0x20 || c == 0x7f) {
        char escaped[8];
        std::snprintf(escaped, sizeof(escaped), "\\u%04x",
                      static_cast<unsigned>(c));
        json += escaped;
      } else {
        json += static_cast<char>(c);
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
  try {
    return writeTraceFile(path, error);
  } catch (const std::exception &e) {
    error = "cannot write \"" + path + "\": " + e.what();
    return false;
  }
}

bool MeshImpl::writeTraceFile(const std::string &path,
                              std::string &error) const {
  // The events of devices a failed run abandoned are left out: their
  // threads may still append to them.
  std::vector<bool> abandoned(numDevices);
  {
    std::lock_guard<std::mutex> guard(mutex);
    for (int64_t d = 0; d < numDevices; ++d)
      abandoned[d] = devices[d].abandoned;
  }
  // A process of a mesh spread over several writes its own devices, as
  // process `rank` (the traces of the processes can be loaded together).
  std::string pid = std::to_string(rank);
  std::string json = "{\"traceEvents\":[\n";
  json += "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + pid +
          ",\"tid\":0,\"args\":{\"name\":\"tessera mesh" +
          (numProcesses > 1 ? ", rank " + pid : std::string()) + "\"}}";
  for (int64_t d = localBegin; d < localEnd; ++d) {
    std::string tid = std::to_string(d);
    json += ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" + pid +
            ",\"tid\":" + tid + ",\"args\":{\"name\":\"device " + tid + "\"}}";
    json += ",\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":" + pid +
            ",\"tid\":" + tid + ",\"args\":{\"sort_index\":" + tid + "}}";
  }
  for (int64_t d = localBegin; d < localEnd; ++d) {
    if (abandoned[d])
      continue;
    std::string tid = std::to_string(d);
    for (const TraceEvent &event : devices[d].trace) {
      json += ",\n{\"name\":";
      appendString(json, event.name);
      json += ",\"cat\":\"";
      json += event.op < 0 ? "compute" : "collective";
      json += "\",\"ph\":\"X\",\"ts\":" + formatMicros(event.beginUs) +
              ",\"dur\":" + formatMicros(event.endUs - event.beginUs) +
              ",\"pid\":" + pid + ",\"tid\":" + tid;
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
            formatMicros(failureUs) + ",\"pid\":" + pid +
            ",\"tid\":" + std::to_string(localBegin) + ",\"args\":{\"error\":";
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
