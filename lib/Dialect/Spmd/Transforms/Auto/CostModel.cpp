//===- CostModel.cpp - spmd-auto-partition's machine model ----------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//

#include "CostModel.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

namespace mlir::tessera::spmd::autopart {

llvm::StringRef getCollectiveName(Collective kind) {
  switch (kind) {
  case Collective::AllReduce:
    return "all_reduce";
  case Collective::AllGather:
    return "all_gather";
  case Collective::ReduceScatter:
    return "reduce_scatter";
  case Collective::AllToAll:
    return "all_to_all";
  case Collective::Permute:
    return "permute";
  }
  return "";
}

std::optional<Collective> parseCollectiveName(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<Collective>>(name)
      .Case("all_reduce", Collective::AllReduce)
      .Case("all_gather", Collective::AllGather)
      .Case("reduce_scatter", Collective::ReduceScatter)
      .Case("all_to_all", Collective::AllToAll)
      .Case("permute", Collective::Permute)
      .Default(std::nullopt);
}

double getMovedFraction(Collective kind, int64_t groupSize) {
  if (groupSize <= 1)
    return 0;
  double n = static_cast<double>(groupSize);
  switch (kind) {
  case Collective::AllReduce:
    return 2 * (n - 1) / n;
  case Collective::AllGather:
  case Collective::ReduceScatter:
  case Collective::AllToAll:
    return (n - 1) / n;
  case Collective::Permute:
    return 1;
  }
  return 0;
}

AlphaBeta MachineModel::get(Collective kind, llvm::StringRef axis) const {
  auto it = axes.find(axis.str());
  if (it != axes.end())
    return it->second[static_cast<unsigned>(kind)];
  return defaults[static_cast<unsigned>(kind)];
}

double MachineModel::getCollectiveTime(
    Collective kind, llvm::ArrayRef<std::pair<std::string, int64_t>> groupAxes,
    double bytes) const {
  int64_t groupSize = 1;
  double alpha = 0, beta = 0;
  for (const auto &[name, size] : groupAxes) {
    if (size <= 1)
      continue;
    groupSize *= size;
    AlphaBeta model = get(kind, name);
    alpha += model.alpha;
    beta = std::max(beta, model.beta);
  }
  if (groupSize <= 1)
    return 0;
  return alpha + beta * getMovedFraction(kind, groupSize) * bytes;
}

double MachineModel::getComputeTime(double flopCount, double bytes,
                                    bool isContraction) const {
  // A contraction is bound by the slower of its arithmetic and its memory
  // traffic (a matmul of a few rows streams its whole weight).
  if (isContraction)
    return std::max(flopCount / flops, bytes / memoryBandwidth);
  return bytes / memoryBandwidth;
}

/// A model whose collectives all have `alpha` and `beta` on every axis.
static MachineModel makeModel(llvm::StringRef name, double flops,
                              double memoryBandwidth, double alpha,
                              double linkBandwidth) {
  MachineModel model;
  model.name = name.str();
  model.flops = flops;
  model.memoryBandwidth = memoryBandwidth;
  for (AlphaBeta &entry : model.defaults)
    entry = {alpha, 1.0 / linkBandwidth};
  return model;
}

std::optional<MachineModel> getBuiltinMachineModel(llvm::StringRef name) {
  // Per chip: peak bf16 FLOP/s, HBM bandwidth, and the bandwidth of one ICI
  // axis (bytes/s) from the public spec sheets; alpha is a typical
  // collective latency. `cpu`: one emulated device of a typical host (a
  // thread), collectives through shared memory.
  if (name == "cpu")
    return makeModel(name, 2e10, 5e9, 1e-5, 2e9);
  if (name == "v4")
    return makeModel(name, 275e12, 1228e9, 2e-6, 50e9);
  if (name == "v5e")
    return makeModel(name, 197e12, 819e9, 2e-6, 50e9);
  if (name == "v5p")
    return makeModel(name, 459e12, 2765e9, 2e-6, 100e9);
  if (name == "v6e")
    return makeModel(name, 918e12, 1640e9, 2e-6, 112e9);
  return std::nullopt;
}

llvm::StringRef getBuiltinMachineModelNames() {
  return "cpu, v4, v5e, v5p, v6e";
}

std::optional<MachineModel> parseCalibration(llvm::StringRef text,
                                             std::string &error) {
  MachineModel model = *getBuiltinMachineModel("cpu");
  model.name = "calibration";
  bool sawHeader = false;
  unsigned lineNo = 0;
  auto fail = [&](const llvm::Twine &message) -> std::optional<MachineModel> {
    error = ("line " + llvm::Twine(lineNo) + ": " + message).str();
    return std::nullopt;
  };
  auto number = [](llvm::StringRef word, double &value) {
    return llvm::to_float(word, value) && std::isfinite(value) && value >= 0;
  };
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    ++lineNo;
    line = line.split('#').first.trim();
    if (line.empty())
      continue;
    llvm::SmallVector<llvm::StringRef> words;
    line.split(words, ' ', -1, /*KeepEmpty=*/false);
    if (!sawHeader) {
      if (words.size() != 2 || words[0] != "tessera-calibration")
        return fail("expected 'tessera-calibration 1'");
      if (words[1] != "1")
        return fail("unsupported calibration version '" + words[1] + "'");
      sawHeader = true;
      continue;
    }
    if (words[0] == "matmul_gflops" || words[0] == "memory_gbps") {
      double value;
      if (words.size() != 2 || !number(words[1], value) || value == 0)
        return fail("expected '" + words[0] + " <positive number>'");
      (words[0] == "matmul_gflops" ? model.flops : model.memoryBandwidth) =
          value * 1e9;
      continue;
    }
    if (words[0] == "collective") {
      if (words.size() != 5)
        return fail("expected 'collective <axis|*> <collective> <alpha> "
                    "<beta>'");
      std::optional<Collective> kind = parseCollectiveName(words[2]);
      if (!kind)
        return fail("unknown collective '" + words[2] + "'");
      AlphaBeta entry;
      if (!number(words[3], entry.alpha) || !number(words[4], entry.beta))
        return fail("alpha and beta must be non-negative numbers");
      if (words[1] == "*")
        model.defaults[static_cast<unsigned>(*kind)] = entry;
      else {
        auto [it, inserted] = model.axes.try_emplace(words[1].str());
        if (inserted)
          it->second = model.defaults;
        it->second[static_cast<unsigned>(*kind)] = entry;
      }
      continue;
    }
    return fail("unknown entry '" + words[0] + "'");
  }
  if (!sawHeader) {
    lineNo = 1;
    return fail("expected 'tessera-calibration 1'");
  }
  return model;
}

