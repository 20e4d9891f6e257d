//===- Calibrate.cpp - the cost model's constants of this host ------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// The matmul and the elementwise op are compiled like any program (the
// execution library's stages, the compiled-code cache) and run on a mesh of
// the calibrated axes with every operand replicated, so that every device
// computes the whole op at the same time as the others: their throughput
// per device is what the cost model charges a device's local work with on
// this host. The collectives are the runtime's (rt::measureCollectives);
// each line is rt::fitAlphaBeta over the measured sizes, of relative
// errors.
//
//===----------------------------------------------------------------------===//

#include "tessera/Execution/Calibrate.h"

#include "tessera/Execution/Run.h"
#include "tessera/Runtime/Calibrate.h"
#include "tessera/Runtime/Mesh.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <set>

using namespace mlir;
using namespace mlir::tessera;
using namespace mlir::tessera::exec;
namespace rt = ::tessera::rt;

llvm::Expected<std::vector<int64_t>>
mlir::tessera::exec::parseMessageSizes(llvm::StringRef text) {
  llvm::SmallVector<llvm::StringRef> items;
  text.split(items, ',', -1, /*KeepEmpty=*/true);
  std::vector<int64_t> sizes;
  for (llvm::StringRef item : items) {
    llvm::StringRef trimmed = item.trim();
    size_t digits = 0;
    while (digits < trimmed.size() && llvm::isDigit(trimmed[digits]))
      ++digits;
    std::optional<int64_t> scale = llvm::StringSwitch<std::optional<int64_t>>(
                                       trimmed.drop_front(digits).trim())
                                       .Cases({"", "B"}, 1)
                                       .Cases({"K", "KiB"}, 1 << 10)
                                       .Cases({"M", "MiB"}, 1 << 20)
                                       .Default(std::nullopt);
    int64_t value = 0;
    if (digits == 0 || !scale ||
        trimmed.take_front(digits).getAsInteger(10, value) || value < 1 ||
        value > (int64_t(1) << 40) / *scale)
      return makeError("bad --calibrate-sizes item '" + item +
                       "': expected a number of bytes from 1 to 1 TiB with "
                       "an optional suffix KiB or MiB");
    sizes.push_back(value * *scale);
  }
  if (std::set<int64_t>(sizes.begin(), sizes.end()).size() < 2)
    return makeError("--calibrate-sizes needs at least two different sizes, "
                     "got '" +
                     text + "'");
  return sizes;
}

llvm::Error
mlir::tessera::exec::validateCalibrateOptions(const CalibrateOptions &options) {
  if (options.repeats < 1)
    return makeError("--calibrate-repeats must be at least 1");
  if (options.matmulSize < 1 || options.matmulSize > 8192)
    return makeError("--calibrate-matmul must be from 1 to 8192, got '" +
                     llvm::Twine(options.matmulSize) + "'");
  if (std::set<int64_t>(options.messageBytes.begin(),
                        options.messageBytes.end())
          .size() < 2)
    return makeError("--calibrate-sizes needs at least two different sizes");
  return llvm::Error::success();
}

llvm::Error mlir::tessera::exec::checkCalibrationPath(llvm::StringRef path) {
  if (path == "-")
    return llvm::Error::success();
  auto fail = [&](const llvm::Twine &why) {
    return makeError("cannot write calibration file '" + path + "': " + why);
  };
  if (llvm::sys::fs::is_directory(path))
    return fail("it is a directory");
  if (llvm::sys::fs::exists(path)) {
    if (std::error_code ec =
            llvm::sys::fs::access(path, llvm::sys::fs::AccessMode::Write))
      return fail(ec.message());
    return llvm::Error::success();
  }
  llvm::StringRef parent = llvm::sys::path::parent_path(path);
  if (parent.empty())
    parent = ".";
  if (!llvm::sys::fs::is_directory(parent))
    return fail("no directory '" + parent + "'");
  if (std::error_code ec =
          llvm::sys::fs::access(parent, llvm::sys::fs::AccessMode::Write))
    return fail(ec.message());
  return llvm::Error::success();
}

llvm::Error mlir::tessera::exec::writeCalibration(llvm::StringRef text,
                                                  llvm::StringRef path) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return makeError("cannot write calibration file '" + path +
                     "': " + ec.message());
  os << text;
  os.flush();
  if (os.has_error())
    return makeError("cannot write calibration file '" + path +
                     "': " + os.error().message());
  return llvm::Error::success();
}

/// `spmd.mesh @mesh = <["data"=2, "model"=4]>`, or nothing for one device.
static std::string getCalibrationMeshText(const MeshInfo &mesh) {
  if (mesh.names.empty())
    return "";
  std::string text = "spmd.mesh @mesh = <[";
  for (size_t a = 0; a < mesh.names.size(); ++a)
    text += (a ? ", \"" : "\"") + mesh.names[a] +
            "\"=" + std::to_string(mesh.sizes[a]);
  return text + "]>\n";
}

