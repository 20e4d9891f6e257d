//===- Report.cpp - what a run prints -------------------------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "tessera/Execution/Report.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

using ::tessera::rt::DType;
using ::tessera::rt::HostArray;

namespace mlir::tessera::exec {

static std::string formatValue(const HostArray &a, int64_t i) {
  char buffer[64];
  double v = a.getAsDouble(i);
  switch (a.getDType()) {
  case DType::I1:
    return v != 0 ? "true" : "false";
  case DType::I64: {
    int64_t x;
    std::memcpy(&x, a.data() + i * 8, 8);
    std::snprintf(buffer, sizeof(buffer), "%" PRId64, x);
    return buffer;
  }
  case DType::U64: {
    uint64_t x;
    std::memcpy(&x, a.data() + i * 8, 8);
    std::snprintf(buffer, sizeof(buffer), "%" PRIu64, x);
    return buffer;
  }
  default:
    break;
  }
  if (::tessera::rt::isFloat(a.getDType()))
    std::snprintf(buffer, sizeof(buffer), "%.6g", v);
  else
    std::snprintf(buffer, sizeof(buffer), "%.0f", v);
  return buffer;
}

/// FNV-1a over the bytes.
static uint32_t checksum(const HostArray &a) {
  uint32_t hash = 2166136261u;
  const uint8_t *p = a.data();
  for (int64_t i = 0, e = a.getNumBytes(); i < e; ++i) {
    hash ^= p[i];
    hash *= 16777619u;
  }
  return hash;
}

void printSummary(const std::string &label, const HostArray &a, bool full) {
  int64_t n = a.getNumElements();
  std::printf("%s: %s", label.c_str(), a.getTypeString().c_str());
  std::string values = "[";
  const int64_t head = 6, tail = 2;
  for (int64_t i = 0; i < n; ++i) {
    if (!full && n > head + tail && i == head) {
      values += ", ...";
      i = n - tail - 1;
      continue;
    }
    if (i)
      values += ", ";
    values += formatValue(a, i);
  }
  values += "]";
  double sum = 0, lo = INFINITY, hi = -INFINITY;
  for (int64_t i = 0; i < n; ++i) {
    double v = a.getAsDouble(i);
    sum += v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  std::printf(" = %s", values.c_str());
  if (n > 0)
    std::printf(" (sum %.6g, min %.6g, max %.6g, checksum %08x)", sum, lo, hi,
                checksum(a));
  std::printf("\n");
}

std::string formatBytes(int64_t bytes) {
  char buffer[32];
  if (bytes < 1024)
    std::snprintf(buffer, sizeof(buffer), "%" PRId64 " B", bytes);
  else if (bytes < 1024 * 1024)
    std::snprintf(buffer, sizeof(buffer), "%.1f KiB", bytes / 1024.0);
  else if (bytes < int64_t(1024) * 1024 * 1024)
    std::snprintf(buffer, sizeof(buffer), "%.1f MiB", bytes / 1048576.0);
  else
    std::snprintf(buffer, sizeof(buffer), "%.2f GiB", bytes / 1073741824.0);
  return buffer;
}

/// `CPU 0,1,2,3`, the label of a block held by `devices`.
static std::string cellLabel(const std::set<int64_t> &devices) {
  std::string label = "CPU ";
  bool first = true;
  for (int64_t d : devices) {
    if (!first)
      label += ",";
    label += std::to_string(d);
    first = false;
  }
  return label;
}

void printShardingGrid(const ShardingView &view,
                       const std::vector<int64_t> &shape,
                       const std::vector<std::vector<int64_t>> &deviceCoords) {
  const auto &layout = view.layout;
  std::printf("%s: %s  %s\n", view.label.c_str(), view.type.c_str(),
              view.sharding.c_str());
  size_t rank = shape.size();
  // Dimensions the blocks do not divide: every block has the same size,
  // the last ones end in padding.
  std::vector<int64_t> blockShape = layout.getLocalShape(shape);
  for (size_t d = 0; d < rank; ++d) {
    int64_t blocks = layout.getNumBlocks(d);
    int64_t padding = blocks * blockShape[d] - shape[d];
    if (padding > 0)
      std::printf("  dimension %zu: %lld in %lld blocks of %lld, the last "
                  "%lld elements padding\n",
                  d, static_cast<long long>(shape[d]),
                  static_cast<long long>(blocks),
                  static_cast<long long>(blockShape[d]),
                  static_cast<long long>(padding));
  }
  // Which devices hold each block (block index per dim).
  std::map<std::vector<int64_t>, std::set<int64_t>> holders;
  for (size_t device = 0; device < deviceCoords.size(); ++device) {
    std::vector<int64_t> block(rank);
    for (size_t d = 0; d < rank; ++d)
      block[d] = layout.getBlockIndex(d, deviceCoords[device]);
    holders[block].insert(static_cast<int64_t>(device));
  }
  if (rank > 2) {
    for (const auto &[block, devices] : holders) {
      std::string where;
      for (size_t d = 0; d < rank; ++d) {
        int64_t start = block[d] * blockShape[d];
        int64_t end = std::min(shape[d], start + blockShape[d]);
        where +=
            (d ? ", " : "") + std::to_string(start) + ":" + std::to_string(end);
      }
      std::printf("  [%s]  %s\n", where.c_str(), cellLabel(devices).c_str());
    }
    return;
  }
  int64_t rows = rank == 2 ? layout.getNumBlocks(0) : 1;
  int64_t cols = rank == 0 ? 1 : layout.getNumBlocks(rank - 1);
  std::vector<std::vector<std::string>> cells(rows,
                                              std::vector<std::string>(cols));
  size_t width = 0;
  for (const auto &[block, devices] : holders) {
    int64_t r = rank == 2 ? block[0] : 0;
    int64_t c = rank == 0 ? 0 : block[rank - 1];
    cells[r][c] = cellLabel(devices);
    width = std::max(width, cells[r][c].size());
  }
  width += 2;
  auto rule = [&](const char *left, const char *mid, const char *right) {
    std::string line = "  ";
    line += left;
    for (int64_t c = 0; c < cols; ++c) {
      for (size_t i = 0; i < width; ++i)
        line += "\u2500";
      line += c + 1 < cols ? mid : right;
    }
    std::printf("%s\n", line.c_str());
  };
  rule("\u250c", "\u252c", "\u2510");
  for (int64_t r = 0; r < rows; ++r) {
    std::string line = "  \u2502";
    for (int64_t c = 0; c < cols; ++c) {
      const std::string &text = cells[r][c];
      size_t left = (width - text.size()) / 2;
      line += std::string(left, ' ') + text +
              std::string(width - text.size() - left, ' ') + "\u2502";
    }
    std::printf("%s\n", line.c_str());
    if (r + 1 < rows)
      rule("\u251c", "\u253c", "\u2524");
  }
  rule("\u2514", "\u2534", "\u2518");
}

bool compareArrays(const std::string &label, const HostArray &actual,
                   const HostArray &reference, double rtol, double atol) {
  std::string type = reference.getTypeString();
  if (actual.getShape() != reference.getShape() ||
      actual.getDType() != reference.getDType()) {
    std::printf("check: %s: MISMATCH: %s, the reference is %s\n", label.c_str(),
                actual.getTypeString().c_str(), type.c_str());
    return false;
  }
  int64_t n = actual.getNumElements();
  auto position = [&](int64_t i) {
    std::string text = "[";
    const auto &shape = actual.getShape();
    std::vector<int64_t> index(shape.size());
    for (size_t d = shape.size(); d-- > 0;) {
      index[d] = i % shape[d];
      i /= shape[d];
    }
    for (size_t d = 0; d < index.size(); ++d)
      text += (d ? ", " : "") + std::to_string(index[d]);
    return text + "]";
  };
  if (!::tessera::rt::isFloat(actual.getDType())) {
    int64_t width = ::tessera::rt::getDTypeBytes(actual.getDType());
    for (int64_t i = 0; i < n; ++i) {
      if (std::memcmp(actual.data() + i * width, reference.data() + i * width,
                      width) != 0) {
        std::printf("check: %s %s: MISMATCH at %s: %s, the reference has %s "
                    "(integers compare bit-exact)\n",
                    label.c_str(), type.c_str(), position(i).c_str(),
                    formatValue(actual, i).c_str(),
                    formatValue(reference, i).c_str());
        return false;
      }
    }
    std::printf("check: %s %s: bit-exact match\n", label.c_str(), type.c_str());
    return true;
  }
  double maxAbs = 0, maxRel = 0;
  int64_t firstBad = -1;
  for (int64_t i = 0; i < n; ++i) {
    double a = actual.getAsDouble(i), b = reference.getAsDouble(i);
    if (std::isnan(a) || std::isnan(b)) {
      if (std::isnan(a) != std::isnan(b) && firstBad < 0)
        firstBad = i;
      continue;
    }
    if (a == b)
      continue; // Equal infinities too.
    double diff = std::fabs(a - b);
    maxAbs = std::max(maxAbs, diff);
    if (b != 0)
      maxRel = std::max(maxRel, diff / std::fabs(b));
    if (!(diff <= atol + rtol * std::fabs(b)) && firstBad < 0)
      firstBad = i;
  }
  if (firstBad >= 0) {
    std::printf("check: %s %s: MISMATCH at %s: %s, the reference has %s "
                "(max abs err %.3g, max rel err %.3g; rtol %g, atol %g)\n",
                label.c_str(), type.c_str(), position(firstBad).c_str(),
                formatValue(actual, firstBad).c_str(),
                formatValue(reference, firstBad).c_str(), maxAbs, maxRel, rtol,
                atol);
    return false;
  }
  std::printf("check: %s %s: match (max abs err %.3g, max rel err %.3g; "
              "rtol %g, atol %g)\n",
              label.c_str(), type.c_str(), maxAbs, maxRel, rtol, atol);
  return true;
}

void printKernelStats(
    const std::vector<::tessera::rt::KernelCallRecord> &records) {
  // By device, then in the order the calls finished on it.
  std::vector<::tessera::rt::KernelCallRecord> calls = records;
  std::stable_sort(
      calls.begin(), calls.end(),
      [](const auto &a, const auto &b) { return a.device < b.device; });
  for (const ::tessera::rt::KernelCallRecord &call : calls) {
    double memorySeconds =
        call.hbmBytesPerSecond > 0
            ? static_cast<double>(call.bytesIn + call.bytesOut) /
                  call.hbmBytesPerSecond
            : 0;
    double computeSeconds =
        call.peakFlopsPerSecond > 0
            ? static_cast<double>(call.flops) / call.peakFlopsPerSecond
            : 0;
    std::printf("stats: kernel @%s", call.name.c_str());
    if (call.device >= 0)
      std::printf(" on device %" PRId64, call.device);
    std::printf(": %s, TPU %s, %" PRId64 " TensorCore%s, %" PRId64
                " grid steps%s\n",
                call.mode.c_str(), call.target.c_str(), call.cores,
                call.cores == 1 ? "" : "s", call.steps,
                call.mode != "pipelined" ? ""
                : call.engineThreads     ? ", DMA engines on their own threads"
                                         : ", DMAs performed by the cores");
    std::printf("stats:   HBM->VMEM %s, VMEM->HBM %s, DMAs %" PRId64
                " issued, %" PRId64 " skipped\n",
                formatBytes(call.bytesIn).c_str(),
                formatBytes(call.bytesOut).c_str(), call.dmasIssued,
                call.dmasSkipped);
    std::printf("stats:   %" PRId64 " FLOPs, VMEM high-water %s of %s, SMEM "
                "%s of %s\n",
                call.flops, formatBytes(call.vmemPeak).c_str(),
                formatBytes(call.vmemBytes).c_str(),
                formatBytes(call.smemPeak).c_str(),
                formatBytes(call.smemBytes).c_str());
    std::printf("stats:   estimate on TPU %s %.3f us (%s-bound: %.3f us "
                "memory, %.3f us compute), measured on the CPU %.3f ms\n",
                call.target.c_str(),
                std::max(memorySeconds, computeSeconds) * 1e6,
                memorySeconds >= computeSeconds ? "memory" : "compute",
                memorySeconds * 1e6, computeSeconds * 1e6, call.seconds * 1e3);
  }
}

} // namespace mlir::tessera::exec
