//===- TraceTest.cpp - Chrome trace-event output --------------------------===//
//
// Part of the Tessera project, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
//
// Tests that Mesh::writeTrace writes valid JSON (checked by a small parser
// here) with one thread per device, a complete event per collective and per
// compute span, escaped sites, and the error of a failed run.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtils.h"

#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

using namespace tessera::rt;
using namespace tessera::rt::test;

namespace {
/// A JSON value, parsed just enough to walk the trace.
struct Json {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  double number = 0;
  std::string text;
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> fields;

  const Json *get(const std::string &key) const {
    for (const auto &field : fields)
      if (field.first == key)
        return &field.second;
    return nullptr;
  }
};

/// A strict recursive-descent JSON parser.
class JsonParser {
public:
  explicit JsonParser(const std::string &text) : text(text) {}

  /// Parses the whole text; false on any syntax error.
  bool parse(Json &value) {
    if (!parseValue(value))
      return false;
    skipSpace();
    return pos == text.size();
  }

private:
  void skipSpace() {
    while (pos < text.size() &&
           std::isspace(static_cast<unsigned char>(text[pos])))
      ++pos;
  }

  bool consume(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }

  bool parseString(std::string &out) {
    if (!consume('"'))
      return false;
    while (pos < text.size()) {
      char c = text[pos++];
      if (c == '"')
        return true;
      if (static_cast<unsigned char>(c) < 0x20)
        return false;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos >= text.size())
        return false;
      char e = text[pos++];
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        out += '\r';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'u': {
        if (pos + 4 > text.size())
          return false;
        unsigned code = 0;
        for (int i = 0; i < 4; ++i) {
          char h = text[pos++];
          if (!std::isxdigit(static_cast<unsigned char>(h)))
            return false;
          code = code * 16 + (std::isdigit(static_cast<unsigned char>(h))
                                  ? h - '0'
                                  : std::tolower(h) - 'a' + 10);
        }
        // To UTF-8 (the trace escapes only control characters and U+FFFD).
        if (code < 0x80) {
          out += static_cast<char>(code);
        } else if (code < 0x800) {
          out += static_cast<char>(0xc0 | (code >> 6));
          out += static_cast<char>(0x80 | (code & 0x3f));
        } else {
          out += static_cast<char>(0xe0 | (code >> 12));
          out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
          out += static_cast<char>(0x80 | (code & 0x3f));
        }
        break;
      }
      default:
        return false;
      }
    }
    return false;
  }

  bool parseValue(Json &value) {
    skipSpace();
    if (pos >= text.size())
      return false;
    char c = text[pos];
    if (c == '{') {
      ++pos;
      value.kind = Json::Object;
      if (consume('}'))
        return true;
      do {
        std::string key;
        Json field;
        skipSpace();
        if (!parseString(key) || !consume(':') || !parseValue(field))
          return false;
        value.fields.emplace_back(std::move(key), std::move(field));
      } while (consume(','));
      return consume('}');
    }
    if (c == '[') {
      ++pos;
      value.kind = Json::Array;
      if (consume(']'))
        return true;
      do {
        Json item;
        if (!parseValue(item))
          return false;
        value.items.push_back(std::move(item));
      } while (consume(','));
      return consume(']');
    }
    if (c == '"') {
      value.kind = Json::String;
      return parseString(value.text);
    }
    for (const char *word : {"true", "false", "null"}) {
      size_t len = std::string(word).size();
      if (text.compare(pos, len, word) == 0) {
        pos += len;
        value.kind = word[0] == 'n' ? Json::Null : Json::Bool;
        return true;
      }
    }
    size_t start = pos;
    if (text[pos] == '-')
      ++pos;
    while (pos < text.size() &&
           (std::isdigit(static_cast<unsigned char>(text[pos])) ||
            text[pos] == '.' || text[pos] == 'e' || text[pos] == 'E' ||
            text[pos] == '+' || text[pos] == '-'))
      ++pos;
    if (pos == start)
      return false;
    value.kind = Json::Number;
    value.number = std::stod(text.substr(start, pos - start));
    return true;
  }

  const std::string &text;
  size_t pos = 0;
};
} // namespace

static std::string readFile(const std::string &path) {
  std::ifstream file(path);
  std::stringstream buffer;
  buffer << file.rdbuf();
  return buffer.str();
}

static Json parseTrace(const std::string &path) {
  std::string text = readFile(path);
  Json root;
  EXPECT_TRUE(JsonParser(text).parse(root)) << text;
  return root;
}