std::string printCalibration(const MachineModel &model) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "tessera-calibration 1\n";
  os << "matmul_gflops " << llvm::format("%.6g", model.flops / 1e9) << "\n";
  os << "memory_gbps " << llvm::format("%.6g", model.memoryBandwidth / 1e9)
     << "\n";
  auto print = [&](llvm::StringRef axis,
                   const std::array<AlphaBeta, kNumCollectives> &entries) {
    for (unsigned c = 0; c < kNumCollectives; ++c)
      os << "collective " << axis << " "
         << getCollectiveName(static_cast<Collective>(c)) << " "
         << llvm::format("%.6g", entries[c].alpha) << " "
         << llvm::format("%.6g", entries[c].beta) << "\n";
  };
  print("*", model.defaults);
  for (const auto &[axis, entries] : model.axes)
    print(axis, entries);
  return text;
}

std::optional<double> parseByteSize(llvm::StringRef text) {
  text = text.trim();
  size_t end = 0;
  while (end < text.size() && (llvm::isDigit(text[end]) || text[end] == '.' ||
                               text[end] == 'e' || text[end] == '+'))
    ++end;
  double value;
  if (end == 0 || !llvm::to_float(text.take_front(end), value) ||
      !std::isfinite(value) || value < 0)
    return std::nullopt;
  std::optional<double> scale =
      llvm::StringSwitch<std::optional<double>>(text.drop_front(end).trim())
          .Cases({"", "B"}, 1.0)
          .Cases({"K", "KiB"}, 1024.0)
          .Case("KB", 1e3)
          .Cases({"M", "MiB"}, 1024.0 * 1024)
          .Case("MB", 1e6)
          .Cases({"G", "GiB"}, 1024.0 * 1024 * 1024)
          .Case("GB", 1e9)
          .Default(std::nullopt);
  if (!scale)
    return std::nullopt;
  return value * *scale;
}

std::string formatBytes(double bytes) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (bytes < 1024)
    os << llvm::format("%.0f B", bytes);
  else if (bytes < 1024.0 * 1024)
    os << llvm::format("%.1f KiB", bytes / 1024);
  else if (bytes < 1024.0 * 1024 * 1024)
    os << llvm::format("%.1f MiB", bytes / (1024.0 * 1024));
  else
    os << llvm::format("%.2f GiB", bytes / (1024.0 * 1024 * 1024));
  return text;
}

std::string formatSeconds(double seconds) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (seconds < 1e-3)
    os << llvm::format("%.1f us", seconds * 1e6);
  else if (seconds < 1)
    os << llvm::format("%.2f ms", seconds * 1e3);
  else
    os << llvm::format("%.2f s", seconds);
  return text;
}

} // namespace mlir::tessera::spmd::autopart