/// Compiles `source` (a module with a public @main of f32 arguments) and
/// returns the fastest of `options.repeats` runs on `mesh`, seconds.
static llvm::Expected<double>
timeCalibrationProgram(MLIRContext &context, rt::Mesh &mesh,
                       llvm::StringRef name, const std::string &source,
                       const CalibrateOptions &options) {
  llvm::SourceMgr sourceMgr;
  llvm::Expected<Program> program =
      loadProgram(context, sourceMgr,
                  llvm::MemoryBuffer::getMemBufferCopy(source, name), "main");
  if (!program)
    return program.takeError();
  std::vector<rt::HostArray> inputs;
  std::vector<std::vector<int64_t>> shapes;
  for (auto [i, arg] : llvm::enumerate(program->args)) {
    std::vector<int64_t> shape(arg.type.getShape().begin(),
                               arg.type.getShape().end());
    llvm::Expected<rt::HostArray> array =
        makeRandomArray(arg.dtype, shape, /*seed=*/0, i);
    if (!array)
      return array.takeError();
    inputs.push_back(std::move(*array));
    shapes.push_back(std::move(shape));
  }
  llvm::Expected<CompiledRun> built =
      compileForRun(*program, shapes, options.compile, options.cache,
                    CompileTarget::Program, /*wantViews=*/false);
  if (!built)
    return built.takeError();
  // One run more than timed: the first touches every page.
  llvm::Expected<RunResult> run =
      runOnMesh(mesh, built->compiled, inputs, options.repeats + 1, false);
  if (!run) {
    if (mesh.hasRunawayDevices()) {
      abandonWhileDevicesRun(std::move(built->compiled));
      abandonWhileDevicesRun(std::move(inputs));
    }
    return run.takeError();
  }
  double best = std::numeric_limits<double>::infinity();
  for (double seconds : llvm::drop_begin(run->seconds))
    best = std::min(best, seconds);
  if (run->seconds.size() == 1)
    best = run->seconds.front();
  return std::max(best, 1e-9);
}

static std::string formatCalibrationNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.6g", value);
  return text;
}