TEST(TraceTest, EventsPerDevice) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  mesh->setTraceEnabled(true);
  std::vector<int64_t> parts = {0, 1, 2};
  const char *site = "comm.all_reduce at \"f.mlir\":3:5";
  runOk(*mesh, [&](int64_t d) {
    float in[4] = {1, 2, 3, 4}, out[4];
    tessera_rt_all_reduce(in, out, 4, TESSERA_RT_F32, TESSERA_RT_SUM,
                          parts.data(), 1, site);
    tessera_rt_barrier(parts.data(), 1, "comm.barrier at \"f.mlir\":4:5");
  });
  std::string path = ::testing::TempDir() + "tessera-runtime-trace.json";
  std::string error;
  ASSERT_TRUE(mesh->writeTrace(path, error)) << error;
  Json root = parseTrace(path);
  ASSERT_EQ(root.kind, Json::Object);
  const Json *unit = root.get("displayTimeUnit");
  ASSERT_TRUE(unit);
  EXPECT_EQ(unit->text, "ms");
  const Json *events = root.get("traceEvents");
  ASSERT_TRUE(events);
  ASSERT_EQ(events->kind, Json::Array);

  std::vector<std::string> threadNames(2);
  // Per device: compute, all_reduce, compute, barrier, compute.
  std::vector<std::vector<std::string>> names(2);
  for (const Json &event : events->items) {
    const Json *ph = event.get("ph");
    const Json *tid = event.get("tid");
    const Json *name = event.get("name");
    ASSERT_TRUE(ph && tid && name && event.get("pid"));
    int device = static_cast<int>(tid->number);
    ASSERT_TRUE(device == 0 || device == 1);
    if (ph->text == "M" && name->text == "thread_name") {
      threadNames[device] = event.get("args")->get("name")->text;
      continue;
    }
    if (ph->text != "X")
      continue;
    const Json *ts = event.get("ts");
    const Json *dur = event.get("dur");
    ASSERT_TRUE(ts && dur);
    EXPECT_GE(ts->number, 0);
    EXPECT_GE(dur->number, 0);
    names[device].push_back(name->text);
    if (name->text == site) {
      const Json *args = event.get("args");
      ASSERT_TRUE(args);
      EXPECT_EQ(args->get("op")->text, "all_reduce");
      EXPECT_EQ(args->get("bytes")->number, 16);
      EXPECT_EQ(args->get("group_size")->number, 2);
    }
  }
  EXPECT_EQ(threadNames, (std::vector<std::string>{"device 0", "device 1"}));
  std::vector<std::string> expected = {
      "compute", site, "compute", "comm.barrier at \"f.mlir\":4:5", "compute"};
  EXPECT_EQ(names[0], expected);
  EXPECT_EQ(names[1], expected);
  // The site is escaped in the file.
  EXPECT_NE(readFile(path).find("comm.all_reduce at \\\"f.mlir\\\":3:5"),
            std::string::npos);
}

TEST(TraceTest, FailedRunRecordsTheError) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  mesh->setTraceEnabled(true);
  runFail(*mesh, [&](int64_t d) {
    if (d == 1)
      tessera_rt_all_reduce(nullptr, nullptr, 0, 99, TESSERA_RT_SUM, nullptr, 0,
                            "bad\tsite");
  });
  std::string path = ::testing::TempDir() + "tessera-runtime-failed.json";
  std::string error;
  ASSERT_TRUE(mesh->writeTrace(path, error)) << error;
  Json root = parseTrace(path);
  bool found = false;
  for (const Json &event : root.get("traceEvents")->items) {
    if (event.get("name")->text != "mesh failed")
      continue;
    found = true;
    EXPECT_EQ(event.get("args")->get("error")->text,
              "device 1 called bad\tsite with invalid arguments: invalid "
              "dtype 99");
  }
  EXPECT_TRUE(found);
}

TEST(TraceTest, UnwritablePath) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {1});
  std::string error;
  EXPECT_FALSE(mesh->writeTrace("/nonexistent-dir/trace.json", error));
  EXPECT_NE(error.find("cannot open \"/nonexistent-dir/trace.json\""),
            std::string::npos)
      << error;
}

/// Whether `text` is well-formed UTF-8 (RFC 3629: no overlong forms, no
/// surrogates, nothing above U+10FFFF).
static bool isValidUtf8(const std::string &text) {
  const auto *p = reinterpret_cast<const unsigned char *>(text.data());
  size_t n = text.size();
  for (size_t i = 0; i < n;) {
    unsigned char c = p[i];
    size_t length;
    uint32_t code;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xe0) == 0xc0) {
      length = 2;
      code = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      length = 3;
      code = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      length = 4;
      code = c & 0x07;
    } else {
      return false;
    }
    if (i + length > n)
      return false;
    for (size_t k = 1; k < length; ++k) {
      if ((p[i + k] & 0xc0) != 0x80)
        return false;
      code = (code << 6) | (p[i + k] & 0x3f);
    }
    static const uint32_t minimum[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < minimum[length] || code > 0x10ffff ||
        (code >= 0xd800 && code <= 0xdfff))
      return false;
    i += length;
  }
  return true;
}

TEST(TraceTest, EscapesEveryString) {
  // Sites and errors may hold any bytes: quotes, control characters, bytes
  // that are not UTF-8 (a lone continuation byte, an overlong '/', a
  // surrogate, a truncated sequence, 0xff, a code point above U+10FFFF).
  // The file must still be valid JSON in valid UTF-8, with each ill-formed
  // sequence replaced by U+FFFD and well-formed ones kept.
  std::string site = std::string("s\"\\\x01\x1f\x7f") + "\x80" + "\xc0\xaf" +
                     "\xed\xa0\x80" + "\xe2\x82" + "\xff" + "\xf4\x90\x80\x80" +
                     "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80" + "end";
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  mesh->setTraceEnabled(true);
  runFail(*mesh, [&](int64_t d) {
    int64_t parts[] = {0, 1, 2};
    tessera_rt_barrier(parts, 1, site.c_str());
    if (d == 1)
      tessera_rt_all_reduce(nullptr, nullptr, 0, 99, TESSERA_RT_SUM, nullptr, 0,
                            site.c_str());
  });
  std::string path = ::testing::TempDir() + "tessera-runtime-escapes.json";
  std::string error;
  ASSERT_TRUE(mesh->writeTrace(path, error)) << error;
  std::string text = readFile(path);
  EXPECT_TRUE(isValidUtf8(text));
  Json root;
  ASSERT_TRUE(JsonParser(text).parse(root));
  std::string replacement = "\xef\xbf\xbd";
  // One U+FFFD per maximal ill-formed subsequence (as Python's
  // decode(errors="replace")): 0x80; 0xc0; 0xaf; 0xed; 0xa0; 0x80;
  // 0xe2 0x82; 0xff; 0xf4; 0x90; 0x80; 0x80.
  std::string expected = std::string("s\"\\\x01\x1f\x7f");
  for (int i = 0; i < 7; ++i)
    expected += replacement;
  expected += replacement;
  for (int i = 0; i < 4; ++i)
    expected += replacement;
  expected += "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
              "end";
  int barriers = 0;
  bool failedEvent = false;
  for (const Json &event : root.get("traceEvents")->items) {
    const std::string &name = event.get("name")->text;
    if (name == "mesh failed") {
      failedEvent = true;
      EXPECT_EQ(event.get("args")->get("error")->text,
                "device 1 called " + expected +
                    " with invalid arguments: invalid dtype 99");
    } else if (event.get("cat") && event.get("cat")->text == "collective") {
      ++barriers;
      EXPECT_EQ(name, expected);
    }
  }
  EXPECT_TRUE(failedEvent);
  EXPECT_GE(barriers, 2);
}

TEST(TraceTest, TraceOfAFaultedRun) {
  std::unique_ptr<Mesh> mesh = makeMesh({"x"}, {2});
  mesh->setTraceEnabled(true);
  std::string error = runFail(*mesh, [&](int64_t d) {
    if (d == 0)
      tessera_rt_assert_failed("bad \xff byte", -1);
    int64_t parts[] = {0, 1, 2};
    tessera_rt_barrier(parts, 1, "b");
  });
  std::string path = ::testing::TempDir() + "tessera-runtime-faulted.json";
  ASSERT_TRUE(mesh->writeTrace(path, error)) << error;
  std::string text = readFile(path);
  EXPECT_TRUE(isValidUtf8(text));
  Json root;
  ASSERT_TRUE(JsonParser(text).parse(root));
  bool found = false;
  std::set<double> threads;
  for (const Json &event : root.get("traceEvents")->items) {
    if (event.get("ph")->text == "X")
      threads.insert(event.get("tid")->number);
    if (event.get("name")->text == "mesh failed") {
      found = true;
      EXPECT_EQ(event.get("args")->get("error")->text,
                "device 0: assertion failed: bad \xef\xbf\xbd byte");
    }
  }
  EXPECT_TRUE(found);
  // Both devices' spans up to where they stopped.
  EXPECT_EQ(threads, (std::set<double>{0, 1}));
}