llvm::Expected<std::string>
mlir::tessera::exec::calibrate(MLIRContext &context, const MeshInfo &meshInfo,
                               const CalibrateOptions &options) {
  if (llvm::Error error = validateCalibrateOptions(options))
    return std::move(error);
  rt::MeshSpec spec{meshInfo.names, meshInfo.sizes, meshInfo.deviceIds};
  std::string error;
  std::unique_ptr<rt::Mesh> mesh = rt::Mesh::create(spec, error);
  if (!mesh)
    return makeError("cannot create the mesh " + meshInfo.toString() + ": " +
                     error);
  if (options.watchdogSeconds &&
      !mesh->setWatchdogTimeout(*options.watchdogSeconds))
    return makeError("--watchdog-seconds must be a finite number >= 0");
  std::string meshText = getCalibrationMeshText(meshInfo);
  double devices = static_cast<double>(mesh->numDevices());

  // The matmul: 2 N^3 FLOP per device.
  int64_t n = options.matmulSize;
  std::string t =
      "tensor<" + std::to_string(n) + "x" + std::to_string(n) + "xf32>";
  std::string matmul =
      meshText + "func.func @main(%a: " + t + ", %b: " + t + ") -> " + t +
      " {\n  %zero = arith.constant 0.0 : f32\n  %e = tensor.empty() : " + t +
      "\n  %f = linalg.fill ins(%zero : f32) outs(%e : " + t + ") -> " + t +
      "\n  %c = linalg.matmul ins(%a, %b : " + t + ", " + t +
      ") outs(%f : " + t + ") -> " + t + "\n  return %c : " + t + "\n}\n";
  llvm::Expected<double> matmulSeconds = timeCalibrationProgram(
      context, *mesh, "calibrate-matmul", matmul, options);
  if (!matmulSeconds)
    return matmulSeconds.takeError();
  double flop = 2.0 * static_cast<double>(n) * n * n;
  double gflops = flop / *matmulSeconds / 1e9;

  // The elementwise op: two operands and a result move through memory.
  int64_t elements = std::max<int64_t>(options.vectorBytes / 4 / 256, 1);
  std::string v = "tensor<256x" + std::to_string(elements) + "xf32>";
  std::string add = meshText + "func.func @main(%a: " + v + ", %b: " + v +
                    ") -> " + v + " {\n  %e = tensor.empty() : " + v +
                    "\n  %c = linalg.add ins(%a, %b : " + v + ", " + v +
                    ") outs(%e : " + v + ") -> " + v + "\n  return %c : " + v +
                    "\n}\n";
  llvm::Expected<double> addSeconds =
      timeCalibrationProgram(context, *mesh, "calibrate-add", add, options);
  if (!addSeconds)
    return addSeconds.takeError();
  double bytes = 3.0 * 4 * 256 * static_cast<double>(elements);
  double gbps = bytes / *addSeconds / 1e9;

  rt::CollectiveCalibrationOptions collectives;
  collectives.bytes = options.messageBytes;
  collectives.repeats = options.repeats;
  std::vector<rt::CollectiveSample> samples;
  if (!rt::measureCollectives(*mesh, collectives, samples, error))
    return makeError("calibration failed: " + error);

  std::string text;
  llvm::raw_string_ostream os(text);
  os << "# tessera-run --calibrate on " << meshInfo.toString() << " ("
     << static_cast<int64_t>(devices) << (devices == 1 ? " device" : " devices")
     << ")\n";
  os << "# matmul " << n << "x" << n << "x" << n << " f32 on every device: "
     << formatCalibrationNumber(*matmulSeconds * 1e3) << " ms; add of 2 x "
     << formatCalibrationNumber(bytes / 3)
     << " B: " << formatCalibrationNumber(*addSeconds * 1e3) << " ms\n";
  os << "tessera-calibration 1\n";
  os << "matmul_gflops " << formatCalibrationNumber(gflops) << "\n";
  os << "memory_gbps " << formatCalibrationNumber(gbps) << "\n";
  static constexpr rt::CollectiveKind kKinds[] = {
      rt::CollectiveKind::AllReduce, rt::CollectiveKind::AllGather,
      rt::CollectiveKind::ReduceScatter, rt::CollectiveKind::AllToAll,
      rt::CollectiveKind::Permute};
  // The runtime's names of the collectives are the file's.
  auto fileName = [](rt::CollectiveKind kind) -> llvm::StringRef {
    return rt::getCollectiveKindName(kind);
  };
  std::vector<int> axes;
  for (const rt::CollectiveSample &sample : samples)
    if (!llvm::is_contained(axes, sample.axis))
      axes.push_back(sample.axis);
  std::string perAxis;
  llvm::raw_string_ostream axisOs(perAxis);
  for (rt::CollectiveKind kind : kKinds) {
    double alphaSum = 0, betaSum = 0;
    for (int axis : axes) {
      std::vector<double> x, y;
      for (const rt::CollectiveSample &sample : samples)
        if (sample.kind == kind && sample.axis == axis) {
          x.push_back(sample.movedBytes);
          y.push_back(sample.seconds);
          axisOs << "# " << meshInfo.names[axis] << " " << fileName(kind) << " "
                 << sample.bytes << " B ("
                 << formatCalibrationNumber(sample.movedBytes) << " B moved): "
                 << formatCalibrationNumber(sample.seconds * 1e6) << " us\n";
        }
      rt::AlphaBetaFit fit = rt::fitAlphaBeta(x, y, rt::getRelativeWeights(y));
      alphaSum += fit.alpha;
      betaSum += fit.beta;
      axisOs << "collective " << meshInfo.names[axis] << " " << fileName(kind)
             << " " << formatCalibrationNumber(fit.alpha) << " "
             << formatCalibrationNumber(fit.beta) << "\n";
    }
    if (!axes.empty())
      os << "collective * " << fileName(kind) << " "
         << formatCalibrationNumber(alphaSum / axes.size()) << " "
         << formatCalibrationNumber(betaSum / axes.size()) << "\n";
  }
  os << perAxis;
  return text;
}

llvm::Expected<MeshInfo>
mlir::tessera::exec::parseMeshAxes(llvm::StringRef text) {
  MeshInfo info;
  info.symbol = "mesh";
  llvm::Expected<llvm::SmallVector<MeshSizeItem>> items = parseMeshSizes(text);
  if (!items)
    return items.takeError();
  for (const MeshSizeItem &entry : *items) {
    // A new mesh: its axis names must be identifiers.
    if (entry.name.empty() || !llvm::all_of(entry.name, [](char c) {
          return llvm::isAlnum(c) || c == '_';
        }))
      return makeError("bad --mesh item '" + entry.item +
                       "': expected name=size with size >= 1");
    info.names.push_back(entry.name.str());
    info.sizes.push_back(entry.size);
  }
  int64_t devices = 1;
  for (int64_t size : info.sizes)
    if (llvm::MulOverflow(devices, size, devices) ||
        devices > ::tessera::rt::Mesh::kMaxDevices)
      return makeError("--mesh '" + text +
                       "': the mesh has too many devices (the emulated mesh "
                       "runs at most " +
                       llvm::Twine(::tessera::rt::Mesh::kMaxDevices) +
                       ", one thread each)");
  return info;
}

llvm::Error mlir::tessera::exec::runCalibration(MLIRContext &context,
                                                const MeshInfo &mesh,
                                                const CalibrateOptions &options,
                                                llvm::StringRef path) {
  if (llvm::Error error = validateCalibrateOptions(options))
    return error;
  if (llvm::Error error = checkCalibrationPath(path))
    return error;
  llvm::Expected<std::string> text = calibrate(context, mesh, options);
  if (!text)
    return text.takeError();
  return writeCalibration(*text, path);
}
